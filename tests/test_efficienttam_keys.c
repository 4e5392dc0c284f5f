/* test_efficienttam_keys.c - EfficientTAM's key layouts and configs (models/sam2/keys.c,
 * config.c): key and parameter counts derived from the official module code (455 keys;
 * Ti 17,866,018, S 34,055,842 parameters), hand-picked shapes, the shared layouts of the Ti
 * and S variants and how a checkpoint of such a layout is taken (samrt_keys_variant: the
 * request, else the official file name, else the first of the layout, each with its reason),
 * and the refusals: an S checkpoint requested as Ti, a SAM 2.1 checkpoint requested as
 * EfficientTAM, an EfficientTAM checkpoint with a SAM 2 key mixed in.
 * Run: ctest -R test_efficienttam_keys (no data files needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "keys.h"
#include "keys_util.h"

static const enum samrt_model_id k_ti[] = {SAMRT_MODEL_EFFICIENTTAM_TI, SAMRT_MODEL_EFFICIENTTAM_TI_1,
                                           SAMRT_MODEL_EFFICIENTTAM_TI_2, SAMRT_MODEL_EFFICIENTTAM_TI_512};
static const enum samrt_model_id k_s[] = {SAMRT_MODEL_EFFICIENTTAM_S, SAMRT_MODEL_EFFICIENTTAM_S_1,
                                          SAMRT_MODEL_EFFICIENTTAM_S_2, SAMRT_MODEL_EFFICIENTTAM_S_512};

/* A tensor list with model m's keys (k keeps the names); the caller frees it. */
static struct samrt_ckpt_tensor *fake(enum samrt_model_id m, int *n, struct samrt_keys *k) {
    samrt_keys_init(m, k);
    struct samrt_ckpt_tensor *t = calloc((size_t)k->n_keys + 1, sizeof *t);
    *n = t ? fake_ckpt(k, 1, t) : 0;
    return t;
}

static void test_counts(void) {
    for (int v = 0; v < 4; v++) {
        struct samrt_keys a, b;
        CHECK_STATUS(samrt_keys_init(k_ti[v], &a), SAMRT_OK);
        CHECK_STATUS(samrt_keys_init(k_s[v], &b), SAMRT_OK);
        CHECK_EQ_INT(a.n_keys, 455);
        CHECK_EQ_INT(b.n_keys, 455);
        CHECK_EQ_INT(samrt_keys_param_count(&a), 17866018);
        CHECK_EQ_INT(samrt_keys_param_count(&b), 34055842);
        for (int w = 0; w < 4; w++) {
            CHECK(samrt_keys_same_layout(k_ti[v], k_ti[w]) && samrt_keys_same_layout(k_s[v], k_s[w]));
            CHECK(!samrt_keys_same_layout(k_ti[v], k_s[w]));
        }
        CHECK(!samrt_keys_same_layout(k_ti[v], SAMRT_MODEL_SAM2_TINY));
        samrt_keys_free(&a);
        samrt_keys_free(&b);
    }
    struct samrt_keys k;
    samrt_keys_init(SAMRT_MODEL_EFFICIENTTAM_TI, &k);
    check_shape(&k, "image_encoder.trunk.pos_embed", 3, 1, 197, 192, 0);
    check_shape(&k, "image_encoder.trunk.patch_embed.proj.weight", 4, 192, 3, 16, 16);
    check_shape(&k, "image_encoder.trunk.blocks.11.attn.qkv.weight", 2, 576, 192, 0, 0);
    check_shape(&k, "image_encoder.trunk.blocks.11.mlp.layers.0.weight", 2, 768, 192, 0, 0);
    check_shape(&k, "image_encoder.neck.convs.0.conv_1x1.weight", 4, 256, 192, 1, 1);
    check_shape(&k, "image_encoder.neck.convs.0.conv_3x3.weight", 4, 256, 256, 3, 3);
    check_shape(&k, "image_encoder.neck.convs.0.norm_1.bias", 1, 256, 0, 0, 0);
    check_shape(&k, "memory_attention.layers.3.cross_attn_image.v_proj.weight", 2, 256, 64, 0, 0);
    CHECK(find_key(&k, "image_encoder.neck.convs.0.conv_1x1.bias") == NULL);  /* neck_norm LN: no bias */
    CHECK(find_key(&k, "image_encoder.neck.convs.1.conv_1x1.weight") == NULL);
    CHECK(find_key(&k, "image_encoder.trunk.blocks.12.norm1.weight") == NULL);
    CHECK(find_key(&k, "sam_mask_decoder.conv_s0.weight") == NULL);
    CHECK(find_key(&k, "no_obj_embed_spatial") == NULL);
    CHECK(find_key(&k, "obj_ptr_tpos_proj.weight") == NULL);
    samrt_keys_free(&k);
    samrt_keys_init(SAMRT_MODEL_EFFICIENTTAM_S_2, &k);
    check_shape(&k, "image_encoder.trunk.pos_embed", 3, 1, 197, 384, 0);
    check_shape(&k, "image_encoder.trunk.blocks.0.mlp.layers.1.weight", 2, 384, 1536, 0, 0);
    samrt_keys_free(&k);
}

static void test_configs(void) {
    for (int v = 0; v < 4; v++) {
        const struct samrt_sam2_config *ti = samrt_sam2_config_get(k_ti[v]), *s = samrt_sam2_config_get(k_s[v]);
        CHECK(ti && s && samrt_sam2_is_efficienttam(ti) && samrt_sam2_is_efficienttam(s));
        if (!ti || !s) continue;
        CHECK(ti->vitdet.embed_dim == 192 && ti->vitdet.num_heads == 3 && s->vitdet.embed_dim == 384 &&
              s->vitdet.num_heads == 6);
        CHECK(ti->vitdet.depth == 12 && ti->vitdet.window == 14 && ti->vitdet.patch == 16);
        CHECK(ti->no_high_res && ti->no_ptr_tpos && s->no_high_res && s->no_ptr_tpos);
        CHECK_EQ_INT(ti->image_size, v == 3 ? 512 : 1024);
        CHECK_EQ_INT(ti->kv_pool, v == 1 ? SAMRT_KV_POOL_LOGIT : v == 2 ? SAMRT_KV_POOL_KEY : SAMRT_KV_FULL);
        CHECK_EQ_INT(s->kv_pool, ti->kv_pool);
        int n_global = 0;
        for (int i = 0; i < 12; i++) n_global += !samrt_vitdet_windowed(&ti->vitdet, i);
        CHECK_EQ_INT(n_global, 4);
        CHECK(!samrt_vitdet_windowed(&ti->vitdet, 2) && !samrt_vitdet_windowed(&ti->vitdet, 11) &&
              samrt_vitdet_windowed(&ti->vitdet, 10));
    }
    CHECK(!samrt_sam2_is_efficienttam(samrt_sam2_config_get(SAMRT_MODEL_SAM2_1_TINY)));
}

static void test_variant_and_refusals(void) {
    struct samrt_keys k;
    int n = 0;
    struct samrt_ckpt_tensor *t = fake(SAMRT_MODEL_EFFICIENTTAM_TI, &n, &k);
    enum samrt_model_id found;
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_UNKNOWN, t, n, &found), SAMRT_OK);
    CHECK_EQ_INT(found, SAMRT_MODEL_EFFICIENTTAM_TI);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_EFFICIENTTAM_TI_2, t, n, &found), SAMRT_OK);
    CHECK_EQ_INT(found, SAMRT_MODEL_EFFICIENTTAM_TI_2);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_EFFICIENTTAM_S, t, n, &found), SAMRT_E_MODEL_MISMATCH);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_SAM2_1_TINY, t, n, &found), SAMRT_E_MODEL_MISMATCH);
    char why[384];
    CHECK_EQ_INT(samrt_keys_variant(SAMRT_MODEL_EFFICIENTTAM_TI, SAMRT_MODEL_UNKNOWN, "ckpts/efficienttam_ti_2.pt",
                                    why, sizeof why), SAMRT_MODEL_EFFICIENTTAM_TI_2);
    CHECK_MSG(strstr(why, "official file name efficienttam_ti_2.pt"), "%s", why);
    CHECK_EQ_INT(samrt_keys_variant(SAMRT_MODEL_EFFICIENTTAM_TI, SAMRT_MODEL_EFFICIENTTAM_TI_512,
                                    "efficienttam_ti_2.pt", why, sizeof why), SAMRT_MODEL_EFFICIENTTAM_TI_512);
    CHECK_MSG(strstr(why, "as requested"), "%s", why);
    CHECK_EQ_INT(samrt_keys_variant(SAMRT_MODEL_EFFICIENTTAM_TI, SAMRT_MODEL_UNKNOWN, "mine.pt", why, sizeof why),
                 SAMRT_MODEL_EFFICIENTTAM_TI);
    CHECK_MSG(strstr(why, "assumed") && strstr(why, "--model") && strstr(why, "efficienttam_ti_512x512"), "%s", why);
    /* an S file name on Ti weights names no model of this layout */
    CHECK_EQ_INT(samrt_keys_variant(SAMRT_MODEL_EFFICIENTTAM_TI, SAMRT_MODEL_UNKNOWN, "efficienttam_s_2.pt", why,
                                    sizeof why), SAMRT_MODEL_EFFICIENTTAM_TI);
    CHECK_EQ_INT(samrt_keys_variant(SAMRT_MODEL_SAM2_1_TINY, SAMRT_MODEL_UNKNOWN, "efficienttam_ti_2.pt", why,
                                    sizeof why), SAMRT_MODEL_SAM2_1_TINY);
    CHECK(why[0] == 0);
    /* a mixed checkpoint: one SAM 2 high-resolution key added */
    t[n - 1].name = "sam_mask_decoder.conv_s0.bias";
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_EFFICIENTTAM_TI, t, n, &found), SAMRT_E_KEYS);
    free(t);
    samrt_keys_free(&k);
    t = fake(SAMRT_MODEL_SAM2_1_TINY, &n, &k);
    CHECK_STATUS(samrt_keys_match(SAMRT_MODEL_EFFICIENTTAM_TI, t, n, &found), SAMRT_E_MODEL_MISMATCH);
    free(t);
    samrt_keys_free(&k);
}

int main(void) {
    test_counts();
    test_configs();
    test_variant_and_refusals();
    return check_report("test_efficienttam_keys");
}
