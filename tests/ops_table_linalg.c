/* ops_table_linalg.c - the op table's rows for the library-backed products: the Linear
 * (kernels/gemm.h, cuBLASLt with its fused epilogues: bias, exact-erf GELU, ReLU, residual,
 * alpha, row strides whose padding stays untouched, strided batches with shared or per-batch
 * weights and biases, a zero-workspace cap; the dtype pairs f32, f16, bf16, bf16->f32,
 * f16->f32; bias + GELU in one CUTLASS kernel (gemm_cutlass.h) for f16 / bf16 at Hiera's MLP
 * shapes and odd ones, beside the same shapes forced onto cuBLASLt + the pass), the
 * convolution (kernels/conv.h, cuDNN in NCHW and NHWC with timed or heuristic algorithm
 * choice: Hiera's patch embed, RepViT's stem, the memory encoder's mask
 * downsampler, the prompt encoder's 2x2/2, 1x1 projections with residual, the fuser's
 * depthwise 7x7 through dwconv.h's kernel and through cuDNN, grouped and odd shapes), the
 * transposed 2x2/2 convolution of the mask decoder (two cuBLASLt GEMMs) and the depthwise
 * conv with its BatchNorms fused (dwconv.h's bn form: EdgeTAM RepViT's downsamples and RepVggDw
 * mixers). The plans are made on the GPU runner's handles (ot_op.gpu_prepare).
 * Inputs are multiples of 1/64 in [-1, 1] (exact in every dtype; products exact in f32 and sums
 * exact while below 4096), so an f32 result differs from the reference only by the GELU's erff
 * and cuDNN's FFT / Winograd transforms, and a half one by its output rounding(s); the
 * tolerances are fractions of the output's largest magnitude (ot_tol.scaled). The references
 * of the largest products compute a sample of rows (ot_buf.sampled). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "ops_table.h"
#include "test_util.h"

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

/* |got - want| <= atol * max|want| + rtol * |want|: a half output rounds once (the fused GELU
 * kernel, like the reference: GELU of the f32 sum) or twice (cuBLASLt's bias epilogue, then the
 * GELU pass) at 2^-12 (f16) / 2^-9 (bf16) relative; f32 is exact up to erff */
static const struct ot_tol TOL_GEMM = {"gemm_out_round", {1e-6, 1.0 / 2048, 1.0 / 256}, {2e-6, 1.0 / 1024, 1.0 / 128},
                                       0, 1};
/* cuDNN may pick FFT or Winograd algorithms whose transforms round (f32 included) */
static const struct ot_tol TOL_CONV = {"conv_transform", {1e-5, 1.0 / 1024, 1.0 / 128}, {1e-5, 1.0 / 512, 1.0 / 64},
                                       0, 1};
/* the bn form rounds the conv output, the BatchNorm and the sums one at a time as the unfused
 * chain does (the reference rounds the same way), but its f32 tap sum may run in another order:
 * one flipped rounding of t moves y by s * ulp(t), and the RepVggDw sum cancels */
static const struct ot_tol TOL_BN = {"bn_chain_round", {1e-5, 1.0 / 512, 1.0 / 64}, {1e-5, 1.0 / 512, 1.0 / 64}, 0, 1};

#define OT_WS_CAP ((size_t)64 << 20)  /* the h100 profile's cuBLASLt / cuDNN cap order of magnitude */
#define GM_REF_MACS 1e8                /* per reference call: beyond it, a sample of rows */

static void la_fail(const struct ot_case *c, const char *what) {
    fprintf(stderr, "%s/%s: %s\n", c->row->op->name, c->row->shape, what);
    exit(1);
}

static void *la_malloc(const struct ot_case *c, size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) la_fail(c, "no memory");
    return p;
}

/* n multiples of 1/64 in [-1, 1] stored as dt (the values of f, when f is given) */
static int la_quant(struct ot_case *c, enum samrt_dtype dt, long n, uint64_t salt, float *f) {
    float *v = f ? f : (float *)la_malloc(c, sizeof(float) * (size_t)n);
    uint64_t s = (c->seed + salt) * 0x9E3779B97F4A7C15ull + 7;
    for (long i = 0; i < n; i++) v[i] = (float)((int)(tu_rand_u32(&s) % 129u) - 64) / 64.0f;
    void *h = la_malloc(c, samrt_dtype_size(dt) * (size_t)n);
    tu_store(dt, h, v, n);
    const int b = ot_buf_copy(c, dt, n, h);
    free(h);
    if (!f) free(v);
    return b;
}

/* float copies of the buffers (NULL stays NULL), freed by la_free_all */
static void la_load_all(const struct ot_case *c, void *const *p, float **f) {
    for (int i = 0; i < c->nb; i++) f[i] = p[i] && c->b[i].n > 0 ? ot_load(c, i, p[i]) : NULL;
}

static void la_free_all(const struct ot_case *c, float **f) {
    for (int i = 0; i < c->nb; i++) free(f[i]);
}

/* the GPU state of the library ops: a plan and a workspace of the row's cap */
#ifdef SAMRT_HAVE_CUDA
struct la_gpu {
    struct samrt_gemm_plan gemm;
    struct samrt_conv_plan conv;
    struct samrt_convt2x2_plan convt;
    int kind;  /* 1 gemm, 2 conv, 3 convt */
    void *ws;
    size_t cap;
};

static struct la_gpu *la_gpu_new(struct ot_case *c, size_t cap) {
    struct la_gpu *g = (struct la_gpu *)calloc(1, sizeof *g);
    if (!g) return NULL;
    c->gpu = g;
    g->cap = cap;
    if (cap && cudaMalloc(&g->ws, cap) != cudaSuccess) g->ws = NULL;
    return g;
}

static void la_gpu_free(struct ot_case *c) {
    struct la_gpu *g = (struct la_gpu *)c->gpu;
    if (!g) return;
    if (g->kind == 1) samrt_gemm_plan_free(&g->gemm);
    if (g->kind == 2) samrt_conv_plan_free(&g->conv);
    if (g->kind == 3) samrt_convt2x2_plan_free(&g->convt);
    cudaFree(g->ws);
    free(g);
    c->gpu = NULL;
}
#endif

#ifdef SAMRT_HAVE_CUDA
static int la_gpu_prepare(struct ot_case *c, const struct samrt_gpu_ctx *ctx, void *const *d, int v);
#define LA_GPU_HOOKS la_gpu_prepare, la_gpu_free, 1
#else
#define LA_GPU_HOOKS NULL, NULL, 0
#endif

/* The planned launch; the three library ops keep x, w, bias, residual, y in buffers 0..4. */
static enum samrt_status la_gpu_run(const struct ot_case *c, void *const *p, void *stream) {
#ifdef SAMRT_HAVE_CUDA
    const struct la_gpu *g = (const struct la_gpu *)c->gpu;
    const cudaStream_t s = (cudaStream_t)stream;
    if (!g) return SAMRT_E_INVALID_ARG;
    if (g->kind == 1) return samrt_gemm_cuda(&g->gemm, p[0], p[1], p[2], p[3], p[4], g->ws, g->cap, s);
    if (g->kind == 2) return samrt_conv_cuda(&g->conv, p[0], p[1], p[2], p[3], p[4], g->ws, g->cap, s);
    return samrt_convt2x2_cuda(&g->convt, p[0], p[1], p[2], p[3], p[4], g->ws, g->cap, s);
#else
    (void)c;
    (void)p;
    (void)stream;
    return SAMRT_E_UNSUPPORTED;
#endif
}

/* the epilogue's activation, as the reference applies it */
static float la_act(enum samrt_epilogue ep, float v) {
    const enum samrt_epilogue_act act = samrt_epilogue_act(ep);
    return act == SAMRT_EPILOGUE_ACT_GELU ? samrt_epilogue_gelu_ref(v)
         : act == SAMRT_EPILOGUE_ACT_RELU && v < 0.0f ? 0.0f : v;
}

/* ---- gemm: p = {m, n, k, epilogue, residual, pad_x, pad_y, batches, mode (1: one shared
 *      weight, 2: a bias per batch, GM_LIB), workspace (-1: none)}, f = {alpha (0: 1)} ---- */
enum { GM_X, GM_W, GM_BIAS, GM_R, GM_Y };
#define GM_LIB 4  /* cuBLASLt + the GELU pass even where the fused kernel applies (force_library) */

static struct samrt_gemm_desc gm_desc(const struct ot_case *c) {
    const long *p = c->row->p;
    struct samrt_gemm_desc d = samrt_gemm_desc_make(p[0], p[1], p[2], c->src, c->dt, (enum samrt_epilogue)p[3]);
    d.s_x = p[2] + p[5];
    d.s_y = p[1] + p[6];
    d.alpha = c->row->f[0] != 0.0f ? c->row->f[0] : 1.0f;
    d.residual = (int)p[4];
    d.n_batch = p[7] > 1 ? p[7] : 1;
    d.force_library = (p[8] & GM_LIB) != 0;
    if (d.n_batch > 1) {
        d.sb_x = d.m * d.s_x;
        d.sb_w = p[8] & 1 ? 0 : d.n * d.s_w;
        d.sb_y = d.m * d.s_y;
        d.sb_b = p[8] & 2 ? d.n : 0;
    }
    return d;
}

static long gm_row_step(const struct samrt_gemm_desc *d) {
    const double macs = (double)d->m * d->n * d->k * d->n_batch;
    return macs > GM_REF_MACS && d->n_batch == 1 ? (long)(macs / GM_REF_MACS) + 1 : 1;
}

static void gm_setup(struct ot_case *c) {
    if (c->src != c->dt && c->dt != SAMRT_DTYPE_F32) return;  /* half inputs give their dtype or f32 */
    const struct samrt_gemm_desc d = gm_desc(c);
    const long nx = (long)((d.n_batch - 1) * d.sb_x + d.m * d.s_x), nw = (long)((d.n_batch - 1) * d.sb_w + d.n * d.s_w);
    const long nbias = (long)((d.n_batch - 1) * d.sb_b + d.n), ny = (long)((d.n_batch - 1) * d.sb_y + d.m * d.s_y);
    la_quant(c, c->src, nx, 1, NULL);
    la_quant(c, c->src, nw, 2, NULL);
    samrt_epilogue_has_bias(d.epilogue) ? la_quant(c, c->dt, nbias, 3, NULL) : ot_buf_null(c);
    d.residual ? la_quant(c, c->dt, ny, 4, NULL) : ot_buf_null(c);
    const int y = ot_buf_add(c, c->dt, ny, OT_OUT);
    c->b[y].sampled = gm_row_step(&d) > 1;
    c->flops = samrt_gemm_flops(&d);
    c->moved = (double)(nx + nw) * samrt_dtype_size(c->src) + (double)ny * (1 + d.residual) * samrt_dtype_size(c->dt);
}

static enum samrt_status gm_ref(const struct ot_case *c, void *const *p) {
    const struct samrt_gemm_desc d = gm_desc(c);
    float *f[OT_MAX_BUFS];
    la_load_all(c, p, f);
    float *y = f[GM_Y];  /* NaN bytes: what the reference leaves stays NaN */
    const long step = gm_row_step(&d);
    if (step == 1) {
        samrt_gemm_ref(&d, f[GM_X], f[GM_W], f[GM_BIAS], f[GM_R], y);
    } else {
        struct samrt_gemm_desc one = d;
        one.m = 1;
        for (long i = 0; i < d.m; i++)
            if (i % step == 0 || i == d.m - 1)
                samrt_gemm_ref(&one, f[GM_X] + i * d.s_x, f[GM_W], f[GM_BIAS], f[GM_R] ? f[GM_R] + i * d.s_y : NULL,
                               y + i * d.s_y);
    }
    tu_store(c->dt, p[GM_Y], y, c->b[GM_Y].n);
    la_free_all(c, f);
    return SAMRT_OK;
}

static enum samrt_status gm_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    return gpu ? la_gpu_run(c, p, stream) : gm_ref(c, p);
}

/* f32 -> f32 small products: every output by hand (a double sum: exact for these inputs), the
 * epilogue in the reference's order; the padding columns stay NaN */
static long gm_check(const struct ot_case *c, void *const *p) {
    const struct samrt_gemm_desc d = gm_desc(c);
    if (c->dt != SAMRT_DTYPE_F32 || c->src != SAMRT_DTYPE_F32 || samrt_gemm_flops(&d) > 4e7) return 0;
    const float *x = (const float *)p[GM_X], *w = (const float *)p[GM_W], *b = (const float *)p[GM_BIAS];
    const float *r = (const float *)p[GM_R], *y = (const float *)p[GM_Y];
    long bad = 0;
    for (long bt = 0; bt < d.n_batch; bt++)
        for (long i = 0; i < d.m; i++)
            for (long j = 0; j < d.s_y; j++) {
                const long o = (long)(bt * d.sb_y + i * d.s_y + j);
                if (j >= d.n) { bad += !isnan(y[o]); continue; }
                double acc = 0;
                for (long k = 0; k < d.k; k++)
                    acc += (double)x[bt * d.sb_x + i * d.s_x + k] * w[bt * d.sb_w + j * d.s_w + k];
                float v = d.alpha * (float)acc;
                if (b) v += b[bt * d.sb_b + j];
                if (r) v += r[o];
                const float want = la_act(d.epilogue, v);
                bad += !(fabsf(want - y[o]) <= 1e-6f * (1.0f + fabsf(want)));
            }
    return bad;
}

static const struct ot_op OP_GEMM = {"gemm", gm_setup, gm_call, gm_check, LA_GPU_HOOKS};

/* ---- conv: p = {n, c_in, h, w, c_out, k, stride, pad, groups, flags (CV_*)} ---- */
#define CV_RES 4      /* a residual (y's shape) before the activation */
#define CV_NHWC 8     /* NHWC activations, (out, kh, kw, in/groups) weights */
#define CV_TUNE 16    /* timed algorithm search (FindEx) on the case's buffers */
#define CV_NOWS 32    /* a zero workspace cap */
#define CV_LIB 64     /* cuDNN even where dwconv.h's kernel applies */
enum { CV_X, CV_W, CV_BIAS, CV_R, CV_Y };

static struct samrt_conv_desc cv_desc(const struct ot_case *c) {
    const long *p = c->row->p;
    struct samrt_conv_desc d = samrt_conv_desc_make((int)p[0], (int)p[1], (int)p[2], (int)p[3], (int)p[4], (int)p[5],
                                                    (int)p[6], (int)p[7], (int)p[8],
                                                    p[9] & CV_NHWC ? SAMRT_CONV_NHWC : SAMRT_CONV_NCHW, c->dt,
                                                    (enum samrt_epilogue)(p[9] & 3));
    d.residual = (p[9] & CV_RES) != 0;
    d.force_library = (p[9] & CV_LIB) != 0;
    return d;
}

static void cv_setup(struct ot_case *c) {
    const struct samrt_conv_desc d = cv_desc(c);
    if (samrt_conv_desc_check(&d) != SAMRT_OK) la_fail(c, "bad desc");
    const long nx = (long)samrt_conv_x_elems(&d), nw = (long)samrt_conv_w_elems(&d), ny = (long)samrt_conv_y_elems(&d);
    la_quant(c, c->dt, nx, 11, NULL);
    la_quant(c, c->dt, nw, 12, NULL);
    samrt_epilogue_has_bias(d.epilogue) ? la_quant(c, c->dt, d.c_out, 13, NULL) : ot_buf_null(c);
    d.residual ? la_quant(c, c->dt, ny, 14, NULL) : ot_buf_null(c);
    ot_buf_add(c, c->dt, ny, OT_OUT);
    c->flops = samrt_conv_flops(&d);
    c->moved = (double)(nx + nw + ny * (1 + d.residual)) * samrt_dtype_size(c->dt);
}

static enum samrt_status cv_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    if (gpu) return la_gpu_run(c, p, stream);
    const struct samrt_conv_desc d = cv_desc(c);
    float *f[OT_MAX_BUFS];
    la_load_all(c, p, f);
    samrt_conv_ref(&d, f[CV_X], f[CV_W], f[CV_BIAS], f[CV_R], f[CV_Y]);
    tu_store(c->dt, p[CV_Y], f[CV_Y], c->b[CV_Y].n);
    la_free_all(c, f);
    return SAMRT_OK;
}

/* f32, small convs: the centre output pixel of every (image, channel) by hand, in the row's
 * layout (exact sums for these inputs) */
static long cv_check(const struct ot_case *c, void *const *p) {
    const struct samrt_conv_desc d = cv_desc(c);
    if (c->dt != SAMRT_DTYPE_F32 || samrt_conv_flops(&d) > 2e8) return 0;
    int ho, wo;
    samrt_conv_out_hw(&d, &ho, &wo);
    const int nhwc = d.layout == SAMRT_CONV_NHWC, cpg = d.c_in / d.groups, opg = d.c_out / d.groups;
    const float *x = (const float *)p[CV_X], *w = (const float *)p[CV_W], *b = (const float *)p[CV_BIAS];
    const float *r = (const float *)p[CV_R], *y = (const float *)p[CV_Y];
    const int oy = ho / 2, ox = wo / 2;
    long bad = 0;
    for (long n = 0; n < d.n; n++)
        for (long o = 0; o < d.c_out; o++) {
            double acc = 0;
            for (long ci = 0; ci < cpg; ci++)
                for (long ky = 0; ky < d.kh; ky++)
                    for (long kx = 0; kx < d.kw; kx++) {
                        const long iy = oy * d.stride_h - d.pad_h + ky, ix = ox * d.stride_w - d.pad_w + kx;
                        if (iy < 0 || iy >= d.h || ix < 0 || ix >= d.w) continue;
                        const long ch = o / opg * cpg + ci;
                        const float xv = nhwc ? x[((n * d.h + iy) * d.w + ix) * d.c_in + ch]
                                              : x[((n * d.c_in + ch) * d.h + iy) * d.w + ix];
                        const float wv = nhwc ? w[((o * d.kh + ky) * d.kw + kx) * cpg + ci]
                                              : w[((o * cpg + ci) * d.kh + ky) * d.kw + kx];
                        acc += (double)xv * wv;
                    }
            const long at = nhwc ? ((n * ho + oy) * wo + ox) * d.c_out + o : ((n * d.c_out + o) * ho + oy) * wo + ox;
            float v = (float)acc + (b ? b[o] : 0.0f);
            if (r) v += r[at];
            const float want = la_act(d.epilogue, v);
            bad += !(fabsf(want - y[at]) <= 1e-6f * (1.0f + fabsf(want)));
        }
    return bad;
}

static const struct ot_op OP_CONV = {"conv", cv_setup, cv_call, cv_check, LA_GPU_HOOKS};

/* ---- convt2x2: p = {n, c_in, h, w, c_out, epilogue, residual}; NHWC; the launcher reads the
 *      packed weight and bias, the reference PyTorch's (c_in, c_out, 2, 2) and (c_out) ---- */
enum { CT_X, CT_WP, CT_BP, CT_R, CT_Y, CT_W, CT_B };

static struct samrt_convt2x2_desc ct_desc(const struct ot_case *c) {
    const long *p = c->row->p;
    const struct samrt_convt2x2_desc d = {(int)p[0], (int)p[1], (int)p[2], (int)p[3], (int)p[4], c->dt,
                                          (enum samrt_epilogue)p[5], (int)p[6]};
    return d;
}

static void ct_setup(struct ot_case *c) {
    const struct samrt_convt2x2_desc d = ct_desc(c);
    const long nx = (long)d.n * d.h * d.w * d.c_in, nw = 4L * d.c_in * d.c_out, ny = 4L * d.n * d.h * d.w * d.c_out;
    float *w = (float *)la_malloc(c, sizeof(float) * (size_t)(nw + d.c_out)), *b = w + nw;
    float *wp = (float *)la_malloc(c, sizeof(float) * (size_t)(nw + 2 * d.c_out)), *bp = wp + nw;
    void *h = la_malloc(c, samrt_dtype_size(c->dt) * (size_t)(nw + 2 * d.c_out));
    la_quant(c, c->dt, nx, 21, NULL);
    uint64_t s = c->seed * 31 + 22;
    for (long i = 0; i < nw + d.c_out; i++) w[i] = (float)((int)(tu_rand_u32(&s) % 129u) - 64) / 64.0f;
    samrt_conv_pack_transpose2x2(d.c_in, d.c_out, w, b, wp, bp);
    tu_store(c->dt, h, wp, nw);
    ot_buf_copy(c, c->dt, nw, h);
    tu_store(c->dt, h, bp, 2L * d.c_out);
    ot_buf_copy(c, c->dt, 2L * d.c_out, h);
    d.residual ? la_quant(c, c->dt, ny, 24, NULL) : ot_buf_null(c);
    ot_buf_add(c, c->dt, ny, OT_OUT);
    tu_store(c->dt, h, w, nw + d.c_out);  /* the values the packed copies hold */
    ot_buf_copy(c, c->dt, nw, h);
    ot_buf_copy(c, c->dt, d.c_out, (char *)h + samrt_dtype_size(c->dt) * (size_t)nw);
    free(w);
    free(wp);
    free(h);
    c->flops = 2.0 * nx * d.c_out * 4;
    c->moved = (double)(nx + nw + ny * (1 + d.residual)) * samrt_dtype_size(c->dt);
}

static enum samrt_status ct_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    if (gpu) return la_gpu_run(c, p, stream);
    const struct samrt_convt2x2_desc d = ct_desc(c);
    float *f[OT_MAX_BUFS];
    la_load_all(c, p, f);
    samrt_convt2x2_ref(&d, f[CT_X], f[CT_W], f[CT_B], f[CT_R], f[CT_Y]);
    tu_store(c->dt, p[CT_Y], f[CT_Y], c->b[CT_Y].n);
    la_free_all(c, f);
    return SAMRT_OK;
}

/* f32: the first input pixel's 2x2 output block of every image by hand */
static long ct_check(const struct ot_case *c, void *const *p) {
    const struct samrt_convt2x2_desc d = ct_desc(c);
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const float *x = (const float *)p[CT_X], *w = (const float *)p[CT_W], *b = (const float *)p[CT_B];
    const float *r = (const float *)p[CT_R], *y = (const float *)p[CT_Y];
    long bad = 0;
    for (long n = 0; n < d.n; n++)
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++)
                for (long o = 0; o < d.c_out; o++) {
                    double acc = 0;
                    for (long i = 0; i < d.c_in; i++)
                        acc += (double)x[n * d.h * d.w * d.c_in + i] * w[((i * d.c_out + o) * 2 + dy) * 2 + dx];
                    const long at = ((n * 2 * d.h + dy) * 2 * d.w + dx) * d.c_out + o;
                    float v = (float)acc + b[o];
                    if (r) v += r[at];
                    const float want = la_act(d.epilogue, v);
                    bad += !(fabsf(want - y[at]) <= 1e-6f * (1.0f + fabsf(want)));
                }
    return bad;
}

static const struct ot_op OP_CONVT = {"convt2x2", ct_setup, ct_call, ct_check, LA_GPU_HOOKS};

/* ---- dwconv_bn: p = {n, h, w, c, k, stride, pad, act, residual, mode (1 AFFINE, 2 REPVGG) +
 *      16 for a conv bias}; the four BatchNorm vectors s, sh, s1, sh1 in one f32 buffer ---- */
enum { BN_X, BN_W, BN_BIAS, BN_F, BN_W1, BN_R, BN_Y };

static struct samrt_dwconv_desc bn_desc(const struct ot_case *c) {
    const long *p = c->row->p;
    const struct samrt_dwconv_desc d = {(int)p[0], (int)p[1], (int)p[2], (int)p[3], (int)p[4], (int)p[5], (int)p[6],
                                        c->dt, (enum samrt_epilogue_act)p[7], (p[9] & 16) != 0, (int)p[8]};
    return d;
}

static void bn_setup(struct ot_case *c) {
    const struct samrt_dwconv_desc d = bn_desc(c);
    const enum samrt_dwconv_bn mode = (enum samrt_dwconv_bn)(c->row->p[9] & 3);
    if (!samrt_dwconv_bn_shape_ok(&d, mode)) la_fail(c, "shape not supported");
    int ho, wo;
    samrt_dwconv_out_hw(&d, &ho, &wo);
    const long nx = (long)d.n * d.h * d.w * d.c, ny = (long)d.n * ho * wo * d.c;
    /* activations in [-3, 3], weights in [-0.6, 0.6], BatchNorm scales in [0.2, 1.5] and
     * shifts in [-0.5, 0.5]: random values, so every rounding of the chain matters */
    ot_buf_random(c, c->dt, nx, -3.0f, 3.0f);
    ot_buf_random(c, c->dt, (long)d.c * d.k * d.k, -0.6f, 0.6f);
    d.has_bias ? ot_buf_random(c, c->dt, d.c, -0.5f, 0.5f) : ot_buf_null(c);
    float *bn = (float *)la_malloc(c, sizeof(float) * 4 * (size_t)d.c);
    for (int i = 0; i < 4; i++)
        tu_fill_uniform(bn + i * d.c, d.c, c->seed + 73 + (uint64_t)i, i % 2 ? -0.5f : 0.2f, i % 2 ? 0.5f : 1.5f);
    ot_buf_copy(c, SAMRT_DTYPE_F32, 4L * d.c, bn);
    free(bn);
    mode == SAMRT_DWCONV_BN_REPVGG ? ot_buf_random(c, c->dt, d.c, -0.6f, 0.6f) : ot_buf_null(c);
    d.residual ? ot_buf_random(c, c->dt, ny, -3.0f, 3.0f) : ot_buf_null(c);
    ot_buf_add(c, c->dt, ny, OT_OUT);
    c->moved = (double)(nx + ny * (1 + d.residual)) * samrt_dtype_size(c->dt);
}

static enum samrt_status bn_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const struct samrt_dwconv_desc d = bn_desc(c);
    const float *f32 = (const float *)p[BN_F];
    struct samrt_dwconv_bn_params bn = {(enum samrt_dwconv_bn)(c->row->p[9] & 3), f32, f32 + d.c, p[BN_W1],
                                        f32 + 2 * d.c, f32 + 3 * d.c};
    if (bn.mode != SAMRT_DWCONV_BN_REPVGG) bn.s1 = bn.sh1 = NULL;
    (void)stream;
    if (gpu)
        return OT_GPU(samrt_dwconv_bn_cuda(&d, p[BN_X], p[BN_W], p[BN_BIAS], &bn, p[BN_R], p[BN_Y],
                                           (cudaStream_t)stream));
    float *f[OT_MAX_BUFS];
    la_load_all(c, p, f);
    bn.w1 = f[BN_W1];  /* the reference reads w1 as f32 like every other tensor */
    const enum samrt_status st = samrt_dwconv_bn_ref(&d, f[BN_X], f[BN_W], f[BN_BIAS], &bn, f[BN_R], f[BN_Y]);
    tu_store(c->dt, p[BN_Y], f[BN_Y], c->b[BN_Y].n);
    la_free_all(c, f);
    return st;
}

/* f32 without an activation: the centre output pixel of every (image, channel) by hand, the
 * BatchNorm(s) and the RepVggDw sum in double */
static long bn_check(const struct ot_case *c, void *const *p) {
    const struct samrt_dwconv_desc d = bn_desc(c);
    if (c->dt != SAMRT_DTYPE_F32 || d.act != SAMRT_EPILOGUE_ACT_NONE) return 0;
    int ho, wo;
    samrt_dwconv_out_hw(&d, &ho, &wo);
    const float *x = (const float *)p[BN_X], *w = (const float *)p[BN_W], *b = (const float *)p[BN_BIAS];
    const float *f = (const float *)p[BN_F], *w1 = (const float *)p[BN_W1], *r = (const float *)p[BN_R];
    const float *y = (const float *)p[BN_Y];
    const long oy = ho / 2, ox = wo / 2;
    long bad = 0;
    for (long n = 0; n < d.n; n++)
        for (long ch = 0; ch < d.c; ch++) {
            double t = b ? b[ch] : 0.0;
            for (long ky = 0; ky < d.k; ky++)
                for (long kx = 0; kx < d.k; kx++) {
                    const long iy = oy * d.stride - d.pad + ky, ix = ox * d.stride - d.pad + kx;
                    if (iy >= 0 && iy < d.h && ix >= 0 && ix < d.w)
                        t += (double)x[((n * d.h + iy) * d.w + ix) * d.c + ch] * w[(ch * d.k + ky) * d.k + kx];
                }
            const long o = ((n * ho + oy) * wo + ox) * d.c + ch;
            double want = t * f[ch] + f[d.c + ch];
            if (w1) {  /* RepVggDw: stride 1, so the output pixel is the input pixel */
                const double xv = x[((n * d.h + oy) * d.w + ox) * d.c + ch];
                want += xv * w1[ch] * f[2 * d.c + ch] + f[3 * d.c + ch] + xv;
            }
            if (r) want += r[o];
            bad += !(fabs(want - y[o]) <= 1e-5 * (1.0 + fabs(want)));
        }
    return bad;
}

static const struct ot_op OP_BN = {"dwconv_bn", bn_setup, bn_call, bn_check, NULL, NULL, 0};

#ifdef SAMRT_HAVE_CUDA
/* The plan of a gemm, conv or convt2x2 case on the runner's handles, and the workspace of its
 * cap. A timed conv search may overwrite the buffers it was lent: inputs again, y poisoned. */
static int la_gpu_prepare(struct ot_case *c, const struct samrt_gpu_ctx *ctx, void *const *d, int v) {
    const long flags = c->row->op == &OP_CONV ? c->row->p[9] : 0;
    const int no_ws = c->row->op == &OP_GEMM ? c->row->p[9] < 0 : (flags & CV_NOWS) != 0;
    struct la_gpu *g = la_gpu_new(c, no_ws ? 0 : c->row->op == &OP_GEMM ? OT_WS_CAP / 2 : OT_WS_CAP);
    (void)v;
    if (!g || (g->cap && !g->ws)) return -1;
    enum samrt_status st;
    if (c->row->op == &OP_GEMM) {
        const struct samrt_gemm_desc gd = gm_desc(c);
        st = samrt_gemm_plan_init(ctx, &gd, g->cap, &g->gemm);
        g->kind = 1;
        /* the fused kernel runs exactly where gemm.h says it does (the planned cost counts on it) */
        if (st == SAMRT_OK && (g->gemm.fused > 0) != (samrt_gemm_fuses_gelu(&gd) && ctx->cc_major >= 8)) {
            fprintf(stderr, "%s/%s: fused %d where samrt_gemm_fuses_gelu says %d\n", c->row->op->name, c->row->shape,
                    g->gemm.fused, samrt_gemm_fuses_gelu(&gd));
            return -1;
        }
    } else if (c->row->op == &OP_CONV) {
        const struct samrt_conv_desc cd = cv_desc(c);
        const struct samrt_conv_tune t = {d[CV_X], d[CV_W], d[CV_Y], g->ws};
        st = samrt_conv_plan_init(ctx, &cd, g->cap, flags & CV_TUNE && g->cap ? &t : NULL, &g->conv);
        g->kind = 2;
    } else {
        const struct samrt_convt2x2_desc td = ct_desc(c);
        st = samrt_convt2x2_plan_init(ctx, &td, g->cap, &g->convt);
        g->kind = 3;
    }
    if (st != SAMRT_OK) {
        g->kind = 0;  /* nothing to free */
        return -1;
    }
    for (int i = CV_X; flags & CV_TUNE && i <= CV_W; i++)
        if (cudaMemcpy(d[i], c->b[i].init, ot_buf_bytes(&c->b[i]), cudaMemcpyHostToDevice) != cudaSuccess) return -1;
    if (flags & CV_TUNE && cudaMemset(d[CV_Y], 0xff, ot_buf_bytes(&c->b[CV_Y])) != cudaSuccess) return -1;
    return 1;
}
#endif

#define F OT_FLOATS
#define B OT_BENCH
#define G OT_GPU_ONLY
#define BIAS SAMRT_EPILOGUE_BIAS
#define GELU SAMRT_EPILOGUE_BIAS_GELU
#define RELU SAMRT_EPILOGUE_BIAS_RELU
#define NONE SAMRT_EPILOGUE_NONE
#define NHWC CV_NHWC
/* one conv row in each layout */
#define CONV2(name, flags, n, ci, h, w, co, k, s, pd, g, bits)                                        \
    {&OP_CONV, name "_nchw", F, 0, &TOL_CONV, flags, {n, ci, h, w, co, k, s, pd, g, bits}, {0}},      \
    {&OP_CONV, name "_nhwc", F, 0, &TOL_CONV, flags, {n, ci, h, w, co, k, s, pd, g, (bits) | NHWC}, {0}}

const struct ot_row ot_rows_linalg[] = {
    /* gemm: m, n, k, epilogue, residual, pad x, pad y, batches, batch mode, workspace (-1: none);
     * f: alpha. dtype = output, src = input (pairs: the same dtype, or half -> f32) */
    {&OP_GEMM, "hiera_t_mlp_fc1", F, F, &TOL_GEMM, B, {65536, 384, 96, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "hiera_t_mlp_fc2", F, F, &TOL_GEMM, B, {65536, 96, 384, BIAS, 1, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "hiera_t_s3_qkv", F, F, &TOL_GEMM, B, {4096, 1152, 384, BIAS, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "hiera_bp_s3_qkv", F, F, &TOL_GEMM, B | G, {4096, 1344, 448, BIAS, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "memattn_ffn1", F, F, &TOL_GEMM, B, {4096, 2048, 256, RELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "memattn_ffn2", F, F, &TOL_GEMM, B, {4096, 256, 2048, BIAS, 1, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "memattn_k_proj", F, F, &TOL_GEMM, B, {28736, 256, 64, BIAS, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "cxblock_pwconv1", F, F, &TOL_GEMM, B, {4096, 1024, 256, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "dec_token_mlp", F, F, &TOL_GEMM, 0, {8, 2048, 256, RELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "odd_none", F, F, &TOL_GEMM, 0, {37, 29, 51, NONE, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "odd_one_row", F, F, &TOL_GEMM, 0, {1, 3, 17, BIAS, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "odd_strided_gelu", F, F, &TOL_GEMM, OT_NAN_OK, {1000, 77, 300, GELU, 0, 4, 3, 1, 0, 0}, {0}},
    {&OP_GEMM, "odd_residual_relu", F, F, &TOL_GEMM, OT_NAN_OK, {333, 130, 70, RELU, 1, 0, 6, 1, 0, 0}, {0.5f}},
    {&OP_GEMM, "batch_shared_w", F, F, &TOL_GEMM, 0, {33, 24, 40, RELU, 0, 0, 0, 3, 3, 0}, {0.125f}},
    {&OP_GEMM, "batch_heads_gelu", F, F, &TOL_GEMM, 0, {50, 16, 64, GELU, 1, 0, 0, 4, 0, 0}, {0}},
    {&OP_GEMM, "no_workspace", F, F, &TOL_GEMM, G, {512, 512, 512, BIAS, 0, 0, 0, 1, 0, -1}, {0}},
    /* bias + exact GELU: f16 / bf16 run the fused kernel (gemm_cutlass.h) where gemm.h's rule
     * takes the shape; Hiera-T's MLP fc1 of stages 1..3 (stage 0: hiera_t_mlp_fc1), each beside
     * itself on cuBLASLt + the pass (_cublaslt: --bench times both in one run) */
    {&OP_GEMM, "hiera_t_mlp_fc1_cublaslt", F, F, &TOL_GEMM, B | G,
     {65536, 384, 96, GELU, 0, 0, 0, 1, GM_LIB, 0}, {0}},
    {&OP_GEMM, "hiera_t_s1_mlp_fc1", F, F, &TOL_GEMM, B | G, {16384, 768, 192, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "hiera_t_s1_mlp_fc1_cublaslt", F, F, &TOL_GEMM, B | G,
     {16384, 768, 192, GELU, 0, 0, 0, 1, GM_LIB, 0}, {0}},
    {&OP_GEMM, "hiera_t_s2_mlp_fc1", F, F, &TOL_GEMM, B | G, {4096, 1536, 384, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "hiera_t_s2_mlp_fc1_cublaslt", F, F, &TOL_GEMM, B | G,
     {4096, 1536, 384, GELU, 0, 0, 0, 1, GM_LIB, 0}, {0}},
    {&OP_GEMM, "hiera_t_s3_mlp_fc1", F, F, &TOL_GEMM, B | G, {1024, 3072, 768, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "hiera_t_s3_mlp_fc1_cublaslt", F, F, &TOL_GEMM, B | G,
     {1024, 3072, 768, GELU, 0, 0, 0, 1, GM_LIB, 0}, {0}},
    {&OP_GEMM, "fused_gelu_one_row", F, F, &TOL_GEMM, 0, {1, 384, 96, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "fused_gelu_m37_k40", F, F, &TOL_GEMM, 0, {37, 72, 40, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "fused_gelu_strided_alpha", F, F, &TOL_GEMM, OT_NAN_OK, {300, 136, 64, GELU, 0, 8, 16, 1, 0, 0}, {0.5f}},
    {&OP_GEMM, "gelu_n36_fallback", F, F, &TOL_GEMM, 0, {64, 36, 48, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    {&OP_GEMM, "gelu_k12_fallback", F, F, &TOL_GEMM, 0, {64, 64, 12, GELU, 0, 0, 0, 1, 0, 0}, {0}},
    /* conv: n, c_in, h, w, c_out, k, stride, pad, groups, epilogue | CV_* flags; NCHW and NHWC */
    CONV2("hiera_patch_embed", B | G, 1, 3, 1024, 1024, 96, 7, 4, 3, 1, BIAS | CV_TUNE),
    CONV2("repvit_stem_conv1", B | G, 1, 3, 1024, 1024, 24, 3, 2, 1, 1, GELU),
    CONV2("repvit_stem_conv2", B | G, 1, 24, 512, 512, 48, 3, 2, 1, 1, BIAS),
    CONV2("repvit_dw3_s2", B, 1, 96, 128, 128, 96, 3, 2, 1, 96, BIAS),
    CONV2("repvit_dw3", B, 1, 192, 64, 64, 192, 3, 1, 1, 192, BIAS),
    CONV2("mask_ds_conv0", B, 1, 1, 1024, 1024, 4, 3, 2, 1, 1, BIAS),
    CONV2("mask_ds_conv1", B, 1, 4, 512, 512, 16, 3, 2, 1, 1, BIAS),
    CONV2("mask_ds_conv2", B | G, 1, 16, 256, 256, 64, 3, 2, 1, 1, BIAS),
    CONV2("mask_ds_conv3", B | G, 1, 64, 128, 128, 256, 3, 2, 1, 1, BIAS | CV_TUNE),
    CONV2("prompt_mask_ds0", B, 1, 1, 256, 256, 4, 2, 2, 0, 1, BIAS),
    CONV2("fuser_dw7", B, 1, 256, 64, 64, 256, 7, 1, 3, 256, BIAS | CV_TUNE),
    /* the depthwise production shapes through cuDNN + the epilogue pass (NHWC: what dwconv.h's
     * kernel replaces; the bench lines side by side with the _nhwc rows above) */
    {&OP_CONV, "fuser_dw7_cudnn", F, 0, &TOL_CONV, B, {1, 256, 64, 64, 256, 7, 1, 3, 256, BIAS | NHWC | CV_LIB}, {0}},
    {&OP_CONV, "repvit_dw3_s2_cudnn", F, 0, &TOL_CONV, B, {1, 96, 128, 128, 96, 3, 2, 1, 96, BIAS | NHWC | CV_LIB},
     {0}},
    {&OP_CONV, "repvit_dw3_cudnn", F, 0, &TOL_CONV, B, {1, 192, 64, 64, 192, 3, 1, 1, 192, BIAS | NHWC | CV_LIB}, {0}},
    CONV2("pix_feat_proj_1x1", B | G, 1, 256, 64, 64, 256, 1, 1, 0, 1, BIAS | CV_RES),
    CONV2("odd_s2_residual_relu", 0, 2, 5, 13, 11, 7, 3, 2, 1, 1, RELU | CV_RES | CV_TUNE),
    CONV2("odd_groups_gelu", 0, 1, 6, 9, 10, 4, 3, 1, 1, 2, GELU),
    CONV2("odd_1x1_gelu", 0, 3, 8, 5, 7, 12, 1, 1, 0, 1, GELU),
    CONV2("odd_k5_no_bias", 0, 1, 3, 8, 8, 5, 5, 1, 2, 1, NONE),
    CONV2("no_workspace_3x3", 0, 1, 32, 40, 40, 48, 3, 1, 1, 1, BIAS | CV_NOWS),
    CONV2("dw7_gelu_residual", 0, 2, 64, 17, 19, 64, 7, 1, 3, 64, GELU | CV_RES),
    CONV2("dw5_s2_relu_odd", 0, 1, 40, 15, 13, 40, 5, 2, 2, 40, RELU),
    CONV2("dw3_s2_no_pad_no_bias", 0, 1, 72, 9, 12, 72, 3, 2, 0, 72, NONE),
    CONV2("dw3_c20", 0, 1, 20, 8, 8, 20, 3, 1, 1, 20, BIAS | CV_RES),  /* f16 / bf16 NHWC: cuDNN */
    /* convt2x2 (NHWC): n, c_in, h, w, c_out, epilogue, residual */
    {&OP_CONVT, "decoder_upscale0", F, 0, &TOL_CONV, B, {1, 256, 64, 64, 64, BIAS, 1}, {0}},
    {&OP_CONVT, "decoder_upscale3", F, 0, &TOL_CONV, B, {1, 64, 128, 128, 32, GELU, 1}, {0}},
    {&OP_CONVT, "odd_convt_relu", F, 0, &TOL_CONV, 0, {2, 3, 5, 7, 5, RELU, 0}, {0}},
    /* dwconv_bn: n, h, w, c, k, stride, pad, act, residual, mode (1 AFFINE, 2 REPVGG) + 16 bias;
     * RepViT-M1 at 1024: the 3x3/2 downsample before stages 1..3, each stage's RepVggDw mixer */
    {&OP_BN, "down_s1", F, 0, &TOL_BN, B, {1, 256, 256, 48, 3, 2, 1, 0, 0, 1}, {0}},
    {&OP_BN, "down_s2", F, 0, &TOL_BN, B, {1, 128, 128, 96, 3, 2, 1, 0, 0, 1}, {0}},
    {&OP_BN, "down_s3", F, 0, &TOL_BN, B, {1, 64, 64, 192, 3, 2, 1, 0, 0, 1}, {0}},
    {&OP_BN, "mixer_s0", F, 0, &TOL_BN, B, {1, 256, 256, 48, 3, 1, 1, 0, 0, 2}, {0}},
    {&OP_BN, "mixer_s1", F, 0, &TOL_BN, B, {1, 128, 128, 96, 3, 1, 1, 0, 0, 2}, {0}},
    {&OP_BN, "mixer_s2", F, 0, &TOL_BN, B, {1, 64, 64, 192, 3, 1, 1, 0, 0, 2}, {0}},
    {&OP_BN, "mixer_s3", F, 0, &TOL_BN, B, {1, 32, 32, 384, 3, 1, 1, 0, 0, 2}, {0}},
    {&OP_BN, "rep_c24_b2_odd", F, 0, &TOL_BN, 0, {2, 7, 5, 24, 3, 1, 1, 0, 0, 2}, {0}},
    {&OP_BN, "rep_c8_1x1", F, 0, &TOL_BN, 0, {1, 1, 1, 8, 3, 1, 1, 0, 0, 2}, {0}},
    {&OP_BN, "bn_gelu_res_c72", F, 0, &TOL_BN, 0, {2, 9, 11, 72, 3, 1, 1, SAMRT_EPILOGUE_ACT_GELU, 1, 1}, {0}},
    {&OP_BN, "bn_s2_relu_res_c16_odd", F, 0, &TOL_BN, 0, {1, 13, 7, 16, 3, 2, 1, SAMRT_EPILOGUE_ACT_RELU, 1, 1}, {0}},
    {&OP_BN, "bn_s2_1x1_c8", F, 0, &TOL_BN, 0, {1, 1, 1, 8, 3, 2, 1, 0, 0, 1}, {0}},
    {&OP_BN, "bn_bias_res_c32", F, 0, &TOL_BN, 0, {1, 10, 6, 32, 3, 1, 1, 0, 1, 1 | 16}, {0}},
    {&OP_BN, "rep_bias_c40", F, 0, &TOL_BN, 0, {1, 6, 9, 40, 3, 1, 1, 0, 0, 2 | 16}, {0}},
};
const int ot_n_rows_linalg = (int)(sizeof ot_rows_linalg / sizeof ot_rows_linalg[0]);
