/* segment.c - samrt_engine_segment and the segmentation pass of a SAM 2.1 engine
 * (segment.h): host preprocessing, the encoder pass, the SAM heads pass on the frame's
 * features plus no_mem_embed, host post-processing into the caller's buffers.
 * Run: `samrt segment --help`; tests: tests/test_sam2_segment_cuda.c. */
#include "segment.h"

#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"
#include "mask_decode.h"
#include "resize_normalize.h"
#include "sam2.h"

#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})

/* pix_feat_with_mem = vision features + no_mem_embed (an initial conditioning frame with
 * directly_add_no_mem_embed, model-spec 3.5), then the SAM heads. */
static void segment_forward(struct samrt_sam2 *m, struct samrt_model_ctx *c) {
    struct samrt_sam2_heads *h = &m->seg.heads;
    struct samrt_tensor pix =
        samrt_op_channel_affine(c, "seg.pix", &m->enc.vision, NULL, h->dw.no_mem_embed, NULL, 1);
    samrt_sam2_heads_forward(h, c, &pix, &m->enc.feat_s0, &m->enc.feat_s1);
}

enum samrt_status samrt_sam2_segment_plan(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_segment *s = &m->seg;
    const struct samrt_sam2_heads_config cfg = {e->params.imgsz, e->params.max_objects, SAMRT_SAM2_MAX_POINTS, 0,
                                                e->precision};
    SAMRT_TRY(samrt_sam2_heads_bind(&s->heads, &cfg, e));
    SAMRT_TRY(samrt_sam2_ctx_init(e, &s->ctx, &s->ex));
    SAMRT_TRY(samrt_sam2_heads_plan(&s->heads, &s->ctx));
    samrt_ops_begin(&s->ctx, SAMRT_EXEC_PLAN, NULL);
    segment_forward(m, &s->ctx);
    return samrt_ops_end(&s->ctx);
}

enum samrt_status samrt_sam2_segment_prepare(struct samrt_engine *e, struct samrt_sam2 *m,
                                             const struct samrt_ckpt *ck) {
    struct samrt_sam2_segment *s = &m->seg;
    SAMRT_TRY(samrt_sam2_heads_prepare(&s->heads, e, ck));
    struct samrt_model_ctx *c = &s->ctx;
    if (e->slot_ws_cublaslt >= 0) c->ws_lt = samrt_arena_ptr(&e->arena, e->slot_ws_cublaslt);
    if (e->slot_ws_cudnn >= 0) c->ws_dnn = samrt_arena_ptr(&e->arena, e->slot_ws_cudnn);
    const size_t n_low = (size_t)samrt_tensor_nelements(&s->heads.low_res);
    s->low_host = malloc(sizeof(float) * n_low);
    s->res_host = malloc(sizeof(float) * (size_t)samrt_tensor_nelements(&s->heads.result));
    /* the resize tables grow with the downscale ratio: size them for the largest frame */
    struct samrt_resize_plan big;
    const int side = m->enc.imgsz;
    SAMRT_TRY(samrt_resize_plan_init(SAMRT_RESIZE_MAX_SIDE, SAMRT_RESIZE_MAX_SIDE, side, side, &big));
    s->tables_cap = SAMRT_PAD(big.table_bytes, 16);
    s->tables_host = aligned_alloc(16, s->tables_cap);
    if (e->mem_kind != SAMRT_MEM_HOST) s->in_host = malloc(samrt_tensor_nbytes(&m->enc.input));
    SAMRT_CHECK(s->low_host && s->res_host && s->tables_host && (s->in_host || e->mem_kind == SAMRT_MEM_HOST),
                SAMRT_E_HOST_MEMORY, "segment: out of host memory");
    s->ready = 1;
    return SAMRT_OK;
}

void samrt_sam2_segment_free(struct samrt_sam2 *m) {
    struct samrt_sam2_segment *s = &m->seg;
    samrt_model_ctx_free(&s->ctx);
    samrt_sam2_heads_free(&s->heads);
    free(s->low_host);
    free(s->res_host);
    free(s->in_host);
    free(s->tables_host);
    s->low_host = s->res_host = NULL;
    s->in_host = s->tables_host = NULL;
    s->ready = 0;
}

enum samrt_status samrt_sam2_segment_set_tap(struct samrt_engine *e, samrt_tap_fn fn, void *user) {
    struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->seg.ready, SAMRT_E_UNSUPPORTED, "segment: the engine has no SAM 2.1 forward pass");
    m->ctx_enc.tap = m->seg.ctx.tap = fn;
    m->ctx_enc.tap_user = m->seg.ctx.tap_user = user;
    return SAMRT_OK;
}

/* ---- host pre- and post-processing ------------------------------------------------------------- */

/* Pillow-exact resize to the model side and normalisation, written into the encoder's input
 * slot (through the host copy for GPU pools). */
enum samrt_status samrt_sam2_preprocess(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_image *img) {
    struct samrt_sam2_segment *s = &m->seg;
    const int side = m->enc.imgsz;
    struct samrt_resize_plan plan;
    SAMRT_TRY(samrt_resize_plan_init(img->width, img->height, side, side, &plan));
    SAMRT_CHECK(plan.table_bytes <= s->tables_cap, SAMRT_E_UNSUPPORTED, "segment: a %dx%d image needs %zu bytes of "
                "resize tables, %zu were reserved", img->width, img->height, plan.table_bytes, s->tables_cap);
    void *dst = e->mem_kind == SAMRT_MEM_HOST ? m->enc.input.data : s->in_host;
    SAMRT_TRY(samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, s->tables_host, s->tables_cap));
    SAMRT_TRY(samrt_resize_normalize_ref(&plan, s->tables_host, img->rgb, (size_t)img->stride, samrt_sam_mean,
                                         samrt_sam_std, dst, m->enc.input.dtype));
    if (dst == m->enc.input.data) return SAMRT_OK;
    return samrt_platform_mem_upload(e->mem_kind, m->enc.input.data, dst, samrt_tensor_nbytes(&m->enc.input));
}

/* Object 0's prompt and stored-output taps (the official names of dump_taps.py). */
static enum samrt_status segment_taps(struct samrt_sam2_segment *s, const float *video_logits, int width,
                                      int height) {
    struct samrt_model_ctx *c = &s->ctx;
    struct samrt_sam2_heads *h = &s->heads;
    const struct samrt_sam2_points *p = &s->pts[0];
    float coords[2 * SAMRT_SAM2_MAX_POINTS], labels[SAMRT_SAM2_MAX_POINTS], ptr[SAMRT_SAM2_DIM];
    for (int i = 0; i < p->n; i++) {
        coords[2 * i] = p->xy[i][0];
        coords[2 * i + 1] = p->xy[i][1];
        labels[i] = (float)p->label[i];
    }
    samrt_sam2_tap_host(c, "tap.prompt.coords", coords, 3, SHAPE(1, p->n, 2));
    samrt_sam2_tap_host(c, "tap.prompt.labels", labels, 2, SHAPE(1, p->n));
    SAMRT_TRY(samrt_sam2_heads_taps(h, c));
    SAMRT_TRY(samrt_sam2_fetch(c, ptr, h->obj_ptr.data, sizeof ptr));
    const int64_t L = h->low;
    samrt_sam2_tap_host(c, "tap.out.pred_masks", s->low_host, 4, SHAPE(1, 1, L, L));
    samrt_sam2_tap_host(c, "tap.out.obj_ptr", ptr, 2, SHAPE(1, SAMRT_SAM2_DIM));
    samrt_sam2_tap_host(c, "tap.out.object_score_logits", &s->res_host[SAMRT_SAM2_RES_SCORE], 2, SHAPE(1, 1));
    samrt_sam2_tap_host(c, "tap.out.video_res_masks", (float *)video_logits, 4, SHAPE(1, 1, height, width));
    return c->ex->status;
}

/* ---- the public call --------------------------------------------------------------------------- */

static enum samrt_status check_args(struct samrt_engine *e, const struct samrt_image *img,
                                    const struct samrt_object_prompt *prompts, int n, enum samrt_postproc pp,
                                    const struct samrt_mask_result *out) {
    SAMRT_CHECK(e && img && prompts && out, SAMRT_E_INVALID_ARG,
                "segment: engine, image, prompts and out are required");
    if (e->failed) return SAMRT_E_BAD_STATE;
    struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->enc_ready && m->seg.ready, SAMRT_E_UNSUPPORTED,
                "segment: this engine has no SAM 2 forward pass (model %s, %s, %s memory)", samrt_model_name(e->model),
                samrt_dtype_name(e->precision), samrt_mem_kind_name(e->mem_kind));
    SAMRT_CHECK(img->rgb && img->width > 0 && img->height > 0 && img->stride >= 3 * img->width,
                SAMRT_E_INVALID_ARG, "segment: bad image (%dx%d, stride %d)", img->width, img->height, img->stride);
    SAMRT_CHECK(n >= 1 && n <= m->seg.heads.cfg.b_max, SAMRT_E_INVALID_ARG,
                "segment: %d objects; this engine segments 1 .. %d at once (max_objects)", n,
                m->seg.heads.cfg.b_max);
    SAMRT_CHECK(pp == SAMRT_POSTPROC_VOS_INFERENCE || pp == SAMRT_POSTPROC_NOTEBOOK, SAMRT_E_INVALID_ARG,
                "segment: unknown post-processing profile %d", (int)pp);
    for (int i = 0; i < n; i++)
        SAMRT_CHECK(out[i].mask != NULL, SAMRT_E_INVALID_ARG, "segment: out[%d].mask is NULL", i);
    return SAMRT_OK;
}

static enum samrt_status run_passes(struct samrt_engine *e, struct samrt_sam2 *m, int n, enum samrt_postproc pp) {
    struct samrt_sam2_segment *s = &m->seg;
    struct samrt_model_ctx *c = &s->ctx;
    SAMRT_TRY(samrt_sam2_encode_image(e, NULL));
#ifdef SAMRT_HAVE_CUDA
    c->stream = NULL;  /* the legacy default stream, as the encoder pass above */
#endif
    SAMRT_TRY(samrt_sam2_heads_set_prompts(&s->heads, c, s->pts, n, pp == SAMRT_POSTPROC_NOTEBOOK));
    samrt_ops_begin(c, SAMRT_EXEC_RUN, &e->arena);
    segment_forward(m, c);
    SAMRT_TRY(samrt_ops_end(c));
#ifdef SAMRT_HAVE_CUDA
    if (c->backend == SAMRT_BACKEND_CUDA) SAMRT_CUDA_TRY(cudaStreamSynchronize(NULL));
#endif
    const int64_t P = (int64_t)s->heads.low * s->heads.low;
    SAMRT_TRY(samrt_sam2_fetch(c, s->low_host, s->heads.low_res.data, sizeof(float) * (size_t)(n * P)));
    return samrt_sam2_fetch(c, s->res_host, s->heads.result.data, sizeof(float) * (size_t)n * SAMRT_SAM2_RES_COLS);
}

enum samrt_status samrt_engine_segment(samrt_engine_t e, const struct samrt_image *img,
                                       const struct samrt_object_prompt *prompts, int n, enum samrt_postproc pp,
                                       struct samrt_mask_result *out) {
    SAMRT_TRY(check_args(e, img, prompts, n, pp, out));
    struct samrt_sam2 *m = samrt_sam2_of(e);
    struct samrt_sam2_segment *s = &m->seg;
    for (int i = 0; i < n; i++)
        SAMRT_TRY(samrt_sam2_points_from_prompt(&prompts[i], img->width, img->height, m->enc.imgsz, &s->pts[i]));
    SAMRT_TRY(samrt_sam2_preprocess(e, m, img));
    enum samrt_status st = run_passes(e, m, n, pp);
    if (st != SAMRT_OK) {
        e->failed = 1;
        return st;
    }
    const int L = s->heads.low;
    float *tap_logits = NULL;
    if (s->ctx.tap && !out[0].logits) {
        tap_logits = malloc(sizeof(float) * (size_t)img->width * (size_t)img->height);  /* debug path only */
        SAMRT_CHECK(tap_logits != NULL, SAMRT_E_HOST_MEMORY, "segment: no host memory for the taps");
    }
    for (int i = 0; i < n && st == SAMRT_OK; i++) {
        const struct samrt_mask_decode_desc d = {1, L, L, img->height, img->width, SAMRT_DTYPE_F32};
        struct samrt_mask_stats stats;
        float *logits = i == 0 && tap_logits ? tap_logits : out[i].logits;
        st = samrt_mask_decode_ref(&d, s->low_host + (size_t)i * L * L, out[i].mask, &stats, logits);
        const float *res = s->res_host + (size_t)i * SAMRT_SAM2_RES_COLS;
        out[i].object_score = res[SAMRT_SAM2_RES_SCORE];
        out[i].iou = res[SAMRT_SAM2_RES_IOU];
        out[i].area = stats.area;
        out[i].box[0] = stats.x0;
        out[i].box[1] = stats.y0;
        out[i].box[2] = stats.x1;
        out[i].box[3] = stats.y1;
    }
    if (st == SAMRT_OK && s->ctx.tap)
        st = segment_taps(s, tap_logits ? tap_logits : out[0].logits, img->width, img->height);
    free(tap_logits);
    return st;
}
