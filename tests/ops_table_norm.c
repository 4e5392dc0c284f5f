/* ops_table_norm.c - the op table's rows for the normalisations and element-wise kernels
 * (kernels/layernorm.h, kernels/elementwise.h): LayerNorm over tokens (Hiera stage widths of
 * tiny and base_plus, the memory-attention and perceiver widths) with the fused residual sum,
 * LayerNorm2d (the mask paths' maps), the activations (Hiera MLP hidden layers, the
 * memory-attention FFN, the mask sigmoid*20-10), the scaled add and the per-channel affine
 * (layer scale, no-memory / no-object embeddings, RepViT's BatchNorm), each with odd shapes,
 * unaligned pointers and in-place use. ops_table.h says how a row is run. */
#include <math.h>
#include <stdlib.h>

#include "elementwise.h"
#include "layernorm.h"
#include "ops_table.h"

/* The reference and the kernel sum in different orders: fp32 results differ by a few ulp,
 * stored f16/bf16 results by at most one ulp. */
static const struct ot_tol TOL_LN = {"ln_sum_order", {3e-5, 1e-4, 1e-3}, {1e-5, 1.0 / 1024, 1.0 / 128}, 0, 0};
/* device erff/expf are within a few ulp of the double reference (x20 for the mask affine);
 * f16/bf16: at most one ulp of the stored result */
static const struct ot_tol TOL_EW = {"ew_ulp", {5e-6, 1e-5, 1e-4}, {1e-6, 1.0 / 1024, 1.0 / 128}, 0, 0};

/* ---- layernorm: p = {rows, cols, residual, sum mode, out in x, misalign}, f = {eps} ---- */
enum { SUM_NONE = 0, SUM_SEPARATE, SUM_IN_X };

static void ln_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0] * p[1];
    const int mis = (int)p[5], x_written = p[4] || p[3] == SUM_IN_X;
    const int x = ot_buf_random(c, c->dt, n, 1.0f, 5.0f);  /* mean ~3: exercises cancellation */
    if (x_written) c->b[x].role = OT_INOUT;
    c->b[x].exact = p[3] == SUM_IN_X;                       /* one rounding of x + r */
    const int r = p[2] ? ot_buf_random(c, c->dt, n, -1.0f, 1.0f) : ot_buf_null(c);
    ot_buf_random(c, c->dt, p[1], 0.5f, 1.5f);
    ot_buf_random(c, c->dt, p[1], -0.5f, 0.5f);
    const int out = p[4] ? ot_buf_alias(c, x) : ot_buf_add(c, c->dt, n, OT_OUT);
    const int sum = p[3] == SUM_IN_X ? ot_buf_alias(c, x) : p[3] == SUM_SEPARATE ? ot_buf_add(c, c->dt, n, OT_OUT)
                                                                                : ot_buf_null(c);
    if (p[3] == SUM_SEPARATE) c->b[sum].exact = 1;
    c->b[x].misalign = c->b[r].misalign = c->b[out].misalign = c->b[sum].misalign = mis;
    const double bytes = (double)n * samrt_dtype_size(c->dt);
    c->moved = bytes * (2 + (p[2] ? 1 : 0) + (p[3] ? 1 : 0)) + 2.0 * p[1] * samrt_dtype_size(c->dt);
}

static enum samrt_status ln_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_layernorm_args a = {c->dt, q[0], (int32_t)q[1], c->row->f[0], p[0], p[1], p[2], p[3], p[4], p[5]};
    (void)stream;
    return gpu ? OT_GPU(samrt_layernorm_cuda(&a, (cudaStream_t)stream)) : samrt_layernorm_ref(&a);
}

/* f32: a naive two-pass LayerNorm in double on the original inputs */
static long ln_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const long rows = c->row->p[0], cols = c->row->p[1];
    const float *x = (const float *)c->b[0].init, *r = (const float *)c->b[1].init;
    const float *w = (const float *)c->b[2].init, *b = (const float *)c->b[3].init, *out = (const float *)p[4];
    long bad = 0;
    for (long i = 0; i < rows; i++) {
        double mean = 0, var = 0;
        for (long j = 0; j < cols; j++) mean += (double)(x[i * cols + j] + (r ? r[i * cols + j] : 0.0f));
        mean /= cols;
        for (long j = 0; j < cols; j++) {
            const double d = (double)(x[i * cols + j] + (r ? r[i * cols + j] : 0.0f)) - mean;
            var += d * d;
        }
        const double rstd = 1.0 / sqrt(var / cols + c->row->f[0]);
        for (long j = 0; j < cols; j++) {
            const double v = ((double)(x[i * cols + j] + (r ? r[i * cols + j] : 0.0f)) - mean) * rstd * w[j] + b[j];
            bad += !(fabs(out[i * cols + j] - v) <= 1e-4 + 1e-5 * fabs(v));
        }
    }
    return bad;
}

static const struct ot_op OP_LN = {"layernorm", ln_setup, ln_call, ln_check, NULL, NULL, 0};

/* ---- layernorm2d: p = {batch, channels, pixels, act, residual, out in x, misalign} ---- */
static void ln2d_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0] * p[1] * p[2];
    const int x = ot_buf_random(c, c->dt, n, -3.0f, 5.0f);
    if (p[5]) c->b[x].role = OT_INOUT;
    const int r = p[4] ? ot_buf_random(c, c->dt, n, -1.0f, 1.0f) : ot_buf_null(c);
    ot_buf_random(c, c->dt, p[1], 0.5f, 1.5f);
    ot_buf_random(c, c->dt, p[1], -0.5f, 0.5f);
    const int out = p[5] ? ot_buf_alias(c, x) : ot_buf_add(c, c->dt, n, OT_OUT);
    c->b[x].misalign = c->b[r].misalign = c->b[out].misalign = (int)p[6];
    c->moved = (double)n * samrt_dtype_size(c->dt) * (2 + (p[4] ? 1 : 0)) + 2.0 * p[1] * samrt_dtype_size(c->dt);
}

static enum samrt_status ln2d_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_layernorm2d_args a = {c->dt, q[0], (int32_t)q[1], q[2], 1e-6f, (enum samrt_act)q[3],
                                       p[0], p[1], p[2], p[3], p[4]};
    (void)stream;
    return gpu ? OT_GPU(samrt_layernorm2d_cuda(&a, (cudaStream_t)stream)) : samrt_layernorm2d_ref(&a);
}

static const struct ot_op OP_LN2D = {"layernorm2d", ln2d_setup, ln2d_call, NULL, NULL, NULL, 0};

/* ---- unary: p = {n, act, in place, misalign}, f = {alpha, beta, lo, hi} ---- */
static void unary_setup(struct ot_case *c) {
    const long *p = c->row->p;
    const int x = ot_buf_random(c, c->dt, p[0], c->row->f[2], c->row->f[3]);
    const int out = p[2] ? ot_buf_alias(c, x) : ot_buf_add(c, c->dt, p[0], OT_OUT);
    if (p[2]) c->b[x].role = OT_INOUT;
    c->b[x].misalign = c->b[out].misalign = (int)p[3];
    c->moved = 2.0 * p[0] * samrt_dtype_size(c->dt);
}

static enum samrt_status unary_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const struct ot_row *r = c->row;
    struct samrt_unary_args a = {c->dt, (enum samrt_act)r->p[1], r->p[0], r->f[0], r->f[1], p[0], p[1]};
    (void)stream;
    return gpu ? OT_GPU(samrt_unary_cuda(&a, (cudaStream_t)stream)) : samrt_unary_ref(&a);
}

/* f32: alpha * act(x) + beta with the textbook activation in double */
static long unary_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const float *x = (const float *)c->b[0].init, *out = (const float *)p[1];
    long bad = 0;
    for (long i = 0; i < c->row->p[0]; i++) {
        const double v = x[i];
        double y = v;
        switch ((enum samrt_act)c->row->p[1]) {
        case SAMRT_ACT_GELU: y = 0.5 * v * (1.0 + erf(v / sqrt(2.0))); break;
        case SAMRT_ACT_RELU: y = v > 0 ? v : 0; break;
        case SAMRT_ACT_SIGMOID: y = 1.0 / (1.0 + exp(-v)); break;
        default: break;
        }
        y = c->row->f[0] * y + c->row->f[1];
        bad += !(fabs(out[i] - y) <= 1e-5 + 1e-5 * fabs(y));
    }
    return bad;
}

static const struct ot_op OP_UNARY = {"unary", unary_setup, unary_call, unary_check, NULL, NULL, 0};

/* ---- add_scaled: p = {n, out is y, misalign}, f = {a, b} ---- */
static void add_setup(struct ot_case *c) {
    const long *p = c->row->p;
    const int x = ot_buf_random(c, c->dt, p[0], -4, 4), y = ot_buf_random(c, c->dt, p[0], -1, 1);
    const int out = p[1] ? ot_buf_alias(c, y) : ot_buf_add(c, c->dt, p[0], OT_OUT);
    if (p[1]) c->b[y].role = OT_INOUT;
    c->b[x].misalign = c->b[y].misalign = c->b[out].misalign = (int)p[2];
    c->moved = 3.0 * p[0] * samrt_dtype_size(c->dt);
}

static enum samrt_status add_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    struct samrt_add_scaled_args a = {c->dt, c->row->p[0], c->row->f[0], c->row->f[1], p[0], p[1], p[2]};
    (void)stream;
    return gpu ? OT_GPU(samrt_add_scaled_cuda(&a, (cudaStream_t)stream)) : samrt_add_scaled_ref(&a);
}

/* f32: a * x + b * y in double */
static long add_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const float *x = (const float *)c->b[0].init, *y = (const float *)c->b[1].init, *out = (const float *)p[2];
    long bad = 0;
    for (long i = 0; i < c->row->p[0]; i++) {
        const double v = (double)c->row->f[0] * x[i] + (double)c->row->f[1] * y[i];
        bad += !(fabs(out[i] - v) <= 1e-6 + 1e-6 * fabs(v));
    }
    return bad;
}

static const struct ot_op OP_ADD = {"add_scaled", add_setup, add_call, add_check, NULL, NULL, 0};

/* ---- channel_affine: p = {n, channels, inner, scale, bias, residual, out is x, misalign},
 *      f = {params f32, act} ---- */
static void affine_setup(struct ot_case *c) {
    const long *p = c->row->p;
    const enum samrt_dtype pt = c->row->f[0] != 0.0f ? SAMRT_DTYPE_F32 : c->dt;
    const int x = ot_buf_random(c, c->dt, p[0], -2, 2);
    if (p[6]) c->b[x].role = OT_INOUT;
    p[3] ? ot_buf_random(c, pt, p[1], -1, 1) : ot_buf_null(c);
    p[4] ? ot_buf_random(c, pt, p[1], -1, 1) : ot_buf_null(c);
    const int r = p[5] ? ot_buf_random(c, c->dt, p[0], -3, 3) : ot_buf_null(c);
    const int out = p[6] ? ot_buf_alias(c, x) : ot_buf_add(c, c->dt, p[0], OT_OUT);
    c->b[x].misalign = c->b[r].misalign = c->b[out].misalign = (int)p[7];
    c->moved = (2.0 + (p[5] ? 1 : 0)) * p[0] * samrt_dtype_size(c->dt);
}

static enum samrt_status affine_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const struct ot_row *r = c->row;
    struct samrt_channel_affine_args a = {c->dt, r->p[0], (int32_t)r->p[1], r->p[2], p[0], p[1], p[2], p[3], p[4],
                                          r->f[0] != 0.0f, (enum samrt_act)(int)r->f[1]};
    (void)stream;
    return gpu ? OT_GPU(samrt_channel_affine_cuda(&a, (cudaStream_t)stream)) : samrt_channel_affine_ref(&a);
}

static const struct ot_op OP_AFFINE = {"channel_affine", affine_setup, affine_call, NULL, NULL, NULL, 0};

#define F OT_FLOATS
#define B OT_BENCH
#define GELU SAMRT_ACT_GELU
#define RELU SAMRT_ACT_RELU
#define SIGM SAMRT_ACT_SIGMOID
#define NONE SAMRT_ACT_NONE

const struct ot_row ot_rows_norm[] = {
    /* layernorm: rows, cols, residual, sum mode, out in x, misalign; eps */
    {&OP_LN, "hiera_t_s1", F, 0, &TOL_LN, B, {65536, 96, 0, SUM_NONE, 0, 0}, {1e-6f}},  /* 256x256 tokens */
    {&OP_LN, "hiera_t_s2", F, 0, &TOL_LN, B, {16384, 192, 1, SUM_SEPARATE, 0, 0}, {1e-6f}},
    {&OP_LN, "memattn", F, 0, &TOL_LN, B, {4096, 256, 1, SUM_IN_X, 0, 0}, {1e-5f}},     /* x += attn; t = LN(x) */
    {&OP_LN, "hiera_t_s4", F, 0, &TOL_LN, B, {1024, 768, 0, SUM_NONE, 0, 0}, {1e-6f}},
    {&OP_LN, "hiera_l_s4", F, 0, &TOL_LN, B, {1024, 1152, 1, SUM_IN_X, 0, 0}, {1e-6f}},
    {&OP_LN, "hiera_b_s1", F, 0, &TOL_LN, B, {65536, 112, 0, SUM_NONE, 0, 0}, {1e-6f}}, /* base_plus stage 1 */
    {&OP_LN, "perceiver", F, 0, &TOL_LN, 0, {256, 64, 0, SUM_NONE, 0, 0}, {1e-5f}},     /* EdgeTAM */
    {&OP_LN, "one_row", F, 0, &TOL_LN, 0, {1, 256, 1, SUM_SEPARATE, 0, 0}, {1e-5f}},
    {&OP_LN, "odd_c97", F, 0, &TOL_LN, 0, {37, 97, 1, SUM_SEPARATE, 0, 0}, {1e-5f}},
    {&OP_LN, "c1", F, 0, &TOL_LN, 0, {5, 1, 0, SUM_NONE, 0, 0}, {1e-5f}},
    {&OP_LN, "inplace_out", F, 0, &TOL_LN, 0, {333, 1000, 0, SUM_NONE, 1, 0}, {1e-6f}},
    {&OP_LN, "unaligned", F, 0, &TOL_LN, 0, {129, 256, 1, SUM_SEPARATE, 0, 1}, {1e-5f}},
    {&OP_LN, "no_res_sum", F, 0, &TOL_LN, 0, {64, 96, 0, SUM_SEPARATE, 0, 0}, {1e-6f}},
    /* layernorm2d: batch, channels, pixels, act, residual, out in x, misalign */
    {&OP_LN2D, "cxblock", F, 0, &TOL_LN, B, {1, 256, 64 * 64, NONE, 0, 0, 0}, {0}},     /* fuser CXBlock */
    {&OP_LN2D, "maskdown0", F, 0, &TOL_LN, B, {1, 4, 512 * 512, GELU, 0, 0, 0}, {0}},   /* memory encoder */
    {&OP_LN2D, "maskdown1", F, 0, &TOL_LN, B, {1, 16, 256 * 256, GELU, 0, 0, 0}, {0}},
    {&OP_LN2D, "maskdown2", F, 0, &TOL_LN, B, {1, 64, 128 * 128, GELU, 0, 0, 0}, {0}},
    {&OP_LN2D, "maskdown3", F, 0, &TOL_LN, B, {1, 256, 64 * 64, GELU, 0, 0, 0}, {0}},
    {&OP_LN2D, "dec_upscale", F, 0, &TOL_LN, B, {1, 64, 128 * 128, GELU, 1, 0, 0}, {0}}, /* GELU(LN2d(u + s1)) */
    {&OP_LN2D, "c64_256x256", F, 0, &TOL_LN, B, {1, 64, 256 * 256, NONE, 0, 0, 0}, {0}},
    {&OP_LN2D, "odd", F, 0, &TOL_LN, 0, {2, 3, 7 * 9, GELU, 1, 0, 0}, {0}},
    {&OP_LN2D, "c1_px1", F, 0, &TOL_LN, 0, {1, 1, 1, NONE, 0, 0, 0}, {0}},
    {&OP_LN2D, "c33_inplace", F, 0, &TOL_LN, 0, {3, 33, 5 * 5, RELU, 0, 1, 0}, {0}},
    {&OP_LN2D, "unaligned", F, 0, &TOL_LN, 0, {2, 16, 32 * 32, GELU, 1, 0, 1}, {0}},
    /* unary: n, act, in place, misalign; alpha, beta, lo, hi */
    {&OP_UNARY, "gelu_hiera_t_s1_mlp", F, 0, &TOL_EW, B, {65536L * 384, GELU, 0, 0}, {1, 0, -6, 6}},
    {&OP_UNARY, "gelu_hiera_t_s3_mlp", F, 0, &TOL_EW, B, {4096L * 1536, GELU, 0, 0}, {1, 0, -6, 6}},
    {&OP_UNARY, "relu_memattn_ffn", F, 0, &TOL_EW, B, {4096L * 2048, RELU, 1, 0}, {1, 0, -3, 3}},
    {&OP_UNARY, "sigmoid_mask_prep", F, 0, &TOL_EW, B, {1024L * 1024, SIGM, 0, 0}, {20, -10, -30, 30}},
    {&OP_UNARY, "gelu_n1", F, 0, &TOL_EW, 0, {1, GELU, 0, 0}, {1, 0, -2, 2}},
    {&OP_UNARY, "gelu_n1001", F, 0, &TOL_EW, 0, {1001, GELU, 0, 0}, {1, 0, -2, 2}},
    {&OP_UNARY, "sigmoid_unaligned", F, 0, &TOL_EW, 0, {4099, SIGM, 0, 1}, {1, 0, -9, 9}},
    {&OP_UNARY, "none_affine", F, 0, &TOL_EW, 0, {777, NONE, 1, 1}, {0.5f, 3, -4, 4}},
    /* add_scaled: n, out is y, misalign; a, b */
    {&OP_ADD, "add_pos_0.1", F, 0, &TOL_EW, B, {4096L * 256, 0, 0}, {1.0f, 0.1f}},  /* x + 0.1 * pos */
    {&OP_ADD, "add_residual", F, 0, &TOL_EW, B, {65536L * 96, 1, 0}, {1.0f, 1.0f}},
    {&OP_ADD, "add_odd", F, 0, &TOL_EW, 0, {7, 0, 1}, {2.0f, -0.5f}},
    {&OP_ADD, "add_select", F, 0, &TOL_EW, 0, {256, 0, 0}, {0.0f, 1.0f}},  /* lam * ptr + (1 - lam) * no_obj */
    /* channel_affine: n, channels, inner, scale, bias, residual, out is x, misalign; params f32, act */
    {&OP_AFFINE, "layer_scale_nchw", F, 0, &TOL_EW, B, {256L * 64 * 64, 256, 64 * 64, 1, 0, 1, 0, 0}, {0, NONE}},
    {&OP_AFFINE, "layer_scale_tokens", F, 0, &TOL_EW, B, {4096L * 256, 256, 1, 1, 0, 1, 0, 0}, {0, NONE}},
    {&OP_AFFINE, "no_mem_embed", F, 0, &TOL_EW, B, {4096L * 256, 256, 1, 0, 1, 0, 1, 0}, {0, NONE}},
    {&OP_AFFINE, "no_obj_embed_spatial", F, 0, &TOL_EW, 0, {64L * 64 * 64, 64, 64 * 64, 0, 1, 0, 0, 0}, {0, NONE}},
    {&OP_AFFINE, "odd_all", F, 0, &TOL_EW, 0, {2L * 3 * 5, 3, 5, 1, 1, 1, 0, 1}, {0, NONE}},
    {&OP_AFFINE, "odd_tokens", F, 0, &TOL_EW, 0, {9L * 7, 7, 1, 1, 1, 0, 1, 1}, {0, NONE}},
    {&OP_AFFINE, "bn_gelu_tokens", F, 0, &TOL_EW, B, {4096L * 96, 96, 1, 1, 1, 0, 0, 0}, {1, GELU}},  /* RepViT */
    {&OP_AFFINE, "bn_residual_odd", F, 0, &TOL_EW, 0, {9L * 7, 7, 1, 1, 1, 1, 0, 1}, {1, NONE}},
    {&OP_AFFINE, "bn_relu_nchw", F, 0, &TOL_EW, 0, {2L * 3 * 5, 3, 5, 1, 1, 0, 0, 1}, {1, RELU}},
};
const int ot_n_rows_norm = (int)(sizeof ot_rows_norm / sizeof ot_rows_norm[0]);
