/* se_gate_ref.c - the C reference of se_gate.h: the op chain it replaces, reference by
 * reference (pool.h's mean, gemm.h's Linear with bias and ReLU, then without, elementwise.h's
 * sigmoid), on one image at a time, each stored tensor rounded to the dtype. On f32 data this
 * is the host path of that chain bit for bit. */
#include "se_gate.h"

#include "elementwise.h"
#include "gemm.h"
#include "pool.h"
#include "ref_util.h"

enum samrt_status samrt_se_gate_check(const struct samrt_se_gate_args *a, int kernel) {
    if (!a || a->n_batch <= 0 || a->n_tokens <= 0 || a->c <= 0 || a->r <= 0 || a->c > SAMRT_SE_GATE_MAX_C ||
        a->r > SAMRT_SE_GATE_MAX_R)
        return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    if (!a->w1 || !a->b1 || !a->w2 || !a->b2 || !a->gate) return SAMRT_E_INVALID_ARG;
    if (kernel ? (!a->partial || a->n_rows <= 0) : !a->x) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

static void round_all(enum samrt_dtype dt, float *v, int64_t n) {
    for (int64_t i = 0; i < n; i++) v[i] = ref_round(dt, v[i]);
}

enum samrt_status samrt_se_gate_ref(const struct samrt_se_gate_args *a) {
    SAMRT_TRY(samrt_se_gate_check(a, 0));
    const int64_t C = a->c, R = a->r;
    float mean[SAMRT_SE_GATE_MAX_C], h[SAMRT_SE_GATE_MAX_R], s[SAMRT_SE_GATE_MAX_C];
    const struct samrt_gemm_desc d1 =
        samrt_gemm_desc_make(1, R, C, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, SAMRT_EPILOGUE_BIAS_RELU);
    const struct samrt_gemm_desc d2 = samrt_gemm_desc_make(1, C, R, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, SAMRT_EPILOGUE_BIAS);
    for (int64_t b = 0; b < a->n_batch; b++) {
        const struct samrt_pool_mean_args pm = {SAMRT_DTYPE_F32, 1, a->n_tokens, a->c,
                                                (const float *)a->x + b * a->n_tokens * C, mean, 1, NULL};
        SAMRT_TRY(samrt_pool_mean_ref(&pm));
        round_all(a->dtype, mean, C);
        samrt_gemm_ref(&d1, mean, a->w1, a->b1, NULL, h);
        round_all(a->dtype, h, R);
        samrt_gemm_ref(&d2, h, a->w2, a->b2, NULL, s);
        round_all(a->dtype, s, C);
        float *g = (float *)a->gate + b * C;
        const struct samrt_unary_args u = {SAMRT_DTYPE_F32, SAMRT_ACT_SIGMOID, C, 1.0f, 0.0f, s, g};
        SAMRT_TRY(samrt_unary_ref(&u));
        round_all(a->dtype, g, C);
    }
    return SAMRT_OK;
}
