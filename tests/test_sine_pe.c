/* test_sine_pe.c - the sine positional encodings against the closed form evaluated in
 * double (model-spec 3.3: y = (i+1)/(H+1e-6)*2pi, t_k = 10000^(2 floor(k/2)/F), y
 * channels first, sin on even and cos on odd channels; the 1-D form is a sin block then a
 * cos block), plus hand values (y = pi at row 1 of a 4-row map), layout agreement between
 * (D,H,W) and tokens, and argument errors. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "sine_pe.h"
#include "test_util.h"

/* fp32 evaluation vs exact math: arguments up to 2pi carry a few fp32 roundings
 * (division, scale, exponent, power), each <= ~4e-7 relative. */
#define PE_TOL_F32 1e-5

static double closed_form_2d(int d, int h, int w, int c, int i, int j) {
    const int f = d / 2, k = c < f ? c : c - f;
    const double pos = c < f ? (i + 1) / (h + 1e-6) * 2 * M_PI : (j + 1) / (w + 1e-6) * 2 * M_PI;
    const double t = pow(10000.0, 2.0 * (k / 2) / f);
    return k % 2 ? cos(pos / t) : sin(pos / t);
}

static void check_2d(int d, int h, int w) {
    const long n = (long)d * h * w;
    float *chw = malloc(sizeof(float) * n), *tok = malloc(sizeof(float) * n);
    struct samrt_sine_pe_args a = {SAMRT_DTYPE_F32, d, h, w, 0, chw};
    CHECK_STATUS(samrt_sine_pe_ref(&a), SAMRT_OK);
    a.channels_last = 1;
    a.out = tok;
    CHECK_STATUS(samrt_sine_pe_ref(&a), SAMRT_OK);
    int bad = 0, layout_bad = 0;
    for (int c = 0; c < d; c++)
        for (int i = 0; i < h; i++)
            for (int j = 0; j < w; j++) {
                const long p = (long)i * w + j;
                const float v = chw[c * (long)h * w + p];
                if (!(fabs(v - closed_form_2d(d, h, w, c, i, j)) <= PE_TOL_F32)) bad++;
                if (tok[p * d + c] != v) layout_bad++;
            }
    CHECK_MSG(bad == 0, "D=%d %dx%d: %d values off the closed form", d, h, w, bad);
    CHECK_EQ_INT(layout_bad, 0);
    free(chw);
    free(tok);
}

static void test_hand_values(void) {
    /* D = 8 (F = 4) on 4x4: t_0 = t_1 = 1, t_2 = t_3 = 100. Row 1: y = 2/4 * 2pi = pi. */
    float o[8 * 16];
    struct samrt_sine_pe_args a = {SAMRT_DTYPE_F32, 8, 4, 4, 0, o};
    CHECK_STATUS(samrt_sine_pe_ref(&a), SAMRT_OK);
    const int hw = 16, p_row1 = 1 * 4 + 2, p_col3 = 0 * 4 + 3;
    CHECK_NEAR(o[0 * hw + p_row1], 0.0, 1e-5);   /* sin(pi) */
    CHECK_NEAR(o[1 * hw + p_row1], -1.0, 1e-6);  /* cos(pi) */
    CHECK_NEAR(o[2 * hw + p_row1], sin(M_PI / 100), 1e-6);
    CHECK_NEAR(o[5 * hw + p_col3], 1.0, 1e-6);   /* x channel 1: cos(4/4 * 2pi) */
    CHECK_NEAR(o[4 * hw + p_col3], 0.0, 1e-5);   /* x channel 0: sin(2pi) */
    /* the y half depends on the row only, the x half on the column only */
    for (int c = 0; c < 4; c++) CHECK(o[c * hw + 1 * 4 + 0] == o[c * hw + 1 * 4 + 3]);
    for (int c = 4; c < 8; c++) CHECK(o[c * hw + 0 * 4 + 2] == o[c * hw + 3 * 4 + 2]);
}

static void test_1d(void) {
    /* pointer distances d / (max_ptr - 1), max_ptr = 16, dim 256 */
    enum { N = 16, DIM = 256, F = DIM / 2 };
    float pos[N], out[N * DIM];
    for (int d = 0; d < N; d++) pos[d] = (float)d / 15.0f;
    struct samrt_sine_pe_1d_args a = {SAMRT_DTYPE_F32, N, DIM, pos, out};
    CHECK_STATUS(samrt_sine_pe_1d_ref(&a), SAMRT_OK);
    for (int k = 0; k < F; k++) {  /* position 0: sin block 0, cos block 1 */
        CHECK(out[k] == 0.0f);
        CHECK(out[F + k] == 1.0f);
    }
    int bad = 0;
    for (int d = 0; d < N; d++)
        for (int k = 0; k < F; k++) {
            const double t = pow(10000.0, 2.0 * (k / 2) / F), v = (double)pos[d] / t;
            if (!(fabs(out[d * DIM + k] - sin(v)) <= 1e-6)) bad++;
            if (!(fabs(out[d * DIM + F + k] - cos(v)) <= 1e-6)) bad++;
        }
    CHECK_EQ_INT(bad, 0);
}

static void test_bf16_and_errors(void) {
    enum { D = 64, H = 16, W = 16 };
    uint16_t o16[D * H * W];
    float o32[D * H * W];
    struct samrt_sine_pe_args a = {SAMRT_DTYPE_BF16, D, H, W, 1, o16};
    CHECK_STATUS(samrt_sine_pe_ref(&a), SAMRT_OK);
    a.dtype = SAMRT_DTYPE_F32;
    a.out = o32;
    CHECK_STATUS(samrt_sine_pe_ref(&a), SAMRT_OK);
    int bad = 0;
    for (int i = 0; i < D * H * W; i++) bad += samrt_bf16_to_f32(o16[i]) != samrt_round_bf16(o32[i]);
    CHECK_EQ_INT(bad, 0);

    a.n_feats = 6;  /* not a multiple of 4 */
    CHECK_STATUS(samrt_sine_pe_ref(&a), SAMRT_E_INVALID_ARG);
    a.n_feats = 8;
    a.h = 0;
    CHECK_STATUS(samrt_sine_pe_ref(&a), SAMRT_E_INVALID_ARG);
    a.h = 4;
    a.dtype = SAMRT_DTYPE_I32;
    CHECK_STATUS(samrt_sine_pe_ref(&a), SAMRT_E_UNSUPPORTED);
    float p = 0;
    struct samrt_sine_pe_1d_args b = {SAMRT_DTYPE_F32, 1, 3, &p, o32};
    CHECK_STATUS(samrt_sine_pe_1d_ref(&b), SAMRT_E_INVALID_ARG);  /* odd dim */
    b.dim = 4;
    b.pos = NULL;
    CHECK_STATUS(samrt_sine_pe_1d_ref(&b), SAMRT_E_INVALID_ARG);
}

int main(void) {
    test_hand_values();
    check_2d(256, 64, 64);  /* neck pos2: memory-attention query PE */
    check_2d(64, 64, 64);   /* maskmem_pos_enc */
    check_2d(64, 16, 16);   /* EdgeTAM perceiver 2-D latents */
    check_2d(8, 3, 5);
    test_1d();
    test_bf16_and_errors();
    return check_report("test_sine_pe");
}
