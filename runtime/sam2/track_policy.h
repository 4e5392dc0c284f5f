/* track_policy.h - the tracker's memory-selection policy (samrt.h enum samrt_memory_policy,
 * docs/tracking.md), per object: which of the three candidate masks a tracked frame keeps and
 * which past frames enter each object's memory. Everything a policy needs lives here, beside
 * the per-object bank (track_bank.h): its arena state and the frame's decisions, the launch
 * of its kernels (kernels/sam2/policy.h through ops_policy.h) and its bank rules.
 *
 *   sam2     the official predictor: the best predicted IoU, the last six frames. Plans nothing,
 *            launches nothing: a sam2 engine runs exactly as before.
 *   samurai  (github.com/yangchris11/samurai) per object a Kalman filter picks among the three
 *            candidates (policy.h) inside the frame's graph; the decisions come back with the
 *            frame's other downloads (no extra sync). A tracked frame enters the memory when its
 *            predicted IoU > 0.5 and its object score > 0; frame t attends to the last six of
 *            {admitted frames at least two frames after the object's first} + {t - 1}, so an
 *            object's memory slots hold other frames than its neighbours': the frame's memories
 *            are scattered per object (own_slots). Object pointers stay the last 15 frames.
 * Known difference from the official code: its pointer comes from the chosen mask's token and
 * its gate is score > -1; here the heads give the pointer of the best-IoU token gated at
 * score > 0 (the heads keep no other token), so the pointer differs on frames where the
 * filter overrides the IoU choice or the score is in (-1, 0]. The masks and memories follow
 * the official choice.
 * Debug: SAMRT_TRACK_DECISIONS=FILE (read at track_begin) writes one line per object and frame:
 * the chosen mask, its IoU, score, KF IoU, admission and the memory frames attended to.
 * Tests: tests/test_sam2_policy.c. */
#ifndef SAMRT_SAM2_TRACK_POLICY_H
#define SAMRT_SAM2_TRACK_POLICY_H

#include <stdio.h>

#include "engine_limits.h"
#include "ops.h"
#include "ops_policy.h"
#include "track_bank.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;
struct samrt_sam2;
struct samrt_sam2_tracker;

/* The per-object host side of the policy. */
struct samrt_track_policy_obj {
    int restart;                                  /* 1: the next launch forgets the filter (a new object) */
    int n_sel;                                    /* memory frames attended to on the last frame */
    int sel_frame[SAMRT_TRACK_MAX_SEL_MEM];
    uint8_t ring_ok[SAMRT_TRACK_RING];            /* samurai: the ring slot's frame was admitted */
};

struct samrt_sam2_track_policy {
    enum samrt_memory_policy kind;
    struct samrt_samurai_params p;
    struct samrt_tensor state;                    /* (K * STATE * 8) u8 = f64 [state] */
    struct samrt_tensor boxes;                    /* (K, 3, 4) i32 [staging] */
    struct samrt_tensor dec;                      /* (K, DEC_COLS) f32 [staging] */
    int slot_state, slot_boxes, slot_dec;
    float *dec_host;                              /* (K, DEC_COLS) (prepare) */
    int have_dec;                                 /* dec_host holds this frame's decisions */
    FILE *dump;                                   /* SAMRT_TRACK_DECISIONS */
};

/* Checks the engine's memory / memory_kf_weight parameters (SAMRT_E_INVALID_ARG with the
 * reason) and plans the policy's slots. */
enum samrt_status samrt_sam2_track_policy_plan(struct samrt_engine *e, struct samrt_sam2 *m);
enum samrt_status samrt_sam2_track_policy_prepare(struct samrt_engine *e, struct samrt_sam2 *m);
void samrt_sam2_track_policy_free(struct samrt_sam2_track_policy *pol);
/* A new video: the decision dump (SAMRT_TRACK_DECISIONS). */
enum samrt_status samrt_sam2_track_policy_begin(struct samrt_sam2_track_policy *pol);
/* A new object. */
void samrt_sam2_track_policy_obj_reset(struct samrt_track_policy_obj *po);

/* 1 when tracked objects' memories go to per-object slots (not one ring block per frame). */
static inline int samrt_sam2_track_policy_own_slots(const struct samrt_sam2_track_policy *pol) {
    return pol->kind == SAMRT_MEMORY_SAMURAI;
}

/* Bank rules of the policy: the selection of frame t and the slots of tracked frame t. */
void samrt_sam2_track_policy_select(const struct samrt_sam2_track_policy *pol, const struct samrt_track_bank *b,
                                    struct samrt_track_policy_obj *po, int t, int num_frames,
                                    struct samrt_track_selection *sel);
void samrt_sam2_track_policy_add_tracked(const struct samrt_sam2_track_policy *pol, struct samrt_track_bank *b,
                                         struct samrt_track_policy_obj *po, int t, int *mem_slot, int *ptr_slot);

/* Frame t of an object (first: its first frame) was decided admissible (SAMURAI: predicted IoU
 * > 0.5 and score > 0): it may be selected later when it is at least two frames after the first. */
void samrt_sam2_track_policy_admit(const struct samrt_sam2_track_policy *pol, const struct samrt_track_bank *b,
                                   struct samrt_track_policy_obj *po, int t, int first_frame, int admitted);

/* The launch code of an object for the frame (SAMRT_POLICY_SKIP / RUN / RESTART): runs picks
 * the frames whose heads chose among three candidates (tracked, or one click). */
uint8_t samrt_sam2_track_policy_code(const struct samrt_sam2_track_policy *pol, struct samrt_track_policy_obj *po,
                                     int runs);
/* The policy's kernels for the rows with codes[k] != SKIP, on the heads' results of this
 * phase (heads all_masks / all_iou / score), writing the rows of low_out. */
enum samrt_status samrt_sam2_track_policy_enqueue(struct samrt_engine *e, struct samrt_sam2 *m, const uint8_t *codes,
                                                  int n_obj, samrt_stream *stream);
/* The frame's decisions to the host with the frame's other downloads (stream order). */
enum samrt_status samrt_sam2_track_policy_download(struct samrt_engine *e, struct samrt_sam2 *m, samrt_stream *stream);
/* After the frame's sync: admissions into the banks, the dump line. */
void samrt_sam2_track_policy_after_frame(struct samrt_sam2_tracker *t, int frame);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_POLICY_H */
