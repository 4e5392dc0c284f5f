/* test_sam2_policy_dam.c - DAM4SAM's memory policy (kernels/sam2/policy_dam.h,
 * runtime/sam2/track_policy_dam.c) on the CPU: the gate's area median, window and timing, the
 * distractor test on small hand-made masks (one and two components, 8-connectivity, ties,
 * nothing outside the chosen mask), the box IoU as vot computes it, the DRM / RAM selection
 * and the slots over a hand-made sequence, and on a host engine with random weights an
 * occluded synthetic clip: sam2 attends to the last six frames as before, dam4sam to the
 * frames its rule gives (t - 1 or the newest visible frame, every 5th frame, DRM frames).
 * Run: ctest -R test_sam2_policy_dam */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "policy_dam.h"
#include "sam2.h"
#include "sam2_track_util.h"
#include "tracker.h"

#define W 80
#define H 60
#define SIDE 64
#define N_FRAMES 16

static void test_gate(void) {
    double st[SAMRT_POLICY_STATE] = {0}, r;
    CHECK_EQ_INT(samrt_dam_gate(st, 0.9f, 100, &r), 0);  /* the first tracked frame: no ratio */
    CHECK(r == -1.0 && st[SAMRT_DAM_N] == 1 && st[SAMRT_DAM_NZ] == 1);
    CHECK_EQ_INT(samrt_dam_gate(st, 0.9f, 100, &r), 1);  /* median {100, 100}: ratio 1 */
    CHECK(r == 1.0);
    float dec[SAMRT_POLICY_DEC_COLS];
    const float iou[4] = {0.5f, 0.9f, 0.2f, 0.1f};
    samrt_dam_finish(st, 1, iou, 3.0f, 100, r, 1, 1, 0.5, dec);
    CHECK(st[SAMRT_DAM_LAST] == 2 && dec[SAMRT_DAM_DEC_ADD] == 1.0f && dec[SAMRT_DAM_DEC_BOX_IOU] == 0.5f);
    /* frames 3..7: at most 5 frames since the addition */
    for (int f = 3; f <= 7; f++) CHECK_EQ_INT(samrt_dam_gate(st, 0.9f, 100, &r), 0);
    CHECK_EQ_INT(samrt_dam_gate(st, 0.9f, 100, &r), 1);  /* frame 8: 8 - 2 > 5 */
    CHECK_EQ_INT(samrt_dam_gate(st, 0.8f, 100, &r), 0);  /* 0.8 is not > 0.8 (f32) */
    CHECK_EQ_INT(samrt_dam_gate(st, 0.9f, 0, &r), 0);    /* empty: not pushed, no ratio */
    CHECK(r == -1.0 && st[SAMRT_DAM_NZ] == 9);
    /* ten values {100 x 9, 130}: median 100 */
    CHECK_EQ_INT(samrt_dam_gate(st, 0.9f, 130, &r), 0);  /* ratio 130 / 100 = 1.3 */
    CHECK(r == 1.3);
    memset(st, 0, sizeof st);  /* {100, 100, 110, 130} -> (100 + 110) / 2 = 105 */
    const int areas[4] = {100, 100, 130, 110};
    for (int i = 0; i < 4; i++) samrt_dam_gate(st, 0.9f, areas[i], &r);
    CHECK(r == 110.0 / 105.0);
    /* the ring keeps the last 10: twelve pushes, the first two (1000) are gone */
    memset(st, 0, sizeof st);
    for (int i = 0; i < 12; i++) samrt_dam_gate(st, 0.9f, i < 2 ? 1000 : 100 + i, &r);
    CHECK(r == 111.0 / 106.5);  /* {102 .. 111}: (106 + 107) / 2 */
    /* the 300-entry window: a size pushed at entry 1 is out at entry 401 */
    memset(st, 0, sizeof st);
    st[SAMRT_DAM_N] = 400, st[SAMRT_DAM_NZ] = 2;
    st[SAMRT_DAM_AREA + 0] = 1000, st[SAMRT_DAM_AT + 0] = 1;
    st[SAMRT_DAM_AREA + 1] = 100, st[SAMRT_DAM_AT + 1] = 400;
    CHECK_EQ_INT(samrt_dam_gate(st, 0.9f, 100, &r), 1);
    CHECK(r == 1.0);
    st[SAMRT_DAM_N] = 100, st[SAMRT_DAM_AT + 1] = 100;  /* all within 300: {1000, 100, 100, 100} */
    samrt_dam_gate(st, 0.9f, 100, &r);
    CHECK(r == 1.0);
}

static void test_box_iou(void) {
    const int32_t c[4] = {1, 1, 2, 2}, u[4] = {1, 1, 6, 6}, line_a[4] = {3, 1, 3, 4}, line_b[4] = {3, 0, 3, 5};
    CHECK(samrt_dam_box_iou(c, u) == 4.0 / 36.0);
    CHECK(samrt_dam_box_iou(c, c) == 1.0);
    CHECK(samrt_dam_box_iou(line_a, line_b) == 0.0);  /* vot: a one-pixel-wide raster is 0 */
    const int32_t a[4] = {0, 0, 3, 3}, b[4] = {2, 2, 5, 5};  /* 4 / (16 + 16 - 4) */
    CHECK(samrt_dam_box_iou(a, b) == 4.0 / 28.0);
}

#define L 8
static void set_px(float *m, int x, int y) { m[y * L + x] = 1.0f; }

static void test_components(void) {
    float chosen[L * L], alt[L * L];
    int32_t labels[2 * L * L], box[4];
    for (int i = 0; i < L * L; i++) chosen[i] = alt[i] = -1.0f;
    for (int y = 1; y <= 2; y++)
        for (int x = 1; x <= 2; x++) set_px(chosen, x, y), set_px(alt, x, y);
    const int32_t cbox[4] = {1, 1, 2, 2};
    /* inside the chosen mask only: nothing to test */
    CHECK_EQ_INT(samrt_policy_dam_alt_box_ref(chosen, alt, L, cbox, labels, box), 0);
    /* one component (5,5)-(6,6) and a lone pixel (0,7): the component */
    for (int y = 5; y <= 6; y++)
        for (int x = 5; x <= 6; x++) set_px(alt, x, y);
    set_px(alt, 0, 7);
    CHECK_EQ_INT(samrt_policy_dam_alt_box_ref(chosen, alt, L, cbox, labels, box), 1);
    CHECK(box[0] == 1 && box[1] == 1 && box[2] == 6 && box[3] == 6);
    /* two components of 4: the first in raster order, (5,0)-(6,1) before (5,5)-(6,6) */
    for (int y = 0; y <= 1; y++)
        for (int x = 5; x <= 6; x++) set_px(alt, x, y);
    CHECK_EQ_INT(samrt_policy_dam_alt_box_ref(chosen, alt, L, cbox, labels, box), 1);
    CHECK(box[0] == 1 && box[1] == 0 && box[2] == 6 && box[3] == 2);
    /* 8-connectivity: a diagonal (0,3) .. (4,7) joins the lower block at its corner: 9 pixels */
    for (int i = 0; i < 5; i++) set_px(alt, i, 3 + i);
    CHECK_EQ_INT(samrt_policy_dam_alt_box_ref(chosen, alt, L, cbox, labels, box), 1);
    CHECK(box[0] == 0 && box[1] == 1 && box[2] == 6 && box[3] == 7);
}

/* The whole decision on one object: masks 1 (chosen), 2 (a distractor far off) and 3 (the
 * chosen mask grown by one pixel). */
static void test_decision(void) {
    static float masks[4 * L * L];
    for (int i = 0; i < 4 * L * L; i++) masks[i] = -1.0f;
    float *m1 = masks + L * L, *m2 = masks + 2 * L * L, *m3 = masks + 3 * L * L;
    for (int y = 1; y <= 2; y++)
        for (int x = 1; x <= 2; x++) set_px(m1, x, y), set_px(m2, x, y);
    for (int y = 1; y <= 3; y++)
        for (int x = 1; x <= 3; x++) set_px(m3, x, y);
    set_px(m2, 6, 6);
    const float iou[4] = {0.3f, 0.95f, 0.5f, 0.4f}, score = 2.0f;
    double st[SAMRT_POLICY_STATE] = {0};
    int32_t labels[2 * L * L];
    float dec[SAMRT_POLICY_DEC_COLS];
    struct samrt_policy_dam_args a = {.n_obj = 1, .low = L, .masks = masks, .iou = iou, .score = &score,
                                      .state = st, .labels = labels, .dec = dec};
    a.code[0] = SAMRT_POLICY_RESTART;
    CHECK_STATUS(samrt_policy_dam4sam_ref(&a), SAMRT_OK);  /* the first tracked frame: no ratio */
    CHECK(dec[SAMRT_DAM_DEC_INDEX] == 1 && dec[SAMRT_DAM_DEC_AREA] == 4 && dec[SAMRT_DAM_DEC_ADD] == 0);
    CHECK(dec[SAMRT_DAM_DEC_TESTED] == 0 && dec[SAMRT_DAM_DEC_BOX_IOU] == -1.0f);
    a.code[0] = SAMRT_POLICY_RUN;
    CHECK_STATUS(samrt_policy_dam4sam_ref(&a), SAMRT_OK);
    /* mask 2: (6,6) -> box (1,1)-(6,6), IoU 4/36; mask 3: (1..3)^2 minus the chosen, one
     * L-shaped component -> box (1,1)-(3,3), IoU 4/9; the least 1/9 <= 0.7: added */
    CHECK(dec[SAMRT_DAM_DEC_TESTED] == 2 && dec[SAMRT_DAM_DEC_ADD] == 1.0f);
    CHECK(dec[SAMRT_DAM_DEC_BOX_IOU] == (float)(4.0 / 36.0) && dec[SAMRT_DAM_DEC_RATIO] == 1.0f);
    CHECK(st[SAMRT_DAM_LAST] == 2);
    /* the next frame is too close to the addition */
    CHECK_STATUS(samrt_policy_dam4sam_ref(&a), SAMRT_OK);
    CHECK(dec[SAMRT_DAM_DEC_TESTED] == 0 && dec[SAMRT_DAM_DEC_ADD] == 0);
    /* mask 3 equal to the chosen one (nothing outside it), mask 2 one pixel beside it: one
     * alternative tested, box (1,1)-(3,2), IoU 4/6 <= 0.7 */
    st[SAMRT_DAM_LAST] = 0;
    m2[6 * L + 6] = -1.0f;
    for (int i = 0; i < L * L; i++) m3[i] = m1[i];
    set_px(m2, 3, 2);
    CHECK_STATUS(samrt_policy_dam4sam_ref(&a), SAMRT_OK);
    CHECK(dec[SAMRT_DAM_DEC_TESTED] == 1 && dec[SAMRT_DAM_DEC_BOX_IOU] == (float)(4.0 / 6.0));
    CHECK(dec[SAMRT_DAM_DEC_ADD] == 1.0f);
    /* a negative object score: nothing visible, nothing added */
    const float gone = -0.5f;
    a.score = &gone;
    CHECK_STATUS(samrt_policy_dam4sam_ref(&a), SAMRT_OK);
    CHECK(dec[SAMRT_DAM_DEC_AREA] == 0 && dec[SAMRT_DAM_DEC_ADD] == 0 && dec[SAMRT_DAM_DEC_RATIO] == -1.0f);
}
#undef L

/* Prompt frame 0, frames 1..40 tracked; DRM additions at 12 and 20; frames 30..33 hidden. */
static void test_bank(void) {
    struct samrt_sam2_track_policy pol = {.kind = SAMRT_MEMORY_DAM4SAM};
    struct samrt_track_bank b;
    struct samrt_track_policy_obj po;
    samrt_track_bank_reset(&b);
    samrt_sam2_track_policy_obj_reset(&po);
    int ms, ps;
    samrt_track_bank_add_cond(&b, 0, &ms, &ps);
    struct samrt_track_selection sel;
    for (int t = 1; t <= 40; t++) {
        samrt_sam2_track_policy_select(&pol, &b, &po, t, 0, &sel);
        CHECK(sel.n_mem >= 1 && sel.n_mem <= SAMRT_TRACK_NUM_MASKMEM);
        if (t == 3) {  /* 0, then 2; ((2 - 1) // 5) * 5 = 0: nothing more */
            CHECK_EQ_INT(sel.n_mem, 2);
            CHECK(sel.mem_frame[1] == 2 && sel.mem_tpos[1] == 0 && sel.max_ptr == 4 && sel.n_ptr == 3);
        }
        if (t == 21) {  /* DRM 12, 0; RAM 5, 10, 15, 20 (t - 1, a DRM frame itself) */
            const int want[6] = {12, 0, 5, 10, 15, 20}, tpos[6] = {6, 6, 3, 2, 1, 0};
            CHECK_EQ_INT(sel.n_mem, 6);
            for (int i = 0; i < 6 && sel.n_mem == 6; i++) {
                CHECK_EQ_INT(sel.mem_frame[i], want[i]);
                CHECK_EQ_INT(sel.mem_tpos[i], tpos[i]);
            }
        }
        if (t == 23) {  /* DRM 20, 0, 12; RAM 22, then 15 (20 is DRM), 10, 5 */
            const int want[7] = {20, 0, 12, 5, 10, 15, 22}, tpos[7] = {6, 6, 6, 3, 2, 1, 0};
            CHECK_EQ_INT(sel.n_mem, 7);
            for (int i = 0; i < 7 && sel.n_mem == 7; i++) {
                CHECK_EQ_INT(sel.mem_frame[i], want[i]);
                CHECK_EQ_INT(sel.mem_tpos[i], tpos[i]);
            }
        }
        if (t == 34) {  /* 33 .. 30 hidden: RAM 29, 25, 15 (20 is DRM), 10 */
            const int want[7] = {20, 0, 12, 10, 15, 25, 29};
            CHECK_EQ_INT(sel.n_mem, 7);
            for (int i = 0; i < 7 && sel.n_mem == 7; i++) CHECK_EQ_INT(sel.mem_frame[i], want[i]);
            /* pointers: 20 (d 14), 0 (d 34; 12's left the ring), then 29 .. 21 and 19 */
            CHECK_EQ_INT(sel.n_ptr, 12);
            CHECK(sel.ptr_frame[0] == 20 && sel.ptr_dist[0] == 14 && sel.ptr_frame[1] == 0 && sel.ptr_dist[1] == 34);
            CHECK(sel.ptr_frame[2] == 29 && sel.ptr_frame[11] == 19 && sel.max_ptr == 16);
        }
        samrt_sam2_track_policy_add_tracked(&pol, &b, &po, t, &ms, &ps);
        CHECK(ms >= 0 && ms < SAMRT_TRACK_MEM_SLOTS && ms != SAMRT_TRACK_RING && ps == t % SAMRT_TRACK_PTR_RING);
        samrt_sam2_track_dam_decided(&po, t, t < 30 || t > 33, t == 12 || t == 20);
    }
    CHECK_EQ_INT(po.n_drm, 2);
}

static void test_names(void) {
    enum samrt_memory_policy p = SAMRT_MEMORY_POLICY_COUNT;
    CHECK_STATUS(samrt_memory_policy_parse("dam4sam", &p), SAMRT_OK);
    CHECK(p == SAMRT_MEMORY_DAM4SAM);
    CHECK(strcmp(samrt_memory_policy_name(SAMRT_MEMORY_DAM4SAM), "dam4sam") == 0);
    CHECK_STATUS(samrt_memory_policy_parse("DAM4SAM", &p), SAMRT_E_INVALID_ARG);
}

struct run {
    int n_sel[N_FRAMES], sel[N_FRAMES][SAMRT_TRACK_MAX_SEL_MEM];
    int area[N_FRAMES], add[N_FRAMES];
    uint8_t mask[N_FRAMES][W * H];
};

static void record(samrt_engine_t e, int f, void *user) {
    struct run *r = (struct run *)user;
    const struct samrt_sam2_tracker *t = &samrt_sam2_of(e)->trk;
    r->n_sel[f] = f > 0 ? t->obj[0].pol.n_sel : 0;
    memcpy(r->sel[f], t->obj[0].pol.sel_frame, sizeof r->sel[f]);
    const float *d = t->policy.dec_host;
    r->area[f] = d && f > 0 ? (int)d[SAMRT_DAM_DEC_AREA] : -1;
    r->add[f] = d && f > 0 ? (int)d[SAMRT_DAM_DEC_ADD] : 0;
}

/* The occluded clip (sam2_track_util.h): the object hidden on frames 8..15. */
static void run_clip(const char *ckpt, enum samrt_memory_policy policy, struct run *r) {
    CHECK_STATUS(trk_policy_clip(ckpt, SIDE, policy, W, H, N_FRAMES, &r->mask[0][0], record, r), SAMRT_OK);
}

/* 1 when frame g may be a RAM frame of frame f by the rule: t - 1 when visible, else a visible
 * frame with only hidden or DRM frames between it and t - 1; or a visible non-DRM frame at a
 * multiple of 5. */
static int ram_ok(const struct run *r, int f, int g) {
    if (g == f - 1) return r->area[g] >= 1;
    if (r->area[g] < 1 || r->add[g]) return 0;
    if (g % 5 == 0) return 1;
    for (int h = g + 1; h < f; h++)
        if (r->area[h] >= 1 && !r->add[h]) return 0;
    return 1;
}

static void test_clip(const char *ckpt) {
    static struct run a, b;
    run_clip(ckpt, SAMRT_MEMORY_SAM2, &a);
    run_clip(ckpt, SAMRT_MEMORY_DAM4SAM, &b);
    int differ = 0, adds = 0, hidden = 0;
    for (int f = 1; f < N_FRAMES; f++) {
        const int lo = f - 6 > 1 ? f - 6 : 1;  /* sam2: the prompt frame, then max(1, f-6) .. f-1 */
        CHECK_EQ_INT(a.n_sel[f], 1 + (f - lo));
        for (int i = 1; i < a.n_sel[f]; i++) CHECK_EQ_INT(a.sel[f][i], lo + i - 1);
        /* dam4sam: the prompt frame first, the DRM frames, then the RAM frames ascending */
        CHECK(b.n_sel[f] >= 1 && b.n_sel[f] <= SAMRT_TRACK_NUM_MASKMEM && b.sel[f][0] == 0);
        for (int i = 1; i < b.n_sel[f]; i++) {
            const int g = b.sel[f][i];
            CHECK(g > 0 && g < f);
            CHECK_MSG(b.add[g] || ram_ok(&b, f, g), "frame %d attends to frame %d", f, g);
        }
        differ += a.n_sel[f] != b.n_sel[f] || memcmp(a.sel[f], b.sel[f], sizeof(int) * (size_t)a.n_sel[f]) != 0;
        adds += b.add[f];
        hidden += b.area[f] == 0;
    }
    printf("occluded clip: dam4sam attends to other frames than sam2 on %d of %d frames; %d DRM additions, "
           "%d frames without the object\n", differ, N_FRAMES - 1, adds, hidden);
    CHECK(differ > 0);
}

int main(void) {
    test_gate();
    test_box_iou();
    test_components();
    test_decision();
    test_bank();
    test_names();
    char path[] = "/tmp/samrt_test_policy_dam_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_sam2_policy_dam", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32), 0);
    test_clip(path);
    unlink(path);
    return check_report("test_sam2_policy_dam");
}
