/* memory_encoder.c - SAM 2.1's memory encoder over the op layer (memory_encoder.h): binding,
 * the constant position encoding and the forward pass, ending in the final store (no-object
 * embedding + bf16 rounding, samrt_op_sam2_mem_store of ops/ops_sam2.h); and EdgeTAM's memory
 * encoding, whose features go through the spatial perceiver before the bf16 store.
 *
 * Choices that are not obvious:
 *   - The mask downsampler runs NCHW (a 1-channel 1024x1024 input: channels-last would waste
 *     the vector width); its last map is turned channels-last once, at 64x64x256, and
 *     everything after (1x1 convs as Linear, the CXBlocks) runs on tokens.
 *   - The depthwise 7x7 weight (256, 1, 7, 7) is used as the packed NHWC weight
 *     (256, 7, 7, 1): for a depthwise conv the two layouts are the same bytes (conv.h).
 *   - pix_feat_proj is computed first and given to the mask's last 1x1 conv as its residual:
 *     conv12(m) + proj rounded once, which is the official `x + masks` (one f32 add).
 *   - The vision features are shared by the objects; they are broadcast (copied) to the
 *     object slots only when b_max > 1, because Linear rows cannot have a batch stride of 0.
 * Tests: tests/test_sam2_memory.c (CPU, against official dumps and self-checks),
 * tests/test_sam2_memory_cuda.c (CUDA backend vs CPU backend). */
#include "memory_encoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../edgetam/perceiver.h"  /* EdgeTAM's spatial perceiver (models/edgetam) */
#include "model_env.h"
#include "ops_sam2.h"
#include "prompt_encoder.h"

#define DIM SAMRT_SAM2_DIM
#define MEM_DIM SAMRT_SAM2_MEM_DIM
#define FUSER_HID 1024
#define LN2D_EPS 1e-6f


/* ---- binding --------------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_memenc_bind(struct samrt_sam2_memenc *me, const struct samrt_sam2_memenc_config *cfg,
                                         const struct samrt_model_env *env) {
    SAMRT_CHECK(me && cfg && env, SAMRT_E_INVALID_ARG, "memory encoder: NULL argument");
    memset(me, 0, sizeof *me);
    SAMRT_TRY(samrt_model_check_config("memory encoder", cfg->model_side, 64, 16, cfg->b_max, SAMRT_SAM2_MAX_OBJ,
                                       cfg->dtype));
    me->cfg = *cfg;
    me->grid = cfg->model_side / 16;
    me->low = 4 * me->grid;
    me->slot_pos = -1;
    struct samrt_sam2_memenc_weights *w = &me->w;
    struct samrt_model_binder b = {env, NULL, SAMRT_OK};
    static const int64_t ch[5] = {1, 4, 16, 64, 256};
    const char *ds = "memory_encoder.mask_downsampler.encoder";
    for (int i = 0; i < 4; i++) {
        const int k = 3 * i;
        w->ds_w[i] = samrt_model_bindw(&b, 4, SAMRT_SHAPE(ch[i + 1], ch[i], 3, 3), "%s.%d.weight", ds, k);
        w->ds_b[i] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(ch[i + 1]), "%s.%d.bias", ds, k);
        w->ds_ln_w[i] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(ch[i + 1]), "%s.%d.weight", ds, k + 1);
        w->ds_ln_b[i] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(ch[i + 1]), "%s.%d.bias", ds, k + 1);
    }
    w->ds_w[4] = samrt_model_bindw(&b, 4, SAMRT_SHAPE(DIM, DIM, 1, 1), "%s.12.weight", ds);
    w->ds_b[4] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "%s.12.bias", ds);
    w->pix_w = samrt_model_bindw(&b, 4, SAMRT_SHAPE(DIM, DIM, 1, 1), "memory_encoder.pix_feat_proj.weight");
    w->pix_b = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "memory_encoder.pix_feat_proj.bias");
    for (int l = 0; l < 2; l++) {
#define FW(field, nd, shape, suffix) \
    w->field[l] = samrt_model_bindw(&b, nd, shape, "memory_encoder.fuser.layers.%d." suffix, l)
        FW(dw_w, 4, SAMRT_SHAPE(DIM, 1, 7, 7), "dwconv.weight");
        FW(dw_b, 1, SAMRT_SHAPE(DIM), "dwconv.bias");
        FW(ln_w, 1, SAMRT_SHAPE(DIM), "norm.weight");
        FW(ln_b, 1, SAMRT_SHAPE(DIM), "norm.bias");
        FW(pw1_w, 2, SAMRT_SHAPE(FUSER_HID, DIM), "pwconv1.weight");
        FW(pw1_b, 1, SAMRT_SHAPE(FUSER_HID), "pwconv1.bias");
        FW(pw2_w, 2, SAMRT_SHAPE(DIM, FUSER_HID), "pwconv2.weight");
        FW(pw2_b, 1, SAMRT_SHAPE(DIM), "pwconv2.bias");
        FW(gamma, 1, SAMRT_SHAPE(DIM), "gamma");
#undef FW
    }
    w->out_w = samrt_model_bindw(&b, 4, SAMRT_SHAPE(MEM_DIM, DIM, 1, 1), "memory_encoder.out_proj.weight");
    w->out_b = samrt_model_bindw(&b, 1, SAMRT_SHAPE(MEM_DIM), "memory_encoder.out_proj.bias");
    if (b.st == SAMRT_OK && samrt_weights_find(env->weights, "no_obj_embed_spatial"))  /* SAM 2.1 only */
        w->no_obj_spatial = samrt_model_bindw(&b, 2, SAMRT_SHAPE(1, MEM_DIM), "no_obj_embed_spatial");
    return b.st;
}

/* ---- planning and constants ------------------------------------------------------------------ */

enum samrt_status samrt_sam2_memenc_plan(struct samrt_sam2_memenc *me, struct samrt_op_ctx *c) {
    SAMRT_CHECK(c->dtype == me->cfg.dtype, SAMRT_E_INVALID_ARG, "memory encoder: context dtype %s, module %s",
                samrt_dtype_name(c->dtype), samrt_dtype_name(me->cfg.dtype));
    const int64_t n = (int64_t)me->grid * me->grid;
    return samrt_ctx_persistent(c, "sam2.memenc.pos", SAMRT_REGION_WEIGHTS, SAMRT_DTYPE_F32, 3, SAMRT_SHAPE(1, n, MEM_DIM),
                                &me->pos, &me->slot_pos);
}

enum samrt_status samrt_sam2_memenc_prepare(struct samrt_sam2_memenc *me, const struct samrt_model_env *env) {
    SAMRT_CHECK(me && env && me->slot_pos >= 0, SAMRT_E_BAD_STATE, "memory encoder: not planned");
    me->pos.data = samrt_model_slot(env, me->slot_pos);
    const uint64_t bytes = samrt_tensor_nbytes(&me->pos);
    float *tmp = malloc(bytes);  /* setup only */
    SAMRT_CHECK(tmp != NULL, SAMRT_E_HOST_MEMORY, "memory encoder: out of host memory");
    enum samrt_status st = samrt_op_host_sine_pe(SAMRT_DTYPE_F32, MEM_DIM, me->grid, me->grid, tmp);
    if (st == SAMRT_OK) st = samrt_model_upload(env, me->pos.data, tmp, bytes);
    free(tmp);
    return st;
}

/* ---- forward --------------------------------------------------------------------------------- */

static struct samrt_tensor reshaped(const struct samrt_tensor *t, int n_dims, const int64_t *ne) {
    struct samrt_tensor r = *t;
    if (samrt_tensor_reshape(t, n_dims, ne, &r) != SAMRT_OK) r.n_dims = 0;  /* rejected by the next op */
    return r;
}

struct samrt_tensor samrt_sam2_memenc_features(struct samrt_sam2_memenc *me, struct samrt_op_ctx *c,
                                               const struct samrt_tensor *vision, const struct samrt_tensor *low_res,
                                               int binarize) {
    const struct samrt_sam2_memenc_weights *w = &me->w;
    const int64_t B = me->cfg.b_max, g = me->grid, n = g * g;
    if (c->ex->mode == SAMRT_EXEC_PLAN && samrt_ctx_ok(c) &&
        (vision->n_dims != 3 || (vision->ne[0] != 1 && vision->ne[0] != B) || vision->ne[1] != n ||
         vision->ne[2] != DIM || !samrt_tensor_is_contiguous(vision) || vision->dtype != c->dtype)) {
        SAMRT_LOG_ERROR("memory encoder: vision must be contiguous (1 or %lld, %lld, %d) %s", (long long)B,
                        (long long)n, DIM, samrt_dtype_name(c->dtype));
        samrt_ctx_fail(c, SAMRT_E_INVALID_ARG);
    }
    /* 3. pix_feat_proj of the raw features, one row block per object slot */
    struct samrt_tensor pix = *vision;
    if (vision->ne[0] != B) {
        struct samrt_tensor bc = *vision;
        bc.ne[0] = B;
        bc.s[0] = 0;
        pix = samrt_op_copy(c, "memenc.vision_bcast", &bc, c->dtype, NULL);
    }
    struct samrt_tensor proj = samrt_op_linear(c, "memenc.pix_feat_proj", &pix, w->pix_w, w->pix_b, SAMRT_ACT_NONE,
                                               NULL);
    /* 1. mask input */
    struct samrt_tensor m = samrt_op_sam2_mem_input(c, "memenc.mask_input", low_res, (int)B, me->low,
                                                    me->cfg.model_side, binarize, SAMRT_SAM2_MEM_SCALE,
                                                    SAMRT_SAM2_MEM_BIAS);
    samrt_op_tap(c, "tap.memenc.mask_input", &m);
    /* 2. mask downsampler, NCHW */
    for (int i = 0; i < 4; i++) {
        char name[48];
        snprintf(name, sizeof name, "memenc.ds%d", i);
        m = samrt_op_conv2d(c, name, &m, w->ds_w[i], w->ds_b[i], 2, 1, 1, SAMRT_CONV_NCHW, SAMRT_ACT_NONE);
        m = samrt_op_layernorm2d(c, name, &m, w->ds_ln_w[i], w->ds_ln_b[i], NULL, LN2D_EPS, SAMRT_ACT_GELU);
    }
    struct samrt_tensor m_cl;
    static const int to_nhwc[4] = {0, 2, 3, 1};
    if (samrt_tensor_permute(&m, to_nhwc, &m_cl) != SAMRT_OK) samrt_ctx_fail(c, SAMRT_E_INVALID_ARG);
    m_cl = samrt_op_copy(c, "memenc.ds_nhwc", &m_cl, c->dtype, NULL);
    struct samrt_tensor m_tok = reshaped(&m_cl, 3, SAMRT_SHAPE(B, n, DIM));
    struct samrt_tensor x = samrt_op_linear(c, "memenc.ds12", &m_tok, w->ds_w[4], w->ds_b[4], SAMRT_ACT_NONE, &proj);
    samrt_op_tap(c, "tap.memenc.downsampled", &x);
    /* 4. fuser */
    for (int l = 0; l < 2; l++) {
        char name[48];
        snprintf(name, sizeof name, "memenc.cx%d", l);
        struct samrt_tensor dw = *w->dw_w[l];  /* (256, 1, 7, 7) read as NHWC-packed (256, 7, 7, 1) */
        dw.ne[1] = 7, dw.ne[2] = 7, dw.ne[3] = 1;
        dw.s[0] = 49, dw.s[1] = 7, dw.s[2] = 1, dw.s[3] = 1;
        struct samrt_tensor xi = reshaped(&x, 4, SAMRT_SHAPE(B, g, g, DIM));
        struct samrt_tensor y = samrt_op_conv2d(c, name, &xi, &dw, w->dw_b[l], 1, 3, DIM, SAMRT_CONV_NHWC,
                                                SAMRT_ACT_NONE);
        y = samrt_op_layernorm(c, name, &y, w->ln_w[l], w->ln_b[l], NULL, LN2D_EPS, NULL);
        struct samrt_tensor h = samrt_op_linear(c, name, &y, w->pw1_w[l], w->pw1_b[l], SAMRT_ACT_GELU, NULL);
        y = samrt_op_linear(c, name, &h, w->pw2_w[l], w->pw2_b[l], SAMRT_ACT_NONE, NULL);
        struct samrt_tensor yt = reshaped(&y, 3, SAMRT_SHAPE(B, n, DIM));
        x = samrt_op_channel_affine(c, name, &yt, w->gamma[l], NULL, &x, 1);
    }
    samrt_op_tap(c, "tap.memenc.fused", &x);
    /* 5. out_proj */
    struct samrt_tensor f = samrt_op_linear(c, "memenc.out_proj", &x, w->out_w, w->out_b, SAMRT_ACT_NONE, NULL);
    samrt_op_tap(c, "tap.memenc.features", &f);
    return f;
}

void samrt_sam2_memenc_forward(struct samrt_sam2_memenc *me, struct samrt_op_ctx *c,
                               const struct samrt_tensor *vision, const struct samrt_tensor *low_res,
                               const struct samrt_tensor *score, int binarize, const struct samrt_tensor *out) {
    struct samrt_tensor f = samrt_sam2_memenc_features(me, c, vision, low_res, binarize);
    samrt_op_sam2_mem_store(c, &f, score, me->w.no_obj_spatial, out);  /* 6-7. no-object embedding, bf16 store */
}

void samrt_sam2_memenc_forward_perceiver(struct samrt_edgetam_perceiver *p, struct samrt_sam2_memenc *me,
                                         struct samrt_op_ctx *c, const struct samrt_tensor *vision,
                                         const struct samrt_tensor *low_res, int binarize,
                                         const struct samrt_tensor *out) {
    struct samrt_tensor f = samrt_sam2_memenc_features(me, c, vision, low_res, binarize);
    struct samrt_tensor lat = samrt_edgetam_perceiver_forward(p, c, &f);
    if (c->ex->mode == SAMRT_EXEC_PLAN && samrt_ctx_ok(c) &&
        (out->dtype != SAMRT_DTYPE_BF16 || !samrt_tensor_is_contiguous(out) ||
         samrt_tensor_nelements(out) != samrt_tensor_nelements(&lat))) {
        SAMRT_LOG_ERROR("edgetam memory: out must be contiguous bf16 (%d, %d, %d)", p->cfg.b_max,
                        SAMRT_EDGETAM_MEM_TOKENS, SAMRT_EDGETAM_PERC_DIM);
        samrt_ctx_fail(c, SAMRT_E_INVALID_ARG);
        return;
    }
    struct samrt_tensor dst = *out;
    if (samrt_tensor_reshape(out, 3, lat.ne, &dst) != SAMRT_OK) dst = lat;  /* rejected above */
    samrt_op_copy_into(c, &lat, NULL, &dst);
}
