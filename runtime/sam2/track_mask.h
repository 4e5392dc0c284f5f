/* track_mask.h - mask prompts of the tracker (samrt_engine_track_prompt_mask, `samrt track
 * --mask`): the official add_new_mask path with use_mask_input_as_output_without_sam
 * (model-spec 3.11, 4.1):
 *   1. the frame-size mask (nonzero = object) becomes the model-size binary mask m: bilinear
 *      ANTIALIAS resize to S x S (align_corners False) then >= 0.5; used as is at S x S;
 *   2. output logits 20*m - 10; the low-res logits (pred_masks) are their antialiased bilinear
 *      downsample to S/4 x S/4; the object score is +10 when any m > 0, else -10;
 *   3. the object pointer: the SAM heads on the RAW features of the frame (no no_mem_embed,
 *      no memory attention) with no points and the dense prompt mask_downsample(m) (a 4x4
 *      stride-4 conv) through the prompt encoder's mask_downscaling branch, single-mask output
 *      (with the notebook's stability fallback; token 0 gives the pointer), gated by the
 *      decoder's own score; an empty m gives no_obj_ptr.
 * From there the object is a prompted object of the frame (a conditioning frame; its memory
 * is encoded from the low-res logits, binarised under notebook, filled when hole filling is on).
 *
 * Design: steps 1-2 run on the host when the prompt is given (the mask arrives in host memory
 * and the resize is data-dependent in size; nothing of it is per frame), into per-object host
 * rows allocated at prepare. Step 3 is a separately planned SAM heads pass (b_max 1, the
 * mask-input branch planned) run at the push, one per mask-prompted object.
 * Tests: tests/test_sam2_track_mask.c. */
#ifndef SAMRT_SAM2_TRACK_MASK_H
#define SAMRT_SAM2_TRACK_MASK_H

#include "mask_decoder.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;
struct samrt_sam2;
struct samrt_ckpt;

struct samrt_sam2_track_mask {
    int planned;
    struct samrt_sam2_heads heads;       /* b_max 1, max_points 1, mask_input 1 */
    struct samrt_exec ex;
    struct samrt_op_ctx ctx;
    int side, low;                       /* S and S/4 */
    float *low_rows;                     /* (K + 1, low*low) host: each object's prompt logits; row K: the call's */
    float *dense_rows;                   /* (K + 1, low*low) host: mask_downsample(m) */
    uint8_t *is_obj;                     /* (K + 1) */
    uint8_t *full;                       /* S*S host: the binary model-size mask of a call */
    void *stage;                         /* low*low elements of the run dtype (host) */
    float ds_w[16], ds_b;                /* mask_downsample (1,1,4,4) and bias */
    float no_obj_ptr[256];
};

enum samrt_status samrt_sam2_track_mask_plan(struct samrt_engine *e, struct samrt_sam2 *m);
enum samrt_status samrt_sam2_track_mask_prepare(struct samrt_engine *e, struct samrt_sam2 *m,
                                                const struct samrt_ckpt *ck);
void samrt_sam2_track_mask_free(struct samrt_sam2 *m);

/* Steps 1-2 for object slot k of the current video (width x height mask, nonzero = object). */
enum samrt_status samrt_sam2_track_mask_set(struct samrt_sam2 *m, int k, const uint8_t *mask, int width, int height);

/* Moves the prepared rows of slot `from` to slot `to` (the call's row K to its object's). */
void samrt_sam2_track_mask_move(struct samrt_sam2 *m, int from, int to);

/* 1 when object slot k's pending prompt is a mask (the next push makes it a conditioning frame). */
int samrt_sam2_track_mask_pending(const struct samrt_sam2 *m, int k);
/* At the push, after the frame's features and the segmentation pass's rows: for every object
 * whose pending prompt is a mask, step 3 and its rows of cur_low / cur_score / cur_ptr;
 * marks it in is_prompted. */
enum samrt_status samrt_sam2_track_mask_step(struct samrt_engine *e, struct samrt_sam2 *m, int *is_prompted);

/* ---- host computations (exported for the tests) ---- */

/* PyTorch's antialiased bilinear resize (F.interpolate, align_corners False, antialias True) of
 * one f32 plane (h_in, w_in) -> (h_out, w_out), fp32, horizontal pass first: per output index
 * i, scale = in/out, support = scale (>= 1) or 1, center = scale*(i + 0.5), taps
 * [max(int(center - support + 0.5), 0), min(int(center + support + 0.5), in)), weights
 * max(0, 1 - |(j - center + 0.5) * invscale|) normalised by their sum. */
void samrt_aa_bilinear_host(const float *in, int h_in, int w_in, float *out, int h_out, int w_out);

/* The weights of output index i (n <= cap); returns the first tap, *n the number of taps. */
int samrt_aa_bilinear_weights(int n_in, int n_out, int i, float *w, int cap, int *n);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_MASK_H */
