/* samrt_internal.c - the bodies of samrt_internal.h, the runtime's one door for the samrt
 * program and the bench: thin forwards to the segmentation pass (segment.h), the tracker
 * (tracker.h) and the prompt encoder, the budget tables and the pool residency read from the
 * engine struct (engine_impl.h), and the preprocessing alone (an ops_runtime.h entry on a
 * stream of its own) for the demo, so that nothing above the runtime includes those. */
#include "samrt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_impl.h"
#include "platform.h"
#include "ops_runtime.h"
#include "segment.h"
#include "tracker.h"

_Static_assert(SAMRT_INTERNAL_REGIONS == SAMRT_REGION_COUNT, "samrt_internal.h lists the arena's regions");

/* ---- parity taps ----------------------------------------------------------------------- */

enum samrt_status samrt_internal_segment_set_tap(samrt_engine_t e, samrt_internal_tap_fn fn, void *user) {
    SAMRT_CHECK(e, SAMRT_E_INVALID_ARG, "segment_set_tap: engine is NULL");
    return samrt_sam2_segment_set_tap(e, fn, user);
}

enum samrt_status samrt_internal_track_set_tap(samrt_engine_t e, samrt_internal_tap_fn fn, void *user) {
    SAMRT_CHECK(e, SAMRT_E_INVALID_ARG, "track_set_tap: engine is NULL");
    return samrt_sam2_track_set_tap(e, fn, user);
}

enum samrt_status samrt_internal_track_set_tap_memattn(samrt_engine_t e, int on) {
    SAMRT_CHECK(e, SAMRT_E_INVALID_ARG, "track_set_tap_memattn: engine is NULL");
    return samrt_sam2_track_set_tap_memattn(e, on);
}

/* ---- single-frame segmentation: graphs and stage events ----------------------------------- */

enum samrt_status samrt_internal_segment_configure(samrt_engine_t e, int use_graph, int timed) {
    SAMRT_CHECK(e, SAMRT_E_INVALID_ARG, "segment_configure: engine is NULL");
    return samrt_sam2_segment_configure(e, use_graph, timed);
}

/* ---- video tracking options ------------------------------------------------------------- */

enum samrt_status samrt_internal_track_set_options(samrt_engine_t e, const struct samrt_internal_track_options *opt) {
    SAMRT_CHECK(e && opt, SAMRT_E_INVALID_ARG, "track options: NULL argument");
    const struct samrt_sam2_track_options o = {opt->postproc, opt->non_overlap, opt->num_frames, opt->fill_hole_area};
    return samrt_sam2_track_set_options(e, &o);
}

/* ---- prompts ---------------------------------------------------------------------------- */

enum samrt_status samrt_internal_check_prompt(const struct samrt_object_prompt *p, int width, int height, int imgsz) {
    struct samrt_sam2_points pts;
    return samrt_sam2_points_from_prompt(p, width, height, imgsz, &pts);
}

/* ---- budget tables ---------------------------------------------------------------------- */

_Static_assert(SAMRT_INTERNAL_REGIONS == SAMRT_REGION_COUNT && SAMRT_INTERNAL_REGION_WORKSPACE == SAMRT_REGION_WORKSPACE,
               "samrt_internal.h's region order is the arena's");

enum samrt_status samrt_internal_budget(samrt_engine_t e, struct samrt_internal_budget *out) {
    SAMRT_CHECK(e && out, SAMRT_E_INVALID_ARG, "budget: NULL argument");
    const struct samrt_plan *plan = samrt_engine_plan(e);
    memset(out, 0, sizeof *out);
    out->precision = e->precision;
    out->profile = e->profile;
    for (int r = 0; r < SAMRT_REGION_COUNT; r++) out->region_bytes[r] = plan->region_bytes[r];
    out->scratch_requested_bytes = samrt_plan_requested_bytes(plan, SAMRT_REGION_SCRATCH);
    out->n_slots = plan->n_slots;
    return SAMRT_OK;
}

enum samrt_status samrt_internal_budget_slot(samrt_engine_t e, int i, struct samrt_internal_budget_slot *out) {
    SAMRT_CHECK(e && out, SAMRT_E_INVALID_ARG, "budget slot: NULL argument");
    const struct samrt_plan *plan = samrt_engine_plan(e);
    SAMRT_CHECK(i >= 0 && i < plan->n_slots, SAMRT_E_INVALID_ARG, "budget slot %d of %d", i, plan->n_slots);
    const struct samrt_arena_slot *s = &plan->slots[i];
    *out = (struct samrt_internal_budget_slot){s->name, samrt_region_name(s->region), s->offset, s->nbytes,
                                               s->t_first, s->t_last};
    return SAMRT_OK;
}

/* ---- pool residency --------------------------------------------------------------------- */

uint64_t samrt_internal_pool_resident_bytes(samrt_engine_t e) {
    struct samrt_memory_report m;
    if (!e || !e->pool || samrt_engine_memory(e, &m) != SAMRT_OK || m.mem_kind == SAMRT_MEM_DEVICE) return 0;
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lo = (uintptr_t)e->pool & ~(page - 1), hi = (uintptr_t)e->pool + m.arena_bytes;
    const size_t n_pages = (size_t)((hi - lo + page - 1) / page);
    unsigned char *vec = malloc(n_pages ? n_pages : 1);
    uint64_t resident = 0;
    if (vec && mincore((void *)lo, n_pages * page, vec) == 0)
        for (size_t i = 0; i < n_pages; i++) resident += (vec[i] & 1) ? page : 0;
    free(vec);
    return SAMRT_MIN(resident, m.arena_bytes);
}

/* ---- frame preprocessing alone -------------------------------------------------------- */

struct samrt_internal_prep {
    struct samrt_resize_plan plan;
    void *tables_host;
    int use_gpu;
    void *tables_dev, *rgb_dev, *out_dev;  /* device memory (use_gpu) */
    samrt_stream *stream;
    samrt_event *e0, *e1;
    float *out_host;
};

void samrt_internal_prep_close(struct samrt_internal_prep *p) {
    if (!p) return;
    if (p->use_gpu) {
        samrt_platform_mem_free(SAMRT_MEM_DEVICE, p->tables_dev);
        samrt_platform_mem_free(SAMRT_MEM_DEVICE, p->rgb_dev);
        samrt_platform_mem_free(SAMRT_MEM_DEVICE, p->out_dev);
        samrt_event_destroy(p->e0);
        samrt_event_destroy(p->e1);
        samrt_stream_destroy(p->stream);
    }
    free(p->tables_host);
    free(p->out_host);
    free(p);
}

static enum samrt_status prep_init(struct samrt_internal_prep *p, int w, int h, int side, int use_gpu) {
    SAMRT_TRY(samrt_resize_plan_init(w, h, side, side, &p->plan));
    p->tables_host = aligned_alloc(16, SAMRT_PAD(p->plan.table_bytes, 16));
    p->out_host = malloc(sizeof(float) * 3 * (size_t)side * side);
    if (!p->tables_host || !p->out_host) return SAMRT_E_HOST_MEMORY;
    SAMRT_TRY(samrt_resize_plan_fill(&p->plan, samrt_sam_mean, samrt_sam_std, p->tables_host, p->plan.table_bytes));
    p->use_gpu = use_gpu;
    if (!use_gpu) return SAMRT_OK;
    SAMRT_TRY(samrt_stream_create(&p->stream));
    SAMRT_TRY(samrt_event_create(&p->e0));
    SAMRT_TRY(samrt_event_create(&p->e1));
    SAMRT_TRY(samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, p->plan.table_bytes, &p->tables_dev));
    SAMRT_TRY(samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, (uint64_t)w * h * 3, &p->rgb_dev));
    SAMRT_TRY(samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, sizeof(uint16_t) * 3 * (uint64_t)side * side, &p->out_dev));
    return samrt_platform_mem_upload(SAMRT_MEM_DEVICE, p->tables_dev, p->tables_host, p->plan.table_bytes);
}

enum samrt_status samrt_internal_prep_open(int width, int height, int side, int use_gpu,
                                           struct samrt_internal_prep **out) {
    SAMRT_CHECK(out, SAMRT_E_INVALID_ARG, "prep_open: NULL out");
    *out = NULL;
    struct samrt_internal_prep *p = calloc(1, sizeof *p);
    SAMRT_CHECK(p, SAMRT_E_HOST_MEMORY, "prep_open: out of host memory");
    const enum samrt_status st = prep_init(p, width, height, side, use_gpu);
    if (st != SAMRT_OK) {
        samrt_internal_prep_close(p);
        return st;
    }
    *out = p;
    return SAMRT_OK;
}

enum samrt_status samrt_internal_prep_frame(struct samrt_internal_prep *p, const uint8_t *rgb, double *ms) {
    SAMRT_CHECK(p && rgb && ms, SAMRT_E_INVALID_ARG, "prep_frame: NULL argument");
    if (p->use_gpu) {
        const size_t bytes = (size_t)p->plan.in_w * p->plan.in_h * 3;
        SAMRT_TRY(samrt_stream_copy(p->rgb_dev, rgb, bytes, SAMRT_COPY_H2D, p->stream));
        SAMRT_TRY(samrt_event_record(p->e0, p->stream, 0));
        SAMRT_TRY(samrt_op_resize_normalize(&p->plan, p->tables_dev, p->rgb_dev, 3 * (size_t)p->plan.in_w,
                                             p->out_dev, SAMRT_DTYPE_BF16, p->stream));
        SAMRT_TRY(samrt_event_record(p->e1, p->stream, 0));
        SAMRT_TRY(samrt_stream_sync(p->stream));
        *ms = samrt_event_elapsed_ms(p->e0, p->e1);
        return SAMRT_OK;
    }
    const uint64_t t0 = samrt_platform_now_ns();
    SAMRT_TRY(samrt_op_resize_normalize_host(&p->plan, p->tables_host, rgb, 3 * (size_t)p->plan.in_w, p->out_host));
    *ms = (samrt_platform_now_ns() - t0) / 1e6;
    return SAMRT_OK;
}
