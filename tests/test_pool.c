/* test_pool.c - the 2x2 max-pool reference on hand-built token maps: a 4x4 ramp, floor
 * mode on odd sizes (the last row/column is never read), NaN propagation, -inf, two
 * batches, q read in place from a (q|k|v) token stride, a padded output stride, bf16
 * values copied exactly, and argument errors. The channel mean: hand sums over two batches,
 * a large map whose fp32 running sum would drift (1 + 2^-24 steps), bf16 rounding of the
 * result, and argument errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pool.h"
#include "test_util.h"

static void test_ramp(void) {
    float x[16], out[4];
    for (int i = 0; i < 16; i++) x[i] = (float)i;  /* (1, 4, 4, 1): value = 4*row + col */
    struct samrt_pool_args a = {SAMRT_DTYPE_F32, 1, 4, 4, 1, 0, 0, x, out};
    CHECK_STATUS(samrt_pool_max2x2_ref(&a), SAMRT_OK);
    CHECK(out[0] == 5 && out[1] == 7 && out[2] == 13 && out[3] == 15);
}

static void test_floor_mode(void) {
    /* (1, 5, 3, 1): output (2, 1). Row 4 and column 2 hold 1000 and must not appear. */
    float x[15], out[2] = {-1, -1};
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 3; c++) x[r * 3 + c] = (r == 4 || c == 2) ? 1000.0f : (float)(-10 * r - c);
    struct samrt_pool_args a = {SAMRT_DTYPE_F32, 1, 5, 3, 1, 0, 0, x, out};
    CHECK_STATUS(samrt_pool_max2x2_ref(&a), SAMRT_OK);
    CHECK(out[0] == 0.0f);    /* max(0, -1, -10, -11) */
    CHECK(out[1] == -20.0f);  /* max(-20, -21, -30, -31) */
    /* h = 1: the output is empty and nothing is written */
    float y = 42.0f;
    struct samrt_pool_args e = {SAMRT_DTYPE_F32, 1, 1, 4, 1, 0, 0, x, &y};
    CHECK_STATUS(samrt_pool_max2x2_ref(&e), SAMRT_OK);
    CHECK(y == 42.0f);
}

static void test_nan_inf_channels_batches(void) {
    /* (2, 2, 2, 2): batch 0 channel 0 holds a NaN, channel 1 is all -inf; batch 1 normal */
    float x[16] = {1, -INFINITY, NAN, -INFINITY, 3, -INFINITY, 2, -INFINITY,
                   -5, 4, -6, 9, -7, 8, -8, 1};
    float out[4];
    struct samrt_pool_args a = {SAMRT_DTYPE_F32, 2, 2, 2, 2, 0, 0, x, out};
    CHECK_STATUS(samrt_pool_max2x2_ref(&a), SAMRT_OK);
    CHECK(isnan(out[0]));
    CHECK(isinf(out[1]) && out[1] < 0);
    CHECK(out[2] == -5.0f && out[3] == 9.0f);
}

static void test_strides_and_bf16(void) {
    /* q read from a qkv buffer: (1, 2, 2) tokens of [q0 q1 | k0 k1 | v0 v1], s_in = 6;
     * output tokens padded to stride 3 (the pad must stay untouched). */
    const float qkv[24] = {1, -1, 99, 99, 99, 99,  2, -2, 99, 99, 99, 99,
                           4, -4, 99, 99, 99, 99,  3, -3, 99, 99, 99, 99};
    uint16_t in[24], out[3] = {0x1234, 0x1234, 0x1234};
    tu_store(SAMRT_DTYPE_BF16, in, qkv, 24);
    struct samrt_pool_args a = {SAMRT_DTYPE_BF16, 1, 2, 2, 2, 6, 3, in, out};
    CHECK_STATUS(samrt_pool_max2x2_ref(&a), SAMRT_OK);
    CHECK(out[0] == samrt_f32_to_bf16(4.0f) && out[1] == samrt_f32_to_bf16(-1.0f));
    CHECK(out[2] == 0x1234);
    /* a bf16 value that f16 could not hold is copied bit-exactly */
    uint16_t v[4] = {0x7f00, 0x3f81, 0xc2f7, 0x0001}, o = 0;
    struct samrt_pool_args b = {SAMRT_DTYPE_BF16, 1, 2, 2, 1, 0, 0, v, &o};
    CHECK_STATUS(samrt_pool_max2x2_ref(&b), SAMRT_OK);
    CHECK(o == 0x7f00);
}

static void test_errors(void) {
    float buf[16] = {0};
    struct samrt_pool_args a = {SAMRT_DTYPE_F32, 1, 4, 4, 2, 1, 0, buf, buf};
    CHECK_STATUS(samrt_pool_max2x2_ref(&a), SAMRT_E_INVALID_ARG);  /* s_in < C */
    a.s_in_tok = 0;
    a.n_channels = 0;
    CHECK_STATUS(samrt_pool_max2x2_ref(&a), SAMRT_E_INVALID_ARG);
    a.n_channels = 1;
    a.x = NULL;
    CHECK_STATUS(samrt_pool_max2x2_ref(&a), SAMRT_E_INVALID_ARG);
    a.x = buf;
    a.dtype = SAMRT_DTYPE_I64;
    CHECK_STATUS(samrt_pool_max2x2_ref(&a), SAMRT_E_UNSUPPORTED);
    CHECK_STATUS(samrt_pool_max2x2_ref(NULL), SAMRT_E_INVALID_ARG);
}

static void test_mean(void) {
    /* (2, 3, 2): batch 0 channel 0 = 1, 2, 6 -> 3; channel 1 = -1, 0, 4 -> 1; batch 1 x10 */
    const float x[12] = {1, -1, 2, 0, 6, 4, 10, -10, 20, 0, 60, 40};
    float out[4] = {0};
    struct samrt_pool_mean_args a = {SAMRT_DTYPE_F32, 2, 3, 2, x, out, 1, NULL};
    CHECK_STATUS(samrt_pool_mean_ref(&a), SAMRT_OK);
    CHECK(out[0] == 3.0f && out[1] == 1.0f && out[2] == 30.0f && out[3] == 10.0f);
    /* 2^20 tokens of 1 + 2^-23 and one of 2^24: the exact mean is representable; a plain
     * fp32 running sum would lose the small steps once it passes 2^24 */
    const int64_t n = (1 << 20) + 1;
    float *big = malloc(sizeof(float) * (size_t)n);
    CHECK(big != NULL);
    if (big) {
        for (int64_t i = 0; i < n - 1; i++) big[i] = 1.0f + 0x1p-23f;
        big[n - 1] = 0x1p24f;
        float m = 0.0f;
        struct samrt_pool_mean_args b = {SAMRT_DTYPE_F32, 1, n, 1, big, &m, 1, NULL};
        CHECK_STATUS(samrt_pool_mean_ref(&b), SAMRT_OK);
        const double want = ((double)(n - 1) * (1.0 + 0x1p-23) + 0x1p24) / (double)n;
        CHECK_MSG(m == (float)want, "mean %.9g want %.9g", m, want);
        free(big);
    }
    /* bf16: mean of 1, 2 = 1.5; of 1, 1 + 2^-7 (bf16 ulp at 1) = 1 + 2^-8, rounds to even (1) */
    const float hv[4] = {1, 1, 2, 1 + 0x1p-7f};
    uint16_t hin[4], hout[2];
    tu_store(SAMRT_DTYPE_BF16, hin, hv, 4);
    struct samrt_pool_mean_args c = {SAMRT_DTYPE_BF16, 1, 2, 2, hin, hout, 1, NULL};
    CHECK_STATUS(samrt_pool_mean_ref(&c), SAMRT_OK);
    CHECK(hout[0] == samrt_f32_to_bf16(1.5f) && hout[1] == samrt_f32_to_bf16(1.0f));
    /* errors */
    struct samrt_pool_mean_args e = a;
    e.n_tokens = 0;
    CHECK_STATUS(samrt_pool_mean_ref(&e), SAMRT_E_INVALID_ARG);
    e = a;
    e.x = NULL;
    CHECK_STATUS(samrt_pool_mean_ref(&e), SAMRT_E_INVALID_ARG);
    e = a;
    e.dtype = SAMRT_DTYPE_I64;
    CHECK_STATUS(samrt_pool_mean_ref(&e), SAMRT_E_UNSUPPORTED);
    e = a;
    e.n_tokens = (int64_t)1 << 30;
    CHECK_STATUS(samrt_pool_mean_ref(&e), SAMRT_E_INVALID_ARG);  /* 2^30 * 2 channels */
    CHECK_STATUS(samrt_pool_mean_ref(NULL), SAMRT_E_INVALID_ARG);
}

/* The split plan: about 512 tokens a block, at least 1, at most SAMRT_POOL_MEAN_MAX_SPLIT; a
 * split without a partial buffer is refused. */
static void test_mean_splits(void) {
    CHECK(samrt_pool_mean_splits(1) == 1 && samrt_pool_mean_splits(1023) == 1);
    CHECK(samrt_pool_mean_splits(1024) == 2 && samrt_pool_mean_splits(32 * 1024) == 64);
    CHECK(samrt_pool_mean_splits(256 * 256) == SAMRT_POOL_MEAN_MAX_SPLIT);
    float x[4] = {1, 2, 3, 4}, out[1];
    struct samrt_pool_mean_args a = {SAMRT_DTYPE_F32, 1, 4, 1, x, out, 2, NULL};
    CHECK_STATUS(samrt_pool_mean_check(&a), SAMRT_E_INVALID_ARG);
    float part[2];
    a.partial = part;
    CHECK_STATUS(samrt_pool_mean_ref(&a), SAMRT_OK);
    CHECK(out[0] == 2.5f);
}

int main(void) {
    test_ramp();
    test_mean_splits();
    test_floor_mode();
    test_nan_inf_channels_batches();
    test_strides_and_bf16();
    test_errors();
    test_mean();
    return check_report("test_pool");
}
