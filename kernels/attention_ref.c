/* attention_ref.c - plain C11 reference for attention.h: for every query row, pass 1 finds
 * the max score, pass 2 sums exp(s - max) and the weighted values, then divides. fp32
 * throughout, no scratch memory (scores are recomputed in pass 2), no SIMD, no threads.
 * RoPE follows PyTorch: rotate in fp32, round the rotated row to the storage dtype.
 * Cost is O(Lq * Lk * D): tests run it on a subset of query rows at large shapes (offset
 * q, o and rope.q by the first row). Tested by tests/test_attention.c. */
#include "attention.h"

#include <math.h>

#include "half.h"
#include "samrt_impl.h"

static float load_elem(enum samrt_dtype dt, const void *base, int64_t i) {
    if (dt == SAMRT_DTYPE_F32) return ((const float *)base)[i];
    const uint16_t h = ((const uint16_t *)base)[i];
    return dt == SAMRT_DTYPE_F16 ? samrt_f16_to_f32(h) : samrt_bf16_to_f32(h);
}

static float round_to(enum samrt_dtype dt, float v) {
    if (dt == SAMRT_DTYPE_F16) return samrt_round_f16(v);
    if (dt == SAMRT_DTYPE_BF16) return samrt_round_bf16(v);
    return v;
}

/* Row of n values at base[off..]; base NULL gives zeros. cs (n/2 cos, sin pairs) rotates
 * the row in fp32 and rounds the result back to the dtype. */
static void load_row(enum samrt_dtype dt, const void *base, int64_t off, int n, const float *cs,
                     float *out) {
    for (int c = 0; c < n; c++) out[c] = base ? load_elem(dt, base, off + c) : 0.0f;
    if (!cs) return;
    for (int c = 0; c + 1 < n; c += 2) {
        const float a = out[c], b = out[c + 1], co = cs[c], si = cs[c + 1];
        out[c] = round_to(dt, a * co - b * si);
        out[c + 1] = round_to(dt, a * si + b * co);
    }
}

/* Key (which = 0) or value (which = 1) row j of problem (bw, h). */
static void load_kv(const struct samrt_attention_params *p, int which, int bw, int h, int j,
                    float *out) {
    const int d = which ? p->d_v : p->d_qk;
    const void *base = which ? p->v : p->k;
    const int64_t s_b = which ? p->s_v_b : p->s_k_b, s_h = which ? p->s_v_h : p->s_k_h;
    const int64_t s_t = which ? p->s_v_t : p->s_k_t;
    if (p->win.size_q > 0) {
        const struct samrt_attention_window *w = &p->win;
        int b;
        int64_t tok;
        const int n_win = samrt_attention_n_windows(p), n_wx = (w->k_w + w->size_k - 1) / w->size_k;
        if (samrt_attention_map_row(bw, j, w->size_k, w->k_h, w->k_w, n_win, n_wx, &b, &tok)) {
            load_row(p->dtype, base, b * s_b + h * s_h + tok * s_t, d, NULL, out);
        } else {  /* zero-padded token: k = k bias, v = v bias */
            const void *pad = which ? w->pad_v : w->pad_k;
            load_row(p->dtype, pad, h * w->s_pad_h, d, NULL, out);
        }
        return;
    }
    const float *cs = NULL;
    if (!which && p->rope.k) {
        const int row = samrt_rope_row(j, p->rope.k_period, p->rope.k_skip, p->rope.n_k);
        if (row >= 0) cs = p->rope.k + (size_t)row * (size_t)p->d_qk;
    }
    load_row(p->dtype, base, bw * s_b + h * s_h + j * s_t, d, cs, out);
}

static float dot(const float *a, const float *b, int n) {
    float s = 0.0f;
    for (int c = 0; c < n; c++) s += a[c] * b[c];
    return s;
}

enum samrt_status samrt_attention_ref(const struct samrt_attention_params *p) {
    enum samrt_status st = samrt_attention_check(p);
    if (st != SAMRT_OK) return st;
    const float scale = p->scale != 0.0f ? p->scale : 1.0f / sqrtf((float)p->d_qk);
    const int n_win = samrt_attention_n_windows(p);
    const struct samrt_attention_window *w = &p->win;
    float qr[SAMRT_ATTENTION_MAX_DIM], kr[SAMRT_ATTENTION_MAX_DIM];
    float vr[SAMRT_ATTENTION_MAX_DIM], acc[SAMRT_ATTENTION_MAX_DIM];
    for (int bw = 0; bw < p->n_batch * n_win; bw++)
        for (int h = 0; h < p->n_head; h++)
            for (int i = 0; i < p->n_q; i++) {
                int b = bw;
                int64_t tok = i;
                if (w->size_q > 0) {
                    const int n_wx = (w->q_w + w->size_q - 1) / w->size_q;
                    if (!samrt_attention_map_row(bw, i, w->size_q, w->q_h, w->q_w, n_win, n_wx, &b, &tok))
                        continue;  /* padded query: cropped by window_unpartition */
                }
                const float *cs = p->rope.q ? p->rope.q + (size_t)i * (size_t)p->d_qk : NULL;
                load_row(p->dtype, p->q, b * p->s_q_b + h * p->s_q_h + tok * p->s_q_t, p->d_qk, cs, qr);
                float mx = -INFINITY;
                for (int j = 0; j < p->n_k; j++) {
                    load_kv(p, 0, bw, h, j, kr);
                    mx = fmaxf(mx, dot(qr, kr, p->d_qk) * scale);
                }
                float sum = 0.0f;
                for (int c = 0; c < p->d_v; c++) acc[c] = 0.0f;
                for (int j = 0; j < p->n_k; j++) {
                    load_kv(p, 0, bw, h, j, kr);
                    load_kv(p, 1, bw, h, j, vr);
                    const float e = expf(dot(qr, kr, p->d_qk) * scale - mx);
                    sum += e;
                    for (int c = 0; c < p->d_v; c++) acc[c] += e * vr[c];
                }
                const int64_t oi = b * p->s_o_b + h * p->s_o_h + tok * p->s_o_t;
                for (int c = 0; c < p->d_v; c++) {
                    const float v = acc[c] / sum;
                    if (p->dtype == SAMRT_DTYPE_F32) ((float *)p->o)[oi + c] = v;
                    else if (p->dtype == SAMRT_DTYPE_F16) ((uint16_t *)p->o)[oi + c] = samrt_f32_to_f16(v);
                    else ((uint16_t *)p->o)[oi + c] = samrt_f32_to_bf16(v);
                }
            }
    return SAMRT_OK;
}
