/* test_sam2_track_nv12.c - NV12 frames in (samrt_engine_track_push_nv12): a video pushed as
 * NV12 gives the masks, areas, boxes and scores of the same video converted to RGB8 with
 * kernels/nv12_rgb.h's C reference (swscale's arithmetic) and pushed as RGB8, bit for bit.
 * The engine is a SAM 2.1 tiny checkpoint of deterministic values (tests/ckpt_writer.h); the
 * frames are odd-sized (81 x 61: a last column and row without a chroma partner) with padded
 * luma and chroma pitches, two objects (one joins on frame 2), BT.709 limited range in the
 * x86 form (gpu: then all-zero colour fields, i.e. BT.601 in the C form).
 *   host (label cpu): a CPU engine reads the host NV12 frame in place through the fused
 *     reference; the frame counters count host frames and no bytes; an NV12 device frame and
 *     bad planes are refused (SAMRT_E_INVALID_ARG) without breaking the engine.
 *   gpu (label cuda, exit 77 without a GPU): NV12 in device memory (the NVDEC path) and in host
 *     memory against RGB8 in device memory; the counters show both planes' bytes (w * h +
 *     2 * ceil(w / 2) * ceil(h / 2)) copied device to device / host to device and none to
 *     the host; the arena plan (samrt_internal_budget) names the frame slot and what each
 *     format stages.
 * Run: ctest -R test_sam2_track_nv12 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "nv12_rgb.h"
#include "platform.h"
#include "sam2_track_util.h"
#include "samrt_internal.h"
#include "stream.h"

#define W 81
#define H 61
#define K 2
#define N_FRAMES 4
#define YP (W + 13)                      /* luma pitch */
#define CP (2 * ((W + 1) / 2) + 6)       /* chroma pitch */
#define CH ((H + 1) / 2)                 /* chroma rows */
#define NV12_BYTES ((uint64_t)W * H + 2 * ((W + 1) / 2) * CH)

static const int INV_709[4] = {117489, 138438, 13975, 34925};
static const int INV_601[4] = {104597, 132201, 25675, 53279};

static uint8_t g_y[YP * H], g_uv[CP * CH], g_rgb[3 * W * H];
static void *g_dev_y, *g_dev_uv, *g_dev_rgb;  /* gpu mode: device copies */

struct run {  /* one video's results, every frame */
    uint8_t mask[N_FRAMES][K][W * H];
    struct samrt_track_result res[N_FRAMES][K];
    int n[N_FRAMES];
};
static struct run g_a, g_b;

/* Frame f: a bright box moving right on a luma gradient, chroma patterns; then g_rgb, the
 * frame as swscale's RGB24 (the reference conversion) for the colour fields of `nv`. */
static void make_frame(int f, const struct samrt_image_nv12 *nv) {
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int in = x > 20 + 3 * f && x < 50 + 3 * f && y > 15 && y < 45;
            g_y[y * YP + x] = (uint8_t)(in ? 200 : 30 + x + y / 2);
        }
    for (int y = 0; y < CH; y++)
        for (int x = 0; x < CP; x++) g_uv[y * CP + x] = (uint8_t)(x & 1 ? 100 + 2 * y : 160 - x / 2 + f);
    const int *c = nv->yuv_coefs, zero = !c[0] && !c[1] && !c[2] && !c[3];
    struct samrt_yuv_coefs k;
    samrt_yuv_coefs_init(zero ? INV_601 : c, nv->yuv_full_range, nv->yuv_x86 ? SAMRT_YUV_SWS_X86 : SAMRT_YUV_SWS_C, &k);
    CHECK_STATUS(samrt_nv12_rgb_ref(&k, g_y, YP, g_uv, CP, W, H, g_rgb, 3 * W), SAMRT_OK);
}

static void prompt(samrt_engine_t e, int f) {
    struct samrt_object_prompt pr[2];
    trk_two_prompts(pr);
    if (f == 0) CHECK_STATUS(samrt_engine_track_prompt(e, 1, &pr[0]), SAMRT_OK);
    if (f == 2) CHECK_STATUS(samrt_engine_track_prompt(e, 2, &pr[1]), SAMRT_OK);
}

/* The video pushed as `how`: 0 RGB8, 1 NV12 (dev: from device memory). */
static void run_video(samrt_engine_t e, int how, int dev, const struct samrt_image_nv12 *colour, struct run *r) {
    memset(r, 0xcd, sizeof *r);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    for (int f = 0; f < N_FRAMES; f++) {
        make_frame(f, colour);
        prompt(e, f);
        for (int k = 0; k < K; k++) r->res[f][k].mask = r->mask[f][k];
        struct samrt_image_nv12 nv = *colour;
        nv.y = g_y, nv.uv = g_uv, nv.y_stride = YP, nv.uv_stride = CP, nv.width = W, nv.height = H;
        struct samrt_image img = {g_rgb, W, H, 3 * W};
        if (dev && how == 1) {
            CHECK_STATUS(samrt_platform_copy_2d(g_dev_y, YP, g_y, YP, YP, H, SAMRT_COPY_H2D), SAMRT_OK);
            CHECK_STATUS(samrt_platform_copy_2d(g_dev_uv, CP, g_uv, CP, CP, CH, SAMRT_COPY_H2D), SAMRT_OK);
            nv.y = (const uint8_t *)g_dev_y, nv.uv = (const uint8_t *)g_dev_uv;
        } else if (dev) {
            CHECK_STATUS(samrt_platform_copy_2d(g_dev_rgb, 3 * W, g_rgb, 3 * W, 3 * W, H, SAMRT_COPY_H2D), SAMRT_OK);
            img.rgb = (const uint8_t *)g_dev_rgb;
        }
        CHECK_STATUS(how ? samrt_engine_track_push_nv12(e, &nv, dev, r->res[f], K, &r->n[f])
                         : samrt_engine_track_push(e, &img, dev, r->res[f], K, &r->n[f]),
                     SAMRT_OK);
    }
}

/* b's results are a's, bit for bit; returns the foreground pixels. */
static long same_runs(const struct run *a, const struct run *b, const char *what) {
    long fg = 0;
    for (int f = 0; f < N_FRAMES; f++) {
        CHECK_EQ_INT(a->n[f], f >= 2 ? 2 : 1);
        CHECK_EQ_INT(b->n[f], a->n[f]);
        for (int k = 0; k < a->n[f] && a->n[f] == b->n[f]; k++) {
            const struct samrt_track_result *x = &a->res[f][k], *y = &b->res[f][k];
            const int same = x->obj_id == y->obj_id && x->area == y->area &&
                             !memcmp(&x->object_score, &y->object_score, sizeof(float)) &&
                             !memcmp(x->box, y->box, sizeof x->box) && !memcmp(a->mask[f][k], b->mask[f][k], W * H);
            CHECK_MSG(same, "%s: frame %d object %d: area %d / %d, score %g / %g", what, f, x->obj_id, x->area,
                      y->area, (double)x->object_score, (double)y->object_score);
            fg += x->area;
        }
    }
    printf("  %-44s %d frames %dx%d, foreground %ld: identical\n", what, N_FRAMES, W, H, fg);
    return fg;
}

static void io_delta(samrt_engine_t e, const struct samrt_io_counters *before, uint64_t host, uint64_t device,
                     uint64_t h2d, uint64_t d2d, const char *what) {
    struct samrt_io_counters io;
    CHECK_STATUS(samrt_engine_io_counters(e, &io), SAMRT_OK);
    CHECK_MSG(io.frames_host - before->frames_host == host && io.frames_device - before->frames_device == device &&
                  io.frame_bytes_h2d - before->frame_bytes_h2d == h2d &&
                  io.frame_bytes_d2d - before->frame_bytes_d2d == d2d && io.frame_bytes_d2h == 0,
              "%s: frames in %llu host / %llu device, %llu B h2d, %llu B d2d, %llu B d2h", what,
              (unsigned long long)(io.frames_host - before->frames_host),
              (unsigned long long)(io.frames_device - before->frames_device),
              (unsigned long long)(io.frame_bytes_h2d - before->frame_bytes_h2d),
              (unsigned long long)(io.frame_bytes_d2d - before->frame_bytes_d2d),
              (unsigned long long)io.frame_bytes_d2h);
}

static void test_host(const char *ckpt) {
    const struct samrt_engine_params p = trk_params(64, K);
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    if (!e) return;
    struct samrt_image_nv12 c709 = {0};
    memcpy(c709.yuv_coefs, INV_709, sizeof INV_709);
    c709.yuv_x86 = 1;
    struct samrt_io_counters io0;
    CHECK_STATUS(samrt_engine_io_counters(e, &io0), SAMRT_OK);
    run_video(e, 0, 0, &c709, &g_a);
    run_video(e, 1, 0, &c709, &g_b);
    io_delta(e, &io0, 2 * N_FRAMES, 0, 0, 0, "cpu engine: RGB8 and NV12 host frames");
    CHECK(same_runs(&g_a, &g_b, "cpu engine: NV12 host == RGB8 host (709 x86)") > 0);
    struct samrt_internal_budget b;
    CHECK_STATUS(samrt_internal_budget(e, &b), SAMRT_OK);
    CHECK(b.frame_slot_bytes == 0 && b.frame_nv12_bytes == 0);  /* host engines stage nothing */
    /* refused: a device frame on a CPU engine, short pitches, no chroma; the engine still works */
    samrt_log_set(trk_quiet, NULL, SAMRT_LOG_ERROR);
    struct samrt_track_result res[K];
    uint8_t masks[K][W * H];
    for (int k = 0; k < K; k++) res[k].mask = masks[k];
    int n = -1;
    struct samrt_image_nv12 nv = {g_y, g_uv, YP, CP, W, H, {0}, 0, 0};
    CHECK_STATUS(samrt_engine_track_push_nv12(e, &nv, 1, res, K, &n), SAMRT_E_INVALID_ARG);
    nv.uv_stride = W;  /* < 2 * ceil(81 / 2) = 82 */
    CHECK_STATUS(samrt_engine_track_push_nv12(e, &nv, 0, res, K, &n), SAMRT_E_INVALID_ARG);
    nv.uv_stride = CP, nv.uv = NULL;
    CHECK_STATUS(samrt_engine_track_push_nv12(e, &nv, 0, res, K, &n), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_track_push_nv12(NULL, &nv, 0, res, K, &n), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    nv.uv = g_uv;
    CHECK_STATUS(samrt_engine_track_push_nv12(e, &nv, 0, res, K, &n), SAMRT_OK);
    samrt_engine_free(e);
}

static void test_gpu(const char *ckpt) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.precision = SAMRT_DTYPE_F32;
    p.imgsz = 256;
    p.max_objects = K;
    p.max_frame_width = 1920;
    p.max_frame_height = 1080;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    if (!e) return;
    struct samrt_internal_budget b;
    CHECK_STATUS(samrt_internal_budget(e, &b), SAMRT_OK);
    CHECK(b.frame_rgb8_bytes == 3ull * 1920 * 1080 && b.frame_nv12_bytes == 1920ull * 1080 * 3 / 2 &&
          b.frame_slot_bytes >= b.frame_rgb8_bytes);
    struct samrt_image_nv12 c709 = {0};
    memcpy(c709.yuv_coefs, INV_709, sizeof INV_709);
    c709.yuv_x86 = 1;
    struct samrt_io_counters io0, io1;
    CHECK_STATUS(samrt_engine_io_counters(e, &io0), SAMRT_OK);
    run_video(e, 0, 1, &c709, &g_a);
    io_delta(e, &io0, 0, N_FRAMES, 0, 3ull * W * H * N_FRAMES, "gpu engine: RGB8 device frames");
    CHECK_STATUS(samrt_engine_io_counters(e, &io1), SAMRT_OK);
    run_video(e, 1, 1, &c709, &g_b);
    io_delta(e, &io1, 0, N_FRAMES, 0, NV12_BYTES * N_FRAMES, "gpu engine: NV12 device frames");
    CHECK(same_runs(&g_a, &g_b, "gpu engine: NV12 device == RGB8 device (709 x86)") > 0);
    CHECK_STATUS(samrt_engine_io_counters(e, &io1), SAMRT_OK);
    run_video(e, 1, 0, &c709, &g_b);
    io_delta(e, &io1, N_FRAMES, 0, NV12_BYTES * N_FRAMES, 0, "gpu engine: NV12 host frames");
    same_runs(&g_a, &g_b, "gpu engine: NV12 host == RGB8 device (709 x86)");
    const struct samrt_image_nv12 c601 = {0};
    run_video(e, 0, 1, &c601, &g_a);
    run_video(e, 1, 1, &c601, &g_b);
    same_runs(&g_a, &g_b, "gpu engine: NV12 device == RGB8 device (zero: 601 C)");
    samrt_engine_free(e);
}

int main(int argc, char **argv) {
    const int gpu = argc > 1 && !strcmp(argv[1], "gpu");
    const char *name = gpu ? "test_sam2_track_nv12 gpu" : "test_sam2_track_nv12";
    int n_dev = 0;
    if (gpu && (samrt_platform_device_count(&n_dev) != SAMRT_OK || n_dev == 0))
        return check_skip(name, "no CUDA device");
    char path[] = "/tmp/samrt_test_track_nv12_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return check_skip(name, "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32), 0);
    if (gpu) {
        CHECK_STATUS(samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, YP * H, &g_dev_y), SAMRT_OK);
        CHECK_STATUS(samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, CP * CH, &g_dev_uv), SAMRT_OK);
        CHECK_STATUS(samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, 3 * W * H, &g_dev_rgb), SAMRT_OK);
        test_gpu(path);
        samrt_platform_mem_free(SAMRT_MEM_DEVICE, g_dev_y);
        samrt_platform_mem_free(SAMRT_MEM_DEVICE, g_dev_uv);
        samrt_platform_mem_free(SAMRT_MEM_DEVICE, g_dev_rgb);
    } else {
        test_host(path);
    }
    unlink(path);
    return check_report(name);
}
