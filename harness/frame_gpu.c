/* frame_gpu.c - the frame streamer's GPU path (frame_gpu.h): nvJPEG into a device ring planned
 * at open, with libjpeg-turbo plus one upload for the files nvJPEG does not take or finds
 * malformed, so a corrupt or truncated frame gets the message of the host path. */
#include "frame_gpu.h"

#include <stdlib.h>
#include <string.h>

#include "image_io.h"
#include "platform.h"
#include "stream.h"

#define SLOT_ALIGN 256

struct samrt_frame_gpu {
    struct samrt_jpeg_gpu *dec;
    samrt_stream *stream;       /* the decode stream */
    int width, height, n_slots;
    size_t frame_bytes, slot_bytes;
    uint8_t *ring;              /* device: n_slots * slot_bytes */
    uint8_t *host;              /* one host frame, for the CPU fallback */
    uint64_t device_bytes, pinned_bytes;
    int cpu_frames;
};

void samrt_frame_gpu_close(struct samrt_frame_gpu *g) {
    if (!g) return;
    if (g->stream) (void)samrt_stream_sync(g->stream);
    samrt_jpeg_gpu_destroy(g->dec);
    samrt_stream_destroy(g->stream);
    if (g->ring) samrt_platform_mem_free(SAMRT_MEM_DEVICE, g->ring);
    free(g->host);
    free(g);
}

enum samrt_status samrt_frame_gpu_open(int width, int height, int n_slots, enum samrt_jpeg_gpu_backend want,
                                       const uint8_t *first, size_t first_size, struct samrt_frame_gpu **out) {
    *out = NULL;
    struct samrt_jpeg_gpu *dec = NULL;
    enum samrt_status st = samrt_jpeg_gpu_create(width, height, want, &dec);
    if (st != SAMRT_OK) return st;  /* SAMRT_E_UNSUPPORTED: no nvJPEG here, the CPU decodes */
    struct samrt_frame_gpu *g = (struct samrt_frame_gpu *)calloc(1, sizeof *g);
    if (!g) {
        samrt_jpeg_gpu_destroy(dec);
        SAMRT_CHECK(0, SAMRT_E_HOST_MEMORY, "out of host memory");
    }
    g->dec = dec;
    g->width = width;
    g->height = height;
    g->n_slots = n_slots;
    g->frame_bytes = (size_t)width * (size_t)height * 3;
    g->slot_bytes = SAMRT_PAD(g->frame_bytes, SLOT_ALIGN);
    struct samrt_jpeg_gpu_mem m0, m1;
    samrt_jpeg_gpu_mem(&m0);
    st = samrt_stream_create(&g->stream);
    if (st == SAMRT_OK)
        st = samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, (uint64_t)g->slot_bytes * (uint64_t)n_slots, (void **)&g->ring);
    g->host = st == SAMRT_OK ? (uint8_t *)malloc(g->frame_bytes) : NULL;
    if (st == SAMRT_OK && !g->host) st = SAMRT_E_HOST_MEMORY;
    /* the warm-up: nvJPEG sizes its buffers on a real frame of the folder, now */
    if (st == SAMRT_OK && first) st = samrt_frame_gpu_decode(g, first, first_size, 0);
    g->cpu_frames = 0;
    samrt_jpeg_gpu_mem(&m1);
    samrt_jpeg_gpu_seal(g->dec);
    g->device_bytes = (uint64_t)g->slot_bytes * (uint64_t)n_slots + (m1.device_bytes - m0.device_bytes);
    g->pinned_bytes = m1.pinned_bytes - m0.pinned_bytes;
    if (st != SAMRT_OK) {
        samrt_frame_gpu_close(g);
        SAMRT_CHECK(0, st, "cannot set up nvJPEG decoding of %dx%d frames", width, height);
    }
    *out = g;
    return SAMRT_OK;
}

uint8_t *samrt_frame_gpu_slot(struct samrt_frame_gpu *g, int k) { return g->ring + (size_t)k * g->slot_bytes; }

enum samrt_status samrt_frame_gpu_decode(struct samrt_frame_gpu *g, const uint8_t *data, size_t size, int k) {
    uint8_t *dst = samrt_frame_gpu_slot(g, k);
    const size_t pitch = 3 * (size_t)g->width;
    enum samrt_status st = samrt_jpeg_gpu_decode(g->dec, data, size, dst, pitch, g->stream);
    if (st == SAMRT_E_UNSUPPORTED || st == SAMRT_E_FORMAT) {  /* the CPU decodes it (or says what is wrong) */
        struct samrt_image_info info;
        SAMRT_TRY(samrt_jpeg_info(data, size, &info));
        SAMRT_CHECK(info.width == g->width && info.height == g->height, SAMRT_E_FORMAT, "a %dx%d frame, %dx%d expected",
                    info.width, info.height, g->width, g->height);
        SAMRT_TRY(samrt_jpeg_decode(data, size, g->host, g->frame_bytes, &info));
        st = samrt_stream_copy(dst, g->host, g->frame_bytes, SAMRT_COPY_H2D, g->stream);
        g->cpu_frames++;
    }
    SAMRT_TRY(st);
    return samrt_stream_sync(g->stream);
}

const char *samrt_frame_gpu_name(const struct samrt_frame_gpu *g) {
    return samrt_jpeg_gpu_backend_name(samrt_jpeg_gpu_backend(g->dec));
}

void samrt_frame_gpu_bytes(const struct samrt_frame_gpu *g, uint64_t *device, uint64_t *pinned) {
    *device = g->device_bytes;
    *pinned = g->pinned_bytes;
}

int samrt_frame_gpu_cpu_frames(const struct samrt_frame_gpu *g) { return g->cpu_frames; }
