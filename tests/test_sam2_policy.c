/* test_sam2_policy.c - the tracker's memory-selection policies (runtime/sam2/track_policy.h,
 * kernels/sam2/policy.h) on the CPU: SAMURAI's Kalman filter (initiate, predict, update) and its
 * box IoU against values worked by hand, the box of an upsampled mask by hand, the three
 * branches of the decision and the memory admission, SAMURAI's bank rules over an occlusion
 * (admitted frames kept, the occluded ones skipped), the refused names and parameters, and on
 * a host engine with random weights an occluded synthetic clip: sam2 attends to the last six
 * frames as before, samurai to other slot lists that follow its rule.
 * Run: ctest -R test_sam2_policy */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "policy.h"
#include "sam2.h"
#include "sam2_track_util.h"
#include "tracker.h"

#define W 80
#define H 60
#define SIDE 64
#define N_FRAMES 24

static void test_filter(void) {
    double st[SAMRT_POLICY_STATE] = {0};
    const double z[4] = {10, 20, 2, 5};
    samrt_kf_initiate(st, z);
    CHECK_NEAR(st[SAMRT_KF_COV + 0], 0.25, 1e-15);               /* (2 * 5 / 20)^2 */
    CHECK_NEAR(st[SAMRT_KF_COV + 9 * 4], 0.09765625, 1e-15);     /* (10 * 5 / 160)^2 */
    CHECK_NEAR(st[SAMRT_KF_COV + 9 * 2], 1e-4, 1e-18);
    samrt_kf_predict(st);
    CHECK_NEAR(st[SAMRT_KF_MEAN + 0], 10.0, 0);
    CHECK_NEAR(st[SAMRT_KF_COV + 0], 0.25 + 0.09765625 + 0.0625, 1e-15);  /* P + Pv + (5/20)^2 */
    CHECK_NEAR(st[SAMRT_KF_COV + 4], 0.09765625, 1e-15);
    CHECK_NEAR(st[SAMRT_KF_COV + 9 * 4], 0.09765625 + 0.0009765625, 1e-15);
    const double s00 = 0.41015625 + 0.0625;  /* projected: + (5/20)^2 */
    const double zz[4] = {12, 20, 2, 5};
    samrt_kf_update(st, zz);
    CHECK_NEAR(st[SAMRT_KF_MEAN + 0], 10.0 + 2.0 * 0.41015625 / s00, 1e-12);
    CHECK_NEAR(st[SAMRT_KF_MEAN + 4], 2.0 * 0.09765625 / s00, 1e-12);
    CHECK_NEAR(st[SAMRT_KF_MEAN + 1], 20.0, 1e-12);
    CHECK_NEAR(st[SAMRT_KF_COV + 0], 0.41015625 - 0.41015625 * 0.41015625 / s00, 1e-12);

    const int32_t empty_h[4] = {2, 4, 6, 4};
    double a[4];
    samrt_kf_xyah(empty_h, a);  /* h 0 -> 1 */
    CHECK(a[0] == 4 && a[1] == 4 && a[2] == 4 && a[3] == 1);
    const double mean[4] = {5, 5, 1, 4};       /* box (3, 3)-(7, 7) */
    const int32_t b[4] = {5, 5, 9, 9}, none[4] = {0, 0, 0, 0};
    CHECK_NEAR(samrt_kf_box_iou(mean, b), 4.0 / 28.0, 1e-15);
    CHECK(samrt_kf_box_iou(mean, none) == 0.0);
}

/* A 4 x 4 plane, one positive logit at row 1, column 2, upsampled to 16: worked by hand
 * (docs in policy.h: the official argwhere box), x 8..11 and y 4..7. */
static void test_box(void) {
    float p[16];
    for (int i = 0; i < 16; i++) p[i] = -1.0f;
    p[1 * 4 + 2] = 1.0f;
    int32_t box[4];
    samrt_policy_box_ref(p, 4, 16, box);
    CHECK(box[0] == 8 && box[1] == 4 && box[2] == 11 && box[3] == 7);
    for (int i = 0; i < 16; i++) p[i] = -1.0f;
    samrt_policy_box_ref(p, 4, 16, box);
    CHECK(box[0] == 0 && box[1] == 0 && box[2] == 0 && box[3] == 0);
}

static const struct samrt_samurai_params k_params = {SAMRT_SAMURAI_ALPHA, SAMRT_SAMURAI_STABLE_FRAMES,
                                                     SAMRT_SAMURAI_STABLE_IOU, SAMRT_SAMURAI_MIN_OBJ_SCORE,
                                                     SAMRT_SAMURAI_MEM_IOU, SAMRT_SAMURAI_MEM_SCORE};

static void test_decide(void) {
    double st[SAMRT_POLICY_STATE] = {0};
    float dec[SAMRT_POLICY_DEC_COLS];
    const int32_t boxes[12] = {40, 40, 50, 50, 3, 3, 7, 7, 20, 20, 30, 30};
    const float iou[4] = {0.99f, 0.9f, 0.8f, 0.1f};
    /* no filter: the best IoU (mask 1), initiate from its box, stable 1 */
    CHECK_EQ_INT(samrt_samurai_decide(&k_params, st, iou, 2.0f, boxes, dec), 1);
    CHECK(st[SAMRT_KF_MEAN + 0] == 45 && st[SAMRT_KF_MEAN + 3] == 10 && dec[SAMRT_POLICY_DEC_STABLE] == 1);
    CHECK(dec[SAMRT_POLICY_DEC_ADMIT] == 1.0f && dec[SAMRT_POLICY_DEC_KF_IOU] == -1.0f);
    /* stable < 15 and the IoU <= 0.3: stable back to 0 */
    const float low[4] = {0.9f, 0.2f, 0.1f, 0.3f};
    CHECK_EQ_INT(samrt_samurai_decide(&k_params, st, low, 2.0f, boxes, dec), 3);
    CHECK(dec[SAMRT_POLICY_DEC_STABLE] == 0 && dec[SAMRT_POLICY_DEC_ADMIT] == 0.0f);
    /* the weighted branch: the filter sits on mask 2's box (3,3)-(7,7), no velocity */
    const double z[4] = {5, 5, 1, 4};
    samrt_kf_initiate(st, z);
    st[SAMRT_KF_STARTED] = 1, st[SAMRT_KF_STABLE] = 15;
    /* w1 = 0.75 * 0.9 = 0.675, w2 = 0.25 * 1 + 0.75 * 0.8 = 0.85 */
    CHECK_EQ_INT(samrt_samurai_decide(&k_params, st, iou, 0.5f, boxes, dec), 2);
    CHECK_NEAR(dec[SAMRT_POLICY_DEC_KF_IOU], 1.0f, 1e-6);
    CHECK(dec[SAMRT_POLICY_DEC_ADMIT] == 1.0f && dec[SAMRT_POLICY_DEC_STABLE] == 15);
    /* alpha 0: the predicted IoU alone; a negative score is not admitted */
    struct samrt_samurai_params p0 = k_params;
    p0.alpha = 0.0;
    CHECK_EQ_INT(samrt_samurai_decide(&p0, st, iou, -0.5f, boxes, dec), 1);
    CHECK(dec[SAMRT_POLICY_DEC_ADMIT] == 0.0f);
}

/* SAMURAI's bank: conditioning frame 0, frames 1..13 tracked, admitted 2, 3, 4 and 11 (5..10
 * occluded; frame 1 is too early to count). */
static void test_bank(void) {
    struct samrt_sam2_track_policy pol = {.kind = SAMRT_MEMORY_SAMURAI};
    struct samrt_track_bank b;
    struct samrt_track_policy_obj po;
    samrt_track_bank_reset(&b);
    samrt_sam2_track_policy_obj_reset(&po);
    int ms, ps;
    samrt_track_bank_add_cond(&b, 0, &ms, &ps);
    struct samrt_track_selection sel;
    for (int t = 1; t <= 13; t++) {
        samrt_sam2_track_policy_select(&pol, &b, &po, t, 0, &sel);
        if (t == 11) {  /* cond 0, then 2, 3, 4 and t - 1 = 10 */
            const int want[5] = {0, 2, 3, 4, 10}, tpos[5] = {6, 3, 2, 1, 0};
            CHECK_EQ_INT(sel.n_mem, 5);
            for (int i = 0; i < 5 && sel.n_mem == 5; i++) {
                CHECK_EQ_INT(sel.mem_frame[i], want[i]);
                CHECK_EQ_INT(sel.mem_tpos[i], tpos[i]);
            }
            CHECK_EQ_INT(sel.n_ptr, 11);  /* pointers as sam2: cond + frames 1..10 */
        }
        if (t == 13) {  /* 2, 3, 4, 11 and 12 */
            const int want[6] = {0, 2, 3, 4, 11, 12};
            CHECK_EQ_INT(sel.n_mem, 6);
            for (int i = 0; i < 6 && sel.n_mem == 6; i++) CHECK_EQ_INT(sel.mem_frame[i], want[i]);
        }
        samrt_sam2_track_policy_add_tracked(&pol, &b, &po, t, &ms, &ps);
        CHECK(ms >= 0 && ms < SAMRT_TRACK_RING && ps == t % SAMRT_TRACK_PTR_RING);
        const int ok = t == 1 || (t >= 2 && t <= 4) || t == 11;
        samrt_sam2_track_policy_admit(&pol, &b, &po, t, 0, ok);
    }
}

static void test_names(void) {
    enum samrt_memory_policy p = SAMRT_MEMORY_POLICY_COUNT;
    CHECK_STATUS(samrt_memory_policy_parse("samurai", &p), SAMRT_OK);
    CHECK(p == SAMRT_MEMORY_SAMURAI);
    CHECK_STATUS(samrt_memory_policy_parse("sam2", &p), SAMRT_OK);
    CHECK(p == SAMRT_MEMORY_SAM2);
    CHECK_STATUS(samrt_memory_policy_parse("SAMURAI", &p), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_memory_policy_parse(NULL, &p), SAMRT_E_INVALID_ARG);
    CHECK(strcmp(samrt_memory_policy_name(SAMRT_MEMORY_SAMURAI), "samurai") == 0);
}

struct run {
    int n_sel[N_FRAMES], sel[N_FRAMES][SAMRT_TRACK_MAX_SEL_MEM], index[N_FRAMES], admit[N_FRAMES];
    uint8_t mask[N_FRAMES][W * H];
};

static void record(samrt_engine_t e, int f, void *user) {
    struct run *r = (struct run *)user;
    const struct samrt_sam2_tracker *t = &samrt_sam2_of(e)->trk;
    r->n_sel[f] = f > 0 ? t->obj[0].pol.n_sel : 0;
    memcpy(r->sel[f], t->obj[0].pol.sel_frame, sizeof r->sel[f]);
    const float *d = t->policy.dec_host;
    r->index[f] = d ? (int)d[SAMRT_POLICY_DEC_INDEX] : -1;
    r->admit[f] = d ? (int)d[SAMRT_POLICY_DEC_ADMIT] : -1;
}

/* The occluded clip (sam2_track_util.h): the object hidden on frames 8..15. */
static void run_clip(const char *ckpt, enum samrt_memory_policy policy, struct run *r) {
    CHECK_STATUS(trk_policy_clip(ckpt, SIDE, policy, W, H, N_FRAMES, &r->mask[0][0], record, r), SAMRT_OK);
}

static void test_clip(const char *ckpt) {
    static struct run a, b, c;
    run_clip(ckpt, SAMRT_MEMORY_SAM2, &a);
    run_clip(ckpt, SAMRT_MEMORY_SAM2, &c);
    CHECK(memcmp(&a, &c, sizeof a) == 0);  /* deterministic */
    run_clip(ckpt, SAMRT_MEMORY_SAMURAI, &b);
    int differ = 0, admitted = 0;
    for (int f = 1; f < N_FRAMES; f++) {
        /* sam2: the conditioning frame, then frames max(1, f-6) .. f-1 */
        const int lo = f - 6 > 1 ? f - 6 : 1;
        CHECK_EQ_INT(a.n_sel[f], 1 + (f - lo));
        for (int i = 1; i < a.n_sel[f]; i++) CHECK_EQ_INT(a.sel[f][i], lo + i - 1);
        /* samurai: ascending, each t-1 or an admitted frame at least 2 after the first */
        CHECK(b.n_sel[f] >= 1 && b.sel[f][0] == 0);
        for (int i = 1; i < b.n_sel[f]; i++) {
            const int g = b.sel[f][i];
            CHECK(g > b.sel[f][i - 1] && g < f);
            CHECK_MSG(g == f - 1 || (g >= 2 && b.admit[g] == 1), "frame %d attends to frame %d", f, g);
        }
        CHECK(b.index[f] >= 1 && b.index[f] <= 3);
        differ += a.n_sel[f] != b.n_sel[f] || memcmp(a.sel[f], b.sel[f], sizeof(int) * (size_t)a.n_sel[f]) != 0;
        admitted += b.admit[f] == 1;
    }
    printf("occluded clip: samurai attends to other frames than sam2 on %d of %d frames, %d frames admitted\n", differ,
           N_FRAMES - 1, admitted);
    CHECK(differ > 0);
}

static void test_refused(const char *ckpt) {
    samrt_log_set(trk_quiet, NULL, SAMRT_LOG_ERROR);
    struct samrt_engine_params p = trk_params(SIDE, 1);
    samrt_engine_t e = NULL;
    p.memory = (enum samrt_memory_policy)7;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_E_INVALID_ARG);
    p.memory = SAMRT_MEMORY_SAMURAI;
    p.memory_kf_weight = 1.5;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_E_INVALID_ARG);
    p.memory_kf_weight = NAN;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_E_INVALID_ARG);
    p.memory_kf_weight = -0.1;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_E_INVALID_ARG);
    CHECK(e == NULL);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
}

int main(void) {
    test_filter();
    test_box();
    test_decide();
    test_bank();
    test_names();
    char path[] = "/tmp/samrt_test_policy_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_sam2_policy", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32), 0);
    test_refused(path);
    test_clip(path);
    unlink(path);
    return check_report("test_sam2_policy");
}
