/* dwconv_ref.c - the C reference of dwconv.h (NHWC depthwise conv with a fused epilogue, or
 * with its BatchNorm apart), and the support rules the CUDA launcher and its callers share.
 * f32, one output at a time, in the order PyTorch sums (taps row by row), then bias, residual
 * and the activation. The bn form rounds where the unfused chain stores (ref_round) and does
 * its BatchNorm arithmetic as elementwise_ref.c's channel_affine and add do, each product
 * and sum rounded on its own (through a volatile, so no compiler contracts them into an
 * FMA), which is also how the CUDA kernels compute them (__fmul_rn / __fadd_rn). */
#include "dwconv.h"

#include <stdint.h>

#include "elementwise.h"
#include "ref_util.h"

void samrt_dwconv_out_hw(const struct samrt_dwconv_desc *d, int *ho, int *wo) {
    *ho = (d->h + 2 * d->pad - d->k) / d->stride + 1;
    *wo = (d->w + 2 * d->pad - d->k) / d->stride + 1;
}

static int aligned16(const void *p) { return !p || ((uintptr_t)p % 16) == 0; }

int samrt_dwconv_shape_ok(const struct samrt_dwconv_desc *d) {
    if (d->dtype != SAMRT_DTYPE_F32 && d->dtype != SAMRT_DTYPE_F16 && d->dtype != SAMRT_DTYPE_BF16) return 0;
    if (d->n < 1 || d->h < 1 || d->w < 1 || d->c < 1 || d->k < 1 || d->k > SAMRT_DWCONV_MAX_K) return 0;
    if ((d->stride != 1 && d->stride != 2) || d->pad < 0 || d->pad >= d->k) return 0;
    int ho, wo;
    samrt_dwconv_out_hw(d, &ho, &wo);
    if (ho < 1 || wo < 1) return 0;
    const int64_t big = (int64_t)d->n * (d->h > ho ? d->h : ho) * (d->w > wo ? d->w : wo) * d->c;
    return big < ((int64_t)1 << 31);
}

int samrt_dwconv_bn_shape_ok(const struct samrt_dwconv_desc *d, enum samrt_dwconv_bn mode) {
    if (mode != SAMRT_DWCONV_BN_AFFINE && mode != SAMRT_DWCONV_BN_REPVGG) return 0;
    if (mode == SAMRT_DWCONV_BN_REPVGG &&
        (d->stride != 1 || d->k % 2 == 0 || d->pad != d->k / 2 || d->act != SAMRT_EPILOGUE_ACT_NONE || d->residual))
        return 0;
    return samrt_dwconv_shape_ok(d);
}

int samrt_dwconv_supported(const struct samrt_dwconv_desc *d, const void *x, const void *w, const void *bias,
                           const void *residual, const void *y) {
    if (!samrt_dwconv_shape_ok(d)) return 0;
    const size_t es = samrt_dtype_size(d->dtype);
    if ((d->c * es) % 16 != 0) return 0;
    /* x, y, R and bias are read in 16-byte vectors; w element by element */
    return aligned16(x) && aligned16(y) && aligned16(residual) && aligned16(bias) &&
           (w == NULL || ((uintptr_t)w % es) == 0);
}

/* The k x k sum of output (n, oy, ox) channel c, plus the bias. */
static float dw_sum(const struct samrt_dwconv_desc *d, const float *x, const float *w, const float *bias, int n,
                    int oy, int ox, int c) {
    const int C = d->c, k = d->k;
    float acc = 0.0f;
    for (int ky = 0; ky < k; ky++) {
        const int iy = oy * d->stride - d->pad + ky;
        if (iy < 0 || iy >= d->h) continue;
        for (int kx = 0; kx < k; kx++) {
            const int ix = ox * d->stride - d->pad + kx;
            if (ix < 0 || ix >= d->w) continue;
            acc += x[(((int64_t)n * d->h + iy) * d->w + ix) * C + c] * w[((int64_t)c * k + ky) * k + kx];
        }
    }
    if (d->has_bias) acc += bias[c];
    return acc;
}

/* One f32 product or sum, rounded on its own. */
static float mul_rn(float a, float b) {
    volatile float p = a * b;
    return p;
}
static float add_rn(float a, float b) {
    volatile float s = a + b;
    return s;
}

/* The bn form's tail of output o (channel c) from the conv sum t: the chain's arithmetic. */
static float bn_tail(const struct samrt_dwconv_desc *d, const struct samrt_dwconv_bn_params *bn, float t,
                     const float *x, const float *residual, int64_t o, int c) {
    const enum samrt_dtype dt = d->dtype;
    t = ref_round(dt, t);
    float v = add_rn(mul_rn(t, bn->s[c]), bn->sh[c]);
    if (bn->mode == SAMRT_DWCONV_BN_REPVGG) {
        const float xc = x[o];  /* stride 1, same size: the input pixel */
        const float a = ref_round(dt, v);
        const float u = ref_round(dt, mul_rn(xc, ((const float *)bn->w1)[c]));
        const float ab = ref_round(dt, add_rn(a, add_rn(mul_rn(u, bn->s1[c]), bn->sh1[c])));
        return ref_round(dt, add_rn(ab, xc));
    }
    if (d->act != SAMRT_EPILOGUE_ACT_NONE)
        v = samrt_act_ref(d->act == SAMRT_EPILOGUE_ACT_GELU ? SAMRT_ACT_GELU : SAMRT_ACT_RELU, v);
    if (d->residual) v = add_rn(residual[o], v);
    return ref_round(dt, v);
}

/* Every output: the plain epilogue (bn NULL) or the bn form's tail. */
static void dw_run(const struct samrt_dwconv_desc *d, const float *x, const float *w, const float *bias,
                   const struct samrt_dwconv_bn_params *bn, const float *residual, float *y) {
    int ho, wo;
    samrt_dwconv_out_hw(d, &ho, &wo);
    const int C = d->c;
    for (int n = 0; n < d->n; n++)
        for (int oy = 0; oy < ho; oy++)
            for (int ox = 0; ox < wo; ox++)
                for (int c = 0; c < C; c++) {
                    float acc = dw_sum(d, x, w, bias, n, oy, ox, c);
                    const int64_t o = (((int64_t)n * ho + oy) * wo + ox) * C + c;
                    if (bn) {
                        y[o] = bn_tail(d, bn, acc, x, residual, o, c);
                        continue;
                    }
                    if (d->residual) acc += residual[o];
                    if (d->act == SAMRT_EPILOGUE_ACT_GELU) acc = samrt_epilogue_gelu_ref(acc);
                    else if (d->act == SAMRT_EPILOGUE_ACT_RELU) acc = acc < 0.0f ? 0.0f : acc;
                    y[o] = acc;
                }
}

void samrt_dwconv_ref(const struct samrt_dwconv_desc *d, const float *x, const float *w, const float *bias,
                      const float *residual, float *y) {
    dw_run(d, x, w, bias, NULL, residual, y);
}

enum samrt_status samrt_dwconv_bn_ref(const struct samrt_dwconv_desc *d, const float *x, const float *w,
                                      const float *bias, const struct samrt_dwconv_bn_params *bn,
                                      const float *residual, float *y) {
    if (!x || !w || !y || !bn || !samrt_dwconv_bn_shape_ok(d, bn->mode) || !bn->s || !bn->sh ||
        (d->has_bias && !bias) || (d->residual && !residual))
        return SAMRT_E_INVALID_ARG;
    if (bn->mode == SAMRT_DWCONV_BN_REPVGG && (!bn->w1 || !bn->s1 || !bn->sh1)) return SAMRT_E_INVALID_ARG;
    dw_run(d, x, w, bias, bn, residual, y);
    return SAMRT_OK;
}
