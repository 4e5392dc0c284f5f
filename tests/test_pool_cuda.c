/* test_pool_cuda.c - samrt_pool_max2x2_cuda against the C reference on seeded random
 * token maps, f32/f16/bf16, at the Hiera q-pool shapes (block shortcuts on the full map,
 * q inside the qkv buffer of every window batch, including large's stage-4 entry) and odd
 * ones (odd H/W, C = 3, strides that forbid packs, unaligned pointers, NaN inputs). A max
 * pool only moves values, so the result must equal the reference bit for bit, NaN where
 * the reference has NaN. Output tokens are padded and start as NaN bytes; the padding must
 * stay untouched. The channel mean against the double-sum reference at RepViT's
 * squeeze-excite shapes (48 x 256^2 ... 384 x 32^2) and odd ones, within an fp32-sum tolerance
 * (plus one output ulp for f16/bf16).
 * Run: test_pool_cuda [--bench]   (exit 77 without a GPU) */
#include <math.h>

#include "pool.h"
#include "samrt_impl.h"
#include "smallops_cuda.h"

struct pool_case {
    const char *name;
    long batch;
    int h, w, channels;
    long s_in, s_out;  /* 0 = channels */
    int nan_every, misalign, bench;
};

static const struct pool_case POOL_CASES[] = {
    {"t_blk1_shortcut", 1, 256, 256, 192, 0, 0, 0, 0, 1},     /* MaxPool(proj(norm1 x)), tiny block 1 */
    {"t_blk1_qpool", 1024, 8, 8, 192, 3 * 192, 0, 0, 0, 1},   /* q of 1024 windows of 8x8 */
    {"t_blk3_qpool", 1024, 4, 4, 384, 3 * 384, 0, 0, 0, 1},
    {"t_blk10_qpool", 25, 14, 14, 768, 3 * 768, 0, 0, 0, 1},  /* 64x64 padded to 70x70 */
    {"l_blk44_qpool", 16, 16, 16, 1152, 3 * 1152, 0, 0, 0, 1},
    {"odd_hw", 2, 5, 7, 3, 0, 0, 0, 0, 0},
    {"odd_strides", 3, 6, 4, 5, 7, 6, 0, 0, 0},
    {"unaligned", 2, 8, 8, 64, 0, 0, 0, 1, 0},
    {"nan", 4, 6, 6, 24, 3 * 24, 0, 37, 0, 0},
};

static enum samrt_status pool_launch(void *ctx, cudaStream_t s) {
    return samrt_pool_max2x2_cuda((const struct samrt_pool_args *)ctx, s);
}

/* Exact comparison; a NaN must sit where the reference has one. */
static void compare_exact(const char *what, enum samrt_dtype dt, const void *d, const void *ref, long n) {
    float *got = (float *)sc_host_alloc(sizeof(float) * n), *want = (float *)sc_host_alloc(sizeof(float) * n);
    void *h = sc_host_alloc(samrt_dtype_size(dt) * n);
    SC_CUDA(cudaMemcpy(h, d, samrt_dtype_size(dt) * n, cudaMemcpyDeviceToHost));
    tu_load(dt, got, h, n);
    tu_load(dt, want, ref, n);
    long bad = 0, first = -1;
    for (long i = 0; i < n; i++) {
        const int same = isnan(want[i]) ? isnan(got[i]) : got[i] == want[i];
        if (!same && bad++ == 0) first = i;
    }
    CHECK_MSG(bad == 0, "%s [%s]: %ld of %ld differ, first at %ld (got %g want %g)", what,
              samrt_dtype_name(dt), bad, n, first, first >= 0 ? got[first] : 0.0, first >= 0 ? want[first] : 0.0);
}

static void run_pool(const struct pool_case *c, enum samrt_dtype dt, uint64_t seed, int bench) {
    const size_t es = samrt_dtype_size(dt), off = c->misalign ? es : 0;
    const long s_in = c->s_in ? c->s_in : c->channels, s_out = c->s_out ? c->s_out : c->channels;
    const long n_in = c->batch * c->h * c->w * s_in, n_out = c->batch * (c->h / 2) * (c->w / 2) * s_out;
    void *hx = sc_host_random(dt, n_in, seed, -8, 8);
    if (c->nan_every) {
        float nan = NAN;
        for (long i = 0; i < n_in; i += c->nan_every) tu_store(dt, (char *)hx + i * es, &nan, 1);
    }
    /* the reference output starts as the same NaN bytes, so padding compares equal */
    void *rout = sc_host_alloc(n_out * es);
    memset(rout, 0xff, n_out * es);
    struct samrt_pool_args ra = {dt, c->batch, c->h, c->w, c->channels, c->s_in, c->s_out, hx, rout};
    CHECK_STATUS(samrt_pool_max2x2_ref(&ra), SAMRT_OK);
    struct samrt_pool_args ga = {dt, c->batch, c->h, c->w, c->channels, c->s_in, c->s_out,
                                 sc_dev_at(hx, n_in * es, off), sc_dev_at(NULL, n_out * es, off)};
    CHECK_STATUS(samrt_pool_max2x2_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    compare_exact(c->name, dt, ga.out, rout, n_out);
    if (bench && c->bench) {
        char shape[64];
        snprintf(shape, sizeof shape, "%ldx%dx%dx%d/s%ld", c->batch, c->h, c->w, c->channels, s_in);
        const double moved = (double)c->batch * (c->h / 2) * (c->w / 2) * c->channels * es * 5;  /* 4 in, 1 out */
        sc_bench("pool_max2x2", shape, dt, moved, pool_launch, &ga);
    }
    sc_free_all();
}

struct mean_case {
    const char *name;
    long batch, tokens;
    int channels, bench;
};

static const struct mean_case MEAN_CASES[] = {
    {"se_stage0", 1, 256 * 256, 48, 1}, {"se_stage1", 1, 128 * 128, 96, 1}, {"se_stage2", 1, 64 * 64, 192, 1},
    {"se_stage3", 1, 32 * 32, 384, 1},  {"odd", 3, 37, 45, 0},              {"one_token", 2, 1, 7, 0},
};

/* fp32 sums of |x| <= 8: a relative 1e-5 of the mean's scale covers the tree order */
#define MEAN_TOL_F32 1e-5f

static enum samrt_status mean_launch(void *ctx, cudaStream_t s) {
    return samrt_pool_mean_cuda((const struct samrt_pool_mean_args *)ctx, s);
}

static void run_mean(const struct mean_case *c, enum samrt_dtype dt, uint64_t seed, int bench) {
    const size_t es = samrt_dtype_size(dt);
    const long n_in = c->batch * c->tokens * c->channels, n_out = c->batch * c->channels;
    void *hx = sc_host_random(dt, n_in, seed, -8, 8);
    void *rout = sc_host_alloc(n_out * es);
    struct samrt_pool_mean_args ra = {dt, c->batch, c->tokens, c->channels, hx, rout, 1, NULL};
    CHECK_STATUS(samrt_pool_mean_ref(&ra), SAMRT_OK);
    const int32_t split = samrt_pool_mean_splits(c->tokens);  /* as the op layer plans it */
    struct samrt_pool_mean_args ga = {dt, c->batch, c->tokens, c->channels, sc_dev_at(hx, n_in * es, 0),
                                      sc_dev_at(NULL, n_out * es, 0), split,
                                      split > 1 ? sc_dev_at(NULL, sizeof(float) * c->batch * split * c->channels, 0)
                                                : NULL};
    SC_CUDA(cudaMemset(ga.out, 0xff, n_out * es));  /* NaN bytes: unwritten outputs fail */
    CHECK_STATUS(samrt_pool_mean_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    float *got = (float *)sc_host_alloc(sizeof(float) * n_out), *want = (float *)sc_host_alloc(sizeof(float) * n_out);
    void *h = sc_host_alloc(n_out * es);
    SC_CUDA(cudaMemcpy(h, ga.out, n_out * es, cudaMemcpyDeviceToHost));
    tu_load(dt, got, h, n_out);
    tu_load(dt, want, rout, n_out);
    const float ulp = dt == SAMRT_DTYPE_BF16 ? 0x1p-8f : dt == SAMRT_DTYPE_F16 ? 0x1p-11f : 0.0f;
    long bad = 0;
    for (long i = 0; i < n_out; i++) {
        const float tol = MEAN_TOL_F32 * 8.0f + ulp * fabsf(want[i]) * 2.0f;
        if (!(fabsf(got[i] - want[i]) <= tol) && bad++ < 3)
            printf("  %s [%s] out %ld: got %g want %g\n", c->name, samrt_dtype_name(dt), i, got[i], want[i]);
    }
    CHECK_MSG(bad == 0, "mean %s [%s]: %ld of %ld outside tolerance", c->name, samrt_dtype_name(dt), bad, n_out);
    if (bench && c->bench) {
        char shape[64];
        snprintf(shape, sizeof shape, "%ldx%ldx%d", c->batch, c->tokens, c->channels);
        sc_bench("pool_mean", shape, dt, (double)n_in * es, mean_launch, &ga);
    }
    sc_free_all();
}

int main(int argc, char **argv) {
    int rc = 0;
    if (!sc_gpu_or_skip("test_pool_cuda", &rc)) return rc;
    const int bench = sc_has_flag(argc, argv, "--bench");

    struct samrt_pool_args bad = {SAMRT_DTYPE_F32, 1, 4, 4, 8, 4, 0, NULL, NULL};
    CHECK_STATUS(samrt_pool_max2x2_cuda(&bad, 0), SAMRT_E_INVALID_ARG);  /* s_in < C */
    float dummy;
    struct samrt_pool_args empty = {SAMRT_DTYPE_F32, 1, 1, 9, 8, 0, 0, &dummy, &dummy};
    CHECK_STATUS(samrt_pool_max2x2_cuda(&empty, 0), SAMRT_OK);  /* floor(1/2) = 0 rows: no launch */

    for (size_t i = 0; i < SAMRT_ARRAY_LEN(POOL_CASES); i++)
        for (int d = 0; d < 3; d++) run_pool(&POOL_CASES[i], sc_dtypes[d], 700 + 10 * i, bench);
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(MEAN_CASES); i++)
        for (int d = 0; d < 3; d++) run_mean(&MEAN_CASES[i], sc_dtypes[d], 900 + 10 * i, bench);
    struct samrt_pool_mean_args bad_mean = {SAMRT_DTYPE_F32, 1, 0, 8, &dummy, &dummy, 1, NULL};
    CHECK_STATUS(samrt_pool_mean_cuda(&bad_mean, 0), SAMRT_E_INVALID_ARG);
    struct samrt_pool_mean_args no_partial = {SAMRT_DTYPE_F32, 1, 4096, 8, &dummy, &dummy, 8, NULL};
    CHECK_STATUS(samrt_pool_mean_cuda(&no_partial, 0), SAMRT_E_INVALID_ARG);
    return check_report("test_pool_cuda");
}
