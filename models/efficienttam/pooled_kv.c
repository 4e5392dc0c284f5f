/* pooled_kv.c - EfficientTAM's pooled memory keys and values (pooled_kv.h): keys projected,
 * then rotated and 2x2 average pooled per memory in one pass; values pooled on their
 * 64-channel inputs, then projected; the /2 key offset or the /1 four copies, pointer rows
 * appended.
 * Tests: tests/test_efficienttam.c (against a plain C transcription of the official forward). */
#include "pooled_kv.h"

#include <math.h>

#define DIM 256

void samrt_efftam_pool_fill(float *w, float *b) {
    for (int i = 0; i < DIM * 4; i++) w[i] = 0.25f;
    for (int i = 0; i < DIM; i++) b[i] = (float)(2.0 * log(2.0));  /* 2 * math.log(s_kernel_size) */
}

/* The values: pooling commutes with the projection. For a pooled row,
 *   avg_t (W x_t + b) = W (avg_t x_t) + b          (avg over the 4 tokens t of a 2x2 cell),
 * since W is linear and the weights 1/4 sum to 1, so the 64-channel inputs are pooled (the
 * (B, M*g*g/4 + P, 64) rows, pointer rows copied, each pooled row rep times for /1) and
 * projected straight into v_out: v_proj reads and writes a quarter of the rows (/2) and no
 * full-length (B, M*g*g + P, 256) value tensor is made. Only the order of float operations
 * changes: in fp32 an element moves by an ulp or so of its value; at fp16 / bf16 the pooled
 * inputs are rounded to the run dtype before the projection where the projected values were
 * before the pool, a difference of the size of one rounding of the run dtype.
 * The keys cannot be pooled before the projection: RoPE turns each token by its own angle
 * after it. They are projected, then rotated and pooled in one pass (samrt_op_rope_pool, the
 * rounding of the rotation in place and the 2x2 conv pool it replaces, bit for bit). */
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
    const int rep = a->variant == SAMRT_EFFTAM_POOL_LOGIT ? 4 : 1;
    /* /2's 2 ln 2 as the run dtype holds it (the pool's bias was a run-dtype tensor) */
    const float bias = a->variant == SAMRT_EFFTAM_POOL_KEY ? ref_round(kin->dtype, (float)(2.0 * log(2.0))) : 0.0f;
    /* keys: projected, then rotated (memory rows; pointer rows as they are) and pooled */
    struct samrt_tensor k = samrt_op_linear(c, "efftam.k_proj", kin, k_w, k_b, SAMRT_ACT_NONE, NULL);
    *k_out = samrt_op_rope_pool(c, "efftam.k_pool", &k, a->rope, (int)M, (int)g, a->n_ptr_tok, bias, rep);
    /* values: inputs pooled, then projected */
    struct samrt_tensor vp = samrt_op_rope_pool(c, "efftam.v_pool", vin, NULL, (int)M, (int)g, a->n_ptr_tok, 0.0f, rep);
    *v_out = samrt_op_linear(c, "efftam.v_proj", &vp, v_w, v_b, SAMRT_ACT_NONE, NULL);
}
