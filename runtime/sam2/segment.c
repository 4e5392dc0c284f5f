/* segment.c - the family's segment entry (samrt_engine_segment) and the segmentation pass of a SAM 2 family engine
 * (segment.h): preprocessing, the encoder pass, the SAM heads pass on the frame's features
 * plus no_mem_embed, post-processing into the caller's buffers. CUDA engines run the whole
 * sequence on the engine's stream from arena staging slots and replay it as a CUDA graph
 * (one graph per launch-parameter key); host engines run the C references.
 * Mask prompts (samrt_engine_segment_masked) run a second, one-object heads pass per masked
 * object after the first (segment.h).
 * Run: `samrt segment --help` (`--bench N` times it); tests: tests/test_sam2_segment.c,
 * tests/test_sam2_segment_mask.c. */
#include "segment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "engine_impl.h"
#include "graph_cache.h"
#include "sam2.h"
#include "stage_clock.h"
#include "staging.h"
#include "track_mask.h"  /* samrt_aa_bilinear_host: mask prompts become the tracker's logits */

#define MASK_LOGIT 10.0f  /* a binary mask prompt's logits, as the tracker's (track_mask.h) */


/* pix_feat_with_mem = vision features + no_mem_embed (an initial conditioning frame with
 * directly_add_no_mem_embed, model-spec 3.5), then the SAM heads h (the segmentation pass's,
 * or the mask-prompt heads). */
static void heads_forward(struct samrt_sam2 *m, struct samrt_op_ctx *c, struct samrt_sam2_heads *h, const char *pix_name) {
    struct samrt_tensor pix = samrt_op_channel_affine(c, pix_name, &m->enc.vision, NULL, h->dw.no_mem_embed, NULL, 1);
    samrt_sam2_heads_forward(h, c, &pix, &m->enc.feat_s0, &m->enc.feat_s1);
}

static void segment_forward(struct samrt_sam2 *m, struct samrt_op_ctx *c) {
    heads_forward(m, c, &m->seg.heads, "seg.pix");
}

enum samrt_status samrt_sam2_segment_heads(struct samrt_engine *e, struct samrt_sam2 *m, samrt_stream *stream) {
    struct samrt_op_ctx *c = &m->seg.ctx;
    samrt_backend_set_stream(c, stream);
    samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
    segment_forward(m, c);
    return samrt_ctx_end(c);
}

enum samrt_status samrt_sam2_segment_plan(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_segment *s = &m->seg;
    const struct samrt_sam2_heads_config cfg = {e->params.imgsz, e->params.max_objects, SAMRT_SAM2_MAX_POINTS, 0,
                                                e->precision, NULL};
    SAMRT_TRY(samrt_sam2_heads_bind(&s->heads, &cfg, samrt_engine_env(e)));
    SAMRT_TRY(samrt_sam2_ctx_init(e, &s->ctx, &s->ex));
    SAMRT_TRY(samrt_sam2_heads_plan(&s->heads, &s->ctx));
    /* the staging slots of device engines (plan-only budgets too, so they count them); the
     * frame's at the encoder pass's first step, beside its input */
    SAMRT_TRY(samrt_staging_plan(&m->stage, &s->ctx, e->params.max_frame_width, e->params.max_frame_height,
                                 e->params.imgsz, s->heads.cfg.b_max, e->mem_kind != SAMRT_MEM_HOST,
                                 e->plan.slots[m->enc.slot_input].t_first));
    SAMRT_TRY(samrt_health_plan(&s->ctx, "seg.health", &s->health));
    samrt_ctx_begin(&s->ctx, SAMRT_EXEC_PLAN, NULL);
    segment_forward(m, &s->ctx);
    SAMRT_TRY(samrt_ctx_end(&s->ctx));
    /* the mask-prompt heads: one object, every point, the mask branch; the f32 decoder
     * weights of bf16 runs are the heads' above */
    const struct samrt_sam2_heads_config mcfg = {e->params.imgsz, 1, SAMRT_SAM2_MAX_POINTS, 1, e->precision,
                                                 &s->heads};
    SAMRT_TRY(samrt_sam2_heads_bind(&s->mheads, &mcfg, samrt_engine_env(e)));
    SAMRT_TRY(samrt_sam2_ctx_init(e, &s->mctx, &s->mex));
    SAMRT_TRY(samrt_sam2_heads_plan(&s->mheads, &s->mctx));
    samrt_ctx_begin(&s->mctx, SAMRT_EXEC_PLAN, NULL);
    heads_forward(m, &s->mctx, &s->mheads, "segm.pix");
    return samrt_ctx_end(&s->mctx);
}

enum samrt_status samrt_sam2_segment_prepare(struct samrt_engine *e, struct samrt_sam2 *m,
                                             const struct samrt_ckpt *ck) {
    struct samrt_sam2_segment *s = &m->seg;
    SAMRT_TRY(samrt_sam2_heads_prepare(&s->heads, samrt_engine_env(e), ck));
    SAMRT_TRY(samrt_sam2_heads_prepare(&s->mheads, samrt_engine_env(e), ck));
    struct samrt_op_ctx *c = &s->ctx;
    samrt_sam2_ctx_workspace(e, c);
    samrt_sam2_ctx_workspace(e, &s->mctx);
    s->mask_stage = malloc(samrt_dtype_size(e->precision) * (size_t)s->mheads.low * (size_t)s->mheads.low);
    SAMRT_CHECK(s->mask_stage != NULL, SAMRT_E_HOST_MEMORY, "segment: out of host memory");
    const size_t n_low = (size_t)samrt_tensor_nelements(&s->heads.low_res);
    s->low_host = malloc(sizeof(float) * n_low);
    s->res_host = malloc(sizeof(float) * (size_t)samrt_tensor_nelements(&s->heads.result));
    SAMRT_CHECK(s->low_host && s->res_host, SAMRT_E_HOST_MEMORY, "segment: out of host memory");
    SAMRT_TRY(samrt_staging_prepare(&m->stage, &e->arena));
    m->stage.io = &e->io;  /* the engine's frame counters (samrt_engine_io_counters) */
    samrt_health_prepare(&s->health, &e->arena);
    SAMRT_TRY(samrt_graph_cache_init(&s->graphs, "segment", SAMRT_SAM2_SEG_GRAPHS, sizeof(struct samrt_sam2_seg_key)));
    s->use_graph = 1;
    s->ready = 1;
    return SAMRT_OK;
}

void samrt_sam2_segment_free(struct samrt_sam2 *m) {
    struct samrt_sam2_segment *s = &m->seg;
    samrt_ctx_free(&s->ctx);
    samrt_sam2_heads_free(&s->heads);
    samrt_ctx_free(&s->mctx);
    samrt_sam2_heads_free(&s->mheads);
    free(s->mask_stage);
    s->mask_stage = NULL;
    samrt_graph_cache_free(&s->graphs);
    samrt_staging_free(&m->stage);
    free(s->low_host);
    free(s->res_host);
    s->low_host = s->res_host = NULL;
    s->ready = 0;
}

enum samrt_status samrt_sam2_segment_set_tap(struct samrt_engine *e, samrt_tap_fn fn, void *user) {
    struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->seg.ready, SAMRT_E_UNSUPPORTED, "segment: the engine has no SAM 2.1 forward pass");
    m->ctx_enc.tap = m->seg.ctx.tap = m->seg.mctx.tap = fn;
    m->ctx_enc.tap_user = m->seg.ctx.tap_user = m->seg.mctx.tap_user = user;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_segment_configure(struct samrt_engine *e, int use_graph, int timed) {
    struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->seg.ready, SAMRT_E_UNSUPPORTED, "segment: the engine has no SAM 2.1 forward pass");
    m->seg.use_graph = use_graph != 0;
    m->seg.timed = timed != 0;
    return SAMRT_OK;
}

/* ---- mask prompts ---------------------------------------------------------------------------- */

/* After the heads pass: each masked object through the mask-prompt heads (its clicks / box and
 * its logits as the dense prompt), its rows into the heads pass's rows. On `stream` (NULL on
 * host engines); never captured (host values are uploaded between the passes). */
static enum samrt_status run_masked(struct samrt_engine *e, struct samrt_sam2 *m, int n, int notebook,
                                    samrt_stream *stream) {
    struct samrt_sam2_segment *s = &m->seg;
    struct samrt_sam2_heads *mh = &s->mheads, *h = &s->heads;
    struct samrt_op_ctx *c = &s->mctx;
    const size_t n_low = (size_t)mh->low * mh->low, esz = samrt_dtype_size(e->precision);
    const size_t rc = SAMRT_SAM2_RES_COLS, dim = SAMRT_SAM2_DIM;
    samrt_backend_set_stream(c, stream);
    for (int i = n - 1; i >= 0; i--) {  /* object 0 last: its pass stays in mheads for the taps */
        if (!s->mask_in[i]) continue;
        for (size_t p = 0; p < n_low; p++) samrt_op_host_store(e->precision, s->mask_stage, (int64_t)p, s->mask_in[i][p]);
        SAMRT_TRY(samrt_ctx_memcpy(c, mh->mask_in.data, s->mask_stage, esz * n_low));  /* staged on return */
        SAMRT_TRY(samrt_sam2_heads_set_prompts(mh, c, &s->pts[i], 1, notebook));
        samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
        heads_forward(m, c, mh, "segm.pix");
        SAMRT_TRY(samrt_ctx_end(c));
        SAMRT_TRY(samrt_ctx_memcpy(c, (float *)h->low_res.data + n_low * i, mh->low_res.data, sizeof(float) * n_low));
        SAMRT_TRY(samrt_ctx_memcpy(c, (float *)h->result.data + rc * i, mh->result.data, sizeof(float) * rc));
        SAMRT_TRY(samrt_ctx_memcpy(c, (float *)h->obj_ptr.data + dim * i, mh->obj_ptr.data, sizeof(float) * dim));
    }
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_mask_prompt(struct samrt_engine *e, const uint8_t *mask, int width, int height,
                                         float *logits, int *side) {
    struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->seg.ready, SAMRT_E_UNSUPPORTED, "mask prompt: this engine has no SAM 2 forward pass");
    const int S = m->enc.imgsz, L = m->seg.mheads.low;
    if (side) *side = L;
    if (!mask && !logits) return SAMRT_OK;
    SAMRT_CHECK(mask && logits, SAMRT_E_INVALID_ARG, "mask prompt: mask and logits are required");
    SAMRT_CHECK(width > 0 && height > 0 && width <= 16384 && height <= 16384, SAMRT_E_INVALID_ARG,
                "mask prompt: bad mask size %dx%d", width, height);
    const size_t n_full = (size_t)S * S, n_img = (size_t)width * height;
    const int resize = width != S || height != S;
    float *full = malloc(sizeof(float) * n_full), *plane = resize ? malloc(sizeof(float) * n_img) : NULL;
    if (!full || (resize && !plane)) {
        free(full);
        free(plane);
        SAMRT_CHECK(0, SAMRT_E_HOST_MEMORY, "mask prompt: out of host memory");
    }
    /* track_mask.h steps 1-2: the binary model-size mask (resized unless already S x S, then
     * >= 0.5), logits +-10, antialiased downsample to the low-res side */
    if (resize) {
        for (size_t p = 0; p < n_img; p++) plane[p] = (float)(mask[p] != 0);
        samrt_aa_bilinear_host(plane, height, width, full, S, S);
        for (size_t p = 0; p < n_full; p++) full[p] = full[p] >= 0.5f ? MASK_LOGIT : -MASK_LOGIT;
    } else {
        for (size_t p = 0; p < n_full; p++) full[p] = mask[p] ? MASK_LOGIT : -MASK_LOGIT;
    }
    samrt_aa_bilinear_host(full, S, S, logits, L, L);
    free(full);
    free(plane);
    return SAMRT_OK;
}

/* ---- host engines: the C references ------------------------------------------------------------ */

/* Object 0's prompt and stored-output taps (the official names of dump_taps.py); low_host
 * and res_host hold the heads' results. */
static enum samrt_status segment_taps(struct samrt_sam2_segment *s, const float *video_logits, int width,
                                      int height) {
    struct samrt_op_ctx *c = &s->ctx;
    struct samrt_sam2_heads *h = &s->heads;
    const struct samrt_sam2_points *p = &s->pts[0];
    float coords[2 * SAMRT_SAM2_MAX_POINTS], labels[SAMRT_SAM2_MAX_POINTS], ptr[SAMRT_SAM2_DIM];
    for (int i = 0; i < p->n; i++) {
        coords[2 * i] = p->xy[i][0];
        coords[2 * i + 1] = p->xy[i][1];
        labels[i] = (float)p->label[i];
    }
    samrt_sam2_tap_host(c, "tap.prompt.coords", coords, 3, SAMRT_SHAPE(1, p->n, 2));
    samrt_sam2_tap_host(c, "tap.prompt.labels", labels, 2, SAMRT_SHAPE(1, p->n));
    SAMRT_TRY(s->mask_in[0] ? samrt_sam2_heads_taps(&s->mheads, &s->mctx) : samrt_sam2_heads_taps(h, c));
    SAMRT_TRY(samrt_ctx_fetch(c, ptr, h->obj_ptr.data, sizeof ptr));
    const int64_t L = h->low;
    samrt_sam2_tap_host(c, "tap.out.pred_masks", s->low_host, 4, SAMRT_SHAPE(1, 1, L, L));
    samrt_sam2_tap_host(c, "tap.out.obj_ptr", ptr, 2, SAMRT_SHAPE(1, SAMRT_SAM2_DIM));
    samrt_sam2_tap_host(c, "tap.out.object_score_logits", &s->res_host[SAMRT_SAM2_RES_SCORE], 2, SAMRT_SHAPE(1, 1));
    samrt_sam2_tap_host(c, "tap.out.video_res_masks", (float *)video_logits, 4, SAMRT_SHAPE(1, 1, height, width));
    return c->ex->status;
}

/* The call's non-finite check (health.h): the image embedding and the n objects' logits. */
static enum samrt_status check_health(struct samrt_engine *e, struct samrt_sam2 *m, int n, samrt_stream *stream) {
    const struct samrt_health_seg segs[] = {
        {"image embedding", &m->enc.vision, -1},
        {"mask logits", &m->seg.heads.low_res, n},
    };
    return samrt_health_enqueue(e, &m->seg.health, segs, 2, stream);
}

/* The heads' results of n objects (low-res logits, result rows) into low_host / res_host. */
static enum samrt_status fetch_results(struct samrt_sam2_segment *s, int n) {
    struct samrt_op_ctx *c = &s->ctx;
    const int64_t P = (int64_t)s->heads.low * s->heads.low;
    SAMRT_TRY(samrt_ctx_fetch(c, s->low_host, s->heads.low_res.data, sizeof(float) * (size_t)(n * P)));
    return samrt_ctx_fetch(c, s->res_host, s->heads.result.data, sizeof(float) * (size_t)n * SAMRT_SAM2_RES_COLS);
}

static void fill_result(struct samrt_mask_result *o, const float *res, const struct samrt_mask_stats *st) {
    o->object_score = res[SAMRT_SAM2_RES_SCORE];
    o->iou = res[SAMRT_SAM2_RES_IOU];
    o->area = st->area;
    o->box[0] = st->x0;
    o->box[1] = st->y0;
    o->box[2] = st->x1;
    o->box[3] = st->y1;
}

static enum samrt_status segment_host(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_image *img,
                                      int n, enum samrt_postproc pp, struct samrt_mask_result *out) {
    struct samrt_sam2_segment *s = &m->seg;
    struct samrt_op_ctx *c = &s->ctx;
    SAMRT_TRY(samrt_staging_preprocess_host(&m->stage, img, NULL, m->enc.imgsz, &m->enc.input));
    SAMRT_TRY(samrt_sam2_encode_image(e, NULL));
    SAMRT_TRY(samrt_sam2_heads_set_prompts(&s->heads, c, s->pts, n, pp == SAMRT_POSTPROC_NOTEBOOK));
    samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
    segment_forward(m, c);
    enum samrt_status st = samrt_ctx_end(c);
    if (st == SAMRT_OK && s->n_masked) st = run_masked(e, m, n, pp == SAMRT_POSTPROC_NOTEBOOK, NULL);
    if (st == SAMRT_OK) st = check_health(e, m, n, NULL);
    if (st == SAMRT_OK) st = samrt_health_download(e, &s->health, NULL);
    if (st == SAMRT_OK) st = fetch_results(s, n);
    if (st != SAMRT_OK) {
        e->failed = 1;
        return st;
    }
    SAMRT_TRY(samrt_health_verdict(e, &s->health, "segment"));
    const int L = s->heads.low;
    float *tap_logits = NULL;
    if (c->tap && !out[0].logits) {
        tap_logits = malloc(sizeof(float) * (size_t)img->width * (size_t)img->height);  /* debug path only */
        SAMRT_CHECK(tap_logits != NULL, SAMRT_E_HOST_MEMORY, "segment: no host memory for the taps");
    }
    for (int i = 0; i < n && st == SAMRT_OK; i++) {
        const struct samrt_mask_decode_desc d = {1, L, L, img->height, img->width, SAMRT_DTYPE_F32};
        struct samrt_mask_stats stats;
        float *logits = i == 0 && tap_logits ? tap_logits : out[i].logits;
        st = samrt_op_mask_decode_host(&d, s->low_host + (size_t)i * L * L, out[i].mask, &stats, logits);
        fill_result(&out[i], s->res_host + (size_t)i * SAMRT_SAM2_RES_COLS, &stats);
    }
    if (st == SAMRT_OK && c->tap) st = segment_taps(s, tap_logits ? tap_logits : out[0].logits, img->width, img->height);
    free(tap_logits);
    return st;
}

/* ---- device engines: staging slots, the engine stream, graphs ------------------------------------- */

/* Stage mark i of a timed call on the engine's stage clock (stage_clock.h). */
#define MARK(i)                                                                              \
    do {                                                                                     \
        if (timed) SAMRT_TRY(samrt_stage_clock_mark(&m->clock, SAMRT_STAGE_MK_##i, stream)); \
    } while (0)

/* Everything between the uploads and the download, on `stream`: the part a graph captures.
 * Allocates nothing, syncs nothing, reads no pageable host memory. */
static enum samrt_status enqueue_frame(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_resize_plan *rp,
                                       int n, int notebook, int timed, samrt_stream *stream) {
    struct samrt_sam2_segment *s = &m->seg;
    struct samrt_op_ctx *c = &s->ctx;
    SAMRT_TRY(samrt_staging_resize(&m->stage, rp, &m->enc.input, stream));
    MARK(PRE);
    SAMRT_TRY(samrt_sam2_encode_image(e, stream));
    MARK(ENC);
    samrt_backend_set_stream(c, stream);
    samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
    segment_forward(m, c);
    SAMRT_TRY(samrt_ctx_end(c));
    if (s->n_masked) SAMRT_TRY(run_masked(e, m, n, notebook, stream));  /* never under capture */
    MARK(HEADS);
    const int L = s->heads.low;
    const struct samrt_mask_decode_desc d = {n, L, L, rp->in_h, rp->in_w, SAMRT_DTYPE_F32};
    const struct samrt_staging *st = &m->stage;
    SAMRT_TRY(samrt_op_mask_decode(&d, s->heads.low_res.data, samrt_staging_masks(st), samrt_staging_stats(st),
                                    NULL, stream));
    SAMRT_TRY(check_health(e, m, n, stream));
    return samrt_stream_copy(samrt_staging_results(st), s->heads.result.data,
                             sizeof(float) * SAMRT_SAM2_RES_COLS * (size_t)n, SAMRT_COPY_D2D, stream);
}

/* The graph path (graph_cache.h): the call's work between the uploads and the download. */
struct graph_call {
    struct samrt_engine *e;
    struct samrt_sam2 *m;
    const struct samrt_resize_plan *rp;
    int n;
    samrt_stream *stream;
};

static enum samrt_status enqueue_call(void *user, int capturing) {
    const struct graph_call *g = user;
    (void)capturing;
    return enqueue_frame(g->e, g->m, g->rp, g->n, 0, 0, g->stream);  /* no masks: notebook unused */
}

static enum samrt_status run_graph(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_resize_plan *rp,
                                   const struct samrt_sam2_seg_key *key, samrt_stream *stream) {
    struct graph_call call = {e, m, rp, key->n_obj, stream};
    int slot;
    enum samrt_graph_how how;
    return samrt_graph_cache_run(&m->seg.graphs, key, stream, enqueue_call, &call, &slot, &how);
}

/* The optional f32 logits of object i at frame size into dst (host), through the logits slot. */
static enum samrt_status download_logits(struct samrt_sam2 *m, int i, int w, int h, float *dst, samrt_stream *stream) {
    const struct samrt_sam2_segment *s = &m->seg;
    const struct samrt_staging *st = &m->stage;
    const int L = s->heads.low;
    const struct samrt_mask_decode_desc d = {1, L, L, h, w, SAMRT_DTYPE_F32};
    const size_t px = (size_t)w * (size_t)h;
    SAMRT_TRY(samrt_op_mask_decode(&d, (const float *)s->heads.low_res.data + (size_t)i * L * L,
                                    samrt_staging_masks(st) + px * i, NULL, st->logits.data, stream));
    return samrt_stream_copy(dst, st->logits.data, sizeof(float) * px, SAMRT_COPY_D2H, stream);
}

static enum samrt_status segment_device(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_image *img,
                                        int img_on_device, int n, enum samrt_postproc pp,
                                        struct samrt_mask_result *out) {
    struct samrt_sam2_segment *s = &m->seg;
    struct samrt_op_ctx *c = &s->ctx;
    samrt_stream *stream = samrt_backend_stream(e);
    const int w = img->width, h = img->height, taps = c->tap != NULL || m->ctx_enc.tap != NULL;
    const int timed = s->timed && !taps;
    struct samrt_resize_plan rp;
    if (timed) samrt_stage_clock_reset(&m->clock);
    MARK(START);
    SAMRT_TRY(samrt_staging_upload(&m->stage, img, NULL, img_on_device, m->enc.imgsz, &rp, stream));
    samrt_backend_set_stream(c, stream);
    SAMRT_TRY(samrt_sam2_heads_set_prompts(&s->heads, c, s->pts, n, pp == SAMRT_POSTPROC_NOTEBOOK));
    if (s->use_graph && !taps && !timed && !s->n_masked) {
        struct samrt_sam2_seg_key key;
        memset(&key, 0, sizeof key);
        key.width = w, key.height = h, key.n_obj = n, key.postproc = (int)pp;
        memcpy(key.n_sparse, s->heads.n_sparse, sizeof(int32_t) * (size_t)n);
        memcpy(key.mode, s->heads.mode, (size_t)n);
        SAMRT_TRY(run_graph(e, m, &rp, &key, stream));
    } else {
        SAMRT_TRY(enqueue_frame(e, m, &rp, n, pp == SAMRT_POSTPROC_NOTEBOOK, timed, stream));
    }
    const struct samrt_staging *sg = &m->stage;
    const size_t px = (size_t)w * (size_t)h;
    SAMRT_TRY(samrt_stream_copy(sg->out_host, sg->out.data, sg->out_hdr + px * (size_t)n, SAMRT_COPY_D2H, stream));
    SAMRT_TRY(samrt_health_download(e, &s->health, stream));
    MARK(POST);  /* the mask decode and the download: postprocess */
    for (int i = 0; i < n; i++)
        if (out[i].logits) SAMRT_TRY(download_logits(m, i, w, h, out[i].logits, stream));
    SAMRT_TRY(samrt_stream_sync(stream));
    SAMRT_TRY(samrt_health_verdict(e, &s->health, "segment"));
    const uint8_t *blk = sg->out_host;
    for (int i = 0; i < n; i++) {
        struct samrt_mask_stats st;
        float res[SAMRT_SAM2_RES_COLS];
        memcpy(&st, blk + sizeof st * (size_t)i, sizeof st);
        memcpy(res, blk + sg->out_res + sizeof res * (size_t)i, sizeof res);
        fill_result(&out[i], res, &st);
        memcpy(out[i].mask, blk + sg->out_hdr + px * (size_t)i, px);
    }
    if (timed) samrt_stage_clock_read(&m->clock, &m->times);
    if (!taps) return SAMRT_OK;
    float *tap_logits = out[0].logits;
    if (!tap_logits) {
        tap_logits = malloc(sizeof(float) * px);  /* debug path only */
        SAMRT_CHECK(tap_logits != NULL, SAMRT_E_HOST_MEMORY, "segment: no host memory for the taps");
    }
    enum samrt_status st = tap_logits == out[0].logits ? SAMRT_OK : download_logits(m, 0, w, h, tap_logits, stream);
    if (st == SAMRT_OK) st = samrt_stream_sync(stream);
    if (st == SAMRT_OK) st = fetch_results(s, n);
    if (st == SAMRT_OK) st = segment_taps(s, tap_logits, w, h);
    if (tap_logits != out[0].logits) free(tap_logits);
    return st;
}
#undef MARK

/* ---- the call: samrt_sam2_segment ------------------------------------------------------------ */

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
    SAMRT_CHECK(img->width <= m->stage.max_w && img->height <= m->stage.max_h, SAMRT_E_INVALID_ARG,
                "segment: a %dx%d image is larger than the engine's max frame %dx%d (params max_frame_width, "
                "max_frame_height)", img->width, img->height, m->stage.max_w, m->stage.max_h);
    SAMRT_CHECK(n >= 1 && n <= m->seg.heads.cfg.b_max, SAMRT_E_INVALID_ARG,
                "segment: %d objects; this engine segments 1 .. %d at once (max_objects)", n,
                m->seg.heads.cfg.b_max);
    SAMRT_CHECK(pp == SAMRT_POSTPROC_VOS_INFERENCE || pp == SAMRT_POSTPROC_NOTEBOOK, SAMRT_E_INVALID_ARG,
                "segment: unknown post-processing profile %d", (int)pp);
    for (int i = 0; i < n; i++)
        SAMRT_CHECK(out[i].mask != NULL, SAMRT_E_INVALID_ARG, "segment: out[%d].mask is NULL", i);
    return SAMRT_OK;
}

/* Each object's mask input: finite, and with a click or a box beside it. */
static enum samrt_status check_masks(const struct samrt_sam2_segment *s, const struct samrt_object_prompt *prompts,
                                     const float *const *masks, int n) {
    const size_t n_low = (size_t)s->mheads.low * s->mheads.low;
    for (int i = 0; masks && i < n; i++) {
        if (!masks[i]) continue;
        SAMRT_CHECK(prompts[i].n_clicks > 0 || prompts[i].has_box, SAMRT_E_INVALID_ARG,
                    "segment: object %d has a mask prompt but no click or box (a mask alone is not supported)", i);
        for (size_t p = 0; p < n_low; p++)
            SAMRT_CHECK(isfinite(masks[i][p]), SAMRT_E_INVALID_ARG,
                        "segment: mask input %d is not finite at (%d, %d)", i, (int)(p % (size_t)s->mheads.low),
                        (int)(p / (size_t)s->mheads.low));
    }
    return SAMRT_OK;
}

static enum samrt_status segment_call(struct samrt_engine *e, const struct samrt_image *img, int img_on_device,
                                      const struct samrt_object_prompt *prompts, const float *const *masks, int n,
                                      enum samrt_postproc pp, struct samrt_mask_result *out) {
    SAMRT_TRY(check_args(e, img, prompts, n, pp, out));
    SAMRT_CHECK(!img_on_device || samrt_engine_on_device(e), SAMRT_E_INVALID_ARG,
                "segment: an image in device memory needs a GPU engine");
    struct samrt_sam2 *m = samrt_sam2_of(e);
    struct samrt_sam2_segment *s = &m->seg;
    SAMRT_TRY(check_masks(s, prompts, masks, n));
    for (int i = 0; i < n; i++)
        SAMRT_TRY(samrt_sam2_points_from_prompt(&prompts[i], img->width, img->height, m->enc.imgsz, &s->pts[i]));
    s->n_masked = 0;
    for (int i = 0; i < SAMRT_MAX_OBJECTS; i++) {
        s->mask_in[i] = masks && i < n ? masks[i] : NULL;
        s->n_masked += s->mask_in[i] != NULL;
    }
    if (!samrt_engine_on_device(e)) return segment_host(e, m, img, n, pp, out);
    enum samrt_status st = segment_device(e, m, img, img_on_device, n, pp, out);
    if (st == SAMRT_E_CUDA) e->failed = 1;  /* the stream's state is unknown */
    return st;
}

enum samrt_status samrt_sam2_segment(struct samrt_engine *e, const struct samrt_image *img, int img_on_device,
                                     const struct samrt_object_prompt *prompts, int n, enum samrt_postproc pp,
                                     struct samrt_mask_result *out) {
    return segment_call(e, img, img_on_device, prompts, NULL, n, pp, out);
}

enum samrt_status samrt_sam2_segment_masked(struct samrt_engine *e, const struct samrt_image *img,
                                            const struct samrt_object_prompt *prompts, const float *const *masks,
                                            int n, enum samrt_postproc pp, struct samrt_mask_result *out) {
    return segment_call(e, img, 0, prompts, masks, n, pp, out);
}
