/* test_sam2_track_bank.c - the memory bank selection rules of SAM 2.1 tracking (model-spec
 * 4.3, 4.4) against a naive model of the official dictionaries: every frame's output is kept
 * in two unbounded "dicts" (cond / non-cond, as the official predictor does), and the
 * expected selection is computed from them with the official loops written out literally.
 * The bank, which keeps only fixed rings, must select the same frames with the same tpos
 * indices and pointer distances. Scenario of the task: prompts on frame 0, a correction on
 * frame 9, frames 1..20; an object added on frame 5; more prompts than the cap; short videos.
 * Run: ctest -R test_sam2_track_bank. */
#include <string.h>

#include "check.h"
#include "track_bank.h"

#define N_FRAMES 64

/* The official state: which frames are conditioning / tracked outputs (unbounded). */
struct dicts {
    int cond[N_FRAMES], non_cond[N_FRAMES];
    int cond_order[N_FRAMES], n_cond;
};

/* Expected selection, the official loops (stride 1, forward, no cond limit). */
static void naive_select(const struct dicts *d, int t, int num_frames, struct samrt_track_selection *want) {
    memset(want, 0, sizeof *want);
    for (int i = 0; i < d->n_cond; i++) {
        want->mem_frame[want->n_mem] = d->cond_order[i];
        want->mem_tpos[want->n_mem++] = 6;
    }
    for (int t_pos = 1; t_pos < 7; t_pos++) {
        int t_rel = 7 - t_pos;
        int prev = t_rel == 1 ? t - 1 : ((t - 2) / 1) * 1 - (t_rel - 2);
        if (prev < 0 || !d->non_cond[prev]) continue;
        want->mem_frame[want->n_mem] = prev;
        want->mem_tpos[want->n_mem++] = 7 - t_pos - 1;
    }
    if (num_frames <= 0) num_frames = 1 << 30;  /* unknown length: the bank assumes >= 16 */
    int max_ptr = num_frames < 16 ? num_frames : 16;
    want->max_ptr = max_ptr;
    for (int i = 0; i < d->n_cond; i++) {
        int c = d->cond_order[i];
        if (c > t) continue;
        want->ptr_frame[want->n_ptr] = c;
        want->ptr_dist[want->n_ptr++] = t - c;
    }
    for (int td = 1; td < max_ptr; td++) {
        int f = t - td;
        if (f < 0 || f >= num_frames) break;
        if (!d->non_cond[f]) continue;
        want->ptr_frame[want->n_ptr] = f;
        want->ptr_dist[want->n_ptr++] = td;
    }
}

/* Compares frames/tpos/distances, and that every selected slot holds the frame claimed
 * (slot_frame: what the test wrote into each slot when the bank handed it out). */
static void check_selection(const char *what, int t, const struct samrt_track_selection *got,
                            const struct samrt_track_selection *want, const int *mem_slot_frame,
                            const int *ptr_slot_frame) {
    CHECK_MSG(got->n_mem == want->n_mem, "%s t=%d: %d memories, want %d", what, t, got->n_mem, want->n_mem);
    CHECK_MSG(got->n_ptr == want->n_ptr, "%s t=%d: %d pointers, want %d", what, t, got->n_ptr, want->n_ptr);
    CHECK_EQ_INT(got->max_ptr, want->max_ptr);
    for (int i = 0; i < got->n_mem && i < want->n_mem; i++) {
        CHECK_MSG(got->mem_frame[i] == want->mem_frame[i] && got->mem_tpos[i] == want->mem_tpos[i],
                  "%s t=%d mem %d: frame %d tpos %d, want frame %d tpos %d", what, t, i, got->mem_frame[i],
                  got->mem_tpos[i], want->mem_frame[i], want->mem_tpos[i]);
        CHECK_MSG(mem_slot_frame[got->mem_slot[i]] == got->mem_frame[i], "%s t=%d: slot %d holds %d, not %d", what,
                  t, got->mem_slot[i], mem_slot_frame[got->mem_slot[i]], got->mem_frame[i]);
    }
    for (int i = 0; i < got->n_ptr && i < want->n_ptr; i++) {
        CHECK_MSG(got->ptr_frame[i] == want->ptr_frame[i] && got->ptr_dist[i] == want->ptr_dist[i],
                  "%s t=%d ptr %d: frame %d dist %d, want frame %d dist %d", what, t, i, got->ptr_frame[i],
                  got->ptr_dist[i], want->ptr_frame[i], want->ptr_dist[i]);
        CHECK_MSG(ptr_slot_frame[got->ptr_slot[i]] == got->ptr_frame[i], "%s t=%d: ptr slot %d holds %d, not %d",
                  what, t, got->ptr_slot[i], ptr_slot_frame[got->ptr_slot[i]], got->ptr_frame[i]);
    }
}

/* Streams frames first..last of one object; prompt_at[t] marks prompted frames. */
static void run_scenario(const char *what, int first, int last, const int *prompt_at, int num_frames) {
    struct samrt_track_bank b;
    samrt_track_bank_reset(&b);
    struct dicts d;
    memset(&d, 0, sizeof d);
    int mem_slot_frame[SAMRT_TRACK_MEM_SLOTS], ptr_slot_frame[SAMRT_TRACK_PTR_SLOTS];
    for (int i = 0; i < SAMRT_TRACK_MEM_SLOTS; i++) mem_slot_frame[i] = -1;
    for (int i = 0; i < SAMRT_TRACK_PTR_SLOTS; i++) ptr_slot_frame[i] = -1;
    for (int t = first; t <= last; t++) {
        int ms, ps;
        if (prompt_at[t]) {  /* an initial conditioning frame: no memory attention */
            samrt_track_bank_add_cond(&b, t, &ms, &ps);
            d.cond[t] = 1;
            d.cond_order[d.n_cond++] = t;
            CHECK(samrt_track_bank_is_cond(&b, t));
            CHECK(ms >= SAMRT_TRACK_RING && ms < SAMRT_TRACK_MEM_SLOTS);
            CHECK(ps >= SAMRT_TRACK_PTR_RING && ps < SAMRT_TRACK_PTR_SLOTS);
        } else {
            struct samrt_track_selection got, want;
            samrt_track_bank_select(&b, t, num_frames, &got);
            naive_select(&d, t, num_frames, &want);
            check_selection(what, t, &got, &want, mem_slot_frame, ptr_slot_frame);
            samrt_track_bank_add_tracked(&b, t, &ms, &ps);
            d.non_cond[t] = 1;
            CHECK(ms >= 0 && ms < SAMRT_TRACK_RING && ps >= 0 && ps < SAMRT_TRACK_PTR_RING);
        }
        mem_slot_frame[ms] = t;
        ptr_slot_frame[ps] = t;
    }
}

/* Hand-checked values of the task's scenario (independent of the naive model). */
static void test_hand_checked(void) {
    struct samrt_track_bank b;
    samrt_track_bank_reset(&b);
    int ms, ps;
    struct samrt_track_selection s;
    samrt_track_bank_add_cond(&b, 0, &ms, &ps);
    samrt_track_bank_select(&b, 1, 0, &s);  /* frame 1: only the prompt frame, tpos 6, ptr dist 1 */
    CHECK_EQ_INT(s.n_mem, 1);
    CHECK_EQ_INT(s.mem_frame[0], 0);
    CHECK_EQ_INT(s.mem_tpos[0], 6);
    CHECK_EQ_INT(s.n_ptr, 1);
    CHECK_EQ_INT(s.ptr_dist[0], 1);
    for (int t = 1; t <= 8; t++) {
        samrt_track_bank_select(&b, t, 0, &s);
        const int want = 1 + (t - 1 < 6 ? t - 1 : 6);  /* frame k has 1 + (k-1) memories, then 7 */
        CHECK_MSG(s.n_mem == want, "t=%d: %d memories, want %d", t, s.n_mem, want);
        samrt_track_bank_add_tracked(&b, t, &ms, &ps);
    }
    samrt_track_bank_add_cond(&b, 9, &ms, &ps);  /* correction on frame 9 */
    samrt_track_bank_add_tracked(&b, 10, &ms, &ps);
    samrt_track_bank_add_tracked(&b, 11, &ms, &ps);
    samrt_track_bank_select(&b, 12, 0, &s);
    /* cond 0, 9 (tpos 6); t-6..t-1 = 6,7,8,[9 cond],10,11 -> tpos 5,4,3,-,1,0 */
    const int frames[] = {0, 9, 6, 7, 8, 10, 11}, tpos[] = {6, 6, 5, 4, 3, 1, 0};
    CHECK_EQ_INT(s.n_mem, 7);
    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT(s.mem_frame[i], frames[i]);
        CHECK_EQ_INT(s.mem_tpos[i], tpos[i]);
    }
    /* pointers: cond 0 (12), 9 (3), then 11, 10, 8..1 (9 skipped) */
    CHECK_EQ_INT(s.n_ptr, 2 + 10);
    CHECK_EQ_INT(s.ptr_dist[0], 12);
    CHECK_EQ_INT(s.ptr_dist[1], 3);
    CHECK_EQ_INT(s.ptr_frame[2], 11);
    CHECK_EQ_INT(s.ptr_frame[4], 8);
    CHECK_EQ_INT(s.ptr_frame[11], 1);
}

static void test_scenarios(void) {
    int p[N_FRAMES];
    memset(p, 0, sizeof p);
    p[0] = p[9] = 1;
    run_scenario("prompt 0 + correction 9", 0, 20, p, 0);
    run_scenario("prompt 0 + correction 9, 40 frames", 0, 40, p, N_FRAMES);
    memset(p, 0, sizeof p);
    p[5] = 1;
    run_scenario("object added on frame 5", 5, 40, p, 200);
    memset(p, 0, sizeof p);
    p[0] = 1;
    run_scenario("short video (4 frames)", 0, 3, p, 4);
    run_scenario("short video (10 frames)", 0, 9, p, 10);
    memset(p, 0, sizeof p);
    for (int k = 0; k < SAMRT_TRACK_MAX_COND; k++) p[k == 0 ? 0 : 3 + 17 * k] = 1;  /* at the cap: exact */
    run_scenario("prompts at the cap", 0, 45, p, 0);
}

/* Beyond the cap the oldest conditioning frame goes; the rest stays in prompt order. */
static void test_cap(void) {
    struct samrt_track_bank b;
    samrt_track_bank_reset(&b);
    int ms, ps, first_ms = -1;
    for (int k = 0; k < SAMRT_TRACK_MAX_COND + 2; k++) {
        int t = 10 * k;
        samrt_track_bank_add_cond(&b, t, &ms, &ps);
        if (k == 0) first_ms = ms;
        if (k == SAMRT_TRACK_MAX_COND) CHECK_EQ_INT(ms, first_ms);  /* the evicted frame's slot */
        for (int u = t + 1; u < t + 10; u++) samrt_track_bank_add_tracked(&b, u, &ms, &ps);
    }
    CHECK_EQ_INT(b.n_cond, SAMRT_TRACK_MAX_COND);
    CHECK_EQ_INT(b.n_evicted, 2);
    struct samrt_track_selection s;
    samrt_track_bank_select(&b, 10 * (SAMRT_TRACK_MAX_COND + 2), 0, &s);
    for (int i = 0; i < SAMRT_TRACK_MAX_COND; i++) CHECK_EQ_INT(s.mem_frame[i], 20 + 10 * i);
    CHECK_EQ_INT(s.n_mem, SAMRT_TRACK_MAX_COND + 6);
    CHECK(!samrt_track_bank_is_cond(&b, 0));
    /* the same frame prompted twice keeps one slot */
    samrt_track_bank_reset(&b);
    samrt_track_bank_add_cond(&b, 3, &ms, &ps);
    int ms2, ps2;
    samrt_track_bank_add_cond(&b, 3, &ms2, &ps2);
    CHECK_EQ_INT(b.n_cond, 1);
    CHECK_EQ_INT(ms, ms2);
    CHECK_EQ_INT(ps, ps2);
}

/* The bank's storage is fixed: after 10^5 frames the same struct, the same selection size. */
static void test_fixed_size(void) {
    struct samrt_track_bank b;
    samrt_track_bank_reset(&b);
    int ms, ps;
    samrt_track_bank_add_cond(&b, 0, &ms, &ps);
    int max_slot = 0;
    for (int t = 1; t < 100000; t++) {
        samrt_track_bank_add_tracked(&b, t, &ms, &ps);
        if (ms > max_slot) max_slot = ms;
    }
    struct samrt_track_selection s;
    samrt_track_bank_select(&b, 100000, 0, &s);
    CHECK_EQ_INT(s.n_mem, 7);
    CHECK_EQ_INT(s.n_ptr, 16);
    CHECK_EQ_INT(s.ptr_dist[0], 100000);
    CHECK(max_slot < SAMRT_TRACK_RING);
}

/* get_1d_sine_pe by hand: p = d / 15; k = 0: sin(p), k = 128: cos(p); k = 2: sin(p / 10000^(2/128)). */
static void test_sine(void) {
    float e[256];
    samrt_track_ptr_sine(3, 16, e);
    const double p = 3.0 / 15.0;
    CHECK_NEAR(e[0], sin(p), 1e-6);
    CHECK_NEAR(e[1], sin(p), 1e-6);
    CHECK_NEAR(e[128], cos(p), 1e-6);
    CHECK_NEAR(e[2], sin(p / pow(10000.0, 2.0 / 128.0)), 1e-6);
    CHECK_NEAR(e[255], cos(p / pow(10000.0, 126.0 / 128.0)), 1e-6);
}

int main(void) {
    test_hand_checked();
    test_scenarios();
    test_cap();
    test_fixed_size();
    test_sine();
    return check_report("test_sam2_track_bank");
}
