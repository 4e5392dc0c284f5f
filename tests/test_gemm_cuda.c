/* test_gemm_cuda.c - the cuBLASLt Linear (kernels/gemm.c + epilogue.cu) against the
 * reference (kernels/gemm_ref.c) at production shapes of SAM 2.1 / EdgeTAM and at odd ones:
 * every epilogue, residual, alpha, row strides whose padding must stay untouched, strided
 * batches (shared and per-batch weights and biases), a zero-workspace cap, and the dtype
 * pairs f32->f32, f16->f16, bf16->bf16, bf16->f32, f16->f32. Inputs are multiples of 1/64
 * (gemmconv_util.h) so one reference serves all dtypes; for the largest products only every
 * step-th row is compared (the rest must still be written: poisoned outputs are checked to
 * be finite everywhere).
 *
 * Run: ctest --preset gpu -R test_gemm_cuda     (exit 77 without a GPU)
 *      build/gpu/tests/test_gemm_cuda --bench  (adds BENCH lines, median of 20, L2 flushed) */
#include <stdio.h>
#include <string.h>

#include "dev/bench.h"
#include "gemm.h"
#include "gemmconv_util.h"

#define WS_CAP ((size_t)32 << 20)   /* the h100 profile's cuBLASLt cap order of magnitude */
#define REF_MACS_BUDGET 3e8          /* per case: beyond it, compare a row sample */
#define BENCH_REPS 20

struct gemm_case {
    const char *name;
    int64_t m, n, k;
    enum samrt_epilogue ep;
    int residual, production;
    float alpha;
    int64_t pad_x, pad_y;            /* extra elements per row of x / y (row strides) */
    int64_t n_batch;
    int shared_w, per_batch_bias;
    size_t ws_cap;
};

static const struct gemm_case CASES[] = {
    /* name                m      n     k    epilogue                 res prod alpha pads batch */
    {"hiera_t_mlp_fc1", 65536, 384, 96, SAMRT_EPILOGUE_BIAS_GELU, 0, 1, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"hiera_t_mlp_fc2", 65536, 96, 384, SAMRT_EPILOGUE_BIAS, 1, 1, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"hiera_t_s3_qkv", 4096, 1152, 384, SAMRT_EPILOGUE_BIAS, 0, 1, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"memattn_ffn1", 4096, 2048, 256, SAMRT_EPILOGUE_BIAS_RELU, 0, 1, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"memattn_ffn2", 4096, 256, 2048, SAMRT_EPILOGUE_BIAS, 1, 1, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"memattn_k_proj", 28736, 256, 64, SAMRT_EPILOGUE_BIAS, 0, 1, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"cxblock_pwconv1", 4096, 1024, 256, SAMRT_EPILOGUE_BIAS_GELU, 0, 1, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"odd_none", 37, 29, 51, SAMRT_EPILOGUE_NONE, 0, 0, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"odd_one_row", 1, 3, 17, SAMRT_EPILOGUE_BIAS, 0, 0, 1, 0, 0, 1, 0, 0, WS_CAP},
    {"odd_strided_gelu", 1000, 77, 300, SAMRT_EPILOGUE_BIAS_GELU, 0, 0, 1, 4, 3, 1, 0, 0, WS_CAP},
    {"odd_residual_relu", 333, 130, 70, SAMRT_EPILOGUE_BIAS_RELU, 1, 0, 0.5f, 0, 6, 1, 0, 0, WS_CAP},
    {"batch_shared_w", 33, 24, 40, SAMRT_EPILOGUE_BIAS_RELU, 0, 0, 0.125f, 0, 0, 3, 1, 1, WS_CAP},
    {"batch_heads_gelu", 50, 16, 64, SAMRT_EPILOGUE_BIAS_GELU, 1, 0, 1, 0, 0, 4, 0, 0, WS_CAP},
    {"no_workspace", 512, 512, 512, SAMRT_EPILOGUE_BIAS, 0, 0, 1, 0, 0, 1, 0, 0, 0},
};

static const enum samrt_dtype DT_PAIRS[][2] = {
    {SAMRT_DTYPE_F32, SAMRT_DTYPE_F32},   {SAMRT_DTYPE_F16, SAMRT_DTYPE_F16},
    {SAMRT_DTYPE_BF16, SAMRT_DTYPE_BF16}, {SAMRT_DTYPE_BF16, SAMRT_DTYPE_F32},
    {SAMRT_DTYPE_F16, SAMRT_DTYPE_F32},
};

static struct samrt_gemm_desc case_desc(const struct gemm_case *c, enum samrt_dtype in,
                                        enum samrt_dtype out) {
    struct samrt_gemm_desc d = samrt_gemm_desc_make(c->m, c->n, c->k, in, out, c->ep);
    d.s_x = c->k + c->pad_x;
    d.s_y = c->n + c->pad_y;
    d.alpha = c->alpha;
    d.residual = c->residual;
    d.n_batch = c->n_batch;
    if (c->n_batch > 1) {
        d.sb_x = c->m * d.s_x;
        d.sb_w = c->shared_w ? 0 : c->n * d.s_w;
        d.sb_y = c->m * d.s_y;
        d.sb_b = c->per_batch_bias ? c->n : 0;
    }
    return d;
}

/* Host data and the reference of one case (shared by all dtype pairs). */
struct host_case {
    struct samrt_gemm_desc d;          /* f32 desc, for sizes */
    int64_t nx, nw, nb, ny;
    float *x, *w, *b, *r, *ref, *out;
    int64_t row_step;                  /* rows compared: i % row_step == 0, and the last */
};

static int64_t rows_checked(const struct host_case *h, int64_t i) {
    return i % h->row_step == 0 || i == h->d.m - 1;
}

static int host_case_init(const struct gemm_case *c, struct host_case *h) {
    memset(h, 0, sizeof *h);
    h->d = case_desc(c, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32);
    const struct samrt_gemm_desc *d = &h->d;
    h->nx = (d->n_batch - 1) * d->sb_x + d->m * d->s_x;
    h->nw = (d->n_batch - 1) * d->sb_w + d->n * d->s_w;
    h->nb = (d->n_batch - 1) * d->sb_b + d->n;
    h->ny = (d->n_batch - 1) * d->sb_y + d->m * d->s_y;
    h->x = malloc(h->nx * sizeof(float));
    h->w = malloc(h->nw * sizeof(float));
    h->b = malloc(h->nb * sizeof(float));
    h->r = malloc(h->ny * sizeof(float));
    h->ref = malloc(h->ny * sizeof(float));
    h->out = malloc(h->ny * sizeof(float));
    if (!h->x || !h->w || !h->b || !h->r || !h->ref || !h->out) return -1;
    gc_fill_quant(h->x, h->nx, 1);
    gc_fill_quant(h->w, h->nw, 2);
    gc_fill_quant(h->b, h->nb, 3);
    gc_fill_quant(h->r, h->ny, 4);
    for (int64_t i = 0; i < h->ny; i++) h->ref[i] = NAN;
    const double macs = (double)d->m * d->n * d->k * d->n_batch;
    h->row_step = macs > REF_MACS_BUDGET && d->n_batch == 1 ? (int64_t)(macs / REF_MACS_BUDGET) + 1 : 1;
    if (h->row_step == 1) {
        samrt_gemm_ref(d, h->x, h->w, h->b, h->r, h->ref);
    } else {
        struct samrt_gemm_desc one = *d;
        one.m = 1;
        for (int64_t i = 0; i < d->m; i++)
            if (rows_checked(h, i))
                samrt_gemm_ref(&one, h->x + i * d->s_x, h->w, h->b, h->r + i * d->s_y, h->ref + i * d->s_y);
    }
    return 0;
}

static void host_case_free(struct host_case *h) {
    free(h->x); free(h->w); free(h->b); free(h->r); free(h->ref); free(h->out);
}

struct bench_arg {
    const struct samrt_gemm_plan *plan;
    const void *x, *w, *b, *r;
    void *y;
    const struct gc_fixture *f;
};

static enum samrt_status bench_run(void *p, cudaStream_t s) {
    const struct bench_arg *a = p;
    return samrt_gemm_cuda(a->plan, a->x, a->w, a->b, a->r, a->y, a->f->ws, a->f->ws_cap, s);
}

static void run_pair(struct gc_fixture *f, const struct gemm_case *c, struct host_case *h,
                     enum samrt_dtype in, enum samrt_dtype out, struct samrt_bench *bench) {
    char what[160];
    snprintf(what, sizeof what, "%s %s->%s", c->name, samrt_dtype_name(in), samrt_dtype_name(out));
    const struct samrt_gemm_desc d = case_desc(c, in, out);
    struct samrt_gemm_plan plan;
    const enum samrt_status st = samrt_gemm_plan_init(&f->ctx, &d, c->ws_cap, &plan);
    CHECK_MSG(st == SAMRT_OK, "%s: plan_init: %s", what, samrt_status_str(st));
    if (st != SAMRT_OK) return;
    void *x = gc_upload(in, h->x, h->nx), *w = gc_upload(in, h->w, h->nw);
    void *b = gc_upload(out, h->b, h->nb), *r = gc_upload(out, h->r, h->ny);
    void *y = gc_alloc_poison(out, h->ny);
    CHECK_MSG(x && w && b && r && y, "%s: device allocation", what);
    if (x && w && b && r && y) {
        const enum samrt_status rs = samrt_gemm_cuda(&plan, x, w, b, c->residual ? r : NULL, y, f->ws,
                                                     c->ws_cap, f->stream);
        CHECK_MSG(rs == SAMRT_OK, "%s: run: %s", what, samrt_status_str(rs));
        CHECK_MSG(cudaStreamSynchronize(f->stream) == cudaSuccess, "%s: stream", what);
        CHECK(gc_download(out, h->out, y, h->ny) == 0);
        /* Every element inside the rows written, none in the padding columns. */
        long bad_written = 0, bad_pad = 0, n_cmp = 0;
        float *got = malloc(h->ny * sizeof(float)), *want = malloc(h->ny * sizeof(float));
        for (int64_t bt = 0; bt < d.n_batch; bt++)
            for (int64_t i = 0; i < d.m; i++)
                for (int64_t j = 0; j < d.s_y; j++) {
                    const int64_t idx = bt * d.sb_y + i * d.s_y + j;
                    if (j >= d.n) { bad_pad += !isnan(h->out[idx]); continue; }
                    bad_written += !isfinite(h->out[idx]);
                    if (rows_checked(h, i)) { got[n_cmp] = h->out[idx]; want[n_cmp] = h->ref[idx]; n_cmp++; }
                }
        CHECK_MSG(bad_written == 0, "%s: %ld outputs not written (still NaN) or not finite", what,
                  bad_written);
        CHECK_MSG(bad_pad == 0, "%s: %ld padding elements overwritten", what, bad_pad);
        gc_compare(what, got, want, n_cmp, gc_tol_for(out));
        free(got);
        free(want);
        if (bench && c->production) {
            struct bench_arg a = {&plan, x, w, b, c->residual ? r : NULL, y, f};
            const double ms = samrt_bench_median_ms(bench, bench_run, &a, f->stream, 3, BENCH_REPS);
            printf("BENCH op=gemm name=%s shape=%lldx%lldx%lld epi=%s%s dtype=%s->%s ms=%.4f TFLOPs=%.2f\n",
                   c->name, (long long)c->m, (long long)c->n, (long long)c->k, samrt_epilogue_name(c->ep),
                   c->residual ? "+res" : "", samrt_dtype_name(in), samrt_dtype_name(out), ms,
                   samrt_gemm_flops(&d) / (ms * 1e-3) / 1e12);
        }
    }
    cudaFree(x); cudaFree(w); cudaFree(b); cudaFree(r); cudaFree(y);
    samrt_gemm_plan_free(&plan);
}

/* Setup rejects what the run could not do, and the run rejects bad per-call data. */
static void test_rejections(struct gc_fixture *f) {
    struct samrt_gemm_desc d = samrt_gemm_desc_make(64, 64, 64, SAMRT_DTYPE_BF16, SAMRT_DTYPE_BF16,
                                                    SAMRT_EPILOGUE_BIAS);
    struct samrt_gemm_plan plan;
    CHECK_STATUS(samrt_gemm_plan_init(&f->ctx, &d, f->ws_cap, &plan), SAMRT_OK);
    void *buf = gc_alloc_poison(SAMRT_DTYPE_BF16, 64 * 64 + 8);
    char *p = buf;
    CHECK_STATUS(samrt_gemm_cuda(&plan, p + 2, p, p, NULL, p, f->ws, f->ws_cap, f->stream),
                 SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_gemm_cuda(&plan, p, p, NULL, NULL, p, f->ws, f->ws_cap, f->stream),
                 SAMRT_E_INVALID_ARG);
    if (plan.ws_bytes)
        CHECK_STATUS(samrt_gemm_cuda(&plan, p, p, p, NULL, p, f->ws, plan.ws_bytes - 1, f->stream),
                     SAMRT_E_INVALID_ARG);
    samrt_gemm_plan_free(&plan);
    cudaFree(buf);
    d.dt_out = SAMRT_DTYPE_F16;
    CHECK_STATUS(samrt_gemm_plan_init(&f->ctx, &d, f->ws_cap, &plan), SAMRT_E_UNSUPPORTED);
}

int main(int argc, char **argv) {
    const int bench_on = argc > 1 && !strcmp(argv[1], "--bench");
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_gemm_cuda", why);
    struct gc_fixture f;
    if (gc_fixture_init(&f, WS_CAP) != 0) return gc_fail("test_gemm_cuda", "GPU setup failed");
    struct samrt_bench bench;
    if (bench_on && samrt_bench_init(&bench, 1) != 0)
        return gc_fail("test_gemm_cuda", "bench setup failed");
    for (size_t ci = 0; ci < SAMRT_ARRAY_LEN(CASES); ci++) {
        struct host_case h;
        if (host_case_init(&CASES[ci], &h) != 0) {
            CHECK_MSG(0, "%s: host allocation", CASES[ci].name);
            continue;
        }
        for (size_t pi = 0; pi < SAMRT_ARRAY_LEN(DT_PAIRS); pi++)
            run_pair(&f, &CASES[ci], &h, DT_PAIRS[pi][0], DT_PAIRS[pi][1], bench_on ? &bench : NULL);
        host_case_free(&h);
    }
    test_rejections(&f);
    if (bench_on) samrt_bench_free(&bench);
    gc_fixture_free(&f);
    return check_report("test_gemm_cuda");
}
