/* track_post.h - the tracker's notebook post-processing switches (model-spec 1.2, 4.7): hole
 * filling of the low-res logits (fill_hole_area = 8) and binarised memories of prompted
 * frames (binarize_mask_from_pts_for_mem_enc). With the vos_inference profile both are off
 * and the tracker runs as without this file.
 *
 * Where the official predictor applies them, and so where this file does:
 *   - hole filling runs on the 256x256 pred_masks of every frame, after track_step
 *     (_run_single_frame_inference), so a TRACKED frame's memory is encoded from the
 *     unfilled logits, while a PROMPTED frame's memory (encoded later, in the preflight, from
 *     the stored pred_masks) sees the filled ones; the output (and the stored mask) is the
 *     filled one in both cases;
 *   - binarisation (float(logit > 0) instead of sigmoid) applies to prompted frames only
 *     (is_mask_from_pts).
 * So with prompted and tracked objects on one frame, the memory encoder runs twice: tracked
 * rows from the raw logits with sigmoid into the ring block, prompted rows from the filled
 * logits, binarised, into a staging block, whose prompted rows are then copied over.
 *
 * Arena (STAGING, planned with the tracker): the filled logits (K, 1, 4g, 4g) f32, the
 * hole-filling workspace (kernels/sam2/fill_holes.h) and the staging memory block (K, g*g, 64) bf16.
 * Everything is fixed-shape device work on the memory encoder's context: no allocation, no
 * host round trip (capturable).
 * Tests: tests/test_sam2_track.c (notebook profile accepted), tests/test_fill_holes*.c. */
#ifndef SAMRT_SAM2_TRACK_POST_H
#define SAMRT_SAM2_TRACK_POST_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;
struct samrt_sam2;
struct samrt_sam2_tracker;
struct samrt_sam2_track_options;

#define SAMRT_TRACK_FILL_HOLE_AREA 8  /* build_sam2_video_predictor(apply_postprocessing=True) */

struct samrt_sam2_track_post {
    struct samrt_tensor low_fill;  /* (K, 1, 4g, 4g) f32 [staging]: the filled logits */
    struct samrt_tensor fill_ws;   /* (2 * K * 4g * 4g) i32 [staging]: labels and areas */
    struct samrt_tensor enc_tmp;   /* (K, g*g, 64) bf16 [staging]: prompted rows' memories */
    int slot_low_fill, slot_fill_ws, slot_enc_tmp;
};

/* The fill_hole_area in effect: the options' own when > 0, else the profile's
 * (SAMRT_TRACK_FILL_HOLE_AREA for NOTEBOOK, 0 = off for VOS_INFERENCE). */
int samrt_sam2_track_fill_area(const struct samrt_sam2_track_options *o);
/* 1 when the options change the memory encoding or the output logits (NOTEBOOK, or any
 * hole filling). */
int samrt_sam2_track_post_on(const struct samrt_sam2_tracker *t);

/* Adds the staging slots (after the tracker's own); resolves them after commit. */
enum samrt_status samrt_sam2_track_post_plan(struct samrt_engine *e, struct samrt_sam2 *m);
void samrt_sam2_track_post_prepare(struct samrt_engine *e, struct samrt_sam2 *m);

/* Replaces the single memory encoder run of a frame when samrt_sam2_track_post_on: fills the
 * holes of every row of cur_low into low_fill, then encodes (see above) into out, the ring
 * block (K, g*g, 64) of the frame. is_prompted[k]: object k is a conditioning frame now. */
enum samrt_status samrt_sam2_track_post_encode(struct samrt_engine *e, struct samrt_sam2 *m, const int *is_prompted,
                                               const struct samrt_tensor *out);

/* The frame's output logits: low_fill when filling, else cur_low. */
const struct samrt_tensor *samrt_sam2_track_post_low(const struct samrt_sam2_tracker *t);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_POST_H */
