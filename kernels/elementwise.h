/* elementwise.h - pointwise ops over f32 / f16 / bf16 tensors, math in fp32:
 *   samrt_unary:          out = alpha * act(x) + beta   (GELU exact erf, ReLU, sigmoid, none)
 *   samrt_add_scaled:     out = a * x + b * y           (add is a = b = 1, exactly x + y)
 *   samrt_channel_affine: out = act(x * scale[c] + bias[c]) + residual (scale, bias: dtype or f32)
 *                         (layer scale gamma, per-channel embeddings such as no_mem_embed)
 *
 * The multiply and the add are rounded separately (no FMA contraction), in the order the
 * PyTorch expressions evaluate them, so that f32 runs match chains such as
 * `sigmoid(m) * 20 - 10` or `x + 0.1 * pos` exactly. All tensors are contiguous and share
 * one dtype; out may alias any input (same layout). Element counts must fit in 31 bits
 * (the largest tensor in these models has ~7.4M elements), which keeps index math 32-bit.
 *
 * Usage (device pointers, any stream, safe in CUDA graph capture):
 *   struct samrt_unary_args a = {SAMRT_DTYPE_BF16, SAMRT_ACT_GELU, n, 1.0f, 0.0f, x, y};
 *   SAMRT_TRY(samrt_unary_cuda(&a, stream));
 * The _ref functions take host pointers with the same layout and dtype storage
 * (f16/bf16 as uint16_t bit patterns).
 */
#ifndef SAMRT_KERNELS_ELEMENTWISE_H
#define SAMRT_KERNELS_ELEMENTWISE_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

enum samrt_act {
    SAMRT_ACT_NONE = 0,
    SAMRT_ACT_GELU,     /* 0.5 x (1 + erf(x / sqrt 2)), nn.GELU(approximate='none') */
    SAMRT_ACT_RELU,
    SAMRT_ACT_SIGMOID,  /* 1 / (1 + exp(-x)) */
    SAMRT_ACT_COUNT
};

struct samrt_unary_args {
    enum samrt_dtype dtype;  /* of x and out */
    enum samrt_act act;
    int64_t n;               /* elements, 0 <= n < 2^31 */
    float alpha, beta;       /* out = alpha * act(x) + beta; 1 and 0 for the plain activation */
    const void *x;           /* (n) */
    void *out;               /* (n), may be x */
};

struct samrt_add_scaled_args {
    enum samrt_dtype dtype;  /* of x, y and out */
    int64_t n;
    float a, b;              /* out = a * x + b * y */
    const void *x;           /* (n) */
    const void *y;           /* (n) */
    void *out;               /* (n), may be x or y */
};

/* Channel c of element i is (i / inner) % n_channels: inner = 1 for channels-last
 * (tokens, C), inner = H*W for NCHW. */
struct samrt_channel_affine_args {
    enum samrt_dtype dtype;  /* of every tensor here */
    int64_t n;               /* elements, a multiple of n_channels * inner */
    int32_t n_channels;
    int64_t inner;
    const void *x;           /* (n) */
    const void *scale;       /* (n_channels) or NULL (= 1) */
    const void *bias;        /* (n_channels) or NULL (= 0) */
    const void *residual;    /* (n) or NULL (= 0); added last: r + act(x*s + b) */
    void *out;               /* (n), may be x or residual */
    int params_f32;          /* 1: scale and bias are f32 whatever dtype is (BatchNorm applied
                                after a 16-bit conv, as autocast does: repvit.c) */
    enum samrt_act act;      /* applied to x*s + b, before the residual (default none) */
};

/* Argument checks shared by both paths: SAMRT_E_INVALID_ARG for NULL tensors, negative or
 * too large counts, SAMRT_E_UNSUPPORTED for a dtype other than f32/f16/bf16. */
enum samrt_status samrt_unary_check(const struct samrt_unary_args *a);
enum samrt_status samrt_add_scaled_check(const struct samrt_add_scaled_args *a);
enum samrt_status samrt_channel_affine_check(const struct samrt_channel_affine_args *a);

/* Reference activation of one fp32 value (evaluated in double, rounded once). Used by the
 * other references that fuse an activation (layernorm2d). */
float samrt_act_ref(enum samrt_act act, float x);

enum samrt_status samrt_unary_ref(const struct samrt_unary_args *a);
enum samrt_status samrt_add_scaled_ref(const struct samrt_add_scaled_args *a);
enum samrt_status samrt_channel_affine_ref(const struct samrt_channel_affine_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_unary_cuda(const struct samrt_unary_args *a, cudaStream_t stream);
enum samrt_status samrt_add_scaled_cuda(const struct samrt_add_scaled_args *a, cudaStream_t stream);
enum samrt_status samrt_channel_affine_cuda(const struct samrt_channel_affine_args *a,
                                            cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_ELEMENTWISE_H */
