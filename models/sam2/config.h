/* config.h - the image-encoder configurations (model-spec section 1.1) and the per-block
 * table of the Hiera trunk derived from them (section 3.1). SAM 2.0 and 2.1 share the image
 * path (the 2.1 switches only touch the memory and pointer paths), so each size has one
 * Hiera row; the model ids of both versions map onto it. EdgeTAM has one row too: a RepViT-M1
 * trunk (section 3.2, models/edgetam/repvit.h) in front of the same neck and SAM heads, so
 * everything after the trunk reads the same fields (d_model, n_levels, trunk_channels).
 * EfficientTAM's rows carry a ViTDet trunk with its single-scale neck (models/efficienttam/
 * vitdet.h) and the switches its YAMLs set apart from SAM 2.1 (image size, the pooled
 * memory cross-attention of the /1 and /2 variants, no high-resolution features, no pointer
 * temporal encoding).
 *
 * The block rules are the official constructor's (hieradet.py Hiera.__init__):
 *   - stage_ends[s] = index of the last block of stage s; the first block of stages 2..4
 *     doubles dim and heads and pools q by 2x2 (q_pool = 3 stages);
 *   - the window size of a block is window_spec of the stage of the PREVIOUS block for the
 *     first block of a stage (it lags one block), else of its own stage; 0 (global) for the
 *     global_att_blocks.
 *
 *   const struct samrt_sam2_config *cfg = samrt_sam2_config_get(SAMRT_MODEL_SAM2_1_TINY);
 *   struct samrt_hiera_block blk[SAMRT_HIERA_MAX_BLOCKS];
 *   int n = samrt_hiera_blocks(&cfg->hiera, blk);       // 12 for tiny
 */
#ifndef SAMRT_SAM2_CONFIG_H
#define SAMRT_SAM2_CONFIG_H

#include "../edgetam/repvit.h"  /* struct samrt_repvit_config (models/edgetam, below sam2) */
#include "../efficienttam/vitdet.h"  /* struct samrt_vitdet_config (models/efficienttam, below sam2) */
#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_HIERA_MAX_BLOCKS 64
#define SAMRT_HIERA_N_STAGES 4
#define SAMRT_HIERA_MAX_GLOBAL 4

struct samrt_hiera_config {
    int embed_dim;                          /* stage-1 width E (doubles per stage) */
    int num_heads;                          /* stage-1 heads (doubles per stage) */
    int stages[SAMRT_HIERA_N_STAGES];       /* blocks per stage */
    int global_blocks[SAMRT_HIERA_MAX_GLOBAL]; /* global-attention block indices, -1 = none */
    int window_spec[SAMRT_HIERA_N_STAGES];  /* window side per stage */
    int bkg;                                /* window_pos_embed_bkg_spatial_size: pos_embed side */
    int q_pool;                             /* stages (from 2) whose first block pools q: 3 */
};

enum samrt_trunk_kind { SAMRT_TRUNK_HIERA = 0, SAMRT_TRUNK_REPVIT, SAMRT_TRUNK_VITDET };

/* The memory attention's cross-attention over spatial memories (EfficientTAM's YAMLs:
 * memory_attention.layer.cross_attention._target_). */
enum samrt_kv_pool {
    SAMRT_KV_FULL = 0,   /* RoPEAttention: every memory token is a key (SAM 2, EdgeTAM, EfficientTAM Ti / S) */
    SAMRT_KV_POOL_LOGIT, /* EfficientRoPEAttention1: 2x2-pooled keys whose logits gain 2 ln 2 (the /1 variants) */
    SAMRT_KV_POOL_KEY,   /* EfficientRoPEAttention2: 2x2-pooled keys + 2 ln 2 on every element (the /2 variants) */
};

struct samrt_sam2_config {
    enum samrt_model_id id;
    const char *name;
    struct samrt_hiera_config hiera;        /* Hiera rows only */
    int d_model;                            /* neck width: 256 */
    int n_levels;                           /* FPN levels kept after the scalp: 3 */
    enum samrt_trunk_kind trunk;            /* zero (Hiera) for the SAM 2 rows */
    struct samrt_repvit_config repvit;      /* RepViT rows only */
    /* EfficientTAM rows only (all zero for SAM 2 and EdgeTAM) */
    struct samrt_vitdet_config vitdet;      /* ViTDet trunk + single-scale neck */
    int image_size;                         /* the model's image_size (0: 1024, any --imgsz) */
    enum samrt_kv_pool kv_pool;             /* memory cross-attention variant */
    int no_high_res;                        /* use_high_res_features_in_sam false: no conv_s0 / conv_s1 */
    int no_ptr_tpos;                        /* add_tpos_enc_to_obj_ptrs false: pointer positions 0,
                                               no obj_ptr_tpos_proj (EdgeTAM is the same) */
};

/* One Hiera block (MultiScaleBlock). */
struct samrt_hiera_block {
    int dim, dim_out;       /* input and output width */
    int heads;              /* head dim = dim_out / heads */
    int window;             /* window side; 0 = global attention */
    int q_pool;             /* 1: q (and the projected shortcut) are 2x2 max-pooled */
    int stage;              /* 0..3 */
    int stage_end;          /* 1: the last block of its stage (an FPN input) */
};

/* The configuration of a SAM 2.0 / 2.1, EdgeTAM or EfficientTAM model, or NULL (UNKNOWN). */
const struct samrt_sam2_config *samrt_sam2_config_get(enum samrt_model_id id);
/* The widths of the four trunk outputs, high resolution first (the reverse of the neck's
 * backbone_channel_list): 96, 192, 384, 768 for tiny; 48, 96, 192, 384 for EdgeTAM. */
void samrt_sam2_trunk_channels(const struct samrt_sam2_config *cfg, int out[4]);
/* 1 for the rows with a ViTDet trunk (EfficientTAM). */
int samrt_sam2_is_efficienttam(const struct samrt_sam2_config *cfg);
/* Fills blk (SAMRT_HIERA_MAX_BLOCKS entries) and returns the number of blocks. */
int samrt_hiera_blocks(const struct samrt_hiera_config *h, struct samrt_hiera_block *blk);
/* Checks the sizes an encoder can run at: imgsz a positive multiple of 32 (four 2x
 * reductions after the stride-4 patch embed or RepViT's two stride-2 stem convs, none of
 * them flooring). */
enum samrt_status samrt_sam2_check_imgsz(int imgsz);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_CONFIG_H */
