/* ops_video.h - the op layer's entry for the video reader (harness/video_read.c): a decoded
 * frame's NV12 surface (NVDEC, device memory) into RGB8, with swscale's arithmetic
 * (kernels/nv12_rgb.h), so the harness names no backend. The device entry only enqueues on
 * its stream (graph-capture safe) and allocates nothing; host builds return
 * SAMRT_E_UNSUPPORTED. The _host entry is the C reference whatever the build. */
#ifndef SAMRT_OPS_VIDEO_H
#define SAMRT_OPS_VIDEO_H

#include "nv12_rgb.h"
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

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_OPS_VIDEO_H */
