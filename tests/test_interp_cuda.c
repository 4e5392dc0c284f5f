/* test_interp_cuda.c - samrt_interp_cuda against samrt_interp_ref on seeded random inputs at
 * the model's shapes (Hiera pos_embed 7x7/14x14 -> 256 bicubic, FPN 2x nearest, 256 -> 1024
 * and 256 -> 540x960 bilinear) and odd shapes, for f32/f16/bf16 in and out. Both sides use
 * the same fused coefficient helpers, so results are expected bit-identical; the tolerances
 * below only bound what a failure may look like. Skips (exit 77) without a GPU.
 * Run: test_interp_cuda [--bench] */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "check.h"
#include "interp.h"
#include "test_util.h"

#define TOL_F32 1e-6   /* atol and rtol on f32 outputs */
#define TOL_F16 1e-3   /* one f16 ulp is 2^-11 relative */
#define TOL_BF16 8e-3  /* one bf16 ulp is 2^-8 relative */

static double tol_of(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F32 ? TOL_F32 : (dt == SAMRT_DTYPE_F16 ? TOL_F16 : TOL_BF16);
}

static const char *mode_name[] = {"nearest", "bilinear", "bicubic"};

static void run_case(enum samrt_interp_mode m, int n, int hi, int wi, int ho, int wo,
                     enum samrt_dtype din, enum samrt_dtype dout, uint64_t seed) {
    struct samrt_interp_desc d = {m, n, hi, wi, ho, wo, din, dout};
    long ni = (long)n * hi * wi, no = (long)n * ho * wo;
    size_t bi = ni * samrt_dtype_size(din), bo = no * samrt_dtype_size(dout);
    float *in = malloc(ni * sizeof(float)), *ref = malloc(no * sizeof(float)), *got = malloc(no * sizeof(float));
    void *hin = malloc(bi), *href = malloc(bo), *hout = malloc(bo), *din_p = NULL, *dout_p = NULL;
    tu_fill_uniform(in, ni, seed, -2.0f, 2.0f);
    tu_store(din, hin, in, ni);
    CHECK_STATUS(samrt_interp_ref(&d, hin, href), SAMRT_OK);
    CHECK(cudaMalloc(&din_p, bi) == cudaSuccess && cudaMalloc(&dout_p, bo) == cudaSuccess);
    cudaMemcpy(din_p, hin, bi, cudaMemcpyHostToDevice);
    cudaMemset(dout_p, 0xff, bo);  /* NaN poison: unwritten outputs fail */
    CHECK_STATUS(samrt_interp_cuda(&d, din_p, dout_p, 0), SAMRT_OK);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    cudaMemcpy(hout, dout_p, bo, cudaMemcpyDeviceToHost);
    tu_load(dout, ref, href, no);
    tu_load(dout, got, hout, no);
    char what[128];
    snprintf(what, sizeof what, "%s %dx%dx%d->%dx%d %s->%s", mode_name[m], n, hi, wi, ho, wo,
             samrt_dtype_name(din), samrt_dtype_name(dout));
    double tol = tol_of(dout);
    check_close_f32(what, got, ref, no, tol, tol);
    long same = 0;
    for (long i = 0; i < no; i++) same += memcmp(&got[i], &ref[i], sizeof(float)) == 0;
    printf("  %-44s bit-identical %ld / %ld\n", what, same, no);
    cudaFree(din_p); cudaFree(dout_p);
    free(in); free(ref); free(got); free(hin); free(href); free(hout);
}

struct bench_ctx { struct samrt_interp_desc d; void *src, *dst; };
static enum samrt_status bench_fn_interp(void *ctx, cudaStream_t s) {
    struct bench_ctx *c = (struct bench_ctx *)ctx;
    return samrt_interp_cuda(&c->d, c->src, c->dst, s);
}

static void bench_case(enum samrt_interp_mode m, int n, int hi, int wi, int ho, int wo,
                       enum samrt_dtype din, enum samrt_dtype dout) {
    struct bench_ctx c = {{m, n, hi, wi, ho, wo, din, dout}, NULL, NULL};
    size_t bi = (size_t)n * hi * wi * samrt_dtype_size(din), bo = (size_t)n * ho * wo * samrt_dtype_size(dout);
    if (cudaMalloc(&c.src, bi) != cudaSuccess || cudaMalloc(&c.dst, bo) != cudaSuccess) return;
    cudaMemset(c.src, 0, bi);
    char shape[96], dt[32];
    snprintf(shape, sizeof shape, "%s:%dx%dx%d->%dx%d", mode_name[m], n, hi, wi, ho, wo);
    snprintf(dt, sizeof dt, "%s->%s", samrt_dtype_name(din), samrt_dtype_name(dout));
    bench_print("interp", shape, dt, bench_median_ms(bench_fn_interp, &c, 0), (double)(bi + bo));
    cudaFree(c.src);
    cudaFree(c.dst);
}

int main(int argc, char **argv) {
    char why[128];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_interp_cuda", why);
    const enum samrt_dtype dts[3] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F16, SAMRT_DTYPE_BF16};
    uint64_t seed = 100;
    /* production shapes */
    run_case(SAMRT_INTERP_BICUBIC, 96, 7, 7, 256, 256, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, seed++);
    run_case(SAMRT_INTERP_BICUBIC, 112, 14, 14, 256, 256, SAMRT_DTYPE_F32, SAMRT_DTYPE_BF16, seed++);
    run_case(SAMRT_INTERP_NEAREST, 256, 32, 32, 64, 64, SAMRT_DTYPE_BF16, SAMRT_DTYPE_BF16, seed++);
    run_case(SAMRT_INTERP_NEAREST, 256, 64, 64, 128, 128, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, seed++);
    run_case(SAMRT_INTERP_BILINEAR, 3, 256, 256, 1024, 1024, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, seed++);
    run_case(SAMRT_INTERP_BILINEAR, 2, 256, 256, 540, 960, SAMRT_DTYPE_BF16, SAMRT_DTYPE_F32, seed++);
    /* every mode and dtype pair on odd shapes, up and down, single row / column */
    for (int m = 0; m < SAMRT_INTERP_MODE_COUNT; m++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                run_case((enum samrt_interp_mode)m, 5, 13, 17, 31, 7, dts[a], dts[b], seed++);
                run_case((enum samrt_interp_mode)m, 2, 67, 45, 23, 101, dts[a], dts[b], seed++);
            }
    for (int m = 0; m < SAMRT_INTERP_MODE_COUNT; m++) {
        run_case((enum samrt_interp_mode)m, 1, 1, 1, 5, 3, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, seed++);
        run_case((enum samrt_interp_mode)m, 70000, 1, 3, 2, 2, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, seed++);
    }
    /* bad arguments come back as statuses */
    struct samrt_interp_desc bad = {SAMRT_INTERP_BILINEAR, 1, 4, 4, 0, 4, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32};
    CHECK_STATUS(samrt_interp_cuda(&bad, &bad, &bad, 0), SAMRT_E_INVALID_ARG);
    bad.h_out = 4;
    bad.dst_dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_interp_cuda(&bad, &bad, &bad, 0), SAMRT_E_UNSUPPORTED);

    if (bench_requested(argc, argv) && g_check_failures == 0) {
        bench_case(SAMRT_INTERP_BICUBIC, 96, 7, 7, 256, 256, SAMRT_DTYPE_F32, SAMRT_DTYPE_BF16);
        bench_case(SAMRT_INTERP_BICUBIC, 112, 14, 14, 256, 256, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32);
        bench_case(SAMRT_INTERP_NEAREST, 256, 32, 32, 64, 64, SAMRT_DTYPE_BF16, SAMRT_DTYPE_BF16);
        bench_case(SAMRT_INTERP_BILINEAR, 3, 256, 256, 1024, 1024, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32);
        bench_case(SAMRT_INTERP_BILINEAR, 1, 256, 256, 1080, 1920, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32);
        bench_copy((size_t)3 * 1024 * 1024 * 4, 0);
    }
    return check_report("test_interp_cuda");
}
