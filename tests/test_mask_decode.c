/* test_mask_decode.c - the mask_decode references (kernels/sam2/mask_decode_ref.c) against
 * hand-worked 2x2 -> 4x4 cases, boxes of known rectangles, and an independent double-precision
 * bilinear model on random logits; the memory-encoder input against the official op order
 * (upsample, then sigmoid or binarize, then *20, then -10); the non-overlap mode by hand (ties,
 * negative maxima, one object, NaN) and against a naive argmax. Run: ctest -R test_mask_decode */
#include "mask_decode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "samrt_impl.h"
#include "test_util.h"

#define NAIVE_ATOL 2e-6    /* f32 bilinear chain vs double math, logits in [-4, 4] */
#define AMBIGUOUS 1e-5     /* |logit| below this may threshold either way vs double math */
#define SIGMOID_ATOL 4e-6  /* 20*sigmoid-10 in f32 vs double: a few f32 ulps of 10 */

static struct samrt_mask_decode_desc ddesc(int n, int hi, int wi, int ho, int wo) {
    struct samrt_mask_decode_desc d = {n, hi, wi, ho, wo, SAMRT_DTYPE_F32};
    return d;
}
static struct samrt_mask_mem_desc mdesc(int n, int hi, int wi, int ho, int wo, int bin) {
    struct samrt_mask_mem_desc d = {n, hi, wi, ho, wo, bin, 20.0f, -10.0f, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32};
    return d;
}

/* 2x2 -> 4x4 by hand: sources -0.25 (clamped), 0.25, 0.75, 1.25 (upper tap clamped), so rows
 * are r0, .75r0+.25r1, .25r0+.75r1, r1 and the same across columns (all exact in f32). */
static const float k_in[4] = {-3, 1, 1, 5};
static const float k_up[16] = {-3, -2, 0, 1, -2, -1, 1, 2, 0, 1, 3, 4, 1, 2, 4, 5};

static void test_hand(void) {
    uint8_t m[16];
    float lo[16];
    struct samrt_mask_stats st;
    struct samrt_mask_decode_desc d = ddesc(1, 2, 2, 4, 4);
    CHECK_STATUS(samrt_mask_decode_ref(&d, k_in, m, &st, lo), SAMRT_OK);
    for (int i = 0; i < 16; i++) {
        CHECK_MSG(lo[i] == k_up[i], "logit[%d] = %g, want %g", i, lo[i], k_up[i]);
        CHECK_MSG(m[i] == (k_up[i] > 0), "mask[%d]", i);  /* exact 0 stays background */
    }
    CHECK_EQ_INT(st.area, 10);
    CHECK(st.x0 == 0 && st.y0 == 0 && st.x1 == 3 && st.y1 == 3);

    /* same size is a copy: a +1 rectangle at rows 10..20, cols 30..45 in a -1 field */
    enum { H = 40, W = 64 };
    static float f[2 * H * W];
    static uint8_t mm[2 * H * W];
    struct samrt_mask_stats s2[2];
    for (int i = 0; i < 2 * H * W; i++) f[i] = -1.0f;
    for (int y = 10; y <= 20; y++)
        for (int x = 30; x <= 45; x++) f[H * W + y * W + x] = 1.0f;  /* object 1 only */
    d = ddesc(2, H, W, H, W);
    CHECK_STATUS(samrt_mask_decode_ref(&d, f, mm, s2, NULL), SAMRT_OK);
    CHECK(s2[0].area == 0 && s2[0].x0 == W && s2[0].y0 == H && s2[0].x1 == -1 && s2[0].y1 == -1);
    CHECK_EQ_INT(s2[1].area, 11 * 16);
    CHECK(s2[1].x0 == 30 && s2[1].y0 == 10 && s2[1].x1 == 45 && s2[1].y1 == 20);
    CHECK(mm[H * W + 10 * W + 30] == 1 && mm[H * W + 9 * W + 30] == 0 && mm[10 * W + 30] == 0);
}

static void test_mem_input_hand(void) {
    float out[16];
    struct samrt_mask_mem_desc d = mdesc(1, 2, 2, 4, 4, 1);
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&d, k_in, out), SAMRT_OK);
    for (int i = 0; i < 16; i++) CHECK(out[i] == (k_up[i] > 0 ? 10.0f : -10.0f));
    d.binarize = 0;
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&d, k_in, out), SAMRT_OK);
    for (int i = 0; i < 16; i++) {
        double want = 20.0 / (1.0 + exp(-(double)k_up[i])) - 10.0;  /* sigmoid AFTER upsampling */
        CHECK_NEAR(out[i], want, SIGMOID_ATOL);
    }
    CHECK(out[8] == 0.0f);  /* logit 0 -> sigmoid 0.5 -> 0.5*20 - 10 = 0 exactly */
    /* the other order (sigmoid, then upsample) would give -5.63 at (0,1) instead of -7.62 */
    CHECK_NEAR(out[1], 20.0 / (1.0 + exp(2.0)) - 10.0, SIGMOID_ATOL);
    /* NO_OBJ_SCORE logits saturate to -10 */
    float no_obj[4] = {-1024, -1024, -1024, -1024};
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&d, no_obj, out), SAMRT_OK);
    for (int i = 0; i < 16; i++) CHECK(out[i] == -10.0f);
}

/* ---- independent double-precision model -------------------------------------------------- */

static double naive_bilinear(const float *p, int hi, int wi, int ho, int wo, int y, int x) {
    /* PyTorch keeps scale and source coordinate in f32 (one rounding), the rest here in double */
    float sy = (float)hi / (float)ho, sx = (float)wi / (float)wo;
    double fy = (float)((y + 0.5) * (double)sy - 0.5), fx = (float)((x + 0.5) * (double)sx - 0.5);
    if (fy < 0) fy = 0;
    if (fx < 0) fx = 0;
    int y0 = (int)fy, x0 = (int)fx;
    int y1 = y0 < hi - 1 ? y0 + 1 : y0, x1 = x0 < wi - 1 ? x0 + 1 : x0;
    double ly = fy - y0, lx = fx - x0;
    return (1 - ly) * ((1 - lx) * p[y0 * wi + x0] + lx * p[y0 * wi + x1]) +
           ly * ((1 - lx) * p[y1 * wi + x0] + lx * p[y1 * wi + x1]);
}

static void check_random(int n, int hi, int wi, int ho, int wo, uint64_t seed) {
    long ni = (long)n * hi * wi, no = (long)n * ho * wo;
    float *in = malloc(ni * sizeof(float)), *lo = malloc(no * sizeof(float)), *mem = malloc(no * sizeof(float));
    uint8_t *m = malloc(no), *m2 = malloc(no);
    struct samrt_mask_stats *st = malloc(n * sizeof *st);
    tu_fill_uniform(in, ni, seed, -4.0f, 3.0f);
    struct samrt_mask_decode_desc d = ddesc(n, hi, wi, ho, wo);
    CHECK_STATUS(samrt_mask_decode_ref(&d, in, m, st, lo), SAMRT_OK);
    CHECK_STATUS(samrt_mask_decode_ref(&d, in, m2, NULL, NULL), SAMRT_OK);
    CHECK(memcmp(m, m2, no) == 0);
    struct samrt_mask_mem_desc md = mdesc(n, hi, wi, ho, wo, 0);
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&md, in, mem), SAMRT_OK);
    int bad_logit = 0, bad_mask = 0, bad_mem = 0;
    for (int k = 0; k < n; k++) {
        long area = 0;
        int bx0 = wo, by0 = ho, bx1 = -1, by1 = -1;
        for (int y = 0; y < ho; y++)
            for (int x = 0; x < wo; x++) {
                long o = ((long)k * ho + y) * wo + x;
                double v = naive_bilinear(in + (long)k * hi * wi, hi, wi, ho, wo, y, x);
                bad_logit += !(fabs(lo[o] - v) <= NAIVE_ATOL);
                bad_mask += fabs(v) > AMBIGUOUS && m[o] != (v > 0);
                bad_mem += !(fabs(mem[o] - (20.0 / (1.0 + exp(-v)) - 10.0)) <= SIGMOID_ATOL);
                if (m[o]) { /* stats must describe the mask that was written */
                    area++;
                    if (x < bx0) bx0 = x;
                    if (x > bx1) bx1 = x;
                    if (y < by0) by0 = y;
                    if (y > by1) by1 = y;
                }
            }
        CHECK(st[k].area == area && st[k].x0 == bx0 && st[k].y0 == by0 && st[k].x1 == bx1 && st[k].y1 == by1);
    }
    CHECK_MSG(bad_logit == 0 && bad_mask == 0 && bad_mem == 0, "%dx%d->%dx%d: %d logits, %d mask, %d mem off",
              hi, wi, ho, wo, bad_logit, bad_mask, bad_mem);
    free(in); free(lo); free(mem); free(m); free(m2); free(st);
}

/* Non-overlap by hand, 3 objects on a 1x6 frame at input size (the bilinear is a copy):
 * column 0 object 1 wins; 1 a tie at 2 -> object 0 (the first); 2 all negative -> nobody;
 * 3 all 0 -> nobody (not > 0); 4 a tie of objects 1 and 2 at 3 -> object 1; 5 object 0. */
static void test_non_overlap_hand(void) {
    static const float lg[3][6] = {{1, 2, -1, 0, -1, 0.5f}, {2, 2, -0.5f, 0, 3, -2}, {0.5f, -1, -3, 0, 3, 0.25f}};
    static const uint8_t want[3][6] = {{0, 1, 0, 0, 0, 1}, {1, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 0}};
    uint8_t m[3][6];
    struct samrt_mask_stats st[3];
    struct samrt_mask_decode_desc d = ddesc(3, 1, 6, 1, 6);
    memset(m, 0xff, sizeof m);
    memset(st, 0x5a, sizeof st);
    CHECK_STATUS(samrt_mask_decode_non_overlap_ref(&d, lg, &m[0][0], st), SAMRT_OK);
    CHECK(memcmp(m, want, sizeof m) == 0);
    CHECK(st[0].area == 2 && st[0].x0 == 1 && st[0].x1 == 5 && st[0].y0 == 0 && st[0].y1 == 0);
    CHECK(st[1].area == 2 && st[1].x0 == 0 && st[1].x1 == 4 && st[1].y0 == 0 && st[1].y1 == 0);
    CHECK(st[2].area == 0 && st[2].x0 == 6 && st[2].y0 == 1 && st[2].x1 == -1 && st[2].y1 == -1);
    /* without the rule objects 1 and 2 also keep their positive pixels */
    CHECK_STATUS(samrt_mask_decode_ref(&d, lg, &m[0][0], st, NULL), SAMRT_OK);
    CHECK(st[0].area == 3 && st[1].area == 3 && st[2].area == 3);
    /* one object: the rule changes nothing; a NaN never wins (object 0 keeps the pixel) */
    d = ddesc(1, 1, 6, 1, 6);
    CHECK_STATUS(samrt_mask_decode_non_overlap_ref(&d, lg[2], &m[0][0], st), SAMRT_OK);
    CHECK(memcmp(m[0], (const uint8_t[6]){1, 0, 0, 0, 1, 1}, 6) == 0 && st[0].area == 3);
    const float nan2[2][2] = {{0.5f, -1}, {NAN, 2}};
    d = ddesc(2, 1, 2, 1, 2);
    CHECK_STATUS(samrt_mask_decode_non_overlap_ref(&d, nan2, &m[0][0], NULL), SAMRT_OK);
    CHECK(m[0][0] == 1 && m[0][1] == 0 && m[0][2] == 0 && m[0][3] == 1);
}

/* Non-overlap on random logits against a naive argmax over the plain reference's logits
 * (first object on ties; the last plane is a copy of the first, so it ties everywhere and
 * never wins), stats from the written masks. */
static void check_non_overlap_random(int n, int hi, int wi, int ho, int wo, uint64_t seed) {
    const long ni = (long)n * hi * wi, np = (long)ho * wo, no = n * np;
    float *in = malloc(ni * sizeof(float)), *lo = malloc(no * sizeof(float));
    uint8_t *m = malloc(no), *plain = malloc(no);
    struct samrt_mask_stats *st = malloc(n * sizeof *st);
    tu_fill_uniform(in, ni, seed, -3.0f, 2.0f);
    if (n >= 3) memcpy(in + (long)(n - 1) * hi * wi, in, sizeof(float) * hi * wi);
    struct samrt_mask_decode_desc d = ddesc(n, hi, wi, ho, wo);
    CHECK_STATUS(samrt_mask_decode_ref(&d, in, plain, NULL, lo), SAMRT_OK);
    CHECK_STATUS(samrt_mask_decode_non_overlap_ref(&d, in, m, st), SAMRT_OK);
    long bad = 0, won = 0;
    for (long p = 0; p < np; p++) {
        int best = 0;
        for (int k = 1; k < n; k++)
            if (lo[k * np + p] > lo[best * np + p]) best = k;
        for (int k = 0; k < n; k++) {
            const int want = k == best && lo[k * np + p] > 0.0f;
            bad += m[k * np + p] != want || (want && !plain[k * np + p]);
            won += want;
        }
    }
    for (int k = 0; k < n; k++) {
        struct samrt_mask_stats own = {0, wo, ho, -1, -1};
        for (int y = 0; y < ho; y++)
            for (int x = 0; x < wo; x++)
                if (m[k * np + (long)y * wo + x]) {
                    own.area++;
                    own.x0 = SAMRT_MIN(own.x0, x), own.x1 = SAMRT_MAX(own.x1, x);
                    own.y0 = SAMRT_MIN(own.y0, y), own.y1 = SAMRT_MAX(own.y1, y);
                }
        CHECK_MSG(memcmp(&own, &st[k], sizeof own) == 0, "non-overlap n%d obj %d: stats", n, k);
    }
    if (n >= 3) CHECK_EQ_INT(st[n - 1].area, 0);
    CHECK_MSG(bad == 0 && won > 0, "non-overlap n%d %dx%d->%dx%d: %ld wrong pixels (%ld foreground)", n, hi, wi,
              ho, wo, bad, won);
    free(in); free(lo); free(m); free(plain); free(st);
}

static void test_errors_and_dtypes(void) {
    float a[16] = {0};
    uint8_t m[16];
    struct samrt_mask_decode_desc d = ddesc(0, 2, 2, 4, 4);
    CHECK_STATUS(samrt_mask_decode_ref(&d, a, m, NULL, NULL), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_mask_decode_non_overlap_ref(&d, a, m, NULL), SAMRT_E_INVALID_ARG);
    d = ddesc(1, 2, 2, 4, 4);
    CHECK_STATUS(samrt_mask_decode_ref(&d, a, NULL, NULL, NULL), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_mask_decode_non_overlap_ref(&d, NULL, m, NULL), SAMRT_E_INVALID_ARG);
    d.src_dtype = SAMRT_DTYPE_I32;
    CHECK_STATUS(samrt_mask_decode_ref(&d, a, m, NULL, NULL), SAMRT_E_UNSUPPORTED);
    struct samrt_mask_mem_desc md = mdesc(1, 2, 2, 4, 4, 0);
    md.scale = NAN;
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&md, a, a), SAMRT_E_INVALID_ARG);
    md = mdesc(1, 2, 2, 4, 4, 0);
    md.dst_dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&md, a, a), SAMRT_E_UNSUPPORTED);

    /* bf16 logits in, bf16 memory input out = f32 path on the rounded input, rounded */
    float in[4], f32out[16], got[16];
    uint16_t in16[4], out16[16];
    memcpy(in, k_in, sizeof in);
    tu_store(SAMRT_DTYPE_BF16, in16, in, 4);
    md = mdesc(1, 2, 2, 4, 4, 0);
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&md, in, f32out), SAMRT_OK);
    tu_round(SAMRT_DTYPE_BF16, f32out, 16);
    md.src_dtype = md.dst_dtype = SAMRT_DTYPE_BF16;
    CHECK_STATUS(samrt_mask_decode_mem_input_ref(&md, in16, out16), SAMRT_OK);
    tu_load(SAMRT_DTYPE_BF16, got, out16, 16);
    CHECK(memcmp(got, f32out, sizeof got) == 0);
}

int main(void) {
    test_hand();
    test_mem_input_hand();
    test_errors_and_dtypes();
    check_random(2, 256, 256, 135, 240, 1);   /* 540x960 / 4 */
    check_random(1, 256, 256, 300, 77, 2);    /* up in y, down in x, odd */
    check_random(3, 16, 16, 64, 64, 3);       /* 4x like 256 -> 1024 */
    check_random(1, 7, 5, 1, 1, 4);           /* a single output pixel */
    test_non_overlap_hand();
    check_non_overlap_random(3, 256, 256, 135, 240, 5);
    check_non_overlap_random(1, 16, 16, 37, 29, 6);
    check_non_overlap_random(4, 9, 11, 40, 23, 7);
    return check_report("test_mask_decode");
}
