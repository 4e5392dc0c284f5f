/* test_conv_cuda.c - the cuDNN convolution, the depthwise NHWC kernel (kernels/dwconv.cu) and
 * the cuBLASLt transposed 2x2 convolution (kernels/conv.c) against the references (kernels/conv_ref.c) at the production shapes of
 * model-spec §3 (Hiera patch embed, RepViT stem and depthwise convs, mask downsampler,
 * prompt-encoder 2x2/2, fuser depthwise 7x7, 1x1 projections with residual, the decoder's
 * transposed convs with residual and GELU) and at odd ones (batch 2, groups, stride 2 on odd
 * sizes, no bias), in NCHW and NHWC, f32 / f16 / bf16, with timed (FindEx) and heuristic
 * algorithm choice and a zero-workspace cap. One NCHW reference per case serves every
 * dtype and layout (inputs are multiples of 1/64, gemmconv_util.h); NHWC runs permute it.
 *
 * Run: ctest --preset gpu -R test_conv_cuda     (exit 77 without a GPU)
 *      build/gpu/tests/test_conv_cuda --bench  (adds BENCH lines, median of 20, L2 flushed) */
#include <stdio.h>
#include <string.h>

#include "conv.h"
#include "dev/bench.h"
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
    if (bench_on) samrt_bench_free(&bench);
    gc_fixture_free(&f);
    return check_report("test_conv_cuda");
}
