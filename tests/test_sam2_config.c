/* test_sam2_config.c - the SAM 2 Hiera and EdgeTAM configurations and the encoder's weight
 * binding:
 *   - tiny's block table equals model-spec 3.1's table row by row (hand-copied values);
 *   - small / base_plus / large: stage ends, head dims, global blocks, q-pool blocks and the
 *     lagging window sizes named in the spec;
 *   - EdgeTAM's RepViT row: stage widths, depths, trunk channels (model-spec 1.1) and the SE
 *     widths of 3.2;
 *   - for every SAM 2.0 / 2.1 size and EdgeTAM, binding against the model's full key list
 *     (models/sam2/keys.c, an independent generator) binds every image_encoder.* key (but BatchNorm's
 *     num_batches_tracked) and the mask decoder's conv_s0 / conv_s1 exactly once, with the
 *     checkpoint's shape, and nothing else. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "engine_impl.h"
#include "image_encoder.h"
#include "keys.h"

static void test_tiny_table(void) {
    /* model-spec 3.1, "Tiny, at 1024 input": dim, dim_out, heads, ws, q-pool */
    static const int want[12][5] = {
        {96, 96, 1, 8, 0},    {96, 192, 2, 8, 1},   {192, 192, 2, 4, 0},  {192, 384, 4, 4, 1},
        {384, 384, 4, 14, 0}, {384, 384, 4, 0, 0},  {384, 384, 4, 14, 0}, {384, 384, 4, 0, 0},
        {384, 384, 4, 14, 0}, {384, 384, 4, 0, 0},  {384, 768, 8, 14, 1}, {768, 768, 8, 7, 0},
    };
    struct samrt_hiera_block blk[SAMRT_HIERA_MAX_BLOCKS];
    const struct samrt_sam2_config *cfg = samrt_sam2_config_get(SAMRT_MODEL_SAM2_1_TINY);
    CHECK(cfg != NULL);
    CHECK_EQ_INT(samrt_hiera_blocks(&cfg->hiera, blk), 12);
    for (int i = 0; i < 12; i++) {
        CHECK_MSG(blk[i].dim == want[i][0] && blk[i].dim_out == want[i][1] && blk[i].heads == want[i][2] &&
                      blk[i].window == want[i][3] && blk[i].q_pool == want[i][4],
                  "tiny block %d: %d->%d heads %d ws %d qpool %d", i, blk[i].dim, blk[i].dim_out, blk[i].heads,
                  blk[i].window, blk[i].q_pool);
        CHECK_EQ_INT(blk[i].stage_end, i == 0 || i == 2 || i == 9 || i == 11);
    }
    CHECK(samrt_sam2_config_get(SAMRT_MODEL_SAM2_TINY) == cfg);  /* 2.0 shares the image path */
    CHECK(cfg->trunk == SAMRT_TRUNK_HIERA);
    CHECK(samrt_sam2_config_get(SAMRT_MODEL_UNKNOWN) == NULL);
}

static void test_edgetam_row(void) {
    const struct samrt_sam2_config *cfg = samrt_sam2_config_get(SAMRT_MODEL_EDGETAM);
    CHECK(cfg != NULL);
    if (!cfg) return;
    CHECK(cfg->trunk == SAMRT_TRUNK_REPVIT && cfg->d_model == 256 && cfg->n_levels == 3);
    static const int dims[4] = {48, 96, 192, 384}, depth[4] = {2, 2, 14, 2}, se[4] = {16, 24, 48, 96};
    int ch[4];
    samrt_sam2_trunk_channels(cfg, ch);
    for (int s = 0; s < 4; s++) {
        CHECK_EQ_INT(cfg->repvit.dims[s], dims[s]);
        CHECK_EQ_INT(cfg->repvit.depth[s], depth[s]);
        CHECK_EQ_INT(ch[s], dims[s]);
        CHECK_EQ_INT(samrt_repvit_se_dim(dims[s]), se[s]);
    }
    CHECK_EQ_INT(cfg->repvit.mlp_ratio, 2);
    samrt_sam2_trunk_channels(samrt_sam2_config_get(SAMRT_MODEL_SAM2_1_LARGE), ch);
    CHECK(ch[0] == 144 && ch[1] == 288 && ch[2] == 576 && ch[3] == 1152);
}

struct size_case {
    enum samrt_model_id id;
    int n_blocks, stage_ends[4], head_dim, global[3];
    int ws_stage3, ws_stage4;  /* window of the non-first, non-global blocks of stages 3 and 4 */
};

static void test_other_sizes(void) {
    static const struct size_case cases[] = {
        {SAMRT_MODEL_SAM2_1_SMALL, 16, {0, 2, 13, 15}, 96, {7, 10, 13}, 14, 7},
        {SAMRT_MODEL_SAM2_1_BASE_PLUS, 24, {1, 4, 20, 23}, 56, {12, 16, 20}, 14, 7},
        {SAMRT_MODEL_SAM2_1_LARGE, 48, {1, 7, 43, 47}, 72, {23, 33, 43}, 16, 8},
    };
    for (size_t c = 0; c < SAMRT_ARRAY_LEN(cases); c++) {
        const struct size_case *k = &cases[c];
        struct samrt_hiera_block blk[SAMRT_HIERA_MAX_BLOCKS];
        const struct samrt_sam2_config *cfg = samrt_sam2_config_get(k->id);
        CHECK(cfg != NULL);
        if (!cfg) continue;
        CHECK_EQ_INT(samrt_hiera_blocks(&cfg->hiera, blk), k->n_blocks);
        for (int i = 0, s = 0; i < k->n_blocks; i++) {
            const int is_end = i == k->stage_ends[s];
            const int is_first = i > 0 && i - 1 == k->stage_ends[s > 0 ? s - 1 : 0] && s > 0;
            CHECK_MSG(blk[i].stage_end == is_end, "%s block %d stage_end", cfg->name, i);
            CHECK_MSG(blk[i].q_pool == is_first, "%s block %d q_pool", cfg->name, i);
            CHECK_MSG(blk[i].dim_out / blk[i].heads == k->head_dim, "%s block %d head dim", cfg->name, i);
            const int global = i == k->global[0] || i == k->global[1] || i == k->global[2];
            if (global) CHECK_MSG(blk[i].window == 0, "%s block %d global", cfg->name, i);
            else if (s == 2 && !is_first) CHECK_MSG(blk[i].window == k->ws_stage3, "%s block %d ws", cfg->name, i);
            else if (s == 3 && !is_first) CHECK_MSG(blk[i].window == k->ws_stage4, "%s block %d ws", cfg->name, i);
            if (is_end) s++;
        }
    }
    /* large: block 44 opens stage 4 with the lagging stage-3 window and q-pool */
    struct samrt_hiera_block blk[SAMRT_HIERA_MAX_BLOCKS];
    samrt_hiera_blocks(&samrt_sam2_config_get(SAMRT_MODEL_SAM2_1_LARGE)->hiera, blk);
    CHECK(blk[44].window == 16 && blk[44].q_pool && blk[44].dim == 576 && blk[44].dim_out == 1152);
    CHECK_EQ_INT(samrt_sam2_check_imgsz(1024), SAMRT_OK);
    CHECK_EQ_INT(samrt_sam2_check_imgsz(1000), SAMRT_E_INVALID_ARG);
}

static int cmp_weight(const void *a, const void *b) {
    return strcmp(((const struct samrt_weight *)a)->name, ((const struct samrt_weight *)b)->name);
}

static int is_encoder_key(const char *name) {
    const size_t n = strlen(name), nbt = strlen("num_batches_tracked");
    if (n >= nbt && !strcmp(name + n - nbt, "num_batches_tracked")) return 0;  /* an integer counter */
    return !strncmp(name, "image_encoder.", 14) || !strncmp(name, "sam_mask_decoder.conv_s0.", 25) ||
           !strncmp(name, "sam_mask_decoder.conv_s1.", 25);
}

static struct samrt_model_bound_keys g_bound;
static struct samrt_sam2_encoder g_enc;

static void test_binding(enum samrt_model_id id) {
    struct samrt_keys keys;
    CHECK_EQ_INT(samrt_keys_init(id, &keys), SAMRT_OK);
    struct samrt_engine e;
    memset(&e, 0, sizeof e);
    e.weights.items = calloc((size_t)keys.n_keys, sizeof *e.weights.items);
    int *hits = calloc((size_t)keys.n_keys, sizeof *hits);
    for (int i = 0; i < keys.n_keys; i++) {
        struct samrt_weight *w = &e.weights.items[i];
        w->name = keys.keys[i].name;
        w->t = samrt_tensor_make(NULL, SAMRT_DTYPE_F32, keys.keys[i].n_dims, keys.keys[i].ne);
    }
    e.weights.n = keys.n_keys;
    qsort(e.weights.items, (size_t)e.weights.n, sizeof *e.weights.items, cmp_weight);
    CHECK_EQ_INT(samrt_sam2_encoder_bind(&g_enc, samrt_sam2_config_get(id), 1024, samrt_engine_env(&e), &g_bound), SAMRT_OK);
    for (int b = 0; b < g_bound.n; b++) {
        int found = -1;
        for (int i = 0; i < keys.n_keys && found < 0; i++)
            if (!strcmp(keys.keys[i].name, g_bound.keys[b].name)) found = i;
        CHECK_MSG(found >= 0, "%s: bound %s is not a checkpoint key", samrt_model_name(id), g_bound.keys[b].name);
        if (found >= 0) hits[found]++;
    }
    int n_enc = 0;
    for (int i = 0; i < keys.n_keys; i++) {
        const int want = is_encoder_key(keys.keys[i].name);
        n_enc += want;
        CHECK_MSG(hits[i] == want, "%s: key %s bound %d times (want %d)", samrt_model_name(id), keys.keys[i].name,
                  hits[i], want);
    }
    CHECK_EQ_INT(g_bound.n, n_enc);
    printf("%-18s %d encoder keys bound once each\n", samrt_model_name(id), n_enc);
    /* a mis-shaped key is refused */
    e.weights.items[0].t.ne[0] += 1;
    if (is_encoder_key(e.weights.items[0].name))
        CHECK_EQ_INT(samrt_sam2_encoder_bind(&g_enc, samrt_sam2_config_get(id), 1024, samrt_engine_env(&e), NULL), SAMRT_E_KEYS);
    free(hits);
    free(e.weights.items);
    samrt_keys_free(&keys);
}

int main(void) {
    test_tiny_table();
    test_other_sizes();
    test_edgetam_row();
    static const enum samrt_model_id ids[] = {
        SAMRT_MODEL_SAM2_1_TINY, SAMRT_MODEL_SAM2_1_SMALL, SAMRT_MODEL_SAM2_1_BASE_PLUS, SAMRT_MODEL_SAM2_1_LARGE,
        SAMRT_MODEL_SAM2_TINY,   SAMRT_MODEL_SAM2_SMALL,   SAMRT_MODEL_SAM2_BASE_PLUS,   SAMRT_MODEL_SAM2_LARGE,
        SAMRT_MODEL_EDGETAM};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(ids); i++) test_binding(ids[i]);
    return check_report("test_sam2_config");
}
