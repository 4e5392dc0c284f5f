/* ops_table_map.c - the op table's rows for the kernels that move or generate maps
 * (kernels/pool.h, sine_pe.h, fourier_pe.h, copy.h, interp.h): Hiera's 2x2 q-pool (tiny,
 * base_plus and large window batches), RepViT's squeeze-excite channel mean (EdgeTAM), the
 * sine position encodings of the neck / memory / perceiver maps and the object pointers, the
 * prompt encoder's Fourier features, the strided copy (patch embed, FPN nearest x2) and the
 * interpolations (pos_embed bicubic, FPN nearest, mask bilinear to 1024 and to the video
 * frame), each with odd shapes. ops_table.h says how a row is run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "fourier_pe.h"
#include "interp.h"
#include "ops_table.h"
#include "pool.h"
#include "sine_pe.h"
#include "test_util.h"

/* device powf/sinf/cosf differ from glibc's by a few ulp at arguments up to 2pi */
static const struct ot_tol TOL_PE = {"pe_sincos", {4e-6, 4e-6, 4e-6}, {0.0, 1.0 / 1024, 1.0 / 128}, 0, 0};
/* angles rounded in the same order on both sides, only sinf/cosf differ */
static const struct ot_tol TOL_FPE = {"fpe_sincos", {1e-6, 1e-6, 1e-6}, {1e-6, 1.0 / 1024, 1.0 / 128}, 0, 0};
/* fp32 sums of |x| <= 8 in a tree order: 1e-5 of the scale, plus two stored ulp */
static const struct ot_tol TOL_MEAN = {"mean_sum_order", {8e-5, 8e-5, 8e-5}, {0.0, 0x1p-10, 0x1p-7}, 0, 0};
/* the same fused coefficient helpers on both sides: bit-identical expected, bounded by one ulp */
static const struct ot_tol TOL_INTERP = {"interp_ulp", {1e-6, 1e-3, 8e-3}, {1e-6, 1e-3, 8e-3}, 0, 0};

/* ---- pool_max2x2: p = {batch, h, w, channels, s_in, s_out, nan every, misalign} ---- */
static void pool_setup(struct ot_case *c) {
    const long *p = c->row->p, s_in = p[4] ? p[4] : p[3], s_out = p[5] ? p[5] : p[3];
    const long n_in = p[0] * p[1] * p[2] * s_in, n_out = p[0] * (p[1] / 2) * (p[2] / 2) * s_out;
    const int x = ot_buf_random(c, c->dt, n_in, -8, 8);
    const float nan = NAN;
    for (long i = 0; p[6] && i < n_in; i += p[6])
        tu_store(c->dt, (char *)c->b[x].init + i * (long)samrt_dtype_size(c->dt), &nan, 1);
    const int out = ot_buf_add(c, c->dt, n_out, OT_OUT);
    c->b[x].misalign = c->b[out].misalign = (int)p[7];
    c->moved = (double)p[0] * (p[1] / 2) * (p[2] / 2) * p[3] * samrt_dtype_size(c->dt) * 5;  /* 4 in, 1 out */
}

static enum samrt_status pool_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_pool_args a = {c->dt, q[0], (int32_t)q[1], (int32_t)q[2], (int32_t)q[3], q[4], q[5], p[0], p[1]};
    (void)stream;
    return gpu ? OT_GPU(samrt_pool_max2x2_cuda(&a, (cudaStream_t)stream)) : samrt_pool_max2x2_ref(&a);
}

/* the max of the four inputs, by a naive loop (rows without NaN inputs) */
static long pool_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p, s_in = q[4] ? q[4] : q[3], s_out = q[5] ? q[5] : q[3];
    if (q[6]) return 0;
    float *x = ot_load(c, 0, c->b[0].init), *out = ot_load(c, 1, p[1]);
    long bad = 0;
    for (long b = 0; b < q[0]; b++)
        for (long i = 0; i < q[1] / 2; i++)
            for (long j = 0; j < q[2] / 2; j++)
                for (long k = 0; k < q[3]; k++) {
                    float m = -INFINITY;
                    for (int d = 0; d < 4; d++) {
                        const float v = x[((b * q[1] + 2 * i + d / 2) * q[2] + 2 * j + d % 2) * s_in + k];
                        m = v > m ? v : m;
                    }
                    bad += out[((b * (q[1] / 2) + i) * (q[2] / 2) + j) * s_out + k] != m;
                }
    free(x);
    free(out);
    return bad;
}

static const struct ot_op OP_POOL = {"pool_max2x2", pool_setup, pool_call, pool_check, NULL, NULL, 0};

/* ---- pool_mean: p = {batch, tokens, channels}; the launcher's split as the op layer plans it ---- */
static void mean_setup(struct ot_case *c) {
    const long *p = c->row->p;
    ot_buf_random(c, c->dt, p[0] * p[1] * p[2], -8, 8);
    ot_buf_add(c, c->dt, p[0] * p[2], OT_OUT);
    c->v[0] = samrt_pool_mean_splits(p[1]);
    if (c->v[0] > 1) ot_buf_add(c, SAMRT_DTYPE_F32, p[0] * c->v[0] * p[2], OT_SCRATCH);
    else ot_buf_null(c);
    c->moved = (double)p[0] * p[1] * p[2] * samrt_dtype_size(c->dt);
}

static enum samrt_status mean_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_pool_mean_args a = {c->dt, q[0], q[1], (int32_t)q[2], p[0], p[1], 1, NULL};
    (void)stream;
    if (!gpu) return samrt_pool_mean_ref(&a);
    a.n_split = (int32_t)c->v[0];
    a.partial = (float *)p[2];
    return OT_GPU(samrt_pool_mean_cuda(&a, (cudaStream_t)stream));
}

/* f32: the mean of every channel in double */
static long mean_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const long *q = c->row->p;
    const float *x = (const float *)c->b[0].init, *out = (const float *)p[1];
    long bad = 0;
    for (long b = 0; b < q[0]; b++)
        for (long k = 0; k < q[2]; k++) {
            double s = 0;
            for (long t = 0; t < q[1]; t++) s += x[(b * q[1] + t) * q[2] + k];
            bad += !(fabs(out[b * q[2] + k] - s / q[1]) <= 1e-5);
        }
    return bad;
}

static const struct ot_op OP_MEAN = {"pool_mean", mean_setup, mean_call, mean_check, NULL, NULL, 0};

/* ---- sine_pe: p = {d, h, w, channels last} ---- */
static void pe_setup(struct ot_case *c) {
    const long *p = c->row->p;
    ot_buf_add(c, c->dt, p[0] * p[1] * p[2], OT_OUT);
    c->moved = (double)p[0] * p[1] * p[2] * samrt_dtype_size(c->dt);
}

static enum samrt_status pe_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_sine_pe_args a = {c->dt, (int32_t)q[0], (int32_t)q[1], (int32_t)q[2], (int)q[3], p[0]};
    (void)stream;
    return gpu ? OT_GPU(samrt_sine_pe_cuda(&a, (cudaStream_t)stream)) : samrt_sine_pe_ref(&a);
}

/* sines and cosines: every value in [-1, 1] */
static long pe_range_check(const struct ot_case *c, void *const *p) {
    const int o = c->nb - 1;
    float *v = ot_load(c, o, p[o]);
    long bad = 0;
    for (long i = 0; i < c->b[o].n; i++) bad += !(fabsf(v[i]) <= 1.0f);
    free(v);
    return bad;
}

static const struct ot_op OP_PE = {"sine_pe", pe_setup, pe_call, pe_range_check, NULL, NULL, 0};

/* ---- sine_pe_1d: p = {positions, dim}; position d is d / (positions - 1) ---- */
static void pe1d_setup(struct ot_case *c) {
    const long *p = c->row->p;
    float pos[64];
    for (long d = 0; d < p[0]; d++) pos[d] = (float)d / (float)(p[0] > 1 ? p[0] - 1 : 1);
    ot_buf_copy(c, SAMRT_DTYPE_F32, p[0], pos);
    ot_buf_add(c, c->dt, p[0] * p[1], OT_OUT);
    c->moved = (double)p[0] * p[1] * samrt_dtype_size(c->dt);
}

static enum samrt_status pe1d_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    struct samrt_sine_pe_1d_args a = {c->dt, (int32_t)c->row->p[0], (int32_t)c->row->p[1], p[0], p[1]};
    (void)stream;
    return gpu ? OT_GPU(samrt_sine_pe_1d_cuda(&a, (cudaStream_t)stream)) : samrt_sine_pe_1d_ref(&a);
}

static const struct ot_op OP_PE1D = {"sine_pe_1d", pe1d_setup, pe1d_call, pe_range_check, NULL, NULL, 0};

/* ---- fourier_pe_dense: p = {f, h, w, channels last}; a Gaussian-like (2, F) matrix ---- */
static void fpe_setup(struct ot_case *c) {
    const long *p = c->row->p;
    ot_buf_random(c, SAMRT_DTYPE_F32, 2 * p[0], -3.0f, 3.0f);  /* randn scale: |G| up to ~3 */
    ot_buf_add(c, c->dt, 2 * p[0] * p[1] * p[2], OT_OUT);
    c->moved = 2.0 * p[0] * p[1] * p[2] * samrt_dtype_size(c->dt);
}

static enum samrt_status fpe_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_fourier_pe_dense_args a = {c->dt, (int32_t)q[0], p[0], (int32_t)q[1], (int32_t)q[2], (int)q[3], p[1]};
    (void)stream;
    return gpu ? OT_GPU(samrt_fourier_pe_dense_cuda(&a, (cudaStream_t)stream)) : samrt_fourier_pe_dense_ref(&a);
}

static const struct ot_op OP_FPE = {"fourier_pe_dense", fpe_setup, fpe_call, pe_range_check, NULL, NULL, 0};

/* ---- fourier_pe_points: p = {points, set}: 0 one click + the padding point, 1 box corners +
 *      a click + padding, 2 random points over the frame; F = 128, 1024 x 1024 ---- */
static void fpts_setup(struct ot_case *c) {
    static const float click[4] = {412.3f, 600.8f, -0.5f, -0.5f};
    static const float box[8] = {100.0f, 200.0f, 900.5f, 1000.25f, 512.0f, 512.0f, -0.5f, -0.5f};
    const long n = c->row->p[0];
    ot_buf_random(c, SAMRT_DTYPE_F32, 2 * 128, -3.0f, 3.0f);
    if (c->row->p[1] == 0) ot_buf_copy(c, SAMRT_DTYPE_F32, 2 * n, click);
    else if (c->row->p[1] == 1) ot_buf_copy(c, SAMRT_DTYPE_F32, 2 * n, box);
    else ot_buf_random(c, SAMRT_DTYPE_F32, 2 * n, 0.0f, 1024.0f);
    ot_buf_add(c, c->dt, n * 2 * 128, OT_OUT);
    c->moved = (double)n * 256 * samrt_dtype_size(c->dt);
}

static enum samrt_status fpts_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    struct samrt_fourier_pe_points_args a = {c->dt, 128, p[0], (int32_t)c->row->p[0], p[1], 0.5f, 1024, 1024, p[2]};
    (void)stream;
    return gpu ? OT_GPU(samrt_fourier_pe_points_cuda(&a, (cudaStream_t)stream)) : samrt_fourier_pe_points_ref(&a);
}

static const struct ot_op OP_FPTS = {"fourier_pe_points", fpts_setup, fpts_call, pe_range_check, NULL, NULL, 0};

/* ---- copy: p = {ne0..ne3 (output extents), s0..s3 (input strides), input elements, add};
 *      every src -> dst dtype pair; conversion and the add are deterministic fp32 steps ---- */
static void copy_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0] * p[1] * p[2] * p[3];
    ot_buf_random(c, c->src, p[8], -3, 3);
    p[9] ? ot_buf_random(c, c->dt, n, -1, 1) : ot_buf_null(c);
    ot_buf_add(c, c->dt, n, OT_OUT);
    c->moved = (double)n * samrt_dtype_size(c->dt) * (p[9] ? 3 : 2);
}

static enum samrt_status copy_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_copy_args a = {c->src, c->dt, {q[0], q[1], q[2], q[3]}, {q[4], q[5], q[6], q[7]}, p[0], p[1], p[2]};
    (void)stream;
    return gpu ? OT_GPU(samrt_copy_cuda(&a, (cudaStream_t)stream)) : samrt_copy_ref(&a);
}

/* f32 -> f32: a naive strided loop, bit for bit */
static long copy_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32 || c->src != SAMRT_DTYPE_F32) return 0;
    const long *q = c->row->p;
    const float *x = (const float *)c->b[0].init, *add = (const float *)c->b[1].init, *out = (const float *)p[2];
    long bad = 0, o = 0;
    for (long i = 0; i < q[0]; i++)
        for (long j = 0; j < q[1]; j++)
            for (long k = 0; k < q[2]; k++)
                for (long l = 0; l < q[3]; l++, o++) {
                    const float v = x[i * q[4] + j * q[5] + k * q[6] + l * q[7]] + (add ? add[o] : 0.0f);
                    bad += out[o] != v;
                }
    return bad;
}

static const struct ot_op OP_COPY = {"copy", copy_setup, copy_call, copy_check, NULL, NULL, 0};

/* ---- interp: p = {mode, planes, h in, w in, h out, w out}; src dtype from the row ---- */
static void interp_setup(struct ot_case *c) {
    const long *p = c->row->p, ni = p[1] * p[2] * p[3], no = p[1] * p[4] * p[5];
    ot_buf_random(c, c->src, ni, -2.0f, 2.0f);
    ot_buf_add(c, c->dt, no, OT_OUT);
    c->moved = (double)ni * samrt_dtype_size(c->src) + (double)no * samrt_dtype_size(c->dt);
}

static enum samrt_status interp_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_interp_desc d = {(enum samrt_interp_mode)q[0], (int)q[1], (int)q[2], (int)q[3], (int)q[4], (int)q[5],
                                  c->src, c->dt};
    (void)stream;
    return gpu ? OT_GPU(samrt_interp_cuda(&d, p[0], p[1], (cudaStream_t)stream)) : samrt_interp_ref(&d, p[0], p[1]);
}

static const struct ot_op OP_INTERP = {"interp", interp_setup, interp_call, NULL, NULL, NULL, 0};

#define F OT_FLOATS
#define B OT_BENCH
#define X &ot_tol_exact
#define NEAR SAMRT_INTERP_NEAREST
#define BIL SAMRT_INTERP_BILINEAR
#define BIC SAMRT_INTERP_BICUBIC
/* the interpolation's odd shapes, for one mode: every src -> dst dtype pair, up and down,
 * a single pixel, many planes of one row */
#define INTERP_ODD(m, name)                                                                                   \
    {&OP_INTERP, name "_up_down", F, F, &TOL_INTERP, 0, {m, 5, 13, 17, 31, 7}, {0}},                         \
    {&OP_INTERP, name "_down_up", F, F, &TOL_INTERP, 0, {m, 2, 67, 45, 23, 101}, {0}},                       \
    {&OP_INTERP, name "_1px", OT_F32, OT_F32, &TOL_INTERP, 0, {m, 1, 1, 1, 5, 3}, {0}},                      \
    {&OP_INTERP, name "_70000_planes", OT_F32, OT_F32, &TOL_INTERP, 0, {m, 70000, 1, 3, 2, 2}, {0}}

const struct ot_row ot_rows_map[] = {
    /* pool_max2x2: batch, h, w, channels, s_in, s_out, nan every, misalign; bit for bit */
    {&OP_POOL, "t_blk1_shortcut", F, 0, X, B, {1, 256, 256, 192, 0, 0, 0, 0}, {0}},  /* MaxPool(proj(x)) */
    {&OP_POOL, "t_blk1_qpool", F, 0, X, B, {1024, 8, 8, 192, 3 * 192, 0, 0, 0}, {0}}, /* q of 8x8 windows */
    {&OP_POOL, "t_blk3_qpool", F, 0, X, B, {1024, 4, 4, 384, 3 * 384, 0, 0, 0}, {0}},
    {&OP_POOL, "t_blk10_qpool", F, 0, X, B, {25, 14, 14, 768, 3 * 768, 0, 0, 0}, {0}}, /* 64 padded to 70 */
    {&OP_POOL, "bp_blk2_qpool", F, 0, X, B, {1024, 8, 8, 224, 3 * 224, 0, 0, 0}, {0}}, /* base_plus */
    {&OP_POOL, "l_blk44_qpool", F, 0, X, B, {16, 16, 16, 1152, 3 * 1152, 0, 0, 0}, {0}},
    {&OP_POOL, "odd_hw", F, 0, X, 0, {2, 5, 7, 3, 0, 0, 0, 0}, {0}},
    {&OP_POOL, "odd_strides", F, 0, X, OT_NAN_OK, {3, 6, 4, 5, 7, 6, 0, 0}, {0}},    /* padding stays NaN */
    {&OP_POOL, "unaligned", F, 0, X, 0, {2, 8, 8, 64, 0, 0, 0, 1}, {0}},
    {&OP_POOL, "nan", F, 0, X, OT_NAN_OK, {4, 6, 6, 24, 3 * 24, 0, 37, 0}, {0}},
    /* pool_mean: batch, tokens, channels (RepViT squeeze-excite) */
    {&OP_MEAN, "se_stage0", F, 0, &TOL_MEAN, B, {1, 256 * 256, 48}, {0}},
    {&OP_MEAN, "se_stage1", F, 0, &TOL_MEAN, B, {1, 128 * 128, 96}, {0}},
    {&OP_MEAN, "se_stage2", F, 0, &TOL_MEAN, B, {1, 64 * 64, 192}, {0}},
    {&OP_MEAN, "se_stage3", F, 0, &TOL_MEAN, B, {1, 32 * 32, 384}, {0}},
    {&OP_MEAN, "odd", F, 0, &TOL_MEAN, 0, {3, 37, 45}, {0}},
    {&OP_MEAN, "one_token", F, 0, &TOL_MEAN, 0, {2, 1, 7}, {0}},
    /* sine_pe: d, h, w, channels last */
    {&OP_PE, "neck_pos2", F, 0, &TOL_PE, B, {256, 64, 64, 1}, {0}},  /* memory-attention query PE */
    {&OP_PE, "neck_pos2_chw", F, 0, &TOL_PE, 0, {256, 64, 64, 0}, {0}},
    {&OP_PE, "neck_pos1", F, 0, &TOL_PE, 0, {256, 128, 128, 0}, {0}},
    {&OP_PE, "neck_pos0", F, 0, &TOL_PE, B, {256, 256, 256, 0}, {0}},
    {&OP_PE, "maskmem_pos", F, 0, &TOL_PE, 0, {64, 64, 64, 1}, {0}},
    {&OP_PE, "perceiver_pos2", F, 0, &TOL_PE, 0, {64, 16, 16, 1}, {0}},  /* EdgeTAM */
    {&OP_PE, "odd", F, 0, &TOL_PE, 0, {8, 3, 5, 0}, {0}},
    {&OP_PE1D, "obj_ptr_16", F, 0, &TOL_PE, 0, {16, 256}, {0}},       /* the 16 pointer distances */
    {&OP_PE1D, "one_pos", F, 0, &TOL_PE, 0, {1, 2}, {0}},
    /* fourier_pe_dense: f, h, w, channels last; fourier_pe_points: points, set */
    {&OP_FPE, "image_pe", F, 0, &TOL_FPE, B, {128, 64, 64, 1}, {0}},
    {&OP_FPE, "image_pe_chw", F, 0, &TOL_FPE, 0, {128, 64, 64, 0}, {0}},
    {&OP_FPE, "odd", F, 0, &TOL_FPE, 0, {6, 5, 7, 0}, {0}},
    {&OP_FPTS, "points_click", F, 0, &TOL_FPE, 0, {2, 0}, {0}},
    {&OP_FPTS, "points_box", F, 0, &TOL_FPE, 0, {4, 1}, {0}},
    {&OP_FPTS, "points_random", F, 0, &TOL_FPE, 0, {37, 2}, {0}},
    /* copy: ne0..3, s0..3, input elements, add; every src -> dst pair, bit for bit */
    {&OP_COPY, "t_embed_nchw_nhwc", F, F, X, B, {1, 256, 256, 96, 96 * 65536, 256, 1, 65536, 96 * 65536, 1}, {0}},
    {&OP_COPY, "fpn_up_cols", F, F, X, B, {32, 32, 2, 256, 32 * 256, 256, 0, 1, 32 * 32 * 256, 0}, {0}},
    {&OP_COPY, "fpn_up_rows_add", F, F, X, B, {1, 32, 2, 64 * 256, 0, 64 * 256, 0, 1, 32 * 64 * 256, 1}, {0}},
    {&OP_COPY, "dump_nhwc_nchw", F, F, X, 0, {1, 384, 64, 64, 0, 1, 64 * 384, 384, 64 * 64 * 384, 0}, {0}},
    {&OP_COPY, "odd", F, F, X, 0, {3, 5, 7, 11, 1, 3 * 7 * 11, 3, 7 * 3, 3 * 5 * 7 * 11, 1}, {0}},
    {&OP_COPY, "scalar", F, F, X, 0, {1, 1, 1, 1, 0, 0, 0, 0, 1, 1}, {0}},
    /* interp: mode, planes, h in, w in, h out, w out */
    {&OP_INTERP, "pos_embed_t_bicubic", OT_F32 | OT_BF16, OT_F32, &TOL_INTERP, B, {BIC, 96, 7, 7, 256, 256}, {0}},
    {&OP_INTERP, "pos_embed_bp_bicubic", OT_F32 | OT_BF16, OT_F32, &TOL_INTERP, B, {BIC, 112, 14, 14, 256, 256}, {0}},
    {&OP_INTERP, "fpn_nearest_32", OT_BF16, OT_BF16, &TOL_INTERP, B, {NEAR, 256, 32, 32, 64, 64}, {0}},
    {&OP_INTERP, "fpn_nearest_64", OT_F32, OT_F32, &TOL_INTERP, 0, {NEAR, 256, 64, 64, 128, 128}, {0}},
    {&OP_INTERP, "mask_1024", OT_F32, OT_F32, &TOL_INTERP, B, {BIL, 3, 256, 256, 1024, 1024}, {0}},
    {&OP_INTERP, "mask_540x960", OT_F32, OT_BF16, &TOL_INTERP, 0, {BIL, 2, 256, 256, 540, 960}, {0}},
    {&OP_INTERP, "mask_1080p", OT_F32, OT_F32, &TOL_INTERP, B, {BIL, 1, 256, 256, 1080, 1920}, {0}},
    INTERP_ODD(NEAR, "nearest"),
    INTERP_ODD(BIL, "bilinear"),
    INTERP_ODD(BIC, "bicubic"),
};
const int ot_n_rows_map = (int)(sizeof ot_rows_map / sizeof ot_rows_map[0]);
