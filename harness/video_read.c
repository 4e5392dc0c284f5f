/* video_read.c - the video reader of video.h over libavformat / libavcodec / libswscale, and
 * the library facts (versions, availability) of this build. One video stream is decoded with
 * the send / receive API (FFmpeg 4.4 through 7) and converted to RGB8 straight into the
 * caller's buffer; the reader keeps one packet and one frame of its own, so memory does not
 * grow with the video. Cameras (/dev/videoN) open through libavdevice's V4L2 input.
 *
 * Inputs open local files only (protocol whitelist "file"; nothing at all from memory), so a
 * playlist-like file cannot make the reader fetch a URL.
 *
 * Asked for device frames (samrt_video_open_with), a file decodes on NVDEC where the build and
 * machine have it (video_nvdec.c) and samrt_video_read_device delivers RGB8 device frames;
 * otherwise, and always for host frames, FFmpeg decodes in software with frame threads.
 *
 * Every FFmpeg failure becomes a status with the file name and FFmpeg's reason logged; the
 * library's own messages at error level and worse are forwarded to samrt's log, the chatty
 * rest is dropped. A file whose container promises more frames than it delivers (cut off in
 * the middle of its data) is an error, not a short video. A live source (a camera, or a named
 * pipe another program writes into) has no end: when it stops, that is an error too. A read
 * error or a live source's end first drains the decoder, so every frame it holds is
 * delivered before the error, which names the frame it stopped at. */
#include "video.h"

#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libavutil/cpu.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#include <libswscale/swscale.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "video_impl.h"

/* ---- library setup ------------------------------------------------------------------------ */

/* FFmpeg's messages at AV_LOG_ERROR and worse, as samrt warnings (one per piece). */
static void av_log_forward(void *avcl, int level, const char *fmt, va_list vl) {
    if (level > AV_LOG_ERROR) return;
    char line[512];
    int prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, (int)sizeof line, &prefix);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (n) SAMRT_LOG_WARN("ffmpeg: %s", line);
}

static pthread_once_t g_av_once = PTHREAD_ONCE_INIT;
static struct samrt_video_limits g_lim;  /* set by av_setup, then samrt_video_set_limits */

static void av_setup(void) {
    av_log_set_callback(av_log_forward);
    avdevice_register_all();
    samrt_video_limits_default(&g_lim);
    av_max_alloc(g_lim.max_alloc);
}

void samrt_video_lib_init(void) { pthread_once(&g_av_once, av_setup); }

int samrt_video_available(void) { return 1; }

void samrt_video_versions(struct samrt_video_lib_versions *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    samrt_video_lib_init();
    out->avformat = avformat_version();
    out->avcodec = avcodec_version();
    out->swscale = swscale_version();
    out->avdevice = avdevice_version();
    out->avutil = avutil_version();
    snprintf(out->h264_encoder, sizeof out->h264_encoder, "%s", samrt_video_pick_encoder_name());
}

const char *samrt_video_err(int err, char *buf, size_t len) {
    if (av_strerror(err, buf, len) < 0) snprintf(buf, len, "error %d", err);
    return buf;
}


/* ---- bounds ------------------------------------------------------------------------------- */

void samrt_video_limits_default(struct samrt_video_limits *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    out->max_width = out->max_height = SAMRT_VIDEO_MAX_SIDE;
    out->max_alloc = SAMRT_VIDEO_MAX_ALLOC_DEFAULT;
    out->probesize = SAMRT_VIDEO_PROBESIZE_DEFAULT;
    out->analyze_us = SAMRT_VIDEO_ANALYZE_US_DEFAULT;
    out->max_streams = SAMRT_VIDEO_MAX_STREAMS_DEFAULT;
}

/* Bytes of one plane of a w x h frame as a decoder allocates it (line and row padding). */
static size_t plane_bytes(int w, int h, int bytes_per_sample) {
    return ((size_t)w + 64) * ((size_t)h + 64) * (size_t)bytes_per_sample;
}

enum samrt_status samrt_video_set_limits(const struct samrt_video_limits *lim) {
    SAMRT_CHECK(lim, SAMRT_E_INVALID_ARG, "samrt_video_set_limits: NULL argument");
    SAMRT_CHECK(lim->max_width <= SAMRT_VIDEO_MAX_SIDE && lim->max_height <= SAMRT_VIDEO_MAX_SIDE, SAMRT_E_INVALID_ARG,
                "samrt_video_set_limits: a %dx%d plan exceeds the largest side read (%d)", lim->max_width,
                lim->max_height, SAMRT_VIDEO_MAX_SIDE);
    samrt_video_lib_init();
    struct samrt_video_limits d, l = *lim;
    samrt_video_limits_default(&d);
    const int planned = l.max_width > 0 || l.max_height > 0;
    if (l.max_width <= 0) l.max_width = d.max_width;
    if (l.max_height <= 0) l.max_height = d.max_height;
    if (l.probesize <= 0) l.probesize = d.probesize;
    if (l.analyze_us <= 0) l.analyze_us = d.analyze_us;
    if (l.max_streams <= 0) l.max_streams = d.max_streams;
    if (l.max_alloc == 0) {  /* no plan: the default cap; a plan: what its 16-bit plane needs, at least that */
        const size_t need = planned ? plane_bytes(l.max_width, l.max_height, 2) : 0;
        l.max_alloc = need > SAMRT_VIDEO_MAX_ALLOC_DEFAULT ? need : SAMRT_VIDEO_MAX_ALLOC_DEFAULT;
    }
    g_lim = l;
    av_max_alloc(l.max_alloc);
    return SAMRT_OK;
}

void samrt_video_get_limits(struct samrt_video_limits *out) {
    samrt_video_lib_init();
    if (out) *out = g_lim;
}

/* The options every avformat_open_input gets: the protocols allowed and the probing bounds. */
static AVDictionary *open_options(const char *protocols) {
    AVDictionary *o = NULL;
    av_dict_set(&o, "protocol_whitelist", protocols, 0);
    av_dict_set_int(&o, "probesize", g_lim.probesize, 0);
    av_dict_set_int(&o, "analyzeduration", g_lim.analyze_us, 0);
    av_dict_set_int(&o, "max_streams", g_lim.max_streams, 0);
    return o;
}

/* 0 when w x h frames in pixel format fmt (-1: unknown) fit the plan and the allocation cap;
 * else logs why, naming the file and the size, and returns -1. */
static int frame_fits(const char *name, const char *what, int w, int h, int fmt) {
    const AVPixFmtDescriptor *desc = fmt >= 0 ? av_pix_fmt_desc_get((enum AVPixelFormat)fmt) : NULL;
    const int bps = desc && desc->comp[0].depth > 8 ? 2 : 1;
    if (w <= g_lim.max_width && h <= g_lim.max_height && plane_bytes(w, h, bps) <= g_lim.max_alloc) return 0;
    SAMRT_LOG_ERROR("%s: %s %dx%d frames%s, beyond what the reader is planned for (at most %dx%d and %zu MiB a "
                    "plane; samrt_video_set_limits, docs/video.md)",
                    name, what, w, h, bps == 2 ? " of 16-bit samples" : "", g_lim.max_width, g_lim.max_height,
                    g_lim.max_alloc >> 20);
    return -1;
}

/* ---- the reader --------------------------------------------------------------------------- */

struct samrt_video_reader {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;
    struct SwsContext *sws;
    int sws_key;           /* pixel format, matrix and range the converter was set up for */
    int stream;
    int width, height;
    int64_t next_index;
    int64_t promised;      /* the container's frame count, -1 when it has none */
    int64_t start_pts;     /* the stream's first timestamp (AV_NOPTS_VALUE until known) */
    int64_t last_pts;      /* the latest timestamp delivered (AV_NOPTS_VALUE: none) */
    double declared_s;     /* the video's duration its container declares; -1 when none */
    double fps;
    double time_base;
    int pending;           /* pkt holds a packet the decoder did not take yet */
    int draining, eof, is_device;
    int live;              /* a camera or a named pipe: no length, and its end is an error */
    int read_err;          /* the demuxer's error (or a live source's end) reported once drained */
    int abort;             /* samrt_video_interrupt: blocking reads return at once */
    struct samrt_video_hw *hw;  /* NVDEC (video_nvdec.c); NULL: software decoding, host frames */
    uint8_t *host;         /* hw: one RGB frame for the frames NVDEC turns down (decoded on the CPU) */
    AVIOContext *avio;     /* samrt_video_open_mem */
    const uint8_t *mem;
    size_t mem_size, mem_pos;
    char name[256];        /* for messages */
};

void samrt_video_close(struct samrt_video_reader *r) {
    if (!r) return;
    sws_freeContext(r->sws);
    av_frame_free(&r->frame);
    av_packet_free(&r->pkt);
    avcodec_free_context(&r->dec);
    samrt_video_hw_free(r->hw);  /* after the decoder: its surfaces go back first */
    av_free(r->host);
    avformat_close_input(&r->fmt);
    if (r->avio) {
        av_freep(&r->avio->buffer);
        avio_context_free(&r->avio);
    }
    av_free(r);
}

static enum samrt_status fail(const struct samrt_video_reader *r, enum samrt_status st, int err, const char *what) {
    char buf[128];
    SAMRT_LOG_ERROR("%s: %s (%s)", r->name, what, samrt_video_err(err, buf, sizeof buf));
    return st;
}

/* A failure while reading, naming the frame it stopped at (the frames before were delivered). */
static enum samrt_status fail_at(const struct samrt_video_reader *r, int err, const char *what) {
    char buf[128];
    SAMRT_LOG_ERROR("%s: %s at frame %lld, after %lld good frame%s (%s)", r->name, what, (long long)r->next_index,
                    (long long)r->next_index, r->next_index == 1 ? "" : "s", samrt_video_err(err, buf, sizeof buf));
    return SAMRT_E_FORMAT;
}

/* At the end of the stream: an error when the frames fall short of what the container
 * promised, as a frame count (mp4, mov, avi) or as a duration (Matroska / WebM) by more than 1.5
 * frame intervals: a file cut off in its data ends early with no demux error. */
static enum samrt_status check_complete(const struct samrt_video_reader *r) {
    char where[64];
    if (r->next_index) snprintf(where, sizeof where, "after frame %lld", (long long)r->next_index - 1);
    else snprintf(where, sizeof where, "before its first frame");
    SAMRT_CHECK(r->promised < 0 || r->next_index >= r->promised, SAMRT_E_FORMAT,
                "%s: cut off: the file ends %s, %lld of the %lld frames its container lists", r->name, where,
                (long long)r->next_index, (long long)r->promised);
    if (r->promised >= 0 || r->declared_s <= 0 || r->fps <= 0) return SAMRT_OK;
    const double end_s =
        r->last_pts == AV_NOPTS_VALUE ? 0.0 : (double)(r->last_pts - r->start_pts) * r->time_base + 1.0 / r->fps;
    if (r->next_index && r->last_pts == AV_NOPTS_VALUE) return SAMRT_OK;  /* frames without timestamps */
    SAMRT_CHECK(end_s >= r->declared_s - 1.5 / r->fps, SAMRT_E_FORMAT,
                "%s: cut off: the file ends %s at %.3f s of the %.3f s its container declares (about %lld frames "
                "missing)",
                r->name, where, end_s, r->declared_s, (long long)((r->declared_s - end_s) * r->fps + 0.5));
    return SAMRT_OK;
}

/* Frames in the file by a demux pass (containers without a count: mkv, webm, avi, ...). */
static int64_t count_packets(const char *path, int stream) {
    AVFormatContext *fmt = NULL;
    AVDictionary *opts = open_options("file");
    const int ret_open = avformat_open_input(&fmt, path, NULL, &opts);
    av_dict_free(&opts);
    if (ret_open < 0) return -1;
    AVPacket *pkt = av_packet_alloc();
    int64_t n = 0;
    int ret = 0;
    while (pkt && (ret = av_read_frame(fmt, pkt)) >= 0) {
        n += pkt->stream_index == stream;
        av_packet_unref(pkt);
    }
    av_packet_free(&pkt);
    avformat_close_input(&fmt);
    return ret == AVERROR_EOF ? n : -1;
}

/* The video's duration in seconds as a Matroska / WebM file declares it: the stream's own, the
 * per-track DURATION tag, or the segment's when the video is its only stream; -1 when unknown
 * or another container. */
static double declared_duration(const AVFormatContext *fmt, const AVStream *st) {
    /* Matroska's header duration is exact; elsewhere (FLV metadata, a guess from the bit rate for
     * MPEG-TS) it can exceed the frames a complete file holds. mp4, mov and avi list a count. */
    if (!strstr(fmt->iformat->name, "matroska") || fmt->duration_estimation_method == AVFMT_DURATION_FROM_BITRATE)
        return -1.0;
    if (st->duration != AV_NOPTS_VALUE && st->duration > 0) return (double)st->duration * av_q2d(st->time_base);
    const AVDictionaryEntry *tag = av_dict_get(st->metadata, "DURATION", NULL, 0);
    int hh = 0, mm = 0;
    double ss = 0;
    if (tag && sscanf(tag->value, "%d:%d:%lf", &hh, &mm, &ss) == 3 && hh >= 0 && mm >= 0 && ss >= 0)
        return hh * 3600.0 + mm * 60.0 + ss;
    if (fmt->nb_streams == 1 && fmt->duration != AV_NOPTS_VALUE && fmt->duration > 0)
        return (double)fmt->duration / AV_TIME_BASE;
    return -1.0;
}

/* The stream headers, with every frame size the container declares checked against the plan
 * first and each probing decoder bounded to the planned pixels (find_stream_info decodes). */
static enum samrt_status find_streams(struct samrt_video_reader *r) {
    for (unsigned i = 0; i < r->fmt->nb_streams; i++) {
        const AVCodecParameters *p = r->fmt->streams[i]->codecpar;
        char what[48];
        snprintf(what, sizeof what, "stream %u declares", i);
        if (p->codec_type == AVMEDIA_TYPE_VIDEO && frame_fits(r->name, what, p->width, p->height, p->format) != 0)
            return SAMRT_E_UNSUPPORTED;
    }
    const unsigned n = r->fmt->nb_streams;
    AVDictionary **opts = n ? av_calloc(n, sizeof *opts) : NULL;
    SAMRT_CHECK(opts || !n, SAMRT_E_HOST_MEMORY, "%s: out of memory", r->name);
    for (unsigned i = 0; i < n; i++)
        av_dict_set_int(&opts[i], "max_pixels", (int64_t)g_lim.max_width * g_lim.max_height, 0);
    const int ret = avformat_find_stream_info(r->fmt, opts);
    for (unsigned i = 0; i < n; i++) av_dict_free(&opts[i]);
    av_free(opts);
    if (ret < 0) return fail(r, SAMRT_E_FORMAT, ret, "cannot read the stream headers");
    return SAMRT_OK;
}

/* The decoder's frame threads, or NVDEC when asked for and there (said once in the log either
 * way). */
static enum samrt_status pick_decoder(struct samrt_video_reader *r, SAMRT_AV_CONST AVCodec *codec, int threads,
                                      int device_frames) {
    r->dec->thread_count = threads;
    r->dec->thread_type = FF_THREAD_FRAME;
    if (!device_frames || r->is_device) return SAMRT_OK;
    char why[256];
    SAMRT_TRY(samrt_video_hw_attach(r->dec, codec, r->name, &r->hw, why, sizeof why));
    if (!r->hw) {
        SAMRT_LOG_INFO("%s: video decode: software, %d frame threads (NVDEC: %s)", r->name,
                       threads > 0 ? threads : av_cpu_count(), why);
        return SAMRT_OK;
    }
    r->host = av_malloc((size_t)r->dec->width * (size_t)r->dec->height * 3);
    SAMRT_CHECK(r->host, SAMRT_E_HOST_MEMORY, "%s: out of memory", r->name);
    SAMRT_LOG_INFO("%s: video decode: NVDEC (FFmpeg's cuda hwaccel) into device frames", r->name);
    return SAMRT_OK;
}

/* A video stream whose codec the linked FFmpeg cannot decode: valid input this build does not
 * handle, named with the codec and the container's tag for it. */
static enum samrt_status no_decoder(const struct samrt_video_reader *r) {
    const int i = av_find_best_stream(r->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    const AVCodecParameters *p = i >= 0 ? r->fmt->streams[i]->codecpar : NULL;
    char tag[AV_FOURCC_MAX_STRING_SIZE] = "";
    if (p && p->codec_tag) av_fourcc_make_string(tag, p->codec_tag);
    SAMRT_LOG_ERROR("%s: this FFmpeg has no decoder for its video stream (codec %s%s%s)", r->name,
                    p ? avcodec_get_name(p->codec_id) : "?", tag[0] ? ", tag " : "", tag);
    return SAMRT_E_UNSUPPORTED;
}

/* After the input is open: the video stream, its decoder, the size and the frame count. */
static enum samrt_status open_stream(struct samrt_video_reader *r, const char *path, int threads, int device_frames,
                                     struct samrt_video_info *info) {
    SAMRT_TRY(find_streams(r));
    int ret;
    SAMRT_AV_CONST AVCodec *codec = NULL;
    ret = av_find_best_stream(r->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (ret == AVERROR_STREAM_NOT_FOUND) return fail(r, SAMRT_E_FORMAT, ret, "no video stream");
    if (ret == AVERROR_DECODER_NOT_FOUND || (ret >= 0 && !codec)) return no_decoder(r);
    if (ret < 0) return fail(r, SAMRT_E_FORMAT, ret, "no decoder for its video stream");
    r->stream = ret;
    AVStream *st = r->fmt->streams[r->stream];
    r->dec = avcodec_alloc_context3(codec);
    r->pkt = av_packet_alloc();
    r->frame = av_frame_alloc();
    SAMRT_CHECK(r->dec && r->pkt && r->frame, SAMRT_E_HOST_MEMORY, "%s: out of memory", r->name);
    if ((ret = avcodec_parameters_to_context(r->dec, st->codecpar)) < 0)
        return fail(r, SAMRT_E_FORMAT, ret, "bad codec parameters");
    r->dec->max_pixels = (int64_t)g_lim.max_width * g_lim.max_height;  /* the decoder's own check, per frame */
    SAMRT_CHECK(r->dec->width > 0 && r->dec->height > 0, SAMRT_E_FORMAT, "%s: the video stream has no frame size",
                r->name);
    if (frame_fits(r->name, "its video stream has", r->dec->width, r->dec->height, r->dec->pix_fmt) != 0)
        return SAMRT_E_UNSUPPORTED;
    SAMRT_TRY(pick_decoder(r, codec, threads, device_frames));
    if ((ret = avcodec_open2(r->dec, codec, NULL)) < 0) return fail(r, SAMRT_E_FORMAT, ret, "cannot open the decoder");
    r->width = r->dec->width, r->height = r->dec->height;
    r->time_base = av_q2d(st->time_base);
    r->start_pts = st->start_time;
    r->promised = st->nb_frames > 0 ? st->nb_frames : -1;
    memset(info, 0, sizeof *info);
    info->width = r->width, info->height = r->height;
    const AVRational fr = av_guess_frame_rate(r->fmt, st, NULL);
    info->fps = fr.num > 0 && fr.den > 0 ? av_q2d(fr) : 0.0;
    r->fps = info->fps;
    r->declared_s = r->live ? -1.0 : declared_duration(r->fmt, st);
    info->is_device = r->live;
    info->n_frames = r->live ? -1 : r->promised;
    if (info->n_frames < 0 && !r->live && path) info->n_frames = count_packets(path, r->stream);
    SAMRT_CHECK(info->n_frames != 0, SAMRT_E_FORMAT, "%s: the video stream holds no frame (cut off?)", r->name);
    snprintf(info->codec, sizeof info->codec, "%s", codec->name);
    snprintf(info->container, sizeof info->container, "%s", r->fmt->iformat->name);
    info->on_device = r->hw != NULL;
    return SAMRT_OK;
}

static int is_device_path(const char *path) {
    struct stat sb;
    return !strncmp(path, "/dev/", 5) || (stat(path, &sb) == 0 && S_ISCHR(sb.st_mode));
}

/* A named pipe: read as it arrives, like a camera (no length, no second pass to count it). */
static int is_pipe_path(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode);
}

static int interrupted(void *opaque) { return __atomic_load_n(&((struct samrt_video_reader *)opaque)->abort, __ATOMIC_ACQUIRE); }

void samrt_video_interrupt(struct samrt_video_reader *r) {
    if (r) __atomic_store_n(&r->abort, 1, __ATOMIC_RELEASE);
}

/* A reader with its format context (the callback that interrupt() trips is set before open). */
static enum samrt_status reader_new(const char *name, struct samrt_video_reader **out) {
    samrt_video_lib_init();
    *out = NULL;
    struct samrt_video_reader *r = av_mallocz(sizeof *r);
    SAMRT_CHECK(r, SAMRT_E_HOST_MEMORY, "out of memory");
    snprintf(r->name, sizeof r->name, "%s", name);
    r->start_pts = r->last_pts = AV_NOPTS_VALUE;
    r->declared_s = -1.0;
    r->fmt = avformat_alloc_context();
    if (!r->fmt) {
        av_free(r);
        SAMRT_LOG_ERROR("out of memory");
        return SAMRT_E_HOST_MEMORY;
    }
    r->fmt->interrupt_callback.callback = interrupted;
    r->fmt->interrupt_callback.opaque = r;
    *out = r;
    return SAMRT_OK;
}

enum samrt_status samrt_video_open(const char *path, struct samrt_video_reader **out, struct samrt_video_info *info) {
    return samrt_video_open_with(path, NULL, out, info);
}

enum samrt_status samrt_video_open_with(const char *path, const struct samrt_video_open_opts *o,
                                        struct samrt_video_reader **out, struct samrt_video_info *info) {
    SAMRT_CHECK(path && out && info, SAMRT_E_INVALID_ARG, "samrt_video_open: NULL argument");
    const struct samrt_video_open_opts defaults = {0, 0};
    if (!o) o = &defaults;
    SAMRT_CHECK(o->threads >= 0, SAMRT_E_INVALID_ARG, "%s: %d decode threads", path, o->threads);
    struct samrt_video_reader *r = NULL;
    SAMRT_TRY(reader_new(path, &r));
    SAMRT_AV_CONST AVInputFormat *ifmt = NULL;
    r->is_device = is_device_path(path);
    r->live = r->is_device || is_pipe_path(path);
    if (r->is_device) {
        ifmt = av_find_input_format("video4linux2");
        if (!ifmt) {
            SAMRT_LOG_ERROR("%s: this FFmpeg has no V4L2 input (libavdevice built without video4linux2)", path);
            samrt_video_close(r);
            return SAMRT_E_UNSUPPORTED;
        }
    }
    AVDictionary *opts = open_options("file");  /* local files only: a playlist cannot reach the network */
    int ret = avformat_open_input(&r->fmt, path, ifmt, &opts);
    av_dict_free(&opts);
    if (ret < 0) {
        const enum samrt_status st = ret == AVERROR(ENOENT) || ret == AVERROR(EACCES) || ret == AVERROR(EIO)
                                         ? SAMRT_E_IO
                                         : SAMRT_E_FORMAT;
        fail(r, st, ret, st == SAMRT_E_IO ? "cannot open" : "not a video FFmpeg can read");
        samrt_video_close(r);
        return st;
    }
    enum samrt_status st = open_stream(r, path, r->live ? 1 : o->threads, o->device_frames, info);
    if (st != SAMRT_OK) {
        samrt_video_close(r);
        return st;
    }
    *out = r;
    return SAMRT_OK;
}

static int mem_read(void *opaque, uint8_t *buf, int n) {
    struct samrt_video_reader *r = opaque;
    const size_t left = r->mem_size - r->mem_pos;
    if (!left) return AVERROR_EOF;
    const size_t k = (size_t)n < left ? (size_t)n : left;
    memcpy(buf, r->mem + r->mem_pos, k);
    r->mem_pos += k;
    return (int)k;
}

static int64_t mem_seek(void *opaque, int64_t off, int whence) {
    struct samrt_video_reader *r = opaque;
    if (whence & AVSEEK_SIZE) return (int64_t)r->mem_size;
    const int64_t base = (whence & 3) == SEEK_CUR ? (int64_t)r->mem_pos : (whence & 3) == SEEK_END ? (int64_t)r->mem_size : 0;
    if (off > (int64_t)r->mem_size - base || base + off < 0) return AVERROR(EINVAL);
    r->mem_pos = (size_t)(base + off);
    return base + off;
}

enum samrt_status samrt_video_open_mem(const void *data, size_t size, struct samrt_video_reader **out,
                                       struct samrt_video_info *info) {
    SAMRT_CHECK((data || !size) && out && info, SAMRT_E_INVALID_ARG, "samrt_video_open_mem: NULL argument");
    struct samrt_video_reader *r = NULL;
    SAMRT_TRY(reader_new("(memory)", &r));
    r->mem = data, r->mem_size = size;
    uint8_t *buf = av_malloc(4096);
    r->avio = buf ? avio_alloc_context(buf, 4096, 0, r, mem_read, NULL, mem_seek) : NULL;
    if (!r->avio) {
        av_free(buf);
        samrt_video_close(r);
        SAMRT_LOG_ERROR("out of memory");
        return SAMRT_E_HOST_MEMORY;
    }
    r->fmt->pb = r->avio;
    r->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    AVDictionary *opts = open_options("none");  /* bytes in memory open nothing else */
    int ret = avformat_open_input(&r->fmt, NULL, NULL, &opts);
    av_dict_free(&opts);
    enum samrt_status st = ret < 0 ? fail(r, SAMRT_E_FORMAT, ret, "not a video FFmpeg can read") : SAMRT_OK;
    if (st == SAMRT_OK) st = open_stream(r, NULL, 1, 0, info);
    if (st != SAMRT_OK) {
        samrt_video_close(r);
        return st;
    }
    *out = r;
    return SAMRT_OK;
}

/* The decoded (software) frame as RGB8 into the host buffer rgb. */
static enum samrt_status convert(struct samrt_video_reader *r, uint8_t *rgb) {
    AVFrame *fr = r->frame;
    const struct SwsContext *prev = r->sws;
    r->sws = sws_getCachedContext(r->sws, r->width, r->height, (enum AVPixelFormat)fr->format, r->width, r->height,
                                  AV_PIX_FMT_RGB24, SWS_BICUBIC, NULL, NULL, NULL);
    SAMRT_CHECK(r->sws, SAMRT_E_UNSUPPORTED, "%s: cannot convert pixel format %s to RGB", r->name,
                av_get_pix_fmt_name((enum AVPixelFormat)fr->format) ? av_get_pix_fmt_name((enum AVPixelFormat)fr->format)
                                                                    : "?");
    /* the stream's YUV matrix and range (a no-op, refused, for RGB sources), once per change */
    const int key = 1 + ((int)fr->format << 16 | (int)fr->colorspace << 8 | (int)fr->color_range);
    if (r->sws != prev || key != r->sws_key)
        sws_setColorspaceDetails(r->sws, sws_getCoefficients(fr->colorspace), fr->color_range == AVCOL_RANGE_JPEG,
                                 sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
    r->sws_key = key;
    uint8_t *dst[4] = {rgb, NULL, NULL, NULL};
    int dst_stride[4] = {3 * r->width, 0, 0, 0};
    sws_scale(r->sws, (const uint8_t *const *)fr->data, fr->linesize, 0, r->height, dst, dst_stride);
    return SAMRT_OK;
}

/* The decoded frame's facts into f once it is delivered; its buffers go back to the decoder. */
static void frame_done(struct samrt_video_reader *r, struct samrt_video_frame *f) {
    AVFrame *fr = r->frame;
    const int64_t ts = fr->best_effort_timestamp;
    if (ts != AV_NOPTS_VALUE && r->start_pts == AV_NOPTS_VALUE) r->start_pts = ts;  /* cameras: wall clock */
    if (ts != AV_NOPTS_VALUE && (r->last_pts == AV_NOPTS_VALUE || ts > r->last_pts)) r->last_pts = ts;
    f->index = r->next_index++;
    f->pts_s = ts == AV_NOPTS_VALUE ? -1.0 : (double)(ts - r->start_pts) * r->time_base;
    f->eof = 0;
    av_frame_unref(fr);
}

/* Gives the decoder its next packet (or the end-of-stream flush). */
static enum samrt_status feed(struct samrt_video_reader *r) {
    if (!r->pending) {
        const int ret = av_read_frame(r->fmt, r->pkt);
        if (ret == AVERROR_EOF || (ret < 0 && ret != AVERROR(EAGAIN) && ret != AVERROR_EXIT)) {
            /* the end, or a read error: the frames the decoder holds come out first */
            r->read_err = ret != AVERROR_EOF || r->live ? ret : 0;
            r->draining = 1;
            avcodec_send_packet(r->dec, NULL);
            return SAMRT_OK;
        }
        if (ret == AVERROR(EAGAIN)) {  /* a device with no frame yet */
            av_usleep(1000);
            return SAMRT_OK;
        }
        if (ret == AVERROR_EXIT) {
            SAMRT_LOG_ERROR("%s: reading was interrupted at frame %lld", r->name, (long long)r->next_index);
            return SAMRT_E_BAD_STATE;
        }
        if (r->pkt->stream_index != r->stream) {
            av_packet_unref(r->pkt);
            return SAMRT_OK;
        }
        r->pending = 1;
    }
    const int ret = avcodec_send_packet(r->dec, r->pkt);
    if (ret == AVERROR(EAGAIN)) return SAMRT_OK;  /* take a frame out first, then send it again */
    r->pending = 0;
    av_packet_unref(r->pkt);
    if (ret < 0) return fail_at(r, ret, "cannot decode");
    return SAMRT_OK;
}

/* The next decoded frame into r->frame (checked against the video's size), or f->eof. */
static enum samrt_status next_frame(struct samrt_video_reader *r, struct samrt_video_frame *f) {
    f->index = -1, f->pts_s = -1.0, f->eof = 0, f->hw = 0;
    for (;;) {
        if (r->eof) {
            f->eof = 1;
            return SAMRT_OK;
        }
        const int ret = avcodec_receive_frame(r->dec, r->frame);
        if (ret == 0) {
            const AVFrame *fr = r->frame;
            if (fr->width == r->width && fr->height == r->height) return SAMRT_OK;
            SAMRT_CHECK(0, SAMRT_E_FORMAT, "%s: frame %lld is %dx%d but the video started at %dx%d", r->name,
                        (long long)r->next_index, fr->width, fr->height, r->width, r->height);
        }
        if (ret == AVERROR_EOF) {
            r->eof = 1;
            if (r->read_err)
                return fail_at(r, r->read_err, !r->live ? "cannot read the data"
                                               : r->is_device ? "the device stopped sending"
                                                              : "the pipe stopped sending");
            SAMRT_TRY(check_complete(r));
            continue;
        }
        if (ret != AVERROR(EAGAIN)) return fail_at(r, ret, "cannot decode");
        SAMRT_CHECK(!r->draining, SAMRT_E_FORMAT, "%s: the decoder stalled at the end of the stream, after frame %lld",
                    r->name, (long long)r->next_index - 1);
        SAMRT_TRY(feed(r));
    }
}

enum samrt_status samrt_video_read(struct samrt_video_reader *r, uint8_t *rgb, struct samrt_video_frame *f) {
    SAMRT_CHECK(r && rgb && f, SAMRT_E_INVALID_ARG, "samrt_video_read: NULL argument");
    SAMRT_CHECK(!r->hw, SAMRT_E_BAD_STATE, "%s: this reader decodes into device frames (samrt_video_read_device)",
                r->name);
    SAMRT_TRY(next_frame(r, f));
    if (f->eof) return SAMRT_OK;
    const enum samrt_status st = convert(r, rgb);
    if (st != SAMRT_OK) {
        av_frame_unref(r->frame);
        return st;
    }
    frame_done(r, f);
    return SAMRT_OK;
}

/* The device readers' body: an NVDEC frame converted to RGB8 into buf, or with nv12 its planes
 * copied there and described; a frame the CPU decoded converted and uploaded as RGB8. */
static enum samrt_status read_device(struct samrt_video_reader *r, uint8_t *buf, size_t bytes,
                                     struct samrt_video_frame *f, struct samrt_image_nv12 *nv12) {
    SAMRT_CHECK(r->hw, SAMRT_E_BAD_STATE, "%s: this reader decodes into host frames (samrt_video_read)", r->name);
    const size_t rgb_bytes = (size_t)r->width * (size_t)r->height * 3;
    SAMRT_CHECK(bytes >= rgb_bytes, SAMRT_E_INVALID_ARG, "%s: a %zu-byte buffer for %dx%d frames", r->name, bytes,
                r->width, r->height);
    if (nv12) memset(nv12, 0, sizeof *nv12);
    SAMRT_TRY(next_frame(r, f));
    if (f->eof) return SAMRT_OK;
    const int hw = r->frame->format == AV_PIX_FMT_CUDA;
    enum samrt_status st;
    if (hw && nv12) st = samrt_video_hw_copy_nv12(r->hw, r->frame, buf, bytes, nv12);
    else if (hw) st = samrt_video_hw_convert(r->hw, r->frame, buf, 3 * (size_t)r->width);
    else if ((st = convert(r, r->host)) == SAMRT_OK) st = samrt_video_hw_upload(r->hw, r->host, rgb_bytes, buf);
    if (st != SAMRT_OK) {
        av_frame_unref(r->frame);
        if (nv12) memset(nv12, 0, sizeof *nv12);
        SAMRT_CHECK(0, st, "%s: cannot convert frame %lld on the GPU", r->name, (long long)r->next_index);
    }
    frame_done(r, f);
    f->hw = hw;
    return SAMRT_OK;
}

enum samrt_status samrt_video_read_device_nv12(struct samrt_video_reader *r, uint8_t *buf, size_t bytes,
                                               struct samrt_video_frame *f, struct samrt_image_nv12 *nv12) {
    SAMRT_CHECK(r && buf && f && nv12, SAMRT_E_INVALID_ARG, "samrt_video_read_device_nv12: NULL argument");
    return read_device(r, buf, bytes, f, nv12);
}

enum samrt_status samrt_video_read_device(struct samrt_video_reader *r, uint8_t *rgb, struct samrt_video_frame *f) {
    SAMRT_CHECK(r && rgb && f, SAMRT_E_INVALID_ARG, "samrt_video_read_device: NULL argument");
    return read_device(r, rgb, (size_t)r->width * (size_t)r->height * 3, f, NULL);
}
