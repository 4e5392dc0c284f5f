/* attention_plan.c - the pure, host-side half of attention: parameter validation, the tile
 * configuration of the CUDA path, the split-K heuristic and the workspace size. Built in
 * every configuration (CPU-only too) because the arena planner needs the workspace size
 * before any GPU exists. The CUDA launcher takes its tile shape from
 * samrt_attention_configure and checks it against the compiled one, so the planner and the
 * kernels cannot disagree silently. Tested by tests/test_attention.c (test_plan). */
#include "attention.h"

#include <math.h>

#include "samrt_impl.h"

static int64_t cdiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int dtype_ok(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F32 || dt == SAMRT_DTYPE_F16 || dt == SAMRT_DTYPE_BF16;
}

int samrt_attention_n_windows(const struct samrt_attention_params *p) {
    if (!p) return 0;
    const struct samrt_attention_window *w = &p->win;
    if (w->size_q <= 0) return 1;
    if (w->size_k <= 0 || w->q_h <= 0 || w->q_w <= 0 || w->k_h <= 0 || w->k_w <= 0) return 0;
    const int64_t ny = cdiv64(w->k_h, w->size_k), nx = cdiv64(w->k_w, w->size_k);
    if (cdiv64(w->q_h, w->size_q) != ny || cdiv64(w->q_w, w->size_q) != nx) return 0;
    if (ny * nx > INT32_MAX) return 0;
    return (int)(ny * nx);
}

enum samrt_status samrt_attention_check(const struct samrt_attention_params *p) {
    if (!p) return SAMRT_E_INVALID_ARG;
    if (!dtype_ok(p->dtype)) return SAMRT_E_UNSUPPORTED;
    if (!p->q || !p->k || !p->v || !p->o) return SAMRT_E_INVALID_ARG;
    if (p->n_batch <= 0 || p->n_head <= 0 || p->n_q <= 0 || p->n_k <= 0) return SAMRT_E_INVALID_ARG;
    if (p->d_qk <= 0 || p->d_v <= 0) return SAMRT_E_INVALID_ARG;
    if (p->d_qk > SAMRT_ATTENTION_MAX_DIM || p->d_v > SAMRT_ATTENTION_MAX_DIM) return SAMRT_E_UNSUPPORTED;
    if (!isfinite(p->scale)) return SAMRT_E_INVALID_ARG;
    if (p->n_split < 0 || p->n_split > 65535) return SAMRT_E_INVALID_ARG;
    if ((p->block_q != 0 && p->block_q != 64 && p->block_q != 128 && p->block_q != 256) ||
        (p->block_k != 0 && p->block_k != 64 && p->block_k != 128))
        return SAMRT_E_INVALID_ARG;
    const struct samrt_attention_rope *r = &p->rope;
    if ((r->q || r->k) && p->d_qk % 2 != 0) return SAMRT_E_INVALID_ARG;
    if (r->k && (r->k_period <= 0 || r->k_skip < 0 || r->k_skip >= r->k_period || r->n_k < 0 ||
                 r->n_k > p->n_k))
        return SAMRT_E_INVALID_ARG;
    if (p->win.size_q > 0) {
        const int n_win = samrt_attention_n_windows(p);
        if (n_win <= 0) return SAMRT_E_INVALID_ARG;
        if ((int64_t)p->win.size_q * p->win.size_q != p->n_q ||
            (int64_t)p->win.size_k * p->win.size_k != p->n_k)
            return SAMRT_E_INVALID_ARG;
        if ((int64_t)p->n_batch * n_win * p->n_head > INT32_MAX) return SAMRT_E_INVALID_ARG;
        if (r->q || r->k) return SAMRT_E_UNSUPPORTED;  /* no model rotates windowed tokens */
    } else if (p->win.size_k != 0) {
        return SAMRT_E_INVALID_ARG;
    }
    if ((int64_t)p->n_batch * p->n_head > INT32_MAX) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

enum samrt_status samrt_attention_configure(const struct samrt_attention_params *p,
                                         struct samrt_attention_config *out) {
    enum samrt_status st = samrt_attention_check(p);
    if (st != SAMRT_OK) return st;
    if (!out) return SAMRT_E_INVALID_ARG;
    const int d_max = SAMRT_MAX(p->d_qk, p->d_v);
    struct samrt_attention_config c = {0};
    if (p->dtype == SAMRT_DTYPE_F32) {
        /* one warp = 4 query rows x 32 keys (a lane per key); K rows padded to an odd
         * stride so lane-parallel reads of one channel hit 32 different banks */
        c.d_pad = d_max;
        c.block_q = 16;
        c.block_k = 32;
        c.n_threads = 128;
        c.ctas_per_sm = 2;
        c.smem_bytes = sizeof(float) * ((size_t)16 * p->d_qk + 32 * (size_t)(p->d_qk | 1) + 32 * (size_t)p->d_v);
    } else {
        /* head dims padded (zero-filled in shared memory) to the instantiated sizes */
        static const int dims[] = {16, 32, 64, 80, 96, 128, 256};
        const int d16 = (int)SAMRT_PAD(d_max, 16);
        int dp = 256;
        for (size_t i = 0; i < SAMRT_ARRAY_LEN(dims); i++)
            if (dims[i] >= d16) { dp = dims[i]; break; }
        c.d_pad = dp;
        /* 64-row CTAs where a problem has no more queries (Hiera windows of 8 and the q-pooled
         * 7x7 ones), so half the rows are not padding */
        c.block_q = p->n_q <= 64 ? 64 : 128;
        /* split granularity, and the key tile of the sm_90a kernel: 128 keys, 64 at d 256
         * (registers: the 64 x 256 fp32 accumulator is 128 per thread) and for short key
         * lists; the decoder head dims stay at 64 so their many-way splits keep their count */
        c.block_k = (dp == 256 || dp <= 32 || p->n_k <= 64) ? 64 : 128;
        if (p->block_q) c.block_q = p->block_q == 256 ? 128 : p->block_q;  /* 256: the wide tile */
        if (p->block_k) c.block_k = p->block_k;
        /* the portable kernel: registers decide the rows per warp, 32 where the 32 x dp fp32
         * accumulator plus the S tile fit in 255 registers without spilling (d <= 96; 32-key
         * tiles at 96), else 16 (d 128, 256: the 16 x 256 accumulator alone is 128 registers) */
        const int warp_rows = dp >= 128 ? 16 : 32, bn = dp == 96 ? 32 : 64;
        c.n_threads = 32 * c.block_q / warp_rows;
        /* one CTA per SM from d 64 on (the sm_90a kernel's shared memory and registers) */
        c.ctas_per_sm = dp >= 64 ? 1 : 2;
        c.smem_bytes = (size_t)(c.block_q + 2 * bn) * (size_t)(dp + 8) * 2;
    }
    *out = c;
    return SAMRT_OK;
}

static int n_tiles(const struct samrt_attention_params *p, const struct samrt_attention_config *c) {
    return (int)cdiv64(p->n_k, c->block_k);
}

int samrt_attention_n_split_effective(const struct samrt_attention_params *p) {
    struct samrt_attention_config c;
    if (samrt_attention_configure(p, &c) != SAMRT_OK || p->n_split <= 1) return 1;
    const int nt = n_tiles(p, &c);
    const int per = (int)cdiv64(nt, SAMRT_MIN(p->n_split, nt));
    return (int)cdiv64(nt, per);
}

/* A split must save each CTA at least this many key tiles: the combine is a launch of its own
 * (the platform profiles' launch cost, 3 us) plus the fp32 partials' round trip, and the
 * smallest tile iteration (two barriers, a K and a V tile load, 64 x 64 scores) takes about
 * 0.5 us, so fewer saved tiles leave the split at best even (kernels/dev/attention_notes.md,
 * section 10). */
#define SPLIT_MIN_SAVED_TILES 8

int samrt_attention_split_count(const struct samrt_attention_params *p, int sm_count) {
    struct samrt_attention_config c;
    if (sm_count <= 0 || samrt_attention_configure(p, &c) != SAMRT_OK) return 1;
    const int64_t n_cta = (int64_t)p->n_batch * samrt_attention_n_windows(p) * p->n_head *
                          cdiv64(p->n_q, c.block_q);
    const int64_t slots = (int64_t)sm_count * c.ctas_per_sm;
    const int max_split = SAMRT_MIN(n_tiles(p, &c) / 4, 128);
    if (n_cta >= slots || max_split < 2) return 1;
    /* time ~ waves / s (each CTA does 1/s of the keys); a split must beat the best so far by
     * 10% to pay for its combine pass. 128 CTAs on 132 SMs stay unsplit: two waves of half
     * the keys take as long as one of all. */
    int best = 1;
    double best_cost = (double)cdiv64(n_cta, slots);
    for (int s = 2; s <= max_split; s++) {
        const double cost = (double)cdiv64(n_cta * s, slots) / s;
        if (cost < 0.9 * best_cost) {
            best = s;
            best_cost = cost;
        }
    }
    /* small problems: the split saves less than its combine costs */
    const int nt = n_tiles(p, &c);
    if (best > 1 && nt - cdiv64(nt, best) < SPLIT_MIN_SAVED_TILES) return 1;
    return best;
}

/* Time of a 256-row tile (four consumer warpgroups, 64-key tiles) over a 128-row one (two,
 * 128-key tiles) at head dim 64 on an H100: test_attention_cuda --bench hiera_wave_bp, one
 * wave of 96 wide tiles against two of 192 narrow ones (kernels/dev/attention_notes.md). */
#define WIDE_COST 1.78

int samrt_attention_wide_tiles(const struct samrt_attention_params *p) {
    struct samrt_attention_config c;
    if (samrt_attention_configure(p, &c) != SAMRT_OK || p->dtype == SAMRT_DTYPE_F32 || p->win.size_q > 0 ||
        c.d_pad != 64 || p->sm_count <= 0 || samrt_attention_n_split_effective(p) > 1 ||
        (p->block_q != 0 && p->block_q != 256) || (p->block_k != 0 && p->block_k != 64))
        return 0;
    const int64_t n_prob = (int64_t)p->n_batch * p->n_head;
    const int64_t wide = n_prob * cdiv64(p->n_q, 256), narrow = n_prob * cdiv64(p->n_q, 128);
    if (wide > INT32_MAX) return 0;
    if (p->block_q == 256) return (int)wide;
    const double cost = WIDE_COST * (double)cdiv64(wide, p->sm_count);
    return cost < 0.95 * (double)cdiv64(narrow, p->sm_count) ? (int)wide : 0;
}

size_t samrt_attention_workspace_size(const struct samrt_attention_params *p) {
    struct samrt_attention_config c;
    if (samrt_attention_configure(p, &c) != SAMRT_OK) return 0;
    const size_t esz = samrt_dtype_size(p->dtype);
    const size_t bh = (size_t)p->n_batch * (size_t)p->n_head;
    size_t ws = 0;
    if (p->rope.q) ws += SAMRT_PAD(bh * (size_t)p->n_q * (size_t)p->d_qk * esz, SAMRT_ALIGN);
    if (p->rope.k) ws += SAMRT_PAD(bh * (size_t)p->n_k * (size_t)p->d_qk * esz, SAMRT_ALIGN);
    const int ns = samrt_attention_n_split_effective(p);
    if (ns > 1) {
        const size_t rows = bh * (size_t)samrt_attention_n_windows(p) * (size_t)p->n_q;
        ws += SAMRT_PAD((size_t)ns * rows * (size_t)p->d_v * sizeof(float), SAMRT_ALIGN);
        ws += SAMRT_PAD((size_t)ns * rows * 2 * sizeof(float), SAMRT_ALIGN);
    }
    return ws;
}
