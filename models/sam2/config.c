/* config.c - the SAM 2 / 2.1 Hiera rows (model-spec section 1.1, from the official YAMLs in
 * sam2/configs/sam2.1 and sam2/configs/sam2, with hieradet.py's defaults for what they omit),
 * the EdgeTAM row (sam2/configs/edgetam.yaml: timm repvit_m1), the EfficientTAM rows
 * (efficient_track_anything/configs/efficienttam/efficienttam_*.yaml, yformer/EfficientTAM)
 * and the block-table derivation described in config.h.
 * Tested by tests/test_sam2_config.c. */
#include "config.h"

#include <stddef.h>

#define HIERA_DEFAULT_WINDOWS {8, 4, 14, 7}
/* the EfficientTAM fields of the other rows: none */
#define NO_VITDET {0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, SAMRT_KV_FULL, 0, 0

static const struct samrt_sam2_config g_tiny = {
    SAMRT_MODEL_SAM2_1_TINY, "tiny", {96, 1, {1, 2, 7, 2}, {5, 7, 9, -1}, HIERA_DEFAULT_WINDOWS, 7, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0}, NO_VITDET};
static const struct samrt_sam2_config g_small = {
    SAMRT_MODEL_SAM2_1_SMALL, "small", {96, 1, {1, 2, 11, 2}, {7, 10, 13, -1}, HIERA_DEFAULT_WINDOWS, 7, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0}, NO_VITDET};
static const struct samrt_sam2_config g_base_plus = {
    SAMRT_MODEL_SAM2_1_BASE_PLUS, "base_plus",
    {112, 2, {2, 3, 16, 3}, {12, 16, 20, -1}, HIERA_DEFAULT_WINDOWS, 14, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0}, NO_VITDET};
static const struct samrt_sam2_config g_large = {
    SAMRT_MODEL_SAM2_1_LARGE, "large", {144, 2, {2, 6, 36, 4}, {23, 33, 43, -1}, {8, 4, 16, 8}, 7, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0}, NO_VITDET};

static const struct samrt_sam2_config g_edgetam = {
    SAMRT_MODEL_EDGETAM, "edgetam", {0, 0, {0}, {0}, {0}, 0, 0}, 256, 3, SAMRT_TRUNK_REPVIT, {{48, 96, 192, 384}, {2, 2, 14, 2}, 2}, NO_VITDET};

/* EfficientTAM: every YAML has ViT(patch_size 16, depth 12, mlp_ratio 4, window_size 14,
 * window_block_indexes [0, 1, 3, 4, 6, 7, 9, 10]) -- blocks 2, 5, 8, 11 global --, ViTDetNeck
 * (d_model 256, neck_norm LN), use_high_res_features_in_sam false, add_tpos_enc_to_obj_ptrs
 * false (and neither proj_tpos_enc_in_obj_ptrs nor no_obj_embed_spatial: their defaults, off),
 * directly_add_no_mem_embed and use_mask_input_as_output_without_sam true (as SAM 2.1).
 * Ti: embed_dim 192, 3 heads; S: 384, 6 heads. _1 / _2: the memory cross-attention is
 * EfficientRoPEAttention1 / 2; _512x512: image_size 512 (RoPE feat_sizes 32). */
#define VIT_WINDOWED ((1u << 0) | (1u << 1) | (1u << 3) | (1u << 4) | (1u << 6) | (1u << 7) | (1u << 9) | (1u << 10))
#define VIT_TI {192, 12, 3, 16, 14, VIT_WINDOWED, 4, 14, 1}
#define VIT_S {384, 12, 6, 16, 14, VIT_WINDOWED, 4, 14, 1}
#define EFFTAM(id, name, vit, size, pool)                                                                      \
    {id, name, {0, 0, {0}, {0}, {0}, 0, 0}, 256, 1, SAMRT_TRUNK_VITDET, {{0}, {0}, 0}, vit, size, pool, 1, 1}

static const struct samrt_sam2_config g_efftam[] = {
    EFFTAM(SAMRT_MODEL_EFFICIENTTAM_TI, "efficienttam_ti", VIT_TI, 1024, SAMRT_KV_FULL),
    EFFTAM(SAMRT_MODEL_EFFICIENTTAM_TI_1, "efficienttam_ti_1", VIT_TI, 1024, SAMRT_KV_POOL_LOGIT),
    EFFTAM(SAMRT_MODEL_EFFICIENTTAM_TI_2, "efficienttam_ti_2", VIT_TI, 1024, SAMRT_KV_POOL_KEY),
    EFFTAM(SAMRT_MODEL_EFFICIENTTAM_TI_512, "efficienttam_ti_512x512", VIT_TI, 512, SAMRT_KV_FULL),
    EFFTAM(SAMRT_MODEL_EFFICIENTTAM_S, "efficienttam_s", VIT_S, 1024, SAMRT_KV_FULL),
    EFFTAM(SAMRT_MODEL_EFFICIENTTAM_S_1, "efficienttam_s_1", VIT_S, 1024, SAMRT_KV_POOL_LOGIT),
    EFFTAM(SAMRT_MODEL_EFFICIENTTAM_S_2, "efficienttam_s_2", VIT_S, 1024, SAMRT_KV_POOL_KEY),
    EFFTAM(SAMRT_MODEL_EFFICIENTTAM_S_512, "efficienttam_s_512x512", VIT_S, 512, SAMRT_KV_FULL),
};

const struct samrt_sam2_config *samrt_sam2_config_get(enum samrt_model_id id) {
    for (size_t i = 0; i < sizeof g_efftam / sizeof g_efftam[0]; i++)
        if (g_efftam[i].id == id) return &g_efftam[i];
    switch (id) {
    case SAMRT_MODEL_SAM2_1_TINY: case SAMRT_MODEL_SAM2_TINY: return &g_tiny;
    case SAMRT_MODEL_SAM2_1_SMALL: case SAMRT_MODEL_SAM2_SMALL: return &g_small;
    case SAMRT_MODEL_SAM2_1_BASE_PLUS: case SAMRT_MODEL_SAM2_BASE_PLUS: return &g_base_plus;
    case SAMRT_MODEL_SAM2_1_LARGE: case SAMRT_MODEL_SAM2_LARGE: return &g_large;
    case SAMRT_MODEL_EDGETAM: return &g_edgetam;
    default: return NULL;
    }
}

void samrt_sam2_trunk_channels(const struct samrt_sam2_config *cfg, int out[4]) {
    for (int s = 0; s < 4; s++)
        out[s] = cfg->trunk == SAMRT_TRUNK_REPVIT ? cfg->repvit.dims[s]
                 : cfg->trunk == SAMRT_TRUNK_VITDET ? (s == 2 ? cfg->vitdet.embed_dim : 0)  /* one level, stride 16 */
                                                    : cfg->hiera.embed_dim << s;
}

int samrt_sam2_is_efficienttam(const struct samrt_sam2_config *cfg) { return cfg && cfg->trunk == SAMRT_TRUNK_VITDET; }

static int is_global(const struct samrt_hiera_config *h, int i) {
    for (int g = 0; g < SAMRT_HIERA_MAX_GLOBAL; g++)
        if (h->global_blocks[g] == i) return 1;
    return 0;
}

int samrt_hiera_blocks(const struct samrt_hiera_config *h, struct samrt_hiera_block *blk) {
    int stage_end[SAMRT_HIERA_N_STAGES], n = 0;
    for (int s = 0; s < SAMRT_HIERA_N_STAGES; s++) {
        n += h->stages[s];
        stage_end[s] = n - 1;
    }
    if (n > SAMRT_HIERA_MAX_BLOCKS) return 0;
    int dim = h->embed_dim, heads = h->num_heads, stage = 0;
    for (int i = 0; i < n; i++) {
        struct samrt_hiera_block *b = &blk[i];
        /* the window comes from the stage before the increment below: it lags one block */
        b->window = is_global(h, i) ? 0 : h->window_spec[stage];
        b->dim = dim;
        b->q_pool = 0;
        if (i > 0 && i - 1 == stage_end[stage]) {
            b->q_pool = stage < h->q_pool;
            dim *= 2;
            heads *= 2;
            stage++;
        }
        b->dim_out = dim;
        b->heads = heads;
        b->stage = stage;
        b->stage_end = i == stage_end[stage];
    }
    return n;
}

enum samrt_status samrt_sam2_check_imgsz(int imgsz) {
    SAMRT_CHECK(imgsz >= 32 && imgsz % 32 == 0, SAMRT_E_INVALID_ARG,
                "sam2: image size %d must be a positive multiple of 32", imgsz);
    return SAMRT_OK;
}
