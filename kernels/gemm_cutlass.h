/* gemm_cutlass.h - the Linear with bias + exact-erf GELU in the GEMM's own epilogue:
 *     Y (m,n) = gelu_erf(alpha * X (m,k) W(n,k)^T + b)
 * one CUTLASS 2.x kernel (tensor-op mma.sync, arch Sm80: runs on sm_80, sm_86, sm_87 and
 * sm_90) instead of cuBLASLt's bias epilogue followed by the GELU pass of epilogue.h, which
 * re-reads and re-writes Y. f16 and bf16 inputs, f32 accumulation, output in the input dtype.
 * The bias is the epilogue's source operand C read with row stride 0, so every row adds the
 * same n values; the activation is CUTLASS's GELU functor, x/2 (1 + erf(x/sqrt 2)) in f32
 * (cutlass/epilogue/thread/activation.h), applied to the f32 sum and rounded once.
 *
 * Two tile shapes per dtype, chosen at plan time: 128x128x32 (4 stages, 64 KiB of shared
 * memory) when the product has at least twice as many such tiles as the device has SMs, else
 * 64x64x32 (4 stages, 32 KiB), which spreads a smaller product over more blocks.
 * Which descs qualify is samrt_gemm_fuses_gelu (gemm.h); gemm.c plans and runs these
 * through samrt_gemm_plan_init / samrt_gemm_cuda. Built only when CMake finds the CUTLASS
 * headers (cmake/FindCUTLASS.cmake defines SAMRT_HAVE_CUTLASS). Its CPU reference is the
 * GEMM's own, samrt_gemm_ref (gemm_ref.c: GELU of the f32 sum, rounded once); the op table's
 * gemm rows (tests/ops_table_linalg.c) compare the two. */
#ifndef SAMRT_KERNELS_GEMM_CUTLASS_H
#define SAMRT_KERNELS_GEMM_CUTLASS_H

#include "gemm.h"

#if defined(SAMRT_HAVE_CUDA) && defined(SAMRT_HAVE_CUTLASS)

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel for d on a device with sm_count SMs of compute capability cc_major.x, made ready
 * to launch (its shared-memory limit raised: setup only, never in a capture). Returns the
 * kernel's id (> 0), or 0 when d is not one the fused kernel takes (the caller keeps cuBLASLt
 * and the pass). */
int samrt_gemm_cutlass_plan(const struct samrt_gemm_desc *d, int cc_major, int sm_count);

/* Runs kernel `id` of samrt_gemm_cutlass_plan on stream: no allocation, no workspace, no
 * logging, safe inside CUDA graph capture. Pointers are 16-byte aligned (the caller checked). */
enum samrt_status samrt_gemm_cutlass_run(int id, const struct samrt_gemm_desc *d, const void *x, const void *w,
                                         const void *bias, void *y, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HAVE_CUDA && SAMRT_HAVE_CUTLASS */
#endif /* SAMRT_KERNELS_GEMM_CUTLASS_H */
