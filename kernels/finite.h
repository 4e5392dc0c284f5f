/* finite.h - the non-finite check of a frame's outputs: for up to SAMRT_FINITE_MAX_SEGS
 * tensors, bit i of flags[0] is set when tensor i holds a NaN or an infinity.
 *
 * Why: fp16 storage overflows at 65504. A checkpoint or an input whose activations pass that
 * bound turns the image embedding, the logits and the stored memories into infinities and
 * NaNs, which would then be returned as empty masks and kept in the memory bank. The tracker
 * checks the frame's image embedding, low-res logits, memories and object pointers with this
 * op inside the frame's graph and downloads the one word beside the scores, so a push can
 * fail with SAMRT_E_NUMERIC instead of returning garbage (runtime/tracker_run.c).
 *
 * The kernel runs SAMRT_FINITE_BLOCKS blocks, each ORs the bits of its share of the elements
 * into its own partial word flags[1 + block]; a second one-block launch ORs the partials into
 * flags[0]. So nothing needs zeroing before the launch (no memset node in a captured graph)
 * and the result does not depend on timing. `flags` holds SAMRT_FINITE_FLAG_WORDS int32.
 * f32, f16 and bf16 tensors; the test is on the exponent bits (all ones = Inf or NaN), so no
 * fast-math setting can optimise it away.
 * Tests: tests/test_finite.c (reference by hand, CUDA against reference). */
#ifndef SAMRT_FINITE_H
#define SAMRT_FINITE_H

#include <stdint.h>

#include "samrt.h"

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_FINITE_MAX_SEGS 8
#define SAMRT_FINITE_BLOCKS 128
#define SAMRT_FINITE_FLAG_WORDS (1 + SAMRT_FINITE_BLOCKS)

struct samrt_finite_seg {
    const void *data;          /* contiguous; NULL only with n == 0 */
    int64_t n;                 /* elements */
    enum samrt_dtype dtype;    /* F32, F16 or BF16 */
};

struct samrt_finite_args {
    int n_seg;                 /* 1 .. SAMRT_FINITE_MAX_SEGS */
    struct samrt_finite_seg seg[SAMRT_FINITE_MAX_SEGS];
    int32_t *flags;            /* SAMRT_FINITE_FLAG_WORDS words; flags[0] gets the result */
};

/* Argument checks shared by both versions. */
enum samrt_status samrt_finite_check(const struct samrt_finite_args *a);
/* 1 when the value of `dtype` at p is NaN or infinite (reads its bits). */
int samrt_finite_is_bad(enum samrt_dtype dtype, const void *p);
/* Plain C reference: flags[0] = the bits, the partial words are left alone. */
enum samrt_status samrt_finite_ref(const struct samrt_finite_args *a);
#ifdef SAMRT_HAVE_CUDA
/* Two launches on `stream`: allocates nothing, safe inside graph capture. */
enum samrt_status samrt_finite_cuda(const struct samrt_finite_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_FINITE_H */
