/* layernorm.h - LayerNorm over the last dim of (rows, C), optionally fused with the
 * residual add that precedes it in a transformer block, and SAM's LayerNorm2d over the
 * channels of NCHW at every pixel, optionally fused with a residual before it and an
 * activation after it. f32 / f16 / bf16 storage, fp32 statistics.
 *
 * Statistics are two-pass in fp32: mean = sum(x)/C, then var = sum((x - mean)^2)/C
 * (biased, as both nn.LayerNorm and LayerNorm2d use). Single-pass E[x^2] - E[x]^2
 * cancels catastrophically when |mean| >> std, which residual streams with a large offset
 * produce; Welford avoids that but serialises each thread's update chain. The second pass
 * costs no extra DRAM traffic because a row (or a pixel tile) is re-read while it is still
 * in L1/L2. The normalised value is (x - mean) * rsqrt(var + eps) * w + b.
 *
 * Fusions and their exact meaning (each equals the composition of the unfused ops):
 *   layernorm:   s = round_dtype(x + residual); sum_out = s; out = LN(s)
 *   layernorm2d: s = round_dtype(x + residual); out = act(LN2d(s))
 * Any output may alias any input of the same layout (in-place residual update:
 * sum_out == x; in-place norm: out == x).
 *
 * eps: 1e-6 for Hiera blocks and every LayerNorm2d, 1e-5 for nn.LayerNorm elsewhere
 * (model-spec section 7, item 21).
 *
 * Usage (device pointers):
 *   struct samrt_layernorm_args a = {.dtype = SAMRT_DTYPE_BF16, .n_rows = 4096, .n_cols = 256,
 *       .eps = 1e-5f, .x = x, .residual = attn_out, .weight = w, .bias = b,
 *       .out = t, .sum_out = x};               // x += attn_out; t = LN(x)
 *   SAMRT_TRY(samrt_layernorm_cuda(&a, stream));
 */
#ifndef SAMRT_KERNELS_LAYERNORM_H
#define SAMRT_KERNELS_LAYERNORM_H

#include <stdint.h>

#include "elementwise.h"
#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_layernorm_args {
    enum samrt_dtype dtype;  /* of every tensor here */
    int64_t n_rows;
    int32_t n_cols;          /* C, the normalised dim */
    float eps;
    const void *x;           /* (n_rows, C) */
    const void *residual;    /* (n_rows, C) or NULL */
    const void *weight;      /* (C) or NULL (= 1) */
    const void *bias;        /* (C) or NULL (= 0) */
    void *out;               /* (n_rows, C) */
    void *sum_out;           /* (n_rows, C) receives x + residual (x without one), or NULL */
};

struct samrt_layernorm2d_args {
    enum samrt_dtype dtype;  /* of every tensor here */
    int64_t n_batch;
    int32_t n_channels;      /* C, the normalised dim (stride n_pixels) */
    int64_t n_pixels;        /* H * W */
    float eps;
    enum samrt_act act;      /* applied after the affine; GELU in SAM's mask paths */
    const void *x;           /* (N, C, H, W) */
    const void *residual;    /* (N, C, H, W) or NULL */
    const void *weight;      /* (C) or NULL (= 1) */
    const void *bias;        /* (C) or NULL (= 0) */
    void *out;               /* (N, C, H, W) */
};

/* Shared argument checks: SAMRT_E_INVALID_ARG for NULL tensors, non-positive sizes or a
 * negative / non-finite eps; SAMRT_E_UNSUPPORTED for other dtypes. */
enum samrt_status samrt_layernorm_check(const struct samrt_layernorm_args *a);
enum samrt_status samrt_layernorm2d_check(const struct samrt_layernorm2d_args *a);

enum samrt_status samrt_layernorm_ref(const struct samrt_layernorm_args *a);
enum samrt_status samrt_layernorm2d_ref(const struct samrt_layernorm2d_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_layernorm_cuda(const struct samrt_layernorm_args *a, cudaStream_t stream);
enum samrt_status samrt_layernorm2d_cuda(const struct samrt_layernorm2d_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_LAYERNORM_H */
