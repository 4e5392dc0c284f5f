/* conv_ref.c - references for the convolution ops of conv.h, the desc helpers shared with
 * the CUDA path, and the load-time weight rearrangements (NHWC weights, packed transposed
 * 2x2 weights). The references are the direct loop nests of PyTorch's definitions with f32
 * accumulation, followed by the epilogue reference; layouts are handled by index functions
 * only, so one loop nest serves NCHW and NHWC.
 * Tested by tests/test_conv.c (hand-checked) and the op table's conv rows (test_ops_table_cuda, against cuDNN). */
#include "conv.h"

int samrt_conv_as_dwconv(const struct samrt_conv_desc *d, struct samrt_dwconv_desc *out) {
    if (d->layout != SAMRT_CONV_NHWC || d->groups != d->c_in || d->c_out != d->c_in || d->kh != d->kw ||
        d->stride_h != d->stride_w || d->pad_h != d->pad_w || d->force_library)
        return 0;
    *out = (struct samrt_dwconv_desc){d->n, d->h, d->w, d->c_in, d->kh, d->stride_h, d->pad_h, d->dtype,
                                      samrt_epilogue_act(d->epilogue), samrt_epilogue_has_bias(d->epilogue),
                                      d->residual};
    return 1;
}

struct samrt_conv_desc samrt_conv_desc_make(int n, int c_in, int h, int w, int c_out, int k, int stride,
                                            int pad, int groups, enum samrt_conv_layout layout,
                                            enum samrt_dtype dtype, enum samrt_epilogue ep) {
    struct samrt_conv_desc d = {0};
    d.n = n; d.c_in = c_in; d.h = h; d.w = w;
    d.c_out = c_out; d.kh = k; d.kw = k;
    d.stride_h = stride; d.stride_w = stride;
    d.pad_h = pad; d.pad_w = pad;
    d.groups = groups;
    d.layout = layout;
    d.dtype = dtype;
    d.epilogue = ep;
    return d;
}

void samrt_conv_out_hw(const struct samrt_conv_desc *d, int *ho, int *wo) {
    *ho = (d->h + 2 * d->pad_h - d->kh) / d->stride_h + 1;
    *wo = (d->w + 2 * d->pad_w - d->kw) / d->stride_w + 1;
}

int64_t samrt_conv_x_elems(const struct samrt_conv_desc *d) {
    return (int64_t)d->n * d->c_in * d->h * d->w;
}
int64_t samrt_conv_w_elems(const struct samrt_conv_desc *d) {
    return (int64_t)d->c_out * (d->c_in / d->groups) * d->kh * d->kw;
}
int64_t samrt_conv_y_elems(const struct samrt_conv_desc *d) {
    int ho, wo;
    samrt_conv_out_hw(d, &ho, &wo);
    return (int64_t)d->n * d->c_out * ho * wo;
}
double samrt_conv_flops(const struct samrt_conv_desc *d) {
    return 2.0 * (double)samrt_conv_y_elems(d) * (double)(d->c_in / d->groups) * d->kh * d->kw;
}

struct samrt_epilogue_shape samrt_conv_epilogue_shape(const struct samrt_conv_desc *d) {
    int ho, wo;
    samrt_conv_out_hw(d, &ho, &wo);
    const int64_t hw = (int64_t)ho * wo;
    struct samrt_epilogue_shape sh;
    if (d->layout == SAMRT_CONV_NCHW) {
        sh.n_batch = d->n; sh.n_rows = d->c_out; sh.n_cols = hw;
        sh.s_batch = d->c_out * hw; sh.s_row = hw; sh.bias_per_row = 1;
    } else {
        sh.n_batch = 1; sh.n_rows = d->n * hw; sh.n_cols = d->c_out;
        sh.s_batch = 0; sh.s_row = d->c_out; sh.bias_per_row = 0;
    }
    return sh;
}

enum samrt_status samrt_conv_desc_check(const struct samrt_conv_desc *d) {
    SAMRT_CHECK(d->n > 0 && d->c_in > 0 && d->h > 0 && d->w > 0 && d->c_out > 0 && d->kh > 0 && d->kw > 0,
                SAMRT_E_INVALID_ARG, "conv: extents must be positive");
    SAMRT_CHECK(d->stride_h > 0 && d->stride_w > 0 && d->pad_h >= 0 && d->pad_w >= 0, SAMRT_E_INVALID_ARG,
                "conv: stride %dx%d pad %dx%d", d->stride_h, d->stride_w, d->pad_h, d->pad_w);
    SAMRT_CHECK(d->groups > 0 && d->c_in % d->groups == 0 && d->c_out % d->groups == 0, SAMRT_E_INVALID_ARG,
                "conv: %d groups do not divide %d -> %d channels", d->groups, d->c_in, d->c_out);
    SAMRT_CHECK(d->h + 2 * d->pad_h >= d->kh && d->w + 2 * d->pad_w >= d->kw, SAMRT_E_INVALID_ARG,
                "conv: %dx%d kernel larger than the padded %dx%d input", d->kh, d->kw, d->h, d->w);
    SAMRT_CHECK(d->layout == SAMRT_CONV_NCHW || d->layout == SAMRT_CONV_NHWC, SAMRT_E_INVALID_ARG,
                "conv: layout %d", (int)d->layout);
    SAMRT_CHECK(d->dtype == SAMRT_DTYPE_F32 || d->dtype == SAMRT_DTYPE_F16 || d->dtype == SAMRT_DTYPE_BF16,
                SAMRT_E_UNSUPPORTED, "conv: dtype %s", samrt_dtype_name(d->dtype));
    SAMRT_CHECK((unsigned)d->epilogue < SAMRT_EPILOGUE_COUNT, SAMRT_E_INVALID_ARG, "conv: epilogue %d",
                (int)d->epilogue);
    SAMRT_CHECK(!d->allow_tf32 || d->dtype == SAMRT_DTYPE_F32, SAMRT_E_INVALID_ARG,
                "conv: allow_tf32 applies to f32 only");
    const struct samrt_epilogue_shape sh = samrt_conv_epilogue_shape(d);
    return samrt_epilogue_shape_check(&sh);
}

/* ---- forward reference ------------------------------------------------------------------ */

static int64_t act_index(const struct samrt_conv_desc *d, int c_total, int h, int w, int n, int c, int y,
                         int x) {
    if (d->layout == SAMRT_CONV_NCHW) return (((int64_t)n * c_total + c) * h + y) * w + x;
    return (((int64_t)n * h + y) * w + x) * c_total + c;
}

static int64_t weight_index(const struct samrt_conv_desc *d, int o, int ci, int r, int s) {
    const int cpg = d->c_in / d->groups;
    if (d->layout == SAMRT_CONV_NCHW) return (((int64_t)o * cpg + ci) * d->kh + r) * d->kw + s;
    return (((int64_t)o * d->kh + r) * d->kw + s) * cpg + ci;
}

void samrt_conv_ref(const struct samrt_conv_desc *d, const float *x, const float *w, const float *bias,
                    const float *residual, float *y) {
    int ho, wo;
    samrt_conv_out_hw(d, &ho, &wo);
    const int cpg = d->c_in / d->groups, opg = d->c_out / d->groups;
    for (int n = 0; n < d->n; n++)
        for (int o = 0; o < d->c_out; o++)
            for (int oy = 0; oy < ho; oy++)
                for (int ox = 0; ox < wo; ox++) {
                    const int g = o / opg;
                    float acc = 0.0f;
                    for (int ci = 0; ci < cpg; ci++)
                        for (int r = 0; r < d->kh; r++) {
                            const int iy = oy * d->stride_h - d->pad_h + r;
                            if (iy < 0 || iy >= d->h) continue;
                            for (int s = 0; s < d->kw; s++) {
                                const int ix = ox * d->stride_w - d->pad_w + s;
                                if (ix < 0 || ix >= d->w) continue;
                                acc += x[act_index(d, d->c_in, d->h, d->w, n, g * cpg + ci, iy, ix)] *
                                       w[weight_index(d, o, ci, r, s)];
                            }
                        }
                    y[act_index(d, d->c_out, ho, wo, n, o, oy, ox)] = acc;
                }
    const struct samrt_epilogue_shape sh = samrt_conv_epilogue_shape(d);
    samrt_epilogue_ref(samrt_epilogue_act(d->epilogue), &sh,
                       samrt_epilogue_has_bias(d->epilogue) ? bias : NULL, d->residual ? residual : NULL, y);
}

void samrt_conv_pack_nhwc(int c_out, int cpg, int kh, int kw, const float *w, float *out) {
    for (int o = 0; o < c_out; o++)
        for (int ci = 0; ci < cpg; ci++)
            for (int r = 0; r < kh; r++)
                for (int s = 0; s < kw; s++)
                    out[(((int64_t)o * kh + r) * kw + s) * cpg + ci] =
                        w[(((int64_t)o * cpg + ci) * kh + r) * kw + s];
}

/* ---- transposed 2x2 stride 2 ---------------------------------------------------------- */

void samrt_conv_pack_transpose2x2(int c_in, int c_out, const float *w, const float *bias, float *w_out,
                                  float *bias_out) {
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++)
            for (int o = 0; o < c_out; o++)
                for (int i = 0; i < c_in; i++)
                    w_out[((int64_t)dy * 2 * c_out + dx * c_out + o) * c_in + i] =
                        w[(((int64_t)i * c_out + o) * 2 + dy) * 2 + dx];
    if (bias)
        for (int o = 0; o < c_out; o++) bias_out[o] = bias_out[c_out + o] = bias[o];
}

struct samrt_gemm_desc samrt_convt2x2_gemm_desc(const struct samrt_convt2x2_desc *d) {
    /* One GEMM per (image, input row): m = input pixels of the row, n = (dx, o), k = c_in. */
    struct samrt_gemm_desc g = samrt_gemm_desc_make(d->w, 2 * (int64_t)d->c_out, d->c_in, d->dtype, d->dtype,
                                                    d->epilogue);
    g.residual = d->residual;
    g.n_batch = (int64_t)d->n * d->h;
    g.sb_x = (int64_t)d->w * d->c_in;
    g.sb_w = 0;
    g.sb_y = 4 * (int64_t)d->w * d->c_out;
    g.sb_b = 0;
    /* Promise only the alignment every offset keeps: batch and row strides, and the dy = 1
     * offsets into y (2*w*c_out) and into the packed weight (2*c_out*c_in). */
    const int64_t es = (int64_t)samrt_dtype_size(d->dtype);
    const int64_t offs[5] = {g.sb_x * es, g.s_x * es, g.s_y * es, 2 * (int64_t)d->w * d->c_out * es,
                             2 * (int64_t)d->c_out * d->c_in * es};
    unsigned a = 16;
    for (int i = 0; i < 5; i++)
        while (a > (unsigned)es && offs[i] % a) a /= 2;
    g.align_bytes = a;
    return g;
}

void samrt_convt2x2_ref(const struct samrt_convt2x2_desc *d, const float *x, const float *w,
                        const float *bias, const float *residual, float *y) {
    const int ho = 2 * d->h, wo = 2 * d->w;
    for (int n = 0; n < d->n; n++)
        for (int oy = 0; oy < ho; oy++)
            for (int ox = 0; ox < wo; ox++)
                for (int o = 0; o < d->c_out; o++) {
                    const int iy = oy / 2, ix = ox / 2, dy = oy % 2, dx = ox % 2;
                    const float *xp = x + (((int64_t)n * d->h + iy) * d->w + ix) * d->c_in;
                    float acc = 0.0f;
                    for (int i = 0; i < d->c_in; i++)
                        acc += xp[i] * w[(((int64_t)i * d->c_out + o) * 2 + dy) * 2 + dx];
                    y[(((int64_t)n * ho + oy) * wo + ox) * d->c_out + o] = acc;
                }
    const struct samrt_epilogue_shape sh = {.n_batch = 1, .n_rows = (int64_t)d->n * ho * wo,
                                            .n_cols = d->c_out, .s_batch = 0, .s_row = d->c_out,
                                            .bias_per_row = 0};
    samrt_epilogue_ref(samrt_epilogue_act(d->epilogue), &sh,
                       samrt_epilogue_has_bias(d->epilogue) ? bias : NULL, d->residual ? residual : NULL, y);
}
