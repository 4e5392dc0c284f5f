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
 *   dam4sam  (github.com/jovanavidenovic/DAM4SAM) the heads' mask as sam2; per object a kernel
 *            (policy_dam.h) decides inside the frame's graph whether the frame enters the
 *            distractor-resolving memory (DRM); the host reads the decision and the object's
 *            visibility with the masks. Frame t attends to the DRM frames the official
 *            select_closest_cond_frames picks (at most 4: the prompt frame, the newest DRM frame
 *            before t - 1, the next closest) and 7 - that many recent-appearance (RAM) frames:
 *            the newest visible frame before t (t - 1 when visible) and the visible non-DRM
 *            frames every 5th frame before it (track_policy_dam.c). Its memories go to its own
 *            slots (the six ring slots and the conditioning slots no prompt holds): the slot of
 *            a frame no later frame can select is reused. Pointers: the selected DRM frames', then
 *            the visible frames among t-1 .. t-15, max_ptr = min(t - first + 1, 16) (the official
 *            tracker grows num_frames frame by frame).
 * Known difference from the official code: its pointer comes from the chosen mask's token and
 * its gate is score > -1; here the heads give the pointer of the best-IoU token gated at
 * score > 0 (the heads keep no other token), so the pointer differs on frames where the
 * filter overrides the IoU choice or the score is in (-1, 0]. The masks and memories follow
 * the official choice.
 * Debug: SAMRT_TRACK_DECISIONS=FILE (read at track_begin) writes one line per object and frame:
 * the chosen mask, its IoU, score, KF IoU (dam4sam: the least box IoU of the distractor test),
 * admission (dam4sam: DRM addition) and the memory frames attended to.
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
    int dam_frame[SAMRT_TRACK_MEM_SLOTS];         /* dam4sam: frame held by each memory slot, -1 = none */
    uint8_t dam_vis[SAMRT_TRACK_MEM_SLOTS];       /* dam4sam: the object was visible on it (area >= 1) */
    uint8_t dam_drm[SAMRT_TRACK_MEM_SLOTS];       /* dam4sam: it entered the DRM */
    int vis_frame[SAMRT_TRACK_PTR_RING];          /* dam4sam: visibility of the last 16 tracked frames */
    uint8_t vis[SAMRT_TRACK_PTR_RING];
    int n_drm;                                    /* dam4sam: DRM additions so far */
};

struct samrt_sam2_track_policy {
    enum samrt_memory_policy kind;
    struct samrt_samurai_params p;
    struct samrt_tensor state;                    /* (K * STATE * 8) u8 = f64 [state] */
    struct samrt_tensor boxes;                    /* (K, 3, 4) i32 [staging] */
    struct samrt_tensor dec;                      /* (K, DEC_COLS) f32 [staging] */
    struct samrt_tensor labels;                   /* dam4sam: (K, 2, L*L) i32 [staging] */
    int slot_state, slot_boxes, slot_dec, slot_labels;
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
    return pol->kind == SAMRT_MEMORY_SAMURAI || pol->kind == SAMRT_MEMORY_DAM4SAM;
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

/* The launch code of an object for the frame (SAMRT_POLICY_SKIP / RUN / RESTART): multi marks
 * the frames whose heads chose among three candidates (tracked, or one click), tracked the
 * tracked ones (dam4sam decides on those only, as the official tracker). */
uint8_t samrt_sam2_track_policy_code(const struct samrt_sam2_track_policy *pol, struct samrt_track_policy_obj *po,
                                     int multi, int tracked);

/* ---- dam4sam (track_policy_dam.c) ---- */
/* Its selection for frame t (b: the bank's conditioning frames and pointer ring). */
void samrt_sam2_track_dam_select(const struct samrt_track_bank *b, const struct samrt_track_policy_obj *po, int t,
                                 struct samrt_track_selection *sel);
/* Tracked frame t's memory slot (a frame no later frame can select is replaced) and pointer slot. */
void samrt_sam2_track_dam_add_tracked(struct samrt_track_bank *b, struct samrt_track_policy_obj *po, int t,
                                      int *mem_slot, int *ptr_slot);
/* Tracked frame t's decision, after the frame: visible (area >= 1) and DRM addition. */
void samrt_sam2_track_dam_decided(struct samrt_track_policy_obj *po, int t, int visible, int drm);
/* The policy's kernels for the rows with codes[k] != SKIP, on the heads' results of this
 * phase (heads all_masks / all_iou / score), writing the rows of low_out. */
enum samrt_status samrt_sam2_track_policy_enqueue(struct samrt_engine *e, struct samrt_sam2 *m, const uint8_t *codes,
                                                  int n_obj, samrt_stream *stream);
/* The work samrt_sam2_track_policy_enqueue issues on a steady frame of n_obj tracked objects
 * (low-res side low, model side side): launches, flops, bytes; all 0 under sam2. */
void samrt_sam2_track_policy_cost(const struct samrt_sam2_track_policy *pol, int n_obj, int low, int side,
                                  int64_t *launches, double *flops, double *bytes);
/* The frame's decisions to the host with the frame's other downloads (stream order). */
enum samrt_status samrt_sam2_track_policy_download(struct samrt_engine *e, struct samrt_sam2 *m, samrt_stream *stream);
/* After the frame's sync: admissions into the banks, the dump line. */
void samrt_sam2_track_policy_after_frame(struct samrt_sam2_tracker *t, int frame);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_POLICY_H */
