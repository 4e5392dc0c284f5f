/* config.c - the SAM 2 / 2.1 Hiera rows (model-spec section 1.1, from the official YAMLs in
 * sam2/configs/sam2.1 and sam2/configs/sam2, with hieradet.py's defaults for what they omit),
 * the EdgeTAM row (sam2/configs/edgetam.yaml: timm repvit_m1) and the block-table derivation
 * described in config.h.
 * Tested by tests/test_sam2_config.c. */
#include "config.h"

#include <stddef.h>

#define HIERA_DEFAULT_WINDOWS {8, 4, 14, 7}

static const struct samrt_sam2_config g_tiny = {
    SAMRT_MODEL_SAM2_1_TINY, "tiny", {96, 1, {1, 2, 7, 2}, {5, 7, 9, -1}, HIERA_DEFAULT_WINDOWS, 7, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0}};
static const struct samrt_sam2_config g_small = {
    SAMRT_MODEL_SAM2_1_SMALL, "small", {96, 1, {1, 2, 11, 2}, {7, 10, 13, -1}, HIERA_DEFAULT_WINDOWS, 7, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0}};
static const struct samrt_sam2_config g_base_plus = {
    SAMRT_MODEL_SAM2_1_BASE_PLUS, "base_plus",
    {112, 2, {2, 3, 16, 3}, {12, 16, 20, -1}, HIERA_DEFAULT_WINDOWS, 14, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0}};
static const struct samrt_sam2_config g_large = {
    SAMRT_MODEL_SAM2_1_LARGE, "large", {144, 2, {2, 6, 36, 4}, {23, 33, 43, -1}, {8, 4, 16, 8}, 7, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0}};

static const struct samrt_sam2_config g_edgetam = {
    SAMRT_MODEL_EDGETAM, "edgetam", {0, 0, {0}, {0}, {0}, 0, 0}, 256, 3, SAMRT_TRUNK_REPVIT, {{48, 96, 192, 384}, {2, 2, 14, 2}, 2}};

const struct samrt_sam2_config *samrt_sam2_config_get(enum samrt_model_id id) {
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
        out[s] = cfg->trunk == SAMRT_TRUNK_REPVIT ? cfg->repvit.dims[s] : cfg->hiera.embed_dim << s;
}

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
