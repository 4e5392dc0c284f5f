/* vitdet.h - EfficientTAM's image trunk and neck: a plain ViTDet ViT (backbones/vitdet.py
 * ViT: patch 16 embed, an absolute position embedding pretrained at 224 with a cls row,
 * windowed and global attention blocks) and the single-scale ViTDetNeck
 * (backbones/image_encoder.py: conv 1x1 -> LayerNorm2d -> conv 3x3 -> LayerNorm2d, both
 * convs without bias because neck_norm is LN), as one forward pass over the op layer.
 *
 * What the official code does, and how it maps here:
 *   - PatchEmbed: Conv2d(3, E, 16, stride 16) on the NCHW input, permuted to (B, H, W, E);
 *     here the NCHW conv and one copy into tokens that adds the position embedding.
 *   - get_abs_pos: pos_embed (1, 1 + 14*14, E) drops its cls row, is seen as a 14 x 14 map
 *     and, when the token map is not 14 x 14, resized with F.interpolate(bicubic,
 *     align_corners=False) in fp32 (bilinear only on Apple MPS, which samrt does not mirror).
 *     It depends only on the weights and the image size: computed once at prepare, in fp32
 *     from the checkpoint's values, and rounded once to the run dtype.
 *   - Block: x + proj(attn(norm1 x)) then x + mlp(norm2 x); LayerNorm eps 1e-6, GELU (erf),
 *     no layer scale, no relative position. Windowed blocks pad the normed map to a multiple
 *     of the window with zeros and attend per window: here the attention op's window mode,
 *     which gives padded keys the qkv bias as k and v (what a zero token projects to) and
 *     never writes padded queries, as the Hiera trunk does.
 *   - The neck's 3x3 conv runs NCHW (the checkpoint's layout), its LayerNorm2d over channels
 *     on the NCHW map, and the result is copied into the encoder's channels-last level-2
 *     output; the 1x1 conv is a Linear over tokens and its LayerNorm2d a LayerNorm over the
 *     channels of each token (the same arithmetic).
 * There is no high-resolution output: the SAM heads of EfficientTAM run without conv_s0 /
 * conv_s1 (use_high_res_features_in_sam false).
 *
 * A building block below models/sam2 (which composes it into the SAM 2 family's image
 * encoder); it includes nothing of models/sam2 and binds through the binder of model_env.h.
 *
 *   samrt_vitdet_bind     every trunk and neck key by official name and shape
 *   samrt_vitdet_plan     the position-embedding slot (weights region)
 *   samrt_vitdet_prepare  after commit: the resized position embedding (from f32 values)
 *   samrt_vitdet_forward  the PLAN / RUN pass: NCHW input -> (1, g*g, 256) tokens
 */
#ifndef SAMRT_EFFICIENTTAM_VITDET_H
#define SAMRT_EFFICIENTTAM_VITDET_H

#include "model_env.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_ckpt;

#define SAMRT_VITDET_MAX_BLOCKS 24
#define SAMRT_VITDET_NECK_DIM 256

/* ViT(...) and ViTDetNeck(...) of configs/efficienttam/efficienttam_*.yaml, with vitdet.py's
 * defaults for what the YAMLs omit (pretrain_img_size 224, pretrain_use_cls_token True). */
struct samrt_vitdet_config {
    int embed_dim;            /* E: 192 (Ti), 384 (S) */
    int depth;                /* blocks: 12 */
    int num_heads;            /* 3 (Ti), 6 (S): head dim 64 */
    int patch;                /* 16 */
    int window;               /* window_size of the windowed blocks: 14 */
    uint32_t window_blocks;   /* bit i set: block i is windowed (window_block_indexes) */
    int mlp_ratio;            /* 4 */
    int pretrain_grid;        /* pretrain_img_size / patch: the pos_embed side, 14 */
    int cls_token;            /* 1: pos_embed carries a leading cls row */
};

struct samrt_vitdet_block_weights {
    const struct samrt_tensor *norm1_w, *norm1_b, *qkv_w, *qkv_b, *proj_w, *proj_b;
    const struct samrt_tensor *norm2_w, *norm2_b, *fc1_w, *fc1_b, *fc2_w, *fc2_b;
};

struct samrt_vitdet {
    const struct samrt_vitdet_config *cfg;
    int imgsz, grid;                          /* input side S; token map side g = S / patch */
    const struct samrt_tensor *pos_embed;     /* (1, 1 + 14*14, E); prepare reads its f32 values */
    const struct samrt_tensor *patch_w, *patch_b;
    struct samrt_vitdet_block_weights blk[SAMRT_VITDET_MAX_BLOCKS];
    const struct samrt_tensor *neck_w1, *neck_n0_w, *neck_n0_b;  /* conv_1x1 (256, E, 1, 1), norm_0 */
    const struct samrt_tensor *neck_w3, *neck_n1_w, *neck_n1_b;  /* conv_3x3 (256, 256, 3, 3), norm_1 */
    struct samrt_tensor pos;                  /* (1, g*g, E) run dtype [weights]: resized pos_embed */
    int slot_pos;
};

/* 1 when block i of cfg is windowed. */
int samrt_vitdet_windowed(const struct samrt_vitdet_config *cfg, int i);
/* Checks cfg and imgsz (a positive multiple of the patch) and binds image_encoder.trunk.* and
 * image_encoder.neck.* through b. */
enum samrt_status samrt_vitdet_bind(struct samrt_vitdet *vt, const struct samrt_vitdet_config *cfg, int imgsz,
                                    struct samrt_model_binder *b);
enum samrt_status samrt_vitdet_plan(struct samrt_vitdet *vt, struct samrt_op_ctx *c);
/* The resized position embedding: pos_embed (1 + pretrain_grid^2, E) f32 values as stored,
 * into vt->pos (resolved from its slot). samrt_vitdet_prepare reads them from the checkpoint. */
enum samrt_status samrt_vitdet_prepare_with(struct samrt_vitdet *vt, const struct samrt_model_env *env,
                                            const float *pos_embed);
enum samrt_status samrt_vitdet_prepare(struct samrt_vitdet *vt, const struct samrt_model_env *env,
                                       const struct samrt_ckpt *ck);
/* The pos table on the host: out (g*g, E) f32 = get_abs_pos(pos_embed) as tokens. */
enum samrt_status samrt_vitdet_pos_table(const struct samrt_vitdet_config *cfg, int grid, const float *pos_embed,
                                         float *out);
/* The forward pass on input (1, 3, S, S) NCHW; writes the neck output into out (1, g*g, 256)
 * channels-last (the encoder's level-2 vision features). Taps: "tap.trunk.patch_embed",
 * "tap.trunk.embed", "tap.trunk.block.<i>", "tap.trunk.out.0", "tap.neck.conv_1x1",
 * as (1, g, g, C) views. */
void samrt_vitdet_forward(struct samrt_vitdet *vt, struct samrt_op_ctx *c, const struct samrt_tensor *input,
                          const struct samrt_tensor *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_EFFICIENTTAM_VITDET_H */
