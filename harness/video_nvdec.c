/* video_nvdec.c - the video reader's GPU path (video_impl.h): FFmpeg's `cuda` hwaccel (NVDEC)
 * decoding into device NV12 surfaces, converted to RGB8 in a device frame by the op layer
 * (ops_video.h: swscale's arithmetic, so the pixels match the software path's), or copied as
 * NV12 planes for samrt_engine_track_push_nv12, whose resize converts with the same arithmetic.
 *
 * The hwaccel device is handed the thread's current CUDA context (open_device below), so
 * FFmpeg's surfaces live in the same context as samrt's memory, and its stream is the
 * reader's own decode stream: NVDEC's copy into a pool surface and the conversion that reads
 * it are ordered on one stream. The conversion rounds as the swscale form the software path
 * runs on this machine (x86 SIMD or C tables, nv12_rgb.h), so the two paths give the same
 * pixels for the same decoded samples. The decoder keeps a bounded surface pool (FFmpeg preallocates
 * its initial_pool_size, the stream's references + SAMRT_VIDEO_HW_EXTRA_FRAMES, when the first
 * frame arrives; the reader holds one surface at a time, so the pool never grows). A stream the
 * hwaccel turns down (a codec or profile without NVDEC on this GPU, a bit depth other than 8,
 * 4:2:2 / 4:4:4 chroma) is decoded in software and uploaded, said once in the log. Without CUDA
 * in the build every entry says so and the reader decodes in software. */
#include <libavcodec/avcodec.h>
#include <libavutil/hwcontext.h>
#include <libavutil/cpu.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <string.h>

#include "ops_video.h"
#include "platform.h"
#include "video.h"
#include "video_impl.h"

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
#include <libavutil/hwcontext_cuda.h>
#endif

/* 1 when the linked libavcodec has the cuda hwaccel (NVDEC) for the codec. */
static int codec_has_nvdec(const AVCodec *codec) {
    for (int i = 0;; i++) {
        const AVCodecHWConfig *cfg = avcodec_get_hw_config(codec, i);
        if (!cfg) return 0;
        if (cfg->device_type == AV_HWDEVICE_TYPE_CUDA && (cfg->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) &&
            cfg->pix_fmt == AV_PIX_FMT_CUDA)
            return 1;
    }
}

/* The codecs of the linked FFmpeg that NVDEC serves, among the common ones, as "h264 hevc ...". */
static void nvdec_codecs(char *buf, size_t len) {
    static const enum AVCodecID ids[] = {AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AV1, AV_CODEC_ID_VP9,
                                         AV_CODEC_ID_MPEG4, AV_CODEC_ID_MPEG2VIDEO};
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const AVCodec *c = avcodec_find_decoder(ids[i]);
        if (c && codec_has_nvdec(c) && n < len) n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", c->name);
    }
}

#ifdef SAMRT_HAVE_CUDA

/* The form of swscale's YUV 4:2:0 -> RGB24 that the software path runs on this machine: x86's
 * SIMD converter when FFmpeg runs with MMXEXT or SSSE3, the C tables otherwise (aarch64 has
 * no SIMD form for RGB24). */
static int sws_form(void) {
#if defined(__x86_64__) || defined(__i386__)
    if (av_get_cpu_flags() & (AV_CPU_FLAG_SSSE3 | AV_CPU_FLAG_MMXEXT)) return SAMRT_YUV_SWS_X86;
#endif
    return SAMRT_YUV_SWS_C;
}

struct samrt_video_hw {
    AVBufferRef *device;         /* AV_HWDEVICE_TYPE_CUDA on samrt's context */
    samrt_stream *stream;        /* the decode stream: NVDEC's copies and the conversion */
    struct samrt_yuv_coefs k;
    int key;                     /* colour space and range k was made for; 0: none yet */
    int sw_said;                 /* the software fallback was logged */
    char name[256];
};

int samrt_video_hw_in_build(void) { return 1; }

/* get_format: the CUDA surfaces when offered for an 8-bit 4:2:0 stream, else the first
 * software format (the stream then decodes on the CPU and is uploaded). */
static enum AVPixelFormat pick_format(AVCodecContext *dec, const enum AVPixelFormat *fmts) {
    struct samrt_video_hw *hw = (struct samrt_video_hw *)dec->opaque;
    const AVPixFmtDescriptor *sw = av_pix_fmt_desc_get(dec->sw_pix_fmt);
    const int nv12 = sw && sw->comp[0].depth == 8 && sw->log2_chroma_w == 1 && sw->log2_chroma_h == 1;
    int offered = 0;
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++) offered |= *p == AV_PIX_FMT_CUDA;
    if (offered && nv12) return AV_PIX_FMT_CUDA;
    if (!hw->sw_said) {
        SAMRT_LOG_INFO("%s: video decode: software, uploaded (NVDEC %s)", hw->name,
                       !offered ? "did not take this stream: no decoder for its codec or profile on this GPU"
                                : "gives P010 / 4:4:4 surfaces for this stream's bit depth or chroma, which the GPU "
                                  "conversion does not take");
        hw->sw_said = 1;
    }
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++) {
        const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(*p);
        if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
    }
    return AV_PIX_FMT_NONE;
}

void samrt_video_hw_free(struct samrt_video_hw *hw) {
    if (!hw) return;
    if (hw->stream) (void)samrt_stream_sync(hw->stream);
    av_buffer_unref(&hw->device);
    samrt_stream_destroy(hw->stream);
    av_free(hw);
}

/* FFmpeg's CUDA device on the context samrt's memory lives in (the thread's current one:
 * the primary context, or an engine's green context): handed over, not created, so FFmpeg
 * neither asks for its own scheduling flags on the primary context (it refuses one already
 * active with others) nor destroys it; its copies run on `stream`. */
static int open_device(AVBufferRef **out, CUstream stream) {
    void *ctx = samrt_platform_cuda_context();
    if (!ctx) {  /* no driver entry point: FFmpeg retains the primary context itself */
        int ordinal = 0;
        char dev[16];
        if (cudaGetDevice(&ordinal) != cudaSuccess) (void)cudaGetLastError();
        snprintf(dev, sizeof dev, "%d", ordinal);
        const int r = av_hwdevice_ctx_create(out, AV_HWDEVICE_TYPE_CUDA, dev, NULL, AV_CUDA_USE_PRIMARY_CONTEXT);
        if (r >= 0 && stream) ((AVCUDADeviceContext *)((AVHWDeviceContext *)(*out)->data)->hwctx)->stream = stream;
        return r;
    }
    AVBufferRef *ref = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
    if (!ref) return AVERROR(ENOMEM);
    AVCUDADeviceContext *cu = (AVCUDADeviceContext *)((AVHWDeviceContext *)ref->data)->hwctx;
    cu->cuda_ctx = (CUcontext)ctx;
    cu->stream = stream;
    const int ret = av_hwdevice_ctx_init(ref);
    if (ret < 0) av_buffer_unref(&ref);
    *out = ref;
    return ret;
}

enum samrt_status samrt_video_hw_attach(AVCodecContext *dec, const AVCodec *codec, const char *name,
                                        struct samrt_video_hw **out, char *why, size_t why_len) {
    *out = NULL;
    if (!codec_has_nvdec(codec)) {
        snprintf(why, why_len, "this FFmpeg has no NVDEC (cuda hwaccel) for %s: it was built without --enable-nvdec, "
                 "or NVDEC does not decode this codec", codec->name);
        return SAMRT_OK;
    }
    int ordinal = 0;
    if (cudaGetDevice(&ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, why_len, "no CUDA device");
        return SAMRT_OK;
    }
    struct samrt_video_hw *hw = (struct samrt_video_hw *)av_mallocz(sizeof *hw);
    SAMRT_CHECK(hw, SAMRT_E_HOST_MEMORY, "%s: out of memory", name);
    snprintf(hw->name, sizeof hw->name, "%s", name);
    char err[128];
    enum samrt_status st = samrt_stream_create(&hw->stream);
    if (st != SAMRT_OK) {
        samrt_video_hw_free(hw);
        SAMRT_CHECK(0, st, "%s: cannot set up NVDEC decoding", name);
    }
    const int ret = open_device(&hw->device, (CUstream)(void *)hw->stream);
    if (ret < 0) {
        snprintf(why, why_len, "FFmpeg cannot use CUDA device %d's context (%s)", ordinal,
                 samrt_video_err(ret, err, sizeof err));
        samrt_video_hw_free(hw);
        return SAMRT_OK;
    }
    dec->hw_device_ctx = av_buffer_ref(hw->device);
    if (!dec->hw_device_ctx) {
        samrt_video_hw_free(hw);
        SAMRT_CHECK(0, SAMRT_E_HOST_MEMORY, "%s: cannot set up NVDEC decoding", name);
    }
    dec->opaque = hw;
    dec->get_format = pick_format;
    dec->extra_hw_frames = SAMRT_VIDEO_HW_EXTRA_FRAMES;  /* the pool: the stream's references + these */
    dec->thread_count = 1;                               /* NVDEC decodes; no frame threads */
    *out = hw;
    return SAMRT_OK;
}

/* The frame's surfaces must be NV12 (8-bit 4:2:0): what the conversion and the NV12 copy read. */
static enum samrt_status nv12_surfaces(const struct samrt_video_hw *hw, const AVFrame *fr) {
    const AVHWFramesContext *fc = fr->hw_frames_ctx ? (const AVHWFramesContext *)fr->hw_frames_ctx->data : NULL;
    SAMRT_CHECK(fc && fc->sw_format == AV_PIX_FMT_NV12, SAMRT_E_UNSUPPORTED,
                "%s: NVDEC gave %s surfaces; the GPU conversion takes NV12 (8-bit 4:2:0) only", hw->name,
                fc && av_get_pix_fmt_name(fc->sw_format) ? av_get_pix_fmt_name(fc->sw_format) : "unknown");
    return SAMRT_OK;
}

enum samrt_status samrt_video_hw_convert(struct samrt_video_hw *hw, const AVFrame *fr, uint8_t *rgb, size_t pitch) {
    SAMRT_TRY(nv12_surfaces(hw, fr));
    const int key = 1 + ((int)fr->colorspace << 8 | (int)fr->color_range);
    if (key != hw->key) {  /* the same matrix and range the software path's sws_setColorspaceDetails gets */
        samrt_yuv_coefs_init(sws_getCoefficients(fr->colorspace), fr->color_range == AVCOL_RANGE_JPEG, sws_form(),
                             &hw->k);
        hw->key = key;
    }
    SAMRT_TRY(samrt_op_nv12_rgb(&hw->k, fr->data[0], (size_t)fr->linesize[0], fr->data[1], (size_t)fr->linesize[1],
                                fr->width, fr->height, rgb, pitch, hw->stream));
    return samrt_stream_sync(hw->stream);  /* the frame is in rgb; its surface goes back to the pool */
}

enum samrt_status samrt_video_hw_copy_nv12(struct samrt_video_hw *hw, const AVFrame *fr, uint8_t *buf, size_t bytes,
                                           struct samrt_image_nv12 *out) {
    SAMRT_TRY(nv12_surfaces(hw, fr));
    const size_t w = (size_t)fr->width, h = (size_t)fr->height, cw = 2 * ((w + 1) / 2), ch = (h + 1) / 2;
    SAMRT_CHECK(w * h + cw * ch <= bytes, SAMRT_E_INVALID_ARG, "%s: a %zux%zu NV12 frame does not fit %zu bytes",
                hw->name, w, h, bytes);
    SAMRT_TRY(samrt_stream_copy_2d(buf, w, fr->data[0], (size_t)fr->linesize[0], w, h, SAMRT_COPY_D2D, hw->stream));
    SAMRT_TRY(samrt_stream_copy_2d(buf + w * h, cw, fr->data[1], (size_t)fr->linesize[1], cw, ch, SAMRT_COPY_D2D,
                                   hw->stream));
    memset(out, 0, sizeof *out);
    out->y = buf;
    out->uv = buf + w * h;
    out->y_stride = (int)w;
    out->uv_stride = (int)cw;
    out->width = fr->width;
    out->height = fr->height;
    /* the colour fields samrt_video_hw_convert's swscale form reads: the same pixels */
    memcpy(out->yuv_coefs, sws_getCoefficients(fr->colorspace), sizeof out->yuv_coefs);
    out->yuv_full_range = fr->color_range == AVCOL_RANGE_JPEG;
    out->yuv_x86 = sws_form() == SAMRT_YUV_SWS_X86;
    return samrt_stream_sync(hw->stream);  /* the planes are in buf; the surface goes back to the pool */
}

enum samrt_status samrt_video_hw_upload(struct samrt_video_hw *hw, const uint8_t *host, size_t bytes, uint8_t *rgb) {
    SAMRT_TRY(samrt_stream_copy(rgb, host, bytes, SAMRT_COPY_H2D, hw->stream));
    return samrt_stream_sync(hw->stream);
}

void samrt_video_decode_path(char *buf, size_t len) {
    samrt_video_lib_init();
    char codecs[96];
    nvdec_codecs(codecs, sizeof codecs);
    const char *why = NULL;
    char err[128];
    int n = 0;
    if (!codecs[0]) why = "this FFmpeg has no NVDEC (built without --enable-nvdec)";
    else if (samrt_platform_device_count(&n) != SAMRT_OK || n < 1) why = "no GPU";
    AVBufferRef *dev = NULL;
    int ret = 0;
    if (!why && (ret = open_device(&dev, NULL)) < 0)
        why = samrt_video_err(ret, err, sizeof err);
    av_buffer_unref(&dev);
    if (!why)
        snprintf(buf, len, "NVDEC via FFmpeg's cuda hwaccel (%s) into device frames; software with frame threads "
                 "for host frames", codecs);
    else
        snprintf(buf, len, "software with frame threads (x%d by default); NVDEC: %s", av_cpu_count(), why);
}

#else /* no CUDA in this build: the software decoder only */

struct samrt_video_hw {
    int unused;
};

int samrt_video_hw_in_build(void) { return 0; }

void samrt_video_hw_free(struct samrt_video_hw *hw) { (void)hw; }

enum samrt_status samrt_video_hw_attach(AVCodecContext *dec, const AVCodec *codec, const char *name,
                                        struct samrt_video_hw **out, char *why, size_t why_len) {
    (void)dec, (void)codec, (void)name;
    *out = NULL;
    snprintf(why, why_len, "this build has no CUDA");
    return SAMRT_OK;
}

enum samrt_status samrt_video_hw_convert(struct samrt_video_hw *hw, const AVFrame *fr, uint8_t *rgb, size_t pitch) {
    (void)hw, (void)fr, (void)rgb, (void)pitch;
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_video_hw_copy_nv12(struct samrt_video_hw *hw, const AVFrame *fr, uint8_t *buf, size_t bytes,
                                           struct samrt_image_nv12 *out) {
    (void)hw, (void)fr, (void)buf, (void)bytes, (void)out;
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_video_hw_upload(struct samrt_video_hw *hw, const uint8_t *host, size_t bytes, uint8_t *rgb) {
    (void)hw, (void)host, (void)bytes, (void)rgb;
    return SAMRT_E_UNSUPPORTED;
}

void samrt_video_decode_path(char *buf, size_t len) {
    samrt_video_lib_init();
    char codecs[96];
    nvdec_codecs(codecs, sizeof codecs);
    snprintf(buf, len, "software with frame threads (x%d by default); NVDEC: not in this build (no CUDA)%s%s",
             av_cpu_count(), codecs[0] ? "; this FFmpeg has the cuda hwaccel for " : "", codecs);
}

#endif
