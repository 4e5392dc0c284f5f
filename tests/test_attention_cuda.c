/* test_attention_cuda.c - samrt_attention_cuda against samrt_attention_ref on seeded inputs at
 * the production shapes of SAM 2.1 / EdgeTAM (memory attention with RoPE and pointer keys,
 * EdgeTAM's two-grid RoPE, Hiera global and windowed blocks with bias-padded windows and
 * q-pool, two-way transformer, perceiver) and at odd shapes (lengths 8, 17, 1000, Dv != D,
 * head dims off the 8-multiple, a misaligned q that forces the scalar load path), in f32,
 * f16 and bf16, each without split-K, with the planned split and with a forced split.
 * At large shapes the reference runs on three blocks of query rows only.
 * Outputs are poisoned with NaN bytes first, so an unwritten element fails.
 *
 *   test_attention_cuda [NAME]          correctness (exit 77 without a GPU); NAME keeps the
 *                                       cases whose name contains it
 *   test_attention_cuda --bench [NAME]  BENCH lines for the timed shapes (bf16 and f16; median of
 *                                  CUDA-event-timed repeats after warm-up, L2 flushed), the
 *                                  format kernels/dev/sdpa_bench.py prints for PyTorch SDPA */
#include "attention.h"
#include "rope.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_util.h"

/* |gpu - ref| <= ATOL + RTOL * |ref| per element. f16/bf16: inputs are the same rounded values
 * on both sides; the kernel rounds P to the dtype before P V and both round the output. */
#define TOL_F32_ATOL 2e-5
#define TOL_F32_RTOL 1e-4
#define TOL_F16_ATOL 2e-3
#define TOL_F16_RTOL 5e-3
#define TOL_BF16_ATOL 1.2e-2
#define TOL_BF16_RTOL 2e-2
#define FORCED_SPLIT 3
#define BENCH_WARMUP 3
#define BENCH_REPS 20

enum layout {
    LAYOUT_BHLD,  /* each tensor contiguous (B, H, L, D) */
    LAYOUT_BLHD,  /* each tensor (B, L, H, D): a Linear output viewed as heads */
    LAYOUT_QKV    /* Hiera's fused qkv: (B, L, 3, H, D), q at 0, k at H*D, v at 2*H*D */
};

struct tcase {
    const char *name;
    int B, H, Lq, Lk, D, Dv;     /* Lq, Lk ignored in window mode (ws^2) */
    enum layout layout;
    int rope;                    /* rotate q (tq grid) and k (tk grid, period/skip/n_k) */
    int tq_w, tq_h, tk_w, tk_h, k_period, k_skip, n_k_rope;
    int ws_q, ws_k, qh, qw, kh, kw;  /* windows: ws_q > 0 */
    int check_rows;              /* 0: all rows; else three blocks of check_rows / 3 */
    float amp_q;                 /* q in [-amp, amp]: larger = peakier softmax */
    int q_misalign;              /* q starts one element off 16-byte alignment */
    int bench;
};

static const struct tcase g_cases[] = {
    /* SAM 2.1 memory attention: 7 frames x 4096 + 64 pointer keys, 1 head, d 256 */
    {.name = "memattn_cross", .B = 1, .H = 1, .Lq = 4096, .Lk = 28736, .D = 256, .Dv = 256,
     .layout = LAYOUT_BHLD, .rope = 1, .tq_w = 64, .tq_h = 64, .tk_w = 64, .tk_h = 64,
     .k_period = 4096, .n_k_rope = 28672, .check_rows = 24, .amp_q = 1, .bench = 1},
    {.name = "memattn_self", .B = 1, .H = 1, .Lq = 4096, .Lk = 4096, .D = 256, .Dv = 256,
     .layout = LAYOUT_BHLD, .rope = 1, .tq_w = 64, .tq_h = 64, .tk_w = 64, .tk_h = 64,
     .k_period = 4096, .n_k_rope = 4096, .check_rows = 48, .amp_q = 2, .bench = 1},
    /* EdgeTAM cross: 7 x 512 (256 unrotated + 256 on a 16x16 grid) + 64 pointers */
    {.name = "edgetam_cross", .B = 1, .H = 1, .Lq = 4096, .Lk = 3648, .D = 256, .Dv = 256,
     .layout = LAYOUT_BHLD, .rope = 1, .tq_w = 64, .tq_h = 64, .tk_w = 16, .tk_h = 16,
     .k_period = 512, .k_skip = 256, .n_k_rope = 3584, .check_rows = 48, .amp_q = 2, .bench = 1},
    /* Hiera global blocks at 64x64 (tiny/small d 96, base_plus d 56, large d 72) */
    {.name = "hiera_global_t", .B = 1, .H = 4, .Lq = 4096, .Lk = 4096, .D = 96, .Dv = 96,
     .layout = LAYOUT_QKV, .check_rows = 48, .amp_q = 2, .bench = 1},
    {.name = "hiera_global_bp", .B = 1, .H = 8, .Lq = 4096, .Lk = 4096, .D = 56, .Dv = 56,
     .layout = LAYOUT_QKV, .check_rows = 24, .amp_q = 2, .bench = 1},
    {.name = "hiera_global_l", .B = 1, .H = 8, .Lq = 4096, .Lk = 4096, .D = 72, .Dv = 72,
     .layout = LAYOUT_QKV, .check_rows = 24, .amp_q = 2, .bench = 1},
    /* base_plus with 6 heads: one wave of 96 wide tiles or two of 192 narrow ones on 132 SMs,
     * the time of a 256-row tile over a 128-row one (attention_plan.c's WIDE_COST) */
    {.name = "hiera_wave_bp", .B = 1, .H = 6, .Lq = 4096, .Lk = 4096, .D = 56, .Dv = 56,
     .layout = LAYOUT_QKV, .check_rows = 24, .amp_q = 2, .bench = 1},
    /* Hiera windowed: stage 3 ws 14 at 64x64 (pad 6), q-pool block 10 (q 32x32/7 over
     * k 64x64/14), stage 1 ws 8 at 256x256, base_plus d 56, large ws 16 d 72 */
    {.name = "hiera_win14_t", .B = 1, .H = 4, .D = 96, .Dv = 96, .layout = LAYOUT_QKV,
     .ws_q = 14, .ws_k = 14, .qh = 64, .qw = 64, .kh = 64, .kw = 64, .amp_q = 2, .bench = 1},
    {.name = "hiera_win_qpool_t", .B = 1, .H = 8, .D = 96, .Dv = 96, .layout = LAYOUT_QKV,
     .ws_q = 7, .ws_k = 14, .qh = 32, .qw = 32, .kh = 64, .kw = 64, .amp_q = 2, .bench = 1},
    {.name = "hiera_win8_t", .B = 1, .H = 1, .D = 96, .Dv = 96, .layout = LAYOUT_QKV,
     .ws_q = 8, .ws_k = 8, .qh = 256, .qw = 256, .kh = 256, .kw = 256, .amp_q = 2, .bench = 1},
    {.name = "hiera_win14_bp", .B = 1, .H = 2, .D = 56, .Dv = 56, .layout = LAYOUT_QKV,
     .ws_q = 14, .ws_k = 14, .qh = 64, .qw = 64, .kh = 64, .kw = 64, .amp_q = 2},
    {.name = "hiera_win16_l", .B = 1, .H = 2, .D = 72, .Dv = 72, .layout = LAYOUT_QKV,
     .ws_q = 16, .ws_k = 16, .qh = 64, .qw = 64, .kh = 64, .kw = 64, .amp_q = 2},
    {.name = "hiera_win7_odd", .B = 2, .H = 2, .D = 96, .Dv = 96, .layout = LAYOUT_QKV,
     .ws_q = 7, .ws_k = 7, .qh = 30, .qw = 19, .kh = 30, .kw = 19, .amp_q = 2},
    /* two-way transformer: self (d 32), token->image and image->token (128 / 8 heads = 16) */
    {.name = "dec_self", .B = 1, .H = 8, .Lq = 8, .Lk = 8, .D = 32, .Dv = 32,
     .layout = LAYOUT_BLHD, .amp_q = 2},
    {.name = "dec_t2i", .B = 1, .H = 8, .Lq = 8, .Lk = 4096, .D = 16, .Dv = 16,
     .layout = LAYOUT_BLHD, .amp_q = 2, .bench = 1},
    {.name = "dec_i2t", .B = 1, .H = 8, .Lq = 4096, .Lk = 8, .D = 16, .Dv = 16,
     .layout = LAYOUT_BLHD, .amp_q = 2, .bench = 1},
    /* EdgeTAM perceiver: 256 latents over 4096 pixels, latent self-attention, and the
     * window pass (one latent per 4x4 window) through the window mapping */
    {.name = "perc_cross", .B = 1, .H = 1, .Lq = 256, .Lk = 4096, .D = 64, .Dv = 64,
     .layout = LAYOUT_BLHD, .amp_q = 2, .bench = 1},
    {.name = "perc_self", .B = 1, .H = 1, .Lq = 256, .Lk = 256, .D = 64, .Dv = 64,
     .layout = LAYOUT_BLHD, .amp_q = 2},
    {.name = "perc_win", .B = 1, .H = 1, .D = 64, .Dv = 64, .layout = LAYOUT_BLHD,
     .ws_q = 1, .ws_k = 4, .qh = 16, .qw = 16, .kh = 64, .kw = 64, .amp_q = 2},
    /* odd shapes */
    {.name = "odd_17x1000_d40", .B = 2, .H = 3, .Lq = 17, .Lk = 1000, .D = 40, .Dv = 40,
     .layout = LAYOUT_BHLD, .amp_q = 3},
    {.name = "odd_1000x17_dv", .B = 1, .H = 2, .Lq = 1000, .Lk = 17, .D = 24, .Dv = 48,
     .layout = LAYOUT_BLHD, .amp_q = 3},
    {.name = "odd_8x8_d8", .B = 3, .H = 1, .Lq = 8, .Lk = 8, .D = 8, .Dv = 8,
     .layout = LAYOUT_BHLD, .amp_q = 1},
    {.name = "odd_d20_scalar", .B = 1, .H = 2, .Lq = 33, .Lk = 77, .D = 20, .Dv = 12,
     .layout = LAYOUT_BHLD, .amp_q = 2},
    {.name = "odd_misaligned", .B = 1, .H = 2, .Lq = 130, .Lk = 300, .D = 64, .Dv = 64,
     .layout = LAYOUT_BHLD, .amp_q = 2, .q_misalign = 1},
    {.name = "odd_d200", .B = 1, .H = 1, .Lq = 129, .Lk = 517, .D = 200, .Dv = 200,
     .layout = LAYOUT_BLHD, .amp_q = 1},
    /* head dims 72 and 96 outside windows: on sm_90a a 64-column block plus a 16- / 32-column
     * tail block, both through TMA, with partial q and k tiles and two batches */
    {.name = "odd_tail_d72", .B = 2, .H = 2, .Lq = 200, .Lk = 333, .D = 72, .Dv = 72,
     .layout = LAYOUT_QKV, .amp_q = 2},
    {.name = "odd_tail_d96", .B = 1, .H = 3, .Lq = 130, .Lk = 259, .D = 96, .Dv = 96,
     .layout = LAYOUT_BHLD, .amp_q = 2},
    /* head dim 56 as base_plus, partial q and k tiles: the wide tile (forced) on sm_90a */
    {.name = "odd_wide_d56", .B = 2, .H = 3, .Lq = 1000, .Lk = 1100, .D = 56, .Dv = 56,
     .layout = LAYOUT_QKV, .amp_q = 2},
    {.name = "rope_odd", .B = 2, .H = 2, .Lq = 100, .Lk = 333, .D = 32, .Dv = 32,
     .layout = LAYOUT_BHLD, .rope = 1, .tq_w = 10, .tq_h = 10, .tk_w = 10, .tk_h = 10,
     .k_period = 110, .k_skip = 10, .n_k_rope = 300, .amp_q = 2},
};

/* ---- one case: buffers, params ------------------------------------------------------- */

struct setup {
    struct samrt_attention_params p;    /* pointers into the device buffers */
    void *h_q, *h_kv, *h_v, *h_o, *h_pad; /* host buffers (dtype storage) */
    void *d_q, *d_kv, *d_v, *d_o, *d_pad, *d_ws;
    float *h_tq, *h_tk, *d_tq, *d_tk;
    size_t n_q, n_kv, n_v, n_o, n_pad;    /* elements (n_q includes the misalignment) */
    int64_t q_off, k_off, v_off;          /* element offsets of q, k, v in their buffers */
};

static int win_mode(const struct tcase *c) { return c->ws_q > 0; }
static int lq_of(const struct tcase *c) { return win_mode(c) ? c->ws_q * c->ws_q : c->Lq; }
static int lk_of(const struct tcase *c) { return win_mode(c) ? c->ws_k * c->ws_k : c->Lk; }
static int64_t tq_of(const struct tcase *c) { return win_mode(c) ? (int64_t)c->qh * c->qw : c->Lq; }
static int64_t tk_of(const struct tcase *c) { return win_mode(c) ? (int64_t)c->kh * c->kw : c->Lk; }

/* Strides of a (B, H, T, d) tensor in the given layout; per_tok = channels per token. */
static void strides(enum layout l, int H, int64_t T, int d, int64_t per_tok, int64_t *s_b, int64_t *s_h,
                    int64_t *s_t) {
    if (l == LAYOUT_BHLD) {
        *s_t = d; *s_h = T * d; *s_b = (int64_t)H * T * d;
    } else {
        *s_t = per_tok; *s_h = d; *s_b = T * per_tok;
    }
}

static void *dev_copy(const void *h, size_t bytes) {
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 16) != cudaSuccess) return NULL;
    if (h) cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    return d;
}

static void *host_rand(enum samrt_dtype dt, size_t n, uint64_t seed, float amp) {
    float *f = malloc(n * sizeof(float));
    void *h = malloc(n * samrt_dtype_size(dt));
    tu_fill_uniform(f, (long)n, seed, -amp, amp);
    tu_store(dt, h, f, (long)n);
    free(f);
    return h;
}

static int setup_case(const struct tcase *c, enum samrt_dtype dt, struct setup *s) {
    memset(s, 0, sizeof(*s));
    const size_t esz = samrt_dtype_size(dt);
    const int H = c->H, D = c->D, Dv = c->Dv;
    const int64_t Tq = tq_of(c), Tk = tk_of(c);
    struct samrt_attention_params *p = &s->p;
    p->dtype = dt;
    p->n_batch = c->B; p->n_head = H; p->n_q = lq_of(c); p->n_k = lk_of(c); p->d_qk = D; p->d_v = Dv;
    /* k and v: fused qkv shares one buffer (q from it too when the maps agree) */
    const int fused = c->layout == LAYOUT_QKV;
    const int q_in_kv = fused && Tq == Tk;
    const int64_t kv_tok = fused ? 3LL * H * D : (int64_t)H * D;
    strides(c->layout, H, Tk, D, kv_tok, &p->s_k_b, &p->s_k_h, &p->s_k_t);
    strides(c->layout, H, Tk, Dv, fused ? kv_tok : (int64_t)H * Dv, &p->s_v_b, &p->s_v_h, &p->s_v_t);
    strides(q_in_kv ? LAYOUT_QKV : (c->layout == LAYOUT_QKV ? LAYOUT_BLHD : c->layout), H, Tq, D,
            q_in_kv ? kv_tok : (int64_t)H * D, &p->s_q_b, &p->s_q_h, &p->s_q_t);
    strides(c->layout == LAYOUT_BHLD ? LAYOUT_BHLD : LAYOUT_BLHD, H, Tq, Dv, (int64_t)H * Dv, &p->s_o_b,
            &p->s_o_h, &p->s_o_t);
    s->n_kv = (size_t)c->B * Tk * (fused ? 3 * H * D : H * D);
    s->n_v = fused ? 0 : (size_t)c->B * Tk * H * Dv;
    s->n_q = q_in_kv ? 0 : (size_t)c->B * Tq * H * D + (c->q_misalign ? 1 : 0);
    s->n_o = (size_t)c->B * Tq * H * Dv;
    s->k_off = fused ? H * D : 0;
    s->v_off = fused ? 2 * H * D : 0;
    s->q_off = c->q_misalign ? 1 : 0;
    s->h_kv = host_rand(dt, s->n_kv, 101, 1.0f);
    s->h_v = s->n_v ? host_rand(dt, s->n_v, 102, 1.0f) : NULL;
    s->h_q = s->n_q ? host_rand(dt, s->n_q, 103, c->amp_q) : NULL;
    if (q_in_kv && c->amp_q != 1.0f) {  /* rescale the q slots of the fused buffer */
        float *f = malloc(s->n_kv * sizeof(float));
        tu_load(dt, f, s->h_kv, (long)s->n_kv);
        for (size_t i = 0; i < s->n_kv; i++)
            if ((i % kv_tok) < (size_t)H * D) f[i] *= c->amp_q;
        tu_store(dt, s->h_kv, f, (long)s->n_kv);
        free(f);
    }
    s->h_o = malloc(s->n_o * esz);
    s->d_kv = dev_copy(s->h_kv, s->n_kv * esz);
    s->d_v = s->n_v ? dev_copy(s->h_v, s->n_v * esz) : NULL;
    s->d_q = s->n_q ? dev_copy(s->h_q, s->n_q * esz) : NULL;
    s->d_o = dev_copy(NULL, s->n_o * esz);
    if (!s->d_kv || !s->d_o || (s->n_v && !s->d_v) || (s->n_q && !s->d_q)) return 0;
    if (win_mode(c)) {
        s->n_pad = (size_t)H * D * 2;  /* pad_k rows then pad_v rows, head stride D */
        s->h_pad = host_rand(dt, s->n_pad, 104, 1.0f);
        s->d_pad = dev_copy(s->h_pad, s->n_pad * esz);
        if (!s->d_pad) return 0;
        p->win.size_q = c->ws_q; p->win.size_k = c->ws_k;
        p->win.q_h = c->qh; p->win.q_w = c->qw; p->win.k_h = c->kh; p->win.k_w = c->kw;
        p->win.s_pad_h = D;
    }
    if (c->rope) {
        const size_t nq = samrt_rope_table_floats(D, c->tq_w, c->tq_h);
        const size_t nk = samrt_rope_table_floats(D, c->tk_w, c->tk_h);
        s->h_tq = malloc(nq * sizeof(float));
        s->h_tk = malloc(nk * sizeof(float));
        if (samrt_rope_table_fill(s->h_tq, D, c->tq_w, c->tq_h, 10000.0f) != SAMRT_OK ||
            samrt_rope_table_fill(s->h_tk, D, c->tk_w, c->tk_h, 10000.0f) != SAMRT_OK)
            return 0;
        s->d_tq = dev_copy(s->h_tq, nq * sizeof(float));
        s->d_tk = dev_copy(s->h_tk, nk * sizeof(float));
        if (!s->d_tq || !s->d_tk) return 0;
        p->rope.k_period = c->k_period; p->rope.k_skip = c->k_skip; p->rope.n_k = c->n_k_rope;
    }
    return 1;
}

/* Point p at host (ref) or device buffers. */
static void bind(struct setup *s, int device, enum samrt_dtype dt) {
    const size_t esz = samrt_dtype_size(dt);
    char *kv = device ? s->d_kv : s->h_kv;
    char *q = s->n_q ? (char *)(device ? s->d_q : s->h_q) : kv;
    char *v = s->n_v ? (char *)(device ? s->d_v : s->h_v) : kv;
    s->p.q = q + s->q_off * esz;
    s->p.k = kv + s->k_off * esz;
    s->p.v = v + s->v_off * esz;
    s->p.o = device ? s->d_o : s->h_o;
    if (s->n_pad) {
        char *pad = device ? s->d_pad : s->h_pad;
        s->p.win.pad_k = pad;
        s->p.win.pad_v = pad + (size_t)s->p.n_head * s->p.d_qk * esz;
    }
    if (s->h_tq) {
        s->p.rope.q = device ? s->d_tq : s->h_tq;
        s->p.rope.k = device ? s->d_tk : s->h_tk;
    }
}

static void free_setup(struct setup *s) {
    void *hs[] = {s->h_q, s->h_kv, s->h_v, s->h_o, s->h_pad, s->h_tq, s->h_tk};
    void *ds[] = {s->d_q, s->d_kv, s->d_v, s->d_o, s->d_pad, s->d_ws, s->d_tq, s->d_tk};
    for (size_t i = 0; i < sizeof(hs) / sizeof(hs[0]); i++) free(hs[i]);
    for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) cudaFree(ds[i]);
}

/* Workspace for the current p (grown as needed). */
static int ensure_ws(struct setup *s, size_t *cap) {
    const size_t need = samrt_attention_workspace_size(&s->p);
    if (need > *cap) {
        cudaFree(s->d_ws);
        s->d_ws = NULL;
        if (cudaMalloc(&s->d_ws, need) != cudaSuccess) return 0;
        *cap = need;
    }
    s->p.workspace = s->d_ws;
    s->p.workspace_bytes = *cap;
    return 1;
}

/* Query rows the reference computes: all, or three blocks (start, middle, end). */
static int row_blocks(const struct tcase *c, int *start, int *len) {
    const int lq = lq_of(c);
    if (!c->check_rows || win_mode(c) || c->check_rows >= lq) {
        start[0] = 0; len[0] = lq;
        return 1;
    }
    const int n = c->check_rows / 3;
    start[0] = 0; start[1] = lq / 2 - n / 2; start[2] = lq - n;
    len[0] = len[1] = len[2] = n;
    return 3;
}

/* Reference output into s->h_o (NaN where not computed). */
static int run_ref(const struct tcase *c, struct setup *s, enum samrt_dtype dt) {
    const size_t esz = samrt_dtype_size(dt);
    memset(s->h_o, 0xff, s->n_o * esz);
    bind(s, 0, dt);
    int start[3], len[3];
    const int nb = row_blocks(c, start, len);
    for (int i = 0; i < nb; i++) {
        struct samrt_attention_params r = s->p;
        r.n_q = len[i];
        r.q = (const char *)s->p.q + (size_t)start[i] * s->p.s_q_t * esz;
        r.o = (char *)s->p.o + (size_t)start[i] * s->p.s_o_t * esz;
        if (r.rope.q) r.rope.q += (size_t)start[i] * c->D;
        if (samrt_attention_ref(&r) != SAMRT_OK) return 0;
    }
    return 1;
}

/* Offset of output element (b, h, token, ch); window mode: token indexes the q map. */
static int64_t o_index(const struct samrt_attention_params *p, int b, int h, int64_t tok, int ch) {
    return b * p->s_o_b + h * p->s_o_h + tok * p->s_o_t + ch;
}

static void tolerances(enum samrt_dtype dt, double *atol, double *rtol) {
    if (dt == SAMRT_DTYPE_F32) { *atol = TOL_F32_ATOL; *rtol = TOL_F32_RTOL; }
    else if (dt == SAMRT_DTYPE_F16) { *atol = TOL_F16_ATOL; *rtol = TOL_F16_RTOL; }
    else { *atol = TOL_BF16_ATOL; *rtol = TOL_BF16_RTOL; }
}

/* GPU run with n_split, compared with the reference already in ref_o. */
static void run_gpu_and_compare(const struct tcase *c, struct setup *s, enum samrt_dtype dt, int n_split,
                                const void *ref_o, size_t *ws_cap) {
    const size_t esz = samrt_dtype_size(dt);
    char what[160];
    s->p.n_split = n_split;
    snprintf(what, sizeof(what), "%s %s split %d tile %dx%d wide %d", c->name, samrt_dtype_name(dt), n_split,
             s->p.block_q, s->p.block_k, samrt_attention_wide_tiles(&s->p));
    bind(s, 1, dt);
    CHECK_MSG(ensure_ws(s, ws_cap), "%s: workspace", what);
    cudaMemset(s->d_o, 0xff, s->n_o * esz);  /* NaN poison */
    enum samrt_status st = samrt_attention_cuda(&s->p, 0);
    CHECK_MSG(st == SAMRT_OK, "%s: status %s", what, samrt_status_str(st));
    cudaError_t ce = cudaDeviceSynchronize();
    CHECK_MSG(ce == cudaSuccess, "%s: %s", what, cudaGetErrorString(ce));
    if (st != SAMRT_OK || ce != cudaSuccess) return;
    void *got = malloc(s->n_o * esz);
    cudaMemcpy(got, s->d_o, s->n_o * esz, cudaMemcpyDeviceToHost);
    float *g = malloc(s->n_o * sizeof(float)), *r = malloc(s->n_o * sizeof(float));
    float *gg = malloc(s->n_o * sizeof(float)), *rr = malloc(s->n_o * sizeof(float));
    tu_load(dt, g, got, (long)s->n_o);
    tu_load(dt, r, ref_o, (long)s->n_o);
    long n = 0, unwritten = 0;
    double err2 = 0, ref2 = 0;
    const int64_t T = tq_of(c);
    for (int b = 0; b < c->B; b++)
        for (int h = 0; h < c->H; h++)
            for (int64_t t = 0; t < T; t++)
                for (int ch = 0; ch < c->Dv; ch++) {
                    const int64_t i = o_index(&s->p, b, h, t, ch);
                    if (isnan(g[i])) unwritten++;
                    if (isnan(r[i])) continue;  /* row not computed by the reference */
                    gg[n] = g[i]; rr[n] = r[i]; n++;
                    err2 += ((double)g[i] - r[i]) * ((double)g[i] - r[i]);
                    ref2 += (double)r[i] * r[i];
                }
    CHECK_MSG(unwritten == 0, "%s: %ld output elements unwritten", what, unwritten);
    CHECK_MSG(n > 0, "%s: nothing compared", what);
    double atol, rtol;
    tolerances(dt, &atol, &rtol);
    check_close_f32(what, gg, rr, n, atol, rtol);
    printf("  %-20s %-4s split %-3d compared %8ld  nmse %.3g\n", c->name, samrt_dtype_name(dt),
           samrt_attention_n_split_effective(&s->p), n, ref2 > 0 ? err2 / ref2 : err2);
    free(got); free(g); free(r); free(gg); free(rr);
}

/* Every tile shape the f16 / bf16 override allows ({block_q, block_k}). */
static const int g_tiles[4][2] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}};

static void test_case(const struct tcase *c, enum samrt_dtype dt, int sm_count) {
    struct setup s;
    size_t ws_cap = 0;
    if (!setup_case(c, dt, &s)) {
        CHECK_MSG(0, "%s: setup failed", c->name);
        free_setup(&s);
        return;
    }
    bind(&s, 0, dt);
    CHECK_STATUS(samrt_attention_check(&s.p), SAMRT_OK);
    CHECK_MSG(run_ref(c, &s, dt), "%s: reference failed", c->name);
    void *ref_o = malloc(s.n_o * samrt_dtype_size(dt));
    memcpy(ref_o, s.h_o, s.n_o * samrt_dtype_size(dt));
    s.p.sm_count = sm_count;  /* the wide plan where it is chosen */
    /* no split, the planned split, a forced split: each distinct launched count once */
    const int splits[3] = {1, samrt_attention_split_count(&s.p, sm_count), FORCED_SPLIT};
    int done[3], n_done = 0;
    for (int i = 0; i < 3; i++) {
        s.p.n_split = splits[i];
        const int eff = samrt_attention_n_split_effective(&s.p);
        int seen = 0;
        for (int j = 0; j < n_done; j++) seen |= done[j] == eff;
        if (seen) continue;
        done[n_done++] = eff;
        run_gpu_and_compare(c, &s, dt, splits[i], ref_o, &ws_cap);
    }
    /* f16 / bf16: every tile shape once (no split), whichever the planner picks today */
    for (int t = 0; t < 4 && dt != SAMRT_DTYPE_F32; t++) {
        s.p.block_q = g_tiles[t][0];
        s.p.block_k = g_tiles[t][1];
        run_gpu_and_compare(c, &s, dt, 1, ref_o, &ws_cap);
    }
    /* the wide tile forced where it applies (sm_90a; elsewhere it runs 128-row tiles) */
    s.p.block_q = 256;
    s.p.block_k = 0;
    s.p.n_split = 1;
    if (dt != SAMRT_DTYPE_F32 && samrt_attention_wide_tiles(&s.p) > 0)
        run_gpu_and_compare(c, &s, dt, 1, ref_o, &ws_cap);
    s.p.block_q = s.p.block_k = 0;
    free(ref_o);
    free_setup(&s);
}

/* The RoPE kernel alone, in place, with the periodic layout. */
static void test_rope_kernel(enum samrt_dtype dt) {
    enum { B = 2, H = 3, L = 50, D = 16 };
    float tab[5 * 4 * D];
    CHECK_STATUS(samrt_rope_table_fill(tab, D, 5, 4, 10000.0f), SAMRT_OK);
    const size_t n = (size_t)B * H * L * D, esz = samrt_dtype_size(dt);
    void *x = host_rand(dt, n, 7, 3.0f), *want = malloc(n * esz), *got = malloc(n * esz);
    struct samrt_rope_params r = {dt, B, H, L, D, x, H * L * D, L * D, D, want, H * L * D, L * D, D,
                                  tab, 23, 3, 46};
    CHECK_STATUS(samrt_rope_apply_ref(&r), SAMRT_OK);
    void *dx = dev_copy(x, n * esz), *dtab = dev_copy(tab, sizeof(tab));
    r.src = dx; r.dst = dx; r.table = dtab;
    CHECK_STATUS(samrt_rope_apply_cuda(&r, 0), SAMRT_OK);
    cudaMemcpy(got, dx, n * esz, cudaMemcpyDeviceToHost);
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
    tu_load(dt, a, got, (long)n);
    tu_load(dt, b, want, (long)n);
    /* fp32 maths on both sides; contraction into FMA may move the last bit before rounding */
    check_close_f32("rope kernel", a, b, (long)n, dt == SAMRT_DTYPE_F32 ? 1e-6 : 1e-2,
                    dt == SAMRT_DTYPE_F32 ? 1e-6 : 8e-3);
    free(x); free(want); free(got); free(a); free(b);
    cudaFree(dx); cudaFree(dtab);
}

/* ---- benchmark --------------------------------------------------------------------------- */

/* The portable kernel runs (no sm_90 device, or SAMRT_ATTENTION_PORTABLE=1): bench labels. */
static int g_portable;

static int cmp_float(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int case_problems(const struct tcase *c) {
    if (!win_mode(c)) return c->B * c->H;
    return c->B * c->H * ((c->kh + c->ws_k - 1) / c->ws_k) * ((c->kw + c->ws_k - 1) / c->ws_k);
}

/* QK^T and PV multiply-adds x 2; window mode counts padded rows as SDPA on windows does */
static double case_flops(const struct tcase *c) {
    return 2.0 * case_problems(c) * lq_of(c) * lk_of(c) * (c->D + c->Dv);
}

/* One BENCH line; tile = {block_q, block_k} forces the tile shape ({0, 0}: the planner's) and
 * labels the line op=tile (the sweep over tile shapes) instead of op=attention. */
static void bench_case(const struct tcase *c, enum samrt_dtype dt, int sm_count, int rope, int force_split,
                       const int tile[2], void *flush, size_t flush_bytes) {
    struct setup s;
    size_t ws_cap = 0;
    if (!setup_case(c, dt, &s)) {
        free_setup(&s);
        return;
    }
    bind(&s, 1, dt);
    if (!rope) memset(&s.p.rope, 0, sizeof(s.p.rope));
    s.p.block_q = tile[0];
    s.p.block_k = tile[1];
    s.p.sm_count = sm_count;
    s.p.n_split = force_split ? force_split : samrt_attention_split_count(&s.p, sm_count);
    const int wide = samrt_attention_wide_tiles(&s.p);
    if (!ensure_ws(&s, &ws_cap)) {
        free_setup(&s);
        return;
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float ms[BENCH_REPS];
    int ok = 1;
    for (int i = 0; i < BENCH_WARMUP + BENCH_REPS && ok; i++) {
        cudaMemsetAsync(flush, i, flush_bytes, 0);  /* evict K/V from L2 */
        cudaEventRecord(e0, 0);
        ok = samrt_attention_cuda(&s.p, 0) == SAMRT_OK;
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        if (i >= BENCH_WARMUP) cudaEventElapsedTime(&ms[i - BENCH_WARMUP], e0, e1);
    }
    if (ok && cudaGetLastError() == cudaSuccess) {
        qsort(ms, BENCH_REPS, sizeof(float), cmp_float);
        const double med = 0.5 * (ms[BENCH_REPS / 2 - 1] + ms[BENCH_REPS / 2]);
        struct samrt_attention_config cfg;
        samrt_attention_configure(&s.p, &cfg);
        /* the tile launched: on sm_90a (not under SAMRT_ATTENTION_PORTABLE=1) the wide one where
         * samrt_attention_wide_tiles gives a count */
        printf("BENCH op=%s shape=%s:P%dxLq%dxLk%dxD%d dtype=%s ms=%.4f TFLOPs=%.1f split=%d rope=%d tile=%dx%d\n",
               tile[0] ? "tile" : "attention", c->name, case_problems(c), lq_of(c), lk_of(c), c->D,
               samrt_dtype_name(dt), med, case_flops(c) / (med * 1e9), samrt_attention_n_split_effective(&s.p),
               rope && c->rope, wide && !g_portable ? 256 : cfg.block_q, wide && !g_portable ? 64 : cfg.block_k);
    } else {
        printf("BENCH op=attention shape=%s FAILED\n", c->name);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    free_setup(&s);
}

static int selected(const struct tcase *c, const char *filter) {
    return !filter || strstr(c->name, filter) != NULL;
}

static int run_bench(int sm_count, const char *filter) {
    const size_t flush_bytes = 256u << 20;
    void *flush = NULL;
    if (cudaMalloc(&flush, flush_bytes) != cudaSuccess) return 1;
    const enum samrt_dtype dts[2] = {SAMRT_DTYPE_BF16, SAMRT_DTYPE_F16};
    for (size_t i = 0; i < sizeof(g_cases) / sizeof(g_cases[0]); i++) {
        const struct tcase *c = &g_cases[i];
        if (!c->bench || !selected(c, filter)) continue;
        const int planned[2] = {0, 0};
        for (int d = 0; d < 2; d++) {
            bench_case(c, dts[d], sm_count, 0, 0, planned, flush, flush_bytes);
            if (c->rope) bench_case(c, dts[d], sm_count, 1, 0, planned, flush, flush_bytes);
        }
        /* the long-key problems once more without split-K, to show what the split buys */
        if (!win_mode(c) && c->Lk >= 4096)
            bench_case(c, SAMRT_DTYPE_BF16, sm_count, 0, 1, planned, flush, flush_bytes);
    }
    /* every tile shape on the Hiera blocks (what the planner's choice is measured against) */
    for (size_t i = 0; i < sizeof(g_cases) / sizeof(g_cases[0]); i++) {
        const struct tcase *c = &g_cases[i];
        if (!c->bench || !selected(c, filter) || strncmp(c->name, "hiera", 5) != 0) continue;
        for (int t = 0; t < 4; t++) bench_case(c, SAMRT_DTYPE_BF16, sm_count, 0, 0, g_tiles[t], flush, flush_bytes);
        const int wide_tile[2] = {256, 0};
        if (c->D > 32 && c->D <= 64 && !win_mode(c))
            bench_case(c, SAMRT_DTYPE_BF16, sm_count, 0, 0, wide_tile, flush, flush_bytes);
    }
    cudaFree(flush);
    return 0;
}

int main(int argc, char **argv) {
    char why[256];
    if (!tu_have_gpu(why, sizeof(why))) return check_skip("test_attention_cuda", why);
    int sm_count = 0, major = 0;
    cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    if (major < 8) return check_skip("test_attention_cuda", "the tensor-core path needs sm_80 or later");
    const char *portable = getenv("SAMRT_ATTENTION_PORTABLE");
    g_portable = major != 9 || (portable && portable[0] && portable[0] != '0');
    CHECK_STATUS(samrt_attention_init_cuda(), SAMRT_OK);
    const int bench = argc > 1 && strcmp(argv[1], "--bench") == 0;
    const char *filter = argc > 1 + bench ? argv[1 + bench] : NULL;
    if (bench) return run_bench(sm_count, filter);

    const enum samrt_dtype dts[3] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F16, SAMRT_DTYPE_BF16};
    for (int d = 0; d < 3; d++) test_rope_kernel(dts[d]);
    for (size_t i = 0; i < sizeof(g_cases) / sizeof(g_cases[0]); i++)
        if (selected(&g_cases[i], filter))
            for (int d = 0; d < 3; d++) test_case(&g_cases[i], dts[d], sm_count);
    return check_report("test_attention_cuda");
}
