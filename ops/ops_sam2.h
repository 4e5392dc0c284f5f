/* ops_sam2.h - the op entries of SAM 2's own kernels (kernels/sam2/mask_select.h, mask_decode.h,
 * mem_store.h, fill_holes.h): the SAM heads' mask selection and object-pointer gate, the memory
 * encoder's mask input and bf16 store, and the tracker's hole filling. Same conventions as
 * ops.h: samrt_op_* run inside a PLAN / RUN pass (PLAN validates and plans, RUN launches on
 * the context's backend); the entries that return a status run outside a pass. */
#ifndef SAMRT_OPS_SAM2_H
#define SAMRT_OPS_SAM2_H

#include "mask_select.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MaskDecoder's mask selection and the object gate (mask_select.h): from the four mask logits
 * masks (B, 4, P) f32, their IoU predictions iou (B, 4) f32 and the object scores score
 * (B, 1) f32, picks object b's mask by mode[b] (enum samrt_sam2_mask_mode, B entries) into
 * low_res (B, P) f32 (gated by the score), writes the rows of result (B, SAMRT_SAM2_RES_COLS)
 * f32, and copies the mask token that gives the pointer into token_out (B, dim), run dtype.
 * mask_tokens (B, 4, dim) in the run dtype: mask token k of object b, channels contiguous,
 * tokens dim apart, objects mask_tokens->s[0] apart. */
void samrt_op_sam2_select(struct samrt_op_ctx *c, const struct samrt_tensor *masks, const struct samrt_tensor *iou,
                          const struct samrt_tensor *score, const struct samrt_tensor *mask_tokens,
                          const uint8_t *mode, const struct samrt_tensor *low_res, const struct samrt_tensor *result,
                          const struct samrt_tensor *token_out);

/* The object pointer's gate: out (B, dim) f32 = ptr (B, dim) (run dtype) where result's
 * is-object column is set, else no_obj_ptr (dim) (run dtype). */
void samrt_op_sam2_ptr_gate(struct samrt_op_ctx *c, const struct samrt_tensor *ptr,
                            const struct samrt_tensor *no_obj_ptr, const struct samrt_tensor *result,
                            const struct samrt_tensor *out);

/* The memory encoder's mask input (mask_decode.h, memory path): low-res logits low_res
 * (n_obj, 1, low, low) f32 contiguous, upsampled bilinearly to side x side, then (x > 0)
 * (binarize 1) or sigmoid(x), times scale, plus bias -> (n_obj, 1, side, side) run dtype. */
struct samrt_tensor samrt_op_sam2_mem_input(struct samrt_op_ctx *c, const char *name,
                                            const struct samrt_tensor *low_res, int n_obj, int low, int side,
                                            int binarize, float scale, float bias);

/* The memory store (mem_store.h): out (B, n, dim) bf16 contiguous = bf16(x + (score <= 0) *
 * no_obj) for x (B, n, dim) run dtype, score (B) f32 contiguous, no_obj (dim) run dtype or NULL
 * (no no-object embedding). */
void samrt_op_sam2_mem_store(struct samrt_op_ctx *c, const struct samrt_tensor *x, const struct samrt_tensor *score,
                             const struct samrt_tensor *no_obj, const struct samrt_tensor *out);

/* Hole filling of low-res logits (fill_holes.h), outside a pass, enqueued on c's backend:
 * x (N, 1, H, W) f32 -> out (same shape, may be x), components of at most max_area pixels
 * filled; ws holds samrt_fill_holes_ws_bytes(N, H, W) bytes. */
enum samrt_status samrt_op_fill_holes(const struct samrt_op_ctx *c, const struct samrt_tensor *x, int max_area,
                                       const struct samrt_tensor *out, const struct samrt_tensor *ws);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_OPS_SAM2_H */
