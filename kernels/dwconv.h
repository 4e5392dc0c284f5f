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
 * BatchNorm apart (samrt_dwconv_bn_params.mode, EdgeTAM's bf16 trunk: models/edgetam/repvit.c). The conv output is
 * rounded to the dtype first, then an eval BatchNorm runs as an f32 per-channel affine, with
 * exactly the roundings of the unfused chain of ops (this conv, then elementwise.h's
 * channel_affine with f32 scale / shift, products and sums rounded one at a time, then add):
 *   AFFINE  t = rnd(conv(x) + b);  y = rnd(R + act(t * s + sh))
 *           (act of enum samrt_act applied as channel_affine applies it; R optional)
 *   REPVGG  timm's RepVggDw, bn3(dw_kxk(x)) + bn1(dw_1x1(x)) + x (stride 1, pad k/2, no act
 *           or R):  t = rnd(conv(x) + b);  a = rnd(t * s + sh);  u = rnd(x * w1);
 *                   v = rnd(a + (u * s1 + sh1));  y = rnd(v + x)
 * where rnd rounds to the dtype. One launch replaces up to five, bit for bit.
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
    enum samrt_epilogue_act act;  /* bn AFFINE: applied after the BatchNorm, before R */
    int has_bias, residual;
};

/* What follows the rounded conv output in the bn form (see above); NONE is the plain epilogue. */
enum samrt_dwconv_bn { SAMRT_DWCONV_BN_NONE = 0, SAMRT_DWCONV_BN_AFFINE, SAMRT_DWCONV_BN_REPVGG };

/* The bn form's BatchNorms, per channel (C values each), read element by element. */
struct samrt_dwconv_bn_params {
    enum samrt_dwconv_bn mode;  /* AFFINE or REPVGG */
    const float *s, *sh;        /* f32 scale g / sqrt(var + eps) and shift b - mean * scale */
    const void *w1;             /* REPVGG: the 1x1 depthwise weight, in the desc's dtype (the
                                   references: f32 like every other tensor) */
    const float *s1, *sh1;      /* REPVGG: the 1x1's BatchNorm, f32 */
};

/* Output height and width (PyTorch's floor rule). */
void samrt_dwconv_out_hw(const struct samrt_dwconv_desc *d, int *ho, int *wo);
/* Whether the shape is one this file describes: k <= 7, stride 1 or 2, pad < k, extents
 * within 32-bit indexing, any C. */
int samrt_dwconv_shape_ok(const struct samrt_dwconv_desc *d);
/* The same for the bn form of `mode` (AFFINE or REPVGG); REPVGG also needs stride 1, odd k,
 * pad k/2, no act and no R. */
int samrt_dwconv_bn_shape_ok(const struct samrt_dwconv_desc *d, enum samrt_dwconv_bn mode);
/* Whether the CUDA kernel takes this conv: samrt_dwconv_shape_ok and C a multiple of 16 bytes
 * of elements. Pointers are checked for 16-byte alignment where given (NULL: not checked).
 * The bn form needs samrt_dwconv_bn_shape_ok as well. */
int samrt_dwconv_supported(const struct samrt_dwconv_desc *d, const void *x, const void *w, const void *bias,
                           const void *residual, const void *y);

/* Plain C reference on f32 data; bias / residual may be NULL. */
void samrt_dwconv_ref(const struct samrt_dwconv_desc *d, const float *x, const float *w, const float *bias,
                      const float *residual, float *y);
/* The bn form: f32 data holding values of the desc's dtype, every rounding of the chain
 * done with ref_round, so y holds what the kernel stores. */
enum samrt_status samrt_dwconv_bn_ref(const struct samrt_dwconv_desc *d, const float *x, const float *w,
                                      const float *bias, const struct samrt_dwconv_bn_params *bn,
                                      const float *residual, float *y);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* One launch on stream; the desc must be supported. Allocates nothing, logs nothing. */
enum samrt_status samrt_dwconv_cuda(const struct samrt_dwconv_desc *d, const void *x, const void *w,
                                    const void *bias, const void *residual, void *y, cudaStream_t stream);
/* The bn form: one launch for conv, rounding and BatchNorm(s); the desc must be supported
 * (samrt_dwconv_supported and samrt_dwconv_bn_shape_ok). */
enum samrt_status samrt_dwconv_bn_cuda(const struct samrt_dwconv_desc *d, const void *x, const void *w,
                                       const void *bias, const struct samrt_dwconv_bn_params *bn,
                                       const void *residual, void *y, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_DWCONV_H */
