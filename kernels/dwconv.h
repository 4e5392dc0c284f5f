/* dwconv.h - depthwise 2-D convolution in NHWC (every channel its own k x k filter, groups =
 * C_in = C_out), with the epilogue fused: y = act(conv(x) + b + R).
 *
 * Why its own kernel: cuDNN's grouped convolution runs these shapes with a generic direct
 * kernel (tens to hundreds of microseconds for a few MFLOP: the SAM 2 fuser's 7x7 on
 * 64x64x256, RepViT's 3x3s), and needs a second pass for bias, GELU and residual. A depthwise
 * conv is memory-bound: this kernel reads x once through the L1 cache, each thread owning one
 * output pixel and 16 bytes of channels, accumulates in f32 and rounds once on the store, as
 * PyTorch's depthwise conv with bias does.
 *
 * Layout: x (N, H, W, C), y (N, Ho, Wo, C), R like y, w (C, k, k) = PyTorch's (C, 1, k, k)
 * (its NHWC packing (C, k, k, 1) is the same bytes), bias (C). All one dtype (f32, f16 or
 * bf16). Square k in 1 .. 7, stride 1 or 2, symmetric zero padding.
 *
 *   struct samrt_dwconv_desc d = {1, 64, 64, 256, 7, 1, 3, SAMRT_DTYPE_BF16,
 *                                 SAMRT_EPILOGUE_ACT_NONE, 1, 0};
 *   if (samrt_dwconv_supported(&d, x, w, b, NULL, y)) samrt_dwconv_cuda(&d, x, w, b, NULL, y, stream);
 */
#ifndef SAMRT_KERNELS_DWCONV_H
#define SAMRT_KERNELS_DWCONV_H

#include "epilogue.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_DWCONV_MAX_K 7

struct samrt_dwconv_desc {
    int n, h, w, c;             /* input (N, H, W, C) */
    int k, stride, pad;
    enum samrt_dtype dtype;
    enum samrt_epilogue_act act;
    int has_bias, residual;
};

/* Output height and width (PyTorch's floor rule). */
void samrt_dwconv_out_hw(const struct samrt_dwconv_desc *d, int *ho, int *wo);
/* Whether the CUDA kernel takes this conv: k <= 7, stride 1 or 2, pad < k, C a multiple of
 * 16 bytes of elements, extents within 32-bit indexing. Pointers are checked for 16-byte
 * alignment where given (NULL: not checked). */
int samrt_dwconv_supported(const struct samrt_dwconv_desc *d, const void *x, const void *w, const void *bias,
                           const void *residual, const void *y);

/* Plain C reference on f32 data; bias / residual may be NULL. */
void samrt_dwconv_ref(const struct samrt_dwconv_desc *d, const float *x, const float *w, const float *bias,
                      const float *residual, float *y);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* One launch on stream; the desc must be supported. Allocates nothing, logs nothing. */
enum samrt_status samrt_dwconv_cuda(const struct samrt_dwconv_desc *d, const void *x, const void *w,
                                    const void *bias, const void *residual, void *y, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_DWCONV_H */
