/* sam2.c - the SAM 2 family's model state inside an engine (sam2.h): its op contexts (backend,
 * precision, workspace caps, the shared PLAN step counter) and the image encoder's pass, which
 * both single-frame segmentation (segment.c) and the tracker (tracker_run.c) run. The family's
 * lifecycle and its table are family.c's. Backend choice (backend.c): the CUDA backend when
 * the arena is GPU-visible memory, the CPU reference backend for host pools. */
#include "sam2.h"

#include "backend.h"
#include "engine_impl.h"
#include "projection.h"

struct samrt_sam2 *samrt_sam2_of(const struct samrt_engine *e) { return e ? (struct samrt_sam2 *)e->model_state : NULL; }

enum samrt_status samrt_sam2_ctx_init(struct samrt_engine *e, struct samrt_op_ctx *c, struct samrt_exec *ex) {
    SAMRT_TRY(samrt_backend_ctx_init(e, c, ex));  /* backend.h: the engine's backend, precision, plan */
    /* each library chooses its algorithms within its own cap; both share the arena's one
     * workspace slot, which holds the larger cap (engine.c) */
    if (e->slot_ws >= 0) {
        c->ws_lt_bytes = e->profile->cublaslt_ws_bytes;
        c->ws_dnn_bytes = e->profile->cudnn_ws_bytes;
    }
    c->step_base = &samrt_sam2_of(e)->step_base;
    c->sm_count = e->profile->sm_count;
    samrt_projection_rates(e->profile, &c->peak_flops, &c->peak_bytes_s, &c->launch_s);
    return SAMRT_OK;
}

void samrt_sam2_ctx_workspace(const struct samrt_engine *e, struct samrt_op_ctx *c) {
    if (e->slot_ws >= 0) c->ws_lt = c->ws_dnn = samrt_arena_ptr(&e->arena, e->slot_ws);
}

enum samrt_status samrt_sam2_encode_image(struct samrt_engine *e, void *stream) {
    if (!e || e->failed) return SAMRT_E_BAD_STATE;
    struct samrt_sam2 *m = samrt_sam2_of(e);
    if (!m || !m->enc_ready) return SAMRT_E_UNSUPPORTED;
    struct samrt_op_ctx *c = &m->ctx_enc;
    samrt_backend_set_stream(c, (samrt_stream *)stream);
    samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
    samrt_sam2_encoder_forward(&m->enc, c);
    enum samrt_status st = samrt_ctx_end(c);
    if (st != SAMRT_OK) e->failed = 1;
    return st;
}

