/* test_elementwise_cuda.c - samrt_unary_cuda, samrt_add_scaled_cuda and
 * samrt_channel_affine_cuda against the C references on seeded random inputs, f32/f16/bf16:
 * the model's large activations (Hiera MLP hidden layers, memory-attention FFN, the mask
 * sigmoid*20-10), odd counts (tails shorter than a pack), unaligned pointers (scalar path),
 * NCHW and channels-last channel maps, in-place use. Outputs start as NaN bytes.
 * Run: test_elementwise_cuda [--bench]   (exit 77 without a GPU) */
#include "elementwise.h"
#include "samrt_impl.h"
#include "smallops_cuda.h"

/* Per dtype (f32, f16, bf16). f32: device erff/expf are within a few ulp of the double
 * reference (x20 for the mask affine); f16/bf16: at most one ulp of the stored result. */
static const double EW_ATOL[3] = {5e-6, 1e-5, 1e-4};
static const double EW_RTOL[3] = {1e-6, 1.0 / 1024, 1.0 / 128};

struct unary_case {
    const char *name;
    long n;
    enum samrt_act act;
    float alpha, beta, lo, hi;
    int in_place, misalign, bench;
};

static const struct unary_case UNARY_CASES[] = {
    {"gelu_hiera_t_s1_mlp", 65536L * 384, SAMRT_ACT_GELU, 1, 0, -6, 6, 0, 0, 1},  /* 256x256 tokens x 4*96 */
    {"gelu_hiera_t_s3_mlp", 4096L * 1536, SAMRT_ACT_GELU, 1, 0, -6, 6, 0, 0, 1},
    {"relu_memattn_ffn", 4096L * 2048, SAMRT_ACT_RELU, 1, 0, -3, 3, 1, 0, 1},
    {"sigmoid_mask_prep", 1024L * 1024, SAMRT_ACT_SIGMOID, 20, -10, -30, 30, 0, 0, 1},
    {"gelu_n1", 1, SAMRT_ACT_GELU, 1, 0, -2, 2, 0, 0, 0},
    {"gelu_n1001", 1001, SAMRT_ACT_GELU, 1, 0, -2, 2, 0, 0, 0},
    {"sigmoid_unaligned", 4099, SAMRT_ACT_SIGMOID, 1, 0, -9, 9, 0, 1, 0},
    {"none_affine", 777, SAMRT_ACT_NONE, 0.5f, 3, -4, 4, 1, 1, 0},
};

static enum samrt_status unary_launch(void *ctx, cudaStream_t s) {
    return samrt_unary_cuda((const struct samrt_unary_args *)ctx, s);
}

static void run_unary(const struct unary_case *c, enum samrt_dtype dt, uint64_t seed, int bench) {
    const size_t es = samrt_dtype_size(dt), off = c->misalign ? es : 0, bytes = (size_t)c->n * es;
    void *hx = sc_host_random(dt, c->n, seed, c->lo, c->hi);
    void *rout = sc_host_alloc(bytes);
    struct samrt_unary_args ra = {dt, c->act, c->n, c->alpha, c->beta, hx, rout};
    CHECK_STATUS(samrt_unary_ref(&ra), SAMRT_OK);
    void *dx = sc_dev_at(hx, bytes, off);
    void *dout = c->in_place ? dx : sc_dev_at(NULL, bytes, off);
    struct samrt_unary_args ga = {dt, c->act, c->n, c->alpha, c->beta, dx, dout};
    CHECK_STATUS(samrt_unary_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    sc_compare(c->name, dt, dout, rout, c->n, EW_ATOL[dt], EW_RTOL[dt]);
    if (bench && c->bench) {
        char shape[32];
        snprintf(shape, sizeof shape, "%ld", c->n);
        sc_bench(c->name, shape, dt, 2.0 * bytes, unary_launch, &ga);
    }
    sc_free_all();
}

struct add_case {
    const char *name;
    long n;
    float a, b;
    int out_is_y, misalign, bench;
};

static const struct add_case ADD_CASES[] = {
    {"add_pos_0.1", 4096L * 256, 1.0f, 0.1f, 0, 0, 1},  /* memory attention input x + 0.1 * pos */
    {"add_residual", 65536L * 96, 1.0f, 1.0f, 1, 0, 1},
    {"add_odd", 7, 2.0f, -0.5f, 0, 1, 0},
    {"add_select", 256, 0.0f, 1.0f, 0, 0, 0},  /* lam * obj_ptr + (1 - lam) * no_obj_ptr */
};

static enum samrt_status add_launch(void *ctx, cudaStream_t s) {
    return samrt_add_scaled_cuda((const struct samrt_add_scaled_args *)ctx, s);
}

static void run_add(const struct add_case *c, enum samrt_dtype dt, uint64_t seed, int bench) {
    const size_t es = samrt_dtype_size(dt), off = c->misalign ? es : 0, bytes = (size_t)c->n * es;
    void *hx = sc_host_random(dt, c->n, seed, -4, 4), *hy = sc_host_random(dt, c->n, seed + 1, -1, 1);
    void *rout = sc_host_alloc(bytes);
    struct samrt_add_scaled_args ra = {dt, c->n, c->a, c->b, hx, hy, rout};
    CHECK_STATUS(samrt_add_scaled_ref(&ra), SAMRT_OK);
    void *dx = sc_dev_at(hx, bytes, off), *dy = sc_dev_at(hy, bytes, off);
    struct samrt_add_scaled_args ga = {dt, c->n, c->a, c->b, dx, dy, c->out_is_y ? dy : sc_dev_at(NULL, bytes, off)};
    CHECK_STATUS(samrt_add_scaled_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    sc_compare(c->name, dt, ga.out, rout, c->n, EW_ATOL[dt], EW_RTOL[dt]);
    if (bench && c->bench) {
        char shape[32];
        snprintf(shape, sizeof shape, "%ld", c->n);
        sc_bench(c->name, shape, dt, 3.0 * bytes, add_launch, &ga);
    }
    sc_free_all();
}

struct affine_case {
    const char *name;
    long n;
    int channels;
    long inner;
    int scale, bias, residual, out_is_x, misalign, bench;
    int params_f32;          /* f32 scale / bias (a BatchNorm after a 16-bit conv), with act */
    enum samrt_act act;
};

static const struct affine_case AFFINE_CASES[] = {
    {"layer_scale_nchw", 256L * 64 * 64, 256, 64 * 64, 1, 0, 1, 0, 0, 1, 0, SAMRT_ACT_NONE},     /* x + gamma * y */
    {"layer_scale_tokens", 4096L * 256, 256, 1, 1, 0, 1, 0, 0, 1, 0, SAMRT_ACT_NONE},
    {"no_mem_embed", 4096L * 256, 256, 1, 0, 1, 0, 1, 0, 1, 0, SAMRT_ACT_NONE},                  /* in place bias */
    {"no_obj_embed_spatial", 64L * 64 * 64, 64, 64 * 64, 0, 1, 0, 0, 0, 0, 0, SAMRT_ACT_NONE},
    {"odd_all", 2L * 3 * 5, 3, 5, 1, 1, 1, 0, 1, 0, 0, SAMRT_ACT_NONE},
    {"odd_tokens", 9L * 7, 7, 1, 1, 1, 0, 1, 1, 0, 0, SAMRT_ACT_NONE},
    {"bn_gelu_tokens", 4096L * 96, 96, 1, 1, 1, 0, 0, 0, 1, 1, SAMRT_ACT_GELU},  /* repvit.c bn_apart */
    {"bn_residual_odd", 9L * 7, 7, 1, 1, 1, 1, 0, 1, 0, 1, SAMRT_ACT_NONE},
    {"bn_relu_nchw", 2L * 3 * 5, 3, 5, 1, 1, 0, 0, 1, 0, 1, SAMRT_ACT_RELU},
};

static enum samrt_status affine_launch(void *ctx, cudaStream_t s) {
    return samrt_channel_affine_cuda((const struct samrt_channel_affine_args *)ctx, s);
}

static void run_affine(const struct affine_case *c, enum samrt_dtype dt, uint64_t seed, int bench) {
    const size_t es = samrt_dtype_size(dt), off = c->misalign ? es : 0, bytes = (size_t)c->n * es;
    void *hx = sc_host_random(dt, c->n, seed, -2, 2);
    const enum samrt_dtype pt = c->params_f32 ? SAMRT_DTYPE_F32 : dt;
    const size_t cbytes = (size_t)c->channels * samrt_dtype_size(pt);
    void *hs = c->scale ? sc_host_random(pt, c->channels, seed + 1, -1, 1) : NULL;
    void *hb = c->bias ? sc_host_random(pt, c->channels, seed + 2, -1, 1) : NULL;
    void *hr = c->residual ? sc_host_random(dt, c->n, seed + 3, -3, 3) : NULL;
    void *rout = sc_host_alloc(bytes);
    struct samrt_channel_affine_args ra = {dt, c->n, c->channels, c->inner, hx, hs, hb, hr, rout, c->params_f32, c->act};
    CHECK_STATUS(samrt_channel_affine_ref(&ra), SAMRT_OK);
    void *dx = sc_dev_at(hx, bytes, off);
    struct samrt_channel_affine_args ga = {dt, c->n, c->channels, c->inner, dx,
                                           hs ? sc_dev_at(hs, cbytes, 0) : NULL, hb ? sc_dev_at(hb, cbytes, 0) : NULL,
                                           hr ? sc_dev_at(hr, bytes, off) : NULL,
                                           c->out_is_x ? dx : sc_dev_at(NULL, bytes, off), c->params_f32, c->act};
    CHECK_STATUS(samrt_channel_affine_cuda(&ga, 0), SAMRT_OK);
    SC_CUDA(cudaDeviceSynchronize());
    sc_compare(c->name, dt, ga.out, rout, c->n, EW_ATOL[dt], EW_RTOL[dt]);
    if (bench && c->bench) {
        char shape[48];
        snprintf(shape, sizeof shape, "%ldx%d/%ld", c->n / c->channels, c->channels, c->inner);
        sc_bench(c->name, shape, dt, (2.0 + (hr ? 1 : 0)) * bytes, affine_launch, &ga);
    }
    sc_free_all();
}

int main(int argc, char **argv) {
    int rc = 0;
    if (!sc_gpu_or_skip("test_elementwise_cuda", &rc)) return rc;
    const int bench = sc_has_flag(argc, argv, "--bench");

    struct samrt_unary_args bad = {SAMRT_DTYPE_F32, SAMRT_ACT_GELU, 16, 1, 0, NULL, NULL};
    CHECK_STATUS(samrt_unary_cuda(&bad, 0), SAMRT_E_INVALID_ARG);
    bad.n = 0;  /* empty: nothing launched, success */
    CHECK_STATUS(samrt_unary_cuda(&bad, 0), SAMRT_OK);
    struct samrt_channel_affine_args bad2 = {SAMRT_DTYPE_BF16, 10, 3, 1, NULL, NULL, NULL, NULL, NULL, 0, SAMRT_ACT_NONE};
    CHECK_STATUS(samrt_channel_affine_cuda(&bad2, 0), SAMRT_E_INVALID_ARG);

    for (size_t i = 0; i < SAMRT_ARRAY_LEN(UNARY_CASES); i++)
        for (int d = 0; d < 3; d++) run_unary(&UNARY_CASES[i], sc_dtypes[d], 100 + 10 * i, bench);
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(ADD_CASES); i++)
        for (int d = 0; d < 3; d++) run_add(&ADD_CASES[i], sc_dtypes[d], 300 + 10 * i, bench);
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(AFFINE_CASES); i++)
        for (int d = 0; d < 3; d++) run_affine(&AFFINE_CASES[i], sc_dtypes[d], 500 + 10 * i, bench);
    return check_report("test_elementwise_cuda");
}
