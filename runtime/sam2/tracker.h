/* tracker.h - SAM 2.1 and EdgeTAM streaming video tracking inside an engine (the family's
 * entries behind samrt.h's samrt_engine_track_* calls; model-spec section 4).
 *
 * EdgeTAM differs only in its memory path (model-spec 3.7, 3.13, 4.4): a stored memory is the
 * spatial perceiver's 512 tokens (models/edgetam/perceiver.h) instead of g*g pixels, memory
 * attention is the 2-layer variant (memory_attention.h config), and pointers get no temporal
 * position; selection, pointers and the passes are the same code, sized by mem_tok.
 *
 * State (arena, STATE region, planned at init from max_objects K and the model side; nothing
 * grows with the video's length):
 *   mem_bank  (MEM_SLOTS, K, T, 64) bf16     spatial memories (T = g*g, EdgeTAM 512), slot-major: ring slots 0..5
 *                                            (frame % 6), then SAMRT_TRACK_MAX_COND
 *                                            conditioning slots (track_bank.h)
 *   ptr_bank  (PTR_SLOTS, K, 256) f32        object pointers: ring of 16, then conditioning
 * Slot-major so that every object's memory of frame t lands in ONE contiguous (K, g*g, 64)
 * block (ring slot t % 6): the memory encoder of the frame writes all objects at once, and
 * only objects whose frame is a conditioning frame get a copy into their conditioning slot.
 * Writing ring slot t % 6 is always safe: it held frame t-6, which no later frame selects.
 * Host bookkeeping per object (track_bank.h) decides which slots a frame attends to.
 *
 * Per frame (samrt_engine_track_push):
 *   1. Pillow-exact resize + normalise (a kernel on CUDA engines, the C reference on host
 *      engines) -> image encoder pass (once for all objects);
 *   2. objects prompted on this frame (initial conditioning frames): the segmentation pass's
 *      heads (vision + no_mem_embed, prompt encoder, decoder; segment.h) inside the frame,
 *      their prompts in their object rows of the heads' token slot; mask prompts take their
 *      logits from the mask and the pointer from a mask-input heads pass (track_mask.h);
 *   3. tracked objects: memory attention over the selected memories and pointers, then the
 *      SAM heads with no prompt (multimask, best IoU);
 *   4. memory encoder on every object's selected low-res logits -> ring slot t % 6, and the
 *      pointers -> ring slot t % 16; conditioning copies for prompted objects;
 *      (notebook: hole filling and binarised prompted memories, track_post.h);
 *   5. bilinear to the frame size, optional non-overlap (highest logit per pixel), threshold
 *      > 0, area and box per object: on CUDA engines one kernel (mask_decode.h) on the stream
 *      after the frame's graph, into the staging output block (staging.h, planned for
 *      max_objects masks of the largest frame), then the masks and stats come to the host
 *      (one sync); on the host (C references) for CPU engines, tap dumps (they need the f32
 *      video-size logits) and when forced (samrt_sam2_track_set_host_decode,
 *      SAMRT_TRACK_HOST_DECODE=1).
 * Steps 1-4 of a frame run as ONE CUDA graph on the engine's stream (prompted and tracked
 * objects alike: one graph, one sync, one mask decode per frame), one graph per frame key
 * (tracker_run.c: the object roles, memory / pointer counts and prompt shapes; bank slots are
 * data in a staging table, track_rows.h). Only a frame with a mask prompt runs eagerly.
 *
 * Options outside samrt.h (the CLI sets them; defaults are the vos_inference profile):
 * samrt_sam2_track_set_options. Run: `samrt track --help`; tests:
 * tests/test_sam2_track_bank.c (selection rules), tests/test_sam2_track.c (API, state size),
 * tests/test_sam2_track_graph_cuda.c (graph replay = eager path, bit for bit).
 */
#ifndef SAMRT_SAM2_TRACKER_H
#define SAMRT_SAM2_TRACKER_H

#include "engine_limits.h"
#include "graph_cache.h"
#include "health.h"
#include "memory_attention.h"
#include "ops_runtime.h"
#include "ops_sam2.h"
#include "memory_encoder.h"
#include "ops.h"
#include "prompt_encoder.h"
#include "track_bank.h"
#include "track_mask.h"
#include "track_post.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;
struct samrt_sam2;
struct samrt_edgetam_perceiver;

/* One tracked object. */
struct samrt_sam2_track_obj {
    int obj_id;                          /* the caller's id */
    int first_frame;                     /* frame of its first prompt */
    int n_frames_tracked;                /* frames it has output so far */
    struct samrt_track_bank bank;
    int pending;                         /* enum: 0 none, 1 points/box, 2 mask for the next push */
    struct samrt_sam2_points pts;        /* the pending point prompt (model coordinates) */
    struct samrt_object_prompt prompt;   /* and as given (video pixels) */
};

struct samrt_sam2_track_options {
    enum samrt_postproc postproc;        /* VOS_INFERENCE (default) or NOTEBOOK */
    int non_overlap;                     /* 1: per pixel only the highest-logit object keeps it */
    int num_frames;                      /* the video's length when known (pointer tpos), 0 = unknown */
    int fill_hole_area;                  /* 0: the profile's (NOTEBOOK 8, VOS_INFERENCE off); > 0: this */
};

/* One separately run pass: its executor and op context. */
struct samrt_sam2_track_pass {
    struct samrt_exec ex;
    struct samrt_op_ctx ctx;
    int planned;
};

/* What fixes a frame's captured graph (tracker_run.c): everything baked into launch
 * parameters or node order. Slot indices, tpos rows and pointer distances are not in it: they
 * reach the graph through the staging table uploaded before each launch. */
#define SAMRT_TRACK_GRAPHS 8   /* cached frame graphs; the oldest is replaced */
struct samrt_sam2_track_key {
    int width, height;                   /* the resize launch (encode only) */
    int encode;                          /* 1: resize + image encoder are part of the frame */
    int n_obj, dynamic;
    int fill;                            /* 0, or 1 + fill_hole_area when post-processing changes the pass */
    uint8_t role[SAMRT_MAX_OBJECTS];    /* 0 not started, 1 prompted on this frame, 2 tracked */
    uint8_t n_mem[SAMRT_MAX_OBJECTS];   /* tracked: memories S and pointers P attended to */
    uint8_t n_ptr[SAMRT_MAX_OBJECTS];
    int32_t n_sparse[SAMRT_MAX_OBJECTS]; /* the heads' prompt-token count and mask mode per object row */
    uint8_t mode[SAMRT_MAX_OBJECTS];     /* (prompted objects' prompts, the others' none) */
};

/* Memory attention passes, one per (memories S, pointers P) count (memory_attention.h: the
 * attention has no key mask, so each count is its own fixed-shape pass). P >= S always: every
 * selected memory's frame also contributes its pointer. */
#define SAMRT_TRACK_N_MA_PASSES (SAMRT_TRACK_MAX_SEL_MEM * SAMRT_TRACK_MAX_SEL_PTR)
static inline int samrt_track_ma_index(int n_mem, int n_ptr) {
    return (n_mem - 1) * SAMRT_TRACK_MAX_SEL_PTR + (n_ptr - 1);
}

struct samrt_sam2_tracker {
    int planned;                         /* SAM 2.1 and EdgeTAM checkpoints (not SAM 2.0) */
    int ready;
    int k_max;                           /* object slots (max_objects) */
    int grid;                            /* g: memory side */
    int edgetam;                         /* EdgeTAM's memory path (perceiver, memory attention variant) */
    int64_t mem_tok;                     /* tokens per stored memory: g*g, EdgeTAM 512 */
    struct samrt_tensor mem_bank;        /* (MEM_SLOTS, K, mem_tok, 64) bf16 [state] */
    struct samrt_tensor ptr_bank;        /* (PTR_SLOTS, K, 256) f32 [state] */
    int slot_mem_bank, slot_ptr_bank;
    struct samrt_tensor pix;             /* (K, g*g, 256) run dtype [staging]: memory-conditioned features */
    struct samrt_tensor ptr_sel;         /* (1, MAX_SEL_PTR, 256) f32 [staging]: one object's selected pointers */
    struct samrt_tensor cur_low;         /* (K, 1, 4g, 4g) f32 [staging]: this frame's low-res logits */
    struct samrt_tensor cur_score;       /* (K, 1) f32 [staging]: object-score logits */
    struct samrt_tensor cur_ptr;         /* (K, 256) f32 [staging]: object pointers */
    struct samrt_health health;          /* the frame's non-finite check (health.h) */
    int slot_pix, slot_ptr_sel, slot_cur_low, slot_cur_score, slot_cur_ptr;
    struct samrt_tensor mem_sel;         /* (MAX_SEL_MEM, g*g, 64) bf16 [staging]: one object's selected memories */
    struct samrt_tensor mem_new;         /* (K, g*g, 64) bf16 [staging]: the memory encoder's output */
    struct samrt_tensor tab;             /* u8 [staging]: the frame table (tracker_run.c) */
    int slot_mem_sel, slot_mem_new, slot_tab;
    uint8_t *tab_host;                   /* host image of tab (prepare) */
    size_t tab_obj_bytes, tab_ma_bytes, tab_shared;  /* per-object region, its memattn rows, shared part */
    struct samrt_sam2_track_post post;   /* notebook post-processing (track_post.h) */
    struct samrt_sam2_track_mask mask;   /* mask prompts (track_mask.h) */

    struct samrt_sam2_memenc memenc;
    struct samrt_sam2_memattn memattn;   /* b_max 1: objects attend to their own banks one by one */
    struct samrt_edgetam_perceiver *perceiver; /* EdgeTAM only (host heap, setup), else NULL */
    struct samrt_sam2_track_pass *ma;    /* SAMRT_TRACK_N_MA_PASSES (host heap); planned where P >= S */
    struct samrt_sam2_track_pass heads;  /* SAM heads on pix, no prompt (tracked frames) */
    struct samrt_sam2_track_pass memenc_pass; /* the memory encoder's pass: cur_low -> mem_new (m->enc is the image encoder) */
    float *low_host;                     /* (K, 4g, 4g) f32 host copy of cur_low (prepare) */
    float *score_host;                   /* (K) */
    struct samrt_mask_stats *stats_host; /* (K) the device decode's area and box per object (prepare) */
    int dev_decoded;                     /* 1: this frame's masks_host / stats_host come from the device */
    int host_decode;                     /* 1: decode on the host (samrt_sam2_track_set_host_decode) */
    int host_decode_env;                 /* SAMRT_TRACK_HOST_DECODE=1 at track_begin */
    struct samrt_sam2_track_key key;     /* of the frame being run */
    struct samrt_graph_cache graphs;     /* keyed by the frame key; tags: the stage marks each graph records */

    /* video */
    int width, height;                   /* 0: no video begun */
    int frame;                           /* index of the next pushed frame */
    int n_obj;
    struct samrt_sam2_track_obj *obj;    /* k_max entries (host heap, setup) */
    struct samrt_sam2_track_options opt;
    float *logits_host;                  /* (K, height, width) f32 video-res logits (track_begin) */
    uint8_t *masks_host;                 /* (K, height, width) masks (track_begin) */
    samrt_tap_fn tap;                    /* parity dumps: every object's per-frame taps (NULL: none) */
    void *tap_user;
    int tap_memattn;                     /* the tap also gets memattn.out (tracked frames) */
};

/* Adds the state slots to the plan (after the segmentation pass's plan). */
enum samrt_status samrt_sam2_tracker_plan(struct samrt_engine *e, struct samrt_sam2 *m);
/* After commit: slot views, host object table, the memory modules' constants. */
enum samrt_status samrt_sam2_tracker_prepare(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_ckpt *ck);
void samrt_sam2_tracker_free(struct samrt_sam2 *m);

/* The engine's tracker when it has one (SAM 2.1 / EdgeTAM planned and prepared, the engine
 * not failed); else the status the track calls return, with the reason logged. */
enum samrt_status samrt_sam2_tracker_of(struct samrt_engine *e, struct samrt_sam2_tracker **out);

/* track_out.c: the results of the frame just run (masks, areas, boxes, scores of every started
 * object, in the order they were added) into results[0 .. max_results), *n_results of them;
 * decodes on the host unless the step decoded on the device. */
enum samrt_status samrt_sam2_track_outputs(struct samrt_sam2 *m, struct samrt_track_result *results, int max_results,
                                           int *n_results);
/* track_taps.c: every started object's taps of frame f (after the push's work); tracked: no
 * object was prompted on it. */
enum samrt_status samrt_sam2_track_frame_taps(struct samrt_sam2 *m, int f, int tracked);

/* The family's tracking entries (family.h), behind samrt.h's samrt_engine_track_* calls (same
 * contracts as there). */
enum samrt_status samrt_sam2_track_begin(struct samrt_engine *e, int width, int height);
enum samrt_status samrt_sam2_track_prompt(struct samrt_engine *e, int obj_id, const struct samrt_object_prompt *prompt);
enum samrt_status samrt_sam2_track_prompt_mask(struct samrt_engine *e, int obj_id, const uint8_t *mask);
enum samrt_status samrt_sam2_track_remove(struct samrt_engine *e, int obj_id);
enum samrt_status samrt_sam2_track_push(struct samrt_engine *e, const struct samrt_image *frame, int frame_on_device,
                                        struct samrt_track_result *results, int max_results, int *n_results);

/* Options of the current video (call after samrt_engine_track_begin, before the first push).
 * NOTEBOOK: hole filling, binarised prompted memories, single-mask fallback (track_post.h);
 * non_overlap is a separate switch under either profile. */
enum samrt_status samrt_sam2_track_set_options(struct samrt_engine *e, const struct samrt_sam2_track_options *opt);

/* tracker_run.c: plans the tracking passes / resolves them, and runs the frame's model work for
 * the objects: prompted[] (n_prompted, point / box prompts pending, which the segmentation
 * heads run on inside the frame) and every other started object (tracked). img: the frame (the
 * step preprocesses and encodes it; img_on_device: it is in this GPU engine's memory). Leaves the frame's scores in score_host and either
 * (dev_decoded: CUDA engines without a tap observer or a forced host decode) the frame-size
 * masks and stats of the t->n_obj objects in masks_host / stats_host, or the low-res logits in
 * low_host, rows by object, for the caller's host decode; the device-time stages in m->times
 * (the engine's stage clock; the caller adds its host post-processing). CUDA engines replay one
 * graph per frame key unless samrt_sam2_segment_configure turned graphs off (then every frame
 * runs eagerly). */
enum samrt_status samrt_sam2_tracker_plan_passes(struct samrt_engine *e, struct samrt_sam2 *m);
enum samrt_status samrt_sam2_tracker_prepare_passes(struct samrt_engine *e, struct samrt_sam2 *m,
                                                    const struct samrt_ckpt *ck);
void samrt_sam2_tracker_free_passes(struct samrt_sam2_tracker *t);
enum samrt_status samrt_sam2_tracker_step(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_image *img,
                                          int img_on_device, const int *prompted, int n_prompted);

/* on 1: every frame's masks are decoded on the host from the low-res logits (the CPU
 * engine's path), also on CUDA engines; 0 (default): CUDA engines decode on the device. The
 * environment variable SAMRT_TRACK_HOST_DECODE=1, read by samrt_engine_track_begin, forces it
 * too. Kept across videos. */
enum samrt_status samrt_sam2_track_set_host_decode(struct samrt_engine *e, int on);

/* Sets (fn non-NULL) or clears the per-frame tap observer. After every push it receives, for
 * every started object and under the names of tests/parity/dump_taps.py with the prefix
 * "frame.<t>." (the first-added object) or "obj<id>.frame.<t>." (the others): pred_masks
 * (1,1,4g,4g), object_score_logits (1,1), obj_ptr (1,256), maskmem_features (1,g,g,64
 * channels-last, bf16), video_res_masks (1,1,H,W, the object's own logits, before any
 * non-overlap); and once mem.pos_enc (1,g,g,64). */
enum samrt_status samrt_sam2_track_set_tap(struct samrt_engine *e, samrt_tap_fn fn, void *user);
/* on: the tap also receives each tracked frame's memory attention output per object,
 * "[obj<id>.]frame.<t>.memattn.out" (g*g, 1, 256) at the run dtype (frames with no prompt). */
enum samrt_status samrt_sam2_track_set_tap_memattn(struct samrt_engine *e, int on);

/* Bytes of the tracker's arena state (mem_bank + ptr_bank), for tests. */
uint64_t samrt_sam2_tracker_state_bytes(const struct samrt_engine *e);

/* Per pixel, object k keeps logit > 0 only where it has the highest logit of the n objects
 * (first on ties), as _apply_non_overlapping_constraints then `> 0`: masks[k] = 1 there.
 * logits (n, n_pix) f32; masks (n, n_pix). */
void samrt_sam2_track_non_overlap_host(const float *logits, int n, int64_t n_pix, uint8_t *const *masks);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACKER_H */
