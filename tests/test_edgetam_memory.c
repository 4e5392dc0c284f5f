/* test_edgetam_memory.c - EdgeTAM's memory path on the CPU backend without the official code (the
 * official comparison is test_edgetam_memory_parity), seeded random weights:
 *   - the spatial perceiver (model side 512: a 32x32 memory map, 2x2-pixel windows, two object
 *     slots) against a naive double model written from model-spec 3.13: global pass with pos
 *     added to the projected k and v, window pass over (2wr+dy, 2wc+dx) dy-major with one latent
 *     per window and a full one-key self-attention, final norm over both halves;
 *   - object slots are independent (a changed object 1 leaves object 0's tokens alone);
 *   - memory attention's EdgeTAM variant (side 256, one 512-token memory, two pointers): its
 *     constant memory position is zeros for the 256 global latents and the 16x16 sine PE after;
 *     keys of the global latents are neither rotated nor positioned, so permuting them leaves the
 *     output unchanged (up to summation order), while permuting window latents changes it (they
 *     are rotated with their 16x16 table row); pointer positions are zero (no obj_ptr_tpos_proj).
 * Run: ctest -R test_edgetam_memory */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sam2_memory_util.h"
#include "sine_pe.h"

#define NAME "test_edgetam_memory"
#define PSIDE 512       /* perceiver test: g = 32, windows of 2x2 */
#define B 2
#define D 64
#define NAIVE_TOL 2e-5  /* of the max |value|: fp32 pass vs the double model */
#define PERM_TOL 1e-5   /* of the max |value|: the same keys summed in another order */

/* ---- weights ----------------------------------------------------------------------------------- */

static const float *W(struct hu_weights *w, int l, const char *what) {
    if (l < 0) return hu_find(w, "spatial_perceiver.%s", what)->v;
    return hu_find(w, "spatial_perceiver.layers.%d.%s", l, what)->v;
}

/* ---- the naive model (double) ------------------------------------------------------------------ */

static void ln(const double *x, int n, const float *g, const float *b, double *y) {
    for (int i = 0; i < n; i++) {
        double m = 0, v = 0;
        for (int c = 0; c < D; c++) m += x[i * D + c];
        m /= D;
        for (int c = 0; c < D; c++) v += (x[i * D + c] - m) * (x[i * D + c] - m);
        v /= D;
        for (int c = 0; c < D; c++) y[i * D + c] = (x[i * D + c] - m) / sqrt(v + 1e-5) * g[c] + b[c];
    }
}

/* y (n, m) = x (n, k) W^T, W (m, k) */
static void lin(const double *x, int n, int k, const float *Wt, int m, double *y) {
    for (int i = 0; i < n; i++)
        for (int o = 0; o < m; o++) {
            double s = 0;
            for (int j = 0; j < k; j++) s += x[i * k + j] * Wt[o * k + j];
            y[i * m + o] = s;
        }
}

/* o (nq, 64) = softmax(q k^T / 8) v; k, v rows of 64 */
static void attn(const double *q, int nq, const double *k, const double *v, int nk, double *o) {
    double *s = malloc(sizeof(double) * (size_t)nk);
    for (int i = 0; i < nq; i++) {
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < nk; j++) {
            double d = 0;
            for (int c = 0; c < D; c++) d += q[i * D + c] * k[j * D + c];
            s[j] = d / 8.0;
            mx = fmax(mx, s[j]);
        }
        for (int j = 0; j < nk; j++) sum += (s[j] = exp(s[j] - mx));
        for (int c = 0; c < D; c++) {
            double a = 0;
            for (int j = 0; j < nk; j++) a += s[j] * v[j * D + c];
            o[i * D + c] = a / sum;
        }
    }
    free(s);
}

static void ff(struct hu_weights *w, int l, const char *which, double *lat, int n) {
    char name[32];
    double *t = malloc(sizeof(double) * (size_t)n * D), *h = malloc(sizeof(double) * (size_t)n * 4 * D);
    snprintf(name, sizeof name, "%s.0.weight", which);
    const float *g = W(w, l, name);
    snprintf(name, sizeof name, "%s.0.bias", which);
    ln(lat, n, g, W(w, l, name), t);
    snprintf(name, sizeof name, "%s.1.weight", which);
    lin(t, n, D, W(w, l, name), 4 * D, h);
    for (int i = 0; i < n * 4 * D; i++) h[i] = 0.5 * h[i] * (1.0 + erf(h[i] / sqrt(2.0)));
    snprintf(name, sizeof name, "%s.3.weight", which);
    lin(h, n, 4 * D, W(w, l, name), D, t);
    for (int i = 0; i < n * D; i++) lat[i] += t[i];
    free(t), free(h);
}

/* PerceiverEncoderLayer l: lat (nq, 64) += ..., x (nx, 64), pos (nx, 64) or NULL. */
static void layer(struct hu_weights *w, int l, double *lat, int nq, const double *x, int nx, const double *pos) {
    double *ql = malloc(sizeof(double) * (size_t)nq * D), *q = malloc(sizeof(double) * (size_t)nq * D);
    double *xn = malloc(sizeof(double) * (size_t)nx * D), *kv = malloc(sizeof(double) * (size_t)nx * 2 * D);
    double *k = malloc(sizeof(double) * (size_t)nx * D), *v = malloc(sizeof(double) * (size_t)nx * D);
    double *o = malloc(sizeof(double) * (size_t)nq * D), *t = malloc(sizeof(double) * (size_t)nq * D);
    ln(lat, nq, W(w, l, "attn.norm_latents.weight"), W(w, l, "attn.norm_latents.bias"), ql);
    lin(ql, nq, D, W(w, l, "attn.to_q.weight"), D, q);
    ln(x, nx, W(w, l, "attn.norm_x.weight"), W(w, l, "attn.norm_x.bias"), xn);
    lin(xn, nx, D, W(w, l, "attn.to_kv.weight"), 2 * D, kv);
    for (int i = 0; i < nx; i++)
        for (int c = 0; c < D; c++) {
            const double p = pos ? pos[i * D + c] : 0.0;
            k[i * D + c] = kv[i * 2 * D + c] + p;
            v[i * D + c] = kv[i * 2 * D + D + c] + p;
        }
    attn(q, nq, k, v, nx, o);
    lin(o, nq, D, W(w, l, "attn.to_out.weight"), D, t);
    for (int i = 0; i < nq * D; i++) lat[i] += t[i];
    ff(w, l, "ff", lat, nq);
    /* self-attention over the latents, written out in full (also for one latent) */
    double *skv = malloc(sizeof(double) * (size_t)nq * 2 * D), *sk = malloc(sizeof(double) * (size_t)nq * D),
           *sv = malloc(sizeof(double) * (size_t)nq * D);
    ln(lat, nq, W(w, l, "self_attn.norm.weight"), W(w, l, "self_attn.norm.bias"), ql);
    lin(ql, nq, D, W(w, l, "self_attn.to_q.weight"), D, q);
    lin(ql, nq, D, W(w, l, "self_attn.to_kv.weight"), 2 * D, skv);
    for (int i = 0; i < nq; i++)
        for (int c = 0; c < D; c++) sk[i * D + c] = skv[i * 2 * D + c], sv[i * D + c] = skv[i * 2 * D + D + c];
    attn(q, nq, sk, sv, nq, o);
    lin(o, nq, D, W(w, l, "self_attn.to_out.weight"), D, t);
    for (int i = 0; i < nq * D; i++) lat[i] += t[i];
    ff(w, l, "self_ff", lat, nq);
    free(ql), free(q), free(xn), free(kv), free(k), free(v), free(o), free(t), free(skv), free(sk), free(sv);
}

/* The perceiver of one object: x (g*g, 64) tokens row-major -> out (512, 64). */
static void naive_perceiver(struct hu_weights *w, int g, const float *x, const float *pos, float *out) {
    const int n = g * g, ws = g / 16;
    double *xd = malloc(sizeof(double) * (size_t)n * D), *pd = malloc(sizeof(double) * (size_t)n * D);
    double *lat = malloc(sizeof(double) * 512 * D), *res = malloc(sizeof(double) * 512 * D);
    for (int i = 0; i < n * D; i++) xd[i] = x[i], pd[i] = pos[i];
    const float *l1 = W(w, -1, "latents"), *l2 = W(w, -1, "latents_2d");
    for (int i = 0; i < 256 * D; i++) lat[i] = l1[i];
    for (int l = 0; l < 2; l++) layer(w, l, lat, 256, xd, n, pd);
    double *win = malloc(sizeof(double) * (size_t)ws * ws * D);
    for (int wr = 0; wr < 16; wr++)
        for (int wc = 0; wc < 16; wc++) {
            const int wi = wr * 16 + wc;
            for (int dy = 0; dy < ws; dy++)
                for (int dx = 0; dx < ws; dx++)
                    for (int c = 0; c < D; c++)
                        win[(dy * ws + dx) * D + c] = xd[((wr * ws + dy) * g + wc * ws + dx) * D + c];
            double *lw = lat + (256 + wi) * D;
            for (int c = 0; c < D; c++) lw[c] = l2[wi * D + c];
            for (int l = 0; l < 2; l++) layer(w, l, lw, 1, win, ws * ws, NULL);
        }
    ln(lat, 512, W(w, -1, "norm.weight"), W(w, -1, "norm.bias"), res);
    for (int i = 0; i < 512 * D; i++) out[i] = (float)res[i];
    free(xd), free(pd), free(lat), free(res), free(win);
}

static double max_abs(const float *x, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs((double)x[i]));
    return m;
}

/* ---- tests ------------------------------------------------------------------------------------- */

static void test_perceiver(struct hu_weights *w, void **wdata) {
    const struct mu_pass passes[1] = {{MU_PERC, 0, 0}};
    struct mu_rig r;
    CHECK_EQ_INT(mu_rig_init_ex(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, PSIDE, B, 1, 0, passes, 1, 1), 0);
    const int g = r.g;
    const int64_t n = r.n, nx = B * n * D, no = B * 512 * D;
    CHECK_EQ_INT(g, 32);
    CHECK_EQ_INT((int)r.n_mem_tok, 512);
    float *x = malloc(sizeof(float) * (size_t)nx), *pos = malloc(sizeof(float) * (size_t)(n * D));
    float *got = malloc(sizeof(float) * (size_t)no), *want = malloc(sizeof(float) * (size_t)no);
    tu_fill_uniform(x, (long)nx, 2024, -2.0f, 2.0f);
    struct samrt_sine_pe_args pa = {SAMRT_DTYPE_F32, D, g, g, 1, pos};
    CHECK_EQ_INT(samrt_sine_pe_ref(&pa), SAMRT_OK);
    CHECK_EQ_INT(mu_put_f32(&r, &r.feat, x, (size_t)nx), 0);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.perc_out, got, (size_t)no), 0);
    for (int b = 0; b < B; b++) naive_perceiver(w, g, x + (size_t)b * n * D, pos, want + (size_t)b * 512 * D);
    const double m = max_abs(want, no);
    check_close_f32("perceiver (global half)", got, want, 256 * D, NAIVE_TOL * m, 0);
    check_close_f32("perceiver (window half)", got + 256 * D, want + 256 * D, 256 * D, NAIVE_TOL * m, 0);
    check_close_f32("perceiver (object 1)", got + 512 * D, want + 512 * D, 512 * D, NAIVE_TOL * m, 0);

    /* object slots are independent: a new object 1 leaves object 0 bit for bit */
    float *got2 = malloc(sizeof(float) * (size_t)no);
    for (int64_t i = n * D; i < nx; i++) x[i] = -x[i];
    CHECK_EQ_INT(mu_put_f32(&r, &r.feat, x, (size_t)nx), 0);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.perc_out, got2, (size_t)no), 0);
    CHECK(memcmp(got, got2, sizeof(float) * 512 * D) == 0);
    CHECK(memcmp(got + 512 * D, got2 + 512 * D, sizeof(float) * 512 * D) != 0);
    free(x), free(pos), free(got), free(want), free(got2);
    mu_rig_free(&r);
}

/* One memory of 512 tokens, two pointers; returns the output (256 queries x 256). */
static void run_attention(struct mu_rig *r, const float *mem, const float *ptr, float *out) {
    const int idx[1] = {6}, dist[2] = {3, 1};
    CHECK_EQ_INT(mu_put_f32(r, &r->mem[0], mem, 512 * D), 0);
    CHECK_EQ_INT(mu_put_f32(r, &r->ptr, ptr, 2 * 256), 0);
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r->ma, &r->c[0], 1, idx, 2, dist, 16), SAMRT_OK);
    CHECK_EQ_INT(mu_run(r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(r, &r->att_out, out, (size_t)(r->n * 256)), 0);
}

static void test_attention(struct hu_weights *w, void **wdata) {
    const struct mu_pass passes[1] = {{MU_ATT, 1, 2}};
    struct mu_rig r;
    CHECK_EQ_INT(mu_rig_init_ex(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, 256, 1, 1, 2, passes, 1, 1), 0);
    CHECK_EQ_INT(r.ma.n_layers, 2);
    CHECK_EQ_INT((int)r.ma.n_mem_tok, 512);
    CHECK(r.ma.w.tpos_w == NULL);  /* no obj_ptr_tpos_proj bound */

    /* the memory position: zeros, then the 16x16 sine PE */
    float *mp = malloc(sizeof(float) * 512 * D), *pe = malloc(sizeof(float) * 256 * D);
    CHECK_EQ_INT(mu_get_f32(&r, &r.ma.mem_pos, mp, 512 * D), 0);
    struct samrt_sine_pe_args pa = {SAMRT_DTYPE_F32, D, 16, 16, 1, pe};
    CHECK_EQ_INT(samrt_sine_pe_ref(&pa), SAMRT_OK);
    CHECK_NEAR(max_abs(mp, 256 * D), 0.0, 0.0);
    check_close_f32("memory position (window latents)", mp + 256 * D, pe, 256 * D, 0, 0);

    const int64_t no = r.n * 256;
    float *mem = malloc(sizeof(float) * 512 * D), *perm = malloc(sizeof(float) * 512 * D);
    float *ptr = malloc(sizeof(float) * 2 * 256), *base = malloc(sizeof(float) * (size_t)no),
          *got = malloc(sizeof(float) * (size_t)no);
    tu_fill_uniform(mem, 512 * D, 11, -2.0f, 2.0f);
    tu_fill_uniform(ptr, 2 * 256, 12, -2.0f, 2.0f);
    for (int i = 0; i < 512 * D; i++) mem[i] = samrt_bf16_to_f32(samrt_f32_to_bf16(mem[i]));  /* stored bf16 */
    float *curr = malloc(sizeof(float) * (size_t)no), *cpos = malloc(sizeof(float) * (size_t)no);
    tu_fill_uniform(curr, (long)no, 13, -1.0f, 1.0f);
    tu_fill_uniform(cpos, (long)no, 14, -1.0f, 1.0f);
    CHECK_EQ_INT(mu_put_f32(&r, &r.curr, curr, (size_t)no), 0);
    CHECK_EQ_INT(mu_put_f32(&r, &r.curr_pos, cpos, (size_t)no), 0);
    run_attention(&r, mem, ptr, base);
    const double m = max_abs(base, no);
    CHECK(m > 0 && isfinite(m));

    /* reversed global latents: the same keys in another order */
    memcpy(perm, mem, sizeof(float) * 512 * D);
    for (int i = 0; i < 256; i++) memcpy(perm + i * D, mem + (255 - i) * D, sizeof(float) * D);
    run_attention(&r, perm, ptr, got);
    check_close_f32("global latents permuted", got, base, (long)no, PERM_TOL * m, 0);
    /* swapped pointers: pointer positions are all zero, so their order does not matter either */
    float ptr2[2 * 256];
    memcpy(ptr2, ptr + 256, sizeof(float) * 256);
    memcpy(ptr2 + 256, ptr, sizeof(float) * 256);
    run_attention(&r, mem, ptr2, got);
    check_close_f32("pointers swapped (no temporal position)", got, base, (long)no, PERM_TOL * m, 0);
    /* reversed window latents: each has its own table row and sine position, so it matters */
    memcpy(perm, mem, sizeof(float) * 512 * D);
    for (int i = 0; i < 256; i++) memcpy(perm + (256 + i) * D, mem + (511 - i) * D, sizeof(float) * D);
    run_attention(&r, perm, ptr, got);
    double dmax = 0;
    for (int64_t i = 0; i < no; i++) dmax = fmax(dmax, fabs((double)got[i] - base[i]));
    CHECK_MSG(dmax > 1e-3 * m, "window latents' positions ignored (max |d| %.3g)", dmax);
    free(mp), free(pe), free(mem), free(perm), free(ptr), free(base), free(got), free(curr), free(cpos);
    mu_rig_free(&r);
}

int main(void) {
    struct hu_weights *w = malloc(sizeof *w);
    mu_make_weights(w, 91);  /* the memory encoder / attention tensors (SAM 2.1 names, a superset) */
    mu_make_perceiver_weights(w);
    CHECK_EQ_INT(hu_open_ckpt(w), 0);
    void *wdata[HU_MAX_KEYS];
    for (int i = 0; i < w->n; i++) wdata[i] = w->t[i].v;
    test_perceiver(w, wdata);
    test_attention(w, wdata);
    hu_free(w);
    free(w);
    return check_report(NAME);
}
