/* test_gemm.c - CPU tests of the Linear reference (kernels/gemm_ref.c) and the epilogue
 * reference (kernels/epilogue_ref.c) on cases small enough to check by hand: a 2x3 by 3x2
 * product worked out below, every epilogue, alpha, residual, row strides (padding columns
 * must stay untouched), strided batches with shared and per-batch operands, GELU against
 * erf values from a table, the desc validation and which descs the fused GELU kernel takes.
 * Run: ctest --preset cpu -R test_gemm */
#include <string.h>

#include "check.h"
#include "gemm.h"

#define TOL 1e-6

/* X = [[1,2,3],[4,5,6]], W = [[1,0,-1],[2,1,0]]:
 * X W^T = [[1-3, 2+2], [4-6, 8+5]] = [[-2, 4], [-2, 13]]. */
static const float X[6] = {1, 2, 3, 4, 5, 6};
static const float W[6] = {1, 0, -1, 2, 1, 0};
static const float B[2] = {0.5f, -1.0f};

static void test_epilogues(void) {
    float y[4];
    struct samrt_gemm_desc d =
        samrt_gemm_desc_make(2, 2, 3, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, SAMRT_EPILOGUE_NONE);
    samrt_gemm_ref(&d, X, W, NULL, NULL, y);
    const float want_none[4] = {-2, 4, -2, 13};
    check_close_f32("none", y, want_none, 4, TOL, 0);

    d.epilogue = SAMRT_EPILOGUE_BIAS;   /* + [0.5, -1] per column */
    samrt_gemm_ref(&d, X, W, B, NULL, y);
    const float want_bias[4] = {-1.5f, 3, -1.5f, 12};
    check_close_f32("bias", y, want_bias, 4, TOL, 0);

    d.epilogue = SAMRT_EPILOGUE_BIAS_RELU;
    samrt_gemm_ref(&d, X, W, B, NULL, y);
    const float want_relu[4] = {0, 3, 0, 12};
    check_close_f32("bias_relu", y, want_relu, 4, TOL, 0);

    /* gelu(v) = v * Phi(v): Phi(-1.5) = 0.0668072013, Phi(3) = 0.9986501020, Phi(12) = 1. */
    d.epilogue = SAMRT_EPILOGUE_BIAS_GELU;
    samrt_gemm_ref(&d, X, W, B, NULL, y);
    const float want_gelu[4] = {-0.100210802f, 2.99595031f, -0.100210802f, 12.0f};
    check_close_f32("bias_gelu", y, want_gelu, 4, TOL, 0);

    /* alpha 0.5 and a residual: 0.5 * XW^T + b + R, R = [[1,2],[3,4]] */
    const float r[4] = {1, 2, 3, 4};
    d.epilogue = SAMRT_EPILOGUE_BIAS;
    d.alpha = 0.5f;
    d.residual = 1;
    samrt_gemm_ref(&d, X, W, B, r, y);
    const float want_res[4] = {-1 + 0.5f + 1, 2 - 1 + 2, -1 + 0.5f + 3, 6.5f - 1 + 4};
    check_close_f32("alpha_residual", y, want_res, 4, TOL, 0);
}

static void test_strides(void) {
    /* X rows 4 apart (column 3 is garbage), Y rows 3 apart (column 2 must stay 77). */
    const float xs[8] = {1, 2, 3, 99, 4, 5, 6, 99};
    const float ws[8] = {1, 0, -1, 99, 2, 1, 0, 99};
    float y[6] = {77, 77, 77, 77, 77, 77};
    struct samrt_gemm_desc d =
        samrt_gemm_desc_make(2, 2, 3, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, SAMRT_EPILOGUE_NONE);
    d.s_x = 4; d.s_w = 4; d.s_y = 3;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_OK);
    samrt_gemm_ref(&d, xs, ws, NULL, NULL, y);
    const float want[6] = {-2, 4, 77, -2, 13, 77};
    check_close_f32("strides", y, want, 6, TOL, 0);
}

static void test_batched(void) {
    /* batch 0 = X, batch 1 = 2X; one shared W; per-batch bias [0.5,-1] then [10,20]. */
    float xb[12], yb[8];
    for (int i = 0; i < 6; i++) { xb[i] = X[i]; xb[6 + i] = 2 * X[i]; }
    const float bb[4] = {0.5f, -1, 10, 20};
    struct samrt_gemm_desc d =
        samrt_gemm_desc_make(2, 2, 3, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, SAMRT_EPILOGUE_BIAS);
    d.n_batch = 2; d.sb_x = 6; d.sb_w = 0; d.sb_y = 4; d.sb_b = 2;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_OK);
    samrt_gemm_ref(&d, xb, W, bb, NULL, yb);
    const float want[8] = {-1.5f, 3, -1.5f, 12, -4 + 10, 8 + 20, -4 + 10, 26 + 20};
    check_close_f32("batched", yb, want, 8, TOL, 0);
    CHECK_NEAR(samrt_gemm_flops(&d), 2.0 * 2 * 2 * 3 * 2, 0);
}

static void test_gelu_and_rows(void) {
    /* nn.GELU() values from the erf table (independent of the code under test). */
    const float in[6] = {0, 1, -1, 0.5f, -3, -10};
    const float want[6] = {0, 0.841344746f, -0.158655254f, 0.345731231f, -0.00404969409f, 0};
    float got[6];
    for (int i = 0; i < 6; i++) got[i] = samrt_epilogue_gelu_ref(in[i]);
    check_close_f32("gelu", got, want, 6, 1e-7, 1e-6);

    /* Per-row bias (NCHW planes): 2 batches x 2 rows x 3 cols, rows 4 apart, batches 9 apart. */
    float y[18];
    for (int i = 0; i < 18; i++) y[i] = (float)i;
    const float bias[2] = {100, 200};
    const struct samrt_epilogue_shape sh = {.n_batch = 2, .n_rows = 2, .n_cols = 3, .s_batch = 9, .s_row = 4,
                                            .bias_per_row = 1};
    CHECK_STATUS(samrt_epilogue_shape_check(&sh), SAMRT_OK);
    samrt_epilogue_ref(SAMRT_EPILOGUE_ACT_NONE, &sh, bias, NULL, y);
    const float want_rows[18] = {100, 101, 102, 3, 204, 205, 206, 7, 8,
                                 109, 110, 111, 12, 213, 214, 215, 16, 17};
    check_close_f32("bias_per_row", y, want_rows, 18, TOL, 0);

    /* ReLU keeps NaN (as torch.relu), so a never-written poisoned element stays visible. */
    float v[3] = {-1.0f, NAN, 2.0f};
    const struct samrt_epilogue_shape sh1 = {.n_batch = 1, .n_rows = 1, .n_cols = 3, .s_row = 3};
    samrt_epilogue_ref(SAMRT_EPILOGUE_ACT_RELU, &sh1, NULL, NULL, v);
    CHECK(v[0] == 0.0f && isnan(v[1]) && v[2] == 2.0f);
}

static void test_desc_check(void) {
    const struct samrt_gemm_desc ok = samrt_gemm_desc_make(4, 8, 16, SAMRT_DTYPE_BF16, SAMRT_DTYPE_F32,
                                                           SAMRT_EPILOGUE_BIAS_GELU);
    CHECK_STATUS(samrt_gemm_desc_check(&ok), SAMRT_OK);
    struct samrt_gemm_desc d = ok;
    d.m = 0;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = ok; d.s_x = 15;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = ok; d.dt_out = SAMRT_DTYPE_F16;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_UNSUPPORTED);
    d = ok; d.dt_in = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_UNSUPPORTED);
    d = ok; d.allow_tf32 = 1;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = ok; d.align_bytes = 24;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = ok; d.align_bytes = 2;   /* below the f32 output's element size */
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = ok; d.epilogue = SAMRT_EPILOGUE_COUNT;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_INVALID_ARG);
    d = ok; d.n_batch = 2; d.sb_y = 8 * 4 - 1;   /* second batch would overlap the first */
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_E_INVALID_ARG);
    d.sb_y = 32;
    CHECK_STATUS(samrt_gemm_desc_check(&d), SAMRT_OK);
    CHECK(strcmp(samrt_epilogue_name(SAMRT_EPILOGUE_BIAS_GELU), "bias_gelu") == 0);

    struct samrt_epilogue_shape sh = {.n_batch = 1, .n_rows = 1 << 16, .n_cols = 1 << 15, .s_row = 1 << 15};
    CHECK_STATUS(samrt_epilogue_shape_check(&sh), SAMRT_E_UNSUPPORTED);   /* 2^31 elements */
    sh.n_rows = 2; sh.s_row = 10;
    CHECK_STATUS(samrt_epilogue_shape_check(&sh), SAMRT_E_INVALID_ARG);   /* rows overlap */
}

/* The fused GELU kernel's rule (gemm.h): Hiera's fc1 in f16 / bf16 qualifies in a build with
 * CUTLASS (none without), and breaking any one condition sends the desc back to cuBLASLt. */
static void test_fused_rule(void) {
    const struct samrt_gemm_desc ok = samrt_gemm_desc_make(65536, 384, 96, SAMRT_DTYPE_F16, SAMRT_DTYPE_F16,
                                                           SAMRT_EPILOGUE_BIAS_GELU);
    const int on = samrt_gemm_fuses_gelu(&ok);
    struct samrt_gemm_desc d = ok;
    d.dt_in = d.dt_out = SAMRT_DTYPE_BF16;
    CHECK(samrt_gemm_fuses_gelu(&d) == on);
    d.dt_in = d.dt_out = SAMRT_DTYPE_F32;   /* the strict parity path */
    CHECK(!samrt_gemm_fuses_gelu(&d));
    d = ok; d.dt_out = SAMRT_DTYPE_F32;
    CHECK(!samrt_gemm_fuses_gelu(&d));
    for (int ep = 0; ep < SAMRT_EPILOGUE_COUNT; ep++) {
        d = ok; d.epilogue = (enum samrt_epilogue)ep;
        CHECK(samrt_gemm_fuses_gelu(&d) == (ep == SAMRT_EPILOGUE_BIAS_GELU && on));
    }
    d = ok; d.n = 36;
    CHECK(!samrt_gemm_fuses_gelu(&d));
    d = ok; d.k = 12; d.s_x = d.s_w = 12;
    CHECK(!samrt_gemm_fuses_gelu(&d));
    d = ok; d.s_x = 100;
    CHECK(!samrt_gemm_fuses_gelu(&d));
    d = ok; d.align_bytes = 8;
    CHECK(!samrt_gemm_fuses_gelu(&d));
    d = ok; d.residual = 1;
    CHECK(!samrt_gemm_fuses_gelu(&d));
    d = ok; d.n_batch = 2; d.sb_x = d.m * d.k; d.sb_y = d.m * d.n;
    CHECK(!samrt_gemm_fuses_gelu(&d));
    d = ok; d.force_library = 1;
    CHECK(!samrt_gemm_fuses_gelu(&d));
    d = ok; d.m = 1; d.s_x = 104; d.s_y = 392; d.alpha = 0.5f;   /* one row, padded rows, alpha: still fused */
    CHECK(samrt_gemm_fuses_gelu(&d) == on);
}

int main(void) {
    test_epilogues();
    test_strides();
    test_batched();
    test_gelu_and_rows();
    test_desc_check();
    test_fused_rule();
    return check_report("test_gemm");
}
