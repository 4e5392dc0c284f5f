/* ops_table_cuda.c - the op table's runner, GPU part: every row's launcher against its
 * reference. Inputs are uploaded (one element past an aligned start where the row asks),
 * outputs start as NaN bytes so an element the kernel forgets fails, and each output is
 * compared under the row's tolerance rule. --bench times the rows marked bench (warm-up, L2
 * flush before each repetition, CUDA events, median; tests/bench_cuda.h) and prints
 *   BENCH op=<op> shape=<row> dtype=<dt> ms=<median> GBps=<bytes moved / median>
 * --selftest moves one element of the reference's output and requires the comparison to
 * report it. Without a usable device it exits 77 with the reason. The launchers' refusals of
 * bad arguments (nothing launched) are checked here too. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "check.h"
#include "copy.h"
#include "elementwise.h"
#include "fourier_pe.h"
#include "interp.h"
#include "layernorm.h"
#include "ops_table.h"
#include "pool.h"
#include "sine_pe.h"
#include "smallops_cuda.h"
#include "test_util.h"

struct ot_gpu_run {
    int bench, selftest;
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
    bench_print(c->row->op->name, c->row->shape, dt, bench_median_ms(ot_bench_launch, g, 0), c->moved);
}

static void ot_gpu_case(const struct ot_case *c, void *user) {
    struct ot_gpu_run *g = (struct ot_gpu_run *)user;
    char name[192];
    ot_case_name(c, name, sizeof name);
    void **h = ot_host_run(c);
    void *alloc[OT_MAX_BUFS] = {0};
    for (int i = 0; i < c->nb; i++) {
        const struct ot_buf *b = &c->b[i];
        g->d[i] = NULL;
        if (b->alias >= 0 || b->n < 0) continue;
        const size_t bytes = ot_buf_bytes(b), off = b->misalign ? samrt_dtype_size(b->dt) : 0;
        SC_CUDA(cudaMalloc(&alloc[i], bytes + off + 1));
        SC_CUDA(cudaMemset(alloc[i], 0xff, bytes + off + 1));  /* NaN in f32, f16 and bf16 */
        g->d[i] = (char *)alloc[i] + off;
        if (b->init) SC_CUDA(cudaMemcpy(g->d[i], b->init, bytes, cudaMemcpyHostToDevice));
    }
    for (int i = 0; i < c->nb; i++)
        if (c->b[i].alias >= 0) g->d[i] = g->d[c->b[i].alias];
    const enum samrt_status st = c->row->op->call(c, g->d, 1, NULL);
    CHECK_MSG(st == SAMRT_OK, "%s: launcher returned %d", name, (int)st);
    SC_CUDA(cudaDeviceSynchronize());
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
        free(got);
    }
    if (g->bench && (c->row->flags & OT_BENCH) && (!c->row->src_dts || c->src == c->dt ||
                                                   (c->row->src_dts & (c->row->src_dts - 1)) == 0)) {
        g->c = c;
        ot_bench_case(g);
    }
    for (int i = 0; i < c->nb; i++)
        if (alloc[i]) SC_CUDA(cudaFree(alloc[i]));
    ot_host_free(c, h);
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
    int n;
    if (g.selftest) {  /* each output of the selftest rows moved by one element */
        n = 0;
        for (int k = 0; k < OT_SELFTEST_ROWS; k++) n += ot_for_each_case(ot_selftest_rows[k], ot_gpu_case, &g);
    } else {
        ot_cuda_bad_args();
        n = ot_for_each_case(filter, ot_gpu_case, &g);
    }
    printf("test_ops_table_cuda: %d cases (rows x dtypes), launcher against reference\n", n);
    CHECK_MSG(n > 0, "no row matches '%s'", filter ? filter : "");
    g_check_failures += ot_host_failures();
    g_check_count += ot_host_checks();
    return check_report(g.selftest ? "test_ops_table_cuda --selftest" : "test_ops_table_cuda");
}
