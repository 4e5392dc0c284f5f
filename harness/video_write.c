/* video_write.c - the video writer of video.h: RGB8 frames converted to 4:2:0 with
 * libswscale and encoded with libavcodec (H.264 through libx264 or libopenh264 when the
 * linked FFmpeg has one, MPEG-4 part 2 otherwise), muxed by libavformat into the container
 * the file name asks for. FFV1 (SAMRT_VIDEO_ENCODER=ffv1) keeps the RGB samples as they are
 * (lossless, no 4:2:0), so a clip it writes decodes back to the very pixels pushed. Like every file samrt writes, the video appears complete or not at
 * all: it is written beside the target (atomic_file.h) and synced and renamed over it by
 * samrt_video_writer_close.
 *
 * SAMRT_VIDEO_ENCODER=<name> (e.g. mpeg4) picks the encoder instead of that order.
 *
 * The frames carry BT.601 limited-range YUV (libswscale's default matrix, and the tags say
 * so), which every player and samrt's own reader turn back into the same RGB. MP4s get their
 * index at the front (+faststart), so a player can start before the file is downloaded. */
#include "video.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "video_impl.h"

/* Encoders in the order tried: H.264 first, MPEG-4 part 2 (always in libavcodec) last. */
static const char *const g_encoders[] = {"libx264", "libopenh264", "mpeg4"};

const char *samrt_video_pick_encoder_name(void) {
    samrt_video_lib_init();
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(g_encoders); i++)
        if (avcodec_find_encoder_by_name(g_encoders[i])) return g_encoders[i];
    return "none";
}

struct samrt_video_writer {
    AVFormatContext *fmt;
    AVCodecContext *enc;
    AVStream *st;
    AVFrame *frame;
    AVPacket *pkt;
    struct SwsContext *sws;
    int width, height;       /* of the frames pushed */
    int64_t n;
    int header_written;
    char codec[32];
    char path[4096];
    struct samrt_atomic_file out;  /* the temporary file FFmpeg writes, renamed over path at close */
};

static enum samrt_status wfail(const struct samrt_video_writer *w, int err, const char *what) {
    char buf[128];
    SAMRT_LOG_ERROR("%s: %s (%s)", w->path, what, samrt_video_err(err, buf, sizeof buf));
    return err == AVERROR(ENOMEM) ? SAMRT_E_HOST_MEMORY : SAMRT_E_IO;
}

/* Opens the first encoder of g_encoders (or the one SAMRT_VIDEO_ENCODER names) that the
 * container takes and that opens. */
static enum samrt_status open_encoder(struct samrt_video_writer *w, double fps) {
    const AVRational rate = av_d2q(fps, 100000);
    const char *forced = getenv("SAMRT_VIDEO_ENCODER");
    const char *const *names = g_encoders;
    size_t n_names = SAMRT_ARRAY_LEN(g_encoders);
    if (forced && *forced) names = &forced, n_names = 1;
    for (size_t i = 0; i < n_names; i++) {
        const AVCodec *codec = avcodec_find_encoder_by_name(names[i]);
        if (!codec || avformat_query_codec(w->fmt->oformat, codec->id, FF_COMPLIANCE_NORMAL) != 1) continue;
        AVCodecContext *c = avcodec_alloc_context3(codec);
        SAMRT_CHECK(c, SAMRT_E_HOST_MEMORY, "out of memory");
        const int rgb = codec->id == AV_CODEC_ID_FFV1;  /* lossless RGB: any size, no matrix */
        c->width = rgb ? w->width : w->width & ~1;
        c->height = rgb ? w->height : w->height & ~1;
        c->pix_fmt = rgb ? AV_PIX_FMT_0RGB32 : AV_PIX_FMT_YUV420P;
        c->framerate = rate;
        c->time_base = av_inv_q(rate);
        c->gop_size = 48;
        c->colorspace = rgb ? AVCOL_SPC_RGB : AVCOL_SPC_SMPTE170M;
        c->color_primaries = AVCOL_PRI_SMPTE170M;
        c->color_trc = AVCOL_TRC_SMPTE170M;
        c->color_range = rgb ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
        if (w->fmt->oformat->flags & AVFMT_GLOBALHEADER) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        if (codec->id == AV_CODEC_ID_H264) {
            av_opt_set(c->priv_data, "preset", "veryfast", 0);
            av_opt_set(c->priv_data, "crf", "20", 0);
        } else if (!rgb) {
            c->flags |= AV_CODEC_FLAG_QSCALE;
            c->global_quality = FF_QP2LAMBDA * 3;
        }
        const int ret = avcodec_open2(c, codec, NULL);
        if (ret >= 0) {
            w->enc = c;
            snprintf(w->codec, sizeof w->codec, "%s", codec->name);
            return SAMRT_OK;
        }
        char buf[128];
        SAMRT_LOG_WARN("%s: encoder %s does not open (%s); trying the next", w->path, codec->name,
                       samrt_video_err(ret, buf, sizeof buf));
        avcodec_free_context(&c);
    }
    if (forced && *forced)
        SAMRT_LOG_ERROR("%s: encoder %s (SAMRT_VIDEO_ENCODER) is not in the linked FFmpeg, does not open, or this "
                        "container does not take it", w->path, forced);
    else
        SAMRT_LOG_ERROR("%s: no encoder for this container in the linked FFmpeg (tried libx264, libopenh264, mpeg4); "
                        "write .mp4, .mkv or .avi", w->path);
    return SAMRT_E_UNSUPPORTED;
}

/* The stream, the file and the header, once the encoder is open. */
static enum samrt_status open_output(struct samrt_video_writer *w) {
    w->st = avformat_new_stream(w->fmt, NULL);
    w->frame = av_frame_alloc();
    w->pkt = av_packet_alloc();
    SAMRT_CHECK(w->st && w->frame && w->pkt, SAMRT_E_HOST_MEMORY, "out of memory");
    int ret = avcodec_parameters_from_context(w->st->codecpar, w->enc);
    if (ret < 0) return wfail(w, ret, "cannot set the stream parameters");
    w->st->time_base = w->enc->time_base;
    w->st->avg_frame_rate = w->enc->framerate;
    w->frame->format = w->enc->pix_fmt;
    w->frame->width = w->enc->width;
    w->frame->height = w->enc->height;
    if ((ret = av_frame_get_buffer(w->frame, 0)) < 0) return wfail(w, ret, "cannot allocate a frame");
    w->sws = sws_getContext(w->enc->width, w->enc->height, AV_PIX_FMT_RGB24, w->enc->width, w->enc->height,
                            w->enc->pix_fmt, SWS_BICUBIC, NULL, NULL, NULL);
    SAMRT_CHECK(w->sws, SAMRT_E_UNSUPPORTED, "%s: cannot convert RGB to %s", w->path,
                av_get_pix_fmt_name(w->enc->pix_fmt));
    if (!(w->fmt->oformat->flags & AVFMT_NOFILE) && (ret = avio_open(&w->fmt->pb, w->out.tmp, AVIO_FLAG_WRITE)) < 0)
        return wfail(w, ret, "cannot create the file");
    AVDictionary *opts = NULL;
    av_dict_set(&opts, "movflags", "+faststart", 0);  /* mp4 / mov only; others leave it unused */
    ret = avformat_write_header(w->fmt, &opts);
    av_dict_free(&opts);
    if (ret < 0) return wfail(w, ret, "cannot write the header");
    w->header_written = 1;
    return SAMRT_OK;
}

static void writer_free(struct samrt_video_writer *w) {
    sws_freeContext(w->sws);
    av_frame_free(&w->frame);
    av_packet_free(&w->pkt);
    avcodec_free_context(&w->enc);
    if (w->fmt && w->fmt->pb && !(w->fmt->oformat->flags & AVFMT_NOFILE)) avio_closep(&w->fmt->pb);
    avformat_free_context(w->fmt);
    av_free(w);
}

enum samrt_status samrt_video_writer_open(const char *path, int width, int height, double fps,
                                          struct samrt_video_writer **out) {
    SAMRT_CHECK(path && out, SAMRT_E_INVALID_ARG, "samrt_video_writer_open: NULL argument");
    *out = NULL;
    SAMRT_CHECK(width >= 2 && height >= 2 && width <= SAMRT_VIDEO_MAX_SIDE && height <= SAMRT_VIDEO_MAX_SIDE,
                SAMRT_E_INVALID_ARG, "%s: cannot encode %dx%d frames", path, width, height);
    SAMRT_CHECK(fps > 0 && fps <= 1000, SAMRT_E_INVALID_ARG, "%s: frame rate %g not in (0, 1000]", path, fps);
    SAMRT_CHECK(strlen(path) < 4000, SAMRT_E_INVALID_ARG, "video path too long");
    samrt_video_lib_init();
    SAMRT_AV_CONST AVOutputFormat *ofmt = av_guess_format(NULL, path, NULL);
    SAMRT_CHECK(ofmt, SAMRT_E_INVALID_ARG, "%s: no container known for this file name (use .mp4, .mkv or .avi)", path);
    struct samrt_video_writer *w = av_mallocz(sizeof *w);
    SAMRT_CHECK(w, SAMRT_E_HOST_MEMORY, "out of memory");
    w->width = width, w->height = height;
    snprintf(w->path, sizeof w->path, "%s", path);
    enum samrt_status st = samrt_atomic_open(&w->out, path);
    if (st != SAMRT_OK) {
        av_free(w);
        return st;
    }
    const int ret = avformat_alloc_output_context2(&w->fmt, ofmt, NULL, w->out.tmp);
    if (ret < 0) st = wfail(w, ret, "cannot set up the container");
    if (st == SAMRT_OK) st = open_encoder(w, fps);
    if (st == SAMRT_OK) st = open_output(w);
    if (st != SAMRT_OK) {
        samrt_atomic_abort(&w->out);
        writer_free(w);
        return st;
    }
    *out = w;
    return SAMRT_OK;
}

/* Sends frame (NULL: flush) and writes every packet the encoder gives back. */
static enum samrt_status encode(struct samrt_video_writer *w, const AVFrame *frame) {
    int ret = avcodec_send_frame(w->enc, frame);
    if (ret < 0) return wfail(w, ret, "cannot encode a frame");
    for (;;) {
        ret = avcodec_receive_packet(w->enc, w->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return SAMRT_OK;
        if (ret < 0) return wfail(w, ret, "cannot encode a frame");
        av_packet_rescale_ts(w->pkt, w->enc->time_base, w->st->time_base);
        w->pkt->stream_index = w->st->index;
        ret = av_interleaved_write_frame(w->fmt, w->pkt);
        if (ret < 0) return wfail(w, ret, "cannot write a packet");
    }
}

enum samrt_status samrt_video_writer_push(struct samrt_video_writer *w, const uint8_t *rgb) {
    SAMRT_CHECK(w && rgb, SAMRT_E_INVALID_ARG, "samrt_video_writer_push: NULL argument");
    const int ret = av_frame_make_writable(w->frame);
    if (ret < 0) return wfail(w, ret, "cannot reuse the frame buffer");
    const uint8_t *src[4] = {rgb, NULL, NULL, NULL};
    const int src_stride[4] = {3 * w->width, 0, 0, 0};
    sws_scale(w->sws, src, src_stride, 0, w->enc->height, w->frame->data, w->frame->linesize);
    w->frame->pts = w->n++;
    return encode(w, w->frame);
}

const char *samrt_video_writer_codec(const struct samrt_video_writer *w) { return w ? w->codec : ""; }

int64_t samrt_video_writer_frames(const struct samrt_video_writer *w) { return w ? w->n : 0; }

enum samrt_status samrt_video_writer_close(struct samrt_video_writer *w) {
    if (!w) return SAMRT_OK;
    enum samrt_status st = encode(w, NULL);
    if (w->header_written) {
        const int ret = av_write_trailer(w->fmt);
        if (ret < 0 && st == SAMRT_OK) st = wfail(w, ret, "cannot finish the file");
    }
    if (w->fmt->pb && !(w->fmt->oformat->flags & AVFMT_NOFILE)) {
        const int ret = avio_closep(&w->fmt->pb);
        if (ret < 0 && st == SAMRT_OK) st = wfail(w, ret, "cannot close the file");
    }
    /* fsyncs what FFmpeg wrote through its own descriptor, then renames it over the target */
    if (st == SAMRT_OK) st = samrt_atomic_commit(&w->out);
    else samrt_atomic_abort(&w->out);
    writer_free(w);
    return st;
}
