/* track_mask.c - mask prompts of the tracker (track_mask.h): the host preparation of a mask
 * (antialiased resizes, logits +-10, mask_downsample) when the prompt is given, and at the push
 * the SAM heads pass with the mask as dense prompt for the object pointer.
 * Design choice: the heads used for the pointer are a second, separately planned instance
 * (b_max 1, mask-input branch) instead of the segmentation pass's heads, so that pass keeps
 * its shapes, graphs and memory whether mask prompts are used or not.
 * Tests: tests/test_sam2_track_mask.c. */
#include "track_mask.h"

#include <stdlib.h>
#include <string.h>

#include "ckpt.h"
#include "engine_impl.h"
#include "sam2.h"
#include "track_state.h"

#define AA_MAX_TAPS 1024       /* scale <= 16384 / 64 -> at most 2 * 256 + 2 taps */
#define MASK_LOGIT 10.0f       /* _use_mask_as_output: out_scale 20, out_bias -10 */
enum { PENDING_MASK = 2 };     /* samrt_sam2_track_obj.pending (tracker.h) */

/* ---- host resizes --------------------------------------------------------------------------- */

int samrt_aa_bilinear_weights(int n_in, int n_out, int i, float *w, int cap, int *n) {
    const float scale = (float)n_in / (float)n_out;
    const float support = scale >= 1.0f ? scale : 1.0f;  /* interp_size / 2 = 1, times scale */
    const float invscale = scale >= 1.0f ? 1.0f / scale : 1.0f;
    const float center = scale * ((float)i + 0.5f);
    int x0 = (int)(center - support + 0.5f);
    if (x0 < 0) x0 = 0;
    int x1 = (int)(center + support + 0.5f);
    if (x1 > n_in) x1 = n_in;
    int m = x1 - x0;
    if (m > cap) m = cap;
    float total = 0.0f;
    for (int j = 0; j < m; j++) {
        float d = ((float)(j + x0) - center + 0.5f) * invscale;
        if (d < 0.0f) d = -d;
        w[j] = d < 1.0f ? 1.0f - d : 0.0f;
        total += w[j];
    }
    if (total != 0.0f)
        for (int j = 0; j < m; j++) w[j] /= total;
    *n = m;
    return x0;
}

/* Reads input element i as a float. */
typedef float (*aa_read_fn)(const void *src, int64_t i);
static float read_f32(const void *src, int64_t i) { return ((const float *)src)[i]; }
static float read_nonzero(const void *src, int64_t i) { return (float)(((const uint8_t *)src)[i] != 0); }
static float read_logit(const void *src, int64_t i) { return ((const uint8_t *)src)[i] ? MASK_LOGIT : -MASK_LOGIT; }

/* The resize of one plane into out (f32) or, when out is NULL, into bin as (value >= 0.5). */
static void aa_plane(const void *src, aa_read_fn rd, int h_in, int w_in, int h_out, int w_out, float *out,
                     uint8_t *bin) {
    float wy[AA_MAX_TAPS], wx[AA_MAX_TAPS];
    for (int y = 0; y < h_out; y++) {
        int ny, nx;
        const int y0 = samrt_aa_bilinear_weights(h_in, h_out, y, wy, AA_MAX_TAPS, &ny);
        for (int x = 0; x < w_out; x++) {
            const int x0 = samrt_aa_bilinear_weights(w_in, w_out, x, wx, AA_MAX_TAPS, &nx);
            float acc = 0.0f;
            for (int j = 0; j < ny; j++) {
                const int64_t row = (int64_t)(y0 + j) * w_in + x0;
                float s = 0.0f;
                for (int i = 0; i < nx; i++) s += wx[i] * rd(src, row + i);
                acc += wy[j] * s;
            }
            if (out) out[(int64_t)y * w_out + x] = acc;
            else bin[(int64_t)y * w_out + x] = acc >= 0.5f;
        }
    }
}

void samrt_aa_bilinear_host(const float *in, int h_in, int w_in, float *out, int h_out, int w_out) {
    aa_plane(in, read_f32, h_in, w_in, h_out, w_out, out, NULL);
}

/* ---- setup ---------------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_track_mask_plan(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_track_mask *tm = &m->trk.mask;
    /* the segmentation heads (planned first) hold the f32 transformer weights of bf16 runs */
    const struct samrt_sam2_heads_config cfg = {e->params.imgsz, 1, 1, 1, e->precision, &m->seg.heads};
    SAMRT_TRY(samrt_sam2_heads_bind(&tm->heads, &cfg, samrt_engine_env(e)));
    SAMRT_TRY(samrt_sam2_ctx_init(e, &tm->ctx, &tm->ex));
    SAMRT_TRY(samrt_sam2_heads_plan(&tm->heads, &tm->ctx));
    samrt_ctx_begin(&tm->ctx, SAMRT_EXEC_PLAN, NULL);
    samrt_sam2_heads_forward(&tm->heads, &tm->ctx, &m->enc.vision, &m->enc.feat_s0, &m->enc.feat_s1);
    SAMRT_TRY(samrt_ctx_end(&tm->ctx));
    tm->planned = 1;
    return SAMRT_OK;
}

static enum samrt_status read_small(const struct samrt_ckpt *ck, const char *name, float *dst, int64_t n) {
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, name);
    SAMRT_CHECK(t && t->nelements == n, SAMRT_E_KEYS, "track mask prompts: %s missing or mis-shaped", name);
    return samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, dst, sizeof(float) * (uint64_t)n);
}

enum samrt_status samrt_sam2_track_mask_prepare(struct samrt_engine *e, struct samrt_sam2 *m,
                                                const struct samrt_ckpt *ck) {
    struct samrt_sam2_track_mask *tm = &m->trk.mask;
    SAMRT_TRY(samrt_sam2_heads_prepare(&tm->heads, samrt_engine_env(e), ck));
    samrt_sam2_ctx_workspace(e, &tm->ctx);
    SAMRT_TRY(read_small(ck, "mask_downsample.weight", tm->ds_w, 16));
    SAMRT_TRY(read_small(ck, "mask_downsample.bias", &tm->ds_b, 1));
    SAMRT_TRY(read_small(ck, "no_obj_ptr", tm->no_obj_ptr, SAMRT_SAM2_DIM));
    tm->side = e->params.imgsz;
    tm->low = tm->side / 4;
    const size_t rows = (size_t)m->trk.k_max + 1, n_low = (size_t)tm->low * tm->low;
    tm->low_rows = malloc(sizeof(float) * n_low * rows);
    tm->dense_rows = malloc(sizeof(float) * n_low * rows);
    tm->is_obj = calloc(rows, 1);
    tm->full = malloc((size_t)tm->side * tm->side);
    tm->stage = malloc(samrt_dtype_size(e->precision) * n_low);
    SAMRT_CHECK(tm->low_rows && tm->dense_rows && tm->is_obj && tm->full && tm->stage, SAMRT_E_HOST_MEMORY,
                "track mask prompts: out of host memory");
    return SAMRT_OK;
}

void samrt_sam2_track_mask_free(struct samrt_sam2 *m) {
    struct samrt_sam2_track_mask *tm = &m->trk.mask;
    if (tm->planned) {
        samrt_ctx_free(&tm->ctx);
        samrt_sam2_heads_free(&tm->heads);
    }
    free(tm->low_rows);
    free(tm->dense_rows);
    free(tm->is_obj);
    free(tm->full);
    free(tm->stage);
    tm->low_rows = tm->dense_rows = NULL;
    tm->is_obj = tm->full = NULL;
    tm->stage = NULL;
    tm->planned = 0;
}

/* ---- a prompt --------------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_track_mask_set(struct samrt_sam2 *m, int k, const uint8_t *mask, int width, int height) {
    struct samrt_sam2_track_mask *tm = &m->trk.mask;
    SAMRT_CHECK(tm->planned && tm->full, SAMRT_E_BAD_STATE, "track mask prompts: not prepared");
    SAMRT_CHECK(k >= 0 && k <= m->trk.k_max && mask && width > 0 && height > 0, SAMRT_E_INVALID_ARG,
                "track mask prompts: bad arguments");
    const int S = tm->side, L = tm->low;
    const int64_t n_full = (int64_t)S * S;
    /* 1. the binary model-size mask; resized (antialias) then >= 0.5 unless already S x S */
    if (width == S && height == S)
        for (int64_t p = 0; p < n_full; p++) tm->full[p] = mask[p] != 0;
    else
        aa_plane(mask, read_nonzero, height, width, S, S, NULL, tm->full);
    /* 2. logits +-10 -> antialiased downsample (pred_masks); presence */
    float *low = tm->low_rows + (size_t)k * L * L, *dense = tm->dense_rows + (size_t)k * L * L;
    aa_plane(tm->full, read_logit, S, S, L, L, low, NULL);
    int any = 0;
    for (int64_t p = 0; p < n_full && !any; p++) any = tm->full[p];
    /* 3 (host part): the heads' dense prompt, mask_downsample = Conv(1, 1, 4, stride 4) of m */
    for (int y = 0; y < L; y++)
        for (int x = 0; x < L; x++) {
            float d = 0.0f;
            for (int ky = 0; ky < 4; ky++)
                for (int kx = 0; kx < 4; kx++)
                    d += tm->ds_w[ky * 4 + kx] * (float)tm->full[(int64_t)(4 * y + ky) * S + 4 * x + kx];
            dense[y * L + x] = d + tm->ds_b;
        }
    tm->is_obj[k] = (uint8_t)any;
    return SAMRT_OK;
}

void samrt_sam2_track_mask_move(struct samrt_sam2 *m, int from, int to) {
    struct samrt_sam2_track_mask *tm = &m->trk.mask;
    const size_t n_low = (size_t)tm->low * tm->low;
    memcpy(tm->low_rows + (size_t)to * n_low, tm->low_rows + (size_t)from * n_low, sizeof(float) * n_low);
    memcpy(tm->dense_rows + (size_t)to * n_low, tm->dense_rows + (size_t)from * n_low, sizeof(float) * n_low);
    tm->is_obj[to] = tm->is_obj[from];
}

/* ---- the push ------------------------------------------------------------------------------- */

/* The pointer of object k from the heads pass on the raw features, into cur_ptr row k. */
static enum samrt_status pointer(struct samrt_engine *e, struct samrt_sam2 *m, int k) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_sam2_track_mask *tm = &t->mask;
    struct samrt_op_ctx *c = &tm->ctx;
    const size_t pb = sizeof(float) * SAMRT_SAM2_DIM, n_low = (size_t)tm->low * tm->low;
    float *ptr_dst = (float *)t->cur_ptr.data + (size_t)k * SAMRT_SAM2_DIM;
    if (!tm->is_obj[k]) return samrt_ctx_memcpy(c, ptr_dst, tm->no_obj_ptr, pb);  /* lambda 0 */
    const float *dense = tm->dense_rows + (size_t)k * n_low;
    for (size_t i = 0; i < n_low; i++) samrt_op_host_store(e->precision, tm->stage, (int64_t)i, dense[i]);
    SAMRT_TRY(samrt_ctx_memcpy(c, tm->heads.mask_in.data, tm->stage, samrt_dtype_size(e->precision) * n_low));
    struct samrt_sam2_points none;
    samrt_sam2_points_none(&none);
    const int notebook = t->opt.postproc == SAMRT_POSTPROC_NOTEBOOK;
    SAMRT_TRY(samrt_sam2_heads_set_prompts(&tm->heads, c, &none, 1, notebook));
    /* _use_mask_as_output calls _forward_sam_heads with multimask_output False: one mask (or
     * the stability fallback), pointer from token 0, whatever the point count says */
    tm->heads.mode[0] = notebook ? SAMRT_SAM2_MODE_SINGLE_DYNAMIC : SAMRT_SAM2_MODE_SINGLE;
    samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
    samrt_sam2_heads_forward(&tm->heads, c, &m->enc.vision, &m->enc.feat_s0, &m->enc.feat_s1);
    SAMRT_TRY(samrt_ctx_end(c));
    return samrt_ctx_memcpy(c, ptr_dst, tm->heads.obj_ptr.data, pb);  /* gated by the decoder's score */
}

int samrt_sam2_track_mask_pending(const struct samrt_sam2 *m, int k) { return m->trk.obj[k].pending == PENDING_MASK; }

enum samrt_status samrt_sam2_track_mask_step(struct samrt_engine *e, struct samrt_sam2 *m, int *is_prompted) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_sam2_track_mask *tm = &t->mask;
    struct samrt_op_ctx *c = &tm->ctx;
    samrt_ctx_use_gpu_stream(c);  /* the tracker's stream: the engine's */
    const size_t n_low = (size_t)tm->low * tm->low;
    for (int k = 0; k < t->n_obj; k++) {
        if (t->obj[k].pending != PENDING_MASK) continue;
        SAMRT_TRY(pointer(e, m, k));
        const float score = tm->is_obj[k] ? MASK_LOGIT : -MASK_LOGIT;
        SAMRT_TRY(samrt_ctx_memcpy(c, (float *)t->cur_low.data + (size_t)k * n_low, tm->low_rows + (size_t)k * n_low,
                                   sizeof(float) * n_low));
        SAMRT_TRY(samrt_ctx_memcpy(c, (float *)t->cur_score.data + k, &score, sizeof score));
        SAMRT_TRY(samrt_ctx_sync(c));  /* score lives on this stack frame: the copy must be done before it goes */
        is_prompted[k] = 1;
    }
    return SAMRT_OK;
}
