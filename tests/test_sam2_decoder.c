/* test_sam2_decoder.c - SAM 2.1's SAM heads (prompt encoder, mask decoder, selection, gate,
 * object pointer) on the CPU backend against a naive double-precision model of the official
 * modules (tests/sam2_heads_ref.h), at a small model side (64: a 4x4 image embedding, 16x16
 * masks) with seeded random weights:
 *   - three objects in one batch with different prompts (one click -> multimask, a box ->
 *     single mask, three clicks -> single mask), with and without the stability fallback;
 *   - batching is exact: each object alone (b_max 1) gives bit-identical results;
 *   - the object-score gate closed and open (score head bias forced);
 *   - the mask-prompt branch (mask_downscaling) with a random mask.
 * Run: ctest -R test_sam2_decoder */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sam2_heads_ref.h"

#define SIDE 64
#define G (SIDE / 16)
#define N_TOK (G * G)
#define LOW (4 * G)
#define P (LOW * LOW)
#define ATOL 2e-4
#define RTOL 2e-4

static struct hu_weights g_w;
static float g_image[N_TOK * 256], g_f0[P * 32], g_f1[4 * N_TOK * 64];

static struct samrt_tensor t3(float *d, int64_t a, int64_t b, int64_t c) {
    const int64_t ne[3] = {a, b, c};
    return samrt_tensor_make(d, SAMRT_DTYPE_F32, 3, ne);
}

/* Three prompts in the model frame: one click; a box; three clicks. */
static void make_prompts(struct samrt_sam2_points *pts) {
    memset(pts, 0, 3 * sizeof *pts);
    pts[0].n = 1;
    pts[0].xy[0][0] = 20.25f, pts[0].xy[0][1] = 40.75f, pts[0].label[0] = 1;
    pts[1].n = 2;
    pts[1].xy[0][0] = 5.0f, pts[1].xy[0][1] = 6.5f, pts[1].label[0] = 2;
    pts[1].xy[1][0] = 50.0f, pts[1].xy[1][1] = 60.0f, pts[1].label[1] = 3;
    pts[2].n = 3;
    const float xy[3][2] = {{10, 12}, {33.5f, 8}, {60, 61}};
    const int lab[3] = {1, 0, 1};
    for (int i = 0; i < 3; i++) {
        pts[2].xy[i][0] = xy[i][0], pts[2].xy[i][1] = xy[i][1], pts[2].label[i] = lab[i];
    }
}

static void compare_object(const char *what, const struct hu_result *got, int b, const struct hr_out *ref) {
    float want[4 * P];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < P; i++) want[k * P + i] = (float)ref->masks[k][i];
    char name[96];
    snprintf(name, sizeof name, "%s obj %d all_masks", what, b);
    check_close_f32(name, got->all_masks + (size_t)b * 4 * P, want, 4 * P, ATOL, RTOL);
    for (int k = 0; k < 4; k++) CHECK_NEAR(got->iou[b][k], ref->iou[k], ATOL);
    CHECK_NEAR(got->score[b], ref->score, ATOL + RTOL * fabs(ref->score));
    const float *res = got->res[b];
    CHECK_EQ_INT((int)res[SAMRT_SAM2_RES_INDEX], ref->index);
    CHECK_EQ_INT((int)res[SAMRT_SAM2_RES_TOKEN], ref->token);
    CHECK_EQ_INT((int)res[SAMRT_SAM2_RES_IS_OBJ], ref->is_obj);
    CHECK_NEAR(res[SAMRT_SAM2_RES_IOU], ref->iou[ref->index], ATOL);
    CHECK_NEAR(res[SAMRT_SAM2_RES_STABILITY], ref->stability, 1e-3);
    for (int i = 0; i < P; i++) want[i] = (float)ref->low_res[i];
    snprintf(name, sizeof name, "%s obj %d low_res", what, b);
    check_close_f32(name, got->low_res + (size_t)b * P, want, P, ATOL, RTOL);
    for (int i = 0; i < 256; i++) want[i] = (float)ref->ptr[i];
    snprintf(name, sizeof name, "%s obj %d obj_ptr", what, b);
    check_close_f32(name, got->ptr + (size_t)b * 256, want, 256, ATOL, RTOL);
}

static void quiet(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

static int bits_equal(const float *a, const float *b, size_t n) { return memcmp(a, b, n * sizeof(float)) == 0; }

int main(void) {
    hu_make_heads(&g_w, 11);
    /* decisive masks: scale the hypernetworks' output layers, as --logit-scale does upstream */
    for (int k = 0; k < 4; k++) {
        struct hu_tensor *t = hu_find(&g_w, "sam_mask_decoder.output_hypernetworks_mlps.%d.layers.2.weight", k);
        for (int64_t i = 0; i < t->n; i++) t->v[i] *= 8.0f;
    }
    struct hu_tensor *obj_bias = hu_find(&g_w, "sam_mask_decoder.pred_obj_score_head.layers.2.bias");
    obj_bias->v[0] = 2.0f;  /* gate open unless a test closes it */
    CHECK_EQ_INT(hu_open_ckpt(&g_w), 0);
    void *wdata[HU_MAX_KEYS];
    for (int i = 0; i < g_w.n; i++) wdata[i] = g_w.t[i].v;
    tu_fill_uniform(g_image, N_TOK * 256, 21, -1, 1);
    tu_fill_uniform(g_f0, P * 32, 22, -1, 1);
    tu_fill_uniform(g_f1, 4 * N_TOK * 64, 23, -1, 1);
    struct samrt_tensor img = t3(g_image, 1, N_TOK, 256), f0 = t3(g_f0, 1, P, 32), f1 = t3(g_f1, 1, 4 * N_TOK, 64);

    struct samrt_sam2_points pts[3];
    make_prompts(pts);
    struct hr_out *ref = malloc(3 * sizeof *ref);
    struct samrt_sam2_heads_config cfg = {SIDE, 3, 4, 0, SAMRT_DTYPE_F32, NULL};
    struct hu_rig rig;
    CHECK_EQ_INT(hu_rig_init(&rig, &g_w, wdata, SAMRT_BACKEND_CPU, &cfg, &img, &f0, &f1), 0);
    CHECK_EQ_INT(rig.h.t_max, 6 + 4 + 1);

    /* batch of three, both post-processing profiles */
    struct hu_result batch[2];
    for (int dyn = 0; dyn < 2; dyn++) {
        CHECK_EQ_INT(hu_rig_run(&rig, pts, 3, dyn, &img, &f0, &f1, &batch[dyn]), 0);
        CHECK_EQ_INT(rig.h.n_sparse[0], 2);
        CHECK_EQ_INT(rig.h.n_sparse[1], 3);
        CHECK_EQ_INT(rig.h.n_sparse[2], 4);
        for (int b = 0; b < 3; b++) {
            const int mode = b == 0 ? 0 : dyn ? 2 : 1;
            hr_heads(&g_w, SIDE, g_image, g_f0, g_f1, pts[b].n, (const float(*)[2])pts[b].xy, pts[b].label, mode, NULL,
                     &ref[b]);
            compare_object(dyn ? "notebook" : "vos_inference", &batch[dyn], b, &ref[b]);
        }
    }
    /* the prompts reach different branches: multimask for the click, mask 0 for the box */
    CHECK((int)batch[0].res[0][SAMRT_SAM2_RES_INDEX] >= 1);
    CHECK_EQ_INT((int)batch[0].res[1][SAMRT_SAM2_RES_INDEX], 0);

    /* batching is exact: one object at a time, in a b_max = 1 engine */
    for (int b = 0; b < 3; b++) {
        struct samrt_sam2_heads_config c1 = cfg;
        c1.b_max = 1;
        struct hu_rig r1;
        struct hu_result one;
        CHECK_EQ_INT(hu_rig_init(&r1, &g_w, wdata, SAMRT_BACKEND_CPU, &c1, &img, &f0, &f1), 0);
        CHECK_EQ_INT(hu_rig_run(&r1, &pts[b], 1, 1, &img, &f0, &f1, &one), 0);
        CHECK_MSG(bits_equal(one.all_masks, batch[1].all_masks + (size_t)b * 4 * P, 4 * P), "object %d masks", b);
        CHECK_MSG(bits_equal(one.low_res, batch[1].low_res + (size_t)b * P, P), "object %d low_res", b);
        CHECK_MSG(bits_equal(one.ptr, batch[1].ptr + (size_t)b * 256, 256), "object %d obj_ptr", b);
        CHECK_MSG(bits_equal(one.res[0], batch[1].res[b], SAMRT_SAM2_RES_COLS), "object %d result", b);
        hu_result_free(&one);
        hu_rig_free(&r1);
    }
    /* fewer objects than slots: the used slot is unchanged */
    struct hu_result partial;
    CHECK_EQ_INT(hu_rig_run(&rig, pts, 1, 0, &img, &f0, &f1, &partial), 0);
    CHECK(bits_equal(partial.low_res, batch[0].low_res, P));
    CHECK(bits_equal(partial.ptr, batch[0].ptr, 256));
    hu_result_free(&partial);

    /* object-score gate: closed, then open */
    const float *no_ptr = hu_find(&g_w, "no_obj_ptr")->v;
    for (int open = 0; open < 2; open++) {
        obj_bias->v[0] = open ? 50.0f : -50.0f;
        struct hu_result gr;
        CHECK_EQ_INT(hu_rig_run(&rig, pts, 3, 0, &img, &f0, &f1, &gr), 0);
        for (int b = 0; b < 3; b++) {
            CHECK_EQ_INT((int)gr.res[b][SAMRT_SAM2_RES_IS_OBJ], open);
            int blank = 1, kept = 1;
            const int idx = (int)gr.res[b][SAMRT_SAM2_RES_INDEX];
            for (int i = 0; i < P; i++) {
                blank &= gr.low_res[(size_t)b * P + i] == SAMRT_SAM2_NO_OBJ_SCORE;
                kept &= gr.low_res[(size_t)b * P + i] == gr.all_masks[((size_t)b * 4 + idx) * P + i];
            }
            CHECK(open ? kept : blank);
            if (!open) CHECK(bits_equal(gr.ptr + (size_t)b * 256, no_ptr, 256));
            hr_heads(&g_w, SIDE, g_image, g_f0, g_f1, pts[b].n, (const float(*)[2])pts[b].xy, pts[b].label,
                     b == 0 ? 0 : 1, NULL, &ref[b]);
            compare_object(open ? "gate open" : "gate closed", &gr, b, &ref[b]);
        }
        hu_result_free(&gr);
    }
    obj_bias->v[0] = 2.0f;
    hu_rig_free(&rig);

    /* mask prompts through mask_downscaling */
    cfg.mask_input = 1;
    CHECK_EQ_INT(hu_rig_init(&rig, &g_w, wdata, SAMRT_BACKEND_CPU, &cfg, &img, &f0, &f1), 0);
    float *masks_in = rig.h.mask_in.data;
    tu_fill_uniform(masks_in, 3 * P, 31, -3, 3);
    struct hu_result mr;
    CHECK_EQ_INT(hu_rig_run(&rig, pts, 3, 0, &img, &f0, &f1, &mr), 0);
    for (int b = 0; b < 3; b++) {
        hr_heads(&g_w, SIDE, g_image, g_f0, g_f1, pts[b].n, (const float(*)[2])pts[b].xy, pts[b].label,
                 b == 0 ? 0 : 1, masks_in + (size_t)b * P, &ref[b]);
        compare_object("mask prompt", &mr, b, &ref[b]);
    }
    hu_result_free(&mr);
    hu_rig_free(&rig);

    /* an object with more points than the engine was planned for is refused */
    struct samrt_sam2_points many = pts[2];
    many.n = 5;
    cfg.mask_input = 0;
    CHECK_EQ_INT(hu_rig_init(&rig, &g_w, wdata, SAMRT_BACKEND_CPU, &cfg, &img, &f0, &f1), 0);
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR);  /* the refusals below log by design */
    CHECK_STATUS(samrt_sam2_heads_set_prompts(&rig.h, &rig.c, &many, 1, 0), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_sam2_heads_set_prompts(&rig.h, &rig.c, pts, 4, 0), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    hu_rig_free(&rig);

    for (int d = 0; d < 2; d++) hu_result_free(&batch[d]);
    free(ref);
    hu_free(&g_w);
    return check_report("test_sam2_decoder");
}
