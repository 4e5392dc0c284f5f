/* test_efficienttam.c - EfficientTAM end to end on the CPU backend (f32, 64-pixel model side:
 * a 4 x 4 token map, windows of 14 padded around it) with a seeded checkpoint of the Ti key
 * layout (harness/ckpt_write.h) saved under the official name efficienttam_ti_2.pt:
 *   - the engine takes the variant from the file name (ti_2) or from expect_model (ti), and
 *     refuses the S layout's name;
 *   - single-frame segmentation of two objects gives masks of the frame's size, the same bits
 *     on a second run;
 *   - tracking two objects over 4 frames is deterministic, and Ti and Ti/2 (same weights)
 *     agree bit for bit while one memory is stored (frames 0 and 1: the pooled attention only
 *     starts at two memories, as EfficientRoPEAttention2 does) and differ from frame 2 on;
 *   - the bench names (efficienttam_ti_2_points, efficienttam_s_512x512_bbox, ...).
 * Run: ctest -R test_efficienttam$ */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "check.h"
#include "ckpt_write.h"
#include "sam2_track_util.h"

#define W 80
#define H 60
#define SIDE 64
#define N_FRAMES 4

static uint8_t g_rgb[H * W * 3];

static samrt_engine_t make_engine(const char *ckpt, enum samrt_model_id expect, enum samrt_status want) {
    struct samrt_engine_params p = trk_params(SIDE, 2);
    p.max_frame_width = W;
    p.max_frame_height = H;
    p.expect_model = expect;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), want);
    return e;
}

static void test_variants(const char *ckpt) {
    enum samrt_model_id id = SAMRT_MODEL_UNKNOWN;
    samrt_engine_t e = make_engine(ckpt, SAMRT_MODEL_UNKNOWN, SAMRT_OK);
    if (e) CHECK_STATUS(samrt_engine_model(e, &id, NULL), SAMRT_OK);
    CHECK_EQ_INT(id, SAMRT_MODEL_EFFICIENTTAM_TI_2);  /* by its official file name */
    samrt_engine_free(e);
    e = make_engine(ckpt, SAMRT_MODEL_EFFICIENTTAM_S, SAMRT_E_MODEL_MISMATCH);
    samrt_engine_free(e);
}

static void segment_once(samrt_engine_t e, uint8_t masks[2][H * W], float score[2]) {
    struct samrt_object_prompt pr[2];
    trk_two_prompts(pr);
    trk_make_frame(g_rgb, W, H, 0);
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    struct samrt_mask_result r[2] = {{.mask = masks[0]}, {.mask = masks[1]}};
    CHECK_STATUS(samrt_engine_segment(e, &img, pr, 2, SAMRT_POSTPROC_VOS_INFERENCE, r), SAMRT_OK);
    score[0] = r[0].object_score, score[1] = r[1].object_score;
}

static void test_segment(samrt_engine_t e) {
    static uint8_t a[2][H * W], b[2][H * W];
    float sa[2], sb[2];
    segment_once(e, a, sa);
    segment_once(e, b, sb);
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(sa, sb, sizeof sa) == 0);
    int area = 0;
    for (int i = 0; i < H * W; i++) area += (a[0][i] != 0) + (a[1][i] != 0);
    printf("segment: scores %+.4f %+.4f, %d mask pixels\n", sa[0], sa[1], area);
}

struct run {
    uint8_t mask[N_FRAMES][2][H * W];
    float score[N_FRAMES][2];
};

/* Two objects prompted on frame 0 (the click and the box of trk_two_prompts), N_FRAMES frames. */
static void track(samrt_engine_t e, struct run *r) {
    struct samrt_object_prompt pr[2];
    trk_two_prompts(pr);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, 1, &pr[0]), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_prompt(e, 2, &pr[1]), SAMRT_OK);
    for (int f = 0; f < N_FRAMES; f++) {
        trk_make_frame(g_rgb, W, H, f);
        const struct samrt_image img = {g_rgb, W, H, 3 * W};
        struct samrt_track_result res[2] = {{.mask = r->mask[f][0]}, {.mask = r->mask[f][1]}};
        int n = -1;
        CHECK_STATUS(samrt_engine_track_push(e, &img, 0, res, 2, &n), SAMRT_OK);
        CHECK_EQ_INT(n, 2);
        CHECK(res[0].obj_id == 1 && res[1].obj_id == 2);
        r->score[f][0] = res[0].object_score, r->score[f][1] = res[1].object_score;
    }
}

static int same_frame(const struct run *a, const struct run *b, int f) {
    return !memcmp(a->mask[f], b->mask[f], sizeof a->mask[f]) && !memcmp(a->score[f], b->score[f], sizeof a->score[f]);
}

static void test_track(const char *ckpt) {
    static struct run ti, ti2, ti2b;
    samrt_engine_t e = make_engine(ckpt, SAMRT_MODEL_UNKNOWN, SAMRT_OK);  /* ti_2 by the file name */
    if (!e) return;
    test_segment(e);
    track(e, &ti2);
    track(e, &ti2b);
    samrt_engine_free(e);
    e = make_engine(ckpt, SAMRT_MODEL_EFFICIENTTAM_TI, SAMRT_OK);
    if (!e) return;
    track(e, &ti);
    samrt_engine_free(e);
    for (int f = 0; f < N_FRAMES; f++) {
        printf("frame %d: ti %+.5f %+.5f, ti_2 %+.5f %+.5f\n", f, ti.score[f][0], ti.score[f][1], ti2.score[f][0],
               ti2.score[f][1]);
        CHECK_MSG(same_frame(&ti2, &ti2b, f), "frame %d: ti_2 not deterministic", f);
        if (f < 2) CHECK_MSG(same_frame(&ti, &ti2, f), "frame %d: one memory, ti and ti_2 must agree", f);
        else CHECK_MSG(ti.score[f][0] != ti2.score[f][0] && ti.score[f][1] != ti2.score[f][1],
                       "frame %d: pooled memory keys must change ti_2's scores", f);
    }
}

static void test_bench_names(void) {
    struct samrt_bench_model m;
    CHECK_STATUS(samrt_bench_parse_model("efficienttam_ti_2_points", &m), SAMRT_OK);
    CHECK(m.model == SAMRT_MODEL_EFFICIENTTAM_TI_2 && m.prompt == SAMRT_PROMPT_POINTS &&
          !strcmp(m.tag, "efficienttam_ti_2_points"));
    CHECK_STATUS(samrt_bench_parse_model("efficienttam_s_512x512_bbox", &m), SAMRT_OK);
    CHECK(m.model == SAMRT_MODEL_EFFICIENTTAM_S_512 && !strcmp(m.tag, "efficienttam_s_512x512_bbox"));
    CHECK_STATUS(samrt_bench_parse_model("efficienttam_ti_1", &m), SAMRT_OK);  /* bare: the mask prompt */
    CHECK(m.model == SAMRT_MODEL_EFFICIENTTAM_TI_1 && !strcmp(m.tag, "efficienttam_ti_1_mask"));
    CHECK_STATUS(samrt_bench_parse_model("efficienttam_m_points", &m), SAMRT_E_INVALID_ARG);
}

int main(void) {
    test_bench_names();
    char dir[] = "/tmp/samrt_test_efficienttam_XXXXXX", ckpt[96];
    if (!mkdtemp(dir)) return 1;
    snprintf(ckpt, sizeof ckpt, "%s/efficienttam_ti_2.pt", dir);
    CHECK_STATUS(samrt_ckpt_write_random(ckpt, SAMRT_MODEL_EFFICIENTTAM_TI, 0), SAMRT_OK);
    test_variants(ckpt);
    test_track(ckpt);
    unlink(ckpt);
    rmdir(dir);
    return check_report("test_efficienttam");
}
