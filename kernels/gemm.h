/* gemm.h - the Linear layer as one cuBLASLt matmul (or one CUTLASS kernel) with a fused epilogue:
 *     Y (m,n) = act(alpha * X (m,k) W(n,k)^T + b + R)
 * W in PyTorch's Linear layout ((out,in), row-major), X and Y row-major with row strides,
 * optionally a strided batch (multi-head layouts; sb_w = 0 shares one weight).
 *
 * Setup and run are split. samrt_gemm_plan_init (at engine init) builds the cuBLASLt
 * descriptors and picks the algorithm with cublasLtMatmulAlgoGetHeuristic restricted to the
 * workspace cap (the size of the arena's workspace slot, the platform profile's
 * cublaslt_ws_bytes). samrt_gemm_cuda (hot path) allocates nothing, logs nothing and is safe
 * inside CUDA graph capture: scalars are passed by host pointer, which capture records by
 * value.
 *
 * Precision. f16/bf16 inputs always accumulate in f32 (CUBLAS_COMPUTE_32F); the output is the
 * input dtype or f32. f32 inputs are the strict parity path: CUBLAS_COMPUTE_32F (never
 * _FAST_TF32), the heuristic is told to exclude TF32 and 16-bit-input implementations
 * (CUBLASLT_MATMUL_PREF_IMPL_MASK), and the chosen algorithm's numerical-implementation flags
 * are checked again after the choice; tests/test_tf32_guard_cuda.c proves it numerically.
 *
 * Epilogues: bias and ReLU run inside cuBLASLt. cuBLASLt's GELU epilogue is the tanh
 * approximation, so SAMRT_EPILOGUE_BIAS_GELU takes one of two paths:
 *  - fused (samrt_gemm_fuses_gelu: f16 / bf16 in and out, one product, no residual, k, n and
 *    the row strides multiples of 8, 16-byte alignment; built with CUTLASS; a device of
 *    compute capability 8.0 or later): one CUTLASS kernel with bias + exact erf GELU in its
 *    epilogue (gemm_cutlass.h). GELU reads the f32 sum alpha*acc + b, Y is rounded once.
 *  - unfused (everything else, and f32, the strict parity path): cuBLASLt's bias epilogue,
 *    then the exact erf GELU pass of epilogue.h (one extra read+write of Y). A half Y is
 *    rounded twice: the sum to Y's dtype, then GELU of that rounded value (the double
 *    rounding PyTorch autocast does: Linear rounds to bf16, GELU reads bf16).
 * The two paths differ by at most about one rounding of Y's dtype (2^-11 relative for f16,
 * 2^-8 for bf16, plus GELU's slope times the first rounding); the reference samrt_gemm_ref
 * computes the fused form (f32 throughout, the caller rounds once on store), and the op
 * table's gemm tolerance covers both. If cuBLASLt offers no algorithm for a fused bias on
 * some dtype combination, the plan falls back to a plain matmul plus the same pass for bias
 * and activation.
 * The bias and the residual R have Y's dtype; R has Y's layout and may be Y itself.
 *
 *   struct samrt_gemm_desc d = samrt_gemm_desc_make(65536, 384, 96, SAMRT_DTYPE_BF16,
 *                                                   SAMRT_DTYPE_BF16, SAMRT_EPILOGUE_BIAS_GELU);
 *   struct samrt_gemm_plan p;
 *   SAMRT_TRY(samrt_gemm_plan_init(&ctx, &d, ws_cap, &p));              // init
 *   SAMRT_TRY(samrt_gemm_cuda(&p, x, w, b, NULL, y, ws, ws_cap, stream)); // every frame
 *   samrt_gemm_plan_free(&p);
 */
#ifndef SAMRT_KERNELS_GEMM_H
#define SAMRT_KERNELS_GEMM_H

#include "epilogue.h"
#include "gpu_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_gemm_desc {
    int64_t m, n, k;            /* Y (m,n) = X (m,k) W(n,k)^T */
    int64_t s_x, s_w, s_y;      /* row strides in elements (>= k, k, n); R shares s_y */
    int64_t n_batch;            /* >= 1 independent products */
    int64_t sb_x, sb_w, sb_y;   /* batch strides in elements (sb_w = 0: one shared weight) */
    int64_t sb_b;               /* bias batch stride in elements (0: one shared bias) */
    float alpha;                /* scales X W^T before bias and residual; 1 by default */
    enum samrt_epilogue epilogue;
    int residual;               /* 1: R is added before the activation (beta = 1) */
    enum samrt_dtype dt_in;     /* X and W: f32, f16 or bf16 */
    enum samrt_dtype dt_out;    /* Y, R and bias: dt_in or f32 */
    unsigned align_bytes;       /* every pointer given to samrt_gemm_cuda is aligned so (16) */
    int allow_tf32;             /* TEST ONLY: run f32 through TF32 (proves the guard can fail) */
    int force_library;          /* BENCH/TEST: cuBLASLt (+ the GELU pass) even where the fused
                                   kernel applies (samrt_gemm_fuses_gelu) */
};

/* A packed, unbatched desc with alpha 1, no residual and 16-byte alignment. */
struct samrt_gemm_desc samrt_gemm_desc_make(int64_t m, int64_t n, int64_t k, enum samrt_dtype dt_in,
                                            enum samrt_dtype dt_out, enum samrt_epilogue ep);
/* Validates extents, strides, dtypes and alignment; logs what is wrong. */
enum samrt_status samrt_gemm_desc_check(const struct samrt_gemm_desc *d);
/* 1 when a plan of d runs bias + exact GELU inside the GEMM kernel (one launch, Y written
 * once) on a device of compute capability >= 8.0: d is BIAS_GELU with f16 / bf16 inputs and
 * output, one product, no residual, k, n and the row strides multiples of 8, align_bytes >= 16,
 * force_library unset, and the build has CUTLASS. Pure arithmetic, so a plan without a GPU
 * (samrt budget) counts what a GPU plan launches. */
int samrt_gemm_fuses_gelu(const struct samrt_gemm_desc *d);
/* 2*m*n*k*n_batch. */
double samrt_gemm_flops(const struct samrt_gemm_desc *d);

/* Reference on f32 data (f32 accumulation); bias / residual NULL when the desc has none. */
void samrt_gemm_ref(const struct samrt_gemm_desc *d, const float *x, const float *w,
                    const float *bias, const float *residual, float *y);

#ifdef SAMRT_HAVE_CUDA
struct samrt_gemm_plan {
    struct samrt_gemm_desc d;
    cublasLtHandle_t lt;                  /* borrowed from the gpu ctx */
    cublasLtMatmulDesc_t op;              /* owned */
    cublasLtMatrixLayout_t l_w, l_x, l_y; /* owned; R uses l_y */
    cublasLtMatmulAlgo_t algo;
    size_t ws_bytes;                      /* workspace the chosen algorithm needs (<= cap) */
    int lt_bias;                          /* cuBLASLt adds the bias */
    enum samrt_epilogue_act pass_act;              /* activation of the pass after cuBLASLt */
    int pass_bias;                        /* the pass adds the bias (fallback) */
    struct samrt_epilogue_shape pass_shape;
    uint64_t impl_flags;                  /* cuBLASLt numerical-implementation flags of algo */
    int fused;                            /* > 0: the CUTLASS kernel of gemm_cutlass.h with
                                             bias + GELU in its epilogue (no cuBLASLt call, no
                                             pass, no workspace); its id */
    int n_kernels;                        /* kernels one samrt_gemm_cuda call launches, the
                                             pass included (counted by capture at plan time) */
};

/* Builds the descriptors and chooses the algorithm (workspace <= ws_cap), or picks the fused
 * kernel where samrt_gemm_fuses_gelu(d) and the device allow. Fails with
 * SAMRT_E_UNSUPPORTED when cuBLASLt has no algorithm, or none free of TF32 on the strict f32
 * path. On failure nothing stays allocated. */
enum samrt_status samrt_gemm_plan_init(const struct samrt_gpu_ctx *ctx, const struct samrt_gemm_desc *d,
                                       size_t ws_cap, struct samrt_gemm_plan *out);
void samrt_gemm_plan_free(struct samrt_gemm_plan *p);

/* Runs the plan on `stream`. bias / residual are ignored when the desc has none. workspace
 * holds ws_bytes >= plan->ws_bytes. Misaligned pointers or a short workspace give
 * SAMRT_E_INVALID_ARG; a cuBLASLt failure SAMRT_E_CUDA. */
enum samrt_status samrt_gemm_cuda(const struct samrt_gemm_plan *p, const void *x, const void *w,
                                  const void *bias, const void *residual, void *y, void *workspace,
                                  size_t ws_bytes, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_GEMM_H */
