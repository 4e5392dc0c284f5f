/* test_bn_fold.c - CPU tests of BatchNorm folding (kernels/bn_fold.c): an exact hand case,
 * the defining property BN(conv(x)) == conv_folded(x) on a random 3x3 conv (BN evaluated
 * in double by the test), rejection of corrupt statistics, and RepVggDw fusion against
 * dw3x3(x) + dw1x1(x) + x computed with the conv reference.
 * Run: ctest --preset cpu -R test_bn_fold */
#include "bn_fold.h"
#include "check.h"
#include "conv.h"
#include "test_util.h"

static void test_hand(void) {
    /* eps 1 and var 3 make sqrt(var + eps) = 2, so s = g / 2 = [1, 0.25]. */
    const float w[6] = {1, 2, 3, 4, 5, 6}, b[2] = {1, -1};
    const float g[2] = {2, 0.5f}, beta[2] = {0.1f, -0.2f}, mean[2] = {0.5f, 1}, var[2] = {3, 3};
    float wo[6], bo[2];
    CHECK_STATUS(samrt_bn_fold_conv(2, 3, w, b, g, beta, mean, var, 1.0f, wo, bo), SAMRT_OK);
    const float want_w[6] = {1, 2, 3, 1, 1.25f, 1.5f};
    const float want_b[2] = {(1 - 0.5f) * 1 + 0.1f, (-1 - 1) * 0.25f - 0.2f};
    check_close_f32("w", wo, want_w, 6, 0, 0);
    check_close_f32("b", bo, want_b, 2, 1e-7, 0);
    /* no conv bias (ConvNorm's conv has none): b' = -mean * s + beta */
    CHECK_STATUS(samrt_bn_fold_conv(2, 3, w, NULL, g, beta, mean, var, 1.0f, wo, bo), SAMRT_OK);
    CHECK_NEAR(bo[0], -0.5 + 0.1, 1e-7);
    CHECK_NEAR(bo[1], -0.25 - 0.2, 1e-7);
}

static void test_property(void) {
    enum { CI = 5, CO = 4, H = 6, W = 7, NW = CO * CI * 9, NX = CI * H * W, NY = CO * H * W };
    float x[NX], w[NW], b[CO], g[CO], beta[CO], mean[CO], var[CO], wf[NW], bf[CO], y[NY], yf[NY], want[NY];
    tu_fill_uniform(x, NX, 11, -1, 1);
    tu_fill_uniform(w, NW, 12, -0.5f, 0.5f);
    tu_fill_uniform(b, CO, 13, -1, 1);
    tu_fill_uniform(g, CO, 14, 0.5f, 2);
    tu_fill_uniform(beta, CO, 15, -1, 1);
    tu_fill_uniform(mean, CO, 16, -1, 1);
    tu_fill_uniform(var, CO, 17, 0.01f, 3);
    struct samrt_conv_desc d = samrt_conv_desc_make(1, CI, H, W, CO, 3, 1, 1, 1, SAMRT_CONV_NCHW,
                                                    SAMRT_DTYPE_F32, SAMRT_EPILOGUE_BIAS);
    samrt_conv_ref(&d, x, w, b, NULL, y);
    for (int o = 0; o < CO; o++)
        for (int p = 0; p < H * W; p++) {
            const double v = y[o * H * W + p];
            want[o * H * W + p] = (float)((v - mean[o]) / sqrt((double)var[o] + 1e-5) * g[o] + beta[o]);
        }
    CHECK_STATUS(samrt_bn_fold_conv(CO, CI * 9, w, b, g, beta, mean, var, SAMRT_BN_EPS, wf, bf), SAMRT_OK);
    samrt_conv_ref(&d, x, wf, bf, NULL, yf);
    check_close_f32("bn(conv) == conv_folded", yf, want, NY, 1e-5, 1e-5);
    /* in place on the weights */
    CHECK_STATUS(samrt_bn_fold_conv(CO, CI * 9, w, b, g, beta, mean, var, SAMRT_BN_EPS, w, bf), SAMRT_OK);
    check_close_f32("in_place", w, wf, NW, 0, 0);
}

static void test_corrupt(void) {
    const float w[2] = {1, 2}, g[1] = {1}, beta[1] = {0}, mean[1] = {0};
    float wo[2], bo[1];
    const float neg[1] = {-1}, nan_var[1] = {NAN}, tiny[1] = {-1e-5f};
    CHECK_STATUS(samrt_bn_fold_conv(1, 2, w, NULL, g, beta, mean, neg, SAMRT_BN_EPS, wo, bo), SAMRT_E_FORMAT);
    CHECK_STATUS(samrt_bn_fold_conv(1, 2, w, NULL, g, beta, mean, nan_var, SAMRT_BN_EPS, wo, bo),
                 SAMRT_E_FORMAT);
    CHECK_STATUS(samrt_bn_fold_conv(1, 2, w, NULL, g, beta, mean, tiny, SAMRT_BN_EPS, wo, bo),
                 SAMRT_E_FORMAT);
    const float huge_g[1] = {3e38f}, one[1] = {1};
    CHECK_STATUS(samrt_bn_fold_conv(1, 2, w, NULL, huge_g, beta, mean, one, SAMRT_BN_EPS, wo, bo),
                 SAMRT_E_FORMAT);
    CHECK_STATUS(samrt_bn_fold_conv(0, 2, w, NULL, g, beta, mean, one, SAMRT_BN_EPS, wo, bo),
                 SAMRT_E_INVALID_ARG);
}

static void test_repvgg(void) {
    enum { C = 3, H = 5, W = 4, N = C * H * W };
    float x[N], w3[C * 9], b3[C], w1[C], b1[C], wf[C * 9], bf[C], y3[N], y1[N], yf[N], want[N];
    tu_fill_uniform(x, N, 21, -1, 1);
    tu_fill_uniform(w3, C * 9, 22, -1, 1);
    tu_fill_uniform(b3, C, 23, -1, 1);
    tu_fill_uniform(w1, C, 24, -1, 1);
    tu_fill_uniform(b1, C, 25, -1, 1);
    const struct samrt_conv_desc d3 = samrt_conv_desc_make(1, C, H, W, C, 3, 1, 1, C, SAMRT_CONV_NCHW,
                                                           SAMRT_DTYPE_F32, SAMRT_EPILOGUE_BIAS);
    const struct samrt_conv_desc d1 = samrt_conv_desc_make(1, C, H, W, C, 1, 1, 0, C, SAMRT_CONV_NCHW,
                                                           SAMRT_DTYPE_F32, SAMRT_EPILOGUE_BIAS);
    samrt_conv_ref(&d3, x, w3, b3, NULL, y3);
    samrt_conv_ref(&d1, x, w1, b1, NULL, y1);
    for (int i = 0; i < N; i++) want[i] = y3[i] + y1[i] + x[i];
    samrt_bn_fold_repvgg_dw(C, w3, b3, w1, b1, wf, bf);
    samrt_conv_ref(&d3, x, wf, bf, NULL, yf);
    check_close_f32("repvgg_dw", yf, want, N, 1e-5, 1e-5);
}

int main(void) {
    test_hand();
    test_property();
    test_corrupt();
    test_repvgg();
    return check_report("test_bn_fold");
}
