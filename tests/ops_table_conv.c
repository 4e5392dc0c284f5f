/* ops_table_conv.c - the op table's rows for the convolution and GEMM tails: the depthwise
 * NHWC convolution with its fused epilogue (kernels/dwconv.h: the SAM 2 fuser's 7x7 on
 * 64x64x256, RepViT's 3x3s at stride 1 and 2, odd sizes with GELU / ReLU, residual, no bias,
 * no padding) and the pointwise epilogue pass y = act(y + bias + residual) (kernels/epilogue.h:
 * the exact-erf GELU after the MLP and ConvNeXt GEMMs, an NCHW conv's bias per row with a
 * residual, padded rows and batches whose gaps must stay untouched). The references compute on
 * f32 copies of the dtype's values and round once on the store, as the kernels do; tolerances
 * follow the gemm and conv rows of ops_table_linalg.c, which also run the library paths these tails
 * belong to. ops_table.h says how a row is run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dwconv.h"
#include "epilogue.h"
#include "ops_table.h"
#include "test_util.h"

/* f32 accumulation order and one rounding on the store; erf within a few ulp */
static const struct ot_tol TOL_DW = {"conv_round", {1e-5, 1.0 / 1024, 1.0 / 128}, {1e-5, 1.0 / 512, 1.0 / 64}, 0, 0};
static const struct ot_tol TOL_EPI = {"epilogue_round", {2e-6, 1.0 / 1024, 1.0 / 128},
                                      {2e-6, 1.0 / 1024, 1.0 / 128}, 0, 0};

static void ot_conv_fail(const struct ot_case *c, const char *what) {
    fprintf(stderr, "%s/%s: %s\n", c->row->op->name, c->row->shape, what);
    exit(1);
}

/* ---- dwconv: p = {n, h, w, c, k, stride, pad, act, bias, residual} ---- */
static struct samrt_dwconv_desc dw_desc(const struct ot_case *c) {
    const long *p = c->row->p;
    const struct samrt_dwconv_desc d = {(int)p[0], (int)p[1], (int)p[2], (int)p[3], (int)p[4], (int)p[5], (int)p[6],
                                        c->dt, (enum samrt_epilogue_act)p[7], (int)p[8], (int)p[9]};
    return d;
}

static void dw_setup(struct ot_case *c) {
    const struct samrt_dwconv_desc d = dw_desc(c);
    if (!samrt_dwconv_shape_ok(&d)) ot_conv_fail(c, "shape not supported");
    int ho, wo;
    samrt_dwconv_out_hw(&d, &ho, &wo);
    const long nx = (long)d.n * d.h * d.w * d.c, ny = (long)d.n * ho * wo * d.c;
    ot_buf_random(c, c->dt, nx, -1.0f, 1.0f);
    ot_buf_random(c, c->dt, (long)d.c * d.k * d.k, -0.5f, 0.5f);
    d.has_bias ? ot_buf_random(c, c->dt, d.c, -0.5f, 0.5f) : ot_buf_null(c);
    d.residual ? ot_buf_random(c, c->dt, ny, -1.0f, 1.0f) : ot_buf_null(c);
    ot_buf_add(c, c->dt, ny, OT_OUT);
    c->moved = (double)(nx + ny * (1 + d.residual)) * samrt_dtype_size(c->dt);
}

static enum samrt_status dw_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const struct samrt_dwconv_desc d = dw_desc(c);
    (void)stream;
    if (gpu) return OT_GPU(samrt_dwconv_cuda(&d, p[0], p[1], p[2], p[3], p[4], (cudaStream_t)stream));
    float *f[4];
    for (int i = 0; i < 4; i++) f[i] = p[i] ? ot_load(c, i, p[i]) : NULL;
    float *y = (float *)malloc(sizeof(float) * (size_t)c->b[4].n);
    if (!y) ot_conv_fail(c, "no memory");
    samrt_dwconv_ref(&d, f[0], f[1], f[2], f[3], y);
    tu_store(c->dt, p[4], y, c->b[4].n);
    for (int i = 0; i < 4; i++) free(f[i]);
    free(y);
    return SAMRT_OK;
}

/* f32, no activation: one output pixel per batch, summed by hand from its taps */
static long dw_check(const struct ot_case *c, void *const *p) {
    const struct samrt_dwconv_desc d = dw_desc(c);
    if (c->dt != SAMRT_DTYPE_F32 || d.act != SAMRT_EPILOGUE_ACT_NONE) return 0;
    int ho, wo;
    samrt_dwconv_out_hw(&d, &ho, &wo);
    const float *x = (const float *)p[0], *w = (const float *)p[1], *b = (const float *)p[2];
    const float *r = (const float *)p[3], *y = (const float *)p[4];
    long bad = 0;
    for (long n = 0; n < d.n; n++) {
        const long oy = ho / 2, ox = wo / 2;
        for (long ch = 0; ch < d.c; ch++) {
            double s = b ? b[ch] : 0.0;
            for (long ky = 0; ky < d.k; ky++)
                for (long kx = 0; kx < d.k; kx++) {
                    const long iy = oy * d.stride - d.pad + ky, ix = ox * d.stride - d.pad + kx;
                    if (iy >= 0 && iy < d.h && ix >= 0 && ix < d.w)
                        s += (double)x[((n * d.h + iy) * d.w + ix) * d.c + ch] * w[(ch * d.k + ky) * d.k + kx];
                }
            const long o = ((n * ho + oy) * wo + ox) * d.c + ch;
            if (r) s += r[o];
            bad += !(fabs(s - y[o]) <= 1e-5 * (1.0 + fabs(s)));
        }
    }
    return bad;
}

static const struct ot_op OP_DW = {"dwconv", dw_setup, dw_call, dw_check, NULL, NULL, 0};

/* ---- epilogue: p = {batches, rows, cols, batch stride, row stride, bias per row, bias,
 *      residual, act}; y in place, the gaps between rows and batches must keep their values ---- */
static struct samrt_epilogue_shape epi_shape(const struct ot_case *c) {
    const long *p = c->row->p;
    const struct samrt_epilogue_shape sh = {p[0], p[1], p[2], p[3], p[4], (int)p[5]};
    return sh;
}

static long epi_span(const struct samrt_epilogue_shape *sh) {
    return (long)((sh->n_batch - 1) * sh->s_batch + (sh->n_rows - 1) * sh->s_row + sh->n_cols);
}

static void epi_setup(struct ot_case *c) {
    const long *p = c->row->p;
    const struct samrt_epilogue_shape sh = epi_shape(c);
    if (samrt_epilogue_shape_check(&sh) != SAMRT_OK) ot_conv_fail(c, "bad shape");
    const long n = epi_span(&sh);
    const int y = ot_buf_random(c, c->dt, n, -3.0f, 3.0f);
    c->b[y].role = OT_INOUT;
    p[6] ? ot_buf_random(c, c->dt, p[5] ? p[1] : p[2], -1.0f, 1.0f) : ot_buf_null(c);
    p[7] ? ot_buf_random(c, c->dt, n, -1.0f, 1.0f) : ot_buf_null(c);
    c->moved = (double)p[0] * p[1] * p[2] * (2 + p[7]) * samrt_dtype_size(c->dt);
}

static enum samrt_status epi_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const struct samrt_epilogue_shape sh = epi_shape(c);
    const enum samrt_epilogue_act act = (enum samrt_epilogue_act)c->row->p[8];
    (void)stream;
    if (gpu) return OT_GPU(samrt_epilogue_cuda(c->dt, act, &sh, p[1], p[2], p[0], (cudaStream_t)stream));
    float *f[3];
    for (int i = 0; i < 3; i++) f[i] = p[i] ? ot_load(c, i, p[i]) : NULL;
    samrt_epilogue_ref(act, &sh, f[1], f[2], f[0]);
    tu_store(c->dt, p[0], f[0], c->b[0].n);
    for (int i = 0; i < 3; i++) free(f[i]);
    return SAMRT_OK;
}

/* f32: every element by hand (ReLU, or GELU through the reference's scalar form); the gaps
 * hold their old values */
static long epi_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const long *q = c->row->p;
    const float *y0 = (const float *)c->b[0].init, *y = (const float *)p[0];
    const float *b = (const float *)p[1], *r = (const float *)p[2];
    char *touched = (char *)calloc((size_t)c->b[0].n, 1);
    if (!touched) ot_conv_fail(c, "no memory");
    long bad = 0;
    for (long n = 0; n < q[0]; n++)
        for (long i = 0; i < q[1]; i++)
            for (long j = 0; j < q[2]; j++) {
                const long o = n * q[3] + i * q[4] + j;
                float v = y0[o] + (b ? b[q[5] ? i : j] : 0.0f);
                v += r ? r[o] : 0.0f;
                const float want = q[8] == SAMRT_EPILOGUE_ACT_RELU ? (v > 0.0f ? v : 0.0f)
                                 : q[8] == SAMRT_EPILOGUE_ACT_GELU ? samrt_epilogue_gelu_ref(v) : v;
                bad += !(fabsf(want - y[o]) <= 1e-6f * (1.0f + fabsf(want)));
                touched[o] = 1;
            }
    for (long o = 0; o < c->b[0].n; o++) bad += !touched[o] && y[o] != y0[o];
    free(touched);
    return bad;
}

static const struct ot_op OP_EPI = {"epilogue", epi_setup, epi_call, epi_check, NULL, NULL, 0};

#define F OT_FLOATS
#define B OT_BENCH
#define GELU SAMRT_EPILOGUE_ACT_GELU
#define RELU SAMRT_EPILOGUE_ACT_RELU

const struct ot_row ot_rows_conv[] = {
    /* dwconv: n, h, w, c, k, stride, pad, act, bias, residual (C a multiple of 8: the kernel's 16 bytes) */
    {&OP_DW, "fuser_dw7", F, 0, &TOL_DW, B, {1, 64, 64, 256, 7, 1, 3, 0, 1, 0}, {0}},
    {&OP_DW, "repvit_dw3_s2", F, 0, &TOL_DW, B, {1, 128, 128, 96, 3, 2, 1, 0, 1, 0}, {0}},
    {&OP_DW, "repvit_dw3", F, 0, &TOL_DW, B, {1, 64, 64, 192, 3, 1, 1, 0, 1, 0}, {0}},
    {&OP_DW, "dw7_gelu_residual", F, 0, &TOL_DW, 0, {2, 17, 19, 64, 7, 1, 3, GELU, 1, 1}, {0}},
    {&OP_DW, "dw5_s2_relu_odd", F, 0, &TOL_DW, 0, {1, 15, 13, 40, 5, 2, 2, RELU, 1, 0}, {0}},
    {&OP_DW, "dw3_s2_no_pad_no_bias", F, 0, &TOL_DW, 0, {1, 9, 12, 72, 3, 2, 0, 0, 0, 0}, {0}},
    {&OP_DW, "dw3_c20_residual", OT_F32, 0, &TOL_DW, 0, {1, 8, 8, 20, 3, 1, 1, 0, 1, 1}, {0}},  /* f16: cuDNN */
    {&OP_DW, "dw1_one_pixel", F, 0, &TOL_DW, 0, {1, 1, 1, 8, 1, 1, 0, 0, 1, 1}, {0}},
    /* epilogue: batches, rows, cols, batch stride, row stride, bias per row, bias, residual, act */
    {&OP_EPI, "hiera_t_mlp_fc1_gelu", F, 0, &TOL_EPI, B, {1, 65536, 384, 0, 384, 0, 0, 0, GELU}, {0}},
    {&OP_EPI, "cxblock_pwconv1_gelu", F, 0, &TOL_EPI, B, {1, 4096, 1024, 0, 1024, 0, 0, 0, GELU}, {0}},
    {&OP_EPI, "nchw_conv_bias_residual", F, 0, &TOL_EPI, B, {1, 256, 4096, 0, 4096, 1, 1, 1, 0}, {0}},
    {&OP_EPI, "odd_strided_gelu", F, 0, &TOL_EPI, 0, {1, 1000, 77, 0, 80, 0, 1, 0, GELU}, {0}},
    {&OP_EPI, "odd_residual_relu", F, 0, &TOL_EPI, 0, {1, 333, 130, 0, 136, 0, 1, 1, RELU}, {0}},
    {&OP_EPI, "batch_heads_gelu_gaps", F, 0, &TOL_EPI, 0, {4, 50, 16, 50 * 16 + 5, 16, 0, 1, 1, GELU}, {0}},
    {&OP_EPI, "bias_per_row_batched", F, 0, &TOL_EPI, 0, {3, 7, 13, 7 * 13 + 2, 13, 1, 1, 0, GELU}, {0}},
    {&OP_EPI, "one_element_relu", F, 0, &TOL_EPI, 0, {1, 1, 1, 0, 1, 0, 1, 1, RELU}, {0}},
};
const int ot_n_rows_conv = (int)(sizeof ot_rows_conv / sizeof ot_rows_conv[0]);
