/* se_gate.h - the excite of a squeeze-excite in one launch: from the channel sums of a map,
 * gate = sigmoid(fc2(relu(fc1(mean x)))) per image, as timm's SqueezeExcite computes it
 * (RepViT's SE blocks, models/edgetam/repvit.c), each stored tensor of the op chain it
 * replaces rounded to the dtype where that chain stores it (mean, fc1 output, fc2 output,
 * gate).
 *
 * Why its own kernel: the chain is channel mean (two launches with its split), two Linear
 * launches of one row each and a sigmoid pass: five launches of microseconds each for a few
 * thousand values. Here one block per image reads the f32 block sums that dwconv.h's mean form
 * wrote while producing the map (the map itself is not read again), finishes the mean, and
 * runs both small products from shared memory.
 *
 * The reference takes the mean from the map itself (pool.h's reference: a double sum), then
 * gemm.h's and elementwise.h's references, so on f32 data it is the chain's host path bit for
 * bit. The kernel's mean is the same sum reassociated (32-pixel f32 block sums, added in
 * order): the op table's tolerance says so.
 *
 * Layout: x (N, T, C); partial (N, rows, C) f32 with rows = T / 32 per image; fc1 w1 (R, C),
 * b1 (R); fc2 w2 (C, R), b2 (C); gate (N, C). All but partial in one dtype (f32, f16, bf16).
 *
 *   struct samrt_se_gate_args a = {SAMRT_DTYPE_F16, 1, 4096, 192, 48, t, part, 128,
 *                                  w1, b1, w2, b2, gate};
 *   SAMRT_TRY(samrt_se_gate_cuda(&a, stream));
 */
#ifndef SAMRT_KERNELS_SE_GATE_H
#define SAMRT_KERNELS_SE_GATE_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_SE_GATE_MAX_C 2048   /* channels (shared memory of the kernel, stack of the reference) */
#define SAMRT_SE_GATE_MAX_R 512    /* squeezed width */

struct samrt_se_gate_args {
    enum samrt_dtype dtype;   /* x, w1, b1, w2, b2, gate */
    int64_t n_batch, n_tokens;
    int32_t c, r;
    const void *x;            /* the reference's input: the map (n_batch, n_tokens, c) */
    const float *partial;     /* the kernel's input: (n_batch, n_rows, c) f32 token-block sums */
    int64_t n_rows;           /* partial rows per image */
    const void *w1, *b1, *w2, *b2;
    void *gate;               /* (n_batch, c) */
};

/* SAMRT_E_INVALID_ARG for NULL tensors (x for the reference, partial for the kernel: pass
 * the one the caller runs), sizes out of range; SAMRT_E_UNSUPPORTED for other dtypes. */
enum samrt_status samrt_se_gate_check(const struct samrt_se_gate_args *a, int kernel);
/* f32 data holding values of a->dtype (gemm.h's convention), every stored tensor rounded. */
enum samrt_status samrt_se_gate_ref(const struct samrt_se_gate_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* One launch on stream (one block per image); allocates nothing, logs nothing. */
enum samrt_status samrt_se_gate_cuda(const struct samrt_se_gate_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_SE_GATE_H */
