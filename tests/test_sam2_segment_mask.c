/* test_sam2_segment_mask.c - mask prompts of single-frame segmentation
 * (samrt_engine_segment_masked, samrt_engine_mask_prompt_logits) on a host engine: SAM 2.1
 * tiny with deterministic weights (tests/ckpt_writer.h), a 64-pixel model side (16x16 mask
 * inputs), a synthetic 96x72 image (the tracker tests' frame).
 *   - a binary mask becomes exactly the low-res logits the tracker keeps for the same mask
 *     prompt (track_mask.h steps 1-2), bit for bit; a full / empty mask gives +10 / -10;
 *   - a click with a mask gives other logits than the click alone, and the same low-res
 *     logits, IoU and score as a naive double-precision model of the official heads
 *     (tests/sam2_heads_ref.h) fed the engine's own image features + no_mem_embed, the click
 *     and the mask logits through mask_downscaling (SAM2ImagePredictor's mask_input);
 *   - a box with raw random logits, under both post-processing profiles, likewise;
 *   - in a call of two objects, only the masked one changes: the other is bit for bit the
 *     unmasked call's, the masked one bit for bit its lone call's; all-NULL masks equal
 *     samrt_engine_segment;
 *   - refusals: a mask without click or box, a non-finite logit, bad mask sizes; the engine
 *     keeps working after them.
 * Run: ctest -R test_sam2_segment_mask */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt.h"
#include "ckpt_writer.h"
#include "sam2.h"
#include "sam2_heads_ref.h"
#include "sam2_track_util.h"
#include "track_mask.h"

#define W 96
#define H 72
#define SIDE 64
#define LOW (SIDE / 4)
#define G (SIDE / 16)
#define TOL 2e-6 /* of max |logit|: the f32 engine against the double-precision model */

static uint8_t g_rgb[H * W * 3];

/* The writer's pattern scaled by 1/8 (moderate logits), with the last layer of
 * mask_downscaling scaled up instead, so that a mask prompt moves the logits far more than
 * the f32-vs-double tolerance below. */
static float pattern(const struct samrt_key *k, int i, int64_t j, void *user) {
    (void)user;
    const float v = ckw_pattern(k, i, j, NULL);
    if (strstr(k->name, "running_var")) return v;
    return strstr(k->name, "mask_downscaling.6") ? 32.0f * v : 0.125f * v;
}

static void rect_mask(uint8_t *m, int x0, int y0, int x1, int y1) {
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) m[y * W + x] = x >= x0 && x <= x1 && y >= y0 && y <= y1;
}

/* The naive model's weights: every tensor of the heads from the checkpoint, as f32. */
static int load_heads_weights(const char *path, struct hu_weights *w) {
    static const char *prefix[] = {"sam_prompt_encoder.", "sam_mask_decoder.", "obj_ptr_proj.", "no_obj_ptr"};
    struct samrt_ckpt ck;
    if (samrt_ckpt_open(path, &ck) != SAMRT_OK) return -1;
    memset(w, 0, sizeof *w);
    for (int i = 0; i < ck.n_tensors; i++) {
        const struct samrt_ckpt_tensor *t = &ck.tensors[i];
        int keep = 0;
        for (size_t k = 0; k < sizeof prefix / sizeof prefix[0]; k++) keep |= !strncmp(t->name, prefix[k], strlen(prefix[k]));
        if (!keep || w->n == HU_MAX_KEYS) continue;
        struct hu_tensor *h = &w->t[w->n++];
        snprintf(h->name, sizeof h->name, "%s", t->name);
        h->n_dims = t->n_dims;
        for (int d = 0; d < t->n_dims && d < 4; d++) h->ne[d] = t->ne[d];
        h->n = t->nelements;
        h->v = malloc(sizeof(float) * (size_t)h->n);
        if (!h->v || samrt_ckpt_read(&ck, t, SAMRT_DTYPE_F32, h->v, sizeof(float) * (uint64_t)h->n) != SAMRT_OK) {
            samrt_ckpt_close(&ck);
            return -1;
        }
    }
    const struct samrt_ckpt_tensor *nme = samrt_ckpt_find(&ck, "no_mem_embed");
    struct hu_tensor *h = &w->t[w->n++];
    snprintf(h->name, sizeof h->name, "no_mem_embed");
    h->n = 256;
    h->v = malloc(sizeof(float) * 256);
    const int ok = nme && h->v && samrt_ckpt_read(&ck, nme, SAMRT_DTYPE_F32, h->v, sizeof(float) * 256) == SAMRT_OK;
    samrt_ckpt_close(&ck);
    return ok ? 0 : -1;
}

/* The naive heads for object prompt p with mask logits `mask` on the engine's last frame
 * (its image features, kept in the arena's state slots) and compares the engine's low-res
 * logits of object row `row` (the segmentation pass's host copy) with them. */
static void check_against_ref(samrt_engine_t e, struct hu_weights *w, const struct samrt_object_prompt *p,
                              const float *mask, int mode, int row, const struct samrt_mask_result *res,
                              const char *what) {
    const struct samrt_sam2 *m = samrt_sam2_of(e);
    static float image[G * G * 256];
    const float *vision = m->enc.vision.data, *nme = hu_find(w, "no_mem_embed")->v;
    for (int i = 0; i < G * G; i++)
        for (int c = 0; c < 256; c++) image[i * 256 + c] = vision[i * 256 + c] + nme[c];
    struct samrt_sam2_points pts;
    CHECK_STATUS(samrt_sam2_points_from_prompt(p, W, H, SIDE, &pts), SAMRT_OK);
    struct hr_out *ref = calloc(1, sizeof *ref);
    if (!ref) return;
    hr_heads(w, SIDE, image, m->enc.feat_s0.data, m->enc.feat_s1.data, pts.n, (const float(*)[2])pts.xy, pts.label,
             mode, mask, ref);
    const float *low = m->seg.low_host + (size_t)row * LOW * LOW;
    double maxref = 0, maxerr = 0;
    for (int i = 0; i < LOW * LOW; i++) {
        maxref = fmax(maxref, fabs(ref->low_res[i]));
        maxerr = fmax(maxerr, fabs(low[i] - ref->low_res[i]));
    }
    printf("%s: naive model index %d score %+.4f iou %.4f; engine score %+.4f iou %.4f; max err %.3g of %.3g\n",
           what, ref->index, ref->score, ref->iou[ref->index], res->object_score, res->iou, maxerr, maxref);
    CHECK_MSG(maxerr <= TOL * maxref, "%s: low-res logits off the naive model by %g (max %g)", what, maxerr, maxref);
    CHECK_NEAR(res->iou, ref->iou[ref->index], 1e-4);
    CHECK_NEAR(res->object_score, ref->score, TOL * fmax(1.0, fabs(ref->score)));
    free(ref);
}

static double max_abs_diff(const float *a, const float *b, int n) {
    double d = 0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - b[i]));
    return d;
}

/* The tracker's rows and the constant masks. */
static void check_logits(samrt_engine_t e) {
    int side = 0;
    CHECK_STATUS(samrt_engine_mask_input_side(e, &side), SAMRT_OK);
    CHECK_EQ_INT(side, LOW);
    static uint8_t mask[H * W];
    static float lg[LOW * LOW];
    struct samrt_sam2 *m = samrt_sam2_of(e);
    const int K = m->trk.k_max;  /* the tracker's spare row */
    const int rects[3][4] = {{30, 20, 70, 55}, {0, 0, W - 1, H - 1}, {-1, -1, -1, -1}};
    for (int r = 0; r < 3; r++) {
        rect_mask(mask, rects[r][0], rects[r][1], rects[r][2], rects[r][3]);
        CHECK_STATUS(samrt_engine_mask_prompt_logits(e, mask, W, H, lg), SAMRT_OK);
        CHECK_STATUS(samrt_sam2_track_mask_set(m, K, mask, W, H), SAMRT_OK);
        CHECK_MSG(!memcmp(lg, m->trk.mask.low_rows + (size_t)K * LOW * LOW, sizeof lg),
                  "mask %d: the segmentation logits differ from the tracker's", r);
        int all_pos = 1, all_neg = 1;  /* +-10 up to the rounding of the normalised weights */
        for (int i = 0; i < LOW * LOW; i++) all_pos &= fabsf(lg[i] - 10.0f) < 1e-5f, all_neg &= fabsf(lg[i] + 10.0f) < 1e-5f;
        if (r == 1) CHECK(all_pos);
        if (r == 2) CHECK(all_neg);
        if (r == 0) CHECK(!all_pos && !all_neg && lg[LOW / 2 * LOW + LOW / 2] > 9.99f && lg[0] < -9.99f);
    }
}

static void check_calls(samrt_engine_t e, struct hu_weights *w) {
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    struct samrt_object_prompt obj[2];
    memset(obj, 0, sizeof obj);
    obj[0].n_clicks = 1;
    obj[0].clicks[0] = (struct samrt_click){50.0f, 37.0f, 1};
    obj[1].has_box = 1;
    obj[1].box[0] = 20, obj[1].box[1] = 15, obj[1].box[2] = 60, obj[1].box[3] = 50;
    static uint8_t mask[H * W], mk[4][2][H * W];
    static float lg_mask[LOW * LOW], lg_rand[LOW * LOW], lo[4][2][H * W];
    rect_mask(mask, 25, 18, 60, 60);
    CHECK_STATUS(samrt_engine_mask_prompt_logits(e, mask, W, H, lg_mask), SAMRT_OK);
    tu_fill_uniform(lg_rand, LOW * LOW, 77, -6, 6);
    struct samrt_mask_result r[4][2];
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 2; i++) r[c][i] = (struct samrt_mask_result){.mask = mk[c][i], .logits = lo[c][i]};

    /* 0: both unmasked; 1: the click with the mask (alone); 2: both, only the click masked */
    CHECK_STATUS(samrt_engine_segment(e, &img, obj, 2, SAMRT_POSTPROC_VOS_INFERENCE, r[0]), SAMRT_OK);
    const float *one[1] = {lg_mask};
    CHECK_STATUS(samrt_engine_segment_masked(e, &img, obj, one, 1, SAMRT_POSTPROC_VOS_INFERENCE, r[1]), SAMRT_OK);
    check_against_ref(e, w, &obj[0], lg_mask, 0, 0, &r[1][0], "click + mask");
    double maxlg = 0;
    for (int i = 0; i < H * W; i++) maxlg = fmax(maxlg, fabs(lo[0][0][i]));
    const double moved = max_abs_diff(lo[0][0], lo[1][0], H * W);
    printf("click: the mask prompt moves the logits by up to %.3f (max |logit| %.3f)\n", moved, maxlg);
    CHECK(moved > 100 * TOL * maxlg);  /* far above the naive-model tolerance */
    const float *first[2] = {lg_mask, NULL};
    CHECK_STATUS(samrt_engine_segment_masked(e, &img, obj, first, 2, SAMRT_POSTPROC_VOS_INFERENCE, r[2]), SAMRT_OK);
    CHECK(!memcmp(lo[2][0], lo[1][0], sizeof lo[1][0]) && !memcmp(mk[2][0], mk[1][0], H * W));
    CHECK(!memcmp(lo[2][1], lo[0][1], sizeof lo[0][1]) && r[2][1].iou == r[0][1].iou);
    /* 3: the box with raw logits, second row, both profiles (single mask: the notebook
     * profile's stability fallback is mode 2 of the naive model) */
    const float *second[2] = {NULL, lg_rand};
    for (int nb = 0; nb < 2; nb++) {
        const enum samrt_postproc pp = nb ? SAMRT_POSTPROC_NOTEBOOK : SAMRT_POSTPROC_VOS_INFERENCE;
        CHECK_STATUS(samrt_engine_segment_masked(e, &img, obj, second, 2, pp, r[3]), SAMRT_OK);
        check_against_ref(e, w, &obj[1], lg_rand, nb ? 2 : 1, 1, &r[3][1], nb ? "box + logits, notebook" : "box + logits");
    }
    double maxbox = 0;
    for (int i = 0; i < H * W; i++) maxbox = fmax(maxbox, fabs(lo[0][1][i]));
    CHECK(max_abs_diff(lo[3][1], lo[0][1], H * W) > 100 * TOL * maxbox);
    /* no mask at all: samrt_engine_segment's bits */
    const float *none[2] = {NULL, NULL};
    CHECK_STATUS(samrt_engine_segment_masked(e, &img, obj, none, 2, SAMRT_POSTPROC_VOS_INFERENCE, r[3]), SAMRT_OK);
    CHECK(!memcmp(lo[3], lo[0], sizeof lo[0]));
    CHECK_STATUS(samrt_engine_segment_masked(e, &img, obj, NULL, 2, SAMRT_POSTPROC_VOS_INFERENCE, r[3]), SAMRT_OK);
    CHECK(!memcmp(lo[3], lo[0], sizeof lo[0]));

    /* refusals */
    samrt_log_set(trk_quiet, NULL, SAMRT_LOG_ERROR);
    struct samrt_object_prompt bare = {0};
    CHECK_STATUS(samrt_engine_segment_masked(e, &img, &bare, one, 1, SAMRT_POSTPROC_VOS_INFERENCE, r[3]),
                 SAMRT_E_INVALID_ARG);
    static float bad[LOW * LOW];
    memcpy(bad, lg_mask, sizeof bad);
    bad[5] = NAN;
    const float *nan1[1] = {bad};
    CHECK_STATUS(samrt_engine_segment_masked(e, &img, obj, nan1, 1, SAMRT_POSTPROC_VOS_INFERENCE, r[3]),
                 SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_mask_prompt_logits(e, mask, 0, H, lg_rand), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_mask_prompt_logits(e, NULL, W, H, lg_rand), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_mask_prompt_logits(NULL, mask, W, H, lg_rand), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_mask_input_side(e, NULL), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    CHECK_STATUS(samrt_engine_segment_masked(e, &img, obj, one, 1, SAMRT_POSTPROC_VOS_INFERENCE, r[3]), SAMRT_OK);
    CHECK(!memcmp(lo[3][0], lo[1][0], sizeof lo[1][0]));
}

int main(void) {
    char path[] = "/tmp/samrt_test_segment_mask_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_sam2_segment_mask", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors_fn(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32, pattern, NULL), 0);
    trk_make_frame(g_rgb, W, H, 5);  /* an object at x 31..59, y 16..44 */
    static struct hu_weights w;
    CHECK_EQ_INT(load_heads_weights(path, &w), 0);
    struct samrt_engine_params p = trk_params(SIDE, 2);
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_OK);
    if (e) {
        check_logits(e);
        check_calls(e, &w);
    }
    samrt_engine_free(e);
    for (int i = 0; i < w.n; i++) free(w.t[i].v);
    unlink(path);
    return check_report("test_sam2_segment_mask");
}
