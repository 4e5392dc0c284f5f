/* test_conv.c - CPU tests of the convolution references (kernels/conv_ref.c) on cases worked
 * out by hand: a 3x3 box filter with padding and stride, the prompt encoder's 2x2 stride-2
 * conv, depthwise and grouped channels, bias/residual/activation in both layouts, the
 * transposed 2x2 stride-2 conv, and the claim the CUDA path rests on: two strided-batch
 * GEMMs over the packed weight (samrt_convt2x2_gemm_desc) reproduce the transposed conv; and
 * the depthwise reference of dwconv.h against the general one; and its bn form (EdgeTAM's
 * bf16 BatchNorms fused, RepVggDw) bit for bit against the chain of references it replaces
 * (conv, channel_affine, add on f32 / f16 / bf16 storage) at RepViT-M1's shapes and odd ones.
 * Run: ctest --preset cpu -R test_conv */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conv.h"
#include "elementwise.h"
#include "test_util.h"

#define TOL 1e-5

static const float IMG[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

static void test_box_filter(void) {
    /* 3x3 ones, pad 1: each output is the sum of the in-image neighbourhood. */
    float w[9], y[9];
    for (int i = 0; i < 9; i++) w[i] = 1;
    struct samrt_conv_desc d = samrt_conv_desc_make(1, 1, 3, 3, 1, 3, 1, 1, 1, SAMRT_CONV_NCHW,
                                                    SAMRT_DTYPE_F32, SAMRT_EPILOGUE_NONE);
    CHECK_STATUS(samrt_conv_desc_check(&d), SAMRT_OK);
    samrt_conv_ref(&d, IMG, w, NULL, NULL, y);
    const float want[9] = {12, 21, 16, 27, 45, 33, 24, 39, 28};
    check_close_f32("box", y, want, 9, TOL, 0);

    /* stride 2 keeps the corners */
    d.stride_h = d.stride_w = 2;
    int ho, wo;
    samrt_conv_out_hw(&d, &ho, &wo);
    CHECK(ho == 2 && wo == 2);
    samrt_conv_ref(&d, IMG, w, NULL, NULL, y);
    const float want_s2[4] = {12, 16, 24, 28};
    check_close_f32("box_s2", y, want_s2, 4, TOL, 0);
}

static void test_2x2_stride2(void) {
    /* Conv(1,1,2,2,0) with weight [[1,0],[0,1]]: out[i][j] = x[2i][2j] + x[2i+1][2j+1]. */
    float x[16], y[4];
    for (int i = 0; i < 16; i++) x[i] = (float)i;
    const float w[4] = {1, 0, 0, 1};
    const struct samrt_conv_desc d = samrt_conv_desc_make(1, 1, 4, 4, 1, 2, 2, 0, 1, SAMRT_CONV_NHWC,
                                                          SAMRT_DTYPE_F32, SAMRT_EPILOGUE_NONE);
    samrt_conv_ref(&d, x, w, NULL, NULL, y);
    const float want[4] = {0 + 5, 2 + 7, 8 + 13, 10 + 15};
    check_close_f32("2x2_s2", y, want, 4, TOL, 0);
}

static void test_groups(void) {
    /* Depthwise, 2 channels: channel 0 is the box filter, channel 1 doubles (centre tap 2). */
    float x[18], w[18], y[18];
    for (int i = 0; i < 9; i++) { x[i] = IMG[i]; x[9 + i] = -IMG[i]; w[i] = 1; w[9 + i] = i == 4 ? 2 : 0; }
    struct samrt_conv_desc d = samrt_conv_desc_make(1, 2, 3, 3, 2, 3, 1, 1, 2, SAMRT_CONV_NCHW,
                                                    SAMRT_DTYPE_F32, SAMRT_EPILOGUE_NONE);
    samrt_conv_ref(&d, x, w, NULL, NULL, y);
    const float want[18] = {12, 21, 16, 27, 45, 33, 24, 39, 28, -2, -4, -6, -8, -10, -12, -14, -16, -18};
    check_close_f32("depthwise_nchw", y, want, 18, TOL, 0);

    /* The same in NHWC: for depthwise the NHWC weight is the same bytes. */
    float xh[18], wh[18], yh[18], want_h[18];
    for (int p = 0; p < 9; p++)
        for (int c = 0; c < 2; c++) { xh[p * 2 + c] = x[c * 9 + p]; want_h[p * 2 + c] = want[c * 9 + p]; }
    samrt_conv_pack_nhwc(2, 1, 3, 3, w, wh);
    CHECK(memcmp(wh, w, sizeof w) == 0);
    d.layout = SAMRT_CONV_NHWC;
    samrt_conv_ref(&d, xh, wh, NULL, NULL, yh);
    check_close_f32("depthwise_nhwc", yh, want_h, 18, TOL, 0);

    /* 2 groups, 4 -> 2 channels, 1x1: out0 = 1*c0 + 10*c1, out1 = 100*c2 + 1000*c3. */
    const float xg[4] = {1, 2, 3, 4}, wg[4] = {1, 10, 100, 1000};
    float yg[2];
    const struct samrt_conv_desc g = samrt_conv_desc_make(1, 4, 1, 1, 2, 1, 1, 0, 2, SAMRT_CONV_NCHW,
                                                          SAMRT_DTYPE_F32, SAMRT_EPILOGUE_NONE);
    samrt_conv_ref(&g, xg, wg, NULL, NULL, yg);
    const float want_g[2] = {21, 4300};
    check_close_f32("groups", yg, want_g, 2, TOL, 0);
}

static void test_epilogue_layouts(void) {
    /* 2 -> 2 channels, 1x1 identity weight, 1x2 image: y = act(x + b[c] + r). */
    const float x_nchw[4] = {1, -2, 3, -4};            /* c0: (1,-2), c1: (3,-4) */
    const float w[4] = {1, 0, 0, 1}, b[2] = {0.5f, -0.5f};
    const float r_nchw[4] = {10, 10, 20, 20};
    float y[4];
    struct samrt_conv_desc d = samrt_conv_desc_make(1, 2, 1, 2, 2, 1, 1, 0, 1, SAMRT_CONV_NCHW,
                                                    SAMRT_DTYPE_F32, SAMRT_EPILOGUE_BIAS_RELU);
    samrt_conv_ref(&d, x_nchw, w, b, NULL, y);
    const float want_relu[4] = {1.5f, 0, 2.5f, 0};
    check_close_f32("nchw_bias_relu", y, want_relu, 4, TOL, 0);
    d.residual = 1;
    d.epilogue = SAMRT_EPILOGUE_BIAS;
    samrt_conv_ref(&d, x_nchw, w, b, r_nchw, y);
    const float want_res[4] = {11.5f, 8.5f, 22.5f, 15.5f};
    check_close_f32("nchw_residual", y, want_res, 4, TOL, 0);

    /* NHWC: pixels are rows, the bias goes by column. */
    const float x_nhwc[4] = {1, 3, -2, -4}, r_nhwc[4] = {10, 20, 10, 20};
    const float want_res_h[4] = {11.5f, 22.5f, 8.5f, 15.5f};
    d.layout = SAMRT_CONV_NHWC;
    samrt_conv_ref(&d, x_nhwc, w, b, r_nhwc, y);
    check_close_f32("nhwc_residual", y, want_res_h, 4, TOL, 0);
    /* GELU after the residual: gelu(11.5) = 11.5, gelu(8.5) = 8.5 to f32. */
    d.epilogue = SAMRT_EPILOGUE_BIAS_GELU;
    samrt_conv_ref(&d, x_nhwc, w, b, r_nhwc, y);
    check_close_f32("nhwc_gelu", y, want_res_h, 4, TOL, 0);
}

static void test_transpose2x2(void) {
    /* 1 -> 2 channels, input 1x2 = [1, 2]; out channel 0 weights [[1,2],[3,4]], channel 1
     * [[10,20],[30,40]]; PyTorch weight layout (c_in, c_out, 2, 2). Output (2, 4, 2) NHWC. */
    const float x[2] = {1, 2};
    const float w[8] = {1, 2, 3, 4, 10, 20, 30, 40};
    const float b[2] = {0.5f, -1};
    const struct samrt_convt2x2_desc d = {.n = 1, .c_in = 1, .h = 1, .w = 2, .c_out = 2,
                                          .dtype = SAMRT_DTYPE_F32, .epilogue = SAMRT_EPILOGUE_BIAS};
    float y[16];
    samrt_convt2x2_ref(&d, x, w, b, NULL, y);
    /* row 0: pixels (x=0,dx=0) (0,1) (1,0) (1,1) -> 1*w[.,0,0], 1*w[.,0,1], 2*w[.,0,0], 2*w[.,0,1] */
    const float want[16] = {1.5f, 9,  2.5f, 19, 2.5f, 19, 4.5f, 39,
                            3.5f, 29, 4.5f, 39, 6.5f, 59, 8.5f, 79};
    check_close_f32("convt", y, want, 16, TOL, 0);
}

/* The CUDA transposed conv is two strided-batch GEMMs (dy = 0, 1) over the packed weight;
 * check that decomposition with the GEMM reference on odd sizes, with residual and GELU. */
static void test_transpose2x2_as_gemm(void) {
    const struct samrt_convt2x2_desc d = {.n = 2,
                                          .c_in = 3,
                                          .h = 3,
                                          .w = 5,
                                          .c_out = 4,
                                          .dtype = SAMRT_DTYPE_F32,
                                          .epilogue = SAMRT_EPILOGUE_BIAS_GELU,
                                          .residual = 1};
    enum { NX = 2 * 3 * 5 * 3, NW = 3 * 4 * 4, NY = 2 * 6 * 10 * 4 };
    float x[NX], w[NW], b[4], r[NY], wp[NW], bp[8], y_ref[NY], y_gemm[NY];
    tu_fill_uniform(x, NX, 1, -1, 1);
    tu_fill_uniform(w, NW, 2, -1, 1);
    tu_fill_uniform(b, 4, 3, -1, 1);
    tu_fill_uniform(r, NY, 4, -1, 1);
    samrt_conv_pack_transpose2x2(d.c_in, d.c_out, w, b, wp, bp);
    /* packed row dx*c_out + o of block dy holds W[:, o, dy, dx] */
    CHECK(wp[(1 * 2 * 4 + 1 * 4 + 2) * 3 + 1] == w[((1 * 4 + 2) * 2 + 1) * 2 + 1]);
    CHECK(bp[4 + 3] == b[3] && bp[3] == b[3]);
    samrt_convt2x2_ref(&d, x, w, b, r, y_ref);

    const struct samrt_gemm_desc g = samrt_convt2x2_gemm_desc(&d);
    CHECK_STATUS(samrt_gemm_desc_check(&g), SAMRT_OK);
    CHECK_EQ_INT(g.n_batch, 6);
    CHECK_EQ_INT(g.align_bytes, 4);    /* 5 * 3 f32 = 60 bytes per batch of x: 4-byte aligned */
    for (int i = 0; i < NY; i++) y_gemm[i] = NAN;
    const int64_t off_y = 2 * d.w * d.c_out, off_w = 2 * d.c_out * d.c_in;
    for (int dy = 0; dy < 2; dy++)
        samrt_gemm_ref(&g, x, wp + dy * off_w, bp, r + dy * off_y, y_gemm + dy * off_y);
    check_close_f32("convt_as_gemm", y_gemm, y_ref, NY, 1e-6, 1e-6);
}

static void test_desc(void) {
    const struct samrt_conv_desc pe = samrt_conv_desc_make(1, 3, 1024, 1024, 96, 7, 4, 3, 1, SAMRT_CONV_NHWC,
                                                           SAMRT_DTYPE_BF16, SAMRT_EPILOGUE_BIAS);
    int ho, wo;
    samrt_conv_out_hw(&pe, &ho, &wo);
    CHECK(ho == 256 && wo == 256);
    CHECK_STATUS(samrt_conv_desc_check(&pe), SAMRT_OK);
    /* model-spec §6.1: patch embed 1.85 GFLOP */
    CHECK_NEAR(samrt_conv_flops(&pe) / 1e9, 1.85, 0.005);
    CHECK_EQ_INT(samrt_conv_w_elems(&pe), 96 * 3 * 49);
    struct samrt_conv_desc d = pe;
    d.groups = 2;
    CHECK_STATUS(samrt_conv_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = pe; d.kh = 1031;
    CHECK_STATUS(samrt_conv_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = pe; d.dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_conv_desc_check(&d), SAMRT_E_UNSUPPORTED);
    d = pe; d.allow_tf32 = 1;
    CHECK_STATUS(samrt_conv_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = pe; d.stride_w = 0;
    CHECK_STATUS(samrt_conv_desc_check(&d), SAMRT_E_INVALID_ARG);
}

/* dwconv.h's reference against the general conv reference on depthwise NHWC cases (k 1..7,
 * stride 1 and 2, padding, bias, residual, GELU / ReLU), and the support rule. */
static void test_dwconv(void) {
    static const int K[][4] = {{3, 1, 1, 16}, {7, 1, 3, 32}, {3, 2, 1, 8}, {5, 2, 2, 24}, {1, 1, 0, 8}, {3, 2, 0, 4}};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(K); i++) {
        const int k = K[i][0], s = K[i][1], p = K[i][2], C = K[i][3], N = 2, H = 11, W = 9;
        const enum samrt_epilogue ep = i % 3 == 0 ? SAMRT_EPILOGUE_BIAS_GELU : i % 3 == 1 ? SAMRT_EPILOGUE_BIAS
                                                                                       : SAMRT_EPILOGUE_BIAS_RELU;
        struct samrt_conv_desc d = samrt_conv_desc_make(N, C, H, W, C, k, s, p, C, SAMRT_CONV_NHWC,
                                                        SAMRT_DTYPE_F32, ep);
        d.residual = (int)(i % 2);
        struct samrt_dwconv_desc dw;
        CHECK(samrt_conv_as_dwconv(&d, &dw) == 1);
        const long nx = samrt_conv_x_elems(&d), ny = samrt_conv_y_elems(&d), nw = samrt_conv_w_elems(&d);
        float *x = malloc(sizeof(float) * nx), *w = malloc(sizeof(float) * nw), *b = malloc(sizeof(float) * C);
        float *r = malloc(sizeof(float) * ny), *y0 = malloc(sizeof(float) * ny), *y1 = malloc(sizeof(float) * ny);
        CHECK(x && w && b && r && y0 && y1);
        if (x && w && b && r && y0 && y1) {
            tu_fill_uniform(x, nx, 31 + i, -1, 1);
            tu_fill_uniform(w, nw, 32 + i, -1, 1);
            tu_fill_uniform(b, C, 33 + i, -1, 1);
            tu_fill_uniform(r, ny, 34 + i, -1, 1);
            samrt_conv_ref(&d, x, w, b, r, y0);
            samrt_dwconv_ref(&dw, x, w, b, r, y1);
            check_close_f32("dwconv_ref vs conv_ref", y1, y0, ny, TOL, TOL);
        }
        free(x); free(w); free(b); free(r); free(y0); free(y1);
    }
    /* not depthwise, not NHWC, or forced to the library: no */
    struct samrt_dwconv_desc dw;
    struct samrt_conv_desc d = samrt_conv_desc_make(1, 8, 4, 4, 8, 3, 1, 1, 8, SAMRT_CONV_NCHW, SAMRT_DTYPE_F16,
                                                    SAMRT_EPILOGUE_BIAS);
    CHECK(samrt_conv_as_dwconv(&d, &dw) == 0);
    d.layout = SAMRT_CONV_NHWC;
    CHECK(samrt_conv_as_dwconv(&d, &dw) == 1 && samrt_dwconv_supported(&dw, NULL, NULL, NULL, NULL, NULL));
    d.force_library = 1;
    CHECK(samrt_conv_as_dwconv(&d, &dw) == 0);
    d = samrt_conv_desc_make(1, 8, 4, 4, 8, 3, 1, 1, 4, SAMRT_CONV_NHWC, SAMRT_DTYPE_F16, SAMRT_EPILOGUE_BIAS);
    CHECK(samrt_conv_as_dwconv(&d, &dw) == 0);  /* grouped, not depthwise */
    /* 16-byte channel vectors: 12 f16 channels are 24 bytes (no), 12 f32 are 48 (yes); k 9 no */
    dw = (struct samrt_dwconv_desc){1, 4, 4, 12, 3, 1, 1, SAMRT_DTYPE_F16, SAMRT_EPILOGUE_ACT_NONE, 1, 0};
    CHECK(!samrt_dwconv_supported(&dw, NULL, NULL, NULL, NULL, NULL));
    dw.dtype = SAMRT_DTYPE_F32;
    CHECK(samrt_dwconv_supported(&dw, NULL, NULL, NULL, NULL, NULL));
    CHECK(!samrt_dwconv_supported(&dw, (const void *)(uintptr_t)8, NULL, NULL, NULL, NULL));
    dw.k = 9;
    CHECK(!samrt_dwconv_supported(&dw, NULL, NULL, NULL, NULL, NULL));
}

/* ---- the bn form against the unfused chain -------------------------------------------------- */

struct bn_case {
    const char *name;
    int n, h, w, c, stride, rep;   /* rep: RepVggDw (stride 1), else conv -> BatchNorm */
    enum samrt_epilogue_act act;
    int residual, has_bias;
};

/* RepViT-M1 at a 1024 input: the RepVggDw mixers of stages 0..3 and the 3x3/2 spatial
 * downsamples before stages 1..3; then odd ones (C not a multiple of 8, 1x1 maps, batch 2, act
 * and residual after the BatchNorm as channel_affine_act applies them, a conv bias). */
static const struct bn_case BN_CASES[] = {
    {"mixer_s0", 1, 256, 256, 48, 1, 1, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
    {"mixer_s1", 1, 128, 128, 96, 1, 1, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
    {"mixer_s2", 1, 64, 64, 192, 1, 1, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
    {"mixer_s3", 1, 32, 32, 384, 1, 1, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
    {"down_s1", 1, 256, 256, 48, 2, 0, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
    {"down_s2", 1, 128, 128, 96, 2, 0, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
    {"down_s3", 1, 64, 64, 192, 2, 0, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
    {"rep_c20_b2", 2, 5, 3, 20, 1, 1, SAMRT_EPILOGUE_ACT_NONE, 0, 1},
    {"rep_c3_1x1", 1, 1, 1, 3, 1, 1, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
    {"bn_gelu_res_c12", 2, 7, 9, 12, 1, 0, SAMRT_EPILOGUE_ACT_GELU, 1, 1},
    {"bn_s2_relu_res_c8", 1, 5, 7, 8, 2, 0, SAMRT_EPILOGUE_ACT_RELU, 1, 0},
    {"bn_s2_1x1_c5", 1, 1, 1, 5, 2, 0, SAMRT_EPILOGUE_ACT_NONE, 0, 0},
};

/* One case's host data: f32 arrays holding values of the dtype (the BatchNorms stay f32). */
struct bn_data {
    struct samrt_dwconv_desc d;
    struct samrt_dwconv_bn_params bn;
    long nx, ny;
    float *x, *w, *b, *s, *sh, *w1, *s1, *sh1, *r;
};

static struct samrt_dwconv_desc bn_desc(const struct bn_case *c, enum samrt_dtype dt) {
    return (struct samrt_dwconv_desc){c->n, c->h, c->w, c->c, 3, c->stride, 1, dt, c->act, c->has_bias, c->residual};
}

static int bn_data_init(const struct bn_case *c, enum samrt_dtype dt, uint64_t seed, struct bn_data *h) {
    memset(h, 0, sizeof *h);
    h->d = bn_desc(c, dt);
    int ho, wo;
    samrt_dwconv_out_hw(&h->d, &ho, &wo);
    h->nx = (long)c->n * c->h * c->w * c->c;
    h->ny = (long)c->n * ho * wo * c->c;
    float **bufs[] = {&h->x, &h->r, &h->w, &h->b, &h->s, &h->sh, &h->w1, &h->s1, &h->sh1};
    const long len[] = {h->nx, h->ny, 9L * c->c, c->c, c->c, c->c, c->c, c->c, c->c};
    /* ranges: activations, conv weights, BatchNorm scales / shifts as trained nets have them */
    const float lo[] = {-3, -1, -0.6f, -0.3f, 0.2f, -0.5f, -1, 0.2f, -0.5f};
    const float hi[] = {3, 1, 0.6f, 0.3f, 1.5f, 0.5f, 1, 1.5f, 0.5f};
    const int in_dtype[] = {1, 1, 1, 1, 0, 0, 1, 0, 0};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(bufs); i++) {
        if (!(*bufs[i] = malloc(sizeof(float) * (size_t)len[i]))) return -1;
        tu_fill_uniform(*bufs[i], len[i], seed + i, lo[i], hi[i]);
        if (in_dtype[i]) tu_round(dt, *bufs[i], len[i]);
    }
    h->bn = (struct samrt_dwconv_bn_params){c->rep ? SAMRT_DWCONV_BN_REPVGG : SAMRT_DWCONV_BN_AFFINE, h->s, h->sh,
                                            c->rep ? h->w1 : NULL, c->rep ? h->s1 : NULL, c->rep ? h->sh1 : NULL};
    return 0;
}

static void bn_data_free(struct bn_data *h) {
    free(h->x); free(h->r); free(h->w); free(h->b); free(h->s); free(h->sh); free(h->w1); free(h->s1); free(h->sh1);
}

/* The chain of references the bn form replaces, on dtype storage (what the ops stored before):
 * conv (rounded on store), channel_affine with the f32 BatchNorm (+ act + residual), and for a
 * RepVggDw the 1x1 branch x * w1, its BatchNorm plus the first, and the identity add. */
static void bn_chain_ref(const struct bn_data *h, void *out) {
    const enum samrt_dtype dt = h->d.dtype;
    const size_t es = samrt_dtype_size(dt);
    const int32_t C = h->d.c;
    const int rep = h->bn.mode == SAMRT_DWCONV_BN_REPVGG;
    struct samrt_dwconv_desc plain = h->d;
    plain.act = SAMRT_EPILOGUE_ACT_NONE;
    plain.residual = 0;
    float *t32 = malloc(sizeof(float) * (size_t)h->ny);
    void *x = malloc(es * (size_t)h->nx), *t = malloc(es * (size_t)h->ny), *a = malloc(es * (size_t)h->ny);
    void *u = malloc(es * (size_t)h->ny), *r = malloc(es * (size_t)h->ny), *w1 = malloc(es * (size_t)C);
    CHECK(t32 && x && t && a && u && r && w1);
    if (t32 && x && t && a && u && r && w1) {
        tu_store(dt, x, h->x, h->nx);
        tu_store(dt, r, h->r, h->ny);
        tu_store(dt, w1, h->w1, C);
        samrt_dwconv_ref(&plain, h->x, h->w, h->b, NULL, t32);
        tu_store(dt, t, t32, h->ny);
        const struct samrt_channel_affine_args bn3 = {dt, h->ny, C, 1, t, h->s, h->sh, h->d.residual ? r : NULL,
                                                      rep ? a : out, 1, rep ? SAMRT_ACT_NONE : (enum samrt_act)h->d.act};
        CHECK_STATUS(samrt_channel_affine_ref(&bn3), SAMRT_OK);
        if (rep) {
            const struct samrt_channel_affine_args dw1 = {dt, h->nx, C, 1, x, w1, NULL, NULL, u, 0, SAMRT_ACT_NONE};
            const struct samrt_channel_affine_args bn1 = {dt, h->nx, C, 1, u, h->s1, h->sh1, a, t, 1, SAMRT_ACT_NONE};
            const struct samrt_add_scaled_args add = {dt, h->nx, 1.0f, 1.0f, t, x, out};
            CHECK_STATUS(samrt_channel_affine_ref(&dw1), SAMRT_OK);
            CHECK_STATUS(samrt_channel_affine_ref(&bn1), SAMRT_OK);
            CHECK_STATUS(samrt_add_scaled_ref(&add), SAMRT_OK);
        }
    }
    free(t32); free(x); free(t); free(a); free(u); free(r); free(w1);
}

static void test_dwconv_bn(void) {
    static const enum samrt_dtype DT[] = {SAMRT_DTYPE_BF16, SAMRT_DTYPE_F16, SAMRT_DTYPE_F32};
    CHECK((int)SAMRT_EPILOGUE_ACT_GELU == (int)SAMRT_ACT_GELU && (int)SAMRT_EPILOGUE_ACT_RELU == (int)SAMRT_ACT_RELU);
    for (size_t ci = 0; ci < SAMRT_ARRAY_LEN(BN_CASES); ci++)
        for (size_t di = 0; di < SAMRT_ARRAY_LEN(DT); di++) {
            const struct bn_case *c = &BN_CASES[ci];
            struct bn_data h;
            const size_t es = samrt_dtype_size(DT[di]);
            float *y = NULL;
            void *want = NULL, *got = NULL;
            if (bn_data_init(c, DT[di], 100 + 10 * ci, &h) == 0) {
                y = malloc(sizeof(float) * (size_t)h.ny);
                want = malloc(es * (size_t)h.ny);
                got = malloc(es * (size_t)h.ny);
            }
            CHECK_MSG(y && want && got, "%s: host allocation", c->name);
            if (y && want && got) {
                CHECK(samrt_dwconv_bn_shape_ok(&h.d, h.bn.mode));
                bn_chain_ref(&h, want);
                CHECK_STATUS(samrt_dwconv_bn_ref(&h.d, h.x, h.w, h.b, &h.bn, h.r, y), SAMRT_OK);
                tu_store(DT[di], got, y, h.ny);
                long bad = 0;
                for (long i = 0; i < h.ny; i++) bad += memcmp((char *)got + i * es, (char *)want + i * es, es) != 0;
                CHECK_MSG(bad == 0, "%s %s: %ld of %ld outputs differ in their bits from the unfused chain",
                          c->name, samrt_dtype_name(DT[di]), bad, h.ny);
            }
            free(y); free(want); free(got);
            bn_data_free(&h);
        }
    /* RepVggDw needs stride 1, pad k/2, no act and no residual; the plain form takes any */
    struct samrt_dwconv_desc d = {1, 8, 8, 16, 3, 2, 1, SAMRT_DTYPE_BF16, SAMRT_EPILOGUE_ACT_NONE, 0, 0};
    CHECK(!samrt_dwconv_bn_shape_ok(&d, SAMRT_DWCONV_BN_REPVGG) && samrt_dwconv_bn_shape_ok(&d, SAMRT_DWCONV_BN_AFFINE));
    d.stride = 1;
    CHECK(samrt_dwconv_bn_shape_ok(&d, SAMRT_DWCONV_BN_REPVGG) && !samrt_dwconv_bn_shape_ok(&d, SAMRT_DWCONV_BN_NONE));
    d.residual = 1;
    CHECK(!samrt_dwconv_bn_shape_ok(&d, SAMRT_DWCONV_BN_REPVGG));
    d.residual = 0;
    d.pad = 0;
    CHECK(!samrt_dwconv_bn_shape_ok(&d, SAMRT_DWCONV_BN_REPVGG));
    const struct samrt_dwconv_bn_params no_w1 = {SAMRT_DWCONV_BN_REPVGG, NULL, NULL, NULL, NULL, NULL};
    float v[4] = {0};
    d.pad = 1;
    CHECK_STATUS(samrt_dwconv_bn_ref(&d, v, v, NULL, &no_w1, NULL, v), SAMRT_E_INVALID_ARG);
}

int main(void) {
    test_box_filter();
    test_dwconv();
    test_dwconv_bn();
    test_2x2_stride2();
    test_groups();
    test_epilogue_layouts();
    test_transpose2x2();
    test_transpose2x2_as_gemm();
    test_desc();
    return check_report("test_conv");
}
