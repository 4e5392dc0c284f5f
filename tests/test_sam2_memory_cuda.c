/* test_sam2_memory_cuda.c - SAM 2.1's memory path: the CUDA backend against the CPU backend
 * (whose parity with the official modules test_sam2_memory_parity checks), model side 256
 * (16x16 grid), two object slots (one present, one absent), seeded random weights, f32 and bf16:
 *   - memory encoder, sigmoid and binarize mask inputs: the stored bf16 memory;
 *   - memory attention with 7 memories + 16 pointers (steady state) and 1 + 1 (second frame);
 *   - production shapes (model side 1024, one object, 7 memories + 16 pointers): the bf16 CUDA
 *     pass against the f32 CUDA pass (the C reference is too slow there), every value finite.
 * Built a second time as test_edgetam_memory_cuda (the executable's name selects it): the same
 * passes through EdgeTAM's path (memory encoder + spatial perceiver into 512-token memories, the
 * 2-layer RoPEAttentionv2 variant), at side 256 (1x1-pixel perceiver windows) against the CPU
 * backend and at side 1024 (4x4 windows) bf16 against f32 on the GPU.
 * The arena is poisoned with NaN bytes before the run, so unwritten elements fail.
 * Skips (77) without a GPU. Run: ctest --preset test -R 'test_sam2_memory_cuda|test_edgetam_memory_cuda' */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sam2_memory_util.h"

#define SIDE 256
#define N_OBJ 2
#define NM 7
#define NP 16
/* of the CPU tensor's max |value| */
#define TOL_F32 1e-4     /* cuBLASLt / cuDNN f32 (no TF32) vs the C reference: summation order */
#define TOL_BF16 5e-2    /* bf16 weights and activations vs the f32 reference */

static int g_edgetam;  /* the executable is test_edgetam_memory_cuda */

#define N_PASS 4
static const struct mu_pass g_passes[N_PASS] = {{MU_ENC, 0, 0}, {MU_ENC_BIN, 0, 0}, {MU_ATT, NM, NP}, {MU_ATT, 1, 1}};

/* The outputs of one rig: per checked pass, a host f32 copy. */
struct outs {
    float *enc[2];      /* (N_OBJ, n, 64) */
    float *att[2];      /* (N_OBJ, n, 256): ATT(7,16), ATT(1,1) */
};

static void fill_inputs(struct mu_rig *r) {
    const int64_t n = r->n, l = 4 * r->g, nb = r->B;
    float *buf = malloc(sizeof(float) * (size_t)(nb * n * 256 + nb * l * l));
    tu_fill_uniform(buf, (long)(n * 256), 1, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->vision, buf, (size_t)(n * 256)), 0);
    tu_fill_uniform(buf, (long)(nb * l * l), 2, -8, 8);
    CHECK_EQ_INT(mu_put_f32(r, &r->low_res, buf, (size_t)(nb * l * l)), 0);
    const float score[2] = {3.0f, -2.0f};
    CHECK_EQ_INT(mu_put_f32(r, &r->score, score, (size_t)nb), 0);
    tu_fill_uniform(buf, (long)(n * 256), 3, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->curr, buf, (size_t)(n * 256)), 0);
    tu_fill_uniform(buf, (long)(n * 256), 4, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->curr_pos, buf, (size_t)(n * 256)), 0);
    for (int j = 0; j < NM; j++) {
        tu_fill_uniform(buf, (long)(nb * r->n_mem_tok * 64), 10 + (uint64_t)j, -2, 2);
        CHECK_EQ_INT(mu_put_f32(r, &r->mem[j], buf, (size_t)(nb * r->n_mem_tok * 64)), 0);
    }
    tu_fill_uniform(buf, (long)(nb * NP * 256), 5, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->ptr, buf, (size_t)(nb * NP * 256)), 0);
    free(buf);
}

static float *fetch(struct mu_rig *r, const struct samrt_tensor *t, int64_t n) {
    float *v = malloc(sizeof(float) * (size_t)n);
    CHECK_EQ_INT(mu_get_f32(r, t, v, (size_t)n), 0);
    return v;
}

/* Runs every pass on r and keeps the checked outputs. */
static void run_all(struct mu_rig *r, struct outs *o) {
    fill_inputs(r);
    const int64_t ne = N_OBJ * r->n_mem_tok * 64, na = N_OBJ * r->n * 256;
    int idx[NM] = {6, 0, 1, 2, 3, 4, 5}, dist[NP];
    for (int i = 0; i < NP; i++) dist[i] = i == 0 ? 20 : i;
    for (int i = 0; i < N_PASS; i++) {
        const struct mu_pass *p = &g_passes[i];
        if (p->kind == MU_ATT)
            CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r->ma, &r->c[i], p->n_mem, idx, p->n_ptr, dist, 16), SAMRT_OK);
        CHECK_EQ_INT(mu_run(r, i), 0);
        if (i < 2) o->enc[i] = fetch(r, &r->mem_out, ne);
        if (i == 2 || i == 3) o->att[i - 2] = fetch(r, &r->att_out, na);
    }
}

static void *to_device(const float *v, int64_t n, enum samrt_dtype dt) {
    const size_t es = samrt_dtype_size(dt);
    void *h = malloc((size_t)n * es), *d = NULL;
    tu_store(dt, h, v, (long)n);
    if (cudaMalloc(&d, (size_t)n * es) == cudaSuccess) cudaMemcpy(d, h, (size_t)n * es, cudaMemcpyHostToDevice);
    free(h);
    return d;
}

static double max_abs(const float *x, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs((double)x[i]));
    return m;
}

static void compare(const char *what, enum samrt_dtype dt, const float *got, const float *want, int64_t n) {
    char name[96];
    snprintf(name, sizeof name, "%s %s", what, samrt_dtype_name(dt));
    const double m = max_abs(want, n), tol = (dt == SAMRT_DTYPE_F32 ? TOL_F32 : TOL_BF16) * m;
    double worst = 0;
    for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs((double)got[i] - want[i]));
    printf("%s: max |d| %.3g, tolerance %.3g (max |ref| %.3g)\n", name, worst, tol, m);
    check_close_f32(name, got, want, (long)n, tol, 0);
}

/* Side 1024: memory encoder and memory attention (7 + 16) on the GPU in dt; outputs to host,
 * *n_enc the stored memory's element count. */
static void production(struct hu_weights *w, enum samrt_dtype dt, float **enc, float **att, int64_t *n_enc) {
    static const struct mu_pass passes[2] = {{MU_ENC, 0, 0}, {MU_ATT, NM, NP}};
    void *wdata[HU_MAX_KEYS];
    for (int i = 0; i < w->n; i++) wdata[i] = to_device(w->t[i].v, w->t[i].n, dt);
    struct mu_rig r;
    CHECK_EQ_INT(mu_rig_init_ex(&r, w, wdata, SAMRT_BACKEND_CUDA, dt, 1024, 1, NM, NP, passes, 2, g_edgetam), 0);
    fill_inputs(&r);
    int idx[NM] = {6, 0, 1, 2, 3, 4, 5}, dist[NP];
    for (int i = 0; i < NP; i++) dist[i] = i == 0 ? 20 : i;
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    *n_enc = r.n_mem_tok * 64;
    *enc = fetch(&r, &r.mem_out, *n_enc);
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[1], NM, idx, NP, dist, 16), SAMRT_OK);
    CHECK_EQ_INT(mu_run(&r, 1), 0);
    *att = fetch(&r, &r.att_out, r.n * 256);
    for (int64_t i = 0; i < r.n * 256; i++)
        if (!isfinite((*att)[i]) || (i < *n_enc && !isfinite((*enc)[i]))) {
            CHECK_MSG(0, "production %s: non-finite output at %lld", samrt_dtype_name(dt), (long long)i);
            break;
        }
    mu_rig_free(&r);
    for (int i = 0; i < w->n; i++) cudaFree(wdata[i]);
}

int main(int argc, char **argv) {
    (void)argc;
    g_edgetam = strstr(argv[0], "edgetam") != NULL;
    const char *name = g_edgetam ? "test_edgetam_memory_cuda" : "test_sam2_memory_cuda";
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) return check_skip(name, why);
    struct hu_weights *w = malloc(sizeof *w);
    mu_make_weights(w, 91);
    if (g_edgetam) mu_make_perceiver_weights(w);
    CHECK_EQ_INT(hu_open_ckpt(w), 0);
    void *wdata[HU_MAX_KEYS];
    for (int i = 0; i < w->n; i++) wdata[i] = w->t[i].v;
    struct mu_rig cpu;
    struct outs ref;
    CHECK_EQ_INT(
        mu_rig_init_ex(&cpu, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, SIDE, N_OBJ, NM, NP, g_passes, N_PASS,
                       g_edgetam), 0);
    run_all(&cpu, &ref);
    const int64_t ne = N_OBJ * cpu.n_mem_tok * 64, na = N_OBJ * cpu.n * 256;
    mu_rig_free(&cpu);
    static const enum samrt_dtype dts[2] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_BF16};
    for (int d = 0; d < 2; d++) {
        const enum samrt_dtype dt = dts[d];
        for (int i = 0; i < w->n; i++) wdata[i] = to_device(w->t[i].v, w->t[i].n, dt);
        struct mu_rig gpu;
        struct outs got;
        CHECK_EQ_INT(
            mu_rig_init_ex(&gpu, w, wdata, SAMRT_BACKEND_CUDA, dt, SIDE, N_OBJ, NM, NP, g_passes, N_PASS, g_edgetam), 0);
        run_all(&gpu, &got);
        if (dt == SAMRT_DTYPE_F32) {  /* stored bf16: an f32 rounding difference may flip one ulp */
            mu_check_bf16("memenc sigmoid f32", got.enc[0], ref.enc[0], ne, TOL_F32);
            mu_check_bf16("memenc binarize f32", got.enc[1], ref.enc[1], ne, TOL_F32);
        } else {
            compare("memenc sigmoid", dt, got.enc[0], ref.enc[0], ne);
            compare("memenc binarize", dt, got.enc[1], ref.enc[1], ne);
        }
        compare("memattn 7+16", dt, got.att[0], ref.att[0], na);
        compare("memattn 1+1", dt, got.att[1], ref.att[1], na);
        for (int k = 0; k < 2; k++) free(got.enc[k]);
        for (int k = 0; k < 2; k++) free(got.att[k]);
        mu_rig_free(&gpu);
        for (int i = 0; i < w->n; i++) cudaFree(wdata[i]);
    }
    for (int k = 0; k < 2; k++) free(ref.enc[k]);
    for (int k = 0; k < 2; k++) free(ref.att[k]);
    float *enc32, *att32, *enc16, *att16;
    int64_t n_enc;
    production(w, SAMRT_DTYPE_F32, &enc32, &att32, &n_enc);
    production(w, SAMRT_DTYPE_BF16, &enc16, &att16, &n_enc);
    compare("1024 memenc (vs f32 CUDA)", SAMRT_DTYPE_BF16, enc16, enc32, n_enc);
    compare("1024 memattn 7+16 (vs f32 CUDA)", SAMRT_DTYPE_BF16, att16, att32, 4096 * 256);
    free(enc32), free(att32), free(enc16), free(att16);
    hu_free(w);
    free(w);
    return check_report(name);
}
