/* test_mask_decode_cuda.c - samrt_mask_decode_cuda and samrt_mask_decode_mem_input_cuda
 * against their references on seeded random logits at production shapes (256 -> 540x960,
 * 1080x1920, 1024x1024) and odd shapes / misaligned outputs (scalar store paths), f32/f16/bf16.
 * The f32 logits are expected bit-identical (shared fused coefficient helpers); the mask
 * may differ only where the reference logit is within AMBIGUOUS of 0, and the stats must
 * describe the GPU's own mask exactly (and equal the reference's when the masks agree). The
 * non-overlap variant must equal its reference bit for bit (masks and stats), 1..4 objects.
 * Skips (exit 77) without a GPU. Run: test_mask_decode_cuda [--bench] */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "check.h"
#include "mask_decode.h"
#include "test_util.h"

#define TOL_LOGIT 1e-6      /* f32 video-size logits, atol and rtol */
#define AMBIGUOUS 1e-6      /* |ref logit| below this may threshold either way */
#define TOL_MEM_F32 4e-6    /* 20*sigmoid-10: device expf is within 2 ulp, not correctly rounded */
#define TOL_MEM_F16 1e-2    /* one f16 ulp at |x| in [8, 16) is 2^-7 */
#define TOL_MEM_BF16 7e-2   /* one bf16 ulp at |x| in [8, 16) is 2^-4 */

static void host_stats(const uint8_t *m, int h, int w, struct samrt_mask_stats *s) {
    struct samrt_mask_stats r = {0, w, h, -1, -1};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (m[(long)y * w + x]) {
                r.area++;
                if (x < r.x0) r.x0 = x;
                if (x > r.x1) r.x1 = x;
                if (y < r.y0) r.y0 = y;
                if (y > r.y1) r.y1 = y;
            }
    *s = r;
}

static int stats_eq(const struct samrt_mask_stats *a, const struct samrt_mask_stats *b) {
    return a->area == b->area && a->x0 == b->x0 && a->y0 == b->y0 && a->x1 == b->x1 && a->y1 == b->y1;
}

/* offset: bytes added to the device output pointers to force the unaligned (scalar) path. */
static void run_decode(int n, int hi, int wi, int ho, int wo, enum samrt_dtype dt, int offset, uint64_t seed) {
    struct samrt_mask_decode_desc d = {n, hi, wi, ho, wo, dt};
    long ni = (long)n * hi * wi, no = (long)n * ho * wo;
    size_t bi = ni * samrt_dtype_size(dt);
    float *in = malloc(ni * sizeof(float)), *lo_ref = malloc(no * 4), *lo_got = malloc(no * 4);
    uint8_t *m_ref = malloc(no), *m_got = malloc(no), *m_got2 = malloc(no);
    struct samrt_mask_stats *s_ref = malloc(n * sizeof *s_ref), *s_got = malloc(n * sizeof *s_got);
    void *hin = malloc(bi), *d_in = NULL;
    uint8_t *d_mask = NULL;
    float *d_lo = NULL;
    struct samrt_mask_stats *d_st = NULL;
    tu_fill_uniform(in, ni, seed, -3.0f, 2.0f);
    for (long i = 0; i < ni; i += 97) in[i] = 0.0f;  /* exact zeros: the > 0 edge */
    tu_store(dt, hin, in, ni);
    CHECK_STATUS(samrt_mask_decode_ref(&d, hin, m_ref, s_ref, lo_ref), SAMRT_OK);
    CHECK(cudaMalloc(&d_in, bi) == cudaSuccess && cudaMalloc((void **)&d_mask, no + 16) == cudaSuccess &&
          cudaMalloc((void **)&d_lo, no * 4 + 16) == cudaSuccess &&
          cudaMalloc((void **)&d_st, n * sizeof *d_st) == cudaSuccess);
    cudaMemcpy(d_in, hin, bi, cudaMemcpyHostToDevice);
    cudaMemset(d_mask, 0xff, no + 16);  /* poison: 0xff is neither 0 nor 1 */
    cudaMemset(d_lo, 0xff, no * 4 + 16);  /* NaN */
    cudaMemset(d_st, 0x5a, n * sizeof *d_st);
    uint8_t *mask_p = d_mask + offset;
    float *lo_p = (float *)((char *)d_lo + 4 * offset);
    CHECK_STATUS(samrt_mask_decode_cuda(&d, d_in, mask_p, d_st, lo_p, 0), SAMRT_OK);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    cudaMemcpy(m_got, mask_p, no, cudaMemcpyDeviceToHost);
    cudaMemcpy(lo_got, lo_p, no * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(s_got, d_st, n * sizeof *d_st, cudaMemcpyDeviceToHost);
    /* second run without stats and logits: the same mask */
    cudaMemset(d_mask, 0xff, no + 16);
    CHECK_STATUS(samrt_mask_decode_cuda(&d, d_in, mask_p, NULL, NULL, 0), SAMRT_OK);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    cudaMemcpy(m_got2, mask_p, no, cudaMemcpyDeviceToHost);
    CHECK(memcmp(m_got, m_got2, no) == 0);

    char what[128];
    snprintf(what, sizeof what, "decode n%d %dx%d->%dx%d %s off%d", n, hi, wi, ho, wo, samrt_dtype_name(dt), offset);
    check_close_f32(what, lo_got, lo_ref, no, TOL_LOGIT, TOL_LOGIT);
    long hard = 0, soft = 0;
    for (long i = 0; i < no; i++)
        if (m_got[i] != m_ref[i]) {
            if (m_got[i] > 1 || fabsf(lo_ref[i]) > AMBIGUOUS) hard++;
            else soft++;
        }
    CHECK_MSG(hard == 0, "%s: %ld mask mismatches away from 0", what, hard);
    for (int k = 0; k < n; k++) {
        struct samrt_mask_stats own;
        host_stats(m_got + (long)k * ho * wo, ho, wo, &own);
        CHECK_MSG(stats_eq(&s_got[k], &own), "%s obj %d: stats do not match the GPU mask", what, k);
        if (soft == 0) CHECK_MSG(stats_eq(&s_got[k], &s_ref[k]), "%s obj %d: stats differ", what, k);
    }
    printf("  %-48s mask diffs at ambiguous pixels: %ld\n", what, soft);
    cudaFree(d_in); cudaFree(d_mask); cudaFree(d_lo); cudaFree(d_st);
    free(in); free(lo_ref); free(lo_got); free(m_ref); free(m_got); free(m_got2);
    free(s_ref); free(s_got); free(hin);
}

/* The non-overlap variant against its reference, bit for bit (masks and stats): the same
 * bilinear values, the same object-order maximum. Objects 0 and n-1 share a plane when n >= 3
 * (a tie at every pixel: the last object must stay empty); outputs poisoned first. */
static void run_non_overlap(int n, int hi, int wi, int ho, int wo, enum samrt_dtype dt, int offset, uint64_t seed) {
    struct samrt_mask_decode_desc d = {n, hi, wi, ho, wo, dt};
    const long ni = (long)n * hi * wi, no = (long)n * ho * wo;
    const size_t bi = ni * samrt_dtype_size(dt);
    float *in = malloc(ni * sizeof(float));
    uint8_t *m_ref = malloc(no), *m_got = malloc(no);
    struct samrt_mask_stats *s_ref = malloc(n * sizeof *s_ref), *s_got = malloc(n * sizeof *s_got);
    void *hin = malloc(bi), *d_in = NULL;
    uint8_t *d_mask = NULL;
    struct samrt_mask_stats *d_st = NULL;
    tu_fill_uniform(in, ni, seed, -3.0f, 2.0f);
    for (long i = 0; i < ni; i += 97) in[i] = 0.0f;
    if (n >= 3) memcpy(in + (long)(n - 1) * hi * wi, in, sizeof(float) * hi * wi);
    tu_store(dt, hin, in, ni);
    CHECK_STATUS(samrt_mask_decode_non_overlap_ref(&d, hin, m_ref, s_ref), SAMRT_OK);
    CHECK(cudaMalloc(&d_in, bi) == cudaSuccess && cudaMalloc((void **)&d_mask, no + 16) == cudaSuccess &&
          cudaMalloc((void **)&d_st, n * sizeof *d_st) == cudaSuccess);
    cudaMemcpy(d_in, hin, bi, cudaMemcpyHostToDevice);
    uint8_t *mask_p = d_mask + offset;
    char what[128];
    snprintf(what, sizeof what, "non-overlap n%d %dx%d->%dx%d %s off%d", n, hi, wi, ho, wo, samrt_dtype_name(dt),
             offset);
    for (int with_stats = 1; with_stats >= 0; with_stats--) {
        cudaMemset(d_mask, 0xff, no + 16);  /* poison: 0xff is neither 0 nor 1 */
        cudaMemset(d_st, 0x5a, n * sizeof *d_st);
        CHECK_STATUS(samrt_mask_decode_non_overlap_cuda(&d, d_in, mask_p, with_stats ? d_st : NULL, 0), SAMRT_OK);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        cudaMemcpy(m_got, mask_p, no, cudaMemcpyDeviceToHost);
        cudaMemcpy(s_got, d_st, n * sizeof *d_st, cudaMemcpyDeviceToHost);
        long diff = 0;
        for (long i = 0; i < no; i++) diff += m_got[i] != m_ref[i];
        CHECK_MSG(diff == 0, "%s: %ld mask bytes differ from the reference", what, diff);
        for (int k = 0; k < n && with_stats; k++)
            CHECK_MSG(stats_eq(&s_got[k], &s_ref[k]), "%s obj %d: stats (%d %d %d %d %d) want (%d %d %d %d %d)", what,
                      k, s_got[k].area, s_got[k].x0, s_got[k].y0, s_got[k].x1, s_got[k].y1, s_ref[k].area,
                      s_ref[k].x0, s_ref[k].y0, s_ref[k].x1, s_ref[k].y1);
    }
    if (n >= 3) CHECK_EQ_INT(s_ref[n - 1].area, 0);
    long fg = 0;
    for (int k = 0; k < n; k++) fg += s_ref[k].area;
    printf("  %-48s bit-identical, foreground %ld of %ld pixels\n", what, fg, (long)ho * wo);
    cudaFree(d_in); cudaFree(d_mask); cudaFree(d_st);
    free(in); free(m_ref); free(m_got); free(s_ref); free(s_got); free(hin);
}

static void run_mem(int n, int hi, int wi, int ho, int wo, int bin, enum samrt_dtype din,
                    enum samrt_dtype dout, int offset, uint64_t seed) {
    struct samrt_mask_mem_desc d = {n, hi, wi, ho, wo, bin, 20.0f, -10.0f, din, dout};
    long ni = (long)n * hi * wi, no = (long)n * ho * wo;
    size_t bi = ni * samrt_dtype_size(din), bo = no * samrt_dtype_size(dout);
    float *in = malloc(ni * sizeof(float)), *ref = malloc(no * 4), *got = malloc(no * 4);
    void *hin = malloc(bi), *href = malloc(bo), *hout = malloc(bo), *d_in = NULL;
    char *d_out = NULL;
    tu_fill_uniform(in, ni, seed, -12.0f, 12.0f);
    for (long i = 0; i < ni; i += 89) in[i] = 0.0f;
    tu_store(din, hin, in, ni);
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&d, hin, href), SAMRT_OK);
    CHECK(cudaMalloc(&d_in, bi) == cudaSuccess && cudaMalloc((void **)&d_out, bo + 64) == cudaSuccess);
    cudaMemcpy(d_in, hin, bi, cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0xff, bo + 64);
    void *out_p = d_out + offset * samrt_dtype_size(dout);
    CHECK_STATUS(samrt_mask_decode_mem_input_cuda(&d, d_in, out_p, 0), SAMRT_OK);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    cudaMemcpy(hout, out_p, bo, cudaMemcpyDeviceToHost);
    tu_load(dout, ref, href, no);
    tu_load(dout, got, hout, no);
    char what[128];
    snprintf(what, sizeof what, "mem n%d %dx%d->%dx%d %s %s->%s off%d", n, hi, wi, ho, wo,
             bin ? "binarize" : "sigmoid", samrt_dtype_name(din), samrt_dtype_name(dout), offset);
    double tol = dout == SAMRT_DTYPE_F32 ? TOL_MEM_F32 : (dout == SAMRT_DTYPE_F16 ? TOL_MEM_F16 : TOL_MEM_BF16);
    if (bin) tol = 0;  /* only the exact bilinear logit's sign matters; values are +-10 */
    check_close_f32(what, got, ref, no, tol, 0);
    cudaFree(d_in); cudaFree(d_out);
    free(in); free(ref); free(got); free(hin); free(href); free(hout);
}

struct bench_ctx {
    struct samrt_mask_decode_desc d;
    struct samrt_mask_mem_desc md;
    void *in, *out;
    uint8_t *mask;
    struct samrt_mask_stats *st;
    float *lo;
};
static enum samrt_status bench_decode(void *ctx, cudaStream_t s) {
    struct bench_ctx *c = (struct bench_ctx *)ctx;
    return samrt_mask_decode_cuda(&c->d, c->in, c->mask, c->st, c->lo, s);
}
static enum samrt_status bench_non_overlap(void *ctx, cudaStream_t s) {
    struct bench_ctx *c = (struct bench_ctx *)ctx;
    return samrt_mask_decode_non_overlap_cuda(&c->d, c->in, c->mask, c->st, s);
}
static enum samrt_status bench_mem(void *ctx, cudaStream_t s) {
    struct bench_ctx *c = (struct bench_ctx *)ctx;
    return samrt_mask_decode_mem_input_cuda(&c->md, c->in, c->out, s);
}

static void bench_all(void) {
    struct bench_ctx c;
    memset(&c, 0, sizeof c);
    const long big = 4L * 1080 * 1920 * 4;
    if (cudaMalloc(&c.in, 4L * 256 * 256 * 4) != cudaSuccess || cudaMalloc(&c.out, big) != cudaSuccess ||
        cudaMalloc((void **)&c.mask, big) != cudaSuccess || cudaMalloc((void **)&c.lo, big) != cudaSuccess ||
        cudaMalloc((void **)&c.st, 64 * sizeof *c.st) != cudaSuccess)
        return;
    cudaMemset(c.in, 0, 4L * 256 * 256 * 4);
    const int shapes[3][3] = {{1, 540, 960}, {1, 1080, 1920}, {3, 540, 960}};
    for (int i = 0; i < 3; i++)
        for (int with_lo = 0; with_lo < 2; with_lo++) {
            int n = shapes[i][0], h = shapes[i][1], w = shapes[i][2];
            struct samrt_mask_decode_desc d = {n, 256, 256, h, w, SAMRT_DTYPE_F32};
            c.d = d;
            float *lo = c.lo;
            if (!with_lo) c.lo = NULL;
            char shape[96];
            snprintf(shape, sizeof shape, "%dx256x256->%dx%d%s", n, h, w, with_lo ? "+logits" : "");
            double bytes = (double)n * 256 * 256 * 4 + (double)n * h * w * (with_lo ? 5 : 1);
            bench_print("mask_decode", shape, "f32", bench_median_ms(bench_decode, &c, 0), bytes);
            c.lo = lo;
        }
    for (int n = 3; n <= 4; n++) {
        struct samrt_mask_decode_desc d = {n, 256, 256, 540, 960, SAMRT_DTYPE_F32};
        c.d = d;
        char shape[96];
        snprintf(shape, sizeof shape, "%dx256x256->540x960", n);
        bench_print("mask_decode_non_overlap", shape, "f32", bench_median_ms(bench_non_overlap, &c, 0),
                    (double)n * 256 * 256 * 4 + (double)n * 540 * 960);
    }
    const enum samrt_dtype outs[2] = {SAMRT_DTYPE_BF16, SAMRT_DTYPE_F32};
    for (int i = 0; i < 2; i++) {
        struct samrt_mask_mem_desc md = {1, 256, 256, 1024, 1024, 0, 20.0f, -10.0f, SAMRT_DTYPE_F32, outs[i]};
        c.md = md;
        char dt[32];
        snprintf(dt, sizeof dt, "f32->%s", samrt_dtype_name(outs[i]));
        double bytes = 256.0 * 256 * 4 + 1024.0 * 1024 * samrt_dtype_size(outs[i]);
        bench_print("mask_mem_input", "1x256x256->1024x1024", dt, bench_median_ms(bench_mem, &c, 0), bytes);
    }
    bench_copy((size_t)1080 * 1920 * 5, 0);
    cudaFree(c.in); cudaFree(c.out); cudaFree(c.mask); cudaFree(c.lo); cudaFree(c.st);
}

int main(int argc, char **argv) {
    char why[128];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_mask_decode_cuda", why);
    const enum samrt_dtype dts[3] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F16, SAMRT_DTYPE_BF16};
    uint64_t seed = 200;
    run_decode(1, 256, 256, 540, 960, SAMRT_DTYPE_F32, 0, seed++);
    run_decode(3, 256, 256, 1080, 1920, SAMRT_DTYPE_F32, 0, seed++);
    run_decode(2, 256, 256, 1024, 1024, SAMRT_DTYPE_BF16, 0, seed++);
    for (int i = 0; i < 3; i++) {
        run_decode(2, 256, 256, 333, 517, dts[i], 0, seed++);   /* W % 4 != 0: scalar stores */
        run_decode(1, 256, 256, 540, 960, dts[i], 1, seed++);   /* misaligned outputs */
        run_decode(1, 13, 7, 5, 3, dts[i], 0, seed++);
        run_decode(1, 3, 2, 129, 131, dts[i], 0, seed++);
    }
    for (int n = 1; n <= 4; n++) run_non_overlap(n, 256, 256, 540, 960, SAMRT_DTYPE_F32, 0, seed++);
    run_non_overlap(3, 256, 256, 1080, 1920, SAMRT_DTYPE_F32, 0, seed++);
    for (int i = 0; i < 3; i++) {
        run_non_overlap(3, 256, 256, 333, 517, dts[i], 0, seed++);  /* W % 4 != 0: scalar stores */
        run_non_overlap(2, 256, 256, 540, 960, dts[i], 1, seed++);  /* misaligned mask */
        run_non_overlap(4, 13, 7, 5, 3, dts[i], 0, seed++);
        run_non_overlap(3, 3, 2, 129, 131, dts[i], 0, seed++);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int bin = 0; bin < 2; bin++) {
                run_mem(1, 256, 256, 1024, 1024, bin, dts[i], dts[j], 0, seed++);
                run_mem(2, 256, 256, 130, 67, bin, dts[i], dts[j], 1, seed++);
            }
    /* an object with no foreground keeps the initial box */
    {
        struct samrt_mask_decode_desc d = {1, 2, 2, 8, 8, SAMRT_DTYPE_F32};
        float neg[4] = {-1024, -1024, -1024, -1024};
        void *d_in = NULL;
        uint8_t *d_m = NULL;
        struct samrt_mask_stats *d_s = NULL, s;
        cudaMalloc(&d_in, sizeof neg); cudaMalloc((void **)&d_m, 64); cudaMalloc((void **)&d_s, sizeof s);
        cudaMemcpy(d_in, neg, sizeof neg, cudaMemcpyHostToDevice);
        CHECK_STATUS(samrt_mask_decode_cuda(&d, d_in, d_m, d_s, NULL, 0), SAMRT_OK);
        cudaMemcpy(&s, d_s, sizeof s, cudaMemcpyDeviceToHost);
        CHECK(s.area == 0 && s.x0 == 8 && s.y0 == 8 && s.x1 == -1 && s.y1 == -1);
        cudaFree(d_in); cudaFree(d_m); cudaFree(d_s);
    }
    struct samrt_mask_decode_desc bad = {0, 256, 256, 8, 8, SAMRT_DTYPE_F32};
    uint8_t dummy[4];
    CHECK_STATUS(samrt_mask_decode_cuda(&bad, dummy, dummy, NULL, NULL, 0), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_mask_decode_non_overlap_cuda(&bad, dummy, dummy, NULL, 0), SAMRT_E_INVALID_ARG);
    bad.n_obj = 1;
    bad.src_dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_mask_decode_cuda(&bad, dummy, dummy, NULL, NULL, 0), SAMRT_E_UNSUPPORTED);
    CHECK_STATUS(samrt_mask_decode_non_overlap_cuda(&bad, dummy, dummy, NULL, 0), SAMRT_E_UNSUPPORTED);
    if (bench_requested(argc, argv) && g_check_failures == 0) bench_all();
    return check_report("test_mask_decode_cuda");
}
