/* epilogue.h - the pointwise tail shared by the GEMM and convolution ops:
 *     y = act(y + bias + residual)
 * with act = none, exact-erf GELU or ReLU, bias and residual optional. The order (bias and
 * residual before the activation) is the one cuBLASLt's epilogues use, so a GEMM can do the
 * bias and residual inside cuBLASLt and only the activation here.
 *
 * Why a separate pass exists at all: cuBLASLt's GELU epilogues are the tanh approximation
 * (up to 4.7e-4 away from the erf form, at x = -2.7), while every GELU in these models is
 * nn.GELU's exact erf form (model-spec conventions and §7); cuDNN's legacy fused
 * conv+bias+activation has no GELU, and its identity activation works with one algorithm only.
 * The pass costs one read and one write of the output.
 *
 * Shape: n_batch x n_rows x n_cols elements; columns are contiguous, rows s_row apart,
 * batches s_batch apart (elements). The bias is indexed by column (a Linear, or an NHWC
 * conv: bias[c] per channel) or by row within the batch (an NCHW conv: rows are channels).
 * The residual has y's layout. Everything (y, bias, residual) has one dtype.
 *
 *   struct samrt_epilogue_shape sh = {.n_batch = 1, .n_rows = m, .n_cols = n, .s_row = n};
 *   samrt_epilogue_cuda(SAMRT_DTYPE_BF16, SAMRT_EPILOGUE_ACT_GELU, &sh, NULL, NULL, y, stream);
 */
#ifndef SAMRT_KERNELS_EPILOGUE_H
#define SAMRT_KERNELS_EPILOGUE_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What follows a matmul or a convolution. */
enum samrt_epilogue {
    SAMRT_EPILOGUE_NONE = 0,   /* y = acc */
    SAMRT_EPILOGUE_BIAS,       /* y = acc + b */
    SAMRT_EPILOGUE_BIAS_GELU,  /* y = gelu_erf(acc + b) */
    SAMRT_EPILOGUE_BIAS_RELU,  /* y = max(acc + b, 0) */
    SAMRT_EPILOGUE_COUNT
};
const char *samrt_epilogue_name(enum samrt_epilogue ep);   /* "none", "bias", ... */

enum samrt_epilogue_act { SAMRT_EPILOGUE_ACT_NONE = 0, SAMRT_EPILOGUE_ACT_GELU, SAMRT_EPILOGUE_ACT_RELU };

static inline enum samrt_epilogue_act samrt_epilogue_act(enum samrt_epilogue ep) {
    return ep == SAMRT_EPILOGUE_BIAS_GELU ? SAMRT_EPILOGUE_ACT_GELU
         : ep == SAMRT_EPILOGUE_BIAS_RELU ? SAMRT_EPILOGUE_ACT_RELU : SAMRT_EPILOGUE_ACT_NONE;
}
static inline int samrt_epilogue_has_bias(enum samrt_epilogue ep) {
    return ep != SAMRT_EPILOGUE_NONE;
}

struct samrt_epilogue_shape {
    int64_t n_batch, n_rows, n_cols;  /* elements touched: n_batch * n_rows * n_cols */
    int64_t s_batch, s_row;           /* strides in elements; columns are contiguous */
    int bias_per_row;                 /* 0: bias[col] (n_cols long); 1: bias[row] (n_rows long) */
};

/* Checks the shape: positive extents, strides that keep rows and batches apart, at most
 * 65535 batches (one grid row each) and an element span that fits 32-bit indexing. */
enum samrt_status samrt_epilogue_shape_check(const struct samrt_epilogue_shape *sh);

/* Plain C reference on f32 data. bias / residual may be NULL. In place on y. */
void samrt_epilogue_ref(enum samrt_epilogue_act act, const struct samrt_epilogue_shape *sh,
                        const float *bias, const float *residual, float *y);

/* Exact erf GELU, as nn.GELU(approximate='none'): x/2 * (1 + erf(x/sqrt(2))). */
float samrt_epilogue_gelu_ref(float x);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* y = act(y + bias + residual) on the GPU for dtype f32, f16 or bf16; math in f32.
 * Allocates nothing, logs nothing; the shape must have passed samrt_epilogue_shape_check. */
enum samrt_status samrt_epilogue_cuda(enum samrt_dtype dtype, enum samrt_epilogue_act act,
                                      const struct samrt_epilogue_shape *sh, const void *bias,
                                      const void *residual, void *y, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_EPILOGUE_H */
