/* test_layernorm_cuda.c - samrt_layernorm_cuda and samrt_layernorm2d_cuda against the C
 * references on seeded random inputs, f32/f16/bf16, at production shapes (Hiera stage
 * widths, decoder and memory-attention widths, the LayerNorm2d maps of the mask paths)
 * and odd ones (C not a multiple of 32, one row, C = 1, unaligned pointers, in-place).
 * Outputs start as NaN bytes. The residual sum must match the reference bit for bit.
 * Run: test_layernorm_cuda [--bench]   (exit 77 without a GPU) */
#include "layernorm.h"
#include "samrt_impl.h"
#include "smallops_cuda.h"

/* Per dtype (f32, f16, bf16): the reference and the kernel sum in different orders, so
 * fp32 results differ by a few ulp and stored f16/bf16 results by at most one ulp. */
static const double LN_ATOL[3] = {3e-5, 1e-4, 1e-3};
static const double LN_RTOL[3] = {1e-5, 1.0 / 1024, 1.0 / 128};

enum { SUM_NONE = 0, SUM_SEPARATE, SUM_IN_X };

struct ln_case {
    const char *name;
    long rows;
    int cols;
    float eps;
    int residual, sum_mode, out_in_x, misalign, bench;
};

static const struct ln_case LN_CASES[] = {
    {"hiera_t_s1", 65536, 96, 1e-6f, 0, SUM_NONE, 0, 0, 1},   /* Hiera-T stage 1, 256x256 tokens */
    {"hiera_t_s2", 16384, 192, 1e-6f, 1, SUM_SEPARATE, 0, 0, 1},
    {"memattn", 4096, 256, 1e-5f, 1, SUM_IN_X, 0, 0, 1},      /* x += attn; t = LN(x) */
    {"hiera_t_s4", 1024, 768, 1e-6f, 0, SUM_NONE, 0, 0, 1},
    {"hiera_l_s4", 1024, 1152, 1e-6f, 1, SUM_IN_X, 0, 0, 1},
    {"hiera_b_s1", 65536, 112, 1e-6f, 0, SUM_NONE, 0, 0, 1},  /* base_plus stage 1 */
    {"perceiver", 256, 64, 1e-5f, 0, SUM_NONE, 0, 0, 0},
    {"one_row", 1, 256, 1e-5f, 1, SUM_SEPARATE, 0, 0, 0},
    {"odd_c97", 37, 97, 1e-5f, 1, SUM_SEPARATE, 0, 0, 0},
    {"c1", 5, 1, 1e-5f, 0, SUM_NONE, 0, 0, 0},
    {"inplace_out", 333, 1000, 1e-6f, 0, SUM_NONE, 1, 0, 0},
    {"unaligned", 129, 256, 1e-5f, 1, SUM_SEPARATE, 0, 1, 0},
    {"no_res_sum", 64, 96, 1e-6f, 0, SUM_SEPARATE, 0, 0, 0},
};

static enum samrt_status ln_launch(void *ctx, cudaStream_t s) {
    return samrt_layernorm_cuda((const struct samrt_layernorm_args *)ctx, s);
}

static void run_ln(const struct ln_case *c, enum samrt_dtype dt, uint64_t seed, int bench) {
    const size_t es = samrt_dtype_size(dt), off = c->misalign ? es : 0;
    const long n = c->rows * c->cols;
    const size_t bytes = (size_t)n * es, wbytes = (size_t)c->cols * es;
    void *hx = sc_host_random(dt, n, seed, 1.0f, 5.0f);  /* mean ~3: exercises cancellation */
    void *hr = c->residual ? sc_host_random(dt, n, seed + 1, -1.0f, 1.0f) : NULL;
    void *hw = sc_host_random(dt, c->cols, seed + 2, 0.5f, 1.5f);
    void *hb = sc_host_random(dt, c->cols, seed + 3, -0.5f, 0.5f);

    void *rx = sc_host_copy(hx, bytes);
    void *rout = c->out_in_x ? rx : sc_host_alloc(bytes);
    void *rsum = c->sum_mode == SUM_IN_X ? rx : c->sum_mode == SUM_SEPARATE ? sc_host_alloc(bytes) : NULL;
    struct samrt_layernorm_args ra = {dt, c->rows, c->cols, c->eps, rx, hr, hw, hb, rout, rsum};
    CHECK_STATUS(samrt_layernorm_ref(&ra), SAMRT_OK);

    void *dx = sc_dev_at(hx, bytes, off);
    void *dr = hr ? sc_dev_at(hr, bytes, off) : NULL;
    void *dout = c->out_in_x ? dx : sc_dev_at(NULL, bytes, off);
    void *dsum = c->sum_mode == SUM_IN_X ? dx : c->sum_mode == SUM_SEPARATE ? sc_dev_at(NULL, bytes, off) : NULL;
    struct samrt_layernorm_args ga = {dt, c->rows, c->cols, c->eps, dx, dr, sc_dev_at(hw, wbytes, 0),
                                      sc_dev_at(hb, wbytes, 0), dout, dsum};
    CHECK_STATUS(samrt_layernorm_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());

    char what[96];
    snprintf(what, sizeof what, "layernorm %s out", c->name);
    sc_compare(what, dt, dout, rout, n, LN_ATOL[dt], LN_RTOL[dt]);
    if (dsum && !(c->out_in_x)) {
        snprintf(what, sizeof what, "layernorm %s sum", c->name);
        sc_compare(what, dt, dsum, rsum, n, 0.0, 0.0);  /* one rounding of x + r: exact */
    }
    if (bench && c->bench) {
        char shape[64];
        snprintf(shape, sizeof shape, "%ldx%d%s", c->rows, c->cols, c->residual ? "+res" : "");
        const double moved = (double)bytes * (2 + (c->residual ? 1 : 0) + (dsum ? 1 : 0)) + 2.0 * wbytes;
        sc_bench("layernorm", shape, dt, moved, ln_launch, &ga);
    }
    sc_free_all();
}

struct ln2d_case {
    const char *name;
    long batch;
    int channels;
    long pixels;
    enum samrt_act act;
    int residual, out_in_x, misalign, bench;
};

static const struct ln2d_case LN2D_CASES[] = {
    {"cxblock", 1, 256, 64 * 64, SAMRT_ACT_NONE, 0, 0, 0, 1},            /* fuser CXBlock norm */
    {"maskdown0", 1, 4, 512 * 512, SAMRT_ACT_GELU, 0, 0, 0, 1},          /* memory encoder downsampler */
    {"maskdown1", 1, 16, 256 * 256, SAMRT_ACT_GELU, 0, 0, 0, 1},
    {"maskdown2", 1, 64, 128 * 128, SAMRT_ACT_GELU, 0, 0, 0, 1},
    {"maskdown3", 1, 256, 64 * 64, SAMRT_ACT_GELU, 0, 0, 0, 1},
    {"dec_upscale", 1, 64, 128 * 128, SAMRT_ACT_GELU, 1, 0, 0, 1},       /* GELU(LN2d(u + feat_s1)) */
    {"c64_256x256", 1, 64, 256 * 256, SAMRT_ACT_NONE, 0, 0, 0, 1},
    {"odd", 2, 3, 7 * 9, SAMRT_ACT_GELU, 1, 0, 0, 0},
    {"c1_px1", 1, 1, 1, SAMRT_ACT_NONE, 0, 0, 0, 0},
    {"c33_inplace", 3, 33, 5 * 5, SAMRT_ACT_RELU, 0, 1, 0, 0},
    {"unaligned", 2, 16, 32 * 32, SAMRT_ACT_GELU, 1, 0, 1, 0},
};

static enum samrt_status ln2d_launch(void *ctx, cudaStream_t s) {
    return samrt_layernorm2d_cuda((const struct samrt_layernorm2d_args *)ctx, s);
}

static void run_ln2d(const struct ln2d_case *c, enum samrt_dtype dt, uint64_t seed, int bench) {
    const size_t es = samrt_dtype_size(dt), off = c->misalign ? es : 0;
    const long n = c->batch * c->channels * c->pixels;
    const size_t bytes = (size_t)n * es, wbytes = (size_t)c->channels * es;
    void *hx = sc_host_random(dt, n, seed, -3.0f, 5.0f);
    void *hr = c->residual ? sc_host_random(dt, n, seed + 1, -1.0f, 1.0f) : NULL;
    void *hw = sc_host_random(dt, c->channels, seed + 2, 0.5f, 1.5f);
    void *hb = sc_host_random(dt, c->channels, seed + 3, -0.5f, 0.5f);

    void *rx = sc_host_copy(hx, bytes);
    void *rout = c->out_in_x ? rx : sc_host_alloc(bytes);
    struct samrt_layernorm2d_args ra = {dt, c->batch, c->channels, c->pixels, 1e-6f, c->act, rx, hr, hw, hb, rout};
    CHECK_STATUS(samrt_layernorm2d_ref(&ra), SAMRT_OK);

    void *dx = sc_dev_at(hx, bytes, off);
    void *dout = c->out_in_x ? dx : sc_dev_at(NULL, bytes, off);
    struct samrt_layernorm2d_args ga = {dt, c->batch, c->channels, c->pixels, 1e-6f, c->act, dx,
                                        hr ? sc_dev_at(hr, bytes, off) : NULL, sc_dev_at(hw, wbytes, 0),
                                        sc_dev_at(hb, wbytes, 0), dout};
    CHECK_STATUS(samrt_layernorm2d_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());

    char what[96];
    snprintf(what, sizeof what, "layernorm2d %s", c->name);
    sc_compare(what, dt, dout, rout, n, LN_ATOL[dt], LN_RTOL[dt]);
    if (bench && c->bench) {
        char shape[64];
        snprintf(shape, sizeof shape, "%ldx%dx%ld%s", c->batch, c->channels, c->pixels, c->residual ? "+res" : "");
        sc_bench("layernorm2d", shape, dt, (double)bytes * (2 + (c->residual ? 1 : 0)) + 2.0 * wbytes,
                 ln2d_launch, &ga);
    }
    sc_free_all();
}

int main(int argc, char **argv) {
    int rc = 0;
    if (!sc_gpu_or_skip("test_layernorm_cuda", &rc)) return rc;
    const int bench = sc_has_flag(argc, argv, "--bench");

    /* The launchers validate like the references and launch nothing on bad input. */
    struct samrt_layernorm_args bad = {SAMRT_DTYPE_F32, 4, 8, 1e-5f, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK_STATUS(samrt_layernorm_cuda(&bad, 0), SAMRT_E_INVALID_ARG);
    float dummy[32];
    bad.x = bad.out = dummy;
    bad.dtype = SAMRT_DTYPE_I32;
    CHECK_STATUS(samrt_layernorm_cuda(&bad, 0), SAMRT_E_UNSUPPORTED);
    struct samrt_layernorm2d_args bad2 = {SAMRT_DTYPE_F16, 1, 0, 4, 1e-6f, SAMRT_ACT_NONE, dummy, NULL, NULL, NULL, dummy};
    CHECK_STATUS(samrt_layernorm2d_cuda(&bad2, 0), SAMRT_E_INVALID_ARG);

    for (size_t i = 0; i < SAMRT_ARRAY_LEN(LN_CASES); i++)
        for (int d = 0; d < 3; d++) run_ln(&LN_CASES[i], sc_dtypes[d], 1000 + 10 * i, bench);
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(LN2D_CASES); i++)
        for (int d = 0; d < 3; d++) run_ln2d(&LN2D_CASES[i], sc_dtypes[d], 2000 + 10 * i, bench);
    return check_report("test_layernorm_cuda");
}
