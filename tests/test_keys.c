/* test_keys.c - the generated key layouts against the numbers a real state_dict() has
 * (key counts, parameter counts, hand-picked keys and shapes from the model spec), and the
 * identify / match / diff logic on synthetic key sets: exact match, optional BatchNorm
 * counters, missing, unexpected and mis-shaped keys, another model's checkpoint.
 * Run: ctest -R test_keys (no data files needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "keys.h"
#include "keys_util.h"

/* state_dict() sizes of the official models (model spec section 9.1; SAM 2.0 lacks three
 * keys: no_obj_embed_spatial, obj_ptr_tpos_proj.weight, obj_ptr_tpos_proj.bias). */
static const struct {
    enum samrt_model_id id;
    int n_keys;
    uint64_t params;     /* model.parameters() count, exact where known, else 0 */
    double published_m;  /* sam2 README "Size (M)", which truncates to 0.1M; 0: none */
} k_expect[] = {
    {SAMRT_MODEL_SAM2_1_TINY, 471, 38962498, 38.9},
    {SAMRT_MODEL_SAM2_1_SMALL, 519, 0, 46.0},
    {SAMRT_MODEL_SAM2_1_BASE_PLUS, 615, 0, 80.8},
    {SAMRT_MODEL_SAM2_1_LARGE, 903, 0, 224.4},
    {SAMRT_MODEL_EDGETAM, 982, 13895794, 0},
    {SAMRT_MODEL_SAM2_TINY, 468, 0, 38.9},
    {SAMRT_MODEL_SAM2_SMALL, 516, 0, 46.0},
    {SAMRT_MODEL_SAM2_BASE_PLUS, 612, 0, 80.8},
    {SAMRT_MODEL_SAM2_LARGE, 900, 0, 224.4},
};
/* no_obj_embed_spatial (1,64) + obj_ptr_tpos_proj Linear(256 -> 64) */
static const uint64_t k_sam21_extra_params = 64 + 64 * 256 + 64;
/* Float buffers in the state_dict: the prompt encoder's (2,128) Fourier matrix everywhere, and
 * in EdgeTAM running_mean + running_var of every BatchNorm, whose channels sum to
 * stem 24+48 + blocks 5C each (2x48, 2x96, 14x192, 2x384) + downsamples 6a+4b each
 * (48->96, 96->192, 192->384) = 72 + 18720 + 4704 = 23496. */
static const uint64_t k_fourier = 2 * 128;
static const uint64_t k_edgetam_bn_channels = 23496;

/* ---- log capture ------------------------------------------------------------------------- */

static int g_n_log, g_n_missing_lines, g_n_more_lines;
static char g_last_error[1024];

static void capture(enum samrt_log_level level, const char *msg, void *user) {
    (void)user;
    if (level != SAMRT_LOG_ERROR) return;
    g_n_log++;
    if (!strncmp(msg, "  missing key ", 14)) g_n_missing_lines++;
    if (strstr(msg, "more missing keys")) g_n_more_lines++;
    snprintf(g_last_error, sizeof g_last_error, "%s", msg);
}

static void log_reset(void) { g_n_log = g_n_missing_lines = g_n_more_lines = 0; g_last_error[0] = 0; }

/* ---- synthetic checkpoints ------------------------------------------------------------------- */

static void test_counts(void) {
    uint64_t params[SAMRT_MODEL_COUNT] = {0};
    struct samrt_ckpt_tensor *t = calloc(1200, sizeof *t);
    CHECK(t != NULL);
    if (!t) return;
    for (size_t m = 0; m < SAMRT_ARRAY_LEN(k_expect); m++) {
        struct samrt_keys k;
        CHECK_STATUS(samrt_keys_init(k_expect[m].id, &k), SAMRT_OK);
        const char *name = samrt_model_name(k_expect[m].id);
        CHECK_MSG(k.n_keys == k_expect[m].n_keys, "%s: %d keys, want %d", name, k.n_keys, k_expect[m].n_keys);
        uint64_t p = samrt_keys_param_count(&k);
        params[k_expect[m].id] = p;
        if (k_expect[m].params)
            CHECK_MSG(p == k_expect[m].params, "%s: %llu parameters, want %llu", name, (unsigned long long)p,
                      (unsigned long long)k_expect[m].params);
        if (k_expect[m].published_m > 0)
            CHECK_MSG(fabs((double)(p / 100000) / 10 - k_expect[m].published_m) < 0.01, "%s: %.3fM parameters, "
                      "published %.1fM", name, p / 1e6, k_expect[m].published_m);
        /* what `samrt info` counts in a checkpoint of this model: the parameters and the float buffers */
        uint64_t buffers = k_fourier + (k_expect[m].id == SAMRT_MODEL_EDGETAM ? 2 * k_edgetam_bn_channels : 0);
        struct samrt_ckpt ck = {.tensors = t, .n_tensors = fake_ckpt(&k, 1, t)};
        CHECK_EQ_INT(samrt_ckpt_param_count(&ck), p + buffers);
        int n_dup = 0;
        for (int i = 0; i < k.n_keys; i++) /* names unique */
            for (int j = i + 1; j < k.n_keys; j++) n_dup += strcmp(k.keys[i].name, k.keys[j].name) == 0;
        CHECK_MSG(n_dup == 0, "%s: %d duplicate key names", name, n_dup);
        samrt_keys_free(&k);
    }
    CHECK_EQ_INT(params[SAMRT_MODEL_SAM2_1_TINY] - params[SAMRT_MODEL_SAM2_TINY], k_sam21_extra_params);
    CHECK_EQ_INT(params[SAMRT_MODEL_SAM2_1_LARGE] - params[SAMRT_MODEL_SAM2_LARGE], k_sam21_extra_params);
    struct samrt_keys k;
    CHECK_STATUS(samrt_keys_init(SAMRT_MODEL_UNKNOWN, &k), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_keys_init(SAMRT_MODEL_COUNT, &k), SAMRT_E_INVALID_ARG);
    free(t);
}

/* Shapes written out in the model spec (section 5) and the YAMLs. */
static void test_shapes(void) {
    struct samrt_keys k;
    samrt_keys_init(SAMRT_MODEL_SAM2_1_TINY, &k);
    check_shape(&k, "maskmem_tpos_enc", 4, 7, 1, 1, 64);
    check_shape(&k, "no_obj_embed_spatial", 2, 1, 64, 0, 0);
    check_shape(&k, "image_encoder.trunk.pos_embed", 4, 1, 96, 7, 7);
    check_shape(&k, "image_encoder.trunk.pos_embed_window", 4, 1, 96, 8, 8);
    check_shape(&k, "image_encoder.trunk.blocks.10.proj.weight", 2, 768, 384, 0, 0);
    check_shape(&k, "image_encoder.trunk.blocks.10.attn.qkv.weight", 2, 2304, 384, 0, 0);
    check_shape(&k, "image_encoder.trunk.blocks.11.mlp.layers.0.weight", 2, 3072, 768, 0, 0);
    CHECK(find_key(&k, "image_encoder.trunk.blocks.11.proj.weight") == NULL);
    CHECK(find_key(&k, "image_encoder.trunk.blocks.12.norm1.weight") == NULL);
    check_shape(&k, "image_encoder.neck.convs.0.conv.weight", 4, 256, 768, 1, 1);
    check_shape(&k, "image_encoder.neck.convs.3.conv.weight", 4, 256, 96, 1, 1);
    check_shape(&k, "memory_attention.layers.3.cross_attn_image.k_proj.weight", 2, 256, 64, 0, 0);
    check_shape(&k, "memory_encoder.mask_downsampler.encoder.9.weight", 4, 256, 64, 3, 3);
    check_shape(&k, "memory_encoder.fuser.layers.1.gamma", 1, 256, 0, 0, 0);
    check_shape(&k, "sam_prompt_encoder.pe_layer.positional_encoding_gaussian_matrix", 2, 2, 128, 0, 0);
    check_shape(&k, "sam_mask_decoder.output_upscaling.0.weight", 4, 256, 64, 2, 2);
    check_shape(&k, "sam_mask_decoder.output_upscaling.3.weight", 4, 64, 32, 2, 2);
    check_shape(&k, "sam_mask_decoder.transformer.layers.1.cross_attn_image_to_token.out_proj.weight", 2, 256, 128, 0, 0);
    check_shape(&k, "sam_mask_decoder.iou_prediction_head.layers.2.weight", 2, 4, 256, 0, 0);
    check_shape(&k, "obj_ptr_tpos_proj.weight", 2, 64, 256, 0, 0);
    samrt_keys_free(&k);

    samrt_keys_init(SAMRT_MODEL_SAM2_1_BASE_PLUS, &k);
    check_shape(&k, "image_encoder.trunk.pos_embed", 4, 1, 112, 14, 14);
    check_shape(&k, "image_encoder.trunk.blocks.2.proj.weight", 2, 224, 112, 0, 0);
    check_shape(&k, "image_encoder.trunk.blocks.23.norm2.weight", 1, 896, 0, 0, 0);
    samrt_keys_free(&k);

    samrt_keys_init(SAMRT_MODEL_SAM2_1_LARGE, &k);
    check_shape(&k, "image_encoder.trunk.pos_embed", 4, 1, 144, 7, 7);
    check_shape(&k, "image_encoder.trunk.blocks.44.proj.weight", 2, 1152, 576, 0, 0);
    check_shape(&k, "image_encoder.trunk.blocks.47.attn.proj.weight", 2, 1152, 1152, 0, 0);
    CHECK(find_key(&k, "image_encoder.trunk.blocks.48.norm1.weight") == NULL);
    samrt_keys_free(&k);

    samrt_keys_init(SAMRT_MODEL_SAM2_TINY, &k);
    CHECK(find_key(&k, "no_obj_embed_spatial") == NULL);
    CHECK(find_key(&k, "obj_ptr_tpos_proj.weight") == NULL);
    CHECK(find_key(&k, "obj_ptr_proj.layers.2.bias") != NULL);
    samrt_keys_free(&k);

    samrt_keys_init(SAMRT_MODEL_EDGETAM, &k);
    const char *bn = "image_encoder.trunk.body.stages_1.downsample.pre_block.channel_mixer.conv1.bn.num_batches_tracked";
    check_shape(&k, bn, 0, 0, 0, 0, 0);
    CHECK(find_key(&k, bn) && find_key(&k, bn)->optional && find_key(&k, bn)->is_int);
    check_shape(&k, "image_encoder.trunk.body.stem.conv1.c.weight", 4, 24, 3, 3, 3);
    check_shape(&k, "image_encoder.trunk.body.stages_0.blocks.0.se.fc1.weight", 4, 16, 48, 1, 1);
    check_shape(&k, "image_encoder.trunk.body.stages_1.blocks.0.se.fc1.bias", 1, 24, 0, 0, 0);
    check_shape(&k, "image_encoder.trunk.body.stages_2.blocks.12.se.fc2.weight", 4, 192, 48, 1, 1);
    check_shape(&k, "image_encoder.trunk.body.stages_3.blocks.0.se.fc1.weight", 4, 96, 384, 1, 1);
    CHECK(find_key(&k, "image_encoder.trunk.body.stages_2.blocks.13.se.fc1.weight") == NULL);
    check_shape(&k, "image_encoder.trunk.body.stages_3.downsample.channel_downsample.c.weight", 4, 384, 192, 1, 1);
    check_shape(&k, "image_encoder.trunk.body.stages_3.downsample.ffn.conv1.c.weight", 4, 768, 384, 1, 1);
    check_shape(&k, "image_encoder.neck.convs.3.conv.weight", 4, 256, 48, 1, 1);
    check_shape(&k, "spatial_perceiver.layers.1.attn.to_kv.weight", 2, 128, 64, 0, 0);
    check_shape(&k, "spatial_perceiver.latents_2d", 2, 256, 64, 0, 0);
    CHECK(find_key(&k, "memory_attention.layers.1.norm3.bias") != NULL);
    CHECK(find_key(&k, "memory_attention.layers.2.norm3.bias") == NULL);
    CHECK(find_key(&k, "no_obj_embed_spatial") == NULL);
    int n_bn = 0, n_int = 0;
    for (int i = 0; i < k.n_keys; i++) {
        n_bn += strstr(k.keys[i].name, ".bn.running_var") != NULL;
        n_int += k.keys[i].is_int;
    }
    CHECK_EQ_INT(n_bn, 106); /* 318 BatchNorm buffers / 3 */
    CHECK_EQ_INT(n_int, 106);
    samrt_keys_free(&k);
}

static void test_match(void) {
    struct samrt_ckpt_tensor *t = calloc(1200, sizeof *t);
    struct samrt_keys k, small;
    enum samrt_model_id found;
    struct samrt_keys_diff d;
    samrt_log_set(capture, NULL, SAMRT_LOG_DEBUG);

    /* every model identifies as itself (or as the first model of a shared layout: EfficientTAM's
     * variants, tests/test_efficienttam_keys.c) and matches strictly */
    for (int m = 1; m < SAMRT_MODEL_COUNT; m++) {
        samrt_keys_init((enum samrt_model_id)m, &k);
        int n = fake_ckpt(&k, 1, t);
        int first = m;
        while (first > 1 && samrt_keys_same_layout((enum samrt_model_id)(first - 1), (enum samrt_model_id)m)) first--;
        CHECK_EQ_INT(samrt_keys_identify(t, n), first);
        log_reset();
        CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_UNKNOWN, t, n, &found), SAMRT_OK);
        CHECK_EQ_INT(found, first);
        CHECK_STATUS(samrt_keys_match((enum samrt_model_id)m, t, n, &found), SAMRT_OK);
        CHECK_EQ_INT(g_n_log, 0);
        samrt_keys_free(&k);
    }

    /* EdgeTAM without the optional BatchNorm counters */
    samrt_keys_init(SAMRT_MODEL_EDGETAM, &k);
    int n = fake_ckpt(&k, 0, t);
    CHECK_EQ_INT(n, 982 - 106);
    CHECK_EQ_INT(samrt_keys_identify(t, n), SAMRT_MODEL_EDGETAM);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_EDGETAM, t, n, &found), SAMRT_OK);
    samrt_keys_free(&k);

    samrt_keys_init(SAMRT_MODEL_SAM2_1_TINY, &k);
    n = fake_ckpt(&k, 1, t);

    /* one missing key: not identified; strict match lists it */
    struct samrt_ckpt_tensor saved = t[5];
    t[5] = t[n - 1];
    CHECK_EQ_INT(samrt_keys_identify(t, n - 1), SAMRT_MODEL_UNKNOWN);
    log_reset();
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_SAM2_1_TINY, t, n - 1, &found), SAMRT_E_KEYS);
    CHECK_EQ_INT(found, SAMRT_MODEL_UNKNOWN);
    CHECK_EQ_INT(g_n_missing_lines, 1);
    samrt_keys_diff(&k, t, n - 1, 0, &d);
    CHECK(d.n_missing == 1 && d.n_unexpected == 0 && d.n_misshaped == 0);
    t[n - 1] = t[5];
    t[5] = saved;

    /* one unexpected key */
    t[n] = t[0];
    t[n].name = "image_encoder.trunk.blocks.12.norm1.weight";
    CHECK_EQ_INT(samrt_keys_identify(t, n + 1), SAMRT_MODEL_UNKNOWN);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_SAM2_1_TINY, t, n + 1, NULL), SAMRT_E_KEYS);
    samrt_keys_diff(&k, t, n + 1, 0, &d);
    CHECK(d.n_missing == 0 && d.n_unexpected == 1 && d.n_misshaped == 0);

    /* a mis-shaped key, then a float key stored as an integer: names still identify tiny */
    t[3].ne[0] += 1;
    CHECK_EQ_INT(samrt_keys_identify(t, n), SAMRT_MODEL_SAM2_1_TINY);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_UNKNOWN, t, n, &found), SAMRT_E_KEYS);
    CHECK_EQ_INT(found, SAMRT_MODEL_SAM2_1_TINY);
    samrt_keys_diff(&k, t, n, 0, &d);
    CHECK(d.n_missing == 0 && d.n_unexpected == 0 && d.n_misshaped == 1);
    t[3].ne[0] -= 1;
    t[4].dtype = SAMRT_DTYPE_I64;
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_SAM2_1_TINY, t, n, NULL), SAMRT_E_KEYS);
    t[4].dtype = SAMRT_DTYPE_BF16; /* any floating type is fine */
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_SAM2_1_TINY, t, n, NULL), SAMRT_OK);
    t[4].dtype = SAMRT_DTYPE_F32;

    /* 30 keys missing: 20 logged, then a count */
    log_reset();
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_SAM2_1_TINY, t + 30, n - 30, NULL), SAMRT_E_KEYS);
    CHECK_EQ_INT(g_n_missing_lines, SAMRT_KEYS_LOG_MAX);
    CHECK_EQ_INT(g_n_more_lines, 1);

    /* another model's checkpoint */
    samrt_keys_init(SAMRT_MODEL_SAM2_1_SMALL, &small);
    n = fake_ckpt(&small, 1, t);
    log_reset();
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_SAM2_1_TINY, t, n, &found), SAMRT_E_MODEL_MISMATCH);
    CHECK_EQ_INT(found, SAMRT_MODEL_SAM2_1_SMALL);
    CHECK_MSG(strstr(g_last_error, "sam2.1_small") && strstr(g_last_error, "sam2.1_tiny"), "message: %s", g_last_error);
    samrt_keys_free(&small);

    /* SAM 2.0 tiny asked for as SAM 2.1 tiny: three keys apart, still told apart */
    samrt_keys_init(SAMRT_MODEL_SAM2_TINY, &small);
    n = fake_ckpt(&small, 1, t);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_SAM2_1_TINY, t, n, &found), SAMRT_E_MODEL_MISMATCH);
    CHECK_EQ_INT(found, SAMRT_MODEL_SAM2_TINY);
    samrt_keys_free(&small);

    /* nothing like any model */
    struct samrt_ckpt_tensor junk[2] = {{.name = "a", .dtype = SAMRT_DTYPE_F32, .n_dims = 1, .ne = {3}},
                                        {.name = "b", .dtype = SAMRT_DTYPE_F32, .n_dims = 0}};
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_UNKNOWN, junk, 2, &found), SAMRT_E_KEYS);
    CHECK_EQ_INT(found, SAMRT_MODEL_UNKNOWN);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_UNKNOWN, junk, 0, &found), SAMRT_E_KEYS);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_COUNT, junk, 2, &found), SAMRT_E_INVALID_ARG);

    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    samrt_keys_free(&k);
    free(t);
}

int main(void) {
    test_counts();
    test_shapes();
    test_match();
    return check_report("test_keys");
}
