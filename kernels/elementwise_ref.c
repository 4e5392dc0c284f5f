/* elementwise_ref.c - plain C11 references for elementwise.h, plus the argument checks the
 * CUDA launchers share. Activations are evaluated in double and rounded once to fp32, so
 * the reference is at least as accurate as the device math it checks; products and sums
 * are rounded one at a time, in the order of the PyTorch expression.
 * Tests: tests/test_elementwise.c (hand values), the op table (tests/ops_table_*.c, test_ops_table_cuda) (vs the kernel). */
#include "elementwise.h"

#include <math.h>

#include "ref_util.h"
#include "samrt_impl.h"

#define ELEMENTWISE_MAX_N INT32_MAX

enum samrt_status samrt_unary_check(const struct samrt_unary_args *a) {
    if (!a || a->n < 0 || a->n > ELEMENTWISE_MAX_N) return SAMRT_E_INVALID_ARG;
    if ((unsigned)a->act >= SAMRT_ACT_COUNT) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    if (a->n > 0 && (!a->x || !a->out)) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

enum samrt_status samrt_add_scaled_check(const struct samrt_add_scaled_args *a) {
    if (!a || a->n < 0 || a->n > ELEMENTWISE_MAX_N) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    if (a->n > 0 && (!a->x || !a->y || !a->out)) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

enum samrt_status samrt_channel_affine_check(const struct samrt_channel_affine_args *a) {
    if (!a || a->n < 0 || a->n > ELEMENTWISE_MAX_N) return SAMRT_E_INVALID_ARG;
    if (a->n_channels <= 0 || a->inner <= 0) return SAMRT_E_INVALID_ARG;
    if (a->n % ((int64_t)a->n_channels * a->inner) != 0) return SAMRT_E_INVALID_ARG;
    if (a->act != SAMRT_ACT_NONE && a->act != SAMRT_ACT_GELU && a->act != SAMRT_ACT_RELU &&
        a->act != SAMRT_ACT_SIGMOID)
        return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    if (a->n > 0 && (!a->x || !a->out)) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

float samrt_act_ref(enum samrt_act act, float x) {
    double v = x;
    switch (act) {
    case SAMRT_ACT_GELU: return (float)(0.5 * v * (1.0 + erf(v * 0.70710678118654752440)));
    case SAMRT_ACT_RELU: return x > 0.0f ? x : (x != x ? x : 0.0f);  /* NaN stays NaN */
    case SAMRT_ACT_SIGMOID: return (float)(1.0 / (1.0 + exp(-v)));
    default: return x;
    }
}

enum samrt_status samrt_unary_ref(const struct samrt_unary_args *a) {
    SAMRT_TRY(samrt_unary_check(a));
    for (int64_t i = 0; i < a->n; i++) {
        float v = samrt_act_ref(a->act, ref_load(a->dtype, a->x, i));
        float t = a->alpha * v;
        ref_store(a->dtype, a->out, i, t + a->beta);
    }
    return SAMRT_OK;
}

enum samrt_status samrt_add_scaled_ref(const struct samrt_add_scaled_args *a) {
    SAMRT_TRY(samrt_add_scaled_check(a));
    for (int64_t i = 0; i < a->n; i++) {
        float ax = a->a * ref_load(a->dtype, a->x, i);
        float by = a->b * ref_load(a->dtype, a->y, i);
        ref_store(a->dtype, a->out, i, ax + by);
    }
    return SAMRT_OK;
}

enum samrt_status samrt_channel_affine_ref(const struct samrt_channel_affine_args *a) {
    SAMRT_TRY(samrt_channel_affine_check(a));
    for (int64_t i = 0; i < a->n; i++) {
        int64_t c = (i / a->inner) % a->n_channels;
        const enum samrt_dtype pt = a->params_f32 ? SAMRT_DTYPE_F32 : a->dtype;
        float v = ref_load(a->dtype, a->x, i);
        if (a->scale) v = v * ref_load(pt, a->scale, c);
        if (a->bias) v = v + ref_load(pt, a->bias, c);
        if (a->act != SAMRT_ACT_NONE) v = samrt_act_ref(a->act, v);
        if (a->residual) v = ref_load(a->dtype, a->residual, i) + v;
        ref_store(a->dtype, a->out, i, v);
    }
    return SAMRT_OK;
}
