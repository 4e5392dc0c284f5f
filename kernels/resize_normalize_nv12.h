/* resize_normalize_nv12.h - frame preprocessing (resize_normalize.h) read straight from a
 * decoded NV12 frame (nv12_rgb.h's layout: pitched luma, interleaved chroma at half
 * resolution), so a frame the GPU decoded never exists as RGB8 in memory:
 *
 *   resize_normalize_nv12(frame) == resize_normalize(nv12_rgb(frame))   bit for bit
 *
 * Each input sample the resize reads is converted with nv12_rgb's per-pixel arithmetic
 * (samrt_yuv_pixel: swscale's tables, each 2x2 block sharing its chroma), then the same
 * Pillow-exact bicubic and normalisation run on it. The plan and tables are resize_normalize's
 * (samrt_resize_plan_init / _fill, for the frame's width and height).
 *
 *   samrt_resize_normalize_nv12_cuda(&plan, dev_tables, &k, y, y_pitch, uv, uv_pitch,
 *                                    dev_input, SAMRT_DTYPE_BF16, stream);   // one launch
 *
 * The CUDA kernel is resize_normalize.cu's with its band staging replaced: instead of copying
 * RGB8 rows it converts the band's NV12 pixels into the same shared-memory rows, so the
 * horizontal and vertical passes are shared and the kernel reads 1.5 bytes per frame pixel
 * instead of 3 (and the conversion's 3-byte write and read-back are gone).
 *
 * A packed NV12 frame (an engine's frame slot): luma rows of w bytes, then from the 16-byte
 * aligned offset samrt_nv12_packed_uv_offset the chroma rows of 2 * ceil(w / 2) bytes. */
#ifndef SAMRT_KERNELS_RESIZE_NORMALIZE_NV12_H
#define SAMRT_KERNELS_RESIZE_NORMALIZE_NV12_H

#include "nv12_rgb.h"
#include "resize_normalize.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline size_t samrt_nv12_packed_uv_pitch(int w) { return 2 * (size_t)((w + 1) / 2); }
static inline size_t samrt_nv12_packed_uv_offset(int w, int h) { return ((size_t)w * (size_t)h + 15) & ~(size_t)15; }
/* Bytes of a packed w x h NV12 frame. */
static inline size_t samrt_nv12_packed_bytes(int w, int h) {
    return samrt_nv12_packed_uv_offset(w, h) + samrt_nv12_packed_uv_pitch(w) * (size_t)((h + 1) / 2);
}

/* Checks the pointers and pitches of an NV12 frame of plan->in_w x plan->in_h (y_pitch >= w,
 * uv_pitch >= 2 * ceil(w / 2)): SAMRT_E_INVALID_ARG otherwise. */
enum samrt_status samrt_resize_normalize_nv12_check(const struct samrt_resize_plan *plan, const void *tables,
                                                    const struct samrt_yuv_coefs *k, const uint8_t *y,
                                                    size_t y_pitch, const uint8_t *uv, size_t uv_pitch,
                                                    const void *dst);
/* The C reference (host pointers): samrt_resize_normalize_sampled_ref with nv12_rgb's
 * per-pixel conversion as the sample. */
enum samrt_status samrt_resize_normalize_nv12_ref(const struct samrt_resize_plan *plan, const void *tables,
                                                  const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                                  const uint8_t *uv, size_t uv_pitch, const float mean[3],
                                                  const float std[3], void *dst, enum samrt_dtype dtype);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* tables, y, uv and dst are device pointers (any alignment of y and uv); dst contiguous
 * (3, out_h, out_w). One launch, no allocation; bit for bit the reference. */
enum samrt_status samrt_resize_normalize_nv12_cuda(const struct samrt_resize_plan *plan, const void *tables,
                                                   const struct samrt_yuv_coefs *k, const uint8_t *y,
                                                   size_t y_pitch, const uint8_t *uv, size_t uv_pitch, void *dst,
                                                   enum samrt_dtype dtype, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_RESIZE_NORMALIZE_NV12_H */
