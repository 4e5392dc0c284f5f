/* test_attention.c - CPU checks of the attention and RoPE references and of the pure planning
 * functions: hand-checkable cases (one key gives v, equal keys give the mean of v, two keys
 * give e/(e+1)), RoPE tables against the closed form, rotation identity at position 0, the
 * fused RoPE / window paths against their unfused compositions, parameter rejection, and
 * the split-K plan. Run: ctest --preset cpu -R test_attention */
#include "attention.h"
#include "rope.h"

#include <math.h>
#include <string.h>

#include "check.h"
#include "test_util.h"

#define TOL_EXACT 1e-6     /* f32 paths that should agree to rounding */
#define TOL_TABLE 2e-5     /* RoPE table vs double closed form (float32 angles up to 63 rad) */

/* Contiguous (B, H, L, D) strides for q/k/v/o. */
static void set_contig(struct samrt_attention_params *p, enum samrt_dtype dt, int B, int H, int Lq,
                       int Lk, int D, int Dv, const void *q, const void *k, const void *v, void *o) {
    memset(p, 0, sizeof(*p));
    p->dtype = dt;
    p->n_batch = B; p->n_head = H; p->n_q = Lq; p->n_k = Lk; p->d_qk = D; p->d_v = Dv;
    p->q = q; p->s_q_t = D; p->s_q_h = (int64_t)Lq * D; p->s_q_b = (int64_t)H * Lq * D;
    p->k = k; p->s_k_t = D; p->s_k_h = (int64_t)Lk * D; p->s_k_b = (int64_t)H * Lk * D;
    p->v = v; p->s_v_t = Dv; p->s_v_h = (int64_t)Lk * Dv; p->s_v_b = (int64_t)H * Lk * Dv;
    p->o = o; p->s_o_t = Dv; p->s_o_h = (int64_t)Lq * Dv; p->s_o_b = (int64_t)H * Lq * Dv;
}

static void test_one_key_and_uniform(void) {
    /* one key: softmax of a single score is 1, so o = v for every query */
    float q[2 * 3 * 4], k[2 * 1 * 4], v[2 * 1 * 5], o[2 * 3 * 5];
    tu_fill_uniform(q, 24, 1, -2, 2);
    tu_fill_uniform(k, 8, 2, -2, 2);
    tu_fill_uniform(v, 10, 3, -2, 2);
    struct samrt_attention_params p;
    set_contig(&p, SAMRT_DTYPE_F32, 2, 1, 3, 1, 4, 5, q, k, v, o);
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++)
            for (int c = 0; c < 5; c++) CHECK_NEAR(o[(b * 3 + i) * 5 + c], v[b * 5 + c], TOL_EXACT);

    /* equal keys: uniform weights, o = mean of the values */
    float k2[6 * 4], v2[6 * 3], o2[3 * 3], mean[3] = {0, 0, 0};
    for (int j = 0; j < 6; j++)
        for (int c = 0; c < 4; c++) k2[j * 4 + c] = 0.25f * (float)(c + 1);
    tu_fill_uniform(v2, 18, 4, -1, 1);
    for (int j = 0; j < 6; j++)
        for (int c = 0; c < 3; c++) mean[c] += v2[j * 3 + c] / 6.0f;
    set_contig(&p, SAMRT_DTYPE_F32, 1, 1, 3, 6, 4, 3, q, k2, v2, o2);
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++) CHECK_NEAR(o2[i * 3 + c], mean[c], TOL_EXACT);
}

static void test_two_keys(void) {
    /* q = (1, 0), k0 = (1, 0), k1 = (0, 0), scale 1: weights e/(e+1), 1/(e+1) */
    const float q[2] = {1, 0}, k[4] = {1, 0, 0, 0}, v[4] = {1, 0, 0, 1};
    float o[2];
    struct samrt_attention_params p;
    set_contig(&p, SAMRT_DTYPE_F32, 1, 1, 1, 2, 2, 2, q, k, v, o);
    p.scale = 1.0f;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);
    const double e = exp(1.0);
    CHECK_NEAR(o[0], e / (e + 1), TOL_EXACT);
    CHECK_NEAR(o[1], 1 / (e + 1), TOL_EXACT);
    /* default scale is 1/sqrt(2): weights e^(1/sqrt 2) / (e^(1/sqrt 2) + 1) */
    p.scale = 0.0f;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);
    const double e2 = exp(1.0 / sqrt(2.0));
    CHECK_NEAR(o[0], e2 / (e2 + 1), TOL_EXACT);
    /* bf16 storage: the output is rounded to bf16 */
    uint16_t qb[2], kb[4], vb[4], ob[2];
    tu_store(SAMRT_DTYPE_BF16, qb, q, 2);
    tu_store(SAMRT_DTYPE_BF16, kb, k, 4);
    tu_store(SAMRT_DTYPE_BF16, vb, v, 4);
    set_contig(&p, SAMRT_DTYPE_BF16, 1, 1, 1, 2, 2, 2, qb, kb, vb, ob);
    p.scale = 1.0f;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);
    CHECK(samrt_bf16_to_f32(ob[0]) == samrt_round_bf16((float)(e / (e + 1))));
}

static void test_rope_table(void) {
    static float tab[64 * 64 * 256];
    CHECK_EQ_INT(samrt_rope_table_floats(256, 64, 64), 64 * 64 * 256);
    CHECK_STATUS(samrt_rope_table_fill(tab, 256, 64, 64, 10000.0f), SAMRT_OK);
    double worst = 0;
    for (int n = 0; n < 64 * 64; n++)
        for (int pp = 0; pp < 128; pp++) {
            const int j = pp % 64;
            const double pos = pp < 64 ? n % 64 : n / 64;   /* x first, then y */
            const double a = pos * pow(10000.0, -4.0 * j / 256.0);
            worst = fmax(worst, fabs(tab[(size_t)n * 256 + 2 * pp] - cos(a)));
            worst = fmax(worst, fabs(tab[(size_t)n * 256 + 2 * pp + 1] - sin(a)));
        }
    CHECK_MSG(worst <= TOL_TABLE, "worst table error %.3g", worst);
    /* token 0: identity; token 1 = (x 1, y 0): pair 0 turns by 1 rad, pair 64 (y) not at all */
    for (int c = 0; c < 128; c++) {
        CHECK(tab[2 * c] == 1.0f);
        CHECK(tab[2 * c + 1] == 0.0f);
    }
    CHECK_NEAR(tab[256 + 0], cos(1.0), 1e-7);
    CHECK_NEAR(tab[256 + 1], sin(1.0), 1e-7);
    CHECK(tab[256 + 128] == 1.0f && tab[256 + 129] == 0.0f);
    /* token 64 = (x 0, y 1): the reverse */
    CHECK(tab[64 * 256 + 0] == 1.0f);
    CHECK_NEAR(tab[64 * 256 + 129], sin(1.0), 1e-7);
    /* EdgeTAM's key table: 16x16 grid, token 17 = (x 1, y 1); pair 1 uses f_1 = 1e4^(-1/64) */
    static float tk[16 * 16 * 256];
    CHECK_STATUS(samrt_rope_table_fill(tk, 256, 16, 16, 10000.0f), SAMRT_OK);
    CHECK_NEAR(tk[17 * 256 + 2], cos(pow(10000.0, -1.0 / 64)), 1e-7);
    CHECK_NEAR(tk[17 * 256 + 128 + 3], sin(pow(10000.0, -1.0 / 64)), 1e-7);
    CHECK_STATUS(samrt_rope_table_fill(tk, 254, 16, 16, 10000.0f), SAMRT_E_INVALID_ARG);
}

static void test_rope_apply(void) {
    /* dim 4 over a 3x2 grid: pair 0 turns by x, pair 1 by y, f_0 = 1 */
    float tab[6 * 4];
    CHECK_STATUS(samrt_rope_table_fill(tab, 4, 3, 2, 10000.0f), SAMRT_OK);
    float x[6 * 4], y[6 * 4];
    for (int t = 0; t < 6; t++) {
        x[t * 4 + 0] = 1; x[t * 4 + 1] = 0; x[t * 4 + 2] = 0; x[t * 4 + 3] = 2;
    }
    struct samrt_rope_params r = {SAMRT_DTYPE_F32, 1, 1, 6, 4, x, 24, 24, 4, y, 24, 24, 4, tab, 6, 0, 6};
    CHECK_STATUS(samrt_rope_apply_ref(&r), SAMRT_OK);
    for (int c = 0; c < 4; c++) CHECK(y[c] == x[c]);  /* position 0: identity */
    /* token 5 = (x 2, y 1): (1, 0) -> (cos 2, sin 2); (0, 2) -> 2 (-sin 1, cos 1) */
    CHECK_NEAR(y[20], cos(2.0), 1e-6);
    CHECK_NEAR(y[21], sin(2.0), 1e-6);
    CHECK_NEAR(y[22], -2 * sin(1.0), 1e-6);
    CHECK_NEAR(y[23], 2 * cos(1.0), 1e-6);
    /* periodic layout: period 3, skip 1, n_rope 5 -> rows -1 0 1 -1 0 -1 (table of 2 rows) */
    const int want[6] = {-1, 0, 1, -1, 0, -1};
    for (int t = 0; t < 6; t++) CHECK_EQ_INT(samrt_rope_row(t, 3, 1, 5), want[t]);
    r.period = 3; r.skip = 1; r.n_rope = 5;
    CHECK_STATUS(samrt_rope_apply_ref(&r), SAMRT_OK);
    for (int c = 0; c < 4; c++) {
        CHECK(y[0 * 4 + c] == x[c]);           /* skipped */
        CHECK(y[5 * 4 + c] == x[c]);           /* past n_rope: a pointer token */
        CHECK(y[3 * 4 + c] == x[c]);           /* skipped (start of period 2) */
        CHECK(y[4 * 4 + c] == x[c]);           /* table row 0: identity */
    }
    CHECK_NEAR(y[2 * 4 + 0], cos(1.0), 1e-6);  /* token 2 -> table row 1 = (x 1, y 0) */
    r.skip = 3;
    CHECK_STATUS(samrt_rope_apply_ref(&r), SAMRT_E_INVALID_ARG);
}

/* Fused RoPE in the attention reference == rope_apply_ref then plain attention. */
static void test_rope_attention(enum samrt_dtype dt, int period, int skip, int n_rope_k) {
    enum { B = 2, H = 2, LQ = 12, LK = 20, D = 8 };
    float qf[B * H * LQ * D], kf[B * H * LK * D], vf[B * H * LK * D];
    tu_fill_uniform(qf, B * H * LQ * D, 11, -2, 2);
    tu_fill_uniform(kf, B * H * LK * D, 12, -2, 2);
    tu_fill_uniform(vf, B * H * LK * D, 13, -1, 1);
    uint32_t q[B * H * LQ * D], k[B * H * LK * D], v[B * H * LK * D];  /* room for f32 */
    uint32_t qr[B * H * LQ * D], kr[B * H * LK * D], o1[B * H * LQ * D], o2[B * H * LQ * D];
    tu_store(dt, q, qf, B * H * LQ * D);
    tu_store(dt, k, kf, B * H * LK * D);
    tu_store(dt, v, vf, B * H * LK * D);
    float tq[4 * 3 * D], tk[2 * 2 * D];
    CHECK_STATUS(samrt_rope_table_fill(tq, D, 4, 3, 100.0f), SAMRT_OK);   /* LQ = 12 rows */
    CHECK_STATUS(samrt_rope_table_fill(tk, D, 2, 2, 100.0f), SAMRT_OK);   /* 4 rows */
    CHECK_EQ_INT(period - skip, 4);

    struct samrt_attention_params p;
    set_contig(&p, dt, B, H, LQ, LK, D, D, q, k, v, o1);
    p.rope.q = tq; p.rope.k = tk; p.rope.k_period = period; p.rope.k_skip = skip; p.rope.n_k = n_rope_k;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);

    struct samrt_rope_params r = {dt, B, H, LQ, D, q, p.s_q_b, p.s_q_h, p.s_q_t, qr, p.s_q_b, p.s_q_h,
                                  p.s_q_t, tq, LQ, 0, LQ};
    CHECK_STATUS(samrt_rope_apply_ref(&r), SAMRT_OK);
    struct samrt_rope_params rk = {dt, B, H, LK, D, k, p.s_k_b, p.s_k_h, p.s_k_t, kr, p.s_k_b, p.s_k_h,
                                   p.s_k_t, tk, period, skip, n_rope_k};
    CHECK_STATUS(samrt_rope_apply_ref(&rk), SAMRT_OK);
    struct samrt_attention_params p2;
    set_contig(&p2, dt, B, H, LQ, LK, D, D, qr, kr, v, o2);
    CHECK_STATUS(samrt_attention_ref(&p2), SAMRT_OK);
    float a[B * H * LQ * D], b[B * H * LQ * D];
    tu_load(dt, a, o1, B * H * LQ * D);
    tu_load(dt, b, o2, B * H * LQ * D);
    check_close_f32("rope fused vs unfused", a, b, B * H * LQ * D, TOL_EXACT, 0);
    /* and RoPE does change the result (the test could not pass by ignoring it) */
    set_contig(&p2, dt, B, H, LQ, LK, D, D, q, k, v, o2);
    CHECK_STATUS(samrt_attention_ref(&p2), SAMRT_OK);
    tu_load(dt, b, o2, B * H * LQ * D);
    double diff = 0;
    for (int i = 0; i < B * H * LQ * D; i++) diff = fmax(diff, fabs(a[i] - b[i]));
    CHECK(diff > 1e-2);
}

/* RoPE at position 0 is the identity: a 1x1 table leaves attention unchanged. */
static void test_rope_identity(void) {
    float tab[16];
    CHECK_STATUS(samrt_rope_table_fill(tab, 16, 1, 1, 10000.0f), SAMRT_OK);
    float q[16], k[5 * 16], v[5 * 16], o1[16], o2[16];
    tu_fill_uniform(q, 16, 21, -1, 1);
    tu_fill_uniform(k, 80, 22, -1, 1);
    tu_fill_uniform(v, 80, 23, -1, 1);
    struct samrt_attention_params p;
    set_contig(&p, SAMRT_DTYPE_F32, 1, 1, 1, 5, 16, 16, q, k, v, o1);
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);
    p.o = o2; p.rope.q = tab; p.rope.k = tab; p.rope.k_period = 1; p.rope.n_k = 5;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);
    for (int c = 0; c < 16; c++) CHECK(o1[c] == o2[c]);
}

/* Window mapping == explicit zero-pad + partition (padded k/v = bias) + plain attention. */
static void test_windows(int qh, int qw, int wq, int kh, int kw, int wk) {
    enum { H = 2, D = 8, MAXT = 64 };
    const int n_wy = (kh + wk - 1) / wk, n_wx = (kw + wk - 1) / wk, n_win = n_wy * n_wx;
    const int lq = wq * wq, lk = wk * wk;
    /* map tensors (B=1, tokens, H*D) like a qkv output: token stride H*D, head stride D */
    float qm[MAXT * H * D], km[MAXT * H * D], vm[MAXT * H * D], bias_k[H * D], bias_v[H * D];
    tu_fill_uniform(qm, qh * qw * H * D, 31, -2, 2);
    tu_fill_uniform(km, kh * kw * H * D, 32, -2, 2);
    tu_fill_uniform(vm, kh * kw * H * D, 33, -1, 1);
    tu_fill_uniform(bias_k, H * D, 34, -1, 1);
    tu_fill_uniform(bias_v, H * D, 35, -1, 1);
    float om[MAXT * H * D];
    for (int i = 0; i < qh * qw * H * D; i++) om[i] = NAN;
    struct samrt_attention_params p;
    memset(&p, 0, sizeof(p));
    p.dtype = SAMRT_DTYPE_F32;
    p.n_batch = 1; p.n_head = H; p.n_q = lq; p.n_k = lk; p.d_qk = D; p.d_v = D;
    p.q = qm; p.s_q_b = 0; p.s_q_h = D; p.s_q_t = H * D;
    p.k = km; p.s_k_b = 0; p.s_k_h = D; p.s_k_t = H * D;
    p.v = vm; p.s_v_b = 0; p.s_v_h = D; p.s_v_t = H * D;
    p.o = om; p.s_o_b = 0; p.s_o_h = D; p.s_o_t = H * D;
    p.win.size_q = wq; p.win.size_k = wk;
    p.win.q_h = qh; p.win.q_w = qw; p.win.k_h = kh; p.win.k_w = kw;
    p.win.pad_k = bias_k; p.win.pad_v = bias_v; p.win.s_pad_h = D;
    CHECK_EQ_INT(samrt_attention_n_windows(&p), n_win);
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_OK);

    /* explicit partition: (n_win, H, L, D) with padded q rows 0 and padded k/v rows = bias */
    static float qp[16 * H * MAXT * D], kp[16 * H * MAXT * D], vp[16 * H * MAXT * D], op[16 * H * MAXT * D];
    for (int w = 0; w < n_win; w++)
        for (int h = 0; h < H; h++) {
            for (int r = 0; r < lq; r++) {
                const int y = (w / n_wx) * wq + r / wq, x = (w % n_wx) * wq + r % wq;
                for (int c = 0; c < D; c++)
                    qp[((w * H + h) * lq + r) * D + c] = (y < qh && x < qw) ? qm[(y * qw + x) * H * D + h * D + c] : 0;
            }
            for (int r = 0; r < lk; r++) {
                const int y = (w / n_wx) * wk + r / wk, x = (w % n_wx) * wk + r % wk;
                const int in = y < kh && x < kw;
                for (int c = 0; c < D; c++) {
                    kp[((w * H + h) * lk + r) * D + c] = in ? km[(y * kw + x) * H * D + h * D + c] : bias_k[h * D + c];
                    vp[((w * H + h) * lk + r) * D + c] = in ? vm[(y * kw + x) * H * D + h * D + c] : bias_v[h * D + c];
                }
            }
        }
    struct samrt_attention_params p2;
    set_contig(&p2, SAMRT_DTYPE_F32, n_win, H, lq, lk, D, D, qp, kp, vp, op);
    CHECK_STATUS(samrt_attention_ref(&p2), SAMRT_OK);
    int bad = 0;
    for (int w = 0; w < n_win; w++)
        for (int h = 0; h < H; h++)
            for (int r = 0; r < lq; r++) {
                const int y = (w / n_wx) * wq + r / wq, x = (w % n_wx) * wq + r % wq;
                if (y >= qh || x >= qw) continue;  /* cropped */
                for (int c = 0; c < D; c++)
                    bad += !(fabsf(om[(y * qw + x) * H * D + h * D + c] - op[((w * H + h) * lq + r) * D + c]) <= TOL_EXACT);
            }
    CHECK_MSG(bad == 0, "%d window outputs differ (q %dx%d/%d, k %dx%d/%d)", bad, qh, qw, wq, kh, kw, wk);
    /* every map output was written exactly by a window (no NaN left) */
    int unwritten = 0;
    for (int i = 0; i < qh * qw * H * D; i++) unwritten += isnan(om[i]);
    CHECK_EQ_INT(unwritten, 0);
}

static void test_rejects(void) {
    float buf[64] = {0};
    struct samrt_attention_params p;
    set_contig(&p, SAMRT_DTYPE_F32, 1, 1, 2, 2, 4, 4, buf, buf, buf, buf + 32);
    CHECK_STATUS(samrt_attention_check(&p), SAMRT_OK);
    CHECK_STATUS(samrt_attention_ref(NULL), SAMRT_E_INVALID_ARG);
    p.k = NULL;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_E_INVALID_ARG);
    p.k = buf;
    p.d_qk = 257;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_E_UNSUPPORTED);
    p.d_qk = 4;
    p.n_k = 0;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_E_INVALID_ARG);
    p.n_k = 2;
    p.dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_E_UNSUPPORTED);
    p.dtype = SAMRT_DTYPE_F32;
    p.rope.k = buf; p.rope.k_period = 2; p.rope.k_skip = 2;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_E_INVALID_ARG);  /* skip >= period */
    p.rope.k_skip = 0; p.rope.n_k = 3;
    CHECK_STATUS(samrt_attention_ref(&p), SAMRT_E_INVALID_ARG);  /* n_k > Lk */
    p.rope.n_k = 2;
    CHECK_STATUS(samrt_attention_check(&p), SAMRT_OK);
    p.win.size_q = 1; p.win.size_k = 1; p.win.q_h = p.win.q_w = p.win.k_h = p.win.k_w = 2;
    p.n_q = p.n_k = 1;
    p.rope.n_k = 1;
    CHECK_STATUS(samrt_attention_check(&p), SAMRT_E_UNSUPPORTED);  /* RoPE + windows */
    memset(&p.rope, 0, sizeof(p.rope));
    CHECK_STATUS(samrt_attention_check(&p), SAMRT_OK);
    p.win.q_h = 3;  /* window grids 3 vs 2 rows */
    CHECK_STATUS(samrt_attention_check(&p), SAMRT_E_INVALID_ARG);
    p.win.q_h = 2; p.n_q = 4;  /* n_q != size_q^2 */
    CHECK_STATUS(samrt_attention_check(&p), SAMRT_E_INVALID_ARG);
    CHECK_EQ_INT(samrt_attention_workspace_size(NULL), 0);
}

/* The sm_90a wide tile: base_plus global attention (8 heads x 4096, d 56) on 132 SMs is 128
 * tiles of 256 rows, one wave, where 128-row tiles need two. */
static void test_wide_tiles(void) {
    char dummy[16] = {0};
    struct samrt_attention_params t;
    struct samrt_attention_config c;
    set_contig(&t, SAMRT_DTYPE_BF16, 1, 8, 4096, 4096, 56, 56, dummy, dummy, dummy, dummy);
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);  /* no sm_count: off */
    t.sm_count = 132;
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 128);
    CHECK_EQ_INT(samrt_attention_workspace_size(&t), 0);
    t.sm_count = 64;  /* 2 waves of wide tiles against 4 of narrow ones: 2 x 1.78 < 0.95 x 4 */
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 128);
    t.sm_count = 100;  /* 2 waves against 3 */
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);
    /* one wave either way (128 vs 64 tiles): stays at 128 rows unless forced */
    set_contig(&t, SAMRT_DTYPE_BF16, 1, 4, 4096, 4096, 64, 64, dummy, dummy, dummy, dummy);
    t.sm_count = 132;
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);
    t.block_q = 256;
    CHECK_STATUS(samrt_attention_check(&t), SAMRT_OK);
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 64);
    CHECK_STATUS(samrt_attention_configure(&t, &c), SAMRT_OK);
    CHECK_EQ_INT(c.block_q, 128);  /* what every other kernel runs */
    t.block_k = 128;  /* the wide tile has 64-key tiles */
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);
    t.block_k = 0;
    /* not for head dims past 64 or up to 32, f32, windows, or split-K */
    t.d_qk = t.d_v = 96;
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);
    t.d_qk = t.d_v = 32;
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);
    t.d_qk = t.d_v = 64;
    t.dtype = SAMRT_DTYPE_F32;
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);
    t.dtype = SAMRT_DTYPE_F16;
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 64);
    t.n_split = 2;
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);
    t.n_split = 1;
    t.n_q = t.n_k = 196;
    t.win.size_q = t.win.size_k = 14;
    t.win.q_h = t.win.q_w = t.win.k_h = t.win.k_w = 64;
    CHECK_EQ_INT(samrt_attention_wide_tiles(&t), 0);
    CHECK_EQ_INT(samrt_attention_wide_tiles(NULL), 0);
}

static void test_plan(void) {
    /* memory attention: 1 x 1 x 4096 queries, 28736 keys, d 256 */
    char dummy[16] = {0};
    struct samrt_attention_params p;
    set_contig(&p, SAMRT_DTYPE_BF16, 1, 1, 4096, 28736, 256, 256, dummy, dummy, dummy, dummy);
    struct samrt_attention_config c;
    CHECK_STATUS(samrt_attention_configure(&p, &c), SAMRT_OK);
    CHECK_EQ_INT(c.d_pad, 256);
    CHECK(c.smem_bytes <= 163 * 1024);  /* sm_87's per-block limit */
    const int ns = samrt_attention_split_count(&p, 132);
    const int64_t n_cta = 4096 / c.block_q;
    CHECK_MSG(ns > 1 && n_cta * ns >= 0.9 * 132 * c.ctas_per_sm, "split %d", ns);
    CHECK_EQ_INT(samrt_attention_split_count(&p, 1), 1);  /* 32 CTAs fill one SM */
    CHECK_EQ_INT(samrt_attention_workspace_size(&p), 0);  /* no split, no RoPE */
    p.n_split = ns;
    const int eff = samrt_attention_n_split_effective(&p);
    const int n_tiles = (28736 + c.block_k - 1) / c.block_k;
    const int per = (n_tiles + ns - 1) / ns;
    CHECK(eff >= 1 && eff <= ns && (eff - 1) * per < n_tiles);
    const size_t part = (size_t)eff * 4096 * (256 + 2) * sizeof(float);
    p.rope.q = (const float *)dummy; p.rope.k = (const float *)dummy;
    p.rope.k_period = 4096; p.rope.n_k = 28672;
    const size_t ws = samrt_attention_workspace_size(&p);
    const size_t rot = (size_t)(4096 + 28736) * 256 * 2;
    CHECK(ws >= part + rot && ws <= part + rot + 4 * 256);
    /* Hiera windowed block (25 windows x 4 heads x 196): enough CTAs, no split */
    struct samrt_attention_params w;
    set_contig(&w, SAMRT_DTYPE_BF16, 1, 4, 196, 196, 96, 96, dummy, dummy, dummy, dummy);
    w.win.size_q = w.win.size_k = 14;
    w.win.q_h = w.win.q_w = w.win.k_h = w.win.k_w = 64;
    CHECK_EQ_INT(samrt_attention_n_windows(&w), 25);
    CHECK_EQ_INT(samrt_attention_split_count(&w, 132), 1);
    /* decoder token->image: 8 queries x 8 heads over 4096 keys splits */
    struct samrt_attention_params t;
    set_contig(&t, SAMRT_DTYPE_F16, 1, 8, 8, 4096, 16, 16, dummy, dummy, dummy, dummy);
    CHECK(samrt_attention_split_count(&t, 132) > 1);
    /* f32 strict path: one config for any head dim */
    set_contig(&t, SAMRT_DTYPE_F32, 1, 1, 100, 100, 200, 40, dummy, dummy, dummy, dummy);
    CHECK_STATUS(samrt_attention_configure(&t, &c), SAMRT_OK);
    CHECK_EQ_INT(c.block_k, 32);
    CHECK(c.smem_bytes == sizeof(float) * (16 * 200 + 32 * 201 + 32 * 40));
    /* tile override (benchmarks): taken as given for f16 / bf16, only 64 or 128 */
    set_contig(&t, SAMRT_DTYPE_BF16, 1, 4, 4096, 4096, 96, 96, dummy, dummy, dummy, dummy);
    CHECK_STATUS(samrt_attention_configure(&t, &c), SAMRT_OK);
    CHECK(c.block_q == 128 && c.block_k == 128);  /* the planner's Hiera global tile */
    t.block_q = 64;
    t.block_k = 64;
    CHECK_STATUS(samrt_attention_configure(&t, &c), SAMRT_OK);
    CHECK(c.block_q == 64 && c.block_k == 64 && c.n_threads == 64);
    t.block_q = 96;
    CHECK_STATUS(samrt_attention_check(&t), SAMRT_E_INVALID_ARG);
    t.block_q = 0;
    t.block_k = 32;
    CHECK_STATUS(samrt_attention_check(&t), SAMRT_E_INVALID_ARG);
    test_wide_tiles();
}

int main(void) {
    test_one_key_and_uniform();
    test_two_keys();
    test_rope_table();
    test_rope_apply();
    test_rope_identity();
    test_rope_attention(SAMRT_DTYPE_F32, 4, 0, 16);   /* SAM 2.1 cross: 4 pointer keys */
    test_rope_attention(SAMRT_DTYPE_F32, 6, 2, 18);   /* EdgeTAM: 2 unrotated per period */
    test_rope_attention(SAMRT_DTYPE_BF16, 5, 1, 20);
    test_rope_attention(SAMRT_DTYPE_F16, 4, 0, 20);
    test_windows(5, 6, 4, 5, 6, 4);   /* padded windows: bias keys take part */
    test_windows(4, 4, 2, 4, 4, 2);   /* exact tiling */
    test_windows(3, 3, 2, 5, 6, 4);   /* q-pooled: q map 3x3 / 2, k map 5x6 / 4 */
    test_windows(2, 2, 1, 8, 8, 4);   /* perceiver: 1 latent per 4x4 window */
    test_rejects();
    test_plan();
    return check_report("test_attention");
}
