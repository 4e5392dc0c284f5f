/* test_sam2_memory_parity.c - SAM 2.1's (or EdgeTAM's) memory encoder and memory attention on the
 * CPU backend against the official modules: the dump of tests/parity/dump_memory_modules.py (official code,
 * tiny, seeded random weights, fp32, model side 256) holds the weights, the inputs and the
 * official outputs:
 *   - memory encoder, two objects (present / absent: no_obj_embed_spatial), sigmoid and binarize
 *     mask inputs: the stored bf16 memory within 1 bf16 ulp (+ 1e-4 of the max) elementwise;
 *   - memory attention through the official _prepare_memory_conditioned_features with 1, 3 and
 *     7 spatial memories and 1, 3 and 10 pointers (the memory order, tpos indices and pointer
 *     distances the official code used): pix_feat_with_mem within 1e-4 of its max.
 * An EdgeTAM dump (dump_memory_modules.py --model edgetam; it holds spatial_perceiver.*) runs the
 * same cases through EdgeTAM's path (mu_rig_init_ex edgetam 1: memory encoder + perceiver, 512-token
 * memories, the 2-layer RoPEAttentionv2 variant), plus the memory position (zeros + 16x16 sine PE)
 * and the perceiver alone at side 1024; built and registered as test_edgetam_memory_parity.
 * Skips (77) when the dump is absent. Run:
 *   python3 tests/parity/dump_memory_modules.py   (writes build/parity/memory_modules.safetensors)
 *   python3 tests/parity/dump_memory_modules.py --model edgetam --out build/parity/edgetam_memory.safetensors
 *   ctest --preset cpu -R 'test_sam2_memory_parity|test_edgetam_memory_parity'
 * (the path is the test's argument; SAMRT_MEMORY_DUMP overrides it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sam2_memory_util.h"

#define REL_TOL 1e-4  /* of the reference tensor's max |value| */

static struct samrt_ckpt g_ck;
static int g_edgetam;  /* the dump holds spatial_perceiver.*: EdgeTAM */

static const struct samrt_ckpt_tensor *need(const char *fmt, const char *a) {
    char name[128];
    snprintf(name, sizeof name, fmt, a);
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(&g_ck, name);
    if (!t) {
        fprintf(stderr, "dump lacks %s\n", name);
        exit(1);
    }
    return t;
}

static float *read_f32(const char *fmt, const char *a, int64_t *n) {
    const struct samrt_ckpt_tensor *t = need(fmt, a);
    float *v = malloc(sizeof(float) * (size_t)t->nelements);
    CHECK_EQ_INT(samrt_ckpt_read(&g_ck, t, SAMRT_DTYPE_F32, v, sizeof(float) * (size_t)t->nelements), SAMRT_OK);
    if (n) *n = t->nelements;
    return v;
}

static int32_t *read_i32(const char *fmt, const char *a, int64_t *n) {
    const struct samrt_ckpt_tensor *t = need(fmt, a);
    int32_t *v = malloc(sizeof(int32_t) * (size_t)t->nelements);
    CHECK_EQ_INT(samrt_ckpt_read(&g_ck, t, SAMRT_DTYPE_I32, v, sizeof(int32_t) * (size_t)t->nelements), SAMRT_OK);
    if (n) *n = t->nelements;
    return v;
}

static double max_abs(const float *x, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs((double)x[i]));
    return m;
}

static void check_rel(const char *what, const float *got, const float *want, int64_t n) {
    const double m = max_abs(want, n);
    check_close_f32(what, got, want, (long)n, REL_TOL * m, 0);
    double worst = 0;
    for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs((double)got[i] - want[i]));
    printf("%s: max |d| %.3g (max |ref| %.3g)\n", what, worst, m);
}

/* EdgeTAM: the perceiver alone at side 1024 (4x4-pixel windows). */
static void perceiver_case(struct hu_weights *w, void **wdata) {
    const struct mu_pass passes[1] = {{MU_PERC, 0, 0}};
    struct mu_rig r;
    CHECK_EQ_INT(mu_rig_init_ex(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, 1024, 1, 1, 0, passes, 1, 1), 0);
    int64_t nx, no;
    float *x = read_f32("memenc.%s.x", "perceiver", &nx);
    float *want = read_f32("memenc.%s.out", "perceiver", &no);
    CHECK(nx == r.n * 64 && no == r.n_mem_tok * 64);
    CHECK_EQ_INT(mu_put_f32(&r, &r.feat, x, (size_t)nx), 0);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    float *got = malloc(sizeof(float) * (size_t)no);
    CHECK_EQ_INT(mu_get_f32(&r, &r.perc_out, got, (size_t)no), 0);
    check_rel("perceiver (side 1024)", got, want, no);
    free(x), free(want), free(got);
    mu_rig_free(&r);
}

static void memenc_cases(struct hu_weights *w, void **wdata, int side) {
    const struct mu_pass passes[2] = {{MU_ENC, 0, 0}, {MU_ENC_BIN, 0, 0}};
    struct mu_rig r;
    CHECK_EQ_INT(
        mu_rig_init_ex(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, side, 2, 1, 0, passes, 2, g_edgetam), 0);
    static const char *names[2] = {"sigmoid", "binarize"};
    for (int k = 0; k < 2; k++) {
        int64_t nv, nl, ns, no;
        float *vision = read_f32("memenc.%s.vision", names[k], &nv);
        float *low = read_f32("memenc.%s.low_res", names[k], &nl);
        float *score = read_f32("memenc.%s.score", names[k], &ns);
        float *want = read_f32("memenc.%s.out", names[k], &no);
        CHECK(nv == r.n * 256 && nl == 2 * 16 * r.n && ns == 2 && no == 2 * r.n_mem_tok * 64);
        CHECK_EQ_INT(mu_put_f32(&r, &r.vision, vision, (size_t)nv), 0);
        CHECK_EQ_INT(mu_put_f32(&r, &r.low_res, low, (size_t)nl), 0);
        CHECK_EQ_INT(mu_put_f32(&r, &r.score, score, (size_t)ns), 0);
        CHECK_EQ_INT(mu_run(&r, k), 0);
        float *got = malloc(sizeof(float) * (size_t)no);
        CHECK_EQ_INT(mu_get_f32(&r, &r.mem_out, got, (size_t)no), 0);
        char what[64];
        snprintf(what, sizeof what, "memenc.%s", names[k]);
        mu_check_bf16(what, got, want, no, REL_TOL);
        if (g_edgetam) {  /* the official memory position of both objects = memory attention's constant */
            int64_t np;
            float *pos = read_f32("memenc.%s.pos", names[k], &np);
            CHECK(np == no);
            CHECK_EQ_INT(mu_get_f32(&r, &r.ma.mem_pos, got, (size_t)(no / 2)), 0);
            memcpy(got + no / 2, got, sizeof(float) * (size_t)(no / 2));
            snprintf(what, sizeof what, "memenc.%s.pos", names[k]);
            check_close_f32(what, got, pos, (long)np, 1e-6, 1e-6);
            free(pos);
        }
        free(vision), free(low), free(score), free(want), free(got);
    }
    mu_rig_free(&r);
}

static void memattn_cases(struct hu_weights *w, void **wdata, int side) {
    static const char *names[3] = {"one", "three", "seven"};
    struct mu_pass passes[3];
    int64_t n_idx[3], n_ptr[3];
    for (int k = 0; k < 3; k++) {
        n_idx[k] = need("memattn.%s.tpos_idx", names[k])->nelements;
        n_ptr[k] = need("memattn.%s.ptr_dist", names[k])->nelements;
        passes[k] = (struct mu_pass){MU_ATT, (int)n_idx[k], (int)n_ptr[k]};
    }
    CHECK_EQ_INT((int)n_idx[0], 1);
    CHECK_EQ_INT((int)n_idx[1], 3);
    CHECK_EQ_INT((int)n_idx[2], 7);
    struct mu_rig r;
    CHECK_EQ_INT(
        mu_rig_init_ex(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, side, 1, 7, 10, passes, 3, g_edgetam), 0);
    const int64_t nm_tok = r.n_mem_tok;
    for (int k = 0; k < 3; k++) {
        int64_t nc, np, nm, nptr, no;
        float *curr = read_f32("memattn.%s.curr", names[k], &nc);
        float *pos = read_f32("memattn.%s.curr_pos", names[k], &np);
        float *mem = read_f32("memattn.%s.mem", names[k], &nm);
        float *ptr = read_f32("memattn.%s.ptr", names[k], &nptr);
        float *want = read_f32("memattn.%s.out", names[k], &no);
        int32_t *idx = read_i32("memattn.%s.tpos_idx", names[k], NULL);
        int32_t *dist = read_i32("memattn.%s.ptr_dist", names[k], NULL);
        int32_t *max_ptr = read_i32("memattn.%s.max_ptr", names[k], NULL);
        CHECK(nc == r.n * 256 && np == nc && nm == n_idx[k] * nm_tok * 64 && nptr == n_ptr[k] * 256 && no == nc);
        CHECK_EQ_INT(mu_put_f32(&r, &r.curr, curr, (size_t)nc), 0);
        CHECK_EQ_INT(mu_put_f32(&r, &r.curr_pos, pos, (size_t)np), 0);
        for (int j = 0; j < n_idx[k]; j++)
            CHECK_EQ_INT(mu_put_f32(&r, &r.mem[j], mem + (size_t)j * nm_tok * 64, (size_t)(nm_tok * 64)), 0);
        CHECK_EQ_INT(mu_put_f32(&r, &r.ptr, ptr, (size_t)nptr), 0);
        int ti[SAMRT_SAM2_MAX_MEM], pd[SAMRT_SAM2_MAX_PTR];
        for (int j = 0; j < n_idx[k]; j++) ti[j] = idx[j];
        for (int j = 0; j < n_ptr[k]; j++) pd[j] = dist[j];
        CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[k], (int)n_idx[k], ti, (int)n_ptr[k], pd, max_ptr[0]),
                     SAMRT_OK);
        CHECK_EQ_INT(mu_run(&r, k), 0);
        float *got = malloc(sizeof(float) * (size_t)no);
        CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, got, (size_t)no), 0);
        char what[64];
        snprintf(what, sizeof what, "memattn.%s (%lld memories, %lld pointers)", names[k], (long long)n_idx[k],
                 (long long)n_ptr[k]);
        check_rel(what, got, want, no);
        free(curr), free(pos), free(mem), free(ptr), free(want), free(idx), free(dist), free(max_ptr), free(got);
    }
    mu_rig_free(&r);
}

int main(int argc, char **argv) {
    const char *path = getenv("SAMRT_MEMORY_DUMP");
    if (!path || !*path) path = argc > 1 ? argv[1] : "build/parity/memory_modules.safetensors";
    const char *name = strstr(argv[0], "edgetam") ? "test_edgetam_memory_parity" : "test_sam2_memory_parity";
    FILE *f = fopen(path, "rb");
    if (!f) {
        char why[512];
        snprintf(why, sizeof why, "no official dump at %s (make it with python3 tests/parity/dump_memory_modules.py%s; "
                                  "needs torch)", path, strstr(name, "edgetam") ? " --model edgetam --out PATH" : "");
        return check_skip(name, why);
    }
    fclose(f);
    CHECK_EQ_INT(samrt_ckpt_open(path, &g_ck), SAMRT_OK);
    struct hu_weights *w = malloc(sizeof *w);
    CHECK_EQ_INT(mu_weights_from_ckpt(w, &g_ck), 0);
    CHECK_EQ_INT(hu_open_ckpt(w), 0);
    void *wdata[HU_MAX_KEYS];
    for (int i = 0; i < w->n; i++) wdata[i] = w->t[i].v;
    /* the dump's model side follows from the memory encoder's input: (2, 1, 4g, 4g) */
    const struct samrt_ckpt_tensor *low = need("memenc.%s.low_res", "sigmoid");
    const int side = (int)low->ne[3] * 4;
    g_edgetam = samrt_ckpt_find(&g_ck, "spatial_perceiver.latents") != NULL;
    printf("dump %s: %s, %d weight tensors, model side %d\n", path, g_edgetam ? "EdgeTAM" : "SAM 2.1", w->n, side);
    if (g_edgetam) perceiver_case(w, wdata);
    memenc_cases(w, wdata, side);
    memattn_cases(w, wdata, side);
    hu_free(w);
    free(w);
    samrt_ckpt_close(&g_ck);
    return check_report(name);
}
