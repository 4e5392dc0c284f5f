/* test_conv_cuda.c - the depthwise kernel's bn form (kernels/dwconv.h: EdgeTAM's bf16
 * BatchNorms fused, RepVggDw) against the chain of kernels it replaces (dwconv, channel_affine,
 * add_scaled) on the same device inputs: every output's bits, at RepViT-M1's shapes and odd
 * ones, f32 / f16 / bf16; with --bench the unfused chain and the fused launch side by side.
 * The launchers against their references (cuDNN / dwconv.h convolutions, the transposed 2x2,
 * the bn form) are rows of the op table (test_ops_table_cuda conv/ convt2x2/ dwconv_bn/).
 *
 * Run: ctest --preset gpu -R test_conv_cuda     (exit 77 without a GPU)
 *      build/gpu/tests/test_conv_cuda --bench  (adds BENCH lines, median of 20, L2 flushed) */
#include <stdio.h>
#include <string.h>

#include "conv.h"
#include "dev/bench.h"
#include "elementwise.h"
#include "gemmconv_util.h"

#define BENCH_REPS 20

static const enum samrt_dtype DTYPES[] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F16, SAMRT_DTYPE_BF16};

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
    if (gc_fixture_init(&f, 0) != 0) return gc_fail("test_conv_cuda", "GPU setup failed");
    struct samrt_bench bench;
    if (bench_on && samrt_bench_init(&bench, 1) != 0)
        return gc_fail("test_conv_cuda", "bench setup failed");
    struct bn_case bn[16];
    const int n_bn = bn_cases(bn);
    for (int ci = 0; ci < n_bn; ci++)
        for (size_t di = 0; di < SAMRT_ARRAY_LEN(DTYPES); di++)
            run_bn(&f, &bn[ci], DTYPES[di], bench_on ? &bench : NULL);
    if (bench_on) samrt_bench_free(&bench);
    gc_fixture_free(&f);
    return check_report("test_conv_cuda");
}
