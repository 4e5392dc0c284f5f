/* prompt_encoder.c - prompt validation and coordinate transforms, the host-side sparse
 * embeddings and decoder tokens, the dense PE, and the device-side mask prompt path
 * (prompt_encoder.h). Tests: tests/test_sam2_prompt.c, tests/test_sam2_decoder.c. */
#include "prompt_encoder.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ckpt.h"
#include "model_env.h"
#include "ops.h"

/* ---- prompts ----------------------------------------------------------------------------------- */

/* Video pixels -> model frame, as add_new_points_or_box: (v / size) in fp32, then * S. */
static float to_model(float v, int size, int side) {
    const float q = v / (float)size;
    return q * (float)side;
}

enum samrt_status samrt_sam2_points_from_prompt(const struct samrt_object_prompt *p, int img_w, int img_h,
                                                int model_side, struct samrt_sam2_points *out) {
    SAMRT_CHECK(p && out, SAMRT_E_INVALID_ARG, "prompt: NULL argument");
    memset(out, 0, sizeof *out);
    SAMRT_CHECK(img_w > 0 && img_h > 0 && model_side > 0, SAMRT_E_INVALID_ARG, "prompt: image %dx%d, model side %d",
                img_w, img_h, model_side);
    SAMRT_CHECK(p->n_clicks >= 0 && p->n_clicks <= SAMRT_MAX_CLICKS, SAMRT_E_INVALID_ARG,
                "prompt: %d clicks (0 .. %d allowed)", p->n_clicks, SAMRT_MAX_CLICKS);
    SAMRT_CHECK(p->n_clicks > 0 || p->has_box, SAMRT_E_INVALID_ARG, "prompt: an object needs a click or a box");
    if (p->has_box) {
        const float *b = p->box;
        for (int i = 0; i < 4; i++)
            SAMRT_CHECK(isfinite(b[i]), SAMRT_E_INVALID_ARG, "prompt: box coordinate %d is not finite", i);
        SAMRT_CHECK(b[0] >= 0.0f && b[2] <= (float)img_w && b[1] >= 0.0f && b[3] <= (float)img_h, SAMRT_E_INVALID_ARG,
                    "prompt: box (%g, %g, %g, %g) lies outside the %dx%d image", b[0], b[1], b[2], b[3], img_w, img_h);
        SAMRT_CHECK(b[0] <= b[2] && b[1] <= b[3], SAMRT_E_INVALID_ARG,
                    "prompt: box (%g, %g, %g, %g) must have x0 <= x1 and y0 <= y1", b[0], b[1], b[2], b[3]);
        for (int k = 0; k < 2; k++) {
            out->xy[out->n][0] = to_model(b[2 * k], img_w, model_side);
            out->xy[out->n][1] = to_model(b[2 * k + 1], img_h, model_side);
            out->label[out->n++] = k == 0 ? SAMRT_SAM2_LABEL_BOX_TL : SAMRT_SAM2_LABEL_BOX_BR;
        }
    }
    for (int i = 0; i < p->n_clicks; i++) {
        const struct samrt_click *c = &p->clicks[i];
        SAMRT_CHECK(c->label == 0 || c->label == 1, SAMRT_E_INVALID_ARG,
                    "prompt: click %d has label %d (1 = object, 0 = background)", i, c->label);
        SAMRT_CHECK(isfinite(c->x) && isfinite(c->y), SAMRT_E_INVALID_ARG, "prompt: click %d is not finite", i);
        SAMRT_CHECK(c->x >= 0.0f && c->x < (float)img_w && c->y >= 0.0f && c->y < (float)img_h, SAMRT_E_INVALID_ARG,
                    "prompt: click %d at (%g, %g) lies outside the %dx%d image", i, c->x, c->y, img_w, img_h);
        out->xy[out->n][0] = to_model(c->x, img_w, model_side);
        out->xy[out->n][1] = to_model(c->y, img_h, model_side);
        out->label[out->n++] = c->label;
    }
    return SAMRT_OK;
}

void samrt_sam2_points_none(struct samrt_sam2_points *out) {
    memset(out, 0, sizeof *out);
    out->n = 1;
    out->label[0] = SAMRT_SAM2_LABEL_PAD;
}

/* ---- constant tables ------------------------------------------------------------------------- */

static enum samrt_status read_f32(const struct samrt_ckpt *ck, const char *name, float *dst, int64_t n) {
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, name);
    SAMRT_CHECK(t != NULL, SAMRT_E_KEYS, "sam2 heads: checkpoint lacks %s", name);
    SAMRT_CHECK(t->nelements == n, SAMRT_E_KEYS, "sam2 heads: %s has %lld elements, expected %lld", name,
                (long long)t->nelements, (long long)n);
    return samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, dst, (uint64_t)n * sizeof(float));
}

enum samrt_status samrt_sam2_prompt_tables_read(const struct samrt_ckpt *ck, struct samrt_sam2_prompt_tables *out) {
    SAMRT_CHECK(ck && out, SAMRT_E_INVALID_ARG, "prompt tables: NULL argument");
    SAMRT_TRY(read_f32(ck, "sam_prompt_encoder.pe_layer.positional_encoding_gaussian_matrix", out->gauss,
                       2 * SAMRT_SAM2_PE_FEATS));
    char name[96];
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "sam_prompt_encoder.point_embeddings.%d.weight", k);
        SAMRT_TRY(read_f32(ck, name, out->point_embed[k], SAMRT_SAM2_DIM));
    }
    SAMRT_TRY(read_f32(ck, "sam_prompt_encoder.not_a_point_embed.weight", out->not_a_point, SAMRT_SAM2_DIM));
    SAMRT_TRY(read_f32(ck, "sam_mask_decoder.obj_score_token.weight", out->out_tokens[0], SAMRT_SAM2_DIM));
    SAMRT_TRY(read_f32(ck, "sam_mask_decoder.iou_token.weight", out->out_tokens[1], SAMRT_SAM2_DIM));
    return read_f32(ck, "sam_mask_decoder.mask_tokens.weight", out->out_tokens[2],
                    SAMRT_SAM2_N_MASK_TOKENS * SAMRT_SAM2_DIM);
}

/* ---- sparse rows and tokens ------------------------------------------------------------------ */

int samrt_sam2_sparse_host(const struct samrt_sam2_prompt_tables *t, const struct samrt_sam2_points *pts,
                           int model_side, float *out) {
    const int n = pts->n + 1;
    float coords[2 * SAMRT_SAM2_MAX_SPARSE];
    for (int i = 0; i < pts->n; i++) {
        coords[2 * i] = pts->xy[i][0];
        coords[2 * i + 1] = pts->xy[i][1];
    }
    /* the padding point is appended after the +0.5 shift, so its coordinates are (0, 0); the
     * kernel adds the offset to every point, so give it -0.5. Its PE is discarded anyway. */
    coords[2 * pts->n] = -0.5f;
    coords[2 * pts->n + 1] = -0.5f;
    (void)samrt_op_host_fourier_pe_points(SAMRT_SAM2_PE_FEATS, t->gauss, n, coords, 0.5f, (float)model_side,
                                           (float)model_side, out);
    for (int i = 0; i < n; i++) {
        const int label = i < pts->n ? pts->label[i] : SAMRT_SAM2_LABEL_PAD;
        float *row = out + (int64_t)i * SAMRT_SAM2_DIM;
        if (label == SAMRT_SAM2_LABEL_PAD) {
            for (int c = 0; c < SAMRT_SAM2_DIM; c++) row[c] = 0.0f + t->not_a_point[c];
        } else if (label >= 0 && label <= 3) {
            for (int c = 0; c < SAMRT_SAM2_DIM; c++) row[c] += t->point_embed[label][c];
        }
    }
    return n;
}

enum samrt_status samrt_sam2_tokens_fill(const struct samrt_sam2_prompt_tables *t, const struct samrt_sam2_points *pts,
                                         int n_obj, int b_max, int t_max, int model_side, enum samrt_dtype dtype,
                                         void *out, int32_t *n_sparse) {
    SAMRT_CHECK(t && (pts || n_obj == 0) && out && n_sparse && n_obj >= 0 && n_obj <= b_max &&
                    t_max > SAMRT_SAM2_N_OUT_TOKENS && samrt_op_dtype_ok(dtype),
                SAMRT_E_INVALID_ARG, "tokens: bad arguments (%d of %d objects, %d tokens)", n_obj, b_max, t_max);
    float rows[SAMRT_SAM2_MAX_SPARSE * SAMRT_SAM2_DIM];
    struct samrt_sam2_points none;
    samrt_sam2_points_none(&none);
    for (int b = 0; b < b_max; b++) {
        const struct samrt_sam2_points *p = b < n_obj ? &pts[b] : &none;
        SAMRT_CHECK(p->n >= 0 && p->n <= SAMRT_SAM2_MAX_POINTS && p->n + 1 <= t_max - SAMRT_SAM2_N_OUT_TOKENS,
                    SAMRT_E_INVALID_ARG, "tokens: object %d has %d points; at most %d fit", b, p->n,
                    t_max - SAMRT_SAM2_N_OUT_TOKENS - 1);
        const int ns = samrt_sam2_sparse_host(t, p, model_side, rows);
        n_sparse[b] = ns;
        const int64_t base = (int64_t)b * t_max * SAMRT_SAM2_DIM;
        for (int r = 0; r < t_max; r++) {
            const int rs = r - SAMRT_SAM2_N_OUT_TOKENS;  /* sparse row */
            const float *src = rs < 0 ? t->out_tokens[r] : rs < ns ? rows + (int64_t)rs * SAMRT_SAM2_DIM : t->not_a_point;
            for (int c = 0; c < SAMRT_SAM2_DIM; c++)
                samrt_op_host_store(dtype, out, base + (int64_t)r * SAMRT_SAM2_DIM + c, src[c]);
        }
    }
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_dense_pe_host(const struct samrt_sam2_prompt_tables *t, int grid, float *out) {
    return samrt_op_host_fourier_pe_dense(SAMRT_SAM2_PE_FEATS, t->gauss, grid, grid, out);
}

/* ---- dense path ---------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_prompt_bind(const struct samrt_model_env *env, struct samrt_sam2_prompt_weights *w) {
    SAMRT_CHECK(env && w, SAMRT_E_INVALID_ARG, "prompt bind: NULL argument");
    memset(w, 0, sizeof *w);
    static const int idx[3] = {0, 3, 6};
    static const int64_t wshape[3][4] = {{4, 1, 2, 2}, {16, 4, 2, 2}, {256, 16, 1, 1}};
    struct samrt_model_binder b = {env, NULL, SAMRT_OK};
    const char *ds = "sam_prompt_encoder.mask_downscaling";
    w->no_mask_embed =
        samrt_model_bindw(&b, 2, SAMRT_SHAPE(1, SAMRT_SAM2_DIM), "sam_prompt_encoder.no_mask_embed.weight");
    for (int i = 0; i < 3; i++) {
        w->ds_w[i] = samrt_model_bindw(&b, 4, wshape[i], "%s.%d.weight", ds, idx[i]);
        w->ds_b[i] = samrt_model_bindw(&b, 1, wshape[i], "%s.%d.bias", ds, idx[i]);
    }
    for (int i = 0; i < 2; i++) {
        w->ds_ln_w[i] = samrt_model_bindw(&b, 1, wshape[i], "%s.%d.weight", ds, idx[i] + 1);
        w->ds_ln_b[i] = samrt_model_bindw(&b, 1, wshape[i], "%s.%d.bias", ds, idx[i] + 1);
    }
    return b.st;
}

struct samrt_tensor samrt_sam2_mask_embed(struct samrt_op_ctx *c, const struct samrt_sam2_prompt_weights *w,
                                          const struct samrt_tensor *mask) {
    /* Two space-to-depth convolutions (kernel 2, stride 2) each followed by LayerNorm2d and
     * GELU, then a 1x1 convolution to 256 channels (prompt_encoder.py mask_downscaling). */
    struct samrt_tensor x = samrt_op_conv2d(c, "prompt.mask_ds0", mask, w->ds_w[0], w->ds_b[0], 2, 0, 1,
                                            SAMRT_CONV_NCHW, SAMRT_ACT_NONE);
    x = samrt_op_layernorm2d(c, "prompt.mask_ln0", &x, w->ds_ln_w[0], w->ds_ln_b[0], NULL, 1e-6f, SAMRT_ACT_GELU);
    x = samrt_op_conv2d(c, "prompt.mask_ds1", &x, w->ds_w[1], w->ds_b[1], 2, 0, 1, SAMRT_CONV_NCHW, SAMRT_ACT_NONE);
    x = samrt_op_layernorm2d(c, "prompt.mask_ln1", &x, w->ds_ln_w[1], w->ds_ln_b[1], NULL, 1e-6f, SAMRT_ACT_GELU);
    return samrt_op_conv2d(c, "prompt.mask_ds2", &x, w->ds_w[2], w->ds_b[2], 1, 0, 1, SAMRT_CONV_NCHW, SAMRT_ACT_NONE);
}
