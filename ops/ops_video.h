/* ops_video.h - the op layer's entries for a decoded video frame: its NV12 surface (NVDEC,
 * device memory) into RGB8 with swscale's arithmetic (kernels/nv12_rgb.h), for the video
 * reader (harness/video_read.c), and the model input straight from NV12 (the conversion fused
 * into the resize, kernels/resize_normalize_nv12.h), for an engine's NV12 frames; so neither
 * caller names a backend. The device entries only enqueue on their stream (graph-capture safe)
 * and allocate nothing; host builds return SAMRT_E_UNSUPPORTED. The _host entries are the C
 * references whatever the build. */
#ifndef SAMRT_OPS_VIDEO_H
#define SAMRT_OPS_VIDEO_H

#include "nv12_rgb.h"
#include "resize_normalize_nv12.h"
#include "stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y / uv / rgb device pointers; rgb rows of rgb_pitch bytes. */
enum samrt_status samrt_op_nv12_rgb(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                    const uint8_t *uv, size_t uv_pitch, int w, int h, uint8_t *rgb, size_t rgb_pitch,
                                    samrt_stream *s);
/* The same over host memory (the C reference). */
enum samrt_status samrt_op_nv12_rgb_host(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                         const uint8_t *uv, size_t uv_pitch, int w, int h, uint8_t *rgb,
                                         size_t rgb_pitch);

/* resize_normalize_nv12.h on the device (tables, y, uv, dst device pointers), SAM's
 * mean / std, into dtype. */
enum samrt_status samrt_op_resize_normalize_nv12(const struct samrt_resize_plan *plan, const void *tables,
                                                 const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                                 const uint8_t *uv, size_t uv_pitch, void *dst,
                                                 enum samrt_dtype dtype, samrt_stream *s);
/* The same over host memory (the C reference), f32 out. */
enum samrt_status samrt_op_resize_normalize_nv12_host(const struct samrt_resize_plan *plan, const void *tables,
                                                      const struct samrt_yuv_coefs *k, const uint8_t *y,
                                                      size_t y_pitch, const uint8_t *uv, size_t uv_pitch, float *dst);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_OPS_VIDEO_H */
