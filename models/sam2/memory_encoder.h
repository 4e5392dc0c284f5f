/* memory_encoder.h - SAM 2.1's memory encoder (model-spec 3.12, sam2_base.py::_encode_new_memory
 * and memory_encoder.py) over the op layer (ops/ops.h), batched over the object slots of one
 * frame: the selected low-res mask logits of each object and the frame's RAW vision features
 * become that object's memory, written into a slot the caller names (a ring entry of the
 * tracker's state), so the tracker decides where memories live.
 *
 * Forward order (the official one, each step rounded to the run dtype as PyTorch does):
 *   1. mask input: bilinear 256 -> model side (f32), then float(x > 0) when `binarize` else
 *      sigmoid(x), * 20, - 10 (kernels/sam2/mask_decode.h, memory path);
 *   2. mask downsampler, NCHW: 4 x [Conv 3x3 s2 p1 -> LN2d (eps 1e-6) -> GELU], channels
 *      1 -> 4 -> 16 -> 64 -> 256, then (channels-last) Conv 1x1 256 -> 256;
 *   3. x = pix_feat_proj(pix_feat) + mask features (the 1x1 conv with the projection as
 *      residual: one rounding, as the official add);
 *   4. fuser: 2 CXBlocks (depthwise 7x7, LN2d, pwconv1 -> GELU -> pwconv2, gamma, residual);
 *   5. out_proj 256 -> 64;
 *   6. SAM 2.1: + (1 - float(score > 0)) * no_obj_embed_spatial, per object;
 *   7. rounded to bfloat16 (round-to-nearest-even) into the caller's slot, whatever the run
 *      precision: the official predictor stores maskmem_features with .to(torch.bfloat16).
 * The memory position encoding (PositionEmbeddingSine(64) of the g x g map) is a constant:
 * computed once at prepare into `pos`, never per frame.
 *
 * Lifecycle (as the SAM heads', mask_decoder.h):
 *   samrt_sam2_memenc_bind      weights by official name, shapes checked
 *   samrt_sam2_memenc_plan      persistent slots (pos); the PLAN pass is samrt_sam2_memenc_forward
 *                               on a PLAN-mode context
 *   ... arena commit, weights loaded ...
 *   samrt_sam2_memenc_prepare   slot views; the constant position encoding
 *   per memory: samrt_sam2_memenc_forward(me, c, vision, low_res, score, binarize, out)
 *
 * `binarize` is part of the pass (a kernel argument), so a captured graph holds one value:
 * tracked frames use 0 (sigmoid); prompted frames use 1 only with the notebook switch
 * binarize_mask_from_pts_for_mem_enc on (vos_inference leaves it off).
 * Taps (ops.h, RUN mode): tap.memenc.mask_input (B,1,S,S), tap.memenc.downsampled (B,g,g,256),
 * tap.memenc.fused (B,g,g,256), tap.memenc.features (B,g,g,64), before the bf16 store.
 *
 * EdgeTAM (samrt_sam2_memenc_forward_perceiver): steps 1-5, then the spatial perceiver
 * (models/edgetam/perceiver.h) compresses the features to 512 tokens per object, which step 7
 * stores; no step 6 (EdgeTAM has no no_obj_embed_spatial).
 */
#ifndef SAMRT_SAM2_MEMORY_ENCODER_H
#define SAMRT_SAM2_MEMORY_ENCODER_H

#include "model_env.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_edgetam_perceiver;

#define SAMRT_SAM2_MEM_DIM 64         /* memory encoder out_dim = mem_dim */
#define SAMRT_SAM2_MEM_SCALE 20.0f    /* sigmoid_scale_for_mem_enc */
#define SAMRT_SAM2_MEM_BIAS (-10.0f)  /* sigmoid_bias_for_mem_enc */

struct samrt_sam2_memenc_weights {
    const struct samrt_tensor *ds_w[5], *ds_b[5];     /* mask_downsampler.encoder.{0,3,6,9,12} */
    const struct samrt_tensor *ds_ln_w[4], *ds_ln_b[4]; /* encoder.{1,4,7,10} (LN2d) */
    const struct samrt_tensor *pix_w, *pix_b;         /* pix_feat_proj (256,256,1,1) */
    const struct samrt_tensor *dw_w[2], *dw_b[2];     /* fuser.layers.{l}.dwconv (256,1,7,7) */
    const struct samrt_tensor *ln_w[2], *ln_b[2];     /* fuser.layers.{l}.norm */
    const struct samrt_tensor *pw1_w[2], *pw1_b[2];   /* pwconv1 (1024,256) */
    const struct samrt_tensor *pw2_w[2], *pw2_b[2];   /* pwconv2 (256,1024) */
    const struct samrt_tensor *gamma[2];              /* (256) */
    const struct samrt_tensor *out_w, *out_b;         /* out_proj (64,256,1,1) */
    const struct samrt_tensor *no_obj_spatial;        /* no_obj_embed_spatial (1,64); NULL: absent */
};

struct samrt_sam2_memenc_config {
    int model_side;              /* S, the model input side (1024); g = S / 16 */
    int b_max;                   /* object slots per pass */
    enum samrt_dtype dtype;      /* run precision */
};

struct samrt_sam2_memenc {
    struct samrt_sam2_memenc_config cfg;
    int grid;                    /* g */
    int low;                     /* 4g: side of the low-res mask logits */
    struct samrt_sam2_memenc_weights w;
    struct samrt_tensor pos;     /* (1, g*g, 64) f32 [weights]: maskmem_pos_enc, channels-last */
    int slot_pos;
};

/* Checks the config and binds memory_encoder.* (and no_obj_embed_spatial when the checkpoint
 * has it: SAM 2.1; SAM 2.0 lacks it) by official name. */
enum samrt_status samrt_sam2_memenc_bind(struct samrt_sam2_memenc *me, const struct samrt_sam2_memenc_config *cfg,
                                         const struct samrt_model_env *env);
/* Adds the persistent slot (pos) to c->plan. */
enum samrt_status samrt_sam2_memenc_plan(struct samrt_sam2_memenc *me, struct samrt_op_ctx *c);
/* After commit: resolves `pos` and writes it (sine PE, fp32). */
enum samrt_status samrt_sam2_memenc_prepare(struct samrt_sam2_memenc *me, const struct samrt_model_env *env);

/* The memory encoder pass (PLAN or RUN, as c's exec is).
 *   vision   (Bv, g*g, 256) run dtype, channels-last: the RAW neck level-2 features, Bv = 1
 *            (shared by the objects) or b_max;
 *   low_res  (b_max, 1, 4g, 4g) f32: the selected, gated low-res mask logits (heads' low_res);
 *   score    (b_max, 1) f32: object-score logits (> 0: present);
 *   binarize 1: mask input float(logit > 0) (prompted frames with the notebook switch);
 *   out      (b_max, g*g, 64) bf16, any contiguous slot of the caller (the stored memory,
 *            maskmem_features channels-last: token y*g + x, 64 channels). */
void samrt_sam2_memenc_forward(struct samrt_sam2_memenc *me, struct samrt_op_ctx *c,
                               const struct samrt_tensor *vision, const struct samrt_tensor *low_res,
                               const struct samrt_tensor *score, int binarize, const struct samrt_tensor *out);

/* Steps 1-5 only: the out_proj features (b_max, g*g, 64) run dtype, channels-last (a scratch
 * tensor of the pass), before the no-object embedding and the bf16 store. EdgeTAM's memory
 * path continues with its perceiver (models/edgetam/perceiver.h). */
struct samrt_tensor samrt_sam2_memenc_features(struct samrt_sam2_memenc *me, struct samrt_op_ctx *c,
                                               const struct samrt_tensor *vision, const struct samrt_tensor *low_res,
                                               int binarize);

/* EdgeTAM's _encode_new_memory: steps 1-5 -> the perceiver p (bound for the same b_max) -> bf16
 * (round to nearest even, the predictor's .to(torch.bfloat16)) into out (b_max, 512, 64) bf16, a
 * contiguous slot of the caller. Arguments as samrt_sam2_memenc_forward (no score: EdgeTAM has
 * no no_obj_embed_spatial). */
void samrt_sam2_memenc_forward_perceiver(struct samrt_edgetam_perceiver *p, struct samrt_sam2_memenc *me,
                                         struct samrt_op_ctx *c, const struct samrt_tensor *vision,
                                         const struct samrt_tensor *low_res, int binarize,
                                         const struct samrt_tensor *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_MEMORY_ENCODER_H */
