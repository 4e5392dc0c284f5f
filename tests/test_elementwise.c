/* test_elementwise.c - the elementwise references against hand values: GELU(1) =
 * 0.8413447460685429, ReLU with NaN, sigmoid saturation (sigmoid(-1024) * 20 - 10 == -10
 * exactly, the memory encoder's no-object input), a*x + b*y, per-channel scale/bias for
 * NCHW and channels-last, bf16 rounding, and argument errors. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "elementwise.h"
#include "test_util.h"

#define TOL_F32 1e-7

static void unary_f32(enum samrt_act act, float alpha, float beta, const float *x, float *out, int n) {
    struct samrt_unary_args a = {SAMRT_DTYPE_F32, act, n, alpha, beta, x, out};
    CHECK_STATUS(samrt_unary_ref(&a), SAMRT_OK);
}

static void test_activations(void) {
    const float x[5] = {1, -1, 0, 3, -10};
    float y[5];
    unary_f32(SAMRT_ACT_GELU, 1, 0, x, y, 5);
    CHECK_NEAR(y[0], 0.8413447460685429, TOL_F32);
    CHECK_NEAR(y[1], -0.15865525393145707, TOL_F32);
    CHECK(y[2] == 0.0f);
    CHECK_NEAR(y[3], 2.99595030590511, 4e-7);  /* 1.5 * (1 + erf(3/sqrt 2)) */
    CHECK(y[4] <= 0.0f && y[4] > -1e-20f);       /* -10 * Phi(-10) ~ -7.6e-23 */

    const float xr[4] = {-2, 0, 3, NAN};
    float yr[4];
    unary_f32(SAMRT_ACT_RELU, 1, 0, xr, yr, 4);
    CHECK(yr[0] == 0.0f && yr[1] == 0.0f && yr[2] == 3.0f && isnan(yr[3]));

    const float xs[4] = {0, 2, -1024, 1024};
    float ys[4];
    unary_f32(SAMRT_ACT_SIGMOID, 1, 0, xs, ys, 4);
    CHECK(ys[0] == 0.5f);
    CHECK_NEAR(ys[1], 0.8807970779778823, TOL_F32);
    CHECK(ys[2] == 0.0f && ys[3] == 1.0f);
    unary_f32(SAMRT_ACT_SIGMOID, 20, -10, xs, ys, 4);  /* mask logits -> memory encoder input */
    CHECK(ys[0] == 0.0f && ys[2] == -10.0f && ys[3] == 10.0f);

    unary_f32(SAMRT_ACT_NONE, 2, 1, x, y, 5);  /* plain affine 2x + 1 */
    CHECK(y[0] == 3.0f && y[1] == -1.0f && y[4] == -19.0f);

    /* bf16 storage: the fp32 value rounded once; in place */
    uint16_t h[2] = {samrt_f32_to_bf16(1.0f), samrt_f32_to_bf16(-1.0f)};
    struct samrt_unary_args b = {SAMRT_DTYPE_BF16, SAMRT_ACT_GELU, 2, 1, 0, h, h};
    CHECK_STATUS(samrt_unary_ref(&b), SAMRT_OK);
    CHECK(samrt_bf16_to_f32(h[0]) == samrt_round_bf16(0.8413447460685429f));
    CHECK(samrt_bf16_to_f32(h[1]) == samrt_round_bf16(-0.15865525393145707f));
}

static void test_add_scaled(void) {
    const float x[3] = {1, 2, -3}, y[3] = {10, 20, 0.5f};
    float out[3];
    struct samrt_add_scaled_args a = {SAMRT_DTYPE_F32, 3, 1.0f, 0.1f, x, y, out};  /* x + 0.1 * pos */
    CHECK_STATUS(samrt_add_scaled_ref(&a), SAMRT_OK);
    CHECK_NEAR(out[0], 2.0, TOL_F32);
    CHECK_NEAR(out[1], 4.0, TOL_F32);
    CHECK_NEAR(out[2], -2.95, 3e-7);
    /* a = b = 1 is exactly x + y, and out may be an input */
    float r[64], s[64], want[64];
    tu_fill_uniform(r, 64, 5, -100, 100);
    tu_fill_uniform(s, 64, 6, -1, 1);
    for (int i = 0; i < 64; i++) want[i] = r[i] + s[i];
    struct samrt_add_scaled_args b = {SAMRT_DTYPE_F32, 64, 1.0f, 1.0f, r, s, r};
    CHECK_STATUS(samrt_add_scaled_ref(&b), SAMRT_OK);
    CHECK(memcmp(r, want, sizeof r) == 0);
    /* lam * ptr + (1 - lam) * no_obj_ptr with lam in {0, 1} selects exactly */
    struct samrt_add_scaled_args c = {SAMRT_DTYPE_F32, 3, 0.0f, 1.0f, x, y, out};
    CHECK_STATUS(samrt_add_scaled_ref(&c), SAMRT_OK);
    CHECK(out[0] == 10.0f && out[1] == 20.0f && out[2] == 0.5f);
}

static void test_channel_affine(void) {
    /* NCHW (N=2, C=3, HW=2): channel of element i is (i / 2) % 3 */
    float x[12];
    for (int i = 0; i < 12; i++) x[i] = (float)(i + 1);
    const float scale[3] = {1, 2, 3}, bias[3] = {0.5f, 0, -1};
    float out[12];
    struct samrt_channel_affine_args a = {SAMRT_DTYPE_F32, 12, 3, 2, x, scale, bias, NULL, out, 0, SAMRT_ACT_NONE};
    CHECK_STATUS(samrt_channel_affine_ref(&a), SAMRT_OK);
    const float want[12] = {1.5f, 2.5f, 6, 8, 14, 17, 7.5f, 8.5f, 18, 20, 32, 35};
    for (int i = 0; i < 12; i++) CHECK(out[i] == want[i]);

    /* channels-last (4 tokens, C=3), scale only + residual: r + gamma * x (CXBlock) */
    float r[12];
    for (int i = 0; i < 12; i++) r[i] = 100.0f;
    struct samrt_channel_affine_args b = {SAMRT_DTYPE_F32, 12, 3, 1, x, scale, NULL, r, r, 0, SAMRT_ACT_NONE};
    CHECK_STATUS(samrt_channel_affine_ref(&b), SAMRT_OK);
    for (int i = 0; i < 12; i++) CHECK(r[i] == 100.0f + x[i] * scale[i % 3]);

    /* bias only (no_mem_embed broadcast to every token), in place */
    struct samrt_channel_affine_args c = {SAMRT_DTYPE_F32, 12, 3, 1, x, NULL, bias, NULL, x, 0, SAMRT_ACT_NONE};
    CHECK_STATUS(samrt_channel_affine_ref(&c), SAMRT_OK);
    for (int i = 0; i < 12; i++) CHECK(x[i] == (float)(i + 1) + bias[i % 3]);

    /* a BatchNorm after a bf16 conv: f32 scale / shift on bf16 data, ReLU, then the residual.
     * 3 * 1.5 - 0.25 = 4.25 is exact in bf16; 1 * 1.5 - 5 < 0 -> ReLU 0; + residual 2 */
    uint16_t xb[2] = {0x4040, 0x3F80}, rb[2] = {0x4000, 0x4000}, ob[2];  /* 3, 1; 2, 2 */
    const float s32[2] = {1.5f, 1.5f}, b32[2] = {-0.25f, -5.0f};
    struct samrt_channel_affine_args d = {SAMRT_DTYPE_BF16, 2, 2, 1, xb, s32, b32, rb, ob, 1, SAMRT_ACT_RELU};
    CHECK_STATUS(samrt_channel_affine_ref(&d), SAMRT_OK);
    CHECK(ob[0] == 0x40C8 && ob[1] == 0x4000);  /* 4.25 + 2 = 6.25; 0 + 2 */
    d.act = SAMRT_ACT_COUNT;
    CHECK_STATUS(samrt_channel_affine_ref(&d), SAMRT_E_INVALID_ARG);
}

static void test_errors(void) {
    float buf[8] = {0};
    struct samrt_unary_args u = {SAMRT_DTYPE_F32, SAMRT_ACT_COUNT, 8, 1, 0, buf, buf};
    CHECK_STATUS(samrt_unary_ref(&u), SAMRT_E_INVALID_ARG);
    u.act = SAMRT_ACT_GELU;
    u.n = -1;
    CHECK_STATUS(samrt_unary_ref(&u), SAMRT_E_INVALID_ARG);
    u.n = (int64_t)1 << 31;
    CHECK_STATUS(samrt_unary_ref(&u), SAMRT_E_INVALID_ARG);
    u.n = 8;
    u.dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_unary_ref(&u), SAMRT_E_UNSUPPORTED);
    u.dtype = SAMRT_DTYPE_F32;
    u.x = NULL;
    CHECK_STATUS(samrt_unary_ref(&u), SAMRT_E_INVALID_ARG);
    u.n = 0;  /* nothing to do: pointers may be NULL */
    CHECK_STATUS(samrt_unary_ref(&u), SAMRT_OK);

    struct samrt_add_scaled_args s = {SAMRT_DTYPE_F32, 8, 1, 1, buf, NULL, buf};
    CHECK_STATUS(samrt_add_scaled_ref(&s), SAMRT_E_INVALID_ARG);
    struct samrt_channel_affine_args c = {SAMRT_DTYPE_F32, 8, 3, 1, buf, NULL, NULL, NULL, buf, 0, SAMRT_ACT_NONE};
    CHECK_STATUS(samrt_channel_affine_ref(&c), SAMRT_E_INVALID_ARG);  /* 8 % 3 != 0 */
    c.n_channels = 0;
    CHECK_STATUS(samrt_channel_affine_ref(&c), SAMRT_E_INVALID_ARG);
}

int main(void) {
    test_activations();
    test_add_scaled();
    test_channel_affine();
    test_errors();
    return check_report("test_elementwise");
}
