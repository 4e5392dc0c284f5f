/* track_state.h - the state of the SAM 2 family's streaming tracker (tracker.h says what the
 * tracker does): the objects, the options of a video, the passes and the key of a frame's
 * graph, and struct samrt_sam2_tracker with its arena views (the memory and pointer banks, the
 * frame's staging tensors) and host buffers. Types only: tracker.c (the calls),
 * tracker_run.c (a frame's model work), track_out.c (its results) and track_taps.c (parity
 * taps) each declare their functions in their own header. */
#ifndef SAMRT_SAM2_TRACK_STATE_H
#define SAMRT_SAM2_TRACK_STATE_H

#include "engine_limits.h"
#include "graph_cache.h"
#include "health.h"
#include "memory_attention.h"
#include "ops_runtime.h"
#include "ops_sam2.h"
#include "memory_encoder.h"
#include "ops.h"
#include "prompt_encoder.h"
#include "staging.h"
#include "track_bank.h"
#include "track_mask.h"
#include "track_policy.h"
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
    struct samrt_track_policy_obj pol;   /* its memory policy's host side (track_policy.h) */
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
    int32_t fmt[SAMRT_STAGING_FMT_KEY];  /* and its frame format (staging.h: RGB8 zero) */
    int encode;                          /* 1: resize + image encoder are part of the frame */
    int n_obj, dynamic;
    int fill;                            /* 0, or 1 + fill_hole_area when post-processing changes the pass */
    uint8_t role[SAMRT_MAX_OBJECTS];    /* 0 not started, 1 prompted on this frame, 2 tracked */
    uint8_t n_mem[SAMRT_MAX_OBJECTS];   /* tracked: memories S and pointers P attended to */
    uint8_t n_ptr[SAMRT_MAX_OBJECTS];
    int32_t n_sparse[SAMRT_MAX_OBJECTS]; /* the heads' prompt-token count and mask mode per object row */
    uint8_t mode[SAMRT_MAX_OBJECTS];     /* (prompted objects' prompts, the others' none) */
    uint8_t policy[SAMRT_MAX_OBJECTS];   /* the memory policy's launch code (track_policy.h) */
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
    struct samrt_sam2_track_policy policy; /* the memory-selection policy (track_policy.h) */

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
    int last_graph;                      /* the graphs entry the last frame launched; -1: it ran eagerly */

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

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_STATE_H */
