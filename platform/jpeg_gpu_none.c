/* jpeg_gpu_none.c - jpeg_gpu.h in builds without nvJPEG (CPU builds, or a CUDA build where
 * cmake/FindNVJPEG.cmake found none): there is no GPU decoder, and the frame streamer decodes
 * every JPEG with libjpeg-turbo on its threads. */
#include "jpeg_gpu.h"

#include <string.h>

const char *samrt_jpeg_gpu_backend_name(enum samrt_jpeg_gpu_backend b) {
    return b == SAMRT_JPEG_GPU_HARDWARE ? "nvJPEG hardware" : b == SAMRT_JPEG_GPU_HYBRID ? "nvJPEG GPU" : "none";
}

int samrt_jpeg_gpu_in_build(void) { return 0; }

enum samrt_jpeg_gpu_backend samrt_jpeg_gpu_probe(void) { return SAMRT_JPEG_GPU_NONE; }

enum samrt_status samrt_jpeg_gpu_create(int max_w, int max_h, enum samrt_jpeg_gpu_backend want,
                                        struct samrt_jpeg_gpu **out) {
    (void)max_w, (void)max_h, (void)want;
    if (out) *out = NULL;
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_jpeg_gpu_backend samrt_jpeg_gpu_backend(const struct samrt_jpeg_gpu *d) {
    (void)d;
    return SAMRT_JPEG_GPU_NONE;
}

enum samrt_status samrt_jpeg_gpu_decode(struct samrt_jpeg_gpu *d, const void *data, size_t size, uint8_t *dst,
                                        size_t pitch, samrt_stream *stream) {
    (void)d, (void)data, (void)size, (void)dst, (void)pitch, (void)stream;
    return SAMRT_E_UNSUPPORTED;
}

void samrt_jpeg_gpu_seal(struct samrt_jpeg_gpu *d) { (void)d; }

void samrt_jpeg_gpu_mem(struct samrt_jpeg_gpu_mem *out) {
    if (out) memset(out, 0, sizeof *out);
}

void samrt_jpeg_gpu_destroy(struct samrt_jpeg_gpu *d) { (void)d; }
