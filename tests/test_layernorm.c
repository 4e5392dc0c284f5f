/* test_layernorm.c - the LayerNorm / LayerNorm2d references against hand-checked values:
 * LN([1,2,3,4]), the same row shifted by 1e4 (two-pass statistics keep it exact where a
 * single-pass E[x^2]-E[x]^2 in fp32 would not), weights and biases, the fused residual
 * (bit-equal to add-then-normalise), in-place use, bf16 storage, LayerNorm2d per pixel
 * with GELU, and argument errors. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "elementwise.h"
#include "layernorm.h"
#include "samrt_impl.h"
#include "test_util.h"

#define TOL_F32 2e-6

static double gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }

static void test_basic_row(void) {
    /* mean 2.5, biased variance 1.25: (x - 2.5) / sqrt(1.25) */
    const float x[4] = {1, 2, 3, 4};
    const double want[4] = {-1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 1.3416407864998738};
    float out[4];
    struct samrt_layernorm_args a = {SAMRT_DTYPE_F32, 1, 4, 0.0f, x, NULL, NULL, NULL, out, NULL};
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_OK);
    for (int i = 0; i < 4; i++) CHECK_NEAR(out[i], want[i], TOL_F32);

    /* eps enters under the root; weight and bias per column */
    const float w[4] = {1, 2, 0.5f, -1}, b[4] = {0, 1, -1, 0.25f};
    a.eps = 1e-5f;
    a.weight = w;
    a.bias = b;
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_OK);
    for (int i = 0; i < 4; i++) CHECK_NEAR(out[i], (x[i] - 2.5) / sqrt(1.25 + 1e-5) * w[i] + b[i], TOL_F32);

    /* 1e4 offset: exactly representable, and the deviations stay exact in two passes */
    const float xs[4] = {10001, 10002, 10003, 10004};
    struct samrt_layernorm_args s = {SAMRT_DTYPE_F32, 1, 4, 0.0f, xs, NULL, NULL, NULL, out, NULL};
    CHECK_STATUS(samrt_layernorm_ref(&s), SAMRT_OK);
    for (int i = 0; i < 4; i++) CHECK_NEAR(out[i], want[i], TOL_F32);

    /* a constant row has zero variance: out = 0 * rsqrt(eps) + b */
    const float xc[3] = {7, 7, 7}, bc[3] = {0.5f, -2, 0};
    struct samrt_layernorm_args c = {SAMRT_DTYPE_F32, 1, 3, 1e-6f, xc, NULL, NULL, bc, out, NULL};
    CHECK_STATUS(samrt_layernorm_ref(&c), SAMRT_OK);
    for (int i = 0; i < 3; i++) CHECK(out[i] == bc[i]);
}

static void test_two_rows_and_residual(void) {
    /* row 0: 0.5 + [0.5, 1.5, 2.5, 3.5] = [1,2,3,4]; row 1: [0,0,0,0] + [2,4,6,8] */
    float x[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0, 0, 0, 0};
    const float r[8] = {0.5f, 1.5f, 2.5f, 3.5f, 2, 4, 6, 8};
    const double unit[4] = {-1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 1.3416407864998738};
    float out[8], sum[8];
    struct samrt_layernorm_args a = {SAMRT_DTYPE_F32, 2, 4, 0.0f, x, r, NULL, NULL, out, sum};
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_OK);
    for (int i = 0; i < 8; i++) {
        CHECK(sum[i] == x[i] + r[i]);
        CHECK_NEAR(out[i], unit[i % 4], TOL_F32);  /* scaling a row does not change its LN */
    }
    /* in place: the residual stream x receives the sum */
    a.sum_out = x;
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_OK);
    for (int i = 0; i < 8; i++) CHECK(x[i] == sum[i]);
    /* no residual: sum_out is a copy of x; out may be x itself */
    float y[8];
    memcpy(y, x, sizeof y);
    struct samrt_layernorm_args b = {SAMRT_DTYPE_F32, 2, 4, 0.0f, y, NULL, NULL, NULL, y, sum};
    CHECK_STATUS(samrt_layernorm_ref(&b), SAMRT_OK);
    for (int i = 0; i < 8; i++) {
        CHECK(sum[i] == x[i]);
        CHECK_NEAR(y[i], unit[i % 4], TOL_F32);
    }
}

static void test_bf16(void) {
    /* storage holds bf16; out is the fp32 result rounded once to bf16 */
    const float xf[4] = {1, 2, 3, 4};
    const double want[4] = {-1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 1.3416407864998738};
    uint16_t x[4], out[4];
    tu_store(SAMRT_DTYPE_BF16, x, xf, 4);
    struct samrt_layernorm_args a = {SAMRT_DTYPE_BF16, 1, 4, 0.0f, x, NULL, NULL, NULL, out, NULL};
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_OK);
    for (int i = 0; i < 4; i++) CHECK(samrt_bf16_to_f32(out[i]) == samrt_round_bf16((float)want[i]));
}

/* The fused residual equals the composition add (rounded to bf16) then LN, bit for bit. */
static void test_fused_equals_composition(void) {
    enum { R = 7, C = 50, N = R * C };
    float xf[N], rf[N], wf[C], bf[C];
    tu_fill_uniform(xf, N, 1, -3, 3);
    tu_fill_uniform(rf, N, 2, -1, 1);
    tu_fill_uniform(wf, C, 3, 0.5f, 1.5f);
    tu_fill_uniform(bf, C, 4, -0.5f, 0.5f);
    uint16_t x[N], r[N], w[C], b[C], sum1[N], out1[N], sum2[N], out2[N];
    tu_store(SAMRT_DTYPE_BF16, x, xf, N);
    tu_store(SAMRT_DTYPE_BF16, r, rf, N);
    tu_store(SAMRT_DTYPE_BF16, w, wf, C);
    tu_store(SAMRT_DTYPE_BF16, b, bf, C);
    struct samrt_layernorm_args f = {SAMRT_DTYPE_BF16, R, C, 1e-5f, x, r, w, b, out1, sum1};
    CHECK_STATUS(samrt_layernorm_ref(&f), SAMRT_OK);
    struct samrt_add_scaled_args add = {SAMRT_DTYPE_BF16, N, 1.0f, 1.0f, x, r, sum2};
    CHECK_STATUS(samrt_add_scaled_ref(&add), SAMRT_OK);
    struct samrt_layernorm_args u = {SAMRT_DTYPE_BF16, R, C, 1e-5f, sum2, NULL, w, b, out2, NULL};
    CHECK_STATUS(samrt_layernorm_ref(&u), SAMRT_OK);
    CHECK(memcmp(sum1, sum2, sizeof sum1) == 0);
    CHECK(memcmp(out1, out2, sizeof out1) == 0);
}

static void test_layernorm2d(void) {
    /* N=1, C=2, 2 pixels. Pixel 0: channels [1, 3] -> mean 2, var 1. Pixel 1: [5, 5] -> 0. */
    const float x[4] = {1, 5, 3, 5};  /* (C, HW): c0 = [1, 5], c1 = [3, 5] */
    const float w[2] = {2, 1}, b[2] = {0, 0.5f};
    float out[4];
    struct samrt_layernorm2d_args a = {SAMRT_DTYPE_F32, 1, 2, 2, 1e-6f, SAMRT_ACT_GELU, x, NULL, w, b, out};
    CHECK_STATUS(samrt_layernorm2d_ref(&a), SAMRT_OK);
    const double inv = 1.0 / sqrt(1.0 + 1e-6);
    CHECK_NEAR(out[0], gelu(-inv * 2), TOL_F32);       /* c0, pixel 0 */
    CHECK_NEAR(out[2], gelu(inv + 0.5), TOL_F32);      /* c1, pixel 0 */
    CHECK_NEAR(out[1], 0.0, TOL_F32);                  /* c0, pixel 1: GELU(0) */
    CHECK_NEAR(out[3], 0.34573123063700656, TOL_F32);  /* c1, pixel 1: GELU(0.5) */

    /* batch 1 = 3 * batch 0 + 7 normalises to the same values (up to eps) */
    enum { C = 5, P = 6 };
    float xb[2 * C * P], ob[2 * C * P];
    tu_fill_uniform(xb, C * P, 9, -2, 2);
    for (int i = 0; i < C * P; i++) xb[C * P + i] = 3 * xb[i] + 7;
    struct samrt_layernorm2d_args bt = {SAMRT_DTYPE_F32, 2, C, P, 1e-6f, SAMRT_ACT_NONE, xb, NULL, NULL, NULL, ob};
    CHECK_STATUS(samrt_layernorm2d_ref(&bt), SAMRT_OK);
    for (int i = 0; i < C * P; i++) CHECK_NEAR(ob[C * P + i], ob[i], 2e-5);
    /* and each pixel of batch 0 has mean 0, biased variance ~1 over its channels */
    for (int p = 0; p < P; p++) {
        double m = 0, v = 0;
        for (int c = 0; c < C; c++) m += ob[c * P + p];
        for (int c = 0; c < C; c++) v += ob[c * P + p] * ob[c * P + p];
        CHECK_NEAR(m / C, 0.0, 1e-6);
        CHECK_NEAR(v / C, 1.0, 1e-4);
    }
    /* fused residual + in place: LN2d(x + r) written over x */
    float xr[4] = {0.5f, 2, 1, 2};
    const float rr[4] = {0.5f, 3, 2, 3};
    struct samrt_layernorm2d_args ip = {SAMRT_DTYPE_F32, 1, 2, 2, 1e-6f, SAMRT_ACT_GELU, xr, rr, w, b, xr};
    CHECK_STATUS(samrt_layernorm2d_ref(&ip), SAMRT_OK);
    for (int i = 0; i < 4; i++) CHECK(xr[i] == out[i]);
}

static void test_errors(void) {
    float buf[8] = {0};
    struct samrt_layernorm_args a = {SAMRT_DTYPE_F32, 2, 4, 1e-5f, NULL, NULL, NULL, NULL, buf, NULL};
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_E_INVALID_ARG);  /* x NULL */
    a.x = buf;
    a.n_cols = 0;
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_E_INVALID_ARG);
    a.n_cols = 4;
    a.eps = -1.0f;
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_E_INVALID_ARG);
    a.eps = NAN;
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_E_INVALID_ARG);
    a.eps = 1e-5f;
    a.dtype = SAMRT_DTYPE_I32;
    CHECK_STATUS(samrt_layernorm_ref(&a), SAMRT_E_UNSUPPORTED);
    CHECK_STATUS(samrt_layernorm_ref(NULL), SAMRT_E_INVALID_ARG);
    struct samrt_layernorm2d_args b = {SAMRT_DTYPE_F32, 1, 2, 4, 1e-6f, SAMRT_ACT_COUNT, buf, NULL, NULL, NULL, buf};
    CHECK_STATUS(samrt_layernorm2d_ref(&b), SAMRT_E_INVALID_ARG);  /* act out of range */
    b.act = SAMRT_ACT_GELU;
    b.n_pixels = 0;
    CHECK_STATUS(samrt_layernorm2d_ref(&b), SAMRT_E_INVALID_ARG);
    b.n_pixels = 4;
    b.out = NULL;
    CHECK_STATUS(samrt_layernorm2d_ref(&b), SAMRT_E_INVALID_ARG);
}

int main(void) {
    test_basic_row();
    test_two_rows_and_residual();
    test_bf16();
    test_fused_equals_composition();
    test_layernorm2d();
    test_errors();
    return check_report("test_layernorm");
}
