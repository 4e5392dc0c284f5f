/* ops_table_misc.c - the op table's rows for the tracker's small kernels: the non-finite
 * scan (kernels/finite.h: a frame's embedding at 1024, tails, a bad value at the start, the
 * middle or the end), the rotary encoding of memory attention (kernels/rope.h: SAM 2.1's 64x64
 * self-attention and repeated cross-attention keys with object pointers, EdgeTAM's 16x16 keys
 * behind 256 perceiver latents, in place), the fused rotate + 2x2 pool of EfficientTAM's memory
 * keys and value inputs (kernels/rope.h samrt_rope_pool: Ti/2's seven 64x64 memories at 1024,
 * /1's four copies, odd maps and packed rows, checked against rope_ref + dwconv_ref), the memory store (kernels/sam2/mem_store.h: f32 / f16 /
 * bf16 into the bf16 bank, present and absent objects) and the tracker's row copies
 * (kernels/sam2/track_rows.h). ops_table.h says how a row is run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dwconv.h"
#include "finite.h"
#include "mem_store.h"
#include "ops_table.h"
#include "ref_util.h"
#include "rope.h"
#include "test_util.h"
#include "track_rows.h"

/* rotations in fp32 from one table: only the contraction of x*cos - y*sin may differ */
static const struct ot_tol TOL_ROPE = {"rope_fma", {1e-6, 1e-6, 1e-6}, {1e-6, 1.0 / 1024, 1.0 / 128}, 0, 0};

/* the rotated taps may round differently when x*cos - y*sin contracts: one storage ulp of a
 * tap (|x| < 2.9) moves the average by a quarter of it, plus the final rounding */
static const struct ot_tol TOL_ROPE_POOL = {"rope_pool_fma", {1e-6, 1.0 / 512, 1.0 / 64}, {1e-6, 1.0 / 1024, 1.0 / 128},
                                            0, 0};

/* ---- finite: p = {elements, bad at (-1 none, 0 start, 1 middle, 2 end), misalign} ---- */
static void finite_setup(struct ot_case *c) {
    static const uint32_t F_NINF = 0xff800000u;
    static const uint16_t H_INF = 0x7c00, B_NAN = 0x7fc0;
    const long *p = c->row->p, n = p[0];
    const int x = ot_buf_random(c, c->dt, n, -60000.0f, 60000.0f);
    if (p[1] >= 0) {
        const long at = p[1] == 0 ? 0 : p[1] == 1 ? n / 2 : n - 1;
        const size_t es = samrt_dtype_size(c->dt);
        memcpy((char *)c->b[x].init + (size_t)at * es,
               c->dt == SAMRT_DTYPE_F32 ? (const void *)&F_NINF : c->dt == SAMRT_DTYPE_F16 ? (const void *)&H_INF
                                                                                             : (const void *)&B_NAN, es);
    }
    c->b[x].misalign = (int)p[2];
    const int flags = ot_buf_add(c, SAMRT_DTYPE_I32, SAMRT_FINITE_FLAG_WORDS, OT_OUT);
    c->b[flags].cmp = 1;    /* flags[0] is the result; the other words are the blocks' partials */
    c->b[flags].exact = 1;
    c->moved = (double)n * samrt_dtype_size(c->dt);
}

static enum samrt_status finite_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    struct samrt_finite_args a;
    memset(&a, 0, sizeof a);
    a.n_seg = 1;
    a.seg[0] = (struct samrt_finite_seg){p[0], c->row->p[0], c->dt};
    a.flags = (int32_t *)p[1];
    (void)stream;
    return gpu ? OT_GPU(samrt_finite_cuda(&a, (cudaStream_t)stream)) : samrt_finite_ref(&a);
}

/* the flag is set exactly when a bad value was planted */
static long finite_check(const struct ot_case *c, void *const *p) {
    return ((const int32_t *)p[1])[0] != (c->row->p[1] >= 0);
}

static const struct ot_op OP_FINITE = {"finite", finite_setup, finite_call, finite_check, NULL, NULL, 0};

/* The f32 RoPE table of a dim-channel head over a side x side grid, as an input buffer. */
static int rope_table_buf(struct ot_case *c, int dim, int side) {
    const size_t nt = samrt_rope_table_floats(dim, side, side);
    float *tab = (float *)malloc(sizeof(float) * nt);
    if (!tab || samrt_rope_table_fill(tab, dim, side, side, 10000.0f) != SAMRT_OK) {
        fprintf(stderr, "%s/%s: no table\n", c->row->op->name, c->row->shape);
        exit(1);
    }
    const int i = ot_buf_copy(c, SAMRT_DTYPE_F32, (long)nt, tab);
    free(tab);
    return i;
}

/* ---- rope: p = {batch, heads, tokens, dim, period, skip, n_rope, grid side, in place,
 *      source token stride in dims (1: contiguous, 3: a packed qkv row)} ---- */
static void rope_setup(struct ot_case *c) {
    const long *p = c->row->p, s_tok = p[9] * p[3];
    const long n_src = p[0] * p[1] * p[2] * s_tok, n = p[0] * p[1] * p[2] * p[3];
    const int x = ot_buf_random(c, c->dt, n_src, -2.0f, 2.0f);
    rope_table_buf(c, (int)p[3], (int)p[7]);
    if (p[8]) {
        c->b[x].role = OT_INOUT;
        ot_buf_alias(c, x);
    } else {
        ot_buf_add(c, c->dt, n, OT_OUT);
    }
    c->moved = 2.0 * n * samrt_dtype_size(c->dt);
}

static enum samrt_status rope_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p, D = q[3], s_tok = q[9] * D, s_dt = q[8] ? s_tok : D;
    struct samrt_rope_params a = {c->dt, (int)q[0], (int)q[1], (int)q[2], (int)D,
                                  p[0], q[1] * q[2] * s_tok, q[2] * s_tok, s_tok,
                                  p[2], q[1] * q[2] * s_dt, q[2] * s_dt, s_dt,
                                  p[1], (int)q[4], (int)q[5], q[6]};
    (void)stream;
    return gpu ? OT_GPU(samrt_rope_apply_cuda(&a, (cudaStream_t)stream)) : samrt_rope_apply_ref(&a);
}

/* f32: a rotation keeps each pair's length; tokens outside the table are copied as they are */
static long rope_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const long *q = c->row->p, D = q[3], s_tok = q[9] * D, s_dt = q[8] ? s_tok : D;
    const float *x = (const float *)c->b[0].init, *y = (const float *)p[2];
    long bad = 0;
    for (long bh = 0; bh < q[0] * q[1]; bh++)
        for (long t = 0; t < q[2]; t++) {
            const float *xs = x + (bh * q[2] + t) * s_tok, *yd = y + (bh * q[2] + t) * s_dt;
            const int rotated = samrt_rope_row(t, (int)q[4], (int)q[5], q[6]) >= 0;
            for (long k = 0; k < D; k += 2) {
                const double n0 = (double)xs[k] * xs[k] + (double)xs[k + 1] * xs[k + 1];
                const double n1 = (double)yd[k] * yd[k] + (double)yd[k + 1] * yd[k + 1];
                bad += rotated ? !(fabs(n1 - n0) <= 1e-5 * (1.0 + n0)) : (xs[k] != yd[k] || xs[k + 1] != yd[k + 1]);
            }
        }
    return bad;
}

static const struct ot_op OP_ROPE = {"rope", rope_setup, rope_call, rope_check, NULL, NULL, 0};

/* ---- rope_pool: p = {batch, memories, grid, dim, tail rows, rotate, copies, source token
 *      stride in dims}; f = {bias, rounded to the dtype as the pool's bias tensor was} ---- */
static void rpool_setup(struct ot_case *c) {
    const long *p = c->row->p, n_tok = p[1] * p[2] * p[2] + p[4], h = p[2] / 2;
    ot_buf_random(c, c->dt, p[0] * n_tok * p[7] * p[3], -2.0f, 2.0f);
    p[5] ? rope_table_buf(c, (int)p[3], (int)p[2]) : ot_buf_null(c);
    const long n_out = p[0] * (p[6] * p[1] * h * h + p[4]) * p[3];
    ot_buf_add(c, c->dt, n_out, OT_OUT);
    c->moved = (double)(p[0] * n_tok * p[3] + n_out) * samrt_dtype_size(c->dt);
}

static struct samrt_rope_pool_params rpool_params(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p, n_tok = q[1] * q[2] * q[2] + q[4], h = q[2] / 2, s_t = q[7] * q[3];
    const struct samrt_rope_pool_params a = {c->dt, (int)q[0], (int)q[1], (int)q[2], (int)q[3], q[4],
                                             p[0], n_tok * s_t, s_t, p[2], (q[6] * q[1] * h * h + q[4]) * q[3], q[3],
                                             q[5] ? (const float *)p[1] : NULL, ref_round(c->dt, c->row->f[0]),
                                             (int)q[6]};
    return a;
}

static enum samrt_status rpool_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const struct samrt_rope_pool_params a = rpool_params(c, p);
    (void)stream;
    return gpu ? OT_GPU(samrt_rope_pool_cuda(&a, (cudaStream_t)stream)) : samrt_rope_pool_ref(&a);
}

/* The unfused composition, value for value: samrt_rope_apply_ref in place on the memory rows
 * (stored in the dtype), the 2x2 stride-2 depthwise conv reference (weights 1/4, the bias),
 * rounded to the dtype, each pooled row rep times, the tail rows copied. */
static long rpool_check(const struct ot_case *c, void *const *p) {
    const struct samrt_rope_pool_params a = rpool_params(c, p);
    const long g = a.grid, D = a.dim, n_mem_tok = a.n_mem * g * g, n_pool = a.n_mem * (g / 2) * (g / 2);
    const size_t es = samrt_dtype_size(c->dt);
    char *rot = (char *)malloc((size_t)(n_mem_tok + a.n_tail) * (size_t)D * es);
    float *x = (float *)malloc(sizeof(float) * (size_t)(n_mem_tok * D + 4 * D + D + n_pool * D));
    if (!rot || !x) exit(1);
    float *w = x + n_mem_tok * D, *bias = w + 4 * D, *y = bias + D;
    for (long i = 0; i < 4 * D; i++) w[i] = 0.25f;
    for (long i = 0; i < D; i++) bias[i] = a.bias;
    const struct samrt_dwconv_desc dw = {a.n_mem, (int)g, (int)g, (int)D, 2, 2, 0, SAMRT_DTYPE_F32,
                                         SAMRT_EPILOGUE_ACT_NONE, a.bias != 0.0f, 0};
    long bad = 0;
    for (int b = 0; b < a.n_batch; b++) {
        const char *src = (const char *)a.src + (size_t)(b * a.s_src_b) * es;
        const struct samrt_rope_params r = {c->dt, 1, 1, (int)(n_mem_tok + a.n_tail), (int)D, src, 0, 0, a.s_src_t,
                                            rot, 0, 0, D, a.table, (int)(g * g), 0, a.table ? n_mem_tok : 0};
        if (samrt_rope_apply_ref(&r) != SAMRT_OK) return 1;
        for (long i = 0; i < n_mem_tok * D; i++) x[i] = ref_load(c->dt, rot, i);
        samrt_dwconv_ref(&dw, x, w, dw.has_bias ? bias : NULL, NULL, y);
        for (long o = 0; o < (a.rep * n_pool + a.n_tail) * D; o++) {
            const long row = o / D, e = o % D;
            const float want = row < a.rep * n_pool ? ref_round(c->dt, y[row / a.rep * D + e])
                                                    : ref_load(c->dt, rot, (n_mem_tok + row - a.rep * n_pool) * D + e);
            bad += ref_load(c->dt, a.dst, b * a.s_dst_b + o) != want;
        }
    }
    free(rot);
    free(x);
    return bad;
}

static const struct ot_op OP_ROPE_POOL = {"rope_pool", rpool_setup, rpool_call, rpool_check, NULL, NULL, 0};

/* ---- mem_store: p = {objects, tokens, dim, no-object embedding}; scores +1.5, -0.5, 0, ... ---- */
static void store_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0] * p[1] * p[2];
    ot_buf_random(c, c->src, n, -4.0f, 4.0f);
    float score[8];
    for (long o = 0; o < p[0] && o < 8; o++) score[o] = o % 3 == 0 ? 1.5f : o % 3 == 1 ? -0.5f : 0.0f;
    ot_buf_copy(c, SAMRT_DTYPE_F32, p[0], score);
    p[3] ? ot_buf_random(c, c->src, p[2], -1.0f, 1.0f) : ot_buf_null(c);
    ot_buf_add(c, SAMRT_DTYPE_BF16, n, OT_OUT);
    c->moved = (double)n * (samrt_dtype_size(c->src) + 2);
}

static enum samrt_status store_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_sam2_mem_store_args a = {c->src, (int)q[0], q[1], (int)q[2], p[0], p[1], p[2], (uint16_t *)p[3]};
    (void)stream;
    return gpu ? OT_GPU(samrt_sam2_mem_store_cuda(&a, (cudaStream_t)stream)) : samrt_sam2_mem_store_ref(&a);
}

/* bf16(round_src(x + absent * no_obj)), bit for bit */
static long store_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p, per = q[1] * q[2];
    float *x = ot_load(c, 0, c->b[0].init), *e = q[3] ? ot_load(c, 2, c->b[2].init) : NULL;
    const float *score = (const float *)c->b[1].init;
    const uint16_t *out = (const uint16_t *)p[3];
    long bad = 0;
    for (long i = 0; i < q[0] * per; i++) {
        float v = x[i] + (e && !(score[i / per] > 0) ? e[i % q[2]] : 0.0f);
        tu_round(c->src, &v, 1);
        bad += out[i] != samrt_f32_to_bf16(v);
    }
    free(x);
    free(e);
    return bad;
}

static const struct ot_op OP_STORE = {"mem_store", store_setup, store_call, store_check, NULL, NULL, 0};

/* ---- track_rows: p = {row bytes, dst rows, src rows, pairs}; pair k copies src row
 *      (3k + 1) % src rows into dst row (5k + 2) % dst rows (distinct while pairs <= dst) ---- */
static void rows_setup(struct ot_case *c) {
    const long *p = c->row->p;
    for (int b = 0; b < 2; b++) {
        const long n = p[0] * p[1 + b];
        uint8_t *v = (uint8_t *)malloc((size_t)n + 1);
        uint64_t s = c->seed + (uint64_t)b;
        for (long i = 0; v && i < n; i++) v[i] = (uint8_t)(tu_rand_u32(&s) >> 24);
        ot_buf_copy(c, SAMRT_DTYPE_U8, n, v);
        free(v);
    }
    c->b[0].role = OT_INOUT;  /* rows not named keep their bytes */
    int32_t pairs[2 * 64];
    for (long k = 0; k < p[3] && k < 64; k++) {
        pairs[2 * k] = (int32_t)((5 * k + 2) % p[1]);
        pairs[2 * k + 1] = (int32_t)((3 * k + 1) % p[2]);
    }
    ot_buf_copy(c, SAMRT_DTYPE_I32, 2 * p[3], pairs);
    c->moved = 2.0 * p[0] * p[3];
}

static enum samrt_status rows_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_track_rows_args a = {p[0], p[1], (size_t)q[0], q[1], q[2], (const int32_t *)p[2], (int)q[3]};
    (void)stream;
    return gpu ? OT_GPU(samrt_track_rows_cuda(&a, (cudaStream_t)stream)) : samrt_track_rows_ref(&a);
}

/* every named row holds its source row, every other row its old bytes */
static long rows_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p;
    const uint8_t *old = (const uint8_t *)c->b[0].init, *src = (const uint8_t *)c->b[1].init;
    const uint8_t *dst = (const uint8_t *)p[0];
    const int32_t *pairs = (const int32_t *)c->b[2].init;
    long bad = 0;
    for (long r = 0; r < q[1]; r++) {
        const uint8_t *want = old + r * q[0];
        for (long k = 0; k < q[3]; k++)
            if (pairs[2 * k] == r) want = src + (long)pairs[2 * k + 1] * q[0];
        bad += memcmp(dst + r * q[0], want, (size_t)q[0]) != 0;
    }
    return bad;
}

static const struct ot_op OP_ROWS = {"track_rows", rows_setup, rows_call, rows_check, NULL, NULL, 0};

#define F OT_FLOATS
#define B OT_BENCH
#define X &ot_tol_exact

const struct ot_row ot_rows_misc[] = {
    /* finite: elements, bad at, misalign; the result word bit for bit */
    {&OP_FINITE, "embed_1024_clean", F, 0, X, B, {1L << 20, -1, 0}, {0}},  /* a 1024 frame's embedding */
    {&OP_FINITE, "embed_1024_bad_end", F, 0, X, 0, {1L << 20, 2, 0}, {0}},
    {&OP_FINITE, "n1M3_bad_mid_unaligned", F, 0, X, 0, {(1L << 20) + 3, 1, 1}, {0}},
    {&OP_FINITE, "n1", F, 0, X, 0, {1, -1, 0}, {0}},
    {&OP_FINITE, "n1_bad", F, 0, X, 0, {1, 0, 1}, {0}},
    {&OP_FINITE, "n9_bad_end_unaligned", F, 0, X, 0, {9, 2, 1}, {0}},
    {&OP_FINITE, "n1000_bad_start", F, 0, X, 0, {1000, 0, 0}, {0}},
    /* rope: batch, heads, tokens, dim, period, skip, n_rope, grid, in place, src token stride */
    {&OP_ROPE, "memattn_self_q", F, 0, &TOL_ROPE, B, {1, 1, 4096, 256, 4096, 0, 4096, 64, 0, 1}, {0}},
    {&OP_ROPE, "memattn_cross_k_t", F, 0, &TOL_ROPE, B,                   /* 7 memories + 16 pointers x 4 */
     {1, 1, 7 * 4096 + 64, 256, 4096, 0, 7 * 4096, 64, 1, 1}, {0}},
    {&OP_ROPE, "edgetam_cross_k", F, 0, &TOL_ROPE, B,                     /* 256 latents + 16x16 per memory */
     {1, 1, 7 * 512 + 64, 256, 512, 256, 7 * 512, 16, 1, 1}, {0}},
    {&OP_ROPE, "odd_heads_packed", F, 0, &TOL_ROPE, 0, {2, 3, 37, 12, 25, 0, 30, 5, 0, 3}, {0}},
    {&OP_ROPE, "one_token", F, 0, &TOL_ROPE, 0, {1, 1, 1, 4, 1, 0, 1, 1, 1, 1}, {0}},
    {&OP_ROPE, "period23_skip3_in_place", F, 0, &TOL_ROPE, 0, {2, 3, 50, 16, 23, 3, 46, 5, 1, 1}, {0}},
    /* rope_pool: batch, memories, grid, dim, tail, rotate, copies, src token stride; bias */
    {&OP_ROPE_POOL, "efftam_ti2_k_1024", F, 0, &TOL_ROPE_POOL, B,  /* 7 64x64 memories, 16 pointers x 4 */
     {1, 7, 64, 256, 64, 1, 1, 1}, {1.38629436f}},
    {&OP_ROPE_POOL, "efftam_ti2_vin_1024", F, 0, X, B, {1, 7, 64, 64, 64, 0, 1, 1}, {0}},  /* values' inputs */
    {&OP_ROPE_POOL, "efftam_ti1_k_1024", F, 0, &TOL_ROPE_POOL, 0, {1, 7, 64, 256, 64, 1, 4, 1}, {0}},
    {&OP_ROPE_POOL, "odd_packed_rep4", F, 0, &TOL_ROPE_POOL, 0, {2, 3, 6, 12, 5, 1, 4, 3}, {1.38629436f}},
    {&OP_ROPE_POOL, "one_cell", F, 0, &TOL_ROPE_POOL, 0, {1, 1, 2, 4, 0, 1, 1, 1}, {0.5f}},
    {&OP_ROPE_POOL, "plain_pool_odd", F, 0, X, 0, {3, 2, 4, 6, 1, 0, 2, 1}, {0}},
    {&OP_ROPE_POOL, "plain_pool_bias_packed", F, 0, X, 0, {2, 5, 10, 34, 7, 0, 1, 2}, {-0.3f}},
    /* mem_store: objects, tokens, dim, no-object embedding; into the bf16 bank, bit for bit */
    {&OP_STORE, "maskmem_3obj", OT_BF16, F, X, B, {3, 64 * 64, 64, 1}, {0}},
    {&OP_STORE, "maskmem_1obj_no_embed", OT_BF16, F, X, 0, {1, 64 * 64, 64, 0}, {0}},
    {&OP_STORE, "odd", OT_BF16, F, X, 0, {5, 7, 3, 1}, {0}},
    /* track_rows: row bytes, dst rows, src rows, pairs; bit for bit */
    {&OP_ROWS, "maskmem_rows", OT_U8, 0, X, B, {64L * 64 * 64 * 2, 8, 3, 3}, {0}},  /* one object's bf16 memory */
    {&OP_ROWS, "ptr_rows", OT_U8, 0, X, 0, {256 * 2, 16, 16, 16}, {0}},
    {&OP_ROWS, "one_row_16b", OT_U8, 0, X, 0, {16, 1, 1, 1}, {0}},
};
const int ot_n_rows_misc = (int)(sizeof ot_rows_misc / sizeof ot_rows_misc[0]);
