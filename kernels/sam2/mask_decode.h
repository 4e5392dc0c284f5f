/* mask_decode.h - what happens to the decoder's low-res mask logits (n_obj, 256, 256) after
 * each frame, in two single-pass kernels:
 *
 *  samrt_mask_decode_*: the output masks (spec 4.7). Bilinear upsampling straight to the video
 *    size (H, W) (F.interpolate, align_corners=False, no antialias), threshold > 0 -> u8 mask
 *    (n_obj, H, W) of 0/1, and in the same pass each object's area (pixel count) and bounding
 *    box, reduced per block and merged with atomics. Optionally the f32 logits at video size.
 *    Hole filling is a separate step before this one. In the non_overlap variant the multi-object
 *    rule of the official predictor runs in the same pass (_apply_non_overlapping_constraints,
 *    spec 4.7): per pixel only the object with the highest video-size logit (the first one on
 *    ties) may be foreground; the others are clamped to <= -10, so their mask is 0 there.
 *    A thread then owns a pixel of every object: it samples all n_obj logits, keeps the
 *    running maximum in object order, and writes every object's mask bit and statistics.
 *
 *  samrt_mask_decode_mem_input_*: the memory encoder's mask input (spec 3.12,
 *    sam2_base.py::_encode_new_memory). The official order is: bilinear upsample to the model
 *    size (1024) in f32 (the high_res_masks of _forward_sam_heads / _run_memory_encoder), THEN
 *    m = float(x > 0) if binarize else sigmoid(x), THEN m = m * scale (20), THEN m = m + bias
 *    (-10), each step rounded to f32 on its own (no FMA).
 *
 * The bilinear weights come from kernels/interp.h, so the C reference and the CUDA kernel
 * produce bit-identical f32 logits and therefore identical masks and statistics.
 *
 * Usage (per frame, after the decoder):
 *   struct samrt_mask_decode_desc d = {n_obj, 256, 256, video_h, video_w, SAMRT_DTYPE_F32};
 *   samrt_mask_decode_cuda(&d, low_res, masks_u8, stats, NULL, stream);
 */
#ifndef SAMRT_KERNELS_MASK_DECODE_H
#define SAMRT_KERNELS_MASK_DECODE_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-object result. x1, y1 are inclusive. An empty mask has area 0 and the box
 * (W, H, -1, -1), i.e. x1 < x0: the values the reduction starts from. */
struct samrt_mask_stats {
    int32_t area;
    int32_t x0, y0;
    int32_t x1, y1;
};

#define SAMRT_MASK_MAX_OBJ 65535  /* one grid.z slice per object */

struct samrt_mask_decode_desc {
    int n_obj;                   /* 1 .. SAMRT_MASK_MAX_OBJ */
    int h_in, w_in;              /* low-res logits, (n_obj, h_in, w_in) contiguous */
    int h_out, w_out;            /* video size */
    enum samrt_dtype src_dtype;  /* f32, f16 or bf16 */
};

/* logits (n_obj, h_in, w_in) -> mask (n_obj, h_out, w_out) u8 0/1; stats (n_obj) or NULL;
 * logits_out (n_obj, h_out, w_out) f32 or NULL. */
enum samrt_status samrt_mask_decode_ref(const struct samrt_mask_decode_desc *d, const void *logits,
                                        uint8_t *mask, struct samrt_mask_stats *stats,
                                        float *logits_out);
/* The same under the non-overlap rule across the n_obj objects (their order is the official
 * obj_idx order, which decides ties). No logits output: the clamped logits are not needed. */
enum samrt_status samrt_mask_decode_non_overlap_ref(const struct samrt_mask_decode_desc *d, const void *logits,
                                                    uint8_t *mask, struct samrt_mask_stats *stats);

struct samrt_mask_mem_desc {
    int n_obj;                   /* 1 .. SAMRT_MASK_MAX_OBJ */
    int h_in, w_in;              /* low-res logits, (n_obj, h_in, w_in) contiguous */
    int h_out, w_out;            /* model input size, 1024 x 1024 */
    int binarize;                /* 1: x > 0 -> 1/0 (prompted frames with binarize on); 0: sigmoid */
    float scale, bias;           /* sigmoid_scale_for_mem_enc 20, sigmoid_bias_for_mem_enc -10 */
    enum samrt_dtype src_dtype;  /* f32, f16 or bf16 */
    enum samrt_dtype dst_dtype;  /* f32, f16 or bf16 (the memory encoder's run precision) */
};

/* logits (n_obj, h_in, w_in) -> out (n_obj, 1, h_out, w_out). */
enum samrt_status samrt_mask_decode_mem_input_ref(const struct samrt_mask_mem_desc *d,
                                                  const void *logits, void *out);

/* Argument checks shared by the reference and the launchers. */
enum samrt_status samrt_mask_decode_check(const struct samrt_mask_decode_desc *d);
enum samrt_status samrt_mask_decode_mem_check(const struct samrt_mask_mem_desc *d);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* Two launches: one resets stats, one does the work. stats may be NULL. */
enum samrt_status samrt_mask_decode_cuda(const struct samrt_mask_decode_desc *d, const void *logits,
                                         uint8_t *mask, struct samrt_mask_stats *stats,
                                         float *logits_out, cudaStream_t stream);
/* Non-overlap mode, two launches likewise; one block per 128 x 32 tile for all objects. */
enum samrt_status samrt_mask_decode_non_overlap_cuda(const struct samrt_mask_decode_desc *d, const void *logits,
                                                     uint8_t *mask, struct samrt_mask_stats *stats,
                                                     cudaStream_t stream);
enum samrt_status samrt_mask_decode_mem_input_cuda(const struct samrt_mask_mem_desc *d,
                                                   const void *logits, void *out,
                                                   cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_MASK_DECODE_H */
