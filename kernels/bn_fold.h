/* bn_fold.h - load-time folding of eval-mode BatchNorm2d into the convolution before it
 * (RepViT's ConvNorm), and of RepViT's legacy RepVggDw block into one depthwise 3x3 conv.
 *
 * BN(conv(x)) = g * (conv(x) + b - mean) / sqrt(var + eps) + beta, so with
 * s = g / sqrt(var + eps): w' = w * s (per output channel), b' = (b - mean) * s + beta.
 * Computed in double and rounded once to f32; eps is 1e-5 for every BatchNorm in these
 * models (model-spec §7 item 21). Folding changes results only at f32 rounding level.
 *
 *   samrt_bn_fold_conv(c_out, c_in_per_group * kh * kw, w, NULL, bn_w, bn_b, mean, var,
 *                      SAMRT_BN_EPS, w_out, b_out);
 */
#ifndef SAMRT_KERNELS_BN_FOLD_H
#define SAMRT_KERNELS_BN_FOLD_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_BN_EPS 1e-5f

/* w (c_out, per_out) and optional conv bias b (c_out, NULL = none) followed by BatchNorm with
 * weight g, bias beta, running mean and var -> w_out (c_out, per_out), b_out (c_out). w_out
 * may be w. Fails with SAMRT_E_FORMAT when var + eps is not positive or a result is not
 * finite (a corrupt checkpoint), leaving the outputs unspecified. */
enum samrt_status samrt_bn_fold_conv(int64_t c_out, int64_t per_out, const float *w, const float *b,
                                     const float *g, const float *beta, const float *mean, const float *var,
                                     float eps, float *w_out, float *b_out);

/* RepVggDw (legacy): y = dw3x3(x) + dw1x1(x) + x, both convs already BN-folded, w3 (c,1,3,3),
 * b3 (c), w1 (c,1,1,1), b1 (c) -> one depthwise 3x3 w_out (c,1,3,3), b_out (c): the 1x1 tap
 * and the identity land on the centre tap. */
void samrt_bn_fold_repvgg_dw(int64_t c, const float *w3, const float *b3, const float *w1, const float *b1,
                             float *w_out, float *b_out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_BN_FOLD_H */
