/* test_attention_cuda.c - the attention benchmark: samrt_attention_cuda timed at the
 * production shapes of SAM 2.1 / EdgeTAM (memory attention with RoPE and pointer keys,
 * EdgeTAM's two-grid RoPE, Hiera global and windowed blocks with bias-padded windows and
 * q-pool, the two-way transformer, the perceiver), with and without RoPE, with the planned
 * split and without split-K, and over every tile shape on the Hiera blocks (what the
 * planner's choice is measured against). Correctness lives in the op table: every shape here
 * and the odd ones, each split and tile variant, on both kernels (test_ops_table_cuda
 * attention/, and test_ops_table_cuda_portable with SAMRT_ATTENTION_PORTABLE=1).
 *
 *   test_attention_cuda --bench [NAME]  BENCH lines for the timed shapes (bf16 and f16; median of
 *                                  CUDA-event-timed repeats after warm-up, L2 flushed), the
 *                                  format kernels/dev/sdpa_bench.py prints for PyTorch SDPA;
 *                                  NAME keeps the shapes whose name contains it. Without
 *                                  --bench (or without a GPU) it says so and exits 77. */
#include "attention.h"
#include "rope.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_util.h"

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
    float amp_q;                 /* q in [-amp, amp]: larger = peakier softmax */
    int q_misalign;              /* q starts one element off 16-byte alignment */
    int bench;
};

static const struct tcase g_cases[] = {
    /* SAM 2.1 memory attention: 7 frames x 4096 + 64 pointer keys, 1 head, d 256 */
    {.name = "memattn_cross", .B = 1, .H = 1, .Lq = 4096, .Lk = 28736, .D = 256, .Dv = 256,
     .layout = LAYOUT_BHLD, .rope = 1, .tq_w = 64, .tq_h = 64, .tk_w = 64, .tk_h = 64,
     .k_period = 4096, .n_k_rope = 28672, .amp_q = 1, .bench = 1},
    {.name = "memattn_self", .B = 1, .H = 1, .Lq = 4096, .Lk = 4096, .D = 256, .Dv = 256,
     .layout = LAYOUT_BHLD, .rope = 1, .tq_w = 64, .tq_h = 64, .tk_w = 64, .tk_h = 64,
     .k_period = 4096, .n_k_rope = 4096, .amp_q = 2, .bench = 1},
    /* EdgeTAM cross: 7 x 512 (256 unrotated + 256 on a 16x16 grid) + 64 pointers */
    {.name = "edgetam_cross", .B = 1, .H = 1, .Lq = 4096, .Lk = 3648, .D = 256, .Dv = 256,
     .layout = LAYOUT_BHLD, .rope = 1, .tq_w = 64, .tq_h = 64, .tk_w = 16, .tk_h = 16,
     .k_period = 512, .k_skip = 256, .n_k_rope = 3584, .amp_q = 2, .bench = 1},
    /* Hiera global blocks at 64x64 (tiny/small d 96, base_plus d 56, large d 72) */
    {.name = "hiera_global_t", .B = 1, .H = 4, .Lq = 4096, .Lk = 4096, .D = 96, .Dv = 96,
     .layout = LAYOUT_QKV, .amp_q = 2, .bench = 1},
    {.name = "hiera_global_bp", .B = 1, .H = 8, .Lq = 4096, .Lk = 4096, .D = 56, .Dv = 56,
     .layout = LAYOUT_QKV, .amp_q = 2, .bench = 1},
    {.name = "hiera_global_l", .B = 1, .H = 8, .Lq = 4096, .Lk = 4096, .D = 72, .Dv = 72,
     .layout = LAYOUT_QKV, .amp_q = 2, .bench = 1},
    /* base_plus with 6 heads: one wave of 96 wide tiles or two of 192 narrow ones on 132 SMs,
     * the time of a 256-row tile over a 128-row one (attention_plan.c's WIDE_COST) */
    {.name = "hiera_wave_bp", .B = 1, .H = 6, .Lq = 4096, .Lk = 4096, .D = 56, .Dv = 56,
     .layout = LAYOUT_QKV, .amp_q = 2, .bench = 1},
    /* Hiera windowed: stage 3 ws 14 at 64x64 (pad 6), q-pool block 10 (q 32x32/7 over
     * k 64x64/14), stage 1 ws 8 at 256x256 */
    {.name = "hiera_win14_t", .B = 1, .H = 4, .D = 96, .Dv = 96, .layout = LAYOUT_QKV,
     .ws_q = 14, .ws_k = 14, .qh = 64, .qw = 64, .kh = 64, .kw = 64, .amp_q = 2, .bench = 1},
    {.name = "hiera_win_qpool_t", .B = 1, .H = 8, .D = 96, .Dv = 96, .layout = LAYOUT_QKV,
     .ws_q = 7, .ws_k = 14, .qh = 32, .qw = 32, .kh = 64, .kw = 64, .amp_q = 2, .bench = 1},
    {.name = "hiera_win8_t", .B = 1, .H = 1, .D = 96, .Dv = 96, .layout = LAYOUT_QKV,
     .ws_q = 8, .ws_k = 8, .qh = 256, .qw = 256, .kh = 256, .kw = 256, .amp_q = 2, .bench = 1},
    /* two-way transformer: token->image and image->token (128 / 8 heads = 16) */
    {.name = "dec_t2i", .B = 1, .H = 8, .Lq = 8, .Lk = 4096, .D = 16, .Dv = 16,
     .layout = LAYOUT_BLHD, .amp_q = 2, .bench = 1},
    {.name = "dec_i2t", .B = 1, .H = 8, .Lq = 4096, .Lk = 8, .D = 16, .Dv = 16,
     .layout = LAYOUT_BLHD, .amp_q = 2, .bench = 1},
    /* EdgeTAM perceiver: 256 latents over 4096 pixels */
    {.name = "perc_cross", .B = 1, .H = 1, .Lq = 256, .Lk = 4096, .D = 64, .Dv = 64,
     .layout = LAYOUT_BLHD, .amp_q = 2, .bench = 1},
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

/* Every tile shape the f16 / bf16 override allows ({block_q, block_k}). */
static const int g_tiles[4][2] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}};

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
    if (argc < 2 || strcmp(argv[1], "--bench") != 0)
        return check_skip("test_attention_cuda",
                          "a benchmark: run it with --bench [NAME]; correctness is test_ops_table_cuda attention/");
    if (!tu_have_gpu(why, sizeof(why))) return check_skip("test_attention_cuda", why);
    int sm_count = 0, major = 0;
    cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    if (major < 8) return check_skip("test_attention_cuda", "the tensor-core path needs sm_80 or later");
    const char *portable = getenv("SAMRT_ATTENTION_PORTABLE");
    g_portable = major != 9 || (portable && portable[0] && portable[0] != '0');
    if (samrt_attention_init_cuda() != SAMRT_OK) {
        fprintf(stderr, "test_attention_cuda: samrt_attention_init_cuda failed\n");
        return 1;
    }
    return run_bench(sm_count, argc > 2 ? argv[2] : NULL);
}
