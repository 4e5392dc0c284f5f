/* test_sam2_memory.c - SAM 2.1's memory path on the CPU backend without the official code (the
 * official comparison is test_sam2_memory_parity), model side 64 (a 4x4 grid), two object
 * slots, seeded random weights:
 *   - the store rule by hand: bf16(x) for a present object, bf16(x + no_obj_embed_spatial) for
 *     an absent one (score <= 0 or NaN), round to nearest even;
 *   - inside the memory encoder pass: the stored memory is exactly that rule applied to the
 *     f32 features (tap), and object slots are independent (equal inputs, equal bytes);
 *   - the K/V cache: project each memory once, then the cached pass equals the uncached pass
 *     (3 memories with different tpos slots, 5 pointers) up to fp32 rounding;
 *   - memories and pointers may come in any order (their tpos / distance rows follow them);
 *   - a pass with no pointers runs; set_frame rejects out-of-range rows and counts.
 * Run: ctest -R test_sam2_memory */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sam2_memory_util.h"

#define NAME "test_sam2_memory"
#define SIDE 64
#define B 2
#define CACHE_TOL 1e-5   /* of the max |value|: fp32 rounding of two equal formulas */

static void test_store_rule(void) {
    const float x[2 * 2 * 2] = {1.0f, 1.0f + 0x1p-9f, -3.0f, 0.25f, 1.0f, 1.0f + 0x1p-9f, -3.0f, 0.25f};
    const float no_obj[2] = {0.5f, -0.125f};
    float score[2] = {2.5f, -1.0f};
    uint16_t out[8];
    struct samrt_sam2_mem_store_args a = {SAMRT_DTYPE_F32, 2, 2, 2, x, score, no_obj, out};
    CHECK_EQ_INT(samrt_sam2_mem_store_ref(&a), SAMRT_OK);
    /* present: 1, 1 + 2^-9 rounds down to 1 (below half an ulp), -3, 0.25 */
    const float want[8] = {1.0f, 1.0f, -3.0f, 0.25f, 1.5f, 1.0f - 0.125f, -2.5f, 0.125f};
    for (int i = 0; i < 8; i++) CHECK_NEAR(samrt_bf16_to_f32(out[i]), want[i], 0);
    score[1] = NAN;  /* (NaN > 0) is false: absent */
    CHECK_EQ_INT(samrt_sam2_mem_store_ref(&a), SAMRT_OK);
    CHECK_NEAR(samrt_bf16_to_f32(out[4]), 1.5f, 0);
    a.no_obj = NULL;  /* SAM 2.0: nothing added */
    CHECK_EQ_INT(samrt_sam2_mem_store_ref(&a), SAMRT_OK);
    CHECK_NEAR(samrt_bf16_to_f32(out[4]), 1.0f, 0);
    a.n_obj = 0;
    CHECK_EQ_INT(samrt_sam2_mem_store_ref(&a), SAMRT_E_INVALID_ARG);
}

static void quiet_log(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

struct tap_copy {
    float *features;
    int64_t n;
};

static enum samrt_status tap_features(void *user, const char *name, const struct samrt_tensor *t) {
    struct tap_copy *tc = user;
    if (strcmp(name, "tap.memenc.features") != 0) return SAMRT_OK;
    tc->n = samrt_tensor_nelements(t);
    tc->features = malloc(sizeof(float) * (size_t)tc->n);
    memcpy(tc->features, t->data, sizeof(float) * (size_t)tc->n);
    return SAMRT_OK;
}

static void test_encoder(struct hu_weights *w, void **wdata) {
    const struct mu_pass passes[1] = {{MU_ENC, 0, 0}};
    struct mu_rig r;
    CHECK_EQ_INT(mu_rig_init(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, SIDE, B, 1, 0, 0, passes, 1), 0);
    const int64_t n = r.n, l = 4 * r.g;
    float *vision = malloc(sizeof(float) * (size_t)(n * 256)), *low = malloc(sizeof(float) * (size_t)(B * l * l));
    tu_fill_uniform(vision, (long)(n * 256), 3, -1, 1);
    tu_fill_uniform(low, (long)(l * l), 4, -8, 8);
    memcpy(low + l * l, low, sizeof(float) * (size_t)(l * l));  /* object 1 sees the same mask */
    const float score[B] = {1.0f, -0.5f};                       /* ... but is absent */
    CHECK_EQ_INT(mu_put_f32(&r, &r.vision, vision, (size_t)(n * 256)), 0);
    CHECK_EQ_INT(mu_put_f32(&r, &r.low_res, low, (size_t)(B * l * l)), 0);
    CHECK_EQ_INT(mu_put_f32(&r, &r.score, score, B), 0);
    struct tap_copy tc = {NULL, 0};
    r.c[0].tap = tap_features;
    r.c[0].tap_user = &tc;
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK(tc.features != NULL && tc.n == B * n * 64);
    const uint16_t *out = r.mem_out.data;
    const float *emb = hu_find(w, "no_obj_embed_spatial")->v;
    int64_t bad = 0, same = 0;
    for (int64_t i = 0; i < n * 64; i++) {
        bad += out[i] != samrt_f32_to_bf16(tc.features[i]);
        bad += out[n * 64 + i] != samrt_f32_to_bf16(tc.features[n * 64 + i] + emb[i % 64]);
        same += tc.features[i] == tc.features[n * 64 + i];
    }
    CHECK_MSG(bad == 0, "memory encoder store: %lld values differ from the rule", (long long)bad);
    CHECK_MSG(same == n * 64, "memory encoder: equal inputs gave different features in %lld places",
              (long long)(n * 64 - same));
    free(tc.features);
    free(vision), free(low);
    mu_rig_free(&r);
}

static void fill_frame(struct mu_rig *r, int n_mem, int n_ptr, uint64_t seed) {
    const int64_t n = r->n;
    float *buf = malloc(sizeof(float) * (size_t)(B * n * 256));
    tu_fill_uniform(buf, (long)(n * 256), seed, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->curr, buf, (size_t)(n * 256)), 0);
    tu_fill_uniform(buf, (long)(n * 256), seed + 1, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->curr_pos, buf, (size_t)(n * 256)), 0);
    for (int j = 0; j < n_mem; j++) {
        tu_fill_uniform(buf, (long)(B * n * 64), seed + 10 + (uint64_t)j, -2, 2);
        CHECK_EQ_INT(mu_put_f32(r, &r->mem[j], buf, (size_t)(B * n * 64)), 0);  /* rounded to bf16 */
    }
    tu_fill_uniform(buf, (long)(B * r->max_ptr * 256), seed + 5, -1, 1);
    CHECK_EQ_INT(mu_put_f32(r, &r->ptr, buf, (size_t)(B * r->max_ptr * 256)), 0);
    (void)n_ptr;
    free(buf);
}

static double max_abs(const float *x, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs((double)x[i]));
    return m;
}

/* Swaps slots a and b of the ring: memory tensors (their bytes) and the pointer rows. */
static void swap_bytes(struct mu_rig *r, const struct samrt_tensor *x, const struct samrt_tensor *y, size_t bytes) {
    (void)r;
    void *tmp = malloc(bytes);
    memcpy(tmp, x->data, bytes);
    memcpy(x->data, y->data, bytes);
    memcpy(y->data, tmp, bytes);
    free(tmp);
}

static void test_attention(struct hu_weights *w, void **wdata) {
    enum { NM = 3, NP = 5 };
    const struct mu_pass passes[6] = {{MU_ATT, NM, NP},     {MU_PROJECT, 0, 0}, {MU_PROJECT, 1, 0},
                                      {MU_PROJECT, 2, 0},   {MU_ATT_CACHED, NM, NP}, {MU_ATT, 2, 0}};
    struct mu_rig r;
    CHECK_EQ_INT(mu_rig_init(&r, w, wdata, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, SIDE, B, 4, 8, 1, passes, 6), 0);
    const int64_t no = B * r.n * 256;
    fill_frame(&r, NM, NP, 40);
    int idx[NM] = {6, 2, 0}, dist[NP] = {9, 1, 2, 3, 4};
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx, NP, dist, 16), SAMRT_OK);
    float *plain = malloc(sizeof(float) * (size_t)no), *got = malloc(sizeof(float) * (size_t)no);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, plain, (size_t)no), 0);
    const double m = max_abs(plain, no);
    CHECK(m > 0.1 && isfinite(m));
    /* the objects have different memories: their outputs differ */
    CHECK(memcmp(plain, plain + r.n * 256, sizeof(float) * (size_t)(r.n * 256)) != 0);

    /* K/V cache: project once (at store time), then the cached pass */
    for (int j = 0; j < NM; j++) CHECK_EQ_INT(mu_run(&r, 1 + j), 0);
    CHECK_EQ_INT(mu_run(&r, 4), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, got, (size_t)no), 0);
    check_close_f32("cached vs uncached", got, plain, (long)no, CACHE_TOL * m, 0);

    /* order: memory 0 <-> 2 and pointer 0 <-> 3, with their rows */
    swap_bytes(&r, &r.mem[0], &r.mem[2], (size_t)(B * r.n * 64 * 2));
    for (int b = 0; b < B; b++) {
        struct samrt_tensor p0 = r.ptr, p3 = r.ptr;
        p0.data = (float *)r.ptr.data + (size_t)b * r.max_ptr * 256;
        p3.data = (float *)p0.data + 3 * 256;
        swap_bytes(&r, &p0, &p3, 256 * sizeof(float));
    }
    int idx2[NM] = {0, 2, 6}, dist2[NP] = {3, 1, 2, 9, 4};
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx2, NP, dist2, 16), SAMRT_OK);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, got, (size_t)no), 0);
    check_close_f32("memories and pointers reordered", got, plain, (long)no, CACHE_TOL * m, 0);
    /* ... but a memory's tpos row matters: giving memory 0 another slot changes the output */
    idx2[0] = 1;
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx2, NP, dist2, 16), SAMRT_OK);
    CHECK_EQ_INT(mu_run(&r, 0), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, got, (size_t)no), 0);
    double dmax = 0;
    for (int64_t i = 0; i < no; i++) dmax = fmax(dmax, fabs((double)got[i] - plain[i]));
    CHECK_MSG(dmax > 1e-3 * m, "tpos row ignored (max |d| %.3g)", dmax);

    /* no pointers */
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[5], 2, idx, 0, NULL, 0), SAMRT_OK);
    CHECK_EQ_INT(mu_run(&r, 5), 0);
    CHECK_EQ_INT(mu_get_f32(&r, &r.att_out, got, (size_t)no), 0);
    CHECK(isfinite(max_abs(got, no)));

    /* staging rows are validated */
    samrt_log_set(quiet_log, NULL, SAMRT_LOG_ERROR);
    int bad_idx[NM] = {7, 0, 0};
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, bad_idx, NP, dist, 16), SAMRT_E_INVALID_ARG);
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], 5, idx, NP, dist, 16), SAMRT_E_INVALID_ARG);
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx, 9, dist, 16), SAMRT_E_INVALID_ARG);
    CHECK_EQ_INT(samrt_sam2_memattn_set_frame(&r.ma, &r.c[0], NM, idx, NP, dist, 1), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    free(plain), free(got);
    mu_rig_free(&r);
}

int main(void) {
    test_store_rule();
    struct hu_weights *w = malloc(sizeof *w);
    mu_make_weights(w, 77);
    CHECK_EQ_INT(hu_open_ckpt(w), 0);
    void *wdata[HU_MAX_KEYS];
    for (int i = 0; i < w->n; i++) wdata[i] = w->t[i].v;
    test_encoder(w, wdata);
    test_attention(w, wdata);
    hu_free(w);
    free(w);
    return check_report(NAME);
}
