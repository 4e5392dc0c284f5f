/* test_fourier_pe.c - the random-Fourier positional encoding references: a hand-built
 * matrix G for which the angles are multiples of pi/2 (dense 2x2 grid with its +0.5 cell
 * centres, and a click whose +0.5 shift lands on (256, 768) of 1024), then a seeded G at
 * the production 64x64 grid against the closed form in double, the two layouts, and
 * argument errors. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fourier_pe.h"
#include "test_util.h"

/* Angles reach 2pi * (|G0| + |G1|) ~ 40 rad here, so fp32 rounding of the angle is
 * ~40 * 2^-24 per operation. */
#define FPE_TOL_F32 2e-5

/* F = 2: h_0 = 2pi * c_x, h_1 = pi * c_y (G = [[1, 0], [0, 0.5]]) */
static const float G_HAND[4] = {1.0f, 0.0f, 0.0f, 0.5f};

static void test_dense_hand(void) {
    float o[4 * 2 * 2];  /* (2F = 4, H = 2, W = 2) */
    struct samrt_fourier_pe_dense_args a = {SAMRT_DTYPE_F32, 2, G_HAND, 2, 2, 0, o};
    CHECK_STATUS(samrt_fourier_pe_dense_ref(&a), SAMRT_OK);
    /* u = 0.25 / 0.75 -> c_x = -0.5 / 0.5 -> h_0 = -pi / pi; v likewise -> h_1 = -pi/2 / pi/2 */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const int p = i * 2 + j;
            CHECK_NEAR(o[0 * 4 + p], 0.0, 1e-6);               /* sin(+-pi) */
            CHECK_NEAR(o[1 * 4 + p], i ? 1.0 : -1.0, 1e-6);    /* sin(+-pi/2) */
            CHECK_NEAR(o[2 * 4 + p], -1.0, 1e-6);              /* cos(+-pi) */
            CHECK_NEAR(o[3 * 4 + p], 0.0, 1e-6);               /* cos(+-pi/2) */
        }
}

static void test_points_hand(void) {
    /* (255.5, 767.5) + 0.5 = (256, 768) -> (0.25, 0.75) -> c = (-0.5, 0.5) */
    const float xy[4] = {255.5f, 767.5f, 511.5f, 511.5f};
    float o[2 * 4];
    struct samrt_fourier_pe_points_args a = {SAMRT_DTYPE_F32, 2, G_HAND, 2, xy, 0.5f, 1024, 1024, o};
    CHECK_STATUS(samrt_fourier_pe_points_ref(&a), SAMRT_OK);
    CHECK_NEAR(o[0], 0.0, 1e-6);   /* sin(-pi) */
    CHECK_NEAR(o[1], 1.0, 1e-6);   /* sin(pi/2) */
    CHECK_NEAR(o[2], -1.0, 1e-6);  /* cos(-pi) */
    CHECK_NEAR(o[3], 0.0, 1e-6);   /* cos(pi/2) */
    /* the image centre (511.5 + 0.5 = 512) maps to c = 0: sin 0, cos 1 */
    CHECK(o[4] == 0.0f && o[5] == 0.0f && o[6] == 1.0f && o[7] == 1.0f);
    /* a non-square image normalises x and y separately */
    const float xy2[2] = {99.5f, 49.5f};
    struct samrt_fourier_pe_points_args b = {SAMRT_DTYPE_F32, 2, G_HAND, 1, xy2, 0.5f, 200, 100, o};
    CHECK_STATUS(samrt_fourier_pe_points_ref(&b), SAMRT_OK);
    CHECK(o[0] == 0.0f && o[1] == 0.0f && o[2] == 1.0f && o[3] == 1.0f);
}

static void test_dense_closed_form(void) {
    enum { F = 128, H = 64, W = 64, C = 2 * F };
    float *g = malloc(sizeof(float) * 2 * F), *chw = malloc(sizeof(float) * C * H * W),
          *tok = malloc(sizeof(float) * C * H * W);
    tu_fill_uniform(g, 2 * F, 77, -3.0f, 3.0f);
    struct samrt_fourier_pe_dense_args a = {SAMRT_DTYPE_F32, F, g, H, W, 0, chw};
    CHECK_STATUS(samrt_fourier_pe_dense_ref(&a), SAMRT_OK);
    a.channels_last = 1;
    a.out = tok;
    CHECK_STATUS(samrt_fourier_pe_dense_ref(&a), SAMRT_OK);
    int bad = 0, layout_bad = 0;
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
            const double cx = 2.0 * (j + 0.5) / W - 1.0, cy = 2.0 * (i + 0.5) / H - 1.0;
            const int p = i * W + j;
            for (int k = 0; k < F; k++) {
                const double h = 2 * M_PI * (cx * g[k] + cy * g[F + k]);
                if (!(fabs(chw[k * H * W + p] - sin(h)) <= FPE_TOL_F32)) bad++;
                if (!(fabs(chw[(F + k) * H * W + p] - cos(h)) <= FPE_TOL_F32)) bad++;
            }
            for (int c = 0; c < C; c++) layout_bad += tok[p * C + c] != chw[c * H * W + p];
        }
    CHECK_MSG(bad == 0, "%d dense values off the closed form", bad);
    CHECK_EQ_INT(layout_bad, 0);
    free(g);
    free(chw);
    free(tok);
}

static void test_errors(void) {
    float o[8], xy[2] = {0, 0};
    struct samrt_fourier_pe_points_args a = {SAMRT_DTYPE_F32, 2, G_HAND, 1, xy, 0.5f, 0, 1024, o};
    CHECK_STATUS(samrt_fourier_pe_points_ref(&a), SAMRT_E_INVALID_ARG);  /* img_w 0 */
    a.img_w = NAN;
    CHECK_STATUS(samrt_fourier_pe_points_ref(&a), SAMRT_E_INVALID_ARG);
    a.img_w = 1024;
    a.gauss = NULL;
    CHECK_STATUS(samrt_fourier_pe_points_ref(&a), SAMRT_E_INVALID_ARG);
    struct samrt_fourier_pe_dense_args d = {SAMRT_DTYPE_F16, 0, G_HAND, 2, 2, 0, o};
    CHECK_STATUS(samrt_fourier_pe_dense_ref(&d), SAMRT_E_INVALID_ARG);
    d.n_feats = 2;
    d.dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_fourier_pe_dense_ref(&d), SAMRT_E_UNSUPPORTED);
}

int main(void) {
    test_dense_hand();
    test_points_hand();
    test_dense_closed_form();
    test_errors();
    return check_report("test_fourier_pe");
}
