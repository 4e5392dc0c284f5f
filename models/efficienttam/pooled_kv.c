/* pooled_kv.c - EfficientTAM's pooled memory keys and values (pooled_kv.h): rotate, 2x2
 * average pool per memory, the /2 key offset or the /1 four copies, pointer rows appended.
 * Tests: tests/test_efficienttam.c (against a plain C transcription of the official forward). */
#include "pooled_kv.h"

#include <math.h>

#define DIM 256

void samrt_efftam_pool_fill(float *w, float *b) {
    for (int i = 0; i < DIM * 4; i++) w[i] = 0.25f;
    for (int i = 0; i < DIM; i++) b[i] = (float)(2.0 * log(2.0));  /* 2 * math.log(s_kernel_size) */
}

/* rows [row0, row0 + n) of a contiguous (B, L, DIM) tensor, batch b, as (n, DIM). */
static struct samrt_tensor rows(const struct samrt_tensor *t, int64_t b, int64_t row0, int64_t n) {
    const int64_t L = t->ne[1];
    return samrt_tensor_view(t, (b * L + row0) * DIM, 2, SAMRT_SHAPE(n, DIM), SAMRT_SHAPE(DIM, 1));
}

/* One tensor's pooled rows into out: per batch item, the M memories as (M, g, g, DIM) NHWC
 * through the 2x2 / stride-2 depthwise conv, copied (x4 for /1) in front of the pointer rows. */
static void pool_into(struct samrt_op_ctx *c, const struct samrt_efftam_pool_args *a, const struct samrt_tensor *x,
                      const struct samrt_tensor *bias, struct samrt_tensor *out, const char *name) {
    const int64_t B = x->ne[0], g = a->grid, n = g * g, M = a->n_mem, h = g / 2, np = M * h * h;
    const int64_t rep = a->variant == SAMRT_EFFTAM_POOL_LOGIT ? 4 : 1;
    for (int64_t b = 0; b < B && samrt_ctx_ok(c); b++) {
        const struct samrt_tensor src = samrt_tensor_view(x, b * x->ne[1] * DIM, 4, SAMRT_SHAPE(M, g, g, DIM),
                                                          SAMRT_SHAPE(n * DIM, g * DIM, DIM, 1));
        struct samrt_tensor p = samrt_op_conv2d(c, name, &src, a->pool_w, bias, 2, 0, DIM, SAMRT_CONV_NHWC,
                                                SAMRT_ACT_NONE);  /* (M, h, h, DIM) */
        if (b == 0)  /* made after the first pool, so it does not live beside the full-length input longer */
            *out = samrt_op_new(c, name, x->dtype, 3, SAMRT_SHAPE(B, rep * np + a->n_ptr_tok, DIM));
        /* pooled row r goes to rows rep*r .. rep*r + rep - 1 (stride-0 source for the copies) */
        const struct samrt_tensor srep = samrt_tensor_view(&p, 0, 3, SAMRT_SHAPE(np, rep, DIM), SAMRT_SHAPE(DIM, 0, 1));
        const struct samrt_tensor drep = samrt_tensor_view(out, b * out->ne[1] * DIM, 3, SAMRT_SHAPE(np, rep, DIM),
                                                           SAMRT_SHAPE(rep * DIM, DIM, 1));
        samrt_op_copy_into(c, &srep, NULL, &drep);
        if (a->n_ptr_tok > 0) {
            const struct samrt_tensor ps = rows(x, b, M * n, a->n_ptr_tok);
            const struct samrt_tensor pd = rows(out, b, rep * np, a->n_ptr_tok);
            samrt_op_copy_into(c, &ps, NULL, &pd);
        }
    }
}

void samrt_efftam_pool_kv(struct samrt_op_ctx *c, const struct samrt_efftam_pool_args *a,
                          const struct samrt_tensor *kin, const struct samrt_tensor *vin,
                          const struct samrt_tensor *k_w, const struct samrt_tensor *k_b,
                          const struct samrt_tensor *v_w, const struct samrt_tensor *v_b, struct samrt_tensor *k_out,
                          struct samrt_tensor *v_out) {
    const int64_t g = a->grid, n = g * g, M = a->n_mem;
    if (c->ex->mode == SAMRT_EXEC_PLAN && samrt_ctx_ok(c) &&
        (g % 2 || M < 2 || kin->n_dims != 3 || kin->ne[1] != M * n + a->n_ptr_tok || vin->ne[1] != kin->ne[1] ||
         !samrt_tensor_is_contiguous(kin) || !samrt_tensor_is_contiguous(vin))) {
        SAMRT_LOG_ERROR("efficienttam pooled kv: kin, vin must be contiguous (B, %lld * %lld + %lld, 64), g even",
                        (long long)M, (long long)n, (long long)a->n_ptr_tok);
        samrt_ctx_fail(c, SAMRT_E_INVALID_ARG);
    }
    /* keys: projected, RoPE on the memory rows (in place; pointer rows untouched), pooled */
    struct samrt_tensor k = samrt_op_linear(c, "efftam.k_proj", kin, k_w, k_b, SAMRT_ACT_NONE, NULL);
    samrt_op_rope(c, "efftam.k_rope", &k, 1, a->rope, (int)n, 0, M * n, &k);
    pool_into(c, a, &k, a->variant == SAMRT_EFFTAM_POOL_KEY ? a->pool_b : NULL, k_out, "efftam.k_pool");
    /* values: projected once the full-length keys are dead, pooled */
    struct samrt_tensor v = samrt_op_linear(c, "efftam.v_proj", vin, v_w, v_b, SAMRT_ACT_NONE, NULL);
    pool_into(c, a, &v, NULL, v_out, "efftam.v_pool");
}
