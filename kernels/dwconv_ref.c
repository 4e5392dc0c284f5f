/* dwconv_ref.c - the C reference of dwconv.h (NHWC depthwise conv with a fused epilogue),
 * and the support rule the CUDA launcher and its callers share. f32, one output at a time, in
 * the order PyTorch sums (taps row by row), then bias, residual and the activation. */
#include "dwconv.h"

#include <stdint.h>

void samrt_dwconv_out_hw(const struct samrt_dwconv_desc *d, int *ho, int *wo) {
    *ho = (d->h + 2 * d->pad - d->k) / d->stride + 1;
    *wo = (d->w + 2 * d->pad - d->k) / d->stride + 1;
}

static int aligned16(const void *p) { return !p || ((uintptr_t)p % 16) == 0; }

int samrt_dwconv_supported(const struct samrt_dwconv_desc *d, const void *x, const void *w, const void *bias,
                           const void *residual, const void *y) {
    const size_t es = samrt_dtype_size(d->dtype);
    if (d->dtype != SAMRT_DTYPE_F32 && d->dtype != SAMRT_DTYPE_F16 && d->dtype != SAMRT_DTYPE_BF16) return 0;
    if (d->n < 1 || d->h < 1 || d->w < 1 || d->c < 1 || d->k < 1 || d->k > SAMRT_DWCONV_MAX_K) return 0;
    if ((d->stride != 1 && d->stride != 2) || d->pad < 0 || d->pad >= d->k) return 0;
    if ((d->c * es) % 16 != 0) return 0;
    int ho, wo;
    samrt_dwconv_out_hw(d, &ho, &wo);
    if (ho < 1 || wo < 1) return 0;
    const int64_t big = (int64_t)d->n * (d->h > ho ? d->h : ho) * (d->w > wo ? d->w : wo) * d->c;
    if (big >= ((int64_t)1 << 31)) return 0;
    /* x, y, R and bias are read in 16-byte vectors; w element by element */
    return aligned16(x) && aligned16(y) && aligned16(residual) && aligned16(bias) &&
           (w == NULL || ((uintptr_t)w % es) == 0);
}

void samrt_dwconv_ref(const struct samrt_dwconv_desc *d, const float *x, const float *w, const float *bias,
                      const float *residual, float *y) {
    int ho, wo;
    samrt_dwconv_out_hw(d, &ho, &wo);
    const int C = d->c, k = d->k;
    for (int n = 0; n < d->n; n++)
        for (int oy = 0; oy < ho; oy++)
            for (int ox = 0; ox < wo; ox++)
                for (int c = 0; c < C; c++) {
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
                    const int64_t o = (((int64_t)n * ho + oy) * wo + ox) * C + c;
                    if (d->has_bias) acc += bias[c];
                    if (d->residual) acc += residual[o];
                    if (d->act == SAMRT_EPILOGUE_ACT_GELU) acc = samrt_epilogue_gelu_ref(acc);
                    else if (d->act == SAMRT_EPILOGUE_ACT_RELU) acc = acc < 0.0f ? 0.0f : acc;
                    y[o] = acc;
                }
}
