/* test_sam2_memory.c - SAM 2.1's memory path on the CPU backend without the official code (the
 * official comparison is test_sam2_memory_parity), model side 64 (a 4x4 grid), two object
 * slots, seeded random weights:
 *   - the store rule by hand: bf16(x) for a present object, bf16(x + no_obj_embed_spatial) for
 *     an absent one (score <= 0 or NaN), round to nearest even;
 *   - inside the memory encoder pass: the stored memory is exactly that rule applied to the
 *     f32 features (tap), and object slots are independent (equal inputs, equal bytes);
 *   - memories and pointers may come in any order (their tpos / distance rows follow them: 3
 *     memories with different tpos slots, 5 pointers) up to fp32 rounding;
 *   - the memory attention pass against a naive double model of the official math written from
 *     the spec (RoPE repeated per memory, pointer tokens unrotated, pos + tpos, pointer split);
 *   - a pass with no pointers runs; set_frame rejects out-of-range rows and counts.
 * Run: ctest -R test_sam2_memory */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mem_store.h"
#include "sam2_memory_util.h"

#define NAME "test_sam2_memory"
#define SIDE 64
#define B 2
#define ORDER_TOL 1e-5   /* of the max |value|: fp32 rounding of two orders of one sum */
#define NAIVE_TOL 1e-4   /* of the max |value|: fp32 pass vs the double model */

static void test_store_rule(void) {
    const float x[2 * 2 * 2] = {1.0f, 1.0f + 0x1p-9f, -3.0f, 0.25f, 1.0f, 1.0f + 0x1p-9f, -3.0f, 0.25f};
    const float no_obj[2] = {0.5f, -0.125f};
    float score[2] = {2.5f, -1.0f};
    uint16_t out[8];
    struct samrt_sam2_mem_store_args a = {SAMRT_DTYPE_F32, 2, 2, 2, x, score, no_obj, out};
    CHECK_EQ_INT(samrt_sam2_mem_store_ref(&a), SAMRT_OK);
    /* present: 1, 1 + 2^-9 rounds down to 1 (below half an ulp), -3, 0.25 */
    const float want[8] = {1.0f, 1.0f, -3.0f, 0.25f, 1.5f, 1.0f - 0.125f, -2.5f, 0.125f};
    for (int i = 0; i < 8; i++) CHECK_NEAR(samrt_bf16_to_f32(out[i]), want[i], 0);
    score[1] = NAN;  /* (NaN > 0) is false: absent */
    CHECK_EQ_INT(samrt_sam2_mem_store_ref(&a), SAMRT_OK);
    CHECK_NEAR(samrt_bf16_to_f32(out[4]), 1.5f, 0);
    a.no_obj = NULL;  /* SAM 2.0: nothing added */
    CHECK_EQ_INT(samrt_sam2_mem_store_ref(&a), SAMRT_OK);
    CHECK_NEAR(samrt_bf16_to_f32(out[4]), 1.0f, 0);
    a.n_obj = 0;
    CHECK_EQ_INT(samrt_sam2_mem_store_ref(&a), SAMRT_E_INVALID_ARG);
}

static void quiet_log(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

struct tap_copy {
    float *features;
    int64_t n;
};

static enum samrt_status tap_features(void *user, const char *name, const struct samrt_tensor *t) {
    struct tap_copy *tc = user;
    if (strcmp(name, "tap.memenc.features") != 0) return SAMRT_OK;
    tc->n = samrt_tensor_nelements(t);
    tc->features = malloc(sizeof(float) * (size_t)tc->n);
    memcpy(tc->features, t->data, sizeof(float) * (size_t)tc->n);
    return SAMRT_OK;
}

static void test_encoder(struct hu_weights *w, void **wdata) {
    const struct mu_pass passes[1] = {{MU_ENC, 0, 0}};
    struct mu_rig r;
    CHECK_EQ_INT(mu_rig_init(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, SIDE, B, 1, 0, passes, 1), 0);
    const int64_t n = r.n, l = 4 * r.g;
    float *vision = malloc(sizeof(float) * (size_t)(n * 256)), *low = malloc(sizeof(float) * (size_t)(B * l * l));
    tu_fill_uniform(vision, (long)(n * 256), 3, -1, 1);
    tu_fill_uniform(low, (long)(l * l), 4, -8, 8);
    memcpy(low + l * l, low, sizeof(float) * (size_t)(l * l));  /* object 1 sees the same mask */
    const float score[B] = {1.0f, -0.5f};                       /* ... but is absent */
    CHECK_EQ_INT(mu_put_f32(&r, &r.vision, vision, (size_t)(n * 256)), 0);
    CHECK_EQ_INT(mu_put_f32(&r, &r.low_res, low, (size_t)(B * l * l)), 0);
    CHECK_EQ_INT(mu_put_f32(&r, &r.score, score, B), 0);
    struct tap_copy tc = {NULL, 0};
    r.c[0].tap = tap_features;
    r.c[0].tap_user = &tc;
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK(tc.features != NULL && tc.n == B * n * 64);
    const uint16_t *out = r.mem_out.data;
    const float *emb = hu_find(w, "no_obj_embed_spatial")->v;
    int64_t bad = 0, same = 0;
    for (int64_t i = 0; i < n * 64; i++) {
        bad += out[i] != samrt_f32_to_bf16(tc.features[i]);
        bad += out[n * 64 + i] != samrt_f32_to_bf16(tc.features[n * 64 + i] + emb[i % 64]);
        same += tc.features[i] == tc.features[n * 64 + i];
    }
    CHECK_MSG(bad == 0, "memory encoder store: %lld values differ from the rule", (long long)bad);
    CHECK_MSG(same == n * 64, "memory encoder: equal inputs gave different features in %lld places",
              (long long)(n * 64 - same));
    free(tc.features);
    free(vision), free(low);
    mu_rig_free(&r);
}

static void fill_frame(struct mu_rig *r, int n_mem, int n_ptr, uint64_t seed) {
    const int64_t n = r->n;
    float *buf = malloc(sizeof(float) * (size_t)(B * n * 256));
    tu_fill_uniform(buf, (long)(n * 256), seed, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->curr, buf, (size_t)(n * 256)), 0);
    tu_fill_uniform(buf, (long)(n * 256), seed + 1, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->curr_pos, buf, (size_t)(n * 256)), 0);
    for (int j = 0; j < n_mem; j++) {
        tu_fill_uniform(buf, (long)(B * n * 64), seed + 10 + (uint64_t)j, -2, 2);
        CHECK_EQ_INT(mu_put_f32(r, &r->mem[j], buf, (size_t)(B * n * 64)), 0);  /* rounded to bf16 */
    }
    tu_fill_uniform(buf, (long)(B * r->max_ptr * 256), seed + 5, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->ptr, buf, (size_t)(B * r->max_ptr * 256)), 0);
    (void)n_ptr;
    free(buf);
}

static double max_abs(const float *x, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs((double)x[i]));
    return m;
}

/* Swaps slots a and b of the ring: memory tensors (their bytes) and the pointer rows. */
static void swap_bytes(struct mu_rig *r, const struct samrt_tensor *x, const struct samrt_tensor *y, size_t bytes) {
    (void)r;
    void *tmp = malloc(bytes);
    memcpy(tmp, x->data, bytes);
    memcpy(x->data, y->data, bytes);
    memcpy(y->data, tmp, bytes);
    free(tmp);
}

/* ---- a naive double-precision model of the official memory attention (model-spec 3.6, 4.3,
 * 4.4), for one object, written from the spec: the check of the RoPE key layout (repeated per
 * memory, pointers unrotated), the position sums and the pointer split ---------------------- */

#define NV_D 256
#define NV_MAXL 256

static double nv_x[64][NV_D], nv_t[64][NV_D], nv_q[64][NV_D], nv_k[NV_MAXL][NV_D], nv_v[NV_MAXL][NV_D];
static double nv_kin[NV_MAXL][64], nv_vin[NV_MAXL][64];

static const float *W(struct hu_weights *w, const char *fmt, int l, const char *what) {
    char name[160];
    snprintf(name, sizeof name, fmt, l, what);
    return hu_find(w, "%s", name)->v;
}

static void nv_ln(double (*x)[NV_D], double (*y)[NV_D], int n, const float *g, const float *b) {
    for (int i = 0; i < n; i++) {
        double m = 0, v = 0;
        for (int c = 0; c < NV_D; c++) m += x[i][c];
        m /= NV_D;
        for (int c = 0; c < NV_D; c++) v += (x[i][c] - m) * (x[i][c] - m);
        v /= NV_D;
        for (int c = 0; c < NV_D; c++) y[i][c] = (x[i][c] - m) / sqrt(v + 1e-5) * g[c] + b[c];
    }
}

/* y = x W^T + b over rows of `in` channels (x rows at stride sx doubles) */
static void nv_lin(const double *x, int sx, double *y, int sy, int n, int in, int out, const float *w, const float *b) {
    for (int i = 0; i < n; i++)
        for (int o = 0; o < out; o++) {
            double s = b[o];
            for (int c = 0; c < in; c++) s += x[i * sx + c] * w[o * in + c];
            y[i * sy + o] = s;
        }
}

/* rotate row r of a 256-channel tensor as grid token `tok` of a g x g map */
static void nv_rope(double *r, int tok, int g) {
    const int col = tok % g, row = tok / g;
    for (int p = 0; p < 128; p++) {
        const double f = pow(10000.0, -(double)(p % 64) / 64.0), a = (p < 64 ? col : row) * f;
        const double x0 = r[2 * p], x1 = r[2 * p + 1];
        r[2 * p] = x0 * cos(a) - x1 * sin(a);
        r[2 * p + 1] = x0 * sin(a) + x1 * cos(a);
    }
}

static void nv_residual(int n) {
    for (int i = 0; i < n; i++)
        for (int c = 0; c < NV_D; c++) nv_x[i][c] += nv_t[i][c];
}

static void nv_attend(int nq, int nk, double (*o)[NV_D]) {
    static double s[NV_MAXL];
    for (int i = 0; i < nq; i++) {
        double mx = -1e300, sum = 0;
        for (int j = 0; j < nk; j++) {
            double d = 0;
            for (int c = 0; c < NV_D; c++) d += nv_q[i][c] * nv_k[j][c];
            s[j] = d / 16.0;
            mx = fmax(mx, s[j]);
        }
        for (int j = 0; j < nk; j++) sum += (s[j] = exp(s[j] - mx));
        for (int c = 0; c < NV_D; c++) {
            double a = 0;
            for (int j = 0; j < nk; j++) a += s[j] * nv_v[j][c];
            o[i][c] = a / sum;
        }
    }
}

/* object b of the rig's inputs (CPU backend: host slots) -> out (n, 256) */
static void naive_memattn(struct hu_weights *w, struct mu_rig *r, int b, int n_mem, const int *idx, int n_ptr,
                          const int *dist, int max_ptr, double (*out)[NV_D]) {
    const int g = r->g, n = (int)r->n;
    const float *curr = r->curr.data, *cpos = r->curr_pos.data, *tpos = hu_find(w, "maskmem_tpos_enc")->v;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < NV_D; c++) nv_x[i][c] = curr[i * NV_D + c] + 0.1 * cpos[i * NV_D + c];
    int L = 0;
    for (int j = 0; j < n_mem; j++)
        for (int t = 0; t < n; t++, L++) {
            const uint16_t *m = (const uint16_t *)r->mem[j].data + ((size_t)b * n + (size_t)t) * 64;
            const int y = t / g, x = t % g;
            for (int c = 0; c < 64; c++) {
                /* PositionEmbeddingSine(64): 32 y channels then 32 x channels, sin/cos pairs */
                const int k = c % 32;
                const double tk = pow(10000.0, 2.0 * (k / 2) / 32.0);
                const double e = ((c < 32 ? y : x) + 1) / (g + 1e-6) * 2 * M_PI / tk;
                const double pos = (k % 2 ? cos(e) : sin(e)) + tpos[idx[j] * 64 + c];
                nv_vin[L][c] = samrt_bf16_to_f32(m[c]);
                nv_kin[L][c] = nv_vin[L][c] + pos;
            }
        }
    const float *pw = hu_find(w, "obj_ptr_tpos_proj.weight")->v, *pb = hu_find(w, "obj_ptr_tpos_proj.bias")->v;
    for (int i = 0; i < n_ptr; i++) {
        double e[256], op[64];
        const double p = (double)dist[i] / (max_ptr - 1);
        for (int k = 0; k < 128; k++) {
            const double tk = pow(10000.0, 2.0 * (k / 2) / 128.0);
            e[k] = sin(p / tk);
            e[128 + k] = cos(p / tk);
        }
        nv_lin(e, 256, op, 64, 1, 256, 64, pw, pb);
        const float *ptr = (const float *)r->ptr.data + ((size_t)b * r->max_ptr + (size_t)i) * 256;
        for (int t = 0; t < 4; t++, L++)
            for (int c = 0; c < 64; c++) {
                nv_vin[L][c] = ptr[64 * t + c];
                nv_kin[L][c] = ptr[64 * t + c] + op[c];
            }
    }
    const char *la = "memory_attention.layers.%d.%s";
    for (int l = 0; l < SAMRT_SAM2_MA_LAYERS; l++) {
        static double a[64][NV_D];
        nv_ln(nv_x, nv_t, n, W(w, la, l, "norm1.weight"), W(w, la, l, "norm1.bias"));
        nv_lin(&nv_t[0][0], NV_D, &nv_q[0][0], NV_D, n, NV_D, NV_D, W(w, la, l, "self_attn.q_proj.weight"),
               W(w, la, l, "self_attn.q_proj.bias"));
        nv_lin(&nv_t[0][0], NV_D, &nv_k[0][0], NV_D, n, NV_D, NV_D, W(w, la, l, "self_attn.k_proj.weight"),
               W(w, la, l, "self_attn.k_proj.bias"));
        nv_lin(&nv_t[0][0], NV_D, &nv_v[0][0], NV_D, n, NV_D, NV_D, W(w, la, l, "self_attn.v_proj.weight"),
               W(w, la, l, "self_attn.v_proj.bias"));
        for (int i = 0; i < n; i++) nv_rope(nv_q[i], i, g), nv_rope(nv_k[i], i, g);
        nv_attend(n, n, a);
        nv_lin(&a[0][0], NV_D, &nv_t[0][0], NV_D, n, NV_D, NV_D, W(w, la, l, "self_attn.out_proj.weight"),
               W(w, la, l, "self_attn.out_proj.bias"));
        nv_residual(n);
        nv_ln(nv_x, nv_t, n, W(w, la, l, "norm2.weight"), W(w, la, l, "norm2.bias"));
        nv_lin(&nv_t[0][0], NV_D, &nv_q[0][0], NV_D, n, NV_D, NV_D, W(w, la, l, "cross_attn_image.q_proj.weight"),
               W(w, la, l, "cross_attn_image.q_proj.bias"));
        nv_lin(&nv_kin[0][0], 64, &nv_k[0][0], NV_D, L, 64, NV_D, W(w, la, l, "cross_attn_image.k_proj.weight"),
               W(w, la, l, "cross_attn_image.k_proj.bias"));
        nv_lin(&nv_vin[0][0], 64, &nv_v[0][0], NV_D, L, 64, NV_D, W(w, la, l, "cross_attn_image.v_proj.weight"),
               W(w, la, l, "cross_attn_image.v_proj.bias"));
        for (int i = 0; i < n; i++) nv_rope(nv_q[i], i, g);
        for (int j = 0; j < n_mem * n; j++) nv_rope(nv_k[j], j % n, g);  /* pointers: not rotated */
        nv_attend(n, L, a);
        nv_lin(&a[0][0], NV_D, &nv_t[0][0], NV_D, n, NV_D, NV_D, W(w, la, l, "cross_attn_image.out_proj.weight"),
               W(w, la, l, "cross_attn_image.out_proj.bias"));
        nv_residual(n);
        nv_ln(nv_x, nv_t, n, W(w, la, l, "norm3.weight"), W(w, la, l, "norm3.bias"));
        static double h[64][2048];
        nv_lin(&nv_t[0][0], NV_D, &h[0][0], 2048, n, NV_D, 2048, W(w, la, l, "linear1.weight"),
               W(w, la, l, "linear1.bias"));
        for (int i = 0; i < n; i++)
            for (int c = 0; c < 2048; c++) h[i][c] = fmax(h[i][c], 0.0);
        nv_lin(&h[0][0], 2048, &nv_t[0][0], NV_D, n, 2048, NV_D, W(w, la, l, "linear2.weight"),
               W(w, la, l, "linear2.bias"));
        nv_residual(n);
    }
    nv_ln(nv_x, out, n, hu_find(w, "memory_attention.norm.weight")->v, hu_find(w, "memory_attention.norm.bias")->v);
}

static void test_attention(struct hu_weights *w, void **wdata) {
    enum { NM = 3, NP = 5 };
    const struct mu_pass passes[2] = {{MU_ATT, NM, NP}, {MU_ATT, 2, 0}};
    struct mu_rig r;
    CHECK_EQ_INT(mu_rig_init(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, SIDE, B, 4, 8, passes, 2), 0);
    const int64_t no = B * r.n * 256;
    fill_frame(&r, NM, NP, 40);
    int idx[NM] = {6, 2, 0}, dist[NP] = {9, 1, 2, 3, 4};
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx, NP, dist, 16), SAMRT_OK);
    float *plain = malloc(sizeof(float) * (size_t)no), *got = malloc(sizeof(float) * (size_t)no);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, plain, (size_t)no), 0);
    const double m = max_abs(plain, no);
    CHECK(m > 0.1 && isfinite(m));
    /* the naive model of the official math, object by object */
    for (int b = 0; b < B; b++) {
        static double want[64][NV_D];
        static float wantf[64 * NV_D];
        naive_memattn(w, &r, b, NM, idx, NP, dist, 16, want);
        for (int i = 0; i < r.n * NV_D; i++) wantf[i] = (float)want[i / NV_D][i % NV_D];
        check_close_f32(b ? "uncached vs naive, object 1" : "uncached vs naive, object 0",
                        plain + (size_t)b * r.n * 256, wantf, (long)(r.n * 256), NAIVE_TOL * m, 0);
    }
    /* the objects have different memories: their outputs differ */
    CHECK(memcmp(plain, plain + r.n * 256, sizeof(float) * (size_t)(r.n * 256)) != 0);

    /* order: memory 0 <-> 2 and pointer 0 <-> 3, with their rows */
    swap_bytes(&r, &r.mem[0], &r.mem[2], (size_t)(B * r.n * 64 * 2));
    for (int b = 0; b < B; b++) {
        struct samrt_tensor p0 = r.ptr, p3 = r.ptr;
        p0.data = (float *)r.ptr.data + (size_t)b * r.max_ptr * 256;
        p3.data = (float *)p0.data + 3 * 256;
        swap_bytes(&r, &p0, &p3, 256 * sizeof(float));
    }
    int idx2[NM] = {0, 2, 6}, dist2[NP] = {3, 1, 2, 9, 4};
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx2, NP, dist2, 16), SAMRT_OK);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, got, (size_t)no), 0);
    check_close_f32("memories and pointers reordered", got, plain, (long)no, ORDER_TOL * m, 0);
    /* ... but a memory's tpos row matters: giving memory 0 another slot changes the output */
    idx2[0] = 1;
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx2, NP, dist2, 16), SAMRT_OK);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, got, (size_t)no), 0);
    double dmax = 0;
    for (int64_t i = 0; i < no; i++) dmax = fmax(dmax, fabs((double)got[i] - plain[i]));
    CHECK_MSG(dmax > 1e-3 * m, "tpos row ignored (max |d| %.3g)", dmax);

    /* no pointers */
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[1], 2, idx, 0, NULL, 0), SAMRT_OK);
    CHECK_EQ_INT(mu_run(&r, 1), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, got, (size_t)no), 0);
    CHECK(isfinite(max_abs(got, no)));

    /* staging rows are validated */
    samrt_log_set(quiet_log, NULL, SAMRT_LOG_ERROR);
    int bad_idx[NM] = {7, 0, 0};
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, bad_idx, NP, dist, 16), SAMRT_E_INVALID_ARG);
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], 5, idx, NP, dist, 16), SAMRT_E_INVALID_ARG);
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx, 9, dist, 16), SAMRT_E_INVALID_ARG);
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx, NP, dist, 1), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    free(plain), free(got);
    mu_rig_free(&r);
}

int main(void) {
    test_store_rule();
    struct hu_weights *w = malloc(sizeof *w);
    mu_make_weights(w, 77);
    CHECK_EQ_INT(hu_open_ckpt(w), 0);
    void *wdata[HU_MAX_KEYS];
    for (int i = 0; i < w->n; i++) wdata[i] = w->t[i].v;
    test_encoder(w, wdata);
    test_attention(w, wdata);
    hu_free(w);
    free(w);
    return check_report(NAME);
}
