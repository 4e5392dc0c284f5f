/* conv_direct.h - a direct 2-D convolution for few input channels: x NCHW, the output NCHW or
 * NHWC, with bias and activation fused: y = act(conv(x) + b).
 *
 * Why its own kernel: the convs that open EdgeTAM's trunk (RepViT's stem: 3 -> 24 and 24 -> 48
 * channels, 3x3 stride 2 at 1024 and 512 px) and SAM 2's mask downsampler (1 -> 4, 4 -> 16,
 * 16 -> 64) have at most a few hundred multiply-adds per output: tensor cores gain nothing
 * there, while cuDNN's call adds its NCHW <-> NHWC transforms and the bias / GELU pass
 * (epilogue.h) reads and writes the output once more. Here the output is written once, in the
 * layout its consumer reads: the stem's second conv writes the channels-last tokens the RepViT
 * blocks read, so no copy follows it.
 *
 * Arithmetic: every output is conv.h's reference sum (input channel, then kernel row, then
 * column, f32), then + bias, then the activation (exact-erf GELU or ReLU), rounded once on the
 * store, as samrt_conv_ref with its epilogue computes it; the CUDA kernel accumulates in the
 * same order with fmaf.
 *
 * Layout: x (N, C_in, H, W); w (C_out, C_in, k, k) (PyTorch's); bias (C_out); y (N, C_out, Ho,
 * Wo) or, with out_nhwc, (N, Ho, Wo, C_out). All one dtype (f32, f16, bf16). Groups 1, square
 * k, stride and symmetric zero padding; C_in * k * k <= SAMRT_CONV_DIRECT_MAX_TAPS.
 *
 *   struct samrt_conv_direct_desc d = {1, 3, 1024, 1024, 24, 3, 2, 1, SAMRT_DTYPE_F16,
 *                                      SAMRT_EPILOGUE_ACT_GELU, 1, 0};
 *   if (samrt_conv_direct_ok(&d)) SAMRT_TRY(samrt_conv_direct_cuda(&d, x, w, b, y, stream));
 */
#ifndef SAMRT_KERNELS_CONV_DIRECT_H
#define SAMRT_KERNELS_CONV_DIRECT_H

#include "epilogue.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_CONV_DIRECT_MAX_TAPS 256   /* C_in * k * k: the weights of 8 outputs in shared memory */

struct samrt_conv_direct_desc {
    int n, c_in, h, w;          /* input (N, C_in, H, W) */
    int c_out, k, stride, pad;
    enum samrt_dtype dtype;
    enum samrt_epilogue_act act;
    int has_bias;
    int out_nhwc;               /* 1: y is (N, Ho, Wo, C_out) */
};

/* Output height and width (PyTorch's floor rule). */
void samrt_conv_direct_out_hw(const struct samrt_conv_direct_desc *d, int *ho, int *wo);
/* Whether this file takes the conv: positive extents, k <= 7, stride 1 or 2, pad < k,
 * C_in * k * k within the cap, extents within 32-bit indexing, a float dtype. */
int samrt_conv_direct_ok(const struct samrt_conv_direct_desc *d);
/* Plain C reference on f32 data (bias NULL without has_bias), stored values not rounded. */
void samrt_conv_direct_ref(const struct samrt_conv_direct_desc *d, const float *x, const float *w,
                           const float *bias, float *y);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* One launch on stream; the desc must be ok. Allocates nothing, logs nothing. */
enum samrt_status samrt_conv_direct_cuda(const struct samrt_conv_direct_desc *d, const void *x, const void *w,
                                         const void *bias, void *y, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_CONV_DIRECT_H */
