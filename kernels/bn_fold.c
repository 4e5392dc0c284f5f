/* bn_fold.c - BatchNorm and RepVggDw folding at load (bn_fold.h). Host only, no CUDA: it runs
 * on the f32 checkpoint tensors before they are converted to the run dtype, so the bf16
 * weights are rounded once from the folded values. Tested by tests/test_bn_fold.c. */
#include "bn_fold.h"

#include <math.h>

enum samrt_status samrt_bn_fold_conv(int64_t c_out, int64_t per_out, const float *w, const float *b,
                                     const float *g, const float *beta, const float *mean, const float *var,
                                     float eps, float *w_out, float *b_out) {
    SAMRT_CHECK(c_out > 0 && per_out > 0, SAMRT_E_INVALID_ARG, "bn_fold: %lld x %lld weights",
                (long long)c_out, (long long)per_out);
    for (int64_t o = 0; o < c_out; o++) {
        const double den = (double)var[o] + (double)eps;
        SAMRT_CHECK(den > 0.0 && isfinite(den), SAMRT_E_FORMAT,
                    "bn_fold: channel %lld has running_var %g (var + eps must be positive)", (long long)o,
                    (double)var[o]);
        const double s = (double)g[o] / sqrt(den);
        const double bias = b ? (double)b[o] : 0.0;
        const double nb = (bias - (double)mean[o]) * s + (double)beta[o];
        SAMRT_CHECK(isfinite(s) && isfinite(nb), SAMRT_E_FORMAT,
                    "bn_fold: channel %lld folds to a non-finite value", (long long)o);
        for (int64_t i = 0; i < per_out; i++) {
            const double v = (double)w[o * per_out + i] * s;
            SAMRT_CHECK(isfinite((float)v), SAMRT_E_FORMAT, "bn_fold: weight %lld,%lld overflows f32",
                        (long long)o, (long long)i);
            w_out[o * per_out + i] = (float)v;
        }
        b_out[o] = (float)nb;
    }
    return SAMRT_OK;
}

void samrt_bn_fold_repvgg_dw(int64_t c, const float *w3, const float *b3, const float *w1, const float *b1,
                             float *w_out, float *b_out) {
    for (int64_t ch = 0; ch < c; ch++) {
        for (int t = 0; t < 9; t++) w_out[ch * 9 + t] = w3[ch * 9 + t];
        /* centre tap (1,1): 3x3 + 1x1 + identity, summed in double, rounded once */
        w_out[ch * 9 + 4] = (float)((double)w3[ch * 9 + 4] + (double)w1[ch] + 1.0);
        b_out[ch] = (float)((double)b3[ch] + (double)b1[ch]);
    }
}
