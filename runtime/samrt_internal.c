/* samrt_internal.c - the bodies of samrt_internal.h, the runtime's one door for the samrt
 * program and the bench: thin forwards to the engine's model family (family.h: taps, graphs
 * and timing, track options, the prompt check), the budget tables, the pool residency and the
 * SM share read from the engine struct (engine_impl.h) and the platform (platform.h), so that
 * nothing above the runtime includes those. */
#include "samrt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_impl.h"
#include "engine_limits.h"
#include "family.h"
#include "ops_video.h"
#include "platform.h"

_Static_assert(SAMRT_INTERNAL_REGIONS == SAMRT_REGION_COUNT, "samrt_internal.h lists the arena's regions");

/* ---- parity taps ----------------------------------------------------------------------- */

enum samrt_status samrt_internal_segment_set_tap(samrt_engine_t e, samrt_internal_tap_fn fn, void *user) {
    SAMRT_FAMILY_FORWARD(e, "segment_set_tap: engine is NULL", segment_tap, fn, user);
}

enum samrt_status samrt_internal_track_set_tap(samrt_engine_t e, samrt_internal_tap_fn fn, void *user) {
    SAMRT_FAMILY_FORWARD(e, "track_set_tap: engine is NULL", track_tap, fn, user);
}

enum samrt_status samrt_internal_track_set_tap_memattn(samrt_engine_t e, int on) {
    SAMRT_FAMILY_FORWARD(e, "track_set_tap_memattn: engine is NULL", track_tap_memattn, on);
}

/* ---- single-frame segmentation: graphs and stage events ----------------------------------- */

enum samrt_status samrt_internal_segment_configure(samrt_engine_t e, int use_graph, int timed) {
    SAMRT_FAMILY_FORWARD(e, "segment_configure: engine is NULL", segment_configure, use_graph, timed);
}

/* ---- video tracking options ------------------------------------------------------------- */

enum samrt_status samrt_internal_track_set_options(samrt_engine_t e, const struct samrt_internal_track_options *opt) {
    SAMRT_CHECK(e && opt, SAMRT_E_INVALID_ARG, "track options: NULL argument");
    SAMRT_FAMILY_FORWARD(e, "track options: NULL argument", track_options, opt);
}

/* ---- prompts ---------------------------------------------------------------------------- */

/* No engine: the rule of the first registered family that checks prompts. */
enum samrt_status samrt_internal_check_prompt(const struct samrt_object_prompt *p, int width, int height, int imgsz) {
    for (int i = 0; samrt_families[i]; i++)
        if (samrt_families[i]->check_prompt) return samrt_families[i]->check_prompt(p, width, height, imgsz);
    return SAMRT_OK;
}

/* ---- the work of a frame ------------------------------------------------------------------ */

const char *samrt_internal_stage_name(int stage) {
    static const char *const names[SAMRT_INTERNAL_STAGES] = {"preprocess",       "image_encoder",  "memory_attention",
                                                             "mask_decoder",     "memory_encoder", "postprocess"};
    return stage >= 0 && stage < SAMRT_INTERNAL_STAGES ? names[stage] : NULL;
}

enum samrt_status samrt_internal_frame_cost(samrt_engine_t e, int objects, int width, int height,
                                            struct samrt_internal_frame_cost *out) {
    SAMRT_CHECK(out, SAMRT_E_INVALID_ARG, "frame cost: out is required");
    SAMRT_FAMILY_FORWARD(e, "frame cost: engine is NULL", frame_cost, objects, width, height, out);
}

enum samrt_status samrt_internal_track_graph_nodes(samrt_engine_t e, int *kernels, int *copies) {
    SAMRT_CHECK(kernels && copies, SAMRT_E_INVALID_ARG, "track graph nodes: NULL argument");
    int captures = 0;
    SAMRT_FAMILY_FORWARD(e, "track graph nodes: engine is NULL", track_graph_nodes, kernels, copies, &captures);
}

enum samrt_status samrt_internal_track_graph_captures(samrt_engine_t e, int *captures) {
    SAMRT_CHECK(captures, SAMRT_E_INVALID_ARG, "track graph captures: NULL argument");
    int kernels = 0, copies = 0;
    SAMRT_FAMILY_FORWARD(e, "track graph captures: engine is NULL", track_graph_nodes, &kernels, &copies, captures);
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
    for (int i = 0; i < plan->n_slots; i++) {  /* GPU engines: the frame slot and what each format needs */
        if (strcmp(plan->slots[i].name, SAMRT_FRAME_SLOT_NAME) != 0) continue;
        const int w = e->params.max_frame_width, h = e->params.max_frame_height;
        out->frame_slot_bytes = plan->slots[i].nbytes;
        out->frame_rgb8_bytes = 3 * (uint64_t)w * (uint64_t)h;
        out->frame_nv12_bytes = samrt_nv12_packed_bytes(w, h);
        break;
    }
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

/* ---- SM shares -------------------------------------------------------------------------- */

enum samrt_status samrt_internal_sm_share_query(int device, int sm_limit, struct samrt_sm_share_info *out) {
    SAMRT_CHECK(out, SAMRT_E_INVALID_ARG, "sm_share_query: out is NULL");
    return samrt_platform_sm_share_query(device, sm_limit, out);
}

int samrt_internal_engine_sm_count(samrt_engine_t e) { return e ? samrt_platform_sm_share_sms(e->sm_share) : 0; }
