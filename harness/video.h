/* video.h - video files and cameras in and out, through FFmpeg's libraries (libavformat,
 * libavcodec, libswscale, libavdevice): the reader behind `--video FILE|/dev/videoN` and the
 * writer behind `--overlay-video OUT.mp4`. Frames are RGB8, tightly packed (stride 3 * width),
 * the layout samrt.h takes. docs/video.md is the manual.
 *
 * The build decides whether these exist (SAMRT_VIDEO=AUTO|ON|OFF, harness/CMakeLists.txt):
 * without FFmpeg every call returns SAMRT_E_UNSUPPORTED with a message that says how to get
 * it, and samrt_video_available() is 0. The code keeps to the API of FFmpeg 4.4 (JetPack 6)
 * through 7.
 *
 * Reading decodes one frame per call into the caller's buffer, so a reader holds one
 * decoded frame of its own at most; frame_stream.h runs it on a thread with bounded prefetch.
 * Bad input (a truncated or garbage file, a stream without video) is an error with the
 * library's reason logged, never a crash.
 *
 *   struct samrt_video_reader *r;
 *   struct samrt_video_info info;
 *   SAMRT_TRY(samrt_video_open("clip.mp4", &r, &info));
 *   uint8_t *rgb = malloc((size_t)info.width * info.height * 3);
 *   struct samrt_video_frame vf;
 *   while ((st = samrt_video_read(r, rgb, &vf)) == SAMRT_OK && !vf.eof) { ... }
 *   samrt_video_close(r);
 *
 *   struct samrt_video_writer *w;
 *   SAMRT_TRY(samrt_video_writer_open("out.mp4", width, height, 24.0, &w));
 *   for each frame: SAMRT_TRY(samrt_video_writer_push(w, rgb));
 *   SAMRT_TRY(samrt_video_writer_close(w));     // writes the trailer; the file is complete
 */
#ifndef SAMRT_HARNESS_VIDEO_H
#define SAMRT_HARNESS_VIDEO_H

#include <stddef.h>
#include <stdint.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest frame side accepted: bounds what a hostile header can ask for. */
#define SAMRT_VIDEO_MAX_SIDE 16384

/* ---- bounds on what a file, a memory buffer or a camera can make FFmpeg allocate ---------- */

/* The largest single allocation FFmpeg may make (av_max_alloc, process-wide): one plane of an
 * 8-bit 8K (8192x4320) frame or of a 16-bit 4096x4096 one with the decoder's padding, far below what a hostile header asks for
 * (a 17 KB AVI asked for 1.8 GB) and under 1% of an 8 GB Jetson. docs/video.md explains it. */
#define SAMRT_VIDEO_MAX_ALLOC_DEFAULT ((size_t)64 << 20)
#define SAMRT_VIDEO_PROBESIZE_DEFAULT 5000000     /* bytes read to find the streams (FFmpeg's own) */
#define SAMRT_VIDEO_ANALYZE_US_DEFAULT 5000000    /* microseconds of media analysed (FFmpeg's own) */
#define SAMRT_VIDEO_MAX_STREAMS_DEFAULT 16        /* FFmpeg's own is 1000 */

/* The caller's plan for the videos it opens next. A frame is accepted when both sides fit the
 * plan and one plane of it (16-bit samples count twice) fits max_alloc; a stream that declares
 * more is refused before any decoder allocates for it, with the file and the size named. */
struct samrt_video_limits {
    int max_width, max_height;  /* largest frame planned for; default SAMRT_VIDEO_MAX_SIDE */
    size_t max_alloc;           /* av_max_alloc; 0: 64 MiB, or one 16-bit plane of the planned
                                   max_width x max_height (padding included) when that is larger */
    int64_t probesize;          /* avformat "probesize" */
    int64_t analyze_us;         /* avformat "analyzeduration" */
    int max_streams;            /* avformat "max_streams" */
};
/* The defaults above (max_alloc = SAMRT_VIDEO_MAX_ALLOC_DEFAULT). */
void samrt_video_limits_default(struct samrt_video_limits *out);
/* Sets the limits for the readers opened afterwards, process-wide (call it before opening, not
 * while another thread opens); fields <= 0 take their default. SAMRT_E_INVALID_ARG for a plan
 * over SAMRT_VIDEO_MAX_SIDE. */
enum samrt_status samrt_video_set_limits(const struct samrt_video_limits *lim);
/* The limits in force, with max_alloc resolved. */
void samrt_video_get_limits(struct samrt_video_limits *out);

/* 1 when this build reads and writes video (FFmpeg linked), else 0. */
int samrt_video_available(void);

/* The FFmpeg libraries linked, as AV_VERSION_INT numbers (0 when absent), and the encoder
 * the writer would pick for an .mp4 ("libx264", "mpeg4"; "" without FFmpeg). */
struct samrt_video_lib_versions {
    unsigned avformat, avcodec, swscale, avdevice, avutil;
    char h264_encoder[32];
};
void samrt_video_versions(struct samrt_video_lib_versions *out);

/* ---- reading --------------------------------------------------------------------------- */

struct samrt_video_info {
    int width, height;        /* of every frame; a stream that changes size is an error */
    double fps;               /* average frame rate; 0 when the container does not say */
    int64_t n_frames;         /* frames the file holds (exact: the container's count or a
                                 demux pass); -1 for a live device */
    int is_device;            /* a live source, a camera (V4L2) or a named pipe: frames arrive
                                 in real time, no length, and its end is an error (the source
                                 stopped sending), after every frame it delivered */
    char codec[32];           /* decoder name, e.g. "h264" */
    char container[32];       /* demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" (cut to fit) */
    int on_device;            /* frames are decoded by NVDEC into device memory: read them with
                                 samrt_video_read_device (samrt_video_open_with, device_frames) */
};

struct samrt_video_frame {
    int64_t index;            /* decoded frames before this one: 0, 1, 2, ... */
    double pts_s;             /* presentation time in seconds from the stream start; -1 unknown */
    int eof;                  /* 1: no frame was read, the stream has ended */
    int hw;                   /* samrt_video_read_device: 1 when NVDEC decoded this frame, 0 when
                                 the CPU did (a stream NVDEC turned down) and it was uploaded */
};

/* How to open a video (samrt_video_open_with); zeros are the defaults. */
struct samrt_video_open_opts {
    int threads;              /* software decoding: frame threads (FF_THREAD_FRAME); 0 = FFmpeg's
                                 choice (one per core); a camera always decodes on 1 */
    int device_frames;        /* 1: decode with NVDEC (FFmpeg's cuda hwaccel) into device frames
                                 where the build (CUDA) and the machine (driver, an FFmpeg with
                                 nvdec for the codec) have it; else software, said once in the log
                                 (info.on_device says which) */
};

struct samrt_video_reader;

/* Opens a video file (any container and codec the linked FFmpeg reads: mp4, mkv, webm, avi,
 * ...), a V4L2 camera (/dev/videoN) or a named pipe (read as it arrives, like a camera), finds
 * its video stream and its decoder. Errors: SAMRT_E_IO (cannot open), SAMRT_E_FORMAT (not a
 * video, no video stream), SAMRT_E_UNSUPPORTED (no FFmpeg in this build, a codec the linked
 * FFmpeg has no decoder for, a frame too large). */
enum samrt_status samrt_video_open(const char *path, struct samrt_video_reader **out, struct samrt_video_info *info);
/* The same with the decode choices (opts NULL: the defaults, as samrt_video_open). */
enum samrt_status samrt_video_open_with(const char *path, const struct samrt_video_open_opts *opts,
                                        struct samrt_video_reader **out, struct samrt_video_info *info);
/* The same over bytes in memory (the fuzz target and tests); data must outlive the reader. */
enum samrt_status samrt_video_open_mem(const void *data, size_t size, struct samrt_video_reader **out,
                                       struct samrt_video_info *info);
/* Decodes the next frame into rgb (info.width * info.height * 3 bytes). At the end of the
 * stream returns SAMRT_OK with f->eof = 1. A read or decode error, a frame of another size, a
 * file that ends before the frame count its container promised, or a live source that stops
 * is SAMRT_E_FORMAT, logged with the file and the frame; the frames the decoder held before it
 * are delivered first. */
enum samrt_status samrt_video_read(struct samrt_video_reader *r, uint8_t *rgb, struct samrt_video_frame *f);
/* A reader opened with info.on_device: decodes the next frame into the device RGB8 frame rgb
 * (info.width * info.height * 3 bytes, pitch 3 * width, memory of the current GPU) and returns
 * once it is there (the conversion runs on the reader's own stream, no allocation). The end,
 * the errors and f as samrt_video_read; SAMRT_E_BAD_STATE for a reader with host frames. */
enum samrt_status samrt_video_read_device(struct samrt_video_reader *r, uint8_t *rgb, struct samrt_video_frame *f);
/* The same, but a frame NVDEC decoded comes as its NV12 planes copied into buf (device memory
 * of `bytes`, >= 3 * width * height), packed and described by *nv12 for
 * samrt_engine_track_push_nv12 (nv12->y == buf); a frame the CPU decoded is uploaded as RGB8
 * into buf as samrt_video_read_device does, with nv12->y NULL. */
enum samrt_status samrt_video_read_device_nv12(struct samrt_video_reader *r, uint8_t *buf, size_t bytes,
                                               struct samrt_video_frame *f, struct samrt_image_nv12 *nv12);
/* The video decode path of this build and machine, in words (`samrt check`): "NVDEC via
 * FFmpeg's cuda hwaccel (h264 hevc ...)" or "software with frame threads", with why. */
void samrt_video_decode_path(char *buf, size_t len);
/* Makes a read blocked on its input (a camera that sends nothing) return SAMRT_E_BAD_STATE;
 * callable from another thread. Close the reader afterwards. */
void samrt_video_interrupt(struct samrt_video_reader *r);
/* Frees everything; NULL is fine. */
void samrt_video_close(struct samrt_video_reader *r);

/* ---- writing --------------------------------------------------------------------------- */

struct samrt_video_writer;

/* Creates path (the container from its extension: .mp4, .mkv, .avi, ...) for width x height
 * RGB8 frames at fps. The codec is H.264 (libx264, or libopenh264) when the linked libavcodec
 * has an H.264 encoder and the container takes it, MPEG-4 part 2 otherwise; the environment
 * variable SAMRT_VIDEO_ENCODER (e.g. "mpeg4") names one instead. Odd sizes lose their last
 * column / row (4:2:0 needs even sides). */
enum samrt_status samrt_video_writer_open(const char *path, int width, int height, double fps,
                                          struct samrt_video_writer **out);
/* Encodes one frame (width * height * 3 bytes). */
enum samrt_status samrt_video_writer_push(struct samrt_video_writer *w, const uint8_t *rgb);
/* The encoder's name, e.g. "libx264". */
const char *samrt_video_writer_codec(const struct samrt_video_writer *w);
/* Frames pushed so far. */
int64_t samrt_video_writer_frames(const struct samrt_video_writer *w);
/* Flushes the encoder, writes the trailer and frees everything; the status says whether the
 * file is complete. NULL is fine (SAMRT_OK). */
enum samrt_status samrt_video_writer_close(struct samrt_video_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_VIDEO_H */
