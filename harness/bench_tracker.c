/* bench_tracker.c - the trackers of this build for `samrt bench`: which models track here
 * (samrt.h's model table, which also names their checkpoint files) and the tracker on the public streaming API
 * (samrt_engine_track_*, samrt_engine_stage_times), which runs SAM 2.1 and EdgeTAM alike; its
 * sessions (samrt_engine_init_session) are the streams of `samrt bench --streams`.
 *
 * The tracker is compiled in with the CMake option SAMRT_BENCH_TRACKING (ON by default). A
 * build configured with -DSAMRT_BENCH_TRACKING=OFF refuses every model with "video tracking is
 * not in this build" and `samrt bench` exits 4: there is no stand-in, a bench that cannot
 * track says so instead of writing numbers. */
#include "bench_tracker.h"

#include <string.h>

#include "samrt_impl.h"
#include "samrt_internal.h"

static enum samrt_status builtin_available(enum samrt_model_id model, const char **why) {
    const char *reason = NULL;
    /* samrt.h's model table: the models that track; the others with a checkpoint are SAM 2.0 */
    if (samrt_model_checkpoint_name(model) && !samrt_model_tracks(model))
        reason = "SAM 2.0 (sam2_tiny/small/base/large, sam2_hiera_*.pt) is not in this build; "
                 "the SAM 2.1 models are sam2.1_tiny/small/base_plus/large";
    else if (!samrt_model_tracks(model))
        reason = "unknown model";
#ifndef SAMRT_BENCH_TRACKING
    else
        reason = "video tracking is not in this build (it was configured with -DSAMRT_BENCH_TRACKING=OFF)";
#endif
    if (why) *why = reason;
    return reason ? SAMRT_E_NOT_IMPLEMENTED : SAMRT_OK;
}

#ifdef SAMRT_BENCH_TRACKING
/* ---- SAM 2.1 on samrt_engine_track_* ------------------------------------------------------ */

static enum samrt_status sam2_begin(void *self, int width, int height) {
    return samrt_engine_track_begin((samrt_engine_t)self, width, height);
}

static enum samrt_status sam2_prompt(void *self, int obj_id, const struct samrt_prompt *p) {
    samrt_engine_t e = (samrt_engine_t)self;
    if (p->kind == SAMRT_PROMPT_MASK) return samrt_engine_track_prompt_mask(e, obj_id, p->mask);
    struct samrt_object_prompt op;
    memset(&op, 0, sizeof op);
    op.n_clicks = SAMRT_MIN(p->n_points, SAMRT_MAX_CLICKS);
    for (int i = 0; i < op.n_clicks; i++)
        op.clicks[i] = (struct samrt_click){p->points[i].x, p->points[i].y, p->points[i].label};
    op.has_box = p->has_box;
    if (p->has_box) memcpy(op.box, p->box, sizeof op.box);
    return samrt_engine_track_prompt(e, obj_id, &op);
}

static enum samrt_status sam2_push(void *self, const struct samrt_image *frame, int frame_on_device,
                                   struct samrt_track_result *results, int max_results, int *n_results,
                                   struct samrt_stage_times *times) {
    samrt_engine_t e = (samrt_engine_t)self;
    SAMRT_TRY(samrt_engine_track_push(e, frame, frame_on_device, results, max_results, n_results));
    if (samrt_engine_stage_times(e, times) != SAMRT_OK)
        *times = (struct samrt_stage_times){-1, -1, -1, -1, -1, -1, -1, -1};
    return SAMRT_OK;
}

static enum samrt_status sam2_memory(void *self, struct samrt_memory_report *out) {
    return samrt_engine_memory((samrt_engine_t)self, out);
}

/* The pages of a unified or host pool that count in VmRSS. */
static uint64_t sam2_host_resident(void *self) { return samrt_internal_pool_resident_bytes((samrt_engine_t)self); }

static void sam2_close(void *self) { samrt_engine_free((samrt_engine_t)self); }

static enum samrt_status sam2_session(void *self, struct samrt_tracker *out);

static const struct samrt_tracker_ops g_sam2_ops = {sam2_begin,  sam2_prompt,        sam2_push,  NULL,
                                                    sam2_memory, sam2_host_resident, sam2_close, sam2_session};

/* Another engine on the weights of self, with self's parameters (NULL: the model's). */
static enum samrt_status sam2_session(void *self, struct samrt_tracker *out) {
    samrt_engine_t e = NULL;
    SAMRT_TRY(samrt_engine_init_session((samrt_engine_t)self, NULL, &e));
    out->ops = &g_sam2_ops;
    out->self = e;
    return SAMRT_OK;
}

static enum samrt_status builtin_open(const struct samrt_tracker_config *cfg, struct samrt_tracker *out) {
    SAMRT_TRY(builtin_available(cfg->model, NULL));
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = cfg->platform;
    p.precision = cfg->precision;
    p.expect_model = cfg->model;
    p.imgsz = cfg->imgsz;
    p.max_objects = cfg->max_objects;
    p.sm_limit = cfg->sm_limit;
    p.memory = cfg->memory;
    samrt_engine_t e = NULL;
    SAMRT_TRY(samrt_engine_init(cfg->checkpoint, &p, &e));
    out->ops = &g_sam2_ops;
    out->self = e;
    return SAMRT_OK;
}
#else
static enum samrt_status builtin_open(const struct samrt_tracker_config *cfg, struct samrt_tracker *out) {
    (void)out;
    const char *why = NULL;
    const enum samrt_status st = builtin_available(cfg->model, &why);
    SAMRT_LOG_ERROR("%s", why);
    return st;
}
#endif

static const struct samrt_tracker_backend g_builtin = {builtin_available, builtin_open};

const struct samrt_tracker_backend *samrt_tracker_backend(void) { return &g_builtin; }
