/* segment.h - single-frame segmentation with SAM 2 / 2.1 and EdgeTAM (the public
 * samrt_engine_segment): the path the official VIDEO predictor takes on its prompt frame
 * (init_state on one frame, then add_new_points_or_box), for several objects at once:
 *
 *   RGB8 frame --upload--> Pillow-exact bicubic resize + normalise (resize_normalize.h)
 *     --> image encoder pass (image_encoder.h) --> SAM heads pass: pix = vision + no_mem_embed
 *     (an initial conditioning frame), prompt encoder, mask decoder, selection, gate, pointer
 *     (mask_decoder.h) --> low-res logits --> bilinear to the frame size, threshold > 0, area
 *     and box (mask_decode.h) --> one download --> caller buffers.
 *
 * CUDA engines run all of it on the engine's stream, from the engine's frame staging
 * (staging.h: arena slots owned by struct samrt_sam2) sized for the largest frame it accepts
 * (params max_frame_width x max_frame_height): the RGB8 frame, the resize tables (refilled
 * when the frame size changes), the output block [stats | result rows | u8 masks] that comes
 * back in ONE download, and one f32 logits plane for the optional logits output and the
 * taps. The sequence from the resize kernel to the mask decode is captured into a CUDA graph
 * per key (graph_cache.h) and replayed after. The key holds everything that is baked into
 * launch parameters: frame size, object count, post-processing profile and each object's
 * sparse-token count and mask mode (the heads' prompt-key attentions launch per object with
 * its own key count, and the selection takes the modes by value); the prompt VALUES are not in
 * the key, they reach the graph through the tokens staging slot, uploaded before the replay. A
 * key's first call runs eagerly (module loading and library warm-up stay outside any capture);
 * its second call captures. Host pools (CPU backend) keep the C references; both paths are
 * bit-exact with each other's kernels. Nothing is allocated per call once a key has its graph
 * (only the tap path of parity dumps allocates).
 *
 * Lifecycle, called from runtime/sam2.c: samrt_sam2_segment_plan after the encoder's plan,
 * samrt_sam2_segment_prepare after the weights are loaded, samrt_sam2_segment_free.
 * Mask prompts (samrt_engine_segment_masked): see struct samrt_sam2_segment.
 * Tests: tests/test_sam2_segment.c (tiny, end to end, synthetic image; host and gpu),
 * tests/test_sam2_segment_mask.c (mask prompts against a hand-built heads pass).
 */
#ifndef SAMRT_SAM2_SEGMENT_H
#define SAMRT_SAM2_SEGMENT_H

#include "engine_limits.h"
#include "graph_cache.h"
#include "health.h"
#include "mask_decoder.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;
struct samrt_ckpt;
struct samrt_sam2;

#define SAMRT_SAM2_SEG_GRAPHS 4  /* cached graph keys; the oldest is replaced */

/* What fixes a captured graph's launch parameters (see above). */
struct samrt_sam2_seg_key {
    int width, height, n_obj, postproc;
    int32_t n_sparse[SAMRT_MAX_OBJECTS];
    uint8_t mode[SAMRT_MAX_OBJECTS];
};

/* The segmentation pass: its heads, executor and op context. */
struct samrt_sam2_segment {
    struct samrt_sam2_heads heads;
    struct samrt_exec ex;
    struct samrt_op_ctx ctx;
    int ready;
    struct samrt_sam2_points pts[SAMRT_MAX_OBJECTS];  /* per call: the objects' prompts */
    float *low_host;             /* (B, 4g, 4g) f32 host copy of the low-res logits (prepare) */
    float *res_host;             /* (B, SAMRT_SAM2_RES_COLS) */
    int use_graph, timed;        /* samrt_sam2_segment_configure */
    struct samrt_graph_cache graphs;  /* keyed by struct samrt_sam2_seg_key (graph_cache.h) */
    struct samrt_health health;  /* the call's non-finite check (health.h) */
    /* Mask prompts (samrt_engine_segment_masked): a second heads instance with the prompt
     * encoder's mask branch, b_max 1, run once per masked object after the heads pass above
     * (last object first, so that object 0's pass is the one its taps see); its rows replace
     * that object's rows of heads.low_res, result and obj_ptr before the mask decode. The
     * heads pass keeps its shapes, graphs and memory whether masks are used or not; a call
     * with a mask runs eagerly (the mask values are uploaded between the passes). */
    struct samrt_sam2_heads mheads;
    struct samrt_exec mex;
    struct samrt_op_ctx mctx;
    void *mask_stage;            /* (4g)^2 elements of the run dtype (host, prepare) */
    const float *mask_in[SAMRT_MAX_OBJECTS];  /* per call: each object's mask logits or NULL */
    int n_masked;
};

/* Binds the heads' weights, adds their slots and runs the PLAN pass of the segmentation pass
 * (after the encoder's plan, sharing its step counter). */
enum samrt_status samrt_sam2_segment_plan(struct samrt_engine *e, struct samrt_sam2 *m);
enum samrt_status samrt_sam2_segment_prepare(struct samrt_engine *e, struct samrt_sam2 *m,
                                             const struct samrt_ckpt *ck);
void samrt_sam2_segment_free(struct samrt_sam2 *m);

/* The segmentation pass's heads alone, RUN mode, on `stream` (NULL on host engines): pix =
 * vision + no_mem_embed, then the SAM heads over every object row with the prompts already in
 * the heads' token slot (samrt_sam2_heads_set_prompts). The tracker runs it inside its frame
 * for the objects prompted on that frame (rows = their object slots). Allocates nothing. */
enum samrt_status samrt_sam2_segment_heads(struct samrt_engine *e, struct samrt_sam2 *m, samrt_stream *stream);

/* The family's segment entry (behind samrt_engine_segment) and the tracker's prompted frames:
 * checks the arguments, then segments img. img_on_device: img->rgb is device memory of this
 * GPU engine's device (it is staged with one device-to-device copy, staging.h). */
enum samrt_status samrt_sam2_segment(struct samrt_engine *e, const struct samrt_image *img, int img_on_device,
                                     const struct samrt_object_prompt *prompts, int n, enum samrt_postproc pp,
                                     struct samrt_mask_result *out);

/* The family's segment_masked entry (samrt_engine_segment_masked, host images):
 * samrt_sam2_segment where object i with masks[i] != NULL also has that (4g)^2 logits plane as
 * its dense prompt (SAM2ImagePredictor's mask_input). */
enum samrt_status samrt_sam2_segment_masked(struct samrt_engine *e, const struct samrt_image *img,
                                            const struct samrt_object_prompt *prompts, const float *const *masks,
                                            int n, enum samrt_postproc pp, struct samrt_mask_result *out);

/* The family's mask_prompt entry: *side (may be NULL) = 4g; with mask and logits non-NULL, the
 * width x height binary mask as (4g)^2 mask-input logits (samrt_engine_mask_prompt_logits:
 * the tracker's steps 1-2 of track_mask.h). */
enum samrt_status samrt_sam2_mask_prompt(struct samrt_engine *e, const uint8_t *mask, int width, int height,
                                         float *logits, int *side);

/* Sets (fn non-NULL) or clears the tap observer of the encoder's and the segmentation pass's
 * op contexts, for parity dumps. Besides the passes' own taps, samrt_engine_segment then
 * reports tap.prompt.coords / tap.prompt.labels, the selection taps of
 * samrt_sam2_heads_taps and tap.out.* (pred_masks, obj_ptr, object_score_logits,
 * video_res_masks) for object 0. */
enum samrt_status samrt_sam2_segment_set_tap(struct samrt_engine *e, samrt_tap_fn fn, void *user);

/* Benchmarks and tests (CUDA engines; a host engine ignores both): use_graph 0 runs every
 * call eagerly (default 1: capture once per key, replay after); timed 1 runs eagerly with
 * the stage clock's events between the stages (stage_clock.h), read back with the public
 * samrt_engine_stage_times: preprocess (upload + resize), image_encoder, prompt_and_mask_decoder
 * (the SAM heads pass), postprocess (mask decode + download); the other stages -1. */
enum samrt_status samrt_sam2_segment_configure(struct samrt_engine *e, int use_graph, int timed);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_SEGMENT_H */
