/* ops_video.c - the bodies of ops_video.h: the CUDA launchers of kernels/nv12_rgb.h and
 * kernels/resize_normalize_nv12.h on the caller's stream in CUDA builds (SAMRT_E_UNSUPPORTED
 * in host builds), the C references for host memory. */
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

enum samrt_status samrt_op_resize_normalize_nv12(const struct samrt_resize_plan *plan, const void *tables,
                                                 const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                                 const uint8_t *uv, size_t uv_pitch, void *dst,
                                                 enum samrt_dtype dtype, samrt_stream *s) {
    (void)plan, (void)tables, (void)k, (void)y, (void)y_pitch, (void)uv, (void)uv_pitch, (void)dst, (void)dtype,
        (void)s;  /* host builds: no device */
    return OPS_PICK(SAMRT_BACKEND_CUDA,
                    samrt_resize_normalize_nv12_cuda(plan, tables, k, y, y_pitch, uv, uv_pitch, dst, dtype,
                                                     (cudaStream_t)s),
                    SAMRT_E_UNSUPPORTED);
}

enum samrt_status samrt_op_resize_normalize_nv12_host(const struct samrt_resize_plan *plan, const void *tables,
                                                      const struct samrt_yuv_coefs *k, const uint8_t *y,
                                                      size_t y_pitch, const uint8_t *uv, size_t uv_pitch, float *dst) {
    return samrt_resize_normalize_nv12_ref(plan, tables, k, y, y_pitch, uv, uv_pitch, samrt_sam_mean, samrt_sam_std,
                                           dst, SAMRT_DTYPE_F32);
}
