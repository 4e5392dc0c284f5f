/* jpeg_gpu.h - JPEG decoding on the GPU with nvJPEG, straight into device memory: the frame
 * streamer's decoder for JPEG folders (harness/frame_stream.c) where the build has nvJPEG
 * (cmake/FindNVJPEG.cmake, SAMRT_HAVE_NVJPEG) and the machine a GPU. jpeg_nvjpeg.c implements
 * it; jpeg_gpu_none.c answers "none" in every other build, so callers carry no #ifdef.
 *
 * Two backends: the hardware JPEG engine (NVJPEG_BACKEND_HARDWARE: A100, H100, Orin) where the
 * GPU has one, else the GPU hybrid backend (NVJPEG_BACKEND_GPU_HYBRID: Huffman decoding on the
 * GPU where it can, on the calling thread otherwise). Output is interleaved RGB8 (the layout
 * the resize-normalize kernel reads in place), any row pitch.
 *
 *   struct samrt_jpeg_gpu *d;
 *   SAMRT_TRY(samrt_jpeg_gpu_create(1920, 1080, SAMRT_JPEG_GPU_ANY, &d));     // setup
 *   SAMRT_TRY(samrt_jpeg_gpu_decode(d, jpeg, size, dev_rgb, 3 * w, stream)); // warm-up: sizes
 *   samrt_jpeg_gpu_seal(d);                                                 // nvJPEG's buffers
 *   per frame: st = samrt_jpeg_gpu_decode(...);  SAMRT_E_UNSUPPORTED -> decode on the CPU
 *   samrt_jpeg_gpu_destroy(d);
 *
 * Memory: every device and pinned buffer nvJPEG asks for goes through this file's allocators
 * (nvjpegCreateEx), which count calls and bytes. Setup makes nvJPEG size its buffers for the
 * largest frame (the hardware backend's nvjpegDecodeBatchedPreAllocate at 4:4:4, the hybrid
 * backend's device and pinned buffers attached to its state) and a warm-up decode of a real
 * frame; samrt_jpeg_gpu_seal marks the end of setup, and samrt_jpeg_gpu_mem reports the calls
 * made after it (zero in the steady state: nvJPEG reallocates only when a frame needs more).
 * What cannot be bounded from here: the hardware engine's internal queues, created by the
 * driver inside nvjpegCreateEx (setup), and the host heap nvJPEG uses for parsing.
 *
 * Not thread-safe: one decoder per thread. */
#ifndef SAMRT_PLATFORM_JPEG_GPU_H
#define SAMRT_PLATFORM_JPEG_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "samrt_impl.h"
#include "stream.h"

#ifdef __cplusplus
extern "C" {
#endif

enum samrt_jpeg_gpu_backend {
    SAMRT_JPEG_GPU_NONE = 0,   /* no nvJPEG in this build, or no GPU */
    SAMRT_JPEG_GPU_HARDWARE,   /* the GPU's JPEG engine */
    SAMRT_JPEG_GPU_HYBRID,     /* CUDA kernels (NVJPEG_BACKEND_GPU_HYBRID) */
    SAMRT_JPEG_GPU_ANY = 100   /* create: the best the machine has */
};

struct samrt_jpeg_gpu;

/* "nvJPEG hardware", "nvJPEG GPU" or "none". */
const char *samrt_jpeg_gpu_backend_name(enum samrt_jpeg_gpu_backend b);
/* 1 when this build has nvJPEG (SAMRT_HAVE_NVJPEG), whatever the machine. */
int samrt_jpeg_gpu_in_build(void);
/* The best backend this build and machine have (creates and drops an nvJPEG handle): NONE in
 * a build without nvJPEG or on a machine without a GPU. */
enum samrt_jpeg_gpu_backend samrt_jpeg_gpu_probe(void);

/* A decoder for frames up to max_w x max_h. want: HARDWARE, HYBRID or ANY. SAMRT_E_UNSUPPORTED
 * when the build or machine lacks it (no message: the caller decodes on the CPU). */
enum samrt_status samrt_jpeg_gpu_create(int max_w, int max_h, enum samrt_jpeg_gpu_backend want,
                                        struct samrt_jpeg_gpu **out);
enum samrt_jpeg_gpu_backend samrt_jpeg_gpu_backend(const struct samrt_jpeg_gpu *d);

/* The JPEG in data (host memory) to RGB8 at dst (device memory, pitch bytes per row, room for
 * the frame's size), queued on stream. SAMRT_E_UNSUPPORTED, with nothing written: this file
 * is not for this backend (progressive on the hardware engine, CMYK, a size above the max, a
 * stream that does not end with its EOI marker); the caller decodes it on the CPU, which also
 * gives corrupt and truncated files their message. SAMRT_E_FORMAT, not logged: nvJPEG found
 * the data malformed; the caller decodes it on the CPU too, so that the file gets libjpeg-turbo's
 * message (the one the host path gives), or its pixels when libjpeg-turbo takes it. */
enum samrt_status samrt_jpeg_gpu_decode(struct samrt_jpeg_gpu *d, const void *data, size_t size, uint8_t *dst,
                                        size_t pitch, samrt_stream *stream);

/* nvJPEG's allocations through this file's allocators, process-wide. */
struct samrt_jpeg_gpu_mem {
    uint64_t device_bytes, pinned_bytes;  /* live */
    uint64_t calls;                       /* allocations, all decoders */
    uint64_t late_calls;                  /* allocations by a sealed decoder's thread after seal */
};
/* End of setup: allocations after this are counted in late_calls. */
void samrt_jpeg_gpu_seal(struct samrt_jpeg_gpu *d);
void samrt_jpeg_gpu_mem(struct samrt_jpeg_gpu_mem *out);

void samrt_jpeg_gpu_destroy(struct samrt_jpeg_gpu *d);  /* NULL is fine */

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_PLATFORM_JPEG_GPU_H */
