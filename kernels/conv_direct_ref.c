/* conv_direct_ref.c - the C reference of conv_direct.h and its support rule: conv.h's
 * reference loop nest (f32 sum over input channel, kernel row, column) and its epilogue
 * (+ bias, then GELU / ReLU) per output, stored in the NCHW or NHWC index. */
#include "conv_direct.h"

#include <stdint.h>

void samrt_conv_direct_out_hw(const struct samrt_conv_direct_desc *d, int *ho, int *wo) {
    *ho = (d->h + 2 * d->pad - d->k) / d->stride + 1;
    *wo = (d->w + 2 * d->pad - d->k) / d->stride + 1;
}

int samrt_conv_direct_ok(const struct samrt_conv_direct_desc *d) {
    if (d->dtype != SAMRT_DTYPE_F32 && d->dtype != SAMRT_DTYPE_F16 && d->dtype != SAMRT_DTYPE_BF16) return 0;
    if (d->n < 1 || d->c_in < 1 || d->h < 1 || d->w < 1 || d->c_out < 1 || d->k < 1 || d->k > 7) return 0;
    if ((d->stride != 1 && d->stride != 2) || d->pad < 0 || d->pad >= d->k) return 0;
    if ((int64_t)d->c_in * d->k * d->k > SAMRT_CONV_DIRECT_MAX_TAPS) return 0;
    int ho, wo;
    samrt_conv_direct_out_hw(d, &ho, &wo);
    if (ho < 1 || wo < 1) return 0;
    const int64_t lim = (int64_t)1 << 31;
    return (int64_t)d->n * d->c_in * d->h * d->w < lim && (int64_t)d->n * d->c_out * ho * wo < lim;
}

void samrt_conv_direct_ref(const struct samrt_conv_direct_desc *d, const float *x, const float *w,
                           const float *bias, float *y) {
    int ho, wo;
    samrt_conv_direct_out_hw(d, &ho, &wo);
    const int k = d->k;
    for (int n = 0; n < d->n; n++)
        for (int o = 0; o < d->c_out; o++)
            for (int oy = 0; oy < ho; oy++)
                for (int ox = 0; ox < wo; ox++) {
                    float acc = 0.0f;
                    for (int ci = 0; ci < d->c_in; ci++)
                        for (int r = 0; r < k; r++) {
                            const int iy = oy * d->stride - d->pad + r;
                            if (iy < 0 || iy >= d->h) continue;
                            for (int s = 0; s < k; s++) {
                                const int ix = ox * d->stride - d->pad + s;
                                if (ix < 0 || ix >= d->w) continue;
                                acc += x[(((int64_t)n * d->c_in + ci) * d->h + iy) * d->w + ix] *
                                       w[(((int64_t)o * d->c_in + ci) * k + r) * k + s];
                            }
                        }
                    float v = acc;
                    if (d->has_bias) v += bias[o];
                    if (d->act == SAMRT_EPILOGUE_ACT_GELU) v = samrt_epilogue_gelu_ref(v);
                    else if (d->act == SAMRT_EPILOGUE_ACT_RELU && v < 0.0f) v = 0.0f;  /* NaN stays NaN */
                    const int64_t at = d->out_nhwc ? (((int64_t)n * ho + oy) * wo + ox) * d->c_out + o
                                                   : (((int64_t)n * d->c_out + o) * ho + oy) * wo + ox;
                    y[at] = v;
                }
}
