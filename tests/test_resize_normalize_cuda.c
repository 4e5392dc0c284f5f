/* test_resize_normalize_cuda.c - samrt_resize_normalize_cuda against
 * samrt_resize_normalize_ref on seeded frames (noise, which exercises every clip, and a
 * smooth pattern) at production shapes (1920x1080, 1280x720, 960x540, 854x480, 3840x2160 ->
 * 1024x1024) and odd ones (up/down per axis, 1-pixel sides, row pitch not a multiple of 4,
 * padded pitch, frame start not 16-byte aligned (the staging copies 16-byte chunks and falls
 * back to bytes at the frame's ends), misaligned output, every tap-count template), in
 * f32/f16/bf16. The uint8
 * stage is integer math, so every output must be bit-identical: the tolerance is zero.
 * Skips (exit 77) without a GPU. Run: test_resize_normalize_cuda [--bench] */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "check.h"
#include "resize_normalize.h"
#include "samrt_impl.h"
#include "test_util.h"

static void fill_frame(uint8_t *f, size_t nb_row, int w, int h, int smooth, uint64_t seed) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (long y = 0; y < h; y++)
        for (long x = 0; x < 3L * w; x++)
            f[y * nb_row + x] = smooth ? (uint8_t)((x / 3 * 7 + y * 3 + (x % 3) * 85 + ((x * y) >> 6)) & 255)
                                       : (uint8_t)(tu_rand_u32(&s) >> 24);
}

struct dev_plan {
    struct samrt_resize_plan plan;
    void *host_tab, *dev_tab;
};

static int dev_plan_init(struct dev_plan *p, int iw, int ih, int ow, int oh) {
    memset(p, 0, sizeof *p);
    if (samrt_resize_plan_init(iw, ih, ow, oh, &p->plan) != SAMRT_OK) return 0;
    p->host_tab = aligned_alloc(16, SAMRT_PAD(p->plan.table_bytes, 16));
    if (samrt_resize_plan_fill(&p->plan, samrt_sam_mean, samrt_sam_std, p->host_tab, p->plan.table_bytes) != SAMRT_OK)
        return 0;
    if (cudaMalloc(&p->dev_tab, p->plan.table_bytes) != cudaSuccess) return 0;
    return cudaMemcpy(p->dev_tab, p->host_tab, p->plan.table_bytes, cudaMemcpyHostToDevice) == cudaSuccess;
}
static void dev_plan_free(struct dev_plan *p) {
    free(p->host_tab);
    cudaFree(p->dev_tab);
}

/* pitch_pad: extra bytes per frame row; in_off: bytes added to the frame pointer (a multiple of
 * 4); out_off: elements added to the output pointer. */
static void run_case(int iw, int ih, int ow, int oh, int pitch_pad, int in_off, int out_off, int smooth,
                     uint64_t seed) {
    struct dev_plan dp;
    CHECK(dev_plan_init(&dp, iw, ih, ow, oh));
    const size_t nb_row = 3 * (size_t)iw + pitch_pad, in_bytes = nb_row * ih;
    const long n = 3L * ow * oh;
    uint8_t *frame = malloc(in_bytes), *d_frame = NULL;
    float *ref = malloc(n * sizeof(float));
    void *want = malloc(n * 4), *got = malloc(n * 4);
    char *d_out = NULL;
    memset(frame, 0xcd, in_bytes);
    fill_frame(frame, nb_row, iw, ih, smooth, seed);
    CHECK_STATUS(samrt_resize_normalize_ref(&dp.plan, dp.host_tab, frame, nb_row, samrt_sam_mean, samrt_sam_std,
                                            ref, SAMRT_DTYPE_F32), SAMRT_OK);
    CHECK(cudaMalloc((void **)&d_frame, in_bytes + in_off) == cudaSuccess &&
          cudaMalloc((void **)&d_out, n * 4 + 64) == cudaSuccess);
    cudaMemcpy(d_frame + in_off, frame, in_bytes, cudaMemcpyHostToDevice);
    const enum samrt_dtype dts[3] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F16, SAMRT_DTYPE_BF16};
    for (int i = 0; i < 3; i++) {
        const size_t es = samrt_dtype_size(dts[i]);
        void *out = d_out + out_off * es;
        tu_store(dts[i], want, ref, n);  /* the reference stores f32 results with the same RNE */
        cudaMemset(d_out, 0xff, n * 4 + 64);  /* NaN poison */
        CHECK_STATUS(samrt_resize_normalize_cuda(&dp.plan, dp.dev_tab, d_frame + in_off, nb_row, out, dts[i], 0),
                     SAMRT_OK);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        cudaMemcpy(got, out, n * es, cudaMemcpyDeviceToHost);
        long bad = 0, first = -1;
        for (long k = 0; k < n; k++)
            if (memcmp((char *)got + k * es, (char *)want + k * es, es) != 0) {
                if (first < 0) first = k;
                bad++;
            }
        CHECK_MSG(bad == 0, "%dx%d (pitch +%d, in +%d) -> %dx%d %s off %d: %ld of %ld differ, first at c%ld y%ld x%ld",
                  iw, ih, pitch_pad, in_off, ow, oh, samrt_dtype_name(dts[i]), out_off, bad, n, first / ((long)ow * oh),
                  first % ((long)ow * oh) / ow, first % ow);
    }
    printf("  %5dx%-5d pitch+%-2d in+%-2d -> %4dx%-4d off %d %s: taps %d/%d tile %dx%d smem %d\n", iw, ih, pitch_pad,
           in_off, ow, oh, out_off, smooth ? "smooth" : "noise ", dp.plan.kx, dp.plan.ky, dp.plan.tile_w,
           dp.plan.tile_h, dp.plan.smem_bytes);
    cudaFree(d_frame); cudaFree(d_out);
    free(frame); free(ref); free(want); free(got);
    dev_plan_free(&dp);
}

static void test_errors(void) {
    struct dev_plan dp;
    CHECK(dev_plan_init(&dp, 1920, 1080, 64, 48));  /* 120 horizontal taps: reference only */
    uint8_t *d = NULL;
    CHECK(cudaMalloc((void **)&d, 1 << 20) == cudaSuccess);
    CHECK_STATUS(samrt_resize_normalize_cuda(&dp.plan, dp.dev_tab, d, 5760, d, SAMRT_DTYPE_F32, 0),
                 SAMRT_E_UNSUPPORTED);
    dev_plan_free(&dp);
    CHECK(dev_plan_init(&dp, 64, 64, 32, 32));
    CHECK_STATUS(samrt_resize_normalize_cuda(&dp.plan, dp.dev_tab, d + 1, 192, d, SAMRT_DTYPE_F32, 0),
                 SAMRT_E_INVALID_ARG);  /* frame not 4-byte aligned */
    CHECK_STATUS(samrt_resize_normalize_cuda(&dp.plan, dp.dev_tab, d, 191, d, SAMRT_DTYPE_F32, 0),
                 SAMRT_E_INVALID_ARG);  /* pitch < 3 * width */
    CHECK_STATUS(samrt_resize_normalize_cuda(&dp.plan, dp.dev_tab, d, 192, d, SAMRT_DTYPE_U8, 0),
                 SAMRT_E_UNSUPPORTED);
    CHECK_STATUS(samrt_resize_normalize_cuda(NULL, dp.dev_tab, d, 192, d, SAMRT_DTYPE_F32, 0), SAMRT_E_INVALID_ARG);
    dev_plan_free(&dp);
    cudaFree(d);
}

struct bench_ctx {
    struct dev_plan dp;
    uint8_t *frame;
    size_t nb_row;
    void *out;
    enum samrt_dtype dt;
};
static enum samrt_status bench_fn_resize(void *ctx, cudaStream_t s) {
    struct bench_ctx *c = (struct bench_ctx *)ctx;
    return samrt_resize_normalize_cuda(&c->dp.plan, c->dp.dev_tab, c->frame, c->nb_row, c->out, c->dt, s);
}

static void bench_case(int iw, int ih, int ow, int oh, enum samrt_dtype dt, int with_copy) {
    struct bench_ctx c;
    memset(&c, 0, sizeof c);
    if (!dev_plan_init(&c.dp, iw, ih, ow, oh)) return;
    c.nb_row = 3 * (size_t)iw;
    c.dt = dt;
    const size_t in_bytes = c.nb_row * ih, out_bytes = 3 * (size_t)ow * oh * samrt_dtype_size(dt);
    if (cudaMalloc((void **)&c.frame, in_bytes) == cudaSuccess && cudaMalloc(&c.out, out_bytes) == cudaSuccess) {
        cudaMemset(c.frame, 0x80, in_bytes);
        char shape[64];
        snprintf(shape, sizeof shape, "%dx%d->%dx%d", iw, ih, ow, oh);
        bench_print("resize_normalize", shape, samrt_dtype_name(dt), bench_median_ms(bench_fn_resize, &c, 0),
                    (double)(in_bytes + out_bytes));
        if (with_copy) bench_copy(in_bytes + out_bytes, 0);
    }
    cudaFree(c.frame);
    cudaFree(c.out);
    dev_plan_free(&c.dp);
}

int main(int argc, char **argv) {
    char why[128];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_resize_normalize_cuda", why);
    uint64_t seed = 300;
    for (int smooth = 0; smooth < 2; smooth++) {
        run_case(1920, 1080, 1024, 1024, 0, 0, 0, smooth, seed++);
        run_case(960, 540, 1024, 1024, 0, 0, 0, smooth, seed++);
        run_case(854, 480, 1024, 1024, 0, 0, 0, smooth, seed++);  /* pitch 2562: every row phase */
    }
    run_case(1280, 720, 1024, 1024, 0, 0, 0, 0, seed++);
    run_case(3840, 2160, 1024, 1024, 0, 0, 0, 0, seed++);           /* 16 taps */
    run_case(4000, 3000, 517, 1024, 0, 0, 0, 0, seed++);            /* 32 taps, 3x shrink in y */
    run_case(1920, 1080, 320, 180, 0, 0, 0, 0, seed++);             /* 28 taps, 6x in y */
    run_case(1920, 1080, 1024, 1024, 8, 0, 1, 0, seed++);           /* padded pitch, misaligned out */
    run_case(1920, 1080, 1024, 1024, 0, 4, 0, 0, seed++);           /* frame not 16-byte aligned */
    run_case(37, 23, 101, 67, 0, 12, 0, 0, seed++);
    run_case(333, 101, 50, 160, 3, 8, 0, 1, seed++);
    run_case(101, 333, 160, 50, 1, 4, 3, 0, seed++);
    run_case(1, 1, 5, 3, 0, 4, 0, 0, seed++);
    run_case(7, 1, 1, 1, 0, 0, 0, 0, seed++);
    run_case(64, 48, 64, 48, 0, 0, 0, 0, seed++);                    /* identity */
    run_case(1024, 1024, 1024, 1024, 0, 0, 0, 1, seed++);
    run_case(700, 700, 1024, 1024, 0, 0, 2, 0, seed++);
    test_errors();
    if (bench_requested(argc, argv) && g_check_failures == 0) {
        bench_case(1920, 1080, 1024, 1024, SAMRT_DTYPE_BF16, 1);
        bench_case(1920, 1080, 1024, 1024, SAMRT_DTYPE_F16, 0);
        bench_case(1920, 1080, 1024, 1024, SAMRT_DTYPE_F32, 1);
        bench_case(960, 540, 1024, 1024, SAMRT_DTYPE_BF16, 1);
        bench_case(854, 480, 1024, 1024, SAMRT_DTYPE_BF16, 0);
        bench_case(1280, 720, 1024, 1024, SAMRT_DTYPE_BF16, 0);
        bench_case(3840, 2160, 1024, 1024, SAMRT_DTYPE_BF16, 1);
    }
    return check_report("test_resize_normalize_cuda");
}
