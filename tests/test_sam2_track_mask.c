/* test_sam2_track_mask.c - mask prompts of the tracker (runtime/sam2/track_mask.h) on a host
 * engine (SAM 2.1 tiny, deterministic synthetic weights, 64-pixel model side, 80x60 frames):
 *   - the antialiased bilinear weights by hand (the exact 4x downsample of model-spec 3.11,
 *     plain bilinear when upsampling, identity), and one 2-D resize by hand;
 *   - the prompt frame's pred_masks equal the naive composition (resize to the model side,
 *     >= 0.5, logits +-10, antialiased 4x downsample), its score is exactly +10 (-10 for an
 *     empty mask) and the output mask is the prompt's rectangle up to its edge pixels;
 *   - an empty mask gives exactly no_obj_ptr as pointer; a non-empty one a decoder pointer that
 *     depends on the mask (the dense prompt reaches the heads);
 *   - tracking goes on from a mask prompt, repeatably; a mask correction of a tracked object;
 *     an object prompted by points does not change when another gets a mask beside it;
 *   - the notebook profile fills the holes of the mask frame's logits;
 *   - bad calls.
 * Run: ctest -R test_sam2_track_mask */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt.h"
#include "ckpt_writer.h"
#include "sam2_track_util.h"
#include "fill_holes.h"
#include "tracker.h"

#define W 80
#define H 60
#define SIDE 64
#define LOW (SIDE / 4)
#define K 2
#define N_FR 5
#define WEIGHT_TOL 1e-7

static uint8_t g_rgb[H * W * 3];

static void make_frame(int shift) { trk_make_frame(g_rgb, W, H, shift); }

/* ---- weights by hand ---- */

static void check_weights(int n_in, int n_out, int i, int want_x0, const double *want, int n_want) {
    float w[64];
    int n = -1;
    const int x0 = samrt_aa_bilinear_weights(n_in, n_out, i, w, 64, &n);
    CHECK_MSG(x0 == want_x0 && n == n_want, "%d -> %d, index %d: taps from %d x %d, want %d x %d", n_in, n_out, i, x0,
              n, want_x0, n_want);
    for (int j = 0; j < n && j < n_want; j++) CHECK_NEAR(w[j], want[j], WEIGHT_TOL);
}

static void test_weights(void) {
    /* the exact 4x downsample: (1,3,5,7,7,5,3,1)/32 over 4i-2 .. 4i+5, renormalised at the ends */
    const double mid[8] = {1 / 32., 3 / 32., 5 / 32., 7 / 32., 7 / 32., 5 / 32., 3 / 32., 1 / 32.};
    const double first[6] = {5 / 28., 7 / 28., 7 / 28., 5 / 28., 3 / 28., 1 / 28.};
    const double last[6] = {1 / 28., 3 / 28., 5 / 28., 7 / 28., 7 / 28., 5 / 28.};
    check_weights(16, 4, 0, 0, first, 6);
    check_weights(16, 4, 1, 2, mid, 8);
    check_weights(16, 4, 2, 6, mid, 8);
    check_weights(16, 4, 3, 10, last, 6);
    check_weights(1024, 256, 100, 398, mid, 8);
    /* upsampling 2 -> 4 is plain bilinear (align_corners False, edge clamped) */
    const double one[1] = {1.0}, q1[2] = {0.75, 0.25}, q2[2] = {0.25, 0.75};
    check_weights(2, 4, 0, 0, one, 1);
    check_weights(2, 4, 1, 0, q1, 2);
    check_weights(2, 4, 2, 0, q2, 2);
    check_weights(2, 4, 3, 1, one, 1);
    /* same size: identity (the second tap has weight 0) */
    const double id[2] = {1.0, 0.0};
    check_weights(5, 5, 2, 2, id, 2);
    /* 2-D, horizontal then vertical: out[1][1] = .75 (.75*0 + .25*4) + .25 (.75*8 + .25*12) = 3 */
    const float in[4] = {0, 4, 8, 12};
    float out[16];
    samrt_aa_bilinear_host(in, 2, 2, out, 4, 4);
    CHECK_NEAR(out[0], 0.0, WEIGHT_TOL);
    CHECK_NEAR(out[5], 3.0, WEIGHT_TOL);
    CHECK_NEAR(out[15], 12.0, WEIGHT_TOL);
    CHECK_NEAR(out[3], 4.0, WEIGHT_TOL);
}

/* ---- the engine ---- */

static float g_low[N_FR][LOW * LOW], g_ptr[N_FR][256];

static enum samrt_status keep_taps(void *user, const char *name, const struct samrt_tensor *t) {
    (void)user;
    int f = -1;
    char what[64];
    if (sscanf(name, "frame.%d.%63s", &f, what) != 2 || f < 0 || f >= N_FR) return SAMRT_OK;
    if (strcmp(what, "pred_masks") == 0 && samrt_tensor_nelements(t) == LOW * LOW)
        memcpy(g_low[f], t->data, sizeof g_low[f]);
    if (strcmp(what, "obj_ptr") == 0 && samrt_tensor_nelements(t) == 256) memcpy(g_ptr[f], t->data, sizeof g_ptr[f]);
    return SAMRT_OK;
}

static void rect_mask(uint8_t *m, int x0, int y0, int x1, int y1) {
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) m[y * W + x] = x >= x0 && x <= x1 && y >= y0 && y <= y1;
}

/* The naive pred_masks of a mask prompt (model-spec 3.11, 4.1). */
static void naive_low(const uint8_t *mask, float *low) {
    static float in[H * W], full[SIDE * SIDE];
    for (int p = 0; p < H * W; p++) in[p] = mask[p] ? 1.0f : 0.0f;
    samrt_aa_bilinear_host(in, H, W, full, SIDE, SIDE);
    for (int p = 0; p < SIDE * SIDE; p++) full[p] = full[p] >= 0.5f ? 10.0f : -10.0f;
    samrt_aa_bilinear_host(full, SIDE, SIDE, low, LOW, LOW);
}

struct video {
    uint8_t mask[N_FR][K][H * W];
    float score[N_FR][K];
    int n[N_FR];
};

/* One video: each prompt is (frame, object id, mask or NULL for the click). */
struct prompt {
    int frame, obj;
    const uint8_t *mask;
};

static void run_video(samrt_engine_t e, enum samrt_postproc pp, const struct prompt *pr, int n_pr, struct video *v) {
    memset(v, 0, sizeof *v);
    memset(g_low, 0, sizeof g_low);
    memset(g_ptr, 0, sizeof g_ptr);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    const struct samrt_sam2_track_options opt = {pp, 0, 0, 0};
    CHECK_STATUS(samrt_sam2_track_set_options(e, &opt), SAMRT_OK);
    CHECK_STATUS(samrt_sam2_track_set_tap(e, keep_taps, NULL), SAMRT_OK);
    struct samrt_object_prompt click = {0};
    click.n_clicks = 1;
    click.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    for (int f = 0; f < N_FR; f++) {
        for (int i = 0; i < n_pr; i++) {
            if (pr[i].frame != f) continue;
            if (pr[i].mask) CHECK_STATUS(samrt_engine_track_prompt_mask(e, pr[i].obj, pr[i].mask), SAMRT_OK);
            else CHECK_STATUS(samrt_engine_track_prompt(e, pr[i].obj, &click), SAMRT_OK);
        }
        make_frame(f);
        const struct samrt_image img = {g_rgb, W, H, 3 * W};
        struct samrt_track_result res[K];
        memset(res, 0, sizeof res);
        for (int k = 0; k < K; k++) res[k].mask = v->mask[f][k];
        CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, K, &v->n[f]), SAMRT_OK);
        for (int k = 0; k < v->n[f]; k++) {
            v->score[f][k] = res[k].object_score;
            CHECK(isfinite(res[k].object_score));
        }
    }
    CHECK_STATUS(samrt_sam2_track_set_tap(e, NULL, NULL), SAMRT_OK);
}

/* Pixels of the rectangle's interior (2 pixels in) set and of its outside (2 pixels out) clear. */
static void check_rect(const uint8_t *got, int x0, int y0, int x1, int y1, const char *what) {
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int inner = x >= x0 + 2 && x <= x1 - 2 && y >= y0 + 2 && y <= y1 - 2;
            const int outer = x < x0 - 2 || x > x1 + 2 || y < y0 - 2 || y > y1 + 2;
            bad += (inner && !got[y * W + x]) || (outer && got[y * W + x]);
        }
    CHECK_MSG(bad == 0, "%s: %d pixels away from the rectangle's edge differ", what, bad);
}

static void read_no_obj_ptr(const char *ckpt, float *out) {
    struct samrt_ckpt ck;
    CHECK_STATUS(samrt_ckpt_open(ckpt, &ck), SAMRT_OK);
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(&ck, "no_obj_ptr");
    CHECK(t != NULL);
    if (t) CHECK_STATUS(samrt_ckpt_read(&ck, t, SAMRT_DTYPE_F32, out, sizeof(float) * 256), SAMRT_OK);
    samrt_ckpt_close(&ck);
}

static void test_prompt_frame(samrt_engine_t e, const char *ckpt) {
    static uint8_t rect[H * W], rect2[H * W], empty[H * W];
    static struct video v, v2, ve;
    rect_mask(rect, 20, 15, 59, 44);
    rect_mask(rect2, 10, 5, 39, 34);
    memset(empty, 0, sizeof empty);

    const struct prompt p1[] = {{0, 4, rect}};
    run_video(e, SAMRT_POSTPROC_VOS_INFERENCE, p1, 1, &v);
    CHECK_EQ_INT(v.n[0], 1);
    CHECK(v.score[0][0] == 10.0f);
    check_rect(v.mask[0][0], 20, 15, 59, 44, "mask frame");
    static float want[LOW * LOW];
    naive_low(rect, want);
    CHECK(check_close_f32("mask frame pred_masks", g_low[0], want, LOW * LOW, 0, 0) == 0);
    static float ptr_rect[256];
    memcpy(ptr_rect, g_ptr[0], sizeof ptr_rect);
    for (int f = 1; f < N_FR; f++) CHECK_EQ_INT(v.n[f], 1);
    printf("mask prompt: scores");
    for (int f = 0; f < N_FR; f++) printf(" %+.4f", v.score[f][0]);
    printf("\n");

    /* repeatable, and the pointer depends on the mask */
    run_video(e, SAMRT_POSTPROC_VOS_INFERENCE, p1, 1, &v2);
    CHECK(memcmp(&v, &v2, sizeof v) == 0);
    const struct prompt p2[] = {{0, 4, rect2}};
    run_video(e, SAMRT_POSTPROC_VOS_INFERENCE, p2, 1, &v2);
    CHECK(memcmp(ptr_rect, g_ptr[0], sizeof ptr_rect) != 0);

    /* an empty mask: absent, pointer = no_obj_ptr exactly */
    static float no_obj[256];
    read_no_obj_ptr(ckpt, no_obj);
    CHECK(memcmp(ptr_rect, no_obj, sizeof no_obj) != 0);
    const struct prompt pe[] = {{0, 4, empty}};
    run_video(e, SAMRT_POSTPROC_VOS_INFERENCE, pe, 1, &ve);
    CHECK(ve.score[0][0] == -10.0f);
    CHECK(memcmp(g_ptr[0], no_obj, sizeof no_obj) == 0);
    int area = 0;
    for (int p = 0; p < H * W; p++) area += ve.mask[0][0][p];
    CHECK_EQ_INT(area, 0);
}

static void test_mixed(samrt_engine_t e) {
    static uint8_t rect[H * W];
    static struct video alone, both, fixed;
    rect_mask(rect, 5, 5, 30, 25);
    /* object 1 by a click on frame 0; object 2 by a mask on frame 2 */
    const struct prompt pa[] = {{0, 1, NULL}};
    const struct prompt pb[] = {{0, 1, NULL}, {2, 2, rect}};
    run_video(e, SAMRT_POSTPROC_VOS_INFERENCE, pa, 1, &alone);
    run_video(e, SAMRT_POSTPROC_VOS_INFERENCE, pb, 2, &both);
    int same = 1;
    for (int f = 0; f < N_FR; f++)
        same &= memcmp(alone.mask[f][0], both.mask[f][0], H * W) == 0 && alone.score[f][0] == both.score[f][0];
    CHECK_MSG(same, "object 1 changed when object 2 got a mask prompt");
    CHECK_EQ_INT(both.n[2], 2);
    CHECK(both.score[2][1] == 10.0f);
    check_rect(both.mask[2][1], 5, 5, 30, 25, "second object's mask frame");
    /* a mask correction of the tracked object 1 on frame 3 */
    const struct prompt pc[] = {{0, 1, NULL}, {3, 1, rect}};
    run_video(e, SAMRT_POSTPROC_VOS_INFERENCE, pc, 2, &fixed);
    CHECK(fixed.score[3][0] == 10.0f);
    check_rect(fixed.mask[3][0], 5, 5, 30, 25, "mask correction frame");
    CHECK(memcmp(fixed.mask[2][0], alone.mask[2][0], H * W) == 0);
}

/* A ring with a 1-pixel hole: notebook fills the hole of the low-res logits. */
static void test_notebook(samrt_engine_t e) {
    static uint8_t ring[H * W];
    static struct video v;
    static float vos_low[LOW * LOW], ref[LOW * LOW];
    rect_mask(ring, 10, 10, 69, 49);
    for (int y = 26; y < 34; y++)  /* an 8x10 frame hole ~ 2x2 low-res pixels */
        for (int x = 35; x < 45; x++) ring[y * W + x] = 0;
    const struct prompt p[] = {{0, 1, ring}};
    run_video(e, SAMRT_POSTPROC_VOS_INFERENCE, p, 1, &v);
    memcpy(vos_low, g_low[0], sizeof vos_low);
    run_video(e, SAMRT_POSTPROC_NOTEBOOK, p, 1, &v);
    int32_t ws[2 * LOW * LOW];
    const struct samrt_fill_holes_args a = {1, LOW, LOW, SAMRT_TRACK_FILL_HOLE_AREA, vos_low, ref, ws};
    CHECK_STATUS(samrt_fill_holes_ref(&a), SAMRT_OK);
    int filled = 0;
    for (int q = 0; q < LOW * LOW; q++) filled += ref[q] != vos_low[q];
    CHECK_MSG(filled > 0, "the ring's hole should be a low-res hole of <= 8 pixels");
    CHECK(check_close_f32("notebook mask frame pred_masks", g_low[0], ref, LOW * LOW, 0, 0) == 0);
    printf("notebook: %d low-res hole pixels filled on the mask frame\n", filled);
}

/* The writer's pattern is affine along each weight row, so after mask_downscaling's first
 * LayerNorm2d every binary 2x2 patch normalises to the same vector and the dense prompt would
 * not depend on the mask: hashed values there instead. */
static float ckpt_values(const struct samrt_key *k, int i, int64_t j, void *user) {
    if (!strstr(k->name, "mask_downscaling") && !strstr(k->name, "mask_downsample")) return ckw_pattern(k, i, j, user);
    uint64_t h = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(j + 1) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (float)(h % 2001) / 1000.0f - 1.0f;
}

static void test_bad_calls(samrt_engine_t e) {
    static uint8_t m[H * W];
    samrt_log_set(trk_quiet, NULL, SAMRT_LOG_ERROR);
    CHECK_STATUS(samrt_engine_track_prompt_mask(NULL, 1, m), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt_mask(e, 1, NULL), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_track_prompt_mask(e, -3, m), SAMRT_E_INVALID_ARG);
    for (int k = 0; k < K; k++) CHECK_STATUS(samrt_engine_track_prompt_mask(e, 10 + k, m), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt_mask(e, 99, m), SAMRT_E_INVALID_ARG);  /* > max_objects */
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
}

int main(void) {
    test_weights();
    char path[] = "/tmp/samrt_test_track_mask_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_sam2_track_mask", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors_fn(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32, ckpt_values, NULL), 0);
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = "cpu";
    p.precision = SAMRT_DTYPE_F32;
    p.imgsz = SIDE;
    p.max_objects = K;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_OK);
    if (e) {
        test_prompt_frame(e, path);
        test_mixed(e);
        test_notebook(e);
        test_bad_calls(e);
    }
    samrt_engine_free(e);
    unlink(path);
    return check_report("test_sam2_track_mask");
}
