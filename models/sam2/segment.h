/* segment.h - single-frame segmentation with SAM 2.1 (the public samrt_engine_segment): the
 * path the official VIDEO predictor takes on its prompt frame (init_state on one frame, then
 * add_new_points_or_box), for several objects at once:
 *
 *   RGB8 frame --host: Pillow-exact bicubic resize + normalise (resize_normalize.h reference)
 *     --> image encoder pass (image_encoder.h) --> SAM heads pass: pix = vision + no_mem_embed
 *     (an initial conditioning frame), prompt encoder, mask decoder, selection, gate, pointer
 *     (mask_decoder.h) --> low-res logits --host: bilinear to the frame size, threshold > 0,
 *     area and box (mask_decode.h reference) --> caller buffers.
 *
 * The pre- and post-processing run on the host because their sizes follow the image, which
 * an engine planned at init does not know; both references are bit-exact with their CUDA
 * kernels, so nothing changes numerically. Their host buffers are allocated once at prepare,
 * sized for the largest frame the resize supports, so a call allocates nothing (only the tap
 * path of parity dumps does).
 *
 * Lifecycle, called from models/sam2/sam2.c: samrt_sam2_segment_plan after the encoder's plan,
 * samrt_sam2_segment_prepare after the weights are loaded, samrt_sam2_segment_free.
 * Tests: tests/test_sam2_segment_cuda.c (tiny, end to end, synthetic image).
 */
#ifndef SAMRT_SAM2_SEGMENT_H
#define SAMRT_SAM2_SEGMENT_H

#include "mask_decoder.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;
struct samrt_ckpt;
struct samrt_sam2;

/* The segmentation pass: its heads, executor and op context. */
struct samrt_sam2_segment {
    struct samrt_sam2_heads heads;
    struct samrt_exec ex;
    struct samrt_model_ctx ctx;
    int ready;
    struct samrt_sam2_points pts[SAMRT_SAM2_MAX_OBJ];  /* per call: the objects' prompts */
    float *low_host;             /* (B, 4g, 4g) f32 host copy of the low-res logits (prepare) */
    float *res_host;             /* (B, SAMRT_SAM2_RES_COLS) */
    void *in_host;               /* (1, 3, S, S) run dtype: the preprocessed frame (GPU pools) */
    void *tables_host;           /* resize tables, tables_cap bytes, 16-byte aligned */
    size_t tables_cap;
};

/* Binds the heads' weights, adds their slots and runs the PLAN pass of the segmentation pass
 * (after the encoder's plan, sharing its step counter). */
enum samrt_status samrt_sam2_segment_plan(struct samrt_engine *e, struct samrt_sam2 *m);
enum samrt_status samrt_sam2_segment_prepare(struct samrt_engine *e, struct samrt_sam2 *m,
                                             const struct samrt_ckpt *ck);
void samrt_sam2_segment_free(struct samrt_sam2 *m);

/* Pillow-exact resize of img to the model side and normalisation into the encoder's input
 * slot (host reference; uploaded for GPU pools). Allocates nothing. */
enum samrt_status samrt_sam2_preprocess(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_image *img);

/* Sets (fn non-NULL) or clears the tap observer of the encoder's and the segmentation pass's
 * op contexts, for parity dumps. Besides the passes' own taps, samrt_engine_segment then
 * reports tap.prompt.coords / tap.prompt.labels, the selection taps of
 * samrt_sam2_heads_taps and tap.out.* (pred_masks, obj_ptr, object_score_logits,
 * video_res_masks) for object 0. */
enum samrt_status samrt_sam2_segment_set_tap(struct samrt_engine *e, samrt_tap_fn fn, void *user);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_SEGMENT_H */
