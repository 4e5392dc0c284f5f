/* ops_table_cuda.c - the op table's runner, GPU part: every row's launcher against its
 * reference. Inputs are uploaded (one element past an aligned start where the row asks),
 * outputs start as NaN bytes so an element the kernel forgets fails, and each output is
 * compared under the row's tolerance rule. --bench times the rows marked bench (warm-up, L2
 * flush before each repetition, CUDA events, median; tests/bench_cuda.h) and prints
 *   BENCH op=<op> shape=<row> dtype=<dt> ms=<median> GBps=<bytes moved / median>
 * --selftest moves one element of the reference's output of one row of every op and requires
 * the comparison to report it. Ops that plan on cuBLASLt / cuDNN get the runner's handles
 * through ot_op.gpu_prepare, which also picks each case's variants (split-K, tile shapes).
 * Without a usable device it exits 77 with the reason. The launchers' refusals of bad
 * arguments (nothing launched) are checked here too, the GEMM plan's among them. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "check.h"
#include "copy.h"
#include "elementwise.h"
#include "fourier_pe.h"
#include "gemm.h"
#include "gpu_ctx.h"
#include "interp.h"
#include "layernorm.h"
#include "ops_table.h"
#include "pool.h"
#include "sine_pe.h"
#include "smallops_cuda.h"
#include "test_util.h"

struct ot_gpu_run {
    int bench, selftest;
    struct samrt_gpu_ctx ctx;  /* the cuBLASLt / cuDNN handles the library ops plan on */
    const struct ot_case *c;   /* the case being timed */
    void *d[OT_MAX_BUFS];
};

static enum samrt_status ot_bench_launch(void *user, cudaStream_t s) {
    struct ot_gpu_run *g = (struct ot_gpu_run *)user;
    return g->c->row->op->call(g->c, g->d, 1, (void *)s);
}

static void ot_bench_case(struct ot_gpu_run *g) {
    const struct ot_case *c = g->c;
    char dt[32];
    if (c->row->src_dts && c->src != c->dt)
        snprintf(dt, sizeof dt, "%s->%s", samrt_dtype_name(c->src), samrt_dtype_name(c->dt));
    else snprintf(dt, sizeof dt, "%s", samrt_dtype_name(c->dt));
    const double ms = bench_median_ms(ot_bench_launch, g, 0);
    if (c->flops > 0 && ms > 0)  /* compute-bound ops: the same line with TFLOPs */
        printf("BENCH op=%s shape=%s dtype=%s ms=%.4f GBps=%.1f TFLOPs=%.2f\n", c->row->op->name, c->row->shape, dt,
               ms, c->moved / (ms * 1e6), c->flops / (ms * 1e9));
    else bench_print(c->row->op->name, c->row->shape, dt, ms, c->moved);
}

/* Device buffers start as NaN bytes, inputs uploaded (again before each variant: in-place ops). */
static void ot_gpu_fill(const struct ot_case *c, void *const *alloc, void *const *d) {
    for (int i = 0; i < c->nb; i++) {
        const struct ot_buf *b = &c->b[i];
        if (!alloc[i]) continue;
        const size_t bytes = ot_buf_bytes(b), off = b->misalign ? samrt_dtype_size(b->dt) : 0;
        SC_CUDA(cudaMemset(alloc[i], 0xff, bytes + off + 1));  /* NaN in f32, f16 and bf16 */
        if (b->init) SC_CUDA(cudaMemcpy(d[i], b->init, bytes, cudaMemcpyHostToDevice));
    }
}

/* Each output of variant v against the reference h; a sampled output must be written everywhere. */
static void ot_gpu_compare(struct ot_gpu_run *g, const struct ot_case *c, void **h, const char *name) {
    for (int i = 0; i < c->nb; i++) {
        const struct ot_buf *b = &c->b[i];
        if (b->alias >= 0 || b->n <= 0 || (b->role != OT_OUT && b->role != OT_INOUT)) continue;
        void *got = malloc(ot_buf_bytes(b));
        if (!got) { fprintf(stderr, "host allocation failed\n"); exit(1); }
        SC_CUDA(cudaMemcpy(got, g->d[i], ot_buf_bytes(b), cudaMemcpyDeviceToHost));
        if (g->selftest) {
            ot_perturb(c, i, h[i]);
            CHECK_MSG(ot_compare(c, i, got, h[i], "selftest (expected)") > 0, "%s: selftest: compare passed", name);
        } else {
            CHECK_MSG(ot_compare(c, i, got, h[i], name) == 0, "%s buf %d: launcher differs from the reference", name,
                      i);
        }
        if (b->sampled && !(c->row->flags & OT_NAN_OK) && !g->selftest) {
            float *v = ot_load(c, i, got);
            const long n = b->cmp > 0 ? b->cmp : b->n;
            long unwritten = 0;
            for (long k = 0; k < n; k++) unwritten += isnan(v[k]) != 0;
            free(v);
            CHECK_MSG(unwritten == 0, "%s buf %d: %ld of %ld outputs not written", name, i, unwritten, n);
        }
        free(got);
    }
}

static void ot_gpu_case(const struct ot_case *c0, void *user) {
    struct ot_gpu_run *g = (struct ot_gpu_run *)user;
    void **h = ot_host_run(c0);
    void *alloc[OT_MAX_BUFS] = {0};
    for (int i = 0; i < c0->nb; i++) {
        const struct ot_buf *b = &c0->b[i];
        g->d[i] = NULL;
        if (b->alias >= 0 || b->n < 0) continue;
        const size_t bytes = ot_buf_bytes(b), off = b->misalign ? samrt_dtype_size(b->dt) : 0;
        SC_CUDA(cudaMalloc(&alloc[i], bytes + off + 1));
        g->d[i] = (char *)alloc[i] + off;
    }
    for (int i = 0; i < c0->nb; i++)
        if (c0->b[i].alias >= 0) g->d[i] = g->d[c0->b[i].alias];
    const struct ot_op *op = c0->row->op;
    const int n_var = g->selftest || op->n_variants < 1 ? 1 : op->n_variants;
    for (int v = 0; v < n_var; v++) {
        struct ot_case cv = *c0;  /* the variant's device state lives in cv.gpu */
        char name[224];
        ot_case_name(&cv, name, sizeof name);
        if (n_var > 1) snprintf(name + strlen(name), sizeof name - strlen(name), " v%d", v);
        ot_gpu_fill(&cv, alloc, g->d);
        const int run = op->gpu_prepare ? op->gpu_prepare(&cv, &g->ctx, g->d, v) : 1;
        CHECK_MSG(run >= 0, "%s: device setup failed", name);
        if (run > 0) {
            const enum samrt_status st = op->call(&cv, g->d, 1, NULL);
            CHECK_MSG(st == SAMRT_OK, "%s: launcher returned %d", name, (int)st);
            SC_CUDA(cudaDeviceSynchronize());
            ot_gpu_compare(g, &cv, h, name);
            const unsigned src = cv.row->src_dts;
            if (g->bench && v == 0 && (cv.row->flags & OT_BENCH) &&
                (!src || cv.src == cv.dt || (src & (src - 1)) == 0)) {
                g->c = &cv;
                ot_bench_case(g);
            }
        }
        if (op->gpu_free) op->gpu_free(&cv);
    }
    for (int i = 0; i < c0->nb; i++)
        if (alloc[i]) SC_CUDA(cudaFree(alloc[i]));
    ot_host_free(c0, h);
}

/* The GEMM plan rejects what cuBLASLt could not run; the run rejects misaligned pointers, a
 * missing bias and a short workspace. */
static void ot_gemm_bad_args(const struct samrt_gpu_ctx *ctx) {
    const size_t ws_cap = (size_t)4 << 20;
    struct samrt_gemm_desc d = samrt_gemm_desc_make(64, 64, 64, SAMRT_DTYPE_BF16, SAMRT_DTYPE_BF16,
                                                    SAMRT_EPILOGUE_BIAS);
    struct samrt_gemm_plan plan;
    CHECK_STATUS(samrt_gemm_plan_init(ctx, &d, ws_cap, &plan), SAMRT_OK);
    char *p = NULL, *ws = NULL;
    SC_CUDA(cudaMalloc((void **)&p, 2 * (64 * 64 + 8)));
    SC_CUDA(cudaMalloc((void **)&ws, ws_cap));
    CHECK_STATUS(samrt_gemm_cuda(&plan, p + 2, p, p, NULL, p, ws, ws_cap, 0), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_gemm_cuda(&plan, p, p, NULL, NULL, p, ws, ws_cap, 0), SAMRT_E_INVALID_ARG);
    if (plan.ws_bytes)
        CHECK_STATUS(samrt_gemm_cuda(&plan, p, p, p, NULL, p, ws, plan.ws_bytes - 1, 0), SAMRT_E_INVALID_ARG);
    samrt_gemm_plan_free(&plan);
    SC_CUDA(cudaFree(p));
    SC_CUDA(cudaFree(ws));
    d.dt_out = SAMRT_DTYPE_F16;
    CHECK_STATUS(samrt_gemm_plan_init(ctx, &d, ws_cap, &plan), SAMRT_E_UNSUPPORTED);
}

/* The launchers validate like the references and launch nothing on bad input. */
static void ot_cuda_bad_args(void) {
    float dummy[32];
    struct samrt_layernorm_args ln = {SAMRT_DTYPE_F32, 4, 8, 1e-5f, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK_STATUS(samrt_layernorm_cuda(&ln, 0), SAMRT_E_INVALID_ARG);
    ln.x = ln.out = dummy;
    ln.dtype = SAMRT_DTYPE_I32;
    CHECK_STATUS(samrt_layernorm_cuda(&ln, 0), SAMRT_E_UNSUPPORTED);
    struct samrt_layernorm2d_args ln2 = {SAMRT_DTYPE_F16, 1, 0, 4, 1e-6f, SAMRT_ACT_NONE,
                                         dummy, NULL, NULL, NULL, dummy};
    CHECK_STATUS(samrt_layernorm2d_cuda(&ln2, 0), SAMRT_E_INVALID_ARG);
    struct samrt_unary_args un = {SAMRT_DTYPE_F32, SAMRT_ACT_GELU, 16, 1, 0, NULL, NULL};
    CHECK_STATUS(samrt_unary_cuda(&un, 0), SAMRT_E_INVALID_ARG);
    un.n = 0;  /* empty: nothing launched, success */
    CHECK_STATUS(samrt_unary_cuda(&un, 0), SAMRT_OK);
    struct samrt_channel_affine_args af = {SAMRT_DTYPE_BF16, 10, 3, 1, NULL, NULL, NULL, NULL, NULL, 0, SAMRT_ACT_NONE};
    CHECK_STATUS(samrt_channel_affine_cuda(&af, 0), SAMRT_E_INVALID_ARG);
    struct samrt_pool_args po = {SAMRT_DTYPE_F32, 1, 4, 4, 8, 4, 0, NULL, NULL};
    CHECK_STATUS(samrt_pool_max2x2_cuda(&po, 0), SAMRT_E_INVALID_ARG);  /* s_in < C */
    struct samrt_pool_args empty = {SAMRT_DTYPE_F32, 1, 1, 9, 8, 0, 0, dummy, dummy};
    CHECK_STATUS(samrt_pool_max2x2_cuda(&empty, 0), SAMRT_OK);  /* floor(1/2) = 0 rows: no launch */
    struct samrt_pool_mean_args pm = {SAMRT_DTYPE_F32, 1, 0, 8, dummy, dummy, 1, NULL};
    CHECK_STATUS(samrt_pool_mean_cuda(&pm, 0), SAMRT_E_INVALID_ARG);
    struct samrt_pool_mean_args no_partial = {SAMRT_DTYPE_F32, 1, 4096, 8, dummy, dummy, 8, NULL};
    CHECK_STATUS(samrt_pool_mean_cuda(&no_partial, 0), SAMRT_E_INVALID_ARG);
    struct samrt_sine_pe_args pe = {SAMRT_DTYPE_F32, 10, 4, 4, 0, NULL};
    CHECK_STATUS(samrt_sine_pe_cuda(&pe, 0), SAMRT_E_INVALID_ARG);
    struct samrt_fourier_pe_points_args fp = {SAMRT_DTYPE_F32, 128, NULL, 1, NULL, 0.5f, 1024, 1024, NULL};
    CHECK_STATUS(samrt_fourier_pe_points_cuda(&fp, 0), SAMRT_E_INVALID_ARG);
    struct samrt_copy_args cp = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, {1, 1, 1, 1}, {0, 0, 0, 0}, NULL, NULL, NULL};
    CHECK_STATUS(samrt_copy_cuda(&cp, 0), SAMRT_E_INVALID_ARG);
    struct samrt_interp_desc in = {SAMRT_INTERP_BILINEAR, 1, 4, 4, 0, 4, SAMRT_DTYPE_F32, SAMRT_DTYPE_F32};
    CHECK_STATUS(samrt_interp_cuda(&in, dummy, dummy, 0), SAMRT_E_INVALID_ARG);
    in.h_out = 4;
    in.dst_dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_interp_cuda(&in, dummy, dummy, 0), SAMRT_E_UNSUPPORTED);
}

int ot_run_cuda(int argc, char **argv) {
    const char *filter = ot_filter_arg(argc, argv);
    if (ot_has_flag(argc, argv, "--list")) {
        for (int i = 0; ot_row_at(i); i++)
            if (ot_row_match(ot_row_at(i), filter)) ot_row_list(ot_row_at(i));
        return 0;
    }
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_ops_table_cuda", why);
    struct ot_gpu_run g;
    memset(&g, 0, sizeof g);
    g.bench = ot_has_flag(argc, argv, "--bench");
    g.selftest = ot_has_flag(argc, argv, "--selftest");
    if (samrt_gpu_ctx_init(0, &g.ctx) != SAMRT_OK) {
        fprintf(stderr, "test_ops_table_cuda: FAILED: no GPU context (cuBLASLt / cuDNN handles)\n");
        return 1;
    }
    if (!g.selftest) {
        ot_cuda_bad_args();
        ot_gemm_bad_args(&g.ctx);
    }
    /* --selftest: each output of one row of every op moved by one element */
    const int n = ot_for_each_case(filter, g.selftest, ot_gpu_case, &g);
    samrt_gpu_ctx_free(&g.ctx);
    printf("test_ops_table_cuda: %d cases (rows x dtypes), launcher against reference\n", n);
    CHECK_MSG(n > 0, "no row matches '%s'", filter ? filter : "");
    g_check_failures += ot_host_failures();
    g_check_count += ot_host_checks();
    return check_report(g.selftest ? "test_ops_table_cuda --selftest" : "test_ops_table_cuda");
}
