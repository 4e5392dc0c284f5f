/* test_sam2_track.c - the streaming tracking API (samrt_engine_track_*) on a host-pool engine
 * with a SAM 2.1 tiny checkpoint of deterministic values (tests/ckpt_writer.h) at a 64-pixel
 * model side: the tracker's arena state has the size the layout promises (fixed by
 * max_objects and the model side, not by the video), a prompt frame equals single-frame
 * segmentation with the same prompts (the official prompt frame), the non-overlap rule by
 * hand, the stage times of a tracked frame, the bank's table-driven row copies by hand, the
 * notebook profile (hole filling against kernels/sam2/fill_holes.h, objects independent when the
 * memory encoder runs twice on a frame), removing an object (the others as if it had never
 * been there), and bad calls are refused without breaking the engine.
 * Run: ctest -R test_sam2_track */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "track_rows.h"
#include "sam2_track_util.h"
#include "fill_holes.h"
#include "tracker.h"
#include "track_out.h"

#define W 80
#define H 60
#define SIDE 64
#define K 3

static uint8_t g_rgb[H * W * 3];

static void make_frame(int shift) { trk_make_frame(g_rgb, W, H, shift); }

/* Hand cases: 3 objects, 4 pixels. */
static void test_non_overlap(void) {
    const float logits[3 * 4] = {1.0f, -2.0f, 3.0f, 0.5f,   /* object 0 */
                                 2.0f, -1.0f, 3.0f, -0.5f,  /* object 1 */
                                 0.5f, -3.0f, 1.0f, -4.0f}; /* object 2 */
    uint8_t m[3][4];
    uint8_t *masks[3] = {m[0], m[1], m[2]};
    samrt_sam2_track_non_overlap_host(logits, 3, 4, masks);
    const uint8_t want[3][4] = {{0, 0, 1, 1}, {1, 0, 0, 0}, {0, 0, 0, 0}};  /* tie at pixel 2: first */
    CHECK(memcmp(m, want, sizeof m) == 0);
}

static samrt_engine_t make_engine(const char *ckpt, int k) {
    const struct samrt_engine_params p = trk_params(SIDE, k);
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    return e;
}

/* mem_bank (6 ring + MAX_COND slots, K, g*g, 64) bf16 + ptr_bank (16 ring + MAX_COND slots,
 * K, 256) f32, g = SIDE / 16. */
static void test_state_size(const char *ckpt) {
    for (int k = 1; k <= K; k += 2) {
        samrt_engine_t e = make_engine(ckpt, k);
        if (!e) return;
        const uint64_t g = SIDE / 16;
        const uint64_t want = (6ull + SAMRT_TRACK_MAX_COND) * k * g * g * 64 * 2 +
                              (16ull + SAMRT_TRACK_MAX_COND) * k * 256 * 4;
        CHECK_EQ_INT(samrt_sam2_tracker_state_bytes(e), want);
        struct samrt_memory_report before, after;
        CHECK_STATUS(samrt_engine_memory(e, &before), SAMRT_OK);
        CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
        struct samrt_object_prompt pr = {0};
        pr.n_clicks = 1;
        pr.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
        make_frame(0);
        const struct samrt_image img = {g_rgb, W, H, 3 * W};
        struct samrt_track_result res[K];
        memset(res, 0, sizeof res);
        int n = -1;
        for (int f = 0; f < 4; f++) {  /* prompt frames only (re-prompted): the plan stays */
            CHECK_STATUS(samrt_engine_track_prompt(e, 5, &pr), SAMRT_OK);
            CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, K, &n), SAMRT_OK);
        }
        CHECK_STATUS(samrt_engine_memory(e, &after), SAMRT_OK);
        CHECK(memcmp(&before, &after, sizeof before) == 0);
        samrt_engine_free(e);
    }
}

/* A prompt frame is single-frame segmentation of the same prompts (init_state +
 * add_new_points_or_box on that frame). */
static void test_prompt_frame(samrt_engine_t e) {
    struct samrt_object_prompt pr[2];
    trk_two_prompts(pr);
    make_frame(0);
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    static uint8_t seg_mask[2][H * W], trk_mask[2][H * W];
    struct samrt_mask_result seg[2] = {{.mask = seg_mask[0]}, {.mask = seg_mask[1]}};
    CHECK_STATUS(samrt_engine_segment(e, &img, pr, 2, SAMRT_POSTPROC_VOS_INFERENCE, seg), SAMRT_OK);

    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    struct samrt_stage_times tm;
    CHECK_STATUS(samrt_engine_stage_times(e, &tm), SAMRT_OK);
    CHECK(tm.image_encoder_ms < 0 && tm.postprocess_ms < 0);  /* nothing ran yet: -1, never 0 */
    CHECK_STATUS(samrt_engine_track_prompt(e, 7, &pr[0]), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, 3, &pr[1]), SAMRT_OK);
    struct samrt_track_result res[K] = {{.mask = trk_mask[0]}, {.mask = trk_mask[1]}};
    int n = -1;
    CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, K, &n), SAMRT_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(res[0].obj_id, 7);
    CHECK_EQ_INT(res[1].obj_id, 3);
    for (int i = 0; i < 2 && n == 2; i++) {
        CHECK(memcmp(seg_mask[i], trk_mask[i], sizeof seg_mask[i]) == 0);
        CHECK(res[i].object_score == seg[i].object_score);
        CHECK_EQ_INT(res[i].area, seg[i].area);
        CHECK(memcmp(res[i].box, seg[i].box, sizeof res[i].box) == 0);
        printf("prompt frame, object %d: score %+.4f area %d\n", res[i].obj_id, res[i].object_score, res[i].area);
    }
    CHECK_STATUS(samrt_engine_stage_times(e, &tm), SAMRT_OK);
    CHECK(tm.postprocess_ms >= 0 && tm.prompt_and_mask_decoder_ms >= 0);

    /* non-overlap: the masks become disjoint, and a mask only loses pixels */
    struct samrt_sam2_track_options opt = {SAMRT_POSTPROC_VOS_INFERENCE, 1, 0, 0};
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    CHECK_STATUS(samrt_sam2_track_set_options(e, &opt), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, 7, &pr[0]), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, 3, &pr[1]), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, K, &n), SAMRT_OK);
    int overlap = 0, grew = 0;
    for (int p = 0; p < H * W; p++) {
        overlap += trk_mask[0][p] && trk_mask[1][p];
        grew += (trk_mask[0][p] && !seg_mask[0][p]) + (trk_mask[1][p] && !seg_mask[1][p]);
    }
    CHECK_EQ_INT(overlap, 0);
    CHECK_EQ_INT(grew, 0);
}

static void test_bad_calls(samrt_engine_t e) {
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    struct samrt_object_prompt pr = {0};
    pr.n_clicks = 1;
    pr.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    struct samrt_track_result res[K];
    memset(res, 0, sizeof res);
    int n;
    samrt_log_set(trk_quiet, NULL, SAMRT_LOG_ERROR);
    CHECK_STATUS(samrt_engine_track_begin(NULL, W, H), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_track_begin(e, 0, H), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, -1, &pr), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_track_prompt(e, 1, NULL), SAMRT_E_INVALID_ARG);
    struct samrt_object_prompt outside = pr;
    outside.clicks[0].x = W + 5.0f;
    CHECK_STATUS(samrt_engine_track_prompt(e, 1, &outside), SAMRT_E_INVALID_ARG);
    for (int k = 0; k < K; k++) CHECK_STATUS(samrt_engine_track_prompt(e, 10 + k, &pr), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, 99, &pr), SAMRT_E_INVALID_ARG);  /* > max_objects */
    CHECK_STATUS(samrt_engine_track_prompt_mask(e, 10, NULL), SAMRT_E_INVALID_ARG);
    const struct samrt_image small = {g_rgb, W - 2, H, 3 * W};
    CHECK_STATUS(samrt_engine_track_push(e, &small, 0, res, K, &n), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_track_push(e, &img, 1, res, K, &n), SAMRT_E_INVALID_ARG);  /* host engine */
    CHECK_STATUS(samrt_engine_track_push(e, &img, 0, NULL, K, &n), SAMRT_E_INVALID_ARG);
    struct samrt_sam2_track_options nb = {(enum samrt_postproc)7, 1, 0, 0};
    CHECK_STATUS(samrt_sam2_track_set_options(e, &nb), SAMRT_E_INVALID_ARG);
    nb.postproc = SAMRT_POSTPROC_NOTEBOOK;
    nb.fill_hole_area = -1;
    CHECK_STATUS(samrt_sam2_track_set_options(e, &nb), SAMRT_E_INVALID_ARG);
    /* still works: fewer result slots than objects */
    CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, 2, &n), SAMRT_OK);
    CHECK_EQ_INT(n, 2);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
}

/* samrt_engine_track_remove: objects 1, 2, 3 for two frames, then object 2 removed; objects 1
 * and 3 (3 moved down a slot with its memories) must then be exactly what a video with only
 * 1 and 3 gives, and the freed slot takes a new object. */
static void test_remove(samrt_engine_t e) {
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    const float at[3][2] = {{20.0f, 20.0f}, {40.0f, 30.0f}, {60.0f, 45.0f}};
    uint8_t want[2][2][H * W], got[K][H * W];
    float want_score[2][2];
    struct samrt_track_result res[K];
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {  /* pass 0: objects 1 and 3 alone; pass 1: 1, 2, 3, remove 2 */
        CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
        for (int i = 0; i < 3; i++) {
            if (pass == 0 && i == 1) continue;
            struct samrt_object_prompt pr = {0};
            pr.n_clicks = 1;
            pr.clicks[0] = (struct samrt_click){at[i][0], at[i][1], 1};
            CHECK_STATUS(samrt_engine_track_prompt(e, i + 1, &pr), SAMRT_OK);
        }
        for (int f = 0; f < 4; f++) {
            if (pass == 1 && f == 2) CHECK_STATUS(samrt_engine_track_remove(e, 2), SAMRT_OK);
            for (int k = 0; k < K; k++) res[k].mask = got[k];
            make_frame(f);
            CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, K, &n), SAMRT_OK);
            if (f < 2) continue;
            CHECK_EQ_INT(n, 2);
            for (int k = 0; k < 2 && n == 2; k++) {
                CHECK_EQ_INT(res[k].obj_id, k == 0 ? 1 : 3);
                if (pass == 0) {
                    memcpy(want[f - 2][k], got[k], H * W);
                    want_score[f - 2][k] = res[k].object_score;
                } else {
                    CHECK_MSG(memcmp(want[f - 2][k], got[k], H * W) == 0, "frame %d, object %d: mask differs", f,
                              res[k].obj_id);
                    CHECK(res[k].object_score == want_score[f - 2][k]);
                }
            }
        }
    }
    samrt_log_set(trk_quiet, NULL, SAMRT_LOG_ERROR);
    CHECK_STATUS(samrt_engine_track_remove(e, 2), SAMRT_E_INVALID_ARG);  /* not tracked any more */
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    struct samrt_object_prompt pr = {0};
    pr.n_clicks = 1;
    pr.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    CHECK_STATUS(samrt_engine_track_prompt(e, 7, &pr), SAMRT_OK);  /* the freed slot */
    CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, K, &n), SAMRT_OK);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(res[2].obj_id, 7);
}

#define N_TRACK 9

struct run {
    uint8_t mask[N_TRACK][2][H * W];
    float score[N_TRACK][2];
    int n[N_TRACK];
};

/* Pushes synthetic frame f; the first two objects' masks go to out->mask[f]. */
static int push_frame(samrt_engine_t e, int f, struct run *out, struct samrt_track_result *res) {
    make_frame(f);
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    memset(res, 0, sizeof *res * K);
    for (int i = 0; i < 2; i++) res[i].mask = out->mask[f][i];
    int n = -1;
    CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, K, &n), SAMRT_OK);
    out->n[f] = n;
    return n;
}

/* Object 1 prompted on frame 0, corrected on frame 5; object 2 (with_b) added on frame 3. */
static void track_video(samrt_engine_t e, int with_b, struct run *out) {
    struct samrt_object_prompt pa = {0}, pb = {0}, fix = {0};
    pa.n_clicks = 1;
    pa.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    pb.has_box = 1;
    pb.box[0] = 2, pb.box[1] = 2, pb.box[2] = 20, pb.box[3] = 14;
    fix.n_clicks = 2;
    fix.clicks[0] = (struct samrt_click){45.0f, 30.0f, 1};
    fix.clicks[1] = (struct samrt_click){10.0f, 50.0f, 0};
    memset(out, 0, sizeof *out);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    for (int f = 0; f < N_TRACK; f++) {
        if (f == 0) CHECK_STATUS(samrt_engine_track_prompt(e, 1, &pa), SAMRT_OK);
        if (f == 5) CHECK_STATUS(samrt_engine_track_prompt(e, 1, &fix), SAMRT_OK);
        if (f == 3 && with_b) CHECK_STATUS(samrt_engine_track_prompt(e, 2, &pb), SAMRT_OK);
        struct samrt_track_result res[K];
        const int n = push_frame(e, f, out, res);
        CHECK_EQ_INT(n, with_b && f >= 3 ? 2 : 1);
        for (int i = 0; i < n && i < 2; i++) {
            CHECK_EQ_INT(res[i].obj_id, i + 1);
            CHECK(isfinite(res[i].object_score));
            out->score[f][i] = res[i].object_score;
            int area = 0;
            for (int p = 0; p < H * W; p++) area += out->mask[f][i][p];
            CHECK_EQ_INT(res[i].area, area);
            if (res[i].object_score <= 0.0f) CHECK_EQ_INT(area, 0);
        }
    }
}

/* Tracking through memory: the same video twice gives the same bits (no state leaks from one
 * video into the next), and object 1 does not depend on object 2 (objects attend to their own
 * banks; without non-overlap they are independent, as the official per-object loop). */
static void test_tracking(samrt_engine_t e) {
    static struct run a, b, c;
    track_video(e, 1, &a);
    track_video(e, 1, &b);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    track_video(e, 0, &c);
    int same = 1;
    for (int f = 0; f < N_TRACK; f++)
        same &= memcmp(a.mask[f][0], c.mask[f][0], H * W) == 0 && a.score[f][0] == c.score[f][0];
    CHECK_MSG(same, "object 1 changed when object 2 was added");
    for (int f = 0; f < N_TRACK; f++) printf("frame %2d: object 1 score %+9.4f, object 2 score %+9.4f\n", f,
                                             a.score[f][0], a.score[f][1]);
    struct samrt_stage_times tm;
    CHECK_STATUS(samrt_engine_stage_times(e, &tm), SAMRT_OK);
    /* a tracked frame on the CPU backend: every stage ran except the transfers, which do not exist */
    CHECK(tm.preprocess_ms > 0 && tm.image_encoder_ms > 0 && tm.memory_attention_ms > 0);
    CHECK(tm.prompt_and_mask_decoder_ms > 0 && tm.memory_encoder_ms > 0 && tm.postprocess_ms > 0);
    CHECK(tm.h2d_ms == -1.0f && tm.d2h_ms == -1.0f);
}

/* The table-driven row copies (track_rows.h) by hand: 3 rows of 16 bytes, pairs (dst, src). */
static void test_rows_ref(void) {
    _Alignas(16) static uint8_t src[3 * 16], dst[4 * 16];
    for (int i = 0; i < 3 * 16; i++) src[i] = (uint8_t)i;
    memset(dst, 0xee, sizeof dst);
    const int32_t pairs[3 * 2] = {3, 0, 0, 2, 2, 2};  /* dst row 3 <- src 0, 0 <- 2, 2 <- 2; row 1 untouched */
    struct samrt_track_rows_args a = {dst, src, 16, 4, 3, pairs, 3};
    CHECK_STATUS(samrt_track_rows_ref(&a), SAMRT_OK);
    CHECK(memcmp(dst + 48, src, 16) == 0 && memcmp(dst, src + 32, 16) == 0 && memcmp(dst + 32, src + 32, 16) == 0);
    CHECK(dst[16] == 0xee && dst[31] == 0xee);
    const int32_t bad[2] = {4, 0};  /* destination row out of range */
    a.pairs = bad, a.n = 1;
    CHECK_STATUS(samrt_track_rows_ref(&a), SAMRT_E_INVALID_ARG);
    a.pairs = pairs, a.row_bytes = 8;  /* not a multiple of 16 */
    CHECK_STATUS(samrt_track_rows_ref(&a), SAMRT_E_INVALID_ARG);
    a.row_bytes = 16, a.n = 0, a.dst = NULL;  /* nothing to copy */
    CHECK_STATUS(samrt_track_rows_ref(&a), SAMRT_OK);
}

/* ---- the notebook profile (track_post.h) ---- */

#define LOW (SIDE / 4)  /* low-res logits side */

static float g_low[N_TRACK][LOW * LOW];  /* object 0's pred_masks tap per frame */

static enum samrt_status keep_low(void *user, const char *name, const struct samrt_tensor *t) {
    (void)user;
    int f = -1;
    char what[64];
    if (sscanf(name, "frame.%d.%63s", &f, what) == 2 && strcmp(what, "pred_masks") == 0 && f >= 0 && f < N_TRACK &&
        samrt_tensor_nelements(t) == LOW * LOW)
        memcpy(g_low[f], t->data, sizeof g_low[f]);
    return SAMRT_OK;
}

/* Object 1 (click) from frame 0 when with_a, object 2 (box) from frame 3 when with_b. */
static void run_profile(samrt_engine_t e, enum samrt_postproc pp, int fill_area, int with_a, int with_b,
                        struct run *out) {
    struct samrt_object_prompt pa = {0}, pb = {0};
    pa.n_clicks = 1;
    pa.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    pb.has_box = 1;
    pb.box[0] = 2, pb.box[1] = 2, pb.box[2] = 20, pb.box[3] = 14;
    memset(out, 0, sizeof *out);
    memset(g_low, 0, sizeof g_low);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    const struct samrt_sam2_track_options opt = {pp, 0, 0, fill_area};
    CHECK_STATUS(samrt_sam2_track_set_options(e, &opt), SAMRT_OK);
    CHECK_STATUS(samrt_sam2_track_set_tap(e, keep_low, NULL), SAMRT_OK);
    for (int f = 0; f < N_TRACK; f++) {
        if (f == 0 && with_a) CHECK_STATUS(samrt_engine_track_prompt(e, 1, &pa), SAMRT_OK);
        if (f == 3 && with_b) CHECK_STATUS(samrt_engine_track_prompt(e, 2, &pb), SAMRT_OK);
        struct samrt_track_result res[K];
        push_frame(e, f, out, res);
        for (int i = 0; i < out->n[f] && i < 2; i++) out->score[f][i] = res[i].object_score;
    }
    CHECK_STATUS(samrt_sam2_track_set_tap(e, NULL, NULL), SAMRT_OK);
}

/* Pixels that hole filling with max_area changes in raw; *left: of those, how many got differs
 * from the filled raw at (got NULL: none). */
static int filled_pixels(const float *raw, int max_area, const float *got, int *left) {
    float ref[LOW * LOW];
    int32_t ws[2 * LOW * LOW];
    const struct samrt_fill_holes_args a = {1, LOW, LOW, max_area, raw, ref, ws};
    CHECK_STATUS(samrt_fill_holes_ref(&a), SAMRT_OK);
    int n = 0;
    *left = 0;
    for (int p = 0; p < LOW * LOW; p++) {
        n += ref[p] != raw[p];
        *left += got && ref[p] != got[p];
    }
    return n;
}

/* The prompt frame's logits are those of vos_inference with the holes filled
 * (kernels/sam2/fill_holes.h), and no frame keeps a hole of the area. The synthetic weights give
 * few small holes, so a second run fills every background component (area = the whole map):
 * the prompt frame's mask must become the whole frame. */
static void test_notebook(samrt_engine_t e) {
    static struct run vos, nb, nb_a, nb_b;
    static float vos_low[N_TRACK][LOW * LOW];
    run_profile(e, SAMRT_POSTPROC_VOS_INFERENCE, 0, 1, 1, &vos);
    memcpy(vos_low, g_low, sizeof vos_low);
    const int areas[2] = {SAMRT_TRACK_FILL_HOLE_AREA, LOW * LOW};
    for (int i = 0; i < 2; i++) {
        run_profile(e, SAMRT_POSTPROC_NOTEBOOK, i ? areas[i] : 0, 1, 1, &nb);
        int left = 0;
        const int n0 = filled_pixels(vos_low[0], areas[i], g_low[0], &left);
        CHECK_MSG(left == 0, "prompt frame: %d pixels differ from the filled vos_inference logits", left);
        for (int f = 0; f < N_TRACK; f++)
            CHECK_MSG(filled_pixels(g_low[f], areas[i], NULL, &left) == 0, "frame %d: a hole is left", f);
        printf("notebook, fill_hole_area %d: %d pixels filled on the prompt frame\n", areas[i], n0);
        if (i == 1) {
            CHECK(n0 > 0);
            int area = 0;
            for (int p = 0; p < H * W; p++) area += nb.mask[0][0][p];
            CHECK_EQ_INT(area, H * W);
        }
    }
    /* with prompted and tracked objects on one frame (frame 3) the memory encoder runs twice:
     * each object must still be what it is alone */
    run_profile(e, SAMRT_POSTPROC_NOTEBOOK, 0, 1, 1, &nb);
    run_profile(e, SAMRT_POSTPROC_NOTEBOOK, 0, 1, 0, &nb_a);
    run_profile(e, SAMRT_POSTPROC_NOTEBOOK, 0, 0, 1, &nb_b);
    int same_a = 1, same_b = 1;
    for (int f = 0; f < N_TRACK; f++) {
        same_a &= memcmp(nb.mask[f][0], nb_a.mask[f][0], H * W) == 0 && nb.score[f][0] == nb_a.score[f][0];
        if (f >= 3)
            same_b &= memcmp(nb.mask[f][1], nb_b.mask[f][0], H * W) == 0 && nb.score[f][1] == nb_b.score[f][0];
    }
    CHECK_MSG(same_a, "notebook: object 1 changed when object 2 was added");
    CHECK_MSG(same_b, "notebook: object 2 changed when object 1 was tracked beside it");
}

int main(void) {
    test_non_overlap();
    test_rows_ref();
    char path[] = "/tmp/samrt_test_track_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_sam2_track", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32), 0);
    test_state_size(path);
    samrt_engine_t e = make_engine(path, K);
    if (e) {
        test_prompt_frame(e);
        test_tracking(e);
        test_notebook(e);
        test_remove(e);
        test_bad_calls(e);
    }
    samrt_engine_free(e);
    unlink(path);
    return check_report("test_sam2_track");
}
