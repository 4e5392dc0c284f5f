/* ops_video.c - the bodies of ops_video.h: the CUDA launcher of kernels/nv12_rgb.h on the
 * caller's stream in CUDA builds (SAMRT_E_UNSUPPORTED in host builds), the C reference for
 * host memory. */
#include "ops_video.h"

#include "ops_impl.h"
#include "samrt_impl.h"

enum samrt_status samrt_op_nv12_rgb(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                    const uint8_t *uv, size_t uv_pitch, int w, int h, uint8_t *rgb, size_t rgb_pitch,
                                    samrt_stream *s) {
    (void)k, (void)y, (void)y_pitch, (void)uv, (void)uv_pitch, (void)w, (void)h, (void)rgb, (void)rgb_pitch, (void)s;
    return OPS_PICK(SAMRT_BACKEND_CUDA,
                    samrt_nv12_rgb_cuda(k, y, y_pitch, uv, uv_pitch, w, h, rgb, rgb_pitch, (cudaStream_t)s),
                    SAMRT_E_UNSUPPORTED);
}

enum samrt_status samrt_op_nv12_rgb_host(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                         const uint8_t *uv, size_t uv_pitch, int w, int h, uint8_t *rgb,
                                         size_t rgb_pitch) {
    return samrt_nv12_rgb_ref(k, y, y_pitch, uv, uv_pitch, w, h, rgb, rgb_pitch);
}
