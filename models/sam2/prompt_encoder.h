/* prompt_encoder.h - SAM 2.1's prompt encoder (model-spec 3.8, sam/prompt_encoder.py) and the
 * prompt conventions of the video predictor (4.2): user points and boxes in image pixels ->
 * points in the model frame -> sparse embeddings; the dense embedding (no_mask_embed or the
 * mask_downscaling of a mask prompt); the dense positional encoding of the mask decoder.
 *
 * Split between host and device, and why:
 *   - Sparse embeddings are built on the HOST in fp32 (a few rows of 256 per object): the
 *     Fourier PE of each point (kernels/fourier_pe.h reference), then the label rule
 *     (-1: not_a_point_embed, pe discarded; 0..3: pe + point_embeddings[label]). They are
 *     written, with the decoder's six output tokens in front, straight into the decoder's
 *     query tensor (samrt_sam2_tokens_fill), so no concat kernel exists and the token count
 *     per object is free to vary (mask_decoder.h explains how padding stays exact).
 *   - The constant tables (Fourier matrix, point embeddings, output tokens) are read once
 *     from the checkpoint in fp32 at prepare time; the dense PE (64x64) is computed there too,
 *     in fp32, and stored at the run precision.
 *   - The mask prompt path (Conv 2x2/2 -> LN2d -> GELU -> Conv 2x2/2 -> LN2d -> GELU ->
 *     Conv 1x1) runs on the device through ops/ops.h, NCHW (as the checkpoint stores the
 *     weights), and its output is turned into channels-last tokens by the decoder.
 *
 * Coordinates (add_new_points_or_box with normalize_coords=True): x_model = (x / W) * S and
 * y_model = (y / H) * S in fp32, divide first; S = the model input side (1024). A box
 * (x0, y0, x1, y1) becomes the FIRST two points, labels 2 and 3, followed by the clicks.
 * The prompt encoder then adds 0.5 to every coordinate and appends a padding point (0, 0)
 * with label -1 (boxes are never passed as boxes in SAM 2's video path).
 *
 * Tested by tests/test_sam2_prompt.c (coordinates, labels, sparse rows against hand values).
 */
#ifndef SAMRT_SAM2_PROMPT_ENCODER_H
#define SAMRT_SAM2_PROMPT_ENCODER_H

#include <stdint.h>

#include "model_env.h"
#include "ops.h"
#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_ckpt;

#define SAMRT_SAM2_DIM 256                      /* prompt / transformer width */
#define SAMRT_SAM2_PE_FEATS 128                 /* Fourier frequencies (DIM / 2) */
#define SAMRT_SAM2_N_OUT_TOKENS 6               /* obj_score, iou, mask tokens 0..3 */
#define SAMRT_SAM2_N_MASK_TOKENS 4
/* Points of one object before the padding point: clicks + the two box corners. */
#define SAMRT_SAM2_MAX_POINTS (SAMRT_MAX_CLICKS + 2)
/* Sparse rows of one object: its points + the padding point. */
#define SAMRT_SAM2_MAX_SPARSE (SAMRT_SAM2_MAX_POINTS + 1)

/* Point labels as the prompt encoder takes them. */
enum samrt_sam2_label {
    SAMRT_SAM2_LABEL_PAD = -1,     /* not a point: not_a_point_embed */
    SAMRT_SAM2_LABEL_NEG = 0,
    SAMRT_SAM2_LABEL_POS = 1,
    SAMRT_SAM2_LABEL_BOX_TL = 2,
    SAMRT_SAM2_LABEL_BOX_BR = 3
};

/* One object's points in the model frame, before the +0.5 shift and the padding point
 * (what the official code stores as point_inputs and passes to the prompt encoder). */
struct samrt_sam2_points {
    int n;                                      /* 0 .. SAMRT_SAM2_MAX_POINTS */
    float xy[SAMRT_SAM2_MAX_POINTS][2];         /* (x, y) in [0, S] */
    int32_t label[SAMRT_SAM2_MAX_POINTS];       /* enum samrt_sam2_label */
};

/* Validates a public prompt against the image and converts it (box corners first).
 * SAMRT_E_INVALID_ARG (logged) for: no click and no box, more than SAMRT_MAX_CLICKS clicks, a
 * label other than 0/1, a click outside [0, W) x [0, H), a box outside [0, W] x [0, H] or with
 * x1 < x0 or y1 < y0, a non-finite coordinate, or a non-positive image / model size. */
enum samrt_status samrt_sam2_points_from_prompt(const struct samrt_object_prompt *p, int img_w, int img_h,
                                                int model_side, struct samrt_sam2_points *out);

/* The prompt of a frame with no user input (tracking frames, unused object slots): one
 * point (0, 0) with label -1, as _forward_sam_heads substitutes for point_inputs = None. */
void samrt_sam2_points_none(struct samrt_sam2_points *out);

/* sam2_base.py::_use_multimask with multimask_output_in_sam, min 0 / max 1 points: three
 * candidate masks for 0 or 1 prompt points (box corners count, the padding point does not),
 * a single mask otherwise. For an initial conditioning frame or multimask_output_for_tracking,
 * which hold in every supported config. */
static inline int samrt_sam2_use_multimask(int n_points) { return n_points >= 0 && n_points <= 1; }

/* fp32 copies of the prompt encoder's and decoder's small constant tensors (host). */
struct samrt_sam2_prompt_tables {
    float gauss[2 * SAMRT_SAM2_PE_FEATS];               /* pe_layer.positional_encoding_gaussian_matrix */
    float point_embed[4][SAMRT_SAM2_DIM];               /* point_embeddings.{0..3}.weight */
    float not_a_point[SAMRT_SAM2_DIM];                  /* not_a_point_embed.weight */
    float out_tokens[SAMRT_SAM2_N_OUT_TOKENS][SAMRT_SAM2_DIM]; /* obj_score_token, iou_token, mask_tokens */
};

/* Reads the tables from the checkpoint in fp32. */
enum samrt_status samrt_sam2_prompt_tables_read(const struct samrt_ckpt *ck, struct samrt_sam2_prompt_tables *out);

/* Sparse embedding rows of one object, fp32: out (pts->n + 1, 256), the last row being the
 * padding point. Returns the row count. */
int samrt_sam2_sparse_host(const struct samrt_sam2_prompt_tables *t, const struct samrt_sam2_points *pts,
                           int model_side, float *out);

/* The decoder's query tokens for n_obj objects, (b_max, t_max, 256) in `dtype` (f32/f16/bf16):
 * per object [6 output tokens | sparse rows | filler up to t_max]. Objects n_obj .. b_max-1
 * get the no-prompt rows (samrt_sam2_points_none). Filler rows hold not_a_point_embed: finite
 * values that no kept result depends on. n_sparse[b] receives each object's sparse row count.
 * SAMRT_E_INVALID_ARG when an object needs more than t_max - 6 sparse rows. */
enum samrt_status samrt_sam2_tokens_fill(const struct samrt_sam2_prompt_tables *t, const struct samrt_sam2_points *pts,
                                         int n_obj, int b_max, int t_max, int model_side, enum samrt_dtype dtype,
                                         void *out, int32_t *n_sparse);

/* Dense PE of the decoder (get_dense_pe) as channels-last tokens (grid*grid, 256), fp32. */
enum samrt_status samrt_sam2_dense_pe_host(const struct samrt_sam2_prompt_tables *t, int grid, float *out);

/* ---- device side ----------------------------------------------------------------------------- */

/* Weights of the dense path; views owned by the engine. */
struct samrt_sam2_prompt_weights {
    const struct samrt_tensor *no_mask_embed;          /* (1, 256) */
    const struct samrt_tensor *ds_w[3], *ds_b[3];      /* mask_downscaling.{0,3,6}: (4,1,2,2) (16,4,2,2) (256,16,1,1) */
    const struct samrt_tensor *ds_ln_w[2], *ds_ln_b[2];/* mask_downscaling.{1,4}: LN2d (4), (16) */
};

/* Binds the dense-path weights by their official names (shapes checked). */
enum samrt_status samrt_sam2_prompt_bind(const struct samrt_model_env *env, struct samrt_sam2_prompt_weights *w);

/* mask_downscaling of a mask prompt m (B, 1, 4*grid, 4*grid) NCHW -> (B, 256, grid, grid) NCHW,
 * as a forward step over the op layer. */
struct samrt_tensor samrt_sam2_mask_embed(struct samrt_op_ctx *c, const struct samrt_sam2_prompt_weights *w,
                                          const struct samrt_tensor *mask);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_PROMPT_ENCODER_H */
