/* sam2_track_util.h - shared pieces of the tracker tests (test_sam2_track*.c): the synthetic
 * frame (a bright box on a gradient, shifted right by `shift` pixels per frame), the engine
 * parameters of the host-pool tests, the two-object clip of the session tests, the occluded
 * clip of the memory-policy tests, and a log sink that drops the expected error messages.
 * Header-only, static. */
#ifndef SAMRT_TEST_SAM2_TRACK_UTIL_H
#define SAMRT_TEST_SAM2_TRACK_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "samrt.h"

static inline void trk_make_frame(uint8_t *rgb, int w, int h, int shift) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int in = x > 25 + shift && x < 55 + shift && y > 15 && y < 45;
            rgb[(y * w + x) * 3 + 0] = (uint8_t)(in ? 210 : 3 * x);
            rgb[(y * w + x) * 3 + 1] = (uint8_t)(in ? 30 : 4 * y);
            rgb[(y * w + x) * 3 + 2] = (uint8_t)((x + y * 3) & 255);
        }
}

/* Engine parameters of the host-pool tracker tests: CPU profile, f32, model side `side`,
 * k object slots. */
static inline struct samrt_engine_params trk_params(int side, int k) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = "cpu";
    p.precision = SAMRT_DTYPE_F32;
    p.imgsz = side;
    p.max_objects = k;
    return p;
}

/* The prompt-frame tests' two objects: a click at (40, 30) and the box (20, 10)-(60, 50). */
static inline void trk_two_prompts(struct samrt_object_prompt pr[2]) {
    memset(pr, 0, 2 * sizeof *pr);
    pr[0].n_clicks = 1;
    pr[0].clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    pr[1].has_box = 1;
    pr[1].box[0] = 20, pr[1].box[1] = 10, pr[1].box[2] = 60, pr[1].box[3] = 50;
}

/* Frame f of the two-object clip (test_sessions, test_sm_limit_cuda): frame 0 begins a w x h
 * video and prompts object 1 (the click), frame 2 prompts object 2 (the box); the frame is
 * drawn into rgb and pushed, res[0..1] receiving the results. */
static inline enum samrt_status trk_two_object_push(samrt_engine_t e, uint8_t *rgb, int w, int h, int f,
                                                    struct samrt_track_result res[2], int *n) {
    struct samrt_object_prompt pr[2];
    trk_two_prompts(pr);
    enum samrt_status st = SAMRT_OK;
    if (f == 0) st = samrt_engine_track_begin(e, w, h);
    if (st == SAMRT_OK && f == 0) st = samrt_engine_track_prompt(e, 1, &pr[0]);
    if (st == SAMRT_OK && f == 2) st = samrt_engine_track_prompt(e, 2, &pr[1]);
    if (st != SAMRT_OK) return st;
    trk_make_frame(rgb, w, h, f);
    const struct samrt_image img = {rgb, w, h, 3 * w};
    return samrt_engine_track_push(e, &img, 0, res, 2, n);
}

/* Frame f of the memory-policy tests' clip (an 80 x 60 video): trk_make_frame's box moving a
 * pixel every second frame, hidden by a grey occluder on frames 8..15. */
static inline void trk_occluded_frame(uint8_t *rgb, int w, int h, int f) {
    trk_make_frame(rgb, w, h, f / 2);
    if (f < 8 || f > 15) return;
    for (int y = 5; y < 55; y++)
        for (int x = 15; x < 75; x++) rgb[(y * w + x) * 3] = rgb[(y * w + x) * 3 + 1] = rgb[(y * w + x) * 3 + 2] = 128;
}

/* The occluded clip tracked by a host engine of memory policy `policy` (trk_params(side, 1)):
 * one object clicked at (40, 30) on frame 0; masks + f * w * h receives frame f's mask, and
 * after each push per_frame(e, f, user) records what the test looks at. Stops at the first
 * failing call and returns its status. */
static inline enum samrt_status trk_policy_clip(const char *ckpt, int side, enum samrt_memory_policy policy, int w,
                                                int h, int n_frames, uint8_t *masks,
                                                void (*per_frame)(samrt_engine_t e, int f, void *user), void *user) {
    struct samrt_engine_params p = trk_params(side, 1);
    p.memory = policy;
    samrt_engine_t e = NULL;
    enum samrt_status st = samrt_engine_init(ckpt, &p, &e);
    if (st != SAMRT_OK) return st;
    uint8_t *rgb = (uint8_t *)malloc((size_t)w * h * 3);
    struct samrt_object_prompt pr;
    memset(&pr, 0, sizeof pr);
    pr.n_clicks = 1;
    pr.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    st = rgb ? samrt_engine_track_begin(e, w, h) : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) st = samrt_engine_track_prompt(e, 1, &pr);
    for (int f = 0; f < n_frames && st == SAMRT_OK; f++) {
        trk_occluded_frame(rgb, w, h, f);
        const struct samrt_image img = {rgb, w, h, 3 * w};
        struct samrt_track_result res = {.mask = masks + (size_t)f * w * h};
        int n = 0;
        st = samrt_engine_track_push(e, &img, 0, &res, 1, &n);
        if (st == SAMRT_OK) per_frame(e, f, user);
    }
    free(rgb);
    samrt_engine_free(e);
    return st;
}

static inline void trk_quiet(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

#endif /* SAMRT_TEST_SAM2_TRACK_UTIL_H */
