/* video_impl.h - what the FFmpeg reader and writer (video_read.c, video_write.c) share and
 * nothing else includes: the const-ness that changed between FFmpeg 4.4 and 5, the one-time
 * library setup, FFmpeg's error text, and the encoder choice that `samrt check` reports. */
#ifndef SAMRT_HARNESS_VIDEO_IMPL_H
#define SAMRT_HARNESS_VIDEO_IMPL_H

#include <libavformat/avformat.h>
#include <stddef.h>

/* FFmpeg 5 (libavformat 59) made the codec and format descriptors const in its API. */
#if LIBAVFORMAT_VERSION_MAJOR < 59
#define SAMRT_AV_CONST
#else
#define SAMRT_AV_CONST const
#endif

/* Routes FFmpeg's log into samrt's and registers the devices; once per process. */
void samrt_video_lib_init(void);
/* av_strerror into buf. */
const char *samrt_video_err(int err, char *buf, size_t len);
/* The name of the H.264 encoder the writer tries first ("libx264", "libopenh264"), or
 * "mpeg4" when the linked libavcodec has none. */
const char *samrt_video_pick_encoder_name(void);

#endif /* SAMRT_HARNESS_VIDEO_IMPL_H */
