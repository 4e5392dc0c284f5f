/* test_edgetam_track.c - EdgeTAM through the streaming tracking API on a host-pool engine (the
 * CPU reference backend), with a checkpoint of EdgeTAM's keys holding deterministic values
 * (tests/ckpt_writer.h) at a 256-pixel model side (the smallest side whose 16x16 perceiver
 * grid is whole): the tracker state has EdgeTAM's layout (512 perceiver tokens per stored
 * memory, not g*g pixels) and does not change while a video runs; a prompt frame equals
 * single-frame segmentation of the same prompts; and objects are independent: an object
 * tracked alone gives the same bits as when a second object, prompted later, shares its
 * frames (the official EdgeTAM predictor cannot batch objects, its perceiver fails for more
 * than one; samrt runs each object's memory path on its own rows).
 * Run: ctest -R test_edgetam_track */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "sam2_track_util.h"
#include "tracker.h"

#define W 80
#define H 60
#define SIDE 256
#define N_FRAMES 5

static uint8_t g_rgb[H * W * 3];

static samrt_engine_t make_engine(const char *ckpt, int k) {
    struct samrt_engine_params p = trk_params(SIDE, k);
    p.max_frame_width = W;
    p.max_frame_height = H;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    return e;
}

/* mem_bank (6 ring + MAX_COND slots, K, 512, 64) bf16 + ptr_bank (16 ring + MAX_COND, K, 256) f32. */
static void test_state_size(samrt_engine_t e, int k) {
    const uint64_t want = (6ull + SAMRT_TRACK_MAX_COND) * k * 512 * 64 * 2 + (16ull + SAMRT_TRACK_MAX_COND) * k * 256 * 4;
    CHECK_EQ_INT(samrt_sam2_tracker_state_bytes(e), want);
}

/* A prompt frame is single-frame segmentation of the same prompts. */
static void test_prompt_frame(samrt_engine_t e) {
    struct samrt_object_prompt pr[2];
    trk_two_prompts(pr);
    trk_make_frame(g_rgb, W, H, 0);
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    static uint8_t seg_mask[2][H * W], trk_mask[2][H * W];
    struct samrt_mask_result seg[2] = {{.mask = seg_mask[0]}, {.mask = seg_mask[1]}};
    CHECK_STATUS(samrt_engine_segment(e, &img, pr, 2, SAMRT_POSTPROC_VOS_INFERENCE, seg), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, 4, &pr[0]), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, 9, &pr[1]), SAMRT_OK);
    struct samrt_track_result res[2] = {{.mask = trk_mask[0]}, {.mask = trk_mask[1]}};
    int n = -1;
    CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, 2, &n), SAMRT_OK);
    CHECK_EQ_INT(n, 2);
    for (int i = 0; i < 2 && n == 2; i++) {
        CHECK(memcmp(seg_mask[i], trk_mask[i], sizeof seg_mask[i]) == 0);
        CHECK(res[i].object_score == seg[i].object_score);
        CHECK_EQ_INT(res[i].area, seg[i].area);
        printf("prompt frame, object %d: score %+.4f area %d\n", res[i].obj_id, res[i].object_score, res[i].area);
    }
}

struct run {
    uint8_t mask[N_FRAMES][H * W];
    float score[N_FRAMES];
    int area[N_FRAMES];
};

/* Object 1 from frame 0 (a click); with `second`, object 2 from frame 2 (a box). Records
 * object 1 on every frame; the engine's memory report must not change while the video runs. */
static void track(samrt_engine_t e, int second, struct run *r) {
    struct samrt_object_prompt a = {0}, b = {0};
    a.n_clicks = 1;
    a.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    b.has_box = 1;
    b.box[0] = 5, b.box[1] = 5, b.box[2] = 30, b.box[3] = 25;
    struct samrt_memory_report m0, m1;
    CHECK_STATUS(samrt_engine_memory(e, &m0), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    static uint8_t masks[2][H * W];
    for (int f = 0; f < N_FRAMES; f++) {
        if (f == 0) CHECK_STATUS(samrt_engine_track_prompt(e, 1, &a), SAMRT_OK);
        if (f == 2 && second) CHECK_STATUS(samrt_engine_track_prompt(e, 2, &b), SAMRT_OK);
        trk_make_frame(g_rgb, W, H, 2 * f);
        const struct samrt_image img = {g_rgb, W, H, 3 * W};
        struct samrt_track_result res[2] = {{.mask = masks[0]}, {.mask = masks[1]}};
        int n = -1;
        CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, 2, &n), SAMRT_OK);
        CHECK_EQ_INT(n, second && f >= 2 ? 2 : 1);
        if (n < 1) return;
        CHECK_EQ_INT(res[0].obj_id, 1);
        memcpy(r->mask[f], masks[0], sizeof r->mask[f]);
        r->score[f] = res[0].object_score;
        r->area[f] = res[0].area;
    }
    CHECK_STATUS(samrt_engine_memory(e, &m1), SAMRT_OK);
    CHECK(memcmp(&m0, &m1, sizeof m0) == 0);
}

int main(void) {
    char path[] = "/tmp/samrt_test_edgetam_track_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_edgetam_track", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_EDGETAM, SAMRT_DTYPE_F32), 0);
    samrt_engine_t e1 = make_engine(path, 1), e2 = make_engine(path, 2);
    if (e1 && e2) {
        test_state_size(e1, 1);
        test_state_size(e2, 2);
        test_prompt_frame(e2);
        static struct run alone, shared;
        track(e1, 0, &alone);
        track(e2, 1, &shared);
        int n_diff = 0;
        for (int f = 0; f < N_FRAMES; f++) {
            const int same = !memcmp(alone.mask[f], shared.mask[f], sizeof alone.mask[f]) &&
                             !memcmp(&alone.score[f], &shared.score[f], sizeof(float)) &&
                             alone.area[f] == shared.area[f];
            CHECK_MSG(same, "frame %d: object 1 alone (score %a, area %d) differs from object 1 with object 2 "
                            "(score %a, area %d)", f, (double)alone.score[f], alone.area[f], (double)shared.score[f],
                      shared.area[f]);
            n_diff += !same;
        }
        printf("edgetam side %d: %d frames, object 1 alone vs with a second object: %d differences; "
               "last frame score %+.4f area %d\n", SIDE, N_FRAMES, n_diff, (double)alone.score[N_FRAMES - 1],
               alone.area[N_FRAMES - 1]);
    }
    samrt_engine_free(e1);
    samrt_engine_free(e2);
    unlink(path);
    return check_report("test_edgetam_track");
}
