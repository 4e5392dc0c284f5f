/* frame_gpu.h - the frame streamer's GPU path (frame_stream.c): the frames of a JPEG folder
 * decoded by nvJPEG (platform/jpeg_gpu.h) on a decode stream straight into a ring of device
 * frames planned at open, so no frame passes through host RGB; the engine's resize-normalize
 * kernel reads them as any device frame (samrt_engine_track_push with frame_on_device).
 *
 * Everything is sized at open from the frame size and the ring depth: the device ring
 * (n_slots frames of 3 * w * h bytes, each 256-byte aligned), one host frame for the CPU
 * fallback, and nvJPEG's device and pinned buffers, which a warm-up decode of the first frame
 * sizes before samrt_jpeg_gpu_seal. A file nvJPEG does not take is decoded by libjpeg-turbo
 * into the host frame and uploaded (counted in cpu_frames). In builds or on machines without
 * nvJPEG, open answers SAMRT_E_UNSUPPORTED (no message) and the streamer decodes on the CPU. */
#ifndef SAMRT_HARNESS_FRAME_GPU_H
#define SAMRT_HARNESS_FRAME_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_gpu.h"
#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_frame_gpu;

/* want: SAMRT_JPEG_GPU_ANY (the best), HARDWARE or HYBRID. first: a frame of the folder
 * (first_size bytes) for the warm-up decode. */
enum samrt_status samrt_frame_gpu_open(int width, int height, int n_slots, enum samrt_jpeg_gpu_backend want,
                                       const uint8_t *first, size_t first_size, struct samrt_frame_gpu **out);
/* Ring slot k's device frame (pitch 3 * width). */
uint8_t *samrt_frame_gpu_slot(struct samrt_frame_gpu *g, int k);
/* The JPEG (host bytes, already checked to be width x height) into slot k; returns once the
 * frame is in device memory. */
enum samrt_status samrt_frame_gpu_decode(struct samrt_frame_gpu *g, const uint8_t *data, size_t size, int k);
const char *samrt_frame_gpu_name(const struct samrt_frame_gpu *g);   /* "nvJPEG hardware" / "nvJPEG GPU" */
/* Planned at open: device bytes (ring + nvJPEG's), pinned bytes (nvJPEG's). */
void samrt_frame_gpu_bytes(const struct samrt_frame_gpu *g, uint64_t *device, uint64_t *pinned);
int samrt_frame_gpu_cpu_frames(const struct samrt_frame_gpu *g);    /* frames that took the CPU path */
void samrt_frame_gpu_close(struct samrt_frame_gpu *g);               /* NULL is fine */

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_FRAME_GPU_H */
