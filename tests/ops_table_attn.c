/* ops_table_attn.c - the op table's rows for the fused attention (kernels/attention.h): the
 * production shapes of SAM 2.1 tiny / base_plus / large and EdgeTAM at 1024 input (memory
 * attention over 7 memories + object pointers with RoPE, EdgeTAM's unrotated latent prefix per
 * memory, Hiera global blocks reading a fused qkv and windowed blocks with bias-padded windows
 * and q-pool, the mask decoder's two-way attention with 8 tokens at head dim 16 / 32, the
 * perceiver) and odd shapes (1 query, key counts off the multiple of 8, Dv != D, head dims off
 * the 8-multiple, a misaligned q that forces the scalar loads, head dim 200). On the GPU every
 * row runs in variants (ot_op.gpu_prepare): the planned split and tile, no split, a forced
 * 3-way split (split-K with its combine pass), each f16 / bf16 tile shape, and the sm_90a wide
 * tile where it applies; SAMRT_ATTENTION_PORTABLE=1 runs them on the portable kernel. At the
 * large shapes the reference computes three blocks of query rows (a sampled output). The small
 * rows are checked by hand on the host (a naive double softmax(q k^T) v). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "ops_table.h"
#include "rope.h"
#include "test_util.h"

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>

#include "gpu_ctx.h"
#endif

/* f32: fp32 FMA on both sides, the sums in another order; f16 / bf16: the kernel rounds P to
 * the dtype before P.V as FlashAttention does (the reference keeps P in f32), both round o */
static const struct ot_tol TOL_ATTN = {"attn_p_rounded", {2e-5, 2e-3, 1.2e-2}, {1e-4, 5e-3, 2e-2}, 0, 0};

enum at_layout {
    AT_BHLD,  /* each tensor contiguous (B, H, L, D) */
    AT_BLHD,  /* each tensor (B, L, H, D): a Linear output viewed as heads */
    AT_QKV    /* Hiera's fused qkv: (B, L, 3, H, D), q at 0, k at H*D, v at 2*H*D */
};

struct at_shape {
    int B, H, Lq, Lk, D, Dv;           /* Lq, Lk ignored in window mode (ws^2) */
    enum at_layout layout;
    int rope;                          /* rotate q (tq grid) and k (tk grid, period/skip/n_k) */
    int tq_w, tq_h, tk_w, tk_h, k_period, k_skip, n_k_rope;
    int ws_q, ws_k, qh, qw, kh, kw;    /* windows: ws_q > 0 */
};

/* the shapes the rows name by index (p[0]) */
enum {
    S_MEM_CROSS, S_MEM_SELF, S_EDGETAM_CROSS, S_MEM_CROSS_1MEM, S_GLOBAL_T, S_GLOBAL_BP, S_GLOBAL_L, S_WAVE_BP,
    S_WIN14_T, S_WIN_QPOOL_T, S_WIN8_T, S_WIN14_BP, S_WIN16_L, S_WIN7_ODD, S_DEC_SELF, S_DEC_T2I, S_DEC_I2T,
    S_DEC_T2I_7, S_PERC_CROSS, S_PERC_SELF, S_PERC_WIN, S_ODD_17X1000, S_ODD_1000X17, S_ODD_8X8, S_ODD_D20,
    S_ODD_MISALIGNED, S_ODD_D200, S_TAIL_D72, S_TAIL_D96, S_WIDE_D56, S_ROPE_ODD, S_ONE_Q, S_SPLIT_Q5, S_D32_K1,
};

static const struct at_shape AT_SHAPES[] = {
    /* SAM 2.1 memory attention: 7 frames x 4096 + 64 pointer keys (16 pointers x 4), 1 head, d 256 */
    [S_MEM_CROSS] = {1, 1, 4096, 28736, 256, 256, AT_BHLD, 1, 64, 64, 64, 64, 4096, 0, 28672, 0, 0, 0, 0, 0, 0},
    [S_MEM_SELF] = {1, 1, 4096, 4096, 256, 256, AT_BHLD, 1, 64, 64, 64, 64, 4096, 0, 4096, 0, 0, 0, 0, 0, 0},
    /* EdgeTAM cross: 7 x 512 (256 unrotated latents first + 256 on a 16x16 grid) + 64 pointers */
    [S_EDGETAM_CROSS] = {1, 1, 4096, 3648, 256, 256, AT_BHLD, 1, 64, 64, 16, 16, 512, 256, 3584, 0, 0, 0, 0, 0, 0},
    /* the second frame: one memory and one pointer (4 keys) */
    [S_MEM_CROSS_1MEM] = {1, 1, 4096, 4100, 256, 256, AT_BHLD, 1, 64, 64, 64, 64, 4096, 0, 4096, 0, 0, 0, 0, 0, 0},
    /* Hiera global blocks at 64x64 (tiny/small d 96, base_plus d 56, large d 72) */
    [S_GLOBAL_T] = {1, 4, 4096, 4096, 96, 96, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_GLOBAL_BP] = {1, 8, 4096, 4096, 56, 56, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_GLOBAL_L] = {1, 8, 4096, 4096, 72, 72, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* base_plus with 6 heads: one wave of 96 wide tiles or two of 192 narrow ones on 132 SMs */
    [S_WAVE_BP] = {1, 6, 4096, 4096, 56, 56, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* Hiera windowed: stage 3 ws 14 at 64x64 (pad 6), q-pool block (q 32x32/7 over k 64x64/14),
     * stage 1 ws 8 at 256x256, base_plus d 56, large ws 16 d 72, odd map 30x19 in ws 7 */
    [S_WIN14_T] = {1, 4, 0, 0, 96, 96, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 14, 14, 64, 64, 64, 64},
    [S_WIN_QPOOL_T] = {1, 8, 0, 0, 96, 96, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 7, 14, 32, 32, 64, 64},
    [S_WIN8_T] = {1, 1, 0, 0, 96, 96, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 256, 256, 256, 256},
    [S_WIN14_BP] = {1, 2, 0, 0, 56, 56, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 14, 14, 64, 64, 64, 64},
    [S_WIN16_L] = {1, 2, 0, 0, 72, 72, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 16, 16, 64, 64, 64, 64},
    [S_WIN7_ODD] = {2, 2, 0, 0, 96, 96, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 7, 7, 30, 19, 30, 19},
    /* two-way transformer: self (d 32), token->image and image->token (128 / 8 heads = 16);
     * 7 tokens: one click without the padding point */
    [S_DEC_SELF] = {1, 8, 8, 8, 32, 32, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_DEC_T2I] = {1, 8, 8, 4096, 16, 16, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_DEC_I2T] = {1, 8, 4096, 8, 16, 16, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_DEC_T2I_7] = {1, 8, 7, 4096, 16, 16, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* EdgeTAM perceiver: 256 latents over 4096 pixels, latent self-attention, and the window
     * pass (one latent per 4x4 window) through the window mapping */
    [S_PERC_CROSS] = {1, 1, 256, 4096, 64, 64, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_PERC_SELF] = {1, 1, 256, 256, 64, 64, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_PERC_WIN] = {1, 1, 0, 0, 64, 64, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 16, 16, 64, 64},
    /* odd shapes */
    [S_ODD_17X1000] = {2, 3, 17, 1000, 40, 40, AT_BHLD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_ODD_1000X17] = {1, 2, 1000, 17, 24, 48, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_ODD_8X8] = {3, 1, 8, 8, 8, 8, AT_BHLD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_ODD_D20] = {1, 2, 33, 77, 20, 12, AT_BHLD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_ODD_MISALIGNED] = {1, 2, 130, 300, 64, 64, AT_BHLD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_ODD_D200] = {1, 1, 129, 517, 200, 200, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* head dims 72 and 96 outside windows: on sm_90a a 64-column block plus a tail block */
    [S_TAIL_D72] = {2, 2, 200, 333, 72, 72, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_TAIL_D96] = {1, 3, 130, 259, 96, 96, AT_BHLD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* head dim 56 as base_plus, partial q and k tiles: the wide tile (forced) on sm_90a */
    [S_WIDE_D56] = {2, 3, 1000, 1100, 56, 56, AT_QKV, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_ROPE_ODD] = {2, 2, 100, 333, 32, 32, AT_BHLD, 1, 10, 10, 10, 10, 110, 10, 300, 0, 0, 0, 0, 0, 0},
    /* one query over 77 keys (not a multiple of 8); 5 queries over 3001 keys (split-K's case:
     * few query tiles); one key */
    [S_ONE_Q] = {1, 2, 1, 77, 64, 64, AT_BHLD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_SPLIT_Q5] = {1, 1, 5, 3001, 32, 32, AT_BLHD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    [S_D32_K1] = {2, 2, 9, 1, 32, 16, AT_BHLD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
};

/* buffers: q (NULL when it lives in the fused qkv), k or qkv, v (NULL: fused), the window pad
 * rows (pad_k then pad_v), the q and k RoPE tables (f32), o */
enum { AB_Q, AB_KV, AB_V, AB_PAD, AB_TQ, AB_TK, AB_O };

static const struct at_shape *at_shape_of(const struct ot_case *c) { return &AT_SHAPES[c->row->p[0]]; }
static int at_win(const struct at_shape *s) { return s->ws_q > 0; }
static int at_lq(const struct at_shape *s) { return at_win(s) ? s->ws_q * s->ws_q : s->Lq; }
static int at_lk(const struct at_shape *s) { return at_win(s) ? s->ws_k * s->ws_k : s->Lk; }
static long at_tq(const struct at_shape *s) { return at_win(s) ? (long)s->qh * s->qw : s->Lq; }
static long at_tk(const struct at_shape *s) { return at_win(s) ? (long)s->kh * s->kw : s->Lk; }
static int at_fused(const struct at_shape *s) { return s->layout == AT_QKV; }
static int at_q_in_kv(const struct at_shape *s) { return at_fused(s) && at_tq(s) == at_tk(s); }

/* Strides of a (B, H, T, d) tensor in layout l; per_tok = channels per token. */
static void at_strides(enum at_layout l, int H, long T, int d, long per_tok, int64_t *sb, int64_t *sh, int64_t *st) {
    if (l == AT_BHLD) {
        *st = d; *sh = T * d; *sb = (int64_t)H * T * d;
    } else {
        *st = per_tok; *sh = d; *sb = T * per_tok;
    }
}

/* The params over the buffers p (host or device: the same layout). */
static struct samrt_attention_params at_params(const struct ot_case *c, void *const *p) {
    const struct at_shape *s = at_shape_of(c);
    const size_t esz = samrt_dtype_size(c->dt);
    const int H = s->H, D = s->D;
    const long kv_tok = at_fused(s) ? 3L * H * D : (long)H * D;
    struct samrt_attention_params a;
    memset(&a, 0, sizeof a);
    a.dtype = c->dt;
    a.n_batch = s->B; a.n_head = H; a.n_q = at_lq(s); a.n_k = at_lk(s); a.d_qk = D; a.d_v = s->Dv;
    at_strides(s->layout == AT_QKV ? AT_QKV : s->layout, H, at_tk(s), D, kv_tok, &a.s_k_b, &a.s_k_h, &a.s_k_t);
    at_strides(s->layout, H, at_tk(s), s->Dv, at_fused(s) ? kv_tok : (long)H * s->Dv, &a.s_v_b, &a.s_v_h, &a.s_v_t);
    at_strides(at_q_in_kv(s) ? AT_QKV : (s->layout == AT_QKV ? AT_BLHD : s->layout), H, at_tq(s), D,
               at_q_in_kv(s) ? kv_tok : (long)H * D, &a.s_q_b, &a.s_q_h, &a.s_q_t);
    at_strides(s->layout == AT_BHLD ? AT_BHLD : AT_BLHD, H, at_tq(s), s->Dv, (long)H * s->Dv, &a.s_o_b, &a.s_o_h,
               &a.s_o_t);
    const char *kv = (const char *)p[AB_KV];
    a.q = at_q_in_kv(s) ? kv : p[AB_Q];
    a.k = at_fused(s) ? kv + (size_t)H * D * esz : kv;
    a.v = at_fused(s) ? kv + 2 * (size_t)H * D * esz : p[AB_V];
    a.o = p[AB_O];
    if (at_win(s)) {
        a.win.size_q = s->ws_q; a.win.size_k = s->ws_k;
        a.win.q_h = s->qh; a.win.q_w = s->qw; a.win.k_h = s->kh; a.win.k_w = s->kw;
        a.win.pad_k = p[AB_PAD];
        a.win.pad_v = (const char *)p[AB_PAD] + (size_t)H * D * esz;
        a.win.s_pad_h = D;
    }
    if (s->rope) {
        a.rope.q = (const float *)p[AB_TQ];
        a.rope.k = (const float *)p[AB_TK];
        a.rope.k_period = s->k_period;
        a.rope.k_skip = s->k_skip;
        a.rope.n_k = s->n_k_rope;
    }
    return a;
}

static void at_fail(const struct ot_case *c, const char *what) {
    fprintf(stderr, "attention/%s: %s\n", c->row->shape, what);
    exit(1);
}

/* n values in [-1, 1] stored as dt, scaled by amp: all of them (period 0) or, in a fused qkv,
 * the q slots (the first len of every period) */
static int at_random(struct ot_case *c, long n, float amp, long period, long len, uint64_t salt) {
    float *f = (float *)malloc(sizeof(float) * (size_t)n);
    void *h = malloc(samrt_dtype_size(c->dt) * (size_t)n);
    if (!f || !h) at_fail(c, "no memory");
    tu_fill_uniform(f, n, c->seed + salt, -1.0f, 1.0f);
    for (long i = 0; i < n; i++)
        if (!period || i % period < len) f[i] *= amp;
    tu_store(c->dt, h, f, n);
    const int b = ot_buf_copy(c, c->dt, n, h);
    free(f);
    free(h);
    return b;
}

static int at_table(struct ot_case *c, int D, int w, int h) {
    const size_t n = samrt_rope_table_floats(D, w, h);
    float *t = (float *)malloc(sizeof(float) * n);
    if (!t || samrt_rope_table_fill(t, D, w, h, 10000.0f) != SAMRT_OK) at_fail(c, "no RoPE table");
    const int b = ot_buf_copy(c, SAMRT_DTYPE_F32, (long)n, t);
    free(t);
    return b;
}

/* p = {shape index, reference rows (0: all; else three blocks of p[1] / 3), q misaligned};
 * f = {q amplitude (a larger one peaks the softmax)} */
static void at_setup(struct ot_case *c) {
    const struct at_shape *s = at_shape_of(c);
    const int H = s->H, D = s->D, Dv = s->Dv;
    const long kv_tok = at_fused(s) ? 3L * H * D : (long)H * D;
    const float amp = c->row->f[0];
    if (at_q_in_kv(s)) ot_buf_null(c);
    else c->b[at_random(c, (long)s->B * at_tq(s) * H * D, amp, 0, 0, 1)].misalign = (int)c->row->p[2];
    if (at_q_in_kv(s)) at_random(c, (long)s->B * at_tk(s) * kv_tok, amp, kv_tok, (long)H * D, 2);
    else at_random(c, (long)s->B * at_tk(s) * kv_tok, 1.0f, 0, 0, 2);
    at_fused(s) ? ot_buf_null(c) : at_random(c, (long)s->B * at_tk(s) * H * Dv, 1.0f, 0, 0, 3);
    at_win(s) ? at_random(c, 2L * H * D, 1.0f, 0, 0, 4) : ot_buf_null(c);
    s->rope ? at_table(c, D, s->tq_w, s->tq_h) : ot_buf_null(c);
    s->rope ? at_table(c, D, s->tk_w, s->tk_h) : ot_buf_null(c);
    const int o = ot_buf_add(c, c->dt, (long)s->B * at_tq(s) * H * Dv, OT_OUT);
    c->b[o].sampled = c->row->p[1] > 0 && !at_win(s);
    const long n_win = at_win(s) ? (long)((s->kh + s->ws_k - 1) / s->ws_k) * ((s->kw + s->ws_k - 1) / s->ws_k) : 1;
    const long problems = (long)s->B * H * n_win;
    c->flops = 2.0 * problems * at_lq(s) * at_lk(s) * (D + Dv);  /* windows: padded rows count, as SDPA */
    c->moved = (double)samrt_dtype_size(c->dt) * s->B * H * (at_tq(s) * (D + Dv) + at_tk(s) * (D + Dv));
}

/* Host: the reference over every query row, or three blocks of rows (start, middle, end) */
static enum samrt_status at_ref(const struct ot_case *c, void *const *p) {
    const struct at_shape *s = at_shape_of(c);
    const struct samrt_attention_params a = at_params(c, p);
    const int lq = at_lq(s), n = (int)c->row->p[1] / 3;
    if (!c->b[AB_O].sampled || 3 * n >= lq) return samrt_attention_ref(&a);
    const int start[3] = {0, lq / 2 - n / 2, lq - n};
    const size_t esz = samrt_dtype_size(c->dt);
    for (int i = 0; i < 3; i++) {
        struct samrt_attention_params r = a;
        r.n_q = n;
        r.q = (const char *)a.q + (size_t)start[i] * a.s_q_t * esz;
        r.o = (char *)a.o + (size_t)start[i] * a.s_o_t * esz;
        if (r.rope.q) r.rope.q += (size_t)start[i] * s->D;
        const enum samrt_status st = samrt_attention_ref(&r);
        if (st != SAMRT_OK) return st;
    }
    return SAMRT_OK;
}

/* the GPU variant's choices and workspace */
struct at_gpu {
    int n_split, block_q, block_k, sm_count;
    void *ws;
    size_t ws_bytes;
};

static enum samrt_status at_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    if (!gpu) return at_ref(c, p);
#ifdef SAMRT_HAVE_CUDA
    struct samrt_attention_params a = at_params(c, p);
    const struct at_gpu *g = (const struct at_gpu *)c->gpu;
    if (!g) return SAMRT_E_INVALID_ARG;
    a.n_split = g->n_split;
    a.block_q = g->block_q;
    a.block_k = g->block_k;
    a.sm_count = g->sm_count;
    a.workspace = g->ws;
    a.workspace_bytes = g->ws_bytes;
    return samrt_attention_cuda(&a, (cudaStream_t)stream);
#else
    (void)stream;
    return SAMRT_E_UNSUPPORTED;
#endif
}

#ifdef SAMRT_HAVE_CUDA
/* Variants: 0 the planner's split and tile (benched), 1 no split, 2 a forced 3-way split
 * (each launched split count once), 3..6 the f16 / bf16 tiles {64, 128} x {64, 128} without
 * split, 7 the sm_90a wide tile forced where it applies (elsewhere it runs 128-row tiles). */
static int at_gpu_prepare(struct ot_case *c, const struct samrt_gpu_ctx *ctx, void *const *d, int v) {
    static const int tiles[4][2] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}};
    static int inited;
    if (ctx->cc_major < 8) return 0;  /* the tensor-core kernels need sm_80 or later */
    if (!inited) {
        if (samrt_attention_init_cuda() != SAMRT_OK) return -1;
        inited = 1;
    }
    struct samrt_attention_params a = at_params(c, d);
    a.sm_count = ctx->sm_count;
    const int planned = samrt_attention_split_count(&a, ctx->sm_count);
    int eff[3];
    for (int i = 0; i < 3; i++) {
        a.n_split = i == 0 ? planned : i == 1 ? 1 : 3;
        eff[i] = samrt_attention_n_split_effective(&a);
    }
    a.n_split = 1;
    if (v == 0) a.n_split = planned;
    else if (v == 1 && eff[1] == eff[0]) return 0;
    else if (v == 2 && (eff[2] == eff[0] || eff[2] == eff[1])) return 0;
    else if (v == 2) a.n_split = 3;
    else if (v >= 3 && c->dt == SAMRT_DTYPE_F32) return 0;
    else if (v >= 3 && v <= 6) { a.block_q = tiles[v - 3][0]; a.block_k = tiles[v - 3][1]; }
    else if (v == 7) {
        a.block_q = 256;
        if (samrt_attention_wide_tiles(&a) <= 0) return 0;
    }
    struct at_gpu *g = (struct at_gpu *)calloc(1, sizeof *g);
    if (!g) return -1;
    g->n_split = a.n_split; g->block_q = a.block_q; g->block_k = a.block_k; g->sm_count = a.sm_count;
    g->ws_bytes = samrt_attention_workspace_size(&a);
    c->gpu = g;
    if (g->ws_bytes && cudaMalloc(&g->ws, g->ws_bytes) != cudaSuccess) return -1;
    return 1;
}

static void at_gpu_free(struct ot_case *c) {
    struct at_gpu *g = (struct at_gpu *)c->gpu;
    if (g) cudaFree(g->ws);
    free(g);
    c->gpu = NULL;
}
#define AT_GPU_HOOKS at_gpu_prepare, at_gpu_free, 8
#else
#define AT_GPU_HOOKS NULL, NULL, 0
#endif

/* f32 without RoPE or windows, small rows: every output by hand, softmax(scale q k^T) v in
 * double (max subtracted), within 1e-5 relative */
static long at_check(const struct ot_case *c, void *const *p) {
    const struct at_shape *s = at_shape_of(c);
    if (c->dt != SAMRT_DTYPE_F32 || s->rope || at_win(s) || c->b[AB_O].sampled ||
        (double)s->B * s->H * s->Lq * s->Lk * (s->D + s->Dv) > 4e7)
        return 0;
    const struct samrt_attention_params a = at_params(c, p);
    const float *q = (const float *)a.q, *k = (const float *)a.k, *v = (const float *)a.v, *o = (const float *)a.o;
    double *w = (double *)malloc(sizeof(double) * (size_t)s->Lk);
    if (!w) at_fail(c, "no memory");
    const double scale = 1.0 / sqrt((double)s->D);
    long bad = 0;
    for (int b = 0; b < s->B; b++)
        for (int h = 0; h < s->H; h++)
            for (int i = 0; i < s->Lq; i++) {
                const float *qi = q + b * a.s_q_b + h * a.s_q_h + i * a.s_q_t;
                double mx = -INFINITY, sum = 0;
                for (int j = 0; j < s->Lk; j++) {
                    const float *kj = k + b * a.s_k_b + h * a.s_k_h + j * a.s_k_t;
                    double dot = 0;
                    for (int e = 0; e < s->D; e++) dot += (double)qi[e] * kj[e];
                    w[j] = dot * scale;
                    mx = w[j] > mx ? w[j] : mx;
                }
                for (int j = 0; j < s->Lk; j++) sum += (w[j] = exp(w[j] - mx));
                for (int e = 0; e < s->Dv; e++) {
                    double acc = 0;
                    for (int j = 0; j < s->Lk; j++) acc += w[j] * v[b * a.s_v_b + h * a.s_v_h + j * a.s_v_t + e];
                    const double want = acc / sum, got = o[b * a.s_o_b + h * a.s_o_h + i * a.s_o_t + e];
                    bad += !(fabs(got - want) <= 1e-5 * (1.0 + fabs(want)));
                }
            }
    free(w);
    return bad;
}

static const struct ot_op OP_ATTN = {"attention", at_setup, at_call, at_check, AT_GPU_HOOKS};

#define F OT_FLOATS
#define B OT_BENCH
#define G OT_GPU_ONLY
#define T &TOL_ATTN

/* p = {shape, reference rows (sampled output: 3 blocks), q misaligned}, f = {q amplitude} */
const struct ot_row ot_rows_attn[] = {
    {&OP_ATTN, "memattn_cross", F, 0, T, B, {S_MEM_CROSS, 24, 0}, {1}},
    {&OP_ATTN, "memattn_self", F, 0, T, B, {S_MEM_SELF, 48, 0}, {2}},
    {&OP_ATTN, "edgetam_cross", F, 0, T, B, {S_EDGETAM_CROSS, 48, 0}, {2}},
    {&OP_ATTN, "memattn_cross_1mem", F, 0, T, G, {S_MEM_CROSS_1MEM, 24, 0}, {2}},
    {&OP_ATTN, "hiera_global_t", F, 0, T, B | G, {S_GLOBAL_T, 48, 0}, {2}},
    {&OP_ATTN, "hiera_global_bp", F, 0, T, B, {S_GLOBAL_BP, 24, 0}, {2}},
    {&OP_ATTN, "hiera_global_l", F, 0, T, B | G, {S_GLOBAL_L, 24, 0}, {2}},
    {&OP_ATTN, "hiera_wave_bp", F, 0, T, B | G, {S_WAVE_BP, 24, 0}, {2}},
    {&OP_ATTN, "hiera_win14_t", F, 0, T, B, {S_WIN14_T, 0, 0}, {2}},
    {&OP_ATTN, "hiera_win_qpool_t", F, 0, T, B | G, {S_WIN_QPOOL_T, 0, 0}, {2}},
    {&OP_ATTN, "hiera_win8_t", F, 0, T, B | G, {S_WIN8_T, 0, 0}, {2}},
    {&OP_ATTN, "hiera_win14_bp", F, 0, T, G, {S_WIN14_BP, 0, 0}, {2}},
    {&OP_ATTN, "hiera_win16_l", F, 0, T, G, {S_WIN16_L, 0, 0}, {2}},
    {&OP_ATTN, "hiera_win7_odd", F, 0, T, 0, {S_WIN7_ODD, 0, 0}, {2}},
    {&OP_ATTN, "dec_self", F, 0, T, 0, {S_DEC_SELF, 0, 0}, {2}},
    {&OP_ATTN, "dec_t2i", F, 0, T, B, {S_DEC_T2I, 0, 0}, {2}},
    {&OP_ATTN, "dec_i2t", F, 0, T, B, {S_DEC_I2T, 0, 0}, {2}},
    {&OP_ATTN, "dec_t2i_7tok", F, 0, T, 0, {S_DEC_T2I_7, 0, 0}, {2}},
    {&OP_ATTN, "perc_cross", F, 0, T, B, {S_PERC_CROSS, 0, 0}, {2}},
    {&OP_ATTN, "perc_self", F, 0, T, 0, {S_PERC_SELF, 0, 0}, {2}},
    {&OP_ATTN, "perc_win", F, 0, T, 0, {S_PERC_WIN, 0, 0}, {2}},
    {&OP_ATTN, "odd_17x1000_d40", F, 0, T, 0, {S_ODD_17X1000, 0, 0}, {3}},
    {&OP_ATTN, "odd_1000x17_dv", F, 0, T, 0, {S_ODD_1000X17, 0, 0}, {3}},
    {&OP_ATTN, "odd_8x8_d8", F, 0, T, 0, {S_ODD_8X8, 0, 0}, {1}},
    {&OP_ATTN, "odd_d20_scalar", F, 0, T, 0, {S_ODD_D20, 0, 0}, {2}},
    {&OP_ATTN, "odd_misaligned", F, 0, T, 0, {S_ODD_MISALIGNED, 0, 1}, {2}},
    {&OP_ATTN, "odd_d200", F, 0, T, 0, {S_ODD_D200, 0, 0}, {1}},
    {&OP_ATTN, "odd_tail_d72", F, 0, T, 0, {S_TAIL_D72, 0, 0}, {2}},
    {&OP_ATTN, "odd_tail_d96", F, 0, T, 0, {S_TAIL_D96, 0, 0}, {2}},
    {&OP_ATTN, "odd_wide_d56", F, 0, T, 0, {S_WIDE_D56, 96, 0}, {2}},  /* the tails in the sample */
    {&OP_ATTN, "rope_odd", F, 0, T, 0, {S_ROPE_ODD, 0, 0}, {2}},
    {&OP_ATTN, "one_query_k77", F, 0, T, 0, {S_ONE_Q, 0, 0}, {2}},
    {&OP_ATTN, "split_q5_k3001", F, 0, T, 0, {S_SPLIT_Q5, 0, 0}, {2}},
    {&OP_ATTN, "one_key_dv16", F, 0, T, 0, {S_D32_K1, 0, 0}, {2}},
};
const int ot_n_rows_attn = (int)(sizeof ot_rows_attn / sizeof ot_rows_attn[0]);
