/* fill_holes.h - the video predictor's hole filling (fill_hole_area, model-spec 4.7): in each
 * (h, w) map of mask logits, every 8-connected component of the background (logit <= 0) with
 * at most max_area pixels becomes foreground with the logit SAMRT_FILL_HOLES_VALUE (0.1).
 * Components touching the border count like any other (the official labelling does not
 * exclude them); NaN is not background. Other pixels are copied unchanged.
 *
 * Design: both implementations label into a caller workspace of two int32 planes per map
 * (samrt_fill_holes_ws_bytes), so nothing is allocated per call and the CUDA launcher is a
 * fixed sequence of 4 kernels, safe inside a CUDA graph capture:
 *   init (label = own index or -1, area = 0) -> merge (atomic union-find over the 4 earlier
 *   8-neighbours; roots are always the component's smallest index) -> count (compress every
 *   pixel to its root, atomic area per root) -> fill (area <= max_area -> 0.1).
 * The reference is an independent breadth-first flood fill (the second plane is its queue).
 * The CUDA result equals the reference bit for bit.
 *
 * Usage (device pointers; out may equal x):
 *   struct samrt_fill_holes_args a = {n_obj, 256, 256, 8, low_res, low_res, ws};
 *   SAMRT_TRY(samrt_fill_holes_cuda(&a, stream));
 * Tests: tests/test_fill_holes.c (hand masks), tests/test_fill_holes_cuda.c (vs the reference).
 */
#ifndef SAMRT_KERNELS_FILL_HOLES_H
#define SAMRT_KERNELS_FILL_HOLES_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_FILL_HOLES_VALUE 0.1f  /* the logit a filled hole gets (fill_holes_in_mask_scores) */

struct samrt_fill_holes_args {
    int32_t n_batch;     /* maps */
    int32_t h, w;        /* map size */
    int32_t max_area;    /* fill_hole_area, > 0: components of at most this many pixels are holes */
    const float *x;      /* (n_batch, h, w) f32 logits */
    float *out;          /* (n_batch, h, w) f32; may be x (in place) */
    int32_t *ws;         /* samrt_fill_holes_ws_bytes(n_batch, h, w) bytes, not overlapping x / out */
};

/* Workspace bytes: two int32 planes of n_batch * h * w. */
static inline size_t samrt_fill_holes_ws_bytes(int64_t n_batch, int64_t h, int64_t w) {
    return (size_t)(2 * n_batch * h * w) * sizeof(int32_t);
}

/* SAMRT_E_INVALID_ARG for NULL pointers, non-positive sizes or max_area, or more than
 * INT32_MAX pixels in all. */
enum samrt_status samrt_fill_holes_check(const struct samrt_fill_holes_args *a);
enum samrt_status samrt_fill_holes_ref(const struct samrt_fill_holes_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_fill_holes_cuda(const struct samrt_fill_holes_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_FILL_HOLES_H */
