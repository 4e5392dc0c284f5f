/* track_rows.h - the tracker's row copies through an index table in device memory: for
 * i < n, row pairs[2i] of dst <- row pairs[2i+1] of src, every row row_bytes long.
 *
 * Why a kernel and not host-issued copies: which bank slots a frame reads (its selected
 * memories and pointers) and writes (the ring slot of the frame, conditioning slots) change
 * from frame to frame. As device copies issued from the host they would bake the slot
 * addresses into a captured CUDA graph; read from a table in a staging slot, which the host
 * uploads before launching the frame, they keep one graph valid for every frame with the same
 * counts (tracker_run.c). The count n is a launch parameter (part of the graph key); the
 * indices are data.
 *
 * Pairs outside [0, n_dst) / [0, n_src) are refused by the reference and skipped by the kernel
 * (which cannot report them; the tracker's host code writes only valid indices). row_bytes
 * must be a multiple of 16 and dst / src 16-byte aligned (arena slots are): the kernel moves
 * 16-byte words.
 * Tests: tests/test_sam2_track.c (reference, by hand), tests/test_sam2_track_graph_cuda.c
 * (kernel against reference). */
#ifndef SAMRT_SAM2_TRACK_ROWS_H
#define SAMRT_SAM2_TRACK_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_track_rows_args {
    void *dst;
    const void *src;
    size_t row_bytes;          /* multiple of 16 */
    int64_t n_dst, n_src;      /* rows of dst and src (bounds of the indices) */
    const int32_t *pairs;      /* (n, 2): destination row, source row; device memory for the kernel */
    int n;                     /* pairs to copy, 0 .. 65535 */
};

/* Argument checks shared by both versions (not the table's contents). */
enum samrt_status samrt_track_rows_check(const struct samrt_track_rows_args *a);
/* Plain C reference (memcpy per pair); SAMRT_E_INVALID_ARG on an index out of range. */
enum samrt_status samrt_track_rows_ref(const struct samrt_track_rows_args *a);
#ifdef SAMRT_HAVE_CUDA
/* The kernel on `stream`: allocates nothing, safe inside graph capture. */
enum samrt_status samrt_track_rows_cuda(const struct samrt_track_rows_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_ROWS_H */
