/* test_interp.c - samrt_interp_ref (kernels/interp_ref.c) against hand-checked values and an
 * independent double-precision evaluation of PyTorch's F.interpolate formulas (nearest,
 * bilinear, bicubic A=-0.75, align_corners=False). Run: ctest -R test_interp */
#include "interp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_util.h"

#define NAIVE_ATOL 2e-6   /* f32 chain vs double math, values in [-1, 1] */
#define NAIVE_RTOL 2e-6

static struct samrt_interp_desc desc(enum samrt_interp_mode m, int n, int hi, int wi, int ho, int wo) {
    struct samrt_interp_desc d = {m, n, hi, wi, ho, wo, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32};
    return d;
}

/* ---- independent double-precision model, written from the PyTorch source formulas ---------- */

static double keys(double x) { /* |x| cubic kernel, A = -0.75 */
    const double a = -0.75;
    x = fabs(x);
    if (x <= 1.0) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2.0) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
}

static double naive_at(enum samrt_interp_mode m, const float *in, int hi, int wi, int ho, int wo,
                       int y, int x) {
    /* PyTorch keeps the scale and the source coordinate in f32 (scale*(d+0.5)-0.5 rounds once);
     * everything after that is done in double here. */
    float sy = (float)hi / (float)ho, sx = (float)wi / (float)wo;
    if (m == SAMRT_INTERP_NEAREST) {
        int iy = (int)floorf((float)y * sy), ix = (int)floorf((float)x * sx);
        if (iy > hi - 1) iy = hi - 1;
        if (ix > wi - 1) ix = wi - 1;
        return in[iy * wi + ix];
    }
    double fy = (float)((y + 0.5) * (double)sy - 0.5), fx = (float)((x + 0.5) * (double)sx - 0.5);
    if (m == SAMRT_INTERP_BILINEAR) {
        if (fy < 0) fy = 0;
        if (fx < 0) fx = 0;
        int y0 = (int)fy, x0 = (int)fx;
        int y1 = y0 + 1 < hi ? y0 + 1 : hi - 1, x1 = x0 + 1 < wi ? x0 + 1 : wi - 1;
        double ly = fy - y0, lx = fx - x0;
        return (1 - ly) * ((1 - lx) * in[y0 * wi + x0] + lx * in[y0 * wi + x1]) +
               ly * ((1 - lx) * in[y1 * wi + x0] + lx * in[y1 * wi + x1]);
    }
    int iy = (int)floor(fy), ix = (int)floor(fx);
    double acc = 0;
    for (int k = -1; k <= 2; k++)
        for (int j = -1; j <= 2; j++) {
            int yy = iy + k < 0 ? 0 : (iy + k > hi - 1 ? hi - 1 : iy + k);
            int xx = ix + j < 0 ? 0 : (ix + j > wi - 1 ? wi - 1 : ix + j);
            acc += keys(fy - (iy + k)) * keys(fx - (ix + j)) * in[yy * wi + xx];
        }
    return acc;
}

static void check_naive(enum samrt_interp_mode m, int n, int hi, int wi, int ho, int wo, uint64_t seed) {
    long ni = (long)n * hi * wi, no = (long)n * ho * wo;
    float *in = malloc(ni * sizeof(float)), *out = malloc(no * sizeof(float)), *want = malloc(no * sizeof(float));
    tu_fill_uniform(in, ni, seed, -1.0f, 1.0f);
    struct samrt_interp_desc d = desc(m, n, hi, wi, ho, wo);
    CHECK_STATUS(samrt_interp_ref(&d, in, out), SAMRT_OK);
    for (int p = 0; p < n; p++)
        for (int y = 0; y < ho; y++)
            for (int x = 0; x < wo; x++)
                want[((long)p * ho + y) * wo + x] =
                    (float)naive_at(m, in + (long)p * hi * wi, hi, wi, ho, wo, y, x);
    char what[96];
    snprintf(what, sizeof what, "mode%d %dx%d->%dx%d", (int)m, hi, wi, ho, wo);
    check_close_f32(what, out, want, no, NAIVE_ATOL, NAIVE_RTOL);
    free(in); free(out); free(want);
}

/* ---- hand-checked cases ------------------------------------------------------------------- */

static void test_hand(void) {
    /* nearest: 2x repeats; 2 -> 3 uses floor(d * 2/3) = 0, 0, 1 */
    float in4[4] = {1, 2, 3, 4}, out[64];
    struct samrt_interp_desc d = desc(SAMRT_INTERP_NEAREST, 1, 2, 2, 4, 4);
    CHECK_STATUS(samrt_interp_ref(&d, in4, out), SAMRT_OK);
    const float nn4[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
    CHECK(memcmp(out, nn4, sizeof nn4) == 0);
    d = desc(SAMRT_INTERP_NEAREST, 1, 1, 2, 1, 3);
    CHECK_STATUS(samrt_interp_ref(&d, in4, out), SAMRT_OK);
    CHECK(out[0] == 1 && out[1] == 1 && out[2] == 2);

    /* bilinear 2 -> 4 on [0, 4]: sources -0.25 (clamped to 0), 0.25, 0.75, 1.25 (i1 clamped) */
    float ramp[2] = {0, 4};
    d = desc(SAMRT_INTERP_BILINEAR, 1, 1, 2, 1, 4);
    CHECK_STATUS(samrt_interp_ref(&d, ramp, out), SAMRT_OK);
    CHECK(out[0] == 0 && out[1] == 1 && out[2] == 3 && out[3] == 4);

    /* bicubic 2x of a unit impulse at x = 3: source s = d/2 - 0.25, so t is 0.25 or 0.75 and
     * each output is one Keys weight (exact binary fractions): C1(.25) = 0.87890625,
     * C1(.75) = 0.26171875, C2(1.25) = -0.10546875, C2(1.75) = -0.03515625 */
    float imp[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    const float imp_want[16] = {0, 0, 0, -0.03515625f, -0.10546875f, 0.26171875f, 0.87890625f,
                                0.87890625f, 0.26171875f, -0.10546875f, -0.03515625f, 0, 0, 0, 0, 0};
    d = desc(SAMRT_INTERP_BICUBIC, 1, 1, 8, 1, 16);
    CHECK_STATUS(samrt_interp_ref(&d, imp, out), SAMRT_OK);
    for (int i = 0; i < 16; i++) CHECK_MSG(out[i] == imp_want[i], "impulse[%d] = %g", i, out[i]);

    /* identity sizes are exact copies in every mode */
    float r[35], o[35];
    tu_fill_uniform(r, 35, 7, -3.0f, 3.0f);
    for (int m = 0; m < SAMRT_INTERP_MODE_COUNT; m++) {
        d = desc((enum samrt_interp_mode)m, 1, 5, 7, 5, 7);
        CHECK_STATUS(samrt_interp_ref(&d, r, o), SAMRT_OK);
        CHECK_MSG(memcmp(r, o, sizeof r) == 0, "mode %d identity", m);
    }

    /* the Keys weights sum to 1 for any A: a constant plane stays constant (to rounding).
     * (With A = -0.75 a linear ramp is NOT reproduced; only A = -0.5 does that.) */
    float cst[32], co[96];
    for (int i = 0; i < 32; i++) cst[i] = 3.0f;
    d = desc(SAMRT_INTERP_BICUBIC, 1, 1, 32, 1, 96);
    CHECK_STATUS(samrt_interp_ref(&d, cst, co), SAMRT_OK);
    for (int x = 0; x < 96; x++) CHECK_NEAR(co[x], 3.0, 3 * 4.8e-7);
}

static void test_errors_and_dtypes(void) {
    float a[4] = {0};
    struct samrt_interp_desc d = desc(SAMRT_INTERP_BILINEAR, 1, 2, 2, 0, 2);
    CHECK_STATUS(samrt_interp_ref(&d, a, a), SAMRT_E_INVALID_ARG);
    d = desc((enum samrt_interp_mode)7, 1, 2, 2, 2, 2);
    CHECK_STATUS(samrt_interp_ref(&d, a, a), SAMRT_E_INVALID_ARG);
    d = desc(SAMRT_INTERP_BILINEAR, 1, 2, 2, 2, 2);
    d.src_dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_interp_ref(&d, a, a), SAMRT_E_UNSUPPORTED);
    d.src_dtype = SAMRT_DTYPE_F32;
    CHECK_STATUS(samrt_interp_ref(&d, NULL, a), SAMRT_E_INVALID_ARG);

    /* bf16 in, f16 out equals f32 math on the bf16-rounded input, rounded to f16 */
    enum { HI = 7, WI = 7, HO = 20, WO = 13 };
    float in[HI * WI], want[HO * WO], got[HO * WO];
    uint16_t in16[HI * WI], out16[HO * WO];
    tu_fill_uniform(in, HI * WI, 3, -2.0f, 2.0f);
    tu_store(SAMRT_DTYPE_BF16, in16, in, HI * WI);
    tu_round(SAMRT_DTYPE_BF16, in, HI * WI);
    d = desc(SAMRT_INTERP_BICUBIC, 1, HI, WI, HO, WO);
    CHECK_STATUS(samrt_interp_ref(&d, in, want), SAMRT_OK);
    tu_round(SAMRT_DTYPE_F16, want, HO * WO);
    d.src_dtype = SAMRT_DTYPE_BF16;
    d.dst_dtype = SAMRT_DTYPE_F16;
    CHECK_STATUS(samrt_interp_ref(&d, in16, out16), SAMRT_OK);
    tu_load(SAMRT_DTYPE_F16, got, out16, HO * WO);
    CHECK(memcmp(got, want, sizeof got) == 0);
}

int main(void) {
    test_hand();
    test_errors_and_dtypes();
    for (int m = 0; m < SAMRT_INTERP_MODE_COUNT; m++) {
        check_naive((enum samrt_interp_mode)m, 2, 7, 7, 64, 64, 11);      /* pos-embed style */
        check_naive((enum samrt_interp_mode)m, 1, 14, 14, 256, 256, 12);  /* base_plus pos-embed */
        check_naive((enum samrt_interp_mode)m, 3, 32, 32, 64, 64, 13);    /* FPN 2x */
        check_naive((enum samrt_interp_mode)m, 1, 64, 64, 27, 135, 14);   /* odd, down in y */
        check_naive((enum samrt_interp_mode)m, 1, 1, 5, 3, 1, 15);        /* single row / col */
    }
    return check_report("test_interp");
}
