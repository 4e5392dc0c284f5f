/* layernorm_ref.c - plain C11 references for layernorm.h (and the argument checks the
 * CUDA launchers share): for each row or pixel, the sum rounded to the storage dtype, a
 * sequential fp32 mean, a second fp32 pass for the biased variance, then
 * (x - mean) / sqrt(var + eps) * w + b, as nn.LayerNorm and SAM's LayerNorm2d define it.
 * Tests: tests/test_layernorm.c (hand values), the op table (tests/ops_table_*.c, test_ops_table_cuda) (vs the kernel). */
#include "layernorm.h"

#include <math.h>

#include "ref_util.h"
#include "samrt_impl.h"

static int eps_ok(float eps) { return eps >= 0.0f && isfinite(eps); }

enum samrt_status samrt_layernorm_check(const struct samrt_layernorm_args *a) {
    if (!a || a->n_rows <= 0 || a->n_cols <= 0 || !eps_ok(a->eps)) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    if (!a->x || !a->out) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

enum samrt_status samrt_layernorm2d_check(const struct samrt_layernorm2d_args *a) {
    if (!a || a->n_batch <= 0 || a->n_channels <= 0 || a->n_pixels <= 0 || !eps_ok(a->eps))
        return SAMRT_E_INVALID_ARG;
    if ((unsigned)a->act >= SAMRT_ACT_COUNT) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    if (!a->x || !a->out) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

/* Element i of the normalised input: round_dtype(x + r), or x without a residual. */
static float input_at(enum samrt_dtype dt, const void *x, const void *r, int64_t i) {
    float v = ref_load(dt, x, i);
    return r ? ref_round(dt, v + ref_load(dt, r, i)) : v;
}

/* Normalises n values at base, base + stride, ...; the shared core of both ops. */
static void norm_ref(enum samrt_dtype dt, const void *x, const void *r, const void *w, const void *b,
                     void *out, void *sum_out, int64_t base, int64_t stride, int32_t n, float eps,
                     enum samrt_act act) {
    float sum = 0.0f;
    for (int32_t k = 0; k < n; k++) sum += input_at(dt, x, r, base + k * stride);
    const float mean = sum / (float)n;
    float sq = 0.0f;
    for (int32_t k = 0; k < n; k++) {
        float d = input_at(dt, x, r, base + k * stride) - mean;
        sq += d * d;
    }
    const float rstd = 1.0f / sqrtf(sq / (float)n + eps);
    for (int32_t k = 0; k < n; k++) {
        const int64_t i = base + k * stride;
        const float v = input_at(dt, x, r, i);
        float y = (v - mean) * rstd;
        if (w) y *= ref_load(dt, w, k);
        if (b) y += ref_load(dt, b, k);
        /* written last: out and sum_out may alias x or r */
        if (sum_out) ref_store(dt, sum_out, i, v);
        ref_store(dt, out, i, samrt_act_ref(act, y));
    }
}

enum samrt_status samrt_layernorm_ref(const struct samrt_layernorm_args *a) {
    SAMRT_TRY(samrt_layernorm_check(a));
    for (int64_t row = 0; row < a->n_rows; row++)
        norm_ref(a->dtype, a->x, a->residual, a->weight, a->bias, a->out, a->sum_out,
                 row * a->n_cols, 1, a->n_cols, a->eps, SAMRT_ACT_NONE);
    return SAMRT_OK;
}

enum samrt_status samrt_layernorm2d_ref(const struct samrt_layernorm2d_args *a) {
    SAMRT_TRY(samrt_layernorm2d_check(a));
    const int64_t plane = (int64_t)a->n_channels * a->n_pixels;
    for (int64_t n = 0; n < a->n_batch; n++)
        for (int64_t p = 0; p < a->n_pixels; p++)
            norm_ref(a->dtype, a->x, a->residual, a->weight, a->bias, a->out, NULL, n * plane + p,
                     a->n_pixels, a->n_channels, a->eps, a->act);
    return SAMRT_OK;
}
