/* image_encoder.h - the SAM 2 / 2.1 and EdgeTAM image encoder: the trunk (Hiera, model-spec
 * 3.1, or EdgeTAM's RepViT-M1, 3.2 and models/edgetam/repvit.h, as the configuration's trunk
 * kind says), FPN neck (3.3) and the mask decoder's conv_s0 / conv_s1 projections (3.4), as
 * one forward pass over the op layer (ops/ops.h). Both trunks give the same outputs.
 * EfficientTAM's ViTDet trunk (models/efficienttam/vitdet.h) brings its own single-scale neck
 * and gives the level-2 `vision` features only (no high-resolution features).
 *
 * Layout: channels-last tokens throughout (ops.h). The model input is NCHW (1, 3, S, S)
 * as the preprocessing writes it; the patch-embed convolution runs NCHW on it and one copy
 * turns its output into tokens while adding the position embedding. Every 1x1 convolution
 * of the neck is a Linear over tokens.
 *
 * Lifecycle, driven by the engine (runtime/sam2.c):
 *   samrt_sam2_encoder_bind     weights by official key name (each key exactly once)
 *   samrt_sam2_encoder_plan     persistent slots (input, outputs, constants) + the PLAN pass
 *   ... arena commit, weights loaded ...
 *   samrt_sam2_encoder_prepare  constants: bicubic pos embed + window tile, neck sine PE
 *   samrt_sam2_encoder_run      per frame: the RUN pass (capturable in a CUDA graph)
 * Weights (read-only views into the engine's weights region) are kept in their own struct,
 * apart from the encoder's state (slots it owns in the arena).
 */
#ifndef SAMRT_SAM2_IMAGE_ENCODER_H
#define SAMRT_SAM2_IMAGE_ENCODER_H

#include "config.h"
#include "model_env.h"
#include "ops.h"
#include "../edgetam/repvit.h"  /* the EdgeTAM trunk (models/edgetam) */
#include "../efficienttam/vitdet.h"  /* the EfficientTAM trunk and neck (models/efficienttam) */

#ifdef __cplusplus
extern "C" {
#endif


/* Weights of one MultiScaleBlock; views owned by the engine (official layouts). */
struct samrt_hiera_block_weights {
    const struct samrt_tensor *norm1_w, *norm1_b;   /* (dim) */
    const struct samrt_tensor *qkv_w, *qkv_b;       /* (3*dim_out, dim), (3*dim_out) */
    const struct samrt_tensor *attn_proj_w, *attn_proj_b; /* (dim_out, dim_out), (dim_out) */
    const struct samrt_tensor *norm2_w, *norm2_b;   /* (dim_out) */
    const struct samrt_tensor *fc1_w, *fc1_b;       /* (4*dim_out, dim_out), (4*dim_out) */
    const struct samrt_tensor *fc2_w, *fc2_b;       /* (dim_out, 4*dim_out), (dim_out) */
    const struct samrt_tensor *proj_w, *proj_b;     /* (dim_out, dim), (dim_out); NULL unless dim != dim_out */
};

struct samrt_sam2_encoder_weights {
    const struct samrt_tensor *pos_embed;           /* (1, E, bkg, bkg); prepare uses the f32 values */
    const struct samrt_tensor *pos_embed_window;    /* (1, E, w0, w0); idem */
    const struct samrt_tensor *patch_w, *patch_b;   /* (E, 3, 7, 7), (E) */
    struct samrt_hiera_block_weights blk[SAMRT_HIERA_MAX_BLOCKS];
    const struct samrt_tensor *neck_w[4], *neck_b[4]; /* convs.j: (256, C_j, 1, 1), (256); j = 0 coarsest */
    const struct samrt_tensor *s0_w, *s0_b;         /* sam_mask_decoder.conv_s0: (32, 256, 1, 1), (32) */
    const struct samrt_tensor *s1_w, *s1_b;         /* sam_mask_decoder.conv_s1: (64, 256, 1, 1), (64) */
};

struct samrt_sam2_encoder {
    const struct samrt_sam2_config *cfg;
    int imgsz;                                      /* model input side S */
    int n_blocks;
    struct samrt_hiera_block blk[SAMRT_HIERA_MAX_BLOCKS];
    int side[4];                                    /* stage map sides: S/4, S/8, S/16, S/32 */
    struct samrt_sam2_encoder_weights w;            /* Hiera trunk (and neck, conv_s0/s1 for both) */
    struct samrt_repvit rv;                         /* RepViT trunk (EdgeTAM) */
    struct samrt_vitdet vit;                        /* ViTDet trunk + its own neck (EfficientTAM): only
                                                       `vision` is written; feat_s0 / feat_s1 stay
                                                       empty (n_dims 0, no slot) */

    /* Arena slots owned by the encoder (views valid after commit; tags before). */
    struct samrt_tensor input;     /* (1, 3, S, S) NCHW, run dtype [scratch]: preprocessed frame, the
                                      encoder pass's first scratch tensor (written just before the
                                      pass, read by the trunk's first op; later passes reuse it) */
    struct samrt_tensor pos;       /* (1, S/4 * S/4, E) tokens [weights]: bicubic pos_embed + window tile (Hiera) */
    struct samrt_tensor vision_pos;/* (1, S/16 * S/16, 256) tokens [weights]: sine PE of level 2 */
    struct samrt_tensor feat_s0;   /* (1, S/4 * S/4, 32) tokens [state]: conv_s0(neck level 0) */
    struct samrt_tensor feat_s1;   /* (1, S/8 * S/8, 64) tokens [state]: conv_s1(neck level 1) */
    struct samrt_tensor vision;    /* (1, S/16 * S/16, 256) tokens [state]: neck level 2 */
    int slot_input, slot_pos, slot_vision_pos, slot_feat_s0, slot_feat_s1, slot_vision;
};

/* Looks up every encoder weight of the configuration (image_encoder.* and the mask decoder's
 * conv_s0 / conv_s1; for RepViT not BatchNorm's num_batches_tracked) in e's weight table and
 * checks its shape, through one binder (model_env.h) that the RepViT trunk shares. bound (may be
 * NULL) receives each key as it is bound, for the "each key exactly once" check and for tests
 * that build weights for a configuration. cfg is borrowed (a samrt_sam2_config_get row, or a test's).
 * e == NULL only lists the keys into bound (the weight views stay NULL). */
enum samrt_status samrt_sam2_encoder_bind(struct samrt_sam2_encoder *enc, const struct samrt_sam2_config *cfg,
                                          int imgsz, const struct samrt_model_env *env,
                                          struct samrt_model_bound_keys *bound);
/* Adds the encoder's persistent slots to c->plan and runs the PLAN pass on c. */
enum samrt_status samrt_sam2_encoder_plan(struct samrt_sam2_encoder *enc, struct samrt_op_ctx *c);
/* After commit: resolves the persistent views against e->arena and writes the constants,
 * computed on the host in fp32 from pos_embed (E, bkg, bkg) and pos_embed_window (E, w0, w0)
 * as the checkpoint stores them (f32, before any rounding to the run dtype), rounded once to
 * the run dtype and uploaded to e->mem_kind memory. A RepViT trunk has no position embedding
 * (pass NULLs); its folded weights are written by samrt_repvit_prepare. */
enum samrt_status samrt_sam2_encoder_prepare(struct samrt_sam2_encoder *enc, const struct samrt_model_env *env,
                                             const float *pos_embed, const float *pos_embed_window);
/* The forward pass (PLAN or RUN, as c's exec is): enc->input -> feat_s0, feat_s1, vision.
 * Taps (ops.h) see "tap.input", "tap.trunk.patch_embed", "tap.trunk.embed",
 * "tap.trunk.block.<i>" (Hiera), "tap.trunk.stem", "tap.trunk.stage.<k>" (RepViT), "tap.trunk.out.<k>", "tap.neck.feat.<i>", "tap.fpn.<0..2>" as
 * channels-last 4-D views (1, H, W, C) (the input as NCHW). */
void samrt_sam2_encoder_forward(struct samrt_sam2_encoder *enc, struct samrt_op_ctx *c);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_IMAGE_ENCODER_H */
