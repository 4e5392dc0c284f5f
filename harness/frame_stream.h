/* frame_stream.h - the bounded prefetching frame streamer: the frames of a JPEG folder, a
 * video file or a camera (/dev/videoN, through video.h) decoded ahead on threads
 * (frame_stream.c), so that decoding overlaps tracking and a video is never all in memory.
 * sav.h includes it; the SA-V reader lists the folders it streams.
 *
 * It decodes the next frames of one source into a fixed ring of depth+1 buffers allocated at
 * open, and hands them out in order; it never holds the whole video. A JPEG folder decodes on
 * a pool of decode_threads threads (libjpeg-turbo), or, with device_frames in a build with
 * nvJPEG on a machine with a GPU, on the GPU straight into a device ring (f.on_device: pass it
 * as samrt_engine_track_push's frame_on_device); a file nvJPEG does not take (progressive on
 * the hardware engine, ...) is decoded on the CPU and uploaded, without error. A video or a
 * camera decodes on one thread (FFmpeg):
 *
 *   samrt_frame_stream_t fs;
 *   struct samrt_frame_source src = {"clip.mp4", 4, 0, 0};   // path, depth, start, max_frames
 *   SAMRT_TRY(samrt_frame_stream_open_source(&src, &fs));
 *   struct samrt_frame f;
 *   while ((st = samrt_frame_stream_next(fs, &f)) == SAMRT_OK && f.rgb) {
 *       ... use f.rgb (f.height x f.width x 3), f.index, f.pts_s ...
 *       samrt_frame_stream_release(fs, &f);
 *   }
 *   samrt_frame_stream_close(fs);
 *
 * f.wait_ms says how long the consumer waited for a frame that was not decoded yet: the
 * bench sums it to tell whether decoding bounds the throughput (docs/video.md).
 */
#ifndef SAMRT_FRAME_STREAM_H
#define SAMRT_FRAME_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct samrt_frame_stream *samrt_frame_stream_t;

struct samrt_frame {
    const uint8_t *rgb;   /* height x width x 3, in a ring slot; NULL after the last frame */
    int index;            /* position in the source: the JPEG's place in the sorted folder, or
                             the video frame's (decoded frames before it); after the last frame,
                             the number of frames delivered */
    int width, height;
    const char *name;     /* JPEG file name, or a video frame's index as "%05d" */
    int slot;             /* ring slot, for release */
    double decode_ms;     /* read + decode of this frame on the streamer's thread (host clock) */
    double pts_s;         /* a video frame's timestamp in seconds from the stream start; -1 for JPEGs */
    double wait_ms;       /* how long samrt_frame_stream_next waited for this frame to be decoded */
    int on_device;        /* 1: rgb is device memory of the current GPU (nvJPEG), pitch 3 * width */
    const struct samrt_image_nv12 *nv12;  /* with decode.nv12, an NVDEC frame: its NV12 planes in
                             device memory (nv12->y == rgb), to push with samrt_engine_track_push_nv12;
                             NULL: rgb holds RGB8 (a frame NVDEC turned down is uploaded as RGB8) */
};

/* Decode threads of a JPEG folder: 1..SAMRT_DECODE_THREADS_MAX; the default (0) is one per core
 * but one, at most SAMRT_DECODE_THREADS_DEFAULT_MAX, never more than the ring's slots. */
#define SAMRT_DECODE_THREADS_MAX 32
#define SAMRT_DECODE_THREADS_DEFAULT_MAX 4

/* What to stream. */
struct samrt_frame_source {
    const char *path;     /* a folder of JPEG frames, a video file (mp4, mkv, webm, ...) or a
                             V4L2 camera (/dev/videoN); a path that is not a folder is a video */
    int depth;            /* frames decoded ahead, 1..64 */
    int start;            /* frames skipped first (a video decodes and drops them) */
    int max_frames;       /* at most this many frames; 0 = to the end */
};

/* How to decode (samrt_frame_stream_open_decode); zeros are the defaults. */
struct samrt_frame_decode {
    int threads;          /* a folder's decode threads; 0 = samrt_frame_stream_default_threads() */
    int device_frames;    /* 1: a folder's frames decoded by nvJPEG into device memory where the
                             build and machine have it (info.on_device says whether they are) */
    int nv12;             /* 1: a video's NVDEC frames handed out as their NV12 planes (f.nv12, for
                             samrt_engine_track_push_nv12: the resize converts, no RGB8 pass) */
};

struct samrt_frame_stream_info {
    int width, height;
    int n_frames;         /* frames the stream delivers (after start and max_frames); -1 when
                             unknown: a camera or a named pipe without max_frames */
    double fps;           /* a video's frame rate, 0 when unknown or for a folder */
    int is_video, is_device;  /* is_device: a live source, a camera or a named pipe (video.h) */
    char codec[32];       /* a video's decoder, e.g. "h264" */
    char decoder[32];     /* the decode path: "nvJPEG hardware", "nvJPEG GPU", "libjpeg-turbo x4",
                             "ffmpeg" */
    int decode_threads;   /* threads decoding */
    int on_device;        /* frames come in device memory */
    uint64_t host_bytes;  /* planned at open: the host ring and the file buffers */
    uint64_t device_bytes, pinned_bytes;  /* the device ring and nvJPEG's buffers (frame_gpu.h) */
};

/* The default decode threads of a folder: one per online core but one, 1..4. */
int samrt_frame_stream_default_threads(void);
/* The JPEG decode path of this build and machine, in words (`samrt check`): "nvJPEG hardware",
 * "nvJPEG GPU" or "libjpeg-turbo xN", with why. */
void samrt_frame_decode_path(char *buf, size_t len);

/* 1 when path is a folder (streamed as JPEG frames), else 0. */
int samrt_frame_source_is_folder(const char *path);

/* Opens the source, allocates depth+1 frame buffers of its frame size (and each decode
 * thread's file buffer, of the folder's largest file), and starts the decode threads. A start past the last frame is SAMRT_E_INVALID_ARG; a video in a build without
 * FFmpeg is SAMRT_E_UNSUPPORTED (video.h). */
enum samrt_status samrt_frame_stream_open_source(const struct samrt_frame_source *src, samrt_frame_stream_t *out);
/* The same with the decode choices (dec NULL: the defaults). */
enum samrt_status samrt_frame_stream_open_decode(const struct samrt_frame_source *src, const struct samrt_frame_decode *dec,
                                                 samrt_frame_stream_t *out);
int samrt_frame_stream_count(samrt_frame_stream_t s);   /* info.n_frames */
void samrt_frame_stream_size(samrt_frame_stream_t s, int *width, int *height);
void samrt_frame_stream_info(samrt_frame_stream_t s, struct samrt_frame_stream_info *out);
/* Blocks until the next frame is decoded. At the end returns SAMRT_OK with f->rgb NULL. A
 * decode failure (corrupt JPEG or video, a frame of another size, a cut-off file) is returned
 * for that frame and every later call, after every frame before it, whichever thread decoded
 * what; its message names the file and the frame. Holding every slot while asking for another is
 * SAMRT_E_BAD_STATE. */
enum samrt_status samrt_frame_stream_next(samrt_frame_stream_t s, struct samrt_frame *f);
/* Gives the frame's slot back to the decoder (in any order). */
void samrt_frame_stream_release(samrt_frame_stream_t s, struct samrt_frame *f);
/* Stops the thread (interrupting a camera read) and frees everything; NULL is fine. */
void samrt_frame_stream_close(samrt_frame_stream_t s);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_FRAME_STREAM_H */
