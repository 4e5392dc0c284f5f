/* test_conv_cuda.c - the cuDNN convolution, the depthwise NHWC kernel (kernels/dwconv.cu) and
 * the cuBLASLt transposed 2x2 convolution (kernels/conv.c) against the references (kernels/conv_ref.c) at the production shapes of
 * model-spec §3 (Hiera patch embed, RepViT stem and depthwise convs, mask downsampler,
 * prompt-encoder 2x2/2, fuser depthwise 7x7, 1x1 projections with residual, the decoder's
 * transposed convs with residual and GELU) and at odd ones (batch 2, groups, stride 2 on odd
 * sizes, no bias), in NCHW and NHWC, f32 / f16 / bf16, with timed (FindEx) and heuristic
 * algorithm choice and a zero-workspace cap. One NCHW reference per case serves every
 * dtype and layout (inputs are multiples of 1/64, gemmconv_util.h); NHWC runs permute it.
 * The depthwise kernel's bn form (EdgeTAM's bf16 BatchNorms fused, RepVggDw) against the
 * chain of kernels it replaces (dwconv, channel_affine, add_scaled) on the same device
 * inputs: every output's bits, at RepViT-M1's shapes and odd ones, f32 / f16 / bf16.
 *
 * Run: ctest --preset gpu -R test_conv_cuda     (exit 77 without a GPU)
 *      build/gpu/tests/test_conv_cuda --bench  (adds BENCH lines, median of 20, L2 flushed) */
#include <stdio.h>
#include <string.h>

#include "conv.h"
#include "dev/bench.h"
#include "elementwise.h"
#include "gemmconv_util.h"

#define WS_CAP ((size_t)64 << 20)
#define BENCH_REPS 20

/* cuDNN may pick FFT or Winograd algorithms, whose transforms round (f32 included), so these
 * are a little wider than the GEMM test's output-rounding tolerances. */
static const struct gc_tol CONV_TOL_F32 = {1e-5, 1e-5};
static const struct gc_tol CONV_TOL_F16 = {1.0 / 1024, 1.0 / 512};
static const struct gc_tol CONV_TOL_BF16 = {1.0 / 128, 1.0 / 64};

static struct gc_tol conv_tol(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F32 ? CONV_TOL_F32 : dt == SAMRT_DTYPE_F16 ? CONV_TOL_F16 : CONV_TOL_BF16;
}

struct conv_case {
    const char *name;
    int n, c_in, h, w, c_out, k, stride, pad, groups;
    enum samrt_epilogue ep;
    int residual, production, tuned;
    size_t ws_cap;
};

static const struct conv_case CASES[] = {
    /* name             n  cin  h     w     cout k  s  p  g    epilogue              res prod tune ws */
    {"hiera_patch_embed", 1, 3, 1024, 1024, 96, 7, 4, 3, 1, SAMRT_EPILOGUE_BIAS, 0, 1, 1, WS_CAP},
    {"repvit_stem_conv1", 1, 3, 1024, 1024, 24, 3, 2, 1, 1, SAMRT_EPILOGUE_BIAS_GELU, 0, 1, 0, WS_CAP},
    {"repvit_dw3_s2", 1, 96, 128, 128, 96, 3, 2, 1, 96, SAMRT_EPILOGUE_BIAS, 0, 1, 0, WS_CAP},
    {"repvit_dw3", 1, 192, 64, 64, 192, 3, 1, 1, 192, SAMRT_EPILOGUE_BIAS, 0, 1, 0, WS_CAP},
    {"mask_ds_conv0", 1, 1, 1024, 1024, 4, 3, 2, 1, 1, SAMRT_EPILOGUE_BIAS, 0, 1, 0, WS_CAP},
    {"mask_ds_conv3", 1, 64, 128, 128, 256, 3, 2, 1, 1, SAMRT_EPILOGUE_BIAS, 0, 1, 1, WS_CAP},
    {"prompt_mask_ds0", 1, 1, 256, 256, 4, 2, 2, 0, 1, SAMRT_EPILOGUE_BIAS, 0, 1, 0, WS_CAP},
    {"fuser_dw7", 1, 256, 64, 64, 256, 7, 1, 3, 256, SAMRT_EPILOGUE_BIAS, 0, 1, 1, WS_CAP},
    {"pix_feat_proj_1x1", 1, 256, 64, 64, 256, 1, 1, 0, 1, SAMRT_EPILOGUE_BIAS, 1, 1, 0, WS_CAP},
    {"odd_s2_residual_relu", 2, 5, 13, 11, 7, 3, 2, 1, 1, SAMRT_EPILOGUE_BIAS_RELU, 1, 0, 1, WS_CAP},
    {"odd_groups_gelu", 1, 6, 9, 10, 4, 3, 1, 1, 2, SAMRT_EPILOGUE_BIAS_GELU, 0, 0, 0, WS_CAP},
    {"odd_1x1_gelu", 3, 8, 5, 7, 12, 1, 1, 0, 1, SAMRT_EPILOGUE_BIAS_GELU, 0, 0, 0, WS_CAP},
    {"odd_k5_no_bias", 1, 3, 8, 8, 5, 5, 1, 2, 1, SAMRT_EPILOGUE_NONE, 0, 0, 0, WS_CAP},
    {"no_workspace_3x3", 1, 32, 40, 40, 48, 3, 1, 1, 1, SAMRT_EPILOGUE_BIAS, 0, 0, 0, 0},
    /* depthwise NHWC: dwconv.h's fused kernel (k 3/5/7, stride 1/2, epilogue, residual) */
    {"dw7_gelu_residual", 2, 64, 17, 19, 64, 7, 1, 3, 64, SAMRT_EPILOGUE_BIAS_GELU, 1, 0, 0, WS_CAP},
    {"dw5_s2_relu_odd", 1, 40, 15, 13, 40, 5, 2, 2, 40, SAMRT_EPILOGUE_BIAS_RELU, 0, 0, 0, WS_CAP},
    {"dw3_s2_no_pad_no_bias", 1, 72, 9, 12, 72, 3, 2, 0, 72, SAMRT_EPILOGUE_NONE, 0, 0, 0, WS_CAP},
    {"dw3_c20", 1, 20, 8, 8, 20, 3, 1, 1, 20, SAMRT_EPILOGUE_BIAS, 1, 0, 0, WS_CAP}, /* f16/bf16: cuDNN */
};

struct convt_case {
    const char *name;
    int n, c_in, h, w, c_out;
    enum samrt_epilogue ep;
    int residual, production;
};

static const struct convt_case TCASES[] = {
    {"decoder_upscale0", 1, 256, 64, 64, 64, SAMRT_EPILOGUE_BIAS, 1, 1},
    {"decoder_upscale3", 1, 64, 128, 128, 32, SAMRT_EPILOGUE_BIAS_GELU, 1, 1},
    {"odd_convt_relu", 2, 3, 5, 7, 5, SAMRT_EPILOGUE_BIAS_RELU, 0, 0},
};

static const enum samrt_dtype DTYPES[] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F16, SAMRT_DTYPE_BF16};

/* Host data of one case: NCHW tensors, their NHWC permutations, and the references. */
struct host_conv {
    struct samrt_conv_desc d;   /* NCHW f32 */
    int64_t nx, nw, ny;
    float *x, *w, *b, *r, *ref;            /* NCHW */
    float *x_h, *w_h, *r_h, *ref_h, *out;  /* NHWC and output scratch */
};

static struct samrt_conv_desc case_desc(const struct conv_case *c, enum samrt_conv_layout l,
                                        enum samrt_dtype dt) {
    struct samrt_conv_desc d = samrt_conv_desc_make(c->n, c->c_in, c->h, c->w, c->c_out, c->k, c->stride,
                                                    c->pad, c->groups, l, dt, c->ep);
    d.residual = c->residual;
    return d;
}

static int host_conv_init(const struct conv_case *c, struct host_conv *h) {
    memset(h, 0, sizeof *h);
    h->d = case_desc(c, SAMRT_CONV_NCHW, SAMRT_DTYPE_F32);
    h->nx = samrt_conv_x_elems(&h->d);
    h->nw = samrt_conv_w_elems(&h->d);
    h->ny = samrt_conv_y_elems(&h->d);
    float **bufs[] = {&h->x, &h->r, &h->ref, &h->x_h, &h->r_h, &h->ref_h, &h->out, &h->w, &h->w_h, &h->b};
    const int64_t sizes[] = {h->nx, h->ny, h->ny, h->nx, h->ny, h->ny, h->ny, h->nw, h->nw, c->c_out};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(bufs); i++)
        if (!(*bufs[i] = malloc((size_t)sizes[i] * sizeof(float)))) return -1;
    gc_fill_quant(h->x, h->nx, 11);
    gc_fill_quant(h->w, h->nw, 12);
    gc_fill_quant(h->b, c->c_out, 13);
    gc_fill_quant(h->r, h->ny, 14);
    samrt_conv_ref(&h->d, h->x, h->w, h->b, h->r, h->ref);
    int ho, wo;
    samrt_conv_out_hw(&h->d, &ho, &wo);
    gc_nchw_to_nhwc(h->x_h, h->x, c->n, c->c_in, c->h, c->w);
    gc_nchw_to_nhwc(h->r_h, h->r, c->n, c->c_out, ho, wo);
    gc_nchw_to_nhwc(h->ref_h, h->ref, c->n, c->c_out, ho, wo);
    samrt_conv_pack_nhwc(c->c_out, c->c_in / c->groups, c->k, c->k, h->w, h->w_h);
    return 0;
}

static void host_conv_free(struct host_conv *h) {
    free(h->x); free(h->w); free(h->b); free(h->r); free(h->ref);
    free(h->x_h); free(h->w_h); free(h->r_h); free(h->ref_h); free(h->out);
}

struct bench_arg {
    const void *plan;
    int transposed;
    const void *x, *w, *b, *r;
    void *y;
    const struct gc_fixture *f;
    size_t ws_cap;
};

static enum samrt_status bench_run(void *p, cudaStream_t s) {
    const struct bench_arg *a = p;
    if (a->transposed)
        return samrt_convt2x2_cuda(a->plan, a->x, a->w, a->b, a->r, a->y, a->f->ws, a->ws_cap, s);
    return samrt_conv_cuda(a->plan, a->x, a->w, a->b, a->r, a->y, a->f->ws, a->ws_cap, s);
}

/* Runs the plan once on poisoned y, checks every element was written, compares with ref. */
static void check_output(const char *what, struct gc_fixture *f, struct bench_arg *a, enum samrt_dtype dt,
                         float *out, const float *ref, int64_t ny) {
    const enum samrt_status rs = bench_run(a, f->stream);
    CHECK_MSG(rs == SAMRT_OK, "%s: run: %s", what, samrt_status_str(rs));
    CHECK_MSG(cudaStreamSynchronize(f->stream) == cudaSuccess, "%s: stream", what);
    CHECK(gc_download(dt, out, a->y, ny) == 0);
    long bad = 0;
    for (int64_t i = 0; i < ny; i++) bad += !isfinite(out[i]);
    CHECK_MSG(bad == 0, "%s: %ld outputs not written (still NaN) or not finite", what, bad);
    gc_compare(what, out, ref, (long)ny, conv_tol(dt));
}

/* The same depthwise conv through cuDNN + the epilogue pass (force_library), checked and
 * timed next to dwconv.h's kernel: the side-by-side row of the benchmark. */
static void bench_library(struct gc_fixture *f, const struct conv_case *c, struct host_conv *h,
                          struct samrt_conv_desc d, struct bench_arg *own, struct samrt_bench *bench,
                          const char *what) {
    d.force_library = 1;
    struct samrt_conv_plan lib;
    const enum samrt_status st = samrt_conv_plan_init(&f->ctx, &d, c->ws_cap, NULL, &lib);
    CHECK_MSG(st == SAMRT_OK && !lib.own_dw, "%s: cuDNN plan: %s", what, samrt_status_str(st));
    if (st != SAMRT_OK) return;
    struct bench_arg a = *own;
    a.plan = &lib;
    check_output(what, f, &a, d.dtype, h->out, h->ref_h, h->ny);
    const double ms_lib = samrt_bench_median_ms(bench, bench_run, &a, f->stream, 3, BENCH_REPS);
    const double ms_own = samrt_bench_median_ms(bench, bench_run, own, f->stream, 3, BENCH_REPS);
    const double bytes = (double)samrt_dtype_size(d.dtype) * (h->nx + h->ny * (1 + c->residual));
    printf("BENCH op=dwconv name=%s dtype=%s cudnn_plus_epilogue_ms=%.4f samrt_ms=%.4f speedup=%.1f "
           "samrt_GBps=%.0f\n", c->name, samrt_dtype_name(d.dtype), ms_lib, ms_own, ms_lib / ms_own,
           bytes / (ms_own * 1e-3) / 1e9);
    samrt_conv_plan_free(&lib);
}

static void run_conv(struct gc_fixture *f, const struct conv_case *c, struct host_conv *h,
                     enum samrt_conv_layout l, enum samrt_dtype dt, struct samrt_bench *bench) {
    const int nhwc = l == SAMRT_CONV_NHWC;
    char what[160];
    snprintf(what, sizeof what, "%s %s %s", c->name, nhwc ? "nhwc" : "nchw", samrt_dtype_name(dt));
    const struct samrt_conv_desc d = case_desc(c, l, dt);
    void *x = gc_upload(dt, nhwc ? h->x_h : h->x, h->nx), *w = gc_upload(dt, nhwc ? h->w_h : h->w, h->nw);
    void *b = gc_upload(dt, h->b, c->c_out), *r = gc_upload(dt, nhwc ? h->r_h : h->r, h->ny);
    void *y = gc_alloc_poison(dt, h->ny);
    CHECK_MSG(x && w && b && r && y, "%s: device allocation", what);
    struct samrt_conv_plan plan;
    enum samrt_status st = SAMRT_E_CUDA;
    if (x && w && b && r && y) {
        const struct samrt_conv_tune tune = {x, w, y, f->ws};
        st = samrt_conv_plan_init(&f->ctx, &d, c->ws_cap, c->tuned && c->ws_cap ? &tune : NULL, &plan);
        CHECK_MSG(st == SAMRT_OK, "%s: plan_init: %s", what, samrt_status_str(st));
    }
    if (st == SAMRT_OK) {
        cudaMemset(y, 0xff, (size_t)h->ny * samrt_dtype_size(dt));   /* the timed search wrote y */
        struct bench_arg a = {&plan, 0, x, w, b, c->residual ? r : NULL, y, f, c->ws_cap};
        check_output(what, f, &a, dt, h->out, nhwc ? h->ref_h : h->ref, h->ny);
        if (bench && c->production) {
            const double ms = samrt_bench_median_ms(bench, bench_run, &a, f->stream, 3, BENCH_REPS);
            printf(
                "BENCH op=conv name=%s shape=%dx%dx%dx%d->%dx%dx%d k=%d s=%d g=%d layout=%s dtype=%s algo=%d "
                "ws=%zu ms=%.4f TFLOPs=%.3f\n",
                c->name, c->n, c->c_in, c->h, c->w, c->c_out, plan.ho, plan.wo, c->k, c->stride, c->groups,
                nhwc ? "nhwc" : "nchw", samrt_dtype_name(dt), (int)plan.algo, plan.ws_bytes, ms,
                samrt_conv_flops(&d) / (ms * 1e-3) / 1e12);
        }
        if (bench && c->production && plan.own_dw) bench_library(f, c, h, d, &a, bench, what);
        samrt_conv_plan_free(&plan);
    }
    cudaFree(x); cudaFree(w); cudaFree(b); cudaFree(r); cudaFree(y);
}

static void run_convt(struct gc_fixture *f, const struct convt_case *c, enum samrt_dtype dt,
                      struct samrt_bench *bench) {
    char what[160];
    snprintf(what, sizeof what, "%s nhwc %s", c->name, samrt_dtype_name(dt));
    const struct samrt_convt2x2_desc d = {.n = c->n, .c_in = c->c_in, .h = c->h, .w = c->w, .c_out = c->c_out,
                                          .dtype = dt, .epilogue = c->ep, .residual = c->residual};
    const int64_t nx = (int64_t)c->n * c->h * c->w * c->c_in, nw = 4 * (int64_t)c->c_in * c->c_out;
    const int64_t ny = 4 * (int64_t)c->n * c->h * c->w * c->c_out;
    float *hx = malloc(nx * sizeof(float)), *hw = malloc(nw * sizeof(float)),
          *hb = malloc(c->c_out * sizeof(float));
    float *hr = malloc(ny * sizeof(float)), *ref = malloc(ny * sizeof(float)),
          *out = malloc(ny * sizeof(float));
    float *wp = malloc(nw * sizeof(float)), *bp = malloc(2 * c->c_out * sizeof(float));
    CHECK_MSG(hx && hw && hb && hr && ref && out && wp && bp, "%s: host allocation", what);
    if (hx && hw && hb && hr && ref && out && wp && bp) {
        gc_fill_quant(hx, nx, 21);
        gc_fill_quant(hw, nw, 22);
        gc_fill_quant(hb, c->c_out, 23);
        gc_fill_quant(hr, ny, 24);
        samrt_convt2x2_ref(&d, hx, hw, hb, hr, ref);
        samrt_conv_pack_transpose2x2(c->c_in, c->c_out, hw, hb, wp, bp);
        void *x = gc_upload(dt, hx, nx), *w = gc_upload(dt, wp, nw), *b = gc_upload(dt, bp, 2 * c->c_out);
        void *r = gc_upload(dt, hr, ny), *y = gc_alloc_poison(dt, ny);
        struct samrt_convt2x2_plan plan;
        const enum samrt_status st = samrt_convt2x2_plan_init(&f->ctx, &d, f->ws_cap, &plan);
        CHECK_MSG(st == SAMRT_OK, "%s: plan_init: %s", what, samrt_status_str(st));
        if (st == SAMRT_OK && x && w && b && r && y) {
            struct bench_arg a = {&plan, 1, x, w, b, c->residual ? r : NULL, y, f, f->ws_cap};
            check_output(what, f, &a, dt, out, ref, ny);
            if (bench && c->production) {
                const double ms = samrt_bench_median_ms(bench, bench_run, &a, f->stream, 3, BENCH_REPS);
                printf("BENCH op=convt2x2 name=%s shape=%dx%dx%dx%d->%dx%dx%d layout=nhwc dtype=%s ms=%.4f "
                       "TFLOPs=%.3f\n", c->name, c->n, c->c_in, c->h, c->w, c->c_out, 2 * c->h, 2 * c->w,
                       samrt_dtype_name(dt), ms, samrt_gemm_flops(&plan.gemm.d) * 2 / (ms * 1e-3) / 1e12);
            }
        }
        if (st == SAMRT_OK) samrt_convt2x2_plan_free(&plan);
        cudaFree(x); cudaFree(w); cudaFree(b); cudaFree(r); cudaFree(y);
    }
    free(hx); free(hw); free(hb); free(hr); free(ref); free(out); free(wp); free(bp);
}

/* ---- the bn form against the unfused chain ---------------------------------------------------- */

struct bn_case {
    const char *name;
    int n, h, w, c, stride, rep;   /* rep: RepVggDw (stride 1), else conv -> BatchNorm */
    enum samrt_epilogue_act act;
    int residual, production;
};

/* RepViT-M1 at 1024 (widths 48, 96, 192, 384 on 256..32 maps): stage s's RepVggDw mixers and
 * the 3x3/2 spatial downsample before it; then odd shapes (C a multiple of 8 for the 16-byte
 * channel vectors, not of 64: a partial block of channels; 1x1 and odd maps, batch 2, act +
 * residual after the BatchNorm). Returns the count (at most 16). */
static int bn_cases(struct bn_case *out) {
    static const char *mixer[4] = {"mixer_s0", "mixer_s1", "mixer_s2", "mixer_s3"};
    static const char *down[4] = {NULL, "down_s1", "down_s2", "down_s3"};
    static const int dims[4] = {48, 96, 192, 384};
    const enum samrt_epilogue_act none = SAMRT_EPILOGUE_ACT_NONE;
    int n = 0;
    for (int s = 0; s < 4; s++) {
        if (s > 0) out[n++] = (struct bn_case){down[s], 1, 512 >> s, 512 >> s, dims[s - 1], 2, 0, none, 0, 1};
        out[n++] = (struct bn_case){mixer[s], 1, 256 >> s, 256 >> s, dims[s], 1, 1, none, 0, 1};
    }
    out[n++] = (struct bn_case){"rep_c24_b2_odd", 2, 7, 5, 24, 1, 1, none, 0, 0};
    out[n++] = (struct bn_case){"rep_c8_1x1", 1, 1, 1, 8, 1, 1, none, 0, 0};
    out[n++] = (struct bn_case){"bn_gelu_res_c72", 2, 9, 11, 72, 1, 0, SAMRT_EPILOGUE_ACT_GELU, 1, 0};
    out[n++] = (struct bn_case){"bn_s2_relu_res_c16_odd", 1, 13, 7, 16, 2, 0, SAMRT_EPILOGUE_ACT_RELU, 1, 0};
    out[n++] = (struct bn_case){"bn_s2_1x1_c8", 1, 1, 1, 8, 2, 0, none, 0, 0};
    return n;
}

/* Device tensors of one case: x, w, w1, r and the outputs in the dtype, the BatchNorms f32. */
struct bn_dev {
    struct samrt_dwconv_desc d;
    struct samrt_dwconv_bn_params bn;
    int64_t nx, ny;
    void *x, *w, *w1, *r, *t, *a, *u, *y_chain, *y_fused;
    float *s, *sh, *s1, *sh1;
};

static int bn_dev_init(const struct bn_case *c, enum samrt_dtype dt, struct bn_dev *g) {
    memset(g, 0, sizeof *g);
    g->d = (struct samrt_dwconv_desc){c->n, c->h, c->w, c->c, 3, c->stride, 1, dt, c->act, 0, c->residual};
    int ho, wo;
    samrt_dwconv_out_hw(&g->d, &ho, &wo);
    g->nx = (int64_t)c->n * c->h * c->w * c->c;
    g->ny = (int64_t)c->n * ho * wo * c->c;
    /* activations in [-3, 3], weights in [-0.6, 0.6], BatchNorm scales in [0.2, 1.5] and shifts
     * in [-0.5, 0.5]: random f32 values, so every rounding of the chain matters */
    const int64_t n_host = g->nx + g->ny + 14L * c->c;
    float *hbuf = malloc(sizeof(float) * (size_t)n_host), *hx = hbuf, *hr = hx + g->nx, *hw = hr + g->ny;
    float *hw1 = hw + 9 * c->c, *hbn = hw1 + c->c;
    if (!hbuf) return -1;
    tu_fill_uniform(hx, (long)(g->nx + g->ny), 71, -3, 3);
    tu_fill_uniform(hw, 10L * c->c, 72, -0.6f, 0.6f);
    for (int i = 0; i < 4; i++) tu_fill_uniform(hbn + i * c->c, c->c, 73 + i, i % 2 ? -0.5f : 0.2f, i % 2 ? 0.5f : 1.5f);
    g->x = gc_upload(dt, hx, g->nx);
    g->r = gc_upload(dt, hr, g->ny);
    g->w = gc_upload(dt, hw, 9L * c->c);
    g->w1 = gc_upload(dt, hw1, c->c);
    float **bn[4] = {&g->s, &g->sh, &g->s1, &g->sh1};
    for (int i = 0; i < 4; i++) *bn[i] = gc_upload(SAMRT_DTYPE_F32, hbn + i * c->c, c->c);
    free(hbuf);
    void **outs[] = {&g->t, &g->a, &g->u, &g->y_chain, &g->y_fused};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(outs); i++)
        if (!(*outs[i] = gc_alloc_poison(dt, g->nx > g->ny ? g->nx : g->ny))) return -1;
    g->bn = (struct samrt_dwconv_bn_params){c->rep ? SAMRT_DWCONV_BN_REPVGG : SAMRT_DWCONV_BN_AFFINE, g->s, g->sh,
                                            c->rep ? g->w1 : NULL, c->rep ? g->s1 : NULL, c->rep ? g->sh1 : NULL};
    return g->x && g->r && g->w && g->w1 && g->s && g->sh && g->s1 && g->sh1 ? 0 : -1;
}

static void bn_dev_free(struct bn_dev *g) {
    void *p[] = {g->x, g->w, g->w1, g->r, g->t, g->a, g->u, g->y_chain, g->y_fused, g->s, g->sh, g->s1, g->sh1};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(p); i++) cudaFree(p[i]);
}

/* The chain the bn form replaces, as the ops ran it: dwconv (no bias, rounded on store),
 * channel_affine with the f32 BatchNorm (+ act + residual); a RepVggDw's 1x1 branch x * w1,
 * its BatchNorm plus the first, and the identity add. */
static enum samrt_status bn_chain_run(void *p, cudaStream_t s) {
    const struct bn_dev *g = p;
    const enum samrt_dtype dt = g->d.dtype;
    const int rep = g->bn.mode == SAMRT_DWCONV_BN_REPVGG;
    struct samrt_dwconv_desc plain = g->d;
    plain.act = SAMRT_EPILOGUE_ACT_NONE;
    plain.residual = 0;
    SAMRT_TRY(samrt_dwconv_cuda(&plain, g->x, g->w, NULL, NULL, g->t, s));
    const struct samrt_channel_affine_args bn3 = {dt, g->ny, g->d.c, 1, g->t, g->s, g->sh, g->d.residual ? g->r : NULL,
                                                  rep ? g->a : g->y_chain, 1,
                                                  rep ? SAMRT_ACT_NONE : (enum samrt_act)g->d.act};
    SAMRT_TRY(samrt_channel_affine_cuda(&bn3, s));
    if (!rep) return SAMRT_OK;
    const struct samrt_channel_affine_args dw1 = {dt, g->nx, g->d.c, 1, g->x, g->w1, NULL, NULL, g->u, 0, SAMRT_ACT_NONE};
    const struct samrt_channel_affine_args bn1 = {dt, g->nx, g->d.c, 1, g->u, g->s1, g->sh1, g->a, g->t, 1,
                                                  SAMRT_ACT_NONE};
    const struct samrt_add_scaled_args add = {dt, g->nx, 1.0f, 1.0f, g->t, g->x, g->y_chain};
    SAMRT_TRY(samrt_channel_affine_cuda(&dw1, s));
    SAMRT_TRY(samrt_channel_affine_cuda(&bn1, s));
    return samrt_add_scaled_cuda(&add, s);
}

static enum samrt_status bn_fused_run(void *p, cudaStream_t s) {
    const struct bn_dev *g = p;
    return samrt_dwconv_bn_cuda(&g->d, g->x, g->w, NULL, &g->bn, g->d.residual ? g->r : NULL, g->y_fused, s);
}

static void run_bn(struct gc_fixture *f, const struct bn_case *c, enum samrt_dtype dt, struct samrt_bench *bench) {
    char what[160];
    snprintf(what, sizeof what, "dwconv_bn %s %s", c->name, samrt_dtype_name(dt));
    struct bn_dev g;
    const int ok = bn_dev_init(c, dt, &g) == 0;
    CHECK_MSG(ok, "%s: setup", what);
    CHECK_MSG(!ok || (samrt_dwconv_supported(&g.d, g.x, g.w, NULL, g.d.residual ? g.r : NULL, g.y_fused) &&
                      samrt_dwconv_bn_shape_ok(&g.d, g.bn.mode)),
              "%s: the kernel does not take it", what);
    const size_t bytes = (size_t)g.ny * samrt_dtype_size(dt);
    char *h = ok ? malloc(2 * bytes) : NULL;
    if (h) {
        const enum samrt_status s1 = bn_chain_run(&g, f->stream), s2 = bn_fused_run(&g, f->stream);
        CHECK_MSG(s1 == SAMRT_OK && s2 == SAMRT_OK, "%s: chain %s, fused %s", what, samrt_status_str(s1),
                  samrt_status_str(s2));
        CHECK(cudaStreamSynchronize(f->stream) == cudaSuccess);
        CHECK(cudaMemcpy(h, g.y_chain, bytes, cudaMemcpyDeviceToHost) == cudaSuccess &&
              cudaMemcpy(h + bytes, g.y_fused, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        const size_t es = samrt_dtype_size(dt);
        long bad = 0;
        for (int64_t i = 0; i < g.ny; i++) bad += memcmp(h + i * es, h + bytes + i * es, es) != 0;
        CHECK_MSG(bad == 0, "%s: %ld of %lld outputs differ in their bits from the unfused chain", what, bad,
                  (long long)g.ny);
        if (bench && c->production) {
            const double ms_chain = samrt_bench_median_ms(bench, bn_chain_run, &g, f->stream, 3, BENCH_REPS);
            const double ms_fused = samrt_bench_median_ms(bench, bn_fused_run, &g, f->stream, 3, BENCH_REPS);
            printf("BENCH op=dwconv_bn name=%s shape=%dx%dx%dx%d s=%d mode=%s dtype=%s unfused_ms=%.4f launches=%d "
                   "fused_ms=%.4f speedup=%.2f\n", c->name, c->n, c->h, c->w, c->c, c->stride,
                   c->rep ? "repvgg" : "affine", samrt_dtype_name(dt), ms_chain, c->rep ? 5 : 2, ms_fused,
                   ms_chain / ms_fused);
        }
    }
    free(h);
    bn_dev_free(&g);
}

int main(int argc, char **argv) {
    const int bench_on = argc > 1 && !strcmp(argv[1], "--bench");
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_conv_cuda", why);
    struct gc_fixture f;
    if (gc_fixture_init(&f, WS_CAP) != 0) return gc_fail("test_conv_cuda", "GPU setup failed");
    struct samrt_bench bench;
    if (bench_on && samrt_bench_init(&bench, 1) != 0)
        return gc_fail("test_conv_cuda", "bench setup failed");
    struct samrt_bench *bp = bench_on ? &bench : NULL;
    for (size_t ci = 0; ci < SAMRT_ARRAY_LEN(CASES); ci++) {
        struct host_conv h;
        if (host_conv_init(&CASES[ci], &h) != 0) {
            CHECK_MSG(0, "%s: host allocation", CASES[ci].name);
            continue;
        }
        for (size_t di = 0; di < SAMRT_ARRAY_LEN(DTYPES); di++) {
            run_conv(&f, &CASES[ci], &h, SAMRT_CONV_NCHW, DTYPES[di], bp);
            run_conv(&f, &CASES[ci], &h, SAMRT_CONV_NHWC, DTYPES[di], bp);
        }
        host_conv_free(&h);
    }
    for (size_t ci = 0; ci < SAMRT_ARRAY_LEN(TCASES); ci++)
        for (size_t di = 0; di < SAMRT_ARRAY_LEN(DTYPES); di++) run_convt(&f, &TCASES[ci], DTYPES[di], bp);
    struct bn_case bn[16];
    const int n_bn = bn_cases(bn);
    for (int ci = 0; ci < n_bn; ci++)
        for (size_t di = 0; di < SAMRT_ARRAY_LEN(DTYPES); di++) run_bn(&f, &bn[ci], DTYPES[di], bp);
    if (bench_on) samrt_bench_free(&bench);
    gc_fixture_free(&f);
    return check_report("test_conv_cuda");
}
