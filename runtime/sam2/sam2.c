/* sam2.c - the model hooks of hooks.h for SAM 2 / 2.1 and EdgeTAM checkpoints, the internal run
 * entries of sam2.h and samrt_engine_stage_times (the last tracked frame or timed segmentation
 * call, from the engine's stage clock: stage_clock.h). EdgeTAM shares everything but the image
 * trunk (the encoder's trunk kind) and the tracker's memory path (tracker.h: the perceiver's
 * memory tokens, the 2-layer memory attention); SAM 2.1 and EdgeTAM engines both segment and
 * track, SAM 2.0 engines segment only (their track calls return SAMRT_E_UNSUPPORTED). Backend
 * choice (backend.c): the CUDA backend when the arena is GPU-visible memory, the CPU reference
 * backend for host pools (CPU builds and tests), which runs f32 only: a host engine at another
 * precision keeps its weights but plans no forward pass (its run entries return
 * SAMRT_E_UNSUPPORTED). */
#include "sam2.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ckpt.h"
#include "engine_impl.h"
#include "hooks.h"

struct samrt_sam2 *samrt_sam2_of(const struct samrt_engine *e) { return e ? e->sam2 : NULL; }

enum samrt_status samrt_sam2_ctx_init(struct samrt_engine *e, struct samrt_op_ctx *c, struct samrt_exec *ex) {
    SAMRT_TRY(samrt_backend_ctx_init(e, c, ex));  /* backend.h: the engine's backend, precision, plan */
    /* each library chooses its algorithms within its own cap; both share the arena's one
     * workspace slot, which holds the larger cap (engine.c) */
    if (e->slot_ws >= 0) {
        c->ws_lt_bytes = e->profile->cublaslt_ws_bytes;
        c->ws_dnn_bytes = e->profile->cudnn_ws_bytes;
    }
    c->step_base = &e->sam2->step_base;
    c->sm_count = e->profile->sm_count;
    return SAMRT_OK;
}

void samrt_sam2_ctx_workspace(const struct samrt_engine *e, struct samrt_op_ctx *c) {
    if (e->slot_ws >= 0) c->ws_lt = c->ws_dnn = samrt_arena_ptr(&e->arena, e->slot_ws);
}

enum samrt_status samrt_model_plan(struct samrt_engine *e) {
    if (!samrt_sam2_config_get(e->model)) return SAMRT_OK;  /* not a SAM 2 family checkpoint */
    if (e->mem_kind == SAMRT_MEM_HOST && e->precision != SAMRT_DTYPE_F32) {
        SAMRT_LOG_INFO("sam2: the CPU backend runs f32 only; no forward pass planned at %s",
                       samrt_dtype_name(e->precision));
        return SAMRT_OK;
    }
    e->sam2 = calloc(1, sizeof *e->sam2);
    SAMRT_CHECK(e->sam2 != NULL, SAMRT_E_HOST_MEMORY, "sam2: out of host memory");
    struct samrt_sam2 *m = e->sam2;
    SAMRT_TRY(samrt_backend_open(e));  /* device engines: the GPU context and the engine's stream */
    SAMRT_TRY(samrt_sam2_encoder_bind(&m->enc, samrt_sam2_config_get(e->model), e->params.imgsz, samrt_engine_env(e), NULL));
    /* EdgeTAM's trunk runs on the BatchNorm-folded copy that its prepare builds from the
     * checkpoint (models/edgetam/repvit.c); of its tensors only the squeeze-excite layers are
     * read from the engine's weights */
    if (samrt_sam2_config_get(e->model)->trunk == SAMRT_TRUNK_REPVIT)
        samrt_engine_release_weights(e, "image_encoder.trunk.body.", ".se.");
    SAMRT_TRY(samrt_sam2_ctx_init(e, &m->ctx_enc, &m->ex_enc));
    SAMRT_TRY(samrt_sam2_encoder_plan(&m->enc, &m->ctx_enc));
    SAMRT_TRY(samrt_sam2_segment_plan(e, m));
    SAMRT_TRY(samrt_sam2_tracker_plan(e, m));
    return SAMRT_OK;
}

/* The f32 values of a checkpoint tensor (host heap; the caller frees). */
static enum samrt_status read_f32(const struct samrt_ckpt *ck, const char *name, float **out) {
    *out = NULL;
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, name);
    SAMRT_CHECK(t != NULL, SAMRT_E_KEYS, "sam2: %s missing from the checkpoint", name);
    *out = malloc(sizeof(float) * (size_t)t->nelements);
    SAMRT_CHECK(*out != NULL, SAMRT_E_HOST_MEMORY, "sam2: out of host memory");
    return samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, *out, sizeof(float) * (uint64_t)t->nelements);
}

enum samrt_status samrt_model_prepare(struct samrt_engine *e, const struct samrt_ckpt *ck) {
    struct samrt_sam2 *m = e->sam2;
    if (!m) return SAMRT_OK;
    /* the position embedding is formed from the checkpoint's f32 values, as autocast does */
    float *pos = NULL, *win = NULL;
    enum samrt_status st = SAMRT_OK;
    if (m->enc.cfg->trunk == SAMRT_TRUNK_REPVIT) {
        st = samrt_repvit_prepare(&m->enc.rv, samrt_engine_env(e), ck);  /* BatchNorm folding; no position embedding */
    } else {
        st = read_f32(ck, "image_encoder.trunk.pos_embed", &pos);
        if (st == SAMRT_OK) st = read_f32(ck, "image_encoder.trunk.pos_embed_window", &win);
    }
    if (st == SAMRT_OK) st = samrt_sam2_encoder_prepare(&m->enc, samrt_engine_env(e), pos, win);
    free(pos);
    free(win);
    SAMRT_TRY(st);
    samrt_sam2_ctx_workspace(e, &m->ctx_enc);
    m->enc_ready = 1;
    SAMRT_TRY(samrt_stage_clock_init(&m->clock, e->mem_kind != SAMRT_MEM_HOST));
    samrt_stage_times_none(&m->times);
    SAMRT_TRY(samrt_sam2_segment_prepare(e, m, ck));
    return samrt_sam2_tracker_prepare(e, m, ck);
}

void samrt_model_free(struct samrt_engine *e) {
    if (!e->sam2) return;
    samrt_sam2_tracker_free(e->sam2);
    samrt_sam2_segment_free(e->sam2);
    samrt_stage_clock_free(&e->sam2->clock);  /* after the graphs that record its events */
    samrt_ctx_free(&e->sam2->ctx_enc);
    free(e->sam2);
    e->sam2 = NULL;
}

enum samrt_status samrt_sam2_encode_image(struct samrt_engine *e, void *stream) {
    if (!e || e->failed) return SAMRT_E_BAD_STATE;
    struct samrt_sam2 *m = e->sam2;
    if (!m || !m->enc_ready) return SAMRT_E_UNSUPPORTED;
    struct samrt_op_ctx *c = &m->ctx_enc;
    samrt_backend_set_stream(c, (samrt_stream *)stream);
    samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
    samrt_sam2_encoder_forward(&m->enc, c);
    enum samrt_status st = samrt_ctx_end(c);
    if (st != SAMRT_OK) e->failed = 1;
    return st;
}

enum samrt_status samrt_engine_stage_times(samrt_engine_t e, struct samrt_stage_times *out) {
    SAMRT_CHECK(e && out, SAMRT_E_INVALID_ARG, "stage_times: engine and out are required");
    if (e->failed) return SAMRT_E_BAD_STATE;
    const struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->seg.ready, SAMRT_E_UNSUPPORTED, "stage_times: this engine has no SAM 2 forward pass");
    *out = m->times;
    return SAMRT_OK;
}
