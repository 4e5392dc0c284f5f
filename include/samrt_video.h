/* samrt_video.h - the video reader of the shared library libsamrt.so: a video file (mp4, mkv,
 * webm, avi, ...) or a V4L2 camera (/dev/videoN) to RGB8 frames, one at a time, for bindings
 * (the Python package's VideoPredictor and CameraPredictor) that bring no decoder of their own.
 * It is the harness's FFmpeg reader (docs/video.md), the one behind `samrt track --video`, so
 * libsamrt.so links FFmpeg's libraries when the build has them; libsamrt.a has none of this.
 * In a build without FFmpeg every call but close returns SAMRT_E_UNSUPPORTED with a message
 * that says how to get it, and samrt_video_reader_available() is 0.
 *
 *   samrt_video_reader_t r;
 *   int w, h, eof = 0;
 *   int64_t n;
 *   double fps;
 *   st = samrt_video_reader_open("clip.mp4", &r);
 *   st = samrt_video_reader_info(r, &w, &h, &n, &fps);
 *   uint8_t *rgb = malloc((size_t)w * h * 3);
 *   while ((st = samrt_video_reader_next(r, rgb, (size_t)w * h * 3, &eof)) == SAMRT_OK && !eof) { ... }
 *   samrt_video_reader_close(r);
 */
#ifndef SAMRT_VIDEO_H
#define SAMRT_VIDEO_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One open video: a reader decodes one frame per call and keeps at most one decoded frame of
 * its own. A reader is used by one thread at a time; different readers are independent. */
typedef struct samrt_video_input *samrt_video_reader_t;

/* 1 when this library reads video (built with FFmpeg), else 0. */
int samrt_video_reader_available(void);

/* Opens the video file or camera at path and finds its video stream and decoder. Only local
 * files and devices are opened (never a URL). Errors: SAMRT_E_INVALID_ARG (NULL arguments),
 * SAMRT_E_IO (cannot open: missing, unreadable), SAMRT_E_FORMAT (not a video, no video
 * stream, a stream that holds no frame), SAMRT_E_UNSUPPORTED (no FFmpeg in this build, a codec
 * the linked FFmpeg has no decoder for, frames larger than 16384 on a side). *out is NULL on
 * error. */
enum samrt_status samrt_video_reader_open(const char *path, samrt_video_reader_t *out);

/* The size of every frame; n_frames: the frames a file holds (the container's count, or one
 * demux pass when it has none), -1 for a camera or a named pipe (a live source); fps: the average frame rate, 0 when the
 * container does not say. Any output pointer may be NULL. SAMRT_E_INVALID_ARG for a NULL
 * reader. */
enum samrt_status samrt_video_reader_info(samrt_video_reader_t r, int *width, int *height, int64_t *n_frames,
                                          double *fps);

/* Decodes the next frame into rgb: tightly packed RGB8 (stride 3 * width) of rgb_bytes >=
 * 3 * width * height. SAMRT_OK with *eof = 0: a frame was written; SAMRT_OK with *eof = 1: the
 * video has ended (rgb is untouched; the same answer on every later call). Errors:
 * SAMRT_E_INVALID_ARG (NULL arguments, a buffer too small), SAMRT_E_FORMAT (a frame does not
 * decode, a frame of another size, a file that ends before the frame count its container
 * lists: cut off, a camera or a named pipe that stops sending), SAMRT_E_BAD_STATE (a call after one of those errors: close the reader). */
enum samrt_status samrt_video_reader_next(samrt_video_reader_t r, uint8_t *rgb, size_t rgb_bytes, int *eof);

/* Frees the reader; NULL is fine. */
void samrt_video_reader_close(samrt_video_reader_t r);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_VIDEO_H */
