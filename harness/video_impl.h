/* video_impl.h - what the FFmpeg reader, its GPU path and the writer (video_read.c,
 * video_nvdec.c, video_write.c) share and nothing else includes: the const-ness that changed
 * between FFmpeg 4.4 and 5, the one-time library setup, FFmpeg's error text, the encoder choice
 * that `samrt check` reports, and the reader's NVDEC entries. */
#ifndef SAMRT_HARNESS_VIDEO_IMPL_H
#define SAMRT_HARNESS_VIDEO_IMPL_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <stddef.h>
#include <stdint.h>

#include "samrt_impl.h"

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

/* ---- NVDEC (video_nvdec.c) -------------------------------------------------------------- */

/* Surfaces the decoder's pool holds beyond the stream's references (extra_hw_frames): the one
 * the reader converts, and one of slack. */
#define SAMRT_VIDEO_HW_EXTRA_FRAMES 2

struct samrt_video_hw;
/* 1 when this build has the NVDEC path (CUDA), else 0. */
int samrt_video_hw_in_build(void);
/* Before avcodec_open2: the CUDA device (primary context, the reader's decode stream), the
 * get_format that picks the CUDA surfaces and the bounded pool, on dec. When NVDEC cannot
 * serve (no CUDA in the build, an FFmpeg without nvdec for the codec, no driver or GPU) *out
 * is NULL, why says why, and the status is SAMRT_OK: the caller decodes in software. */
enum samrt_status samrt_video_hw_attach(AVCodecContext *dec, const AVCodec *codec, const char *name,
                                        struct samrt_video_hw **out, char *why, size_t why_len);
/* A decoded AV_PIX_FMT_CUDA frame into the device RGB8 frame rgb (rows of pitch bytes), on the
 * decode stream; returns once rgb holds it. */
enum samrt_status samrt_video_hw_convert(struct samrt_video_hw *hw, const AVFrame *fr, uint8_t *rgb, size_t pitch);
/* A frame the CPU decoded and converted (host, bytes) into the device frame rgb; returns once
 * it is there. */
/* NVDEC frame fr's NV12 planes copied into buf (device memory, bytes >= w * h + 2 * ceil(w / 2)
 * * ceil(h / 2)) packed (luma pitch w, chroma pitch 2 * ceil(w / 2)), and *out described over
 * them with the colour fields samrt_video_hw_convert would use; returns once copied. */
enum samrt_status samrt_video_hw_copy_nv12(struct samrt_video_hw *hw, const AVFrame *fr, uint8_t *buf, size_t bytes,
                                           struct samrt_image_nv12 *out);
enum samrt_status samrt_video_hw_upload(struct samrt_video_hw *hw, const uint8_t *host, size_t bytes, uint8_t *rgb);
void samrt_video_hw_free(struct samrt_video_hw *hw);  /* NULL is fine */

#endif /* SAMRT_HARNESS_VIDEO_IMPL_H */
