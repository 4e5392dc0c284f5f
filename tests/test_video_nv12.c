/* test_video_nv12.c - the GPU video path's colour conversion against the software path, on the
 * CPU (kernels/nv12_rgb.h's C reference; video.h's software fallback):
 *   1. a clip written by the harness (libx264 or MPEG-4 part 2, named in the output) read by
 *      samrt_video_open_with asking for device frames: without NVDEC (this build or machine) it
 *      says so, decodes in software with frame threads and gives the same bytes as
 *      samrt_video_open;
 *   2. each frame decoded by FFmpeg as YUV 4:2:0, made NV12 and converted by the reference in
 *      the swscale form this machine runs (x86 SIMD or C tables), against the software path's
 *      RGB of the same frame: equal bit for bit; the other form's max / mean difference is
 *      printed too;
 *   3. the C-table form equals swscale with FFmpeg's SIMD off (av_force_cpu_flags(0)), and on
 *      x86 the SIMD form equals swscale as it runs, bit for bit, for BT.601 / BT.709 / SMPTE
 *      240M, limited and full range;
 *   4. the reference on odd sizes and padded pitches equals its per-pixel definition.
 * Exits 77 without FFmpeg in the build. */
#include <libavutil/cpu.h>

#include "video_nv12_util.h"

#define W 640
#define H 360
#define FRAMES 6

static int g_fail;

#define EXPECT(cond, ...)                        \
    do {                                         \
        if (!(cond)) {                           \
            fprintf(stderr, "FAIL: " __VA_ARGS__); \
            fprintf(stderr, "\n");               \
            g_fail = 1;                          \
        }                                        \
    } while (0)

/* 1: the fallback reads the same frames as the plain reader; they go to rgb (FRAMES x W x H x 3). */
static void check_fallback(const char *path, uint8_t *rgb) {
    struct samrt_video_reader *a = NULL, *b = NULL;
    struct samrt_video_info ia, ib;
    const struct samrt_video_open_opts o = {2, 1};
    EXPECT(samrt_video_open_with(path, &o, &a, &ia) == SAMRT_OK, "open with device frames");
    EXPECT(samrt_video_open(path, &b, &ib) == SAMRT_OK, "open");
    if (!a || !b) exit(1);
    printf("device frames asked: on_device=%d (%s)\n", ia.on_device,
           ia.on_device ? "NVDEC" : "software fallback, 2 frame threads");
    const size_t n = (size_t)W * H * 3;
    uint8_t *tmp = (uint8_t *)malloc(n), *dev = NULL;
    int k = 0;
    struct samrt_video_frame fa, fb;
    if (ia.on_device && samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, n, (void **)&dev) != SAMRT_OK) exit(1);
    for (;; k++) {
        enum samrt_status sa = ia.on_device ? samrt_video_read_device(a, dev, &fa) : samrt_video_read(a, tmp, &fa);
        EXPECT(sa == SAMRT_OK, "read %d (fallback)", k);
        EXPECT(samrt_video_read(b, rgb + (size_t)(k < FRAMES ? k : 0) * n, &fb) == SAMRT_OK, "read %d", k);
        EXPECT(fa.eof == fb.eof, "frame %d: the two readers end apart", k);
        if (fa.eof || fb.eof || sa != SAMRT_OK) break;
        if (!ia.on_device) EXPECT(!memcmp(tmp, rgb + (size_t)k * n, n), "frame %d differs between the readers", k);
        EXPECT(fa.index == fb.index && fa.pts_s == fb.pts_s, "frame %d: index / pts differ", k);
    }
    EXPECT(k == FRAMES, "%d frames read, %d written", k, FRAMES);
    uint8_t probe[3];
    if (!ia.on_device) EXPECT(samrt_video_read_device(a, probe, &fa) == SAMRT_E_BAD_STATE, "device read of host frames");
    if (dev) samrt_platform_mem_free(SAMRT_MEM_DEVICE, dev);
    free(tmp);
    samrt_video_close(a);
    samrt_video_close(b);
}

/* 2 and 3: the reference on each decoded frame against swscale (SIMD as linked, then C). */
static void check_frames(const char *path, const uint8_t *sw_rgb) {
    struct vn_dec d;
    if (vn_open(&d, path) != 0) exit(1);
    const size_t n = (size_t)W * H * 3;
    uint8_t *uv = (uint8_t *)malloc((size_t)W * H), *ref = (uint8_t *)malloc(n), *sws = (uint8_t *)malloc(n);
    int k = 0, worst = 0;
    double worst_mean = 0;
    static const int spaces[][2] = {{AVCOL_SPC_UNSPECIFIED, 0}, {AVCOL_SPC_BT709, 0}, {AVCOL_SPC_BT470BG, 1},
                                    {AVCOL_SPC_BT709, 1}, {AVCOL_SPC_SMPTE240M, 0}};
    for (; vn_next(&d) && k < FRAMES; k++) {
        const AVFrame *fr = d.frame;
        EXPECT(fr->format == AV_PIX_FMT_YUV420P && fr->width == W && fr->height == H, "frame %d is not 4:2:0", k);
        vn_interleave(fr, uv);
        struct samrt_yuv_coefs c;
        int mx, other_mx;
        double mean, other_mean;
        for (int form = 0; form < 2; form++) {
            const int f = form == 0 ? vn_sws_form() : SAMRT_YUV_SWS_X86 + SAMRT_YUV_SWS_C - vn_sws_form();
            samrt_yuv_coefs_init(sws_getCoefficients(fr->colorspace), fr->color_range == AVCOL_RANGE_JPEG, f, &c);
            EXPECT(samrt_nv12_rgb_ref(&c, fr->data[0], (size_t)fr->linesize[0], uv, W, W, H, ref, 3 * W) == SAMRT_OK,
                   "ref");
            vn_diff(ref, sw_rgb + (size_t)k * n, n, form ? &other_mx : &mx, form ? &other_mean : &mean);
        }
        printf("frame %d (colorspace %d, range %d): reference (%s form) vs the software path: max %d, mean %.4f; "
               "the other form: max %d, mean %.4f\n",
               k, (int)fr->colorspace, (int)fr->color_range, vn_sws_form() == SAMRT_YUV_SWS_X86 ? "x86" : "C", mx, mean,
               other_mx, other_mean);
        worst = mx > worst ? mx : worst;
        worst_mean = mean > worst_mean ? mean : worst_mean;
        const int flags = av_get_cpu_flags(), here = vn_sws_form();
        for (int form = 0; form < 2; form++) {
            if (form == SAMRT_YUV_SWS_X86 && here != SAMRT_YUV_SWS_X86) continue;
            av_force_cpu_flags(form == SAMRT_YUV_SWS_C ? 0 : flags);
            for (size_t v = 0; v < sizeof spaces / sizeof spaces[0]; v++) {
                samrt_yuv_coefs_init(sws_getCoefficients(spaces[v][0]), spaces[v][1], form, &c);
                samrt_nv12_rgb_ref(&c, fr->data[0], (size_t)fr->linesize[0], uv, W, W, H, ref, 3 * W);
                vn_sws_rgb(fr, spaces[v][0], spaces[v][1], sws);
                vn_diff(ref, sws, n, &mx, &mean);
                if (k == 0)
                    printf("  swscale %s, colorspace %d range %s: max %d, mean %.4f\n",
                           form ? "as it runs (x86 SIMD)" : "C tables (SIMD off)", spaces[v][0],
                           spaces[v][1] ? "full" : "limited", mx, mean);
                EXPECT(mx == 0, "frame %d colorspace %d full %d form %d: the reference differs from swscale (max %d)",
                       k, spaces[v][0], spaces[v][1], form, mx);
            }
        }
        av_force_cpu_flags(flags);
    }
    EXPECT(k == FRAMES, "FFmpeg decoded %d frames", k);
    printf("reference vs the software path over %d frames: max %d, worst mean %.4f\n", k, worst, worst_mean);
    EXPECT(worst == 0, "the GPU conversion's reference differs from the software path");
    free(uv);
    free(ref);
    free(sws);
    vn_close(&d);
}

/* 4: odd sizes, padded pitches, every pixel by its definition. */
static void check_odd(void) {
    const int w = 37, h = 23, yp = 41, cp = 2 * 19 + 6, rp = 3 * 37 + 5;
    uint8_t *y = (uint8_t *)malloc((size_t)yp * h), *uv = (uint8_t *)malloc((size_t)cp * 12);
    uint8_t *out = (uint8_t *)malloc((size_t)rp * h);
    uint64_t s = 7;
    for (int i = 0; i < yp * h; i++) y[i] = (uint8_t)((s = s * 6364136223846793005ull + 1) >> 56);
    for (int i = 0; i < cp * 12; i++) uv[i] = (uint8_t)((s = s * 6364136223846793005ull + 1) >> 56);
    struct samrt_yuv_coefs c;
    samrt_yuv_coefs_init(sws_getCoefficients(AVCOL_SPC_BT709), 0, SAMRT_YUV_SWS_X86, &c);
    EXPECT(samrt_nv12_rgb_ref(&c, y, yp, uv, cp, w, h, out, rp) == SAMRT_OK, "odd size");
    long bad = 0;
    for (int r = 0; r < h; r++)
        for (int x = 0; x < w; x++) {
            uint8_t want[3];
            samrt_yuv_pixel(&c, y[r * yp + x], uv[(r / 2) * cp + 2 * (x / 2)], uv[(r / 2) * cp + 2 * (x / 2) + 1], want);
            bad += memcmp(want, out + (size_t)r * rp + 3 * x, 3) != 0;
        }
    EXPECT(bad == 0, "%ld odd-size pixels differ", bad);
    EXPECT(samrt_nv12_rgb_ref(&c, y, w - 1, uv, cp, w, h, out, rp) == SAMRT_E_INVALID_ARG, "short luma pitch accepted");
    free(y);
    free(uv);
    free(out);
}

int main(int argc, char **argv) {
    if (!samrt_video_available()) {
        printf("test_video_nv12: skipped: no FFmpeg in this build\n");
        return 77;
    }
    char path[512], codec[32];
    snprintf(path, sizeof path, "%s/test_video_nv12.mp4", argc > 1 ? argv[1] : ".");
    if (vn_write_clip(path, W, H, FRAMES, codec, sizeof codec) != 0) return 1;
    printf("clip: %dx%d, %d frames, %s\n", W, H, FRAMES, codec);
    char dp[512];
    samrt_video_decode_path(dp, sizeof dp);
    printf("video decode path: %s\n", dp);
    uint8_t *sw = (uint8_t *)malloc((size_t)FRAMES * W * H * 3);
    check_fallback(path, sw);
    check_frames(path, sw);
    check_odd();
    free(sw);
    remove(path);
    printf(g_fail ? "test_video_nv12: FAILED\n" : "test_video_nv12: ok\n");
    return g_fail;
}
