/* video_nv12_util.h - what the NV12 tests share (test_video_nv12.c on the CPU,
 * test_video_nvdec_cuda.c on the GPU): a short synthetic clip written by the harness's writer
 * (libx264 where the linked FFmpeg has it, else MPEG-4 part 2), FFmpeg's software decode of it
 * as YUV 4:2:0 frames, the software path's RGB of a frame (swscale set up as video_read.c does),
 * NV12 made from a planar frame, and the per-frame pixel difference. */
#ifndef SAMRT_TEST_VIDEO_NV12_UTIL_H
#define SAMRT_TEST_VIDEO_NV12_UTIL_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/cpu.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv12_rgb.h"
#include "platform.h"
#include "video.h"

/* Writes n_frames w x h frames (colour gradients, moving blocks, noise) to path; the codec's
 * name into codec. 0 on success. */
static inline int vn_write_clip(const char *path, int w, int h, int n_frames, char *codec, size_t codec_len) {
    struct samrt_video_writer *wr = NULL;
    if (samrt_video_writer_open(path, w, h, 25.0, &wr) != SAMRT_OK) return -1;
    uint8_t *rgb = (uint8_t *)malloc((size_t)w * h * 3);
    uint64_t s = 12345;
    for (int f = 0; f < n_frames && rgb; f++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint8_t *p = rgb + ((size_t)y * w + x) * 3;
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                const int n = (int)(s >> 60) - 8;
                const int blk = ((x + 7 * f) / 24 + y / 24) & 1;
                p[0] = (uint8_t)(blk ? 230 : (x * 255) / w);
                p[1] = (uint8_t)((y * 255) / h);
                p[2] = (uint8_t)(128 + (blk ? -100 : 60) + n);
            }
        if (samrt_video_writer_push(wr, rgb) != SAMRT_OK) break;
    }
    snprintf(codec, codec_len, "%s", samrt_video_writer_codec(wr));
    free(rgb);
    return samrt_video_writer_close(wr) == SAMRT_OK ? 0 : -1;
}

/* The swscale form the software path runs here (as video_nvdec.c picks it). */
static inline int vn_sws_form(void) {
#if defined(__x86_64__) || defined(__i386__)
    if (av_get_cpu_flags() & (AV_CPU_FLAG_SSSE3 | AV_CPU_FLAG_MMXEXT)) return SAMRT_YUV_SWS_X86;
#endif
    return SAMRT_YUV_SWS_C;
}

/* FFmpeg's software decoder over a file, one frame at a time. */
struct vn_dec {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;
    int stream, flushed;
};

static inline int vn_open(struct vn_dec *d, const char *path) {
    memset(d, 0, sizeof *d);
    if (avformat_open_input(&d->fmt, path, NULL, NULL) < 0 || avformat_find_stream_info(d->fmt, NULL) < 0) return -1;
    const AVCodec *c = NULL;
    d->stream = av_find_best_stream(d->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, (void *)&c, 0);
    if (d->stream < 0 || !c) return -1;
    d->dec = avcodec_alloc_context3(c);
    avcodec_parameters_to_context(d->dec, d->fmt->streams[d->stream]->codecpar);
    d->dec->thread_count = 1;
    d->pkt = av_packet_alloc();
    d->frame = av_frame_alloc();
    return avcodec_open2(d->dec, c, NULL) < 0 ? -1 : 0;
}

/* The next frame into d->frame: 1, or 0 at the end. */
static inline int vn_next(struct vn_dec *d) {
    for (;;) {
        const int r = avcodec_receive_frame(d->dec, d->frame);
        if (r == 0) return 1;
        if (r != AVERROR(EAGAIN)) return 0;
        if (av_read_frame(d->fmt, d->pkt) < 0) {
            if (d->flushed) return 0;
            avcodec_send_packet(d->dec, NULL);
            d->flushed = 1;
            continue;
        }
        if (d->pkt->stream_index == d->stream) avcodec_send_packet(d->dec, d->pkt);
        av_packet_unref(d->pkt);
    }
}

static inline void vn_close(struct vn_dec *d) {
    av_frame_free(&d->frame);
    av_packet_free(&d->pkt);
    avcodec_free_context(&d->dec);
    avformat_close_input(&d->fmt);
}

/* The software path's RGB of fr (video_read.c's swscale set-up) with the given colour space
 * and range; a fresh context, so av_force_cpu_flags before it takes effect. */
static inline int vn_sws_rgb(const AVFrame *fr, int colorspace, int full_range, uint8_t *rgb) {
    struct SwsContext *sws = sws_getContext(fr->width, fr->height, (enum AVPixelFormat)fr->format, fr->width,
                                            fr->height, AV_PIX_FMT_RGB24, SWS_BICUBIC, NULL, NULL, NULL);
    if (!sws) return -1;
    sws_setColorspaceDetails(sws, sws_getCoefficients(colorspace), full_range, sws_getCoefficients(SWS_CS_DEFAULT), 1,
                             0, 1 << 16, 1 << 16);
    uint8_t *dst[4] = {rgb, NULL, NULL, NULL};
    int stride[4] = {3 * fr->width, 0, 0, 0};
    sws_scale(sws, (const uint8_t *const *)fr->data, fr->linesize, 0, fr->height, dst, stride);
    sws_freeContext(sws);
    return 0;
}

/* The interleaved chroma plane of a planar 4:2:0 frame (NV12's second plane, pitch 2 * cw). */
static inline void vn_interleave(const AVFrame *fr, uint8_t *uv) {
    const int cw = (fr->width + 1) / 2, ch = (fr->height + 1) / 2;
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++) {
            uv[(size_t)y * 2 * cw + 2 * x] = fr->data[1][(size_t)y * fr->linesize[1] + x];
            uv[(size_t)y * 2 * cw + 2 * x + 1] = fr->data[2][(size_t)y * fr->linesize[2] + x];
        }
}

/* max and mean |a - b| over n bytes */
static inline void vn_diff(const uint8_t *a, const uint8_t *b, size_t n, int *max, double *mean) {
    long long sum = 0;
    int m = 0;
    for (size_t i = 0; i < n; i++) {
        const int d = abs((int)a[i] - (int)b[i]);
        sum += d;
        m = d > m ? d : m;
    }
    *max = m;
    *mean = n ? (double)sum / (double)n : 0.0;
}

#endif /* SAMRT_TEST_VIDEO_NV12_UTIL_H */
