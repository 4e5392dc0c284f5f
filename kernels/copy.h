/* copy.h - strided copy with dtype conversion and an optional add:
 *     out[i0,i1,i2,i3] = convert(x[i0*s0 + i1*s1 + i2*s2 + i3*s3]) (+ add[i0,i1,i2,i3])
 * out and add are contiguous in the output dtype; x is any strided 4-D view (fewer dims:
 * leading extents of 1). It is the one data-movement op of the models: layout changes
 * (NCHW <-> NHWC, via a permuted view of x), dtype casts for parity dumps, and Hiera's
 * "permute the patch-embed output to tokens and add the position embedding" in one pass.
 * Conversion goes through fp32 (round to nearest even into f16/bf16). With an add, the
 * converted value is rounded to the output dtype first and the sum formed in fp32 and
 * rounded once, which is PyTorch's x.to(dtype) + add.
 *
 * Usage (device pointers; out must not overlap x):
 *   struct samrt_copy_args a = {.src_dtype = SAMRT_DTYPE_BF16, .dst_dtype = SAMRT_DTYPE_F32,
 *       .ne = {1, 256, 256, 96}, .s = {96 * 65536, 256, 1, 65536}, .x = nchw, .out = nhwc};
 *   SAMRT_TRY(samrt_copy_cuda(&a, stream));
 */
#ifndef SAMRT_KERNELS_COPY_H
#define SAMRT_KERNELS_COPY_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_copy_args {
    enum samrt_dtype src_dtype;  /* of x: f32, f16 or bf16 */
    enum samrt_dtype dst_dtype;  /* of out and add: f32, f16 or bf16 */
    int64_t ne[4];               /* output extents, outermost first, each >= 1 */
    int64_t s[4];                /* strides of x in elements for each output dim (may be 0) */
    const void *x;
    const void *add;             /* (ne) contiguous, or NULL */
    void *out;                   /* (ne) contiguous */
};

/* SAMRT_E_INVALID_ARG for NULL pointers, extents < 1, negative strides or more than 2^40
 * elements; SAMRT_E_UNSUPPORTED for other dtypes. */
enum samrt_status samrt_copy_check(const struct samrt_copy_args *a);
enum samrt_status samrt_copy_ref(const struct samrt_copy_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_copy_cuda(const struct samrt_copy_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_COPY_H */
