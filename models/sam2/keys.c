/* keys.c - every supported model's state_dict keys and shapes, generated from one config
 * row per model, and the identify / match / diff checks of keys.h.
 *
 * The generators follow the official module trees (sam2/modeling, EdgeTAM's perceiver, timm's
 * RepViT "legacy" blocks); the key lists they produce are pinned by tests/test_keys.c to the
 * counts a real state_dict() has (tiny 471, small 519, base_plus 615, large 903, EdgeTAM 982)
 * and to the published parameter counts. SAM 2.0 differs from 2.1 only by the two SAM 2.1
 * switches no_obj_embed_spatial and proj_tpos_enc_in_obj_ptrs (configs/sam2 vs
 * configs/sam2.1), i.e. the keys no_obj_embed_spatial and obj_ptr_tpos_proj.{weight,bias}.
 * EfficientTAM's Ti rows (ti, ti_1, ti_2, ti_512x512) generate the same list, and so do its S
 * rows: their weights cannot tell them apart, so a checkpoint of that layout is taken as the
 * requested model, else as the one its official file name names (samrt_keys_variant). */
#include "keys.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

enum trunk_kind { TRUNK_HIERA, TRUNK_REPVIT, TRUNK_VITDET };

struct model_cfg {
    enum samrt_model_id id;
    enum trunk_kind trunk;
    int embed_dim;     /* RepViT: stage-1 width (Hiera sizes: models/sam2/config.c) */
    int stages[4];     /* RepViT: blocks per stage */
    int n_mem_layers;  /* memory attention layers */
    uint8_t sam21;     /* no_obj_embed_spatial and obj_ptr_tpos_proj exist */
    uint8_t perceiver; /* EdgeTAM's spatial perceiver */
};

/* From the YAMLs in sam2/configs/sam2.1/ and sam2/configs/sam2/ (facebookresearch/sam2) and
 * sam2/configs/edgetam.yaml (facebookresearch/EdgeTAM); Hiera defaults fill what they omit. */
static const struct model_cfg g_models[] = {
    {SAMRT_MODEL_SAM2_1_TINY, TRUNK_HIERA, 0, {0}, 4, 1, 0},
    {SAMRT_MODEL_SAM2_1_SMALL, TRUNK_HIERA, 0, {0}, 4, 1, 0},
    {SAMRT_MODEL_SAM2_1_BASE_PLUS, TRUNK_HIERA, 0, {0}, 4, 1, 0},
    {SAMRT_MODEL_SAM2_1_LARGE, TRUNK_HIERA, 0, {0}, 4, 1, 0},
    {SAMRT_MODEL_EDGETAM, TRUNK_REPVIT, 48, {2, 2, 14, 2}, 2, 0, 1},
    {SAMRT_MODEL_SAM2_TINY, TRUNK_HIERA, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_SAM2_SMALL, TRUNK_HIERA, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_SAM2_BASE_PLUS, TRUNK_HIERA, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_SAM2_LARGE, TRUNK_HIERA, 0, {0}, 4, 0, 0},
    /* EfficientTAM (configs/efficienttam/efficienttam_*.yaml, yformer/EfficientTAM): ViTDet sizes in
     * models/sam2/config.c; the memory attention's variants add no parameter */
    {SAMRT_MODEL_EFFICIENTTAM_TI, TRUNK_VITDET, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_EFFICIENTTAM_TI_1, TRUNK_VITDET, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_EFFICIENTTAM_TI_2, TRUNK_VITDET, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_EFFICIENTTAM_TI_512, TRUNK_VITDET, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_EFFICIENTTAM_S, TRUNK_VITDET, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_EFFICIENTTAM_S_1, TRUNK_VITDET, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_EFFICIENTTAM_S_2, TRUNK_VITDET, 0, {0}, 4, 0, 0},
    {SAMRT_MODEL_EFFICIENTTAM_S_512, TRUNK_VITDET, 0, {0}, 4, 0, 0},
};
_Static_assert(SAMRT_ARRAY_LEN(g_models) == SAMRT_MODEL_COUNT - 1, "one config row per model");

/* Fixed by SAM2Base / the YAMLs for every model. */
enum { D = 256, MEM_DIM = 64, MLP_DIM = 2048, DEC_ATTN = 128, N_MASK_TOKENS = 4 };

/* ---- generator --------------------------------------------------------------------------- */

struct gen {
    struct samrt_keys *k;
    enum samrt_status st;
};

enum { KEY_BUFFER = 1, KEY_INT = 2 }; /* flags of add(); integer keys are optional buffers */

/* Appends prefix + suffix with the given shape (n_dims of a, b, c, d). */
static void add(struct gen *g, const char *prefix, const char *suffix, int flags, int n_dims, int64_t a,
                int64_t b, int64_t c, int64_t d) {
    if (g->st != SAMRT_OK) return;
    struct samrt_keys *k = g->k;
    if (k->n_keys == k->cap) {
        int cap = k->cap ? k->cap * 2 : 512;
        struct samrt_key *nk = realloc(k->keys, (size_t)cap * sizeof *nk);
        if (!nk) {
            g->st = SAMRT_E_HOST_MEMORY;
            return;
        }
        k->keys = nk;
        k->cap = cap;
    }
    struct samrt_key *key = &k->keys[k->n_keys];
    memset(key, 0, sizeof *key);
    int len = snprintf(key->name, sizeof key->name, "%s%s", prefix, suffix);
    if (len < 0 || len >= (int)sizeof key->name) {
        SAMRT_LOG_ERROR("keys: name %s%s is longer than SAMRT_KEY_NAME_MAX", prefix, suffix);
        g->st = SAMRT_E_INVALID_ARG;
        return;
    }
    const int64_t ne[4] = {a, b, c, d};
    key->n_dims = n_dims;
    memcpy(key->ne, ne, sizeof ne);
    key->is_int = (flags & KEY_INT) != 0;
    key->is_buffer = (flags & (KEY_BUFFER | KEY_INT)) != 0;
    key->optional = key->is_int; /* only num_batches_tracked is integer, and optional */
    k->n_keys++;
}

/* A formatted prefix in a caller buffer. */
static const char *pf(char *buf, size_t len, const char *fmt, ...) SAMRT_PRINTF(3, 4);
static const char *pf(char *buf, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return buf;
}
#define PF(buf, ...) pf(buf, sizeof buf, __VA_ARGS__)

static void vec(struct gen *g, const char *p, const char *sfx, int64_t n) { add(g, p, sfx, 0, 1, n, 0, 0, 0); }
static void mat(struct gen *g, const char *p, const char *sfx, int64_t r, int64_t c) { add(g, p, sfx, 0, 2, r, c, 0, 0); }
/* nn.Linear(in, out): weight (out, in) [+ bias (out)] */
static void linear(struct gen *g, const char *p, int64_t out, int64_t in, int bias) {
    mat(g, p, ".weight", out, in);
    if (bias) vec(g, p, ".bias", out);
}
/* nn.Conv2d(in, out, k, groups): weight (out, in/groups, k, k), bias (out) */
static void conv(struct gen *g, const char *p, int64_t out, int64_t in_per_group, int64_t k) {
    add(g, p, ".weight", 0, 4, out, in_per_group, k, k);
    vec(g, p, ".bias", out);
}
/* nn.ConvTranspose2d(in, out, k): weight (in, out, k, k), bias (out) */
static void conv_t(struct gen *g, const char *p, int64_t in, int64_t out, int64_t k) {
    add(g, p, ".weight", 0, 4, in, out, k, k);
    vec(g, p, ".bias", out);
}
/* LayerNorm / LayerNorm2d */
static void norm(struct gen *g, const char *p, int64_t n) {
    vec(g, p, ".weight", n);
    vec(g, p, ".bias", n);
}
/* timm ConvNorm: bias-free conv + BatchNorm2d with its buffers */
static void conv_norm(struct gen *g, const char *p, int64_t out, int64_t in_per_group, int64_t k) {
    add(g, p, ".c.weight", 0, 4, out, in_per_group, k, k);
    vec(g, p, ".bn.weight", out);
    vec(g, p, ".bn.bias", out);
    add(g, p, ".bn.running_mean", KEY_BUFFER, 1, out, 0, 0, 0);
    add(g, p, ".bn.running_var", KEY_BUFFER, 1, out, 0, 0, 0);
    add(g, p, ".bn.num_batches_tracked", KEY_INT, 0, 0, 0, 0, 0);
}
/* sam2 Attention with q/k/v/out projections: internal dim `inner`, keys/values of kv_in */
static void attention(struct gen *g, const char *p, int64_t inner, int64_t kv_in) {
    char b[SAMRT_KEY_NAME_MAX];
    linear(g, PF(b, "%s.q_proj", p), inner, D, 1);
    linear(g, PF(b, "%s.k_proj", p), inner, kv_in, 1);
    linear(g, PF(b, "%s.v_proj", p), inner, kv_in, 1);
    linear(g, PF(b, "%s.out_proj", p), D, inner, 1);
}
/* sam2 MLP: n layers in -> hid ... -> out */
static void mlp(struct gen *g, const char *p, int64_t in, int64_t hid, int64_t out, int n) {
    char b[SAMRT_KEY_NAME_MAX];
    for (int l = 0; l < n; l++)
        linear(g, PF(b, "%s.layers.%d", p, l), l == n - 1 ? out : hid, l == 0 ? in : hid, 1);
}

/* ---- model parts -------------------------------------------------------------------------- */

static void hiera(struct gen *g, const struct model_cfg *c, int64_t channels[4]) {
    const char *t = "image_encoder.trunk.";
    char p[SAMRT_KEY_NAME_MAX];
    const struct samrt_hiera_config *h = &samrt_sam2_config_get(c->id)->hiera;
    int64_t e = h->embed_dim;
    add(g, t, "pos_embed", 0, 4, 1, e, h->bkg, h->bkg);
    add(g, t, "pos_embed_window", 0, 4, 1, e, h->window_spec[0], h->window_spec[0]);
    conv(g, "image_encoder.trunk.patch_embed.proj", e, 3, 7);
    int64_t dim = e;
    for (int s = 0, i = 0; s < 4; s++) {
        int64_t o = e << s;
        for (int b = 0; b < h->stages[s]; b++, i++) {
            norm(g, PF(p, "image_encoder.trunk.blocks.%d.norm1", i), dim);
            linear(g, PF(p, "image_encoder.trunk.blocks.%d.attn.qkv", i), 3 * o, dim, 1);
            linear(g, PF(p, "image_encoder.trunk.blocks.%d.attn.proj", i), o, o, 1);
            norm(g, PF(p, "image_encoder.trunk.blocks.%d.norm2", i), o);
            mlp(g, PF(p, "image_encoder.trunk.blocks.%d.mlp", i), o, 4 * o, o, 2);
            if (dim != o) linear(g, PF(p, "image_encoder.trunk.blocks.%d.proj", i), o, dim, 1);
            dim = o;
        }
        channels[3 - s] = o; /* the neck takes the coarsest level first */
    }
}

/* timm make_divisible(C * 0.25, 8): the squeeze-excite width */
static int64_t se_width(int64_t ch) {
    int64_t v = ch / 4, r = SAMRT_MAX(8, (v + 4) / 8 * 8);
    return r * 10 < v * 9 ? r + 8 : r;
}

static void repvit_block(struct gen *g, const char *prefix, int64_t ch, int se) {
    char p[SAMRT_KEY_NAME_MAX];
    conv_norm(g, PF(p, "%s.token_mixer.conv", prefix), ch, 1, 3);
    conv_norm(g, PF(p, "%s.token_mixer.conv1", prefix), ch, 1, 1);
    if (se) {
        conv(g, PF(p, "%s.se.fc1", prefix), se_width(ch), ch, 1);
        conv(g, PF(p, "%s.se.fc2", prefix), ch, se_width(ch), 1);
    }
    conv_norm(g, PF(p, "%s.channel_mixer.conv1", prefix), 2 * ch, ch, 1);
    conv_norm(g, PF(p, "%s.channel_mixer.conv2", prefix), ch, 2 * ch, 1);
}

/* timm repvit_m1 (legacy blocks), features_only: prefix image_encoder.trunk.body. */
static void repvit(struct gen *g, const struct model_cfg *c, int64_t channels[4]) {
    char p[SAMRT_KEY_NAME_MAX];
    int64_t e = c->embed_dim;
    conv_norm(g, "image_encoder.trunk.body.stem.conv1", e / 2, 3, 3);
    conv_norm(g, "image_encoder.trunk.body.stem.conv2", e, e / 2, 3);
    for (int s = 0; s < 4; s++) {
        int64_t b = e << s, a = s ? b / 2 : b;
        if (s > 0) {
            repvit_block(g, PF(p, "image_encoder.trunk.body.stages_%d.downsample.pre_block", s), a, 0);
            conv_norm(g, PF(p, "image_encoder.trunk.body.stages_%d.downsample.spatial_downsample", s), a, 1, 3);
            conv_norm(g, PF(p, "image_encoder.trunk.body.stages_%d.downsample.channel_downsample", s), b, a, 1);
            conv_norm(g, PF(p, "image_encoder.trunk.body.stages_%d.downsample.ffn.conv1", s), 2 * b, b, 1);
            conv_norm(g, PF(p, "image_encoder.trunk.body.stages_%d.downsample.ffn.conv2", s), b, 2 * b, 1);
        }
        for (int i = 0; i < c->stages[s]; i++) /* squeeze-excite on every other block, from the first */
            repvit_block(g, PF(p, "image_encoder.trunk.body.stages_%d.blocks.%d", s, i), b, i % 2 == 0);
        channels[3 - s] = b;
    }
}

/* EfficientTAM's ViTDet trunk (backbones/vitdet.py ViT) and ViTDetNeck: the ViT's own
 * pos_embed first (a module's parameters precede its children's in state_dict order), the
 * patch embed, the blocks (no relative position, no layer scale), then the neck's one level
 * (convs.0: conv_1x1 and conv_3x3 without bias, as neck_norm is LN, each followed by a
 * LayerNorm2d). Parameters, E = embed_dim, depth 12:
 *   pos_embed (1, 197, E)                 197 E
 *   patch_embed.proj (E, 3, 16, 16) + (E)  769 E
 *   per block: norm1 2E, qkv 3E^2 + 3E, proj E^2 + E, norm2 2E, mlp 4E^2 + 4E, 4E^2 + E
 *              = 12 E^2 + 13 E
 *   neck: 256 E + 2*256 + 256*256*9 + 2*256 = 256 E + 590,848
 * Ti (E 192): 37,824 + 147,648 + 12 * 444,864 + 640,000 = 6,163,840
 * S  (E 384): 75,648 + 295,296 + 12 * 1,774,464 + 689,152 = 22,353,664
 * The rest is SAM 2's (memory attention, memory encoder, prompt encoder, mask decoder without
 * conv_s0 / conv_s1, obj_ptr_proj, mask_downsample, the base's own 4 tensors; no
 * no_obj_embed_spatial, no obj_ptr_tpos_proj): 11,702,178. Totals: Ti 17,866,018 and
 * S 34,055,842 parameters, 455 keys each (tests/test_efficienttam_keys.c pins them;
 * tests/parity/efficienttam_counts.py prints the official builder's). */
static void vitdet(struct gen *g, const struct model_cfg *c) {
    const struct samrt_vitdet_config *v = &samrt_sam2_config_get(c->id)->vitdet;
    const int64_t e = v->embed_dim, grid = v->pretrain_grid;
    char p[SAMRT_KEY_NAME_MAX];
    add(g, "image_encoder.trunk.", "pos_embed", 0, 3, 1, grid * grid + v->cls_token, e, 0);
    conv(g, "image_encoder.trunk.patch_embed.proj", e, 3, v->patch);
    for (int i = 0; i < v->depth; i++) {
        norm(g, PF(p, "image_encoder.trunk.blocks.%d.norm1", i), e);
        linear(g, PF(p, "image_encoder.trunk.blocks.%d.attn.qkv", i), 3 * e, e, 1);
        linear(g, PF(p, "image_encoder.trunk.blocks.%d.attn.proj", i), e, e, 1);
        norm(g, PF(p, "image_encoder.trunk.blocks.%d.norm2", i), e);
        mlp(g, PF(p, "image_encoder.trunk.blocks.%d.mlp", i), e, v->mlp_ratio * e, e, 2);
    }
    add(g, "image_encoder.neck.convs.0.conv_1x1", ".weight", 0, 4, D, e, 1, 1);
    norm(g, "image_encoder.neck.convs.0.norm_0", D);
    add(g, "image_encoder.neck.convs.0.conv_3x3", ".weight", 0, 4, D, D, 3, 3);
    norm(g, "image_encoder.neck.convs.0.norm_1", D);
}

static void memory_attention(struct gen *g, int n_layers) {
    char p[SAMRT_KEY_NAME_MAX];
    for (int l = 0; l < n_layers; l++) {
        attention(g, PF(p, "memory_attention.layers.%d.self_attn", l), D, D);
        attention(g, PF(p, "memory_attention.layers.%d.cross_attn_image", l), D, MEM_DIM);
        linear(g, PF(p, "memory_attention.layers.%d.linear1", l), MLP_DIM, D, 1);
        linear(g, PF(p, "memory_attention.layers.%d.linear2", l), D, MLP_DIM, 1);
        for (int n = 1; n <= 3; n++) norm(g, PF(p, "memory_attention.layers.%d.norm%d", l, n), D);
    }
    norm(g, "memory_attention.norm", D);
}

static void memory_encoder(struct gen *g) {
    char p[SAMRT_KEY_NAME_MAX];
    /* MaskDownSampler: 4 x (conv k3 s2, LayerNorm2d, GELU) with channels 1->4->16->64->256, then 1x1 */
    for (int i = 0, in = 1; i < 4; i++, in *= 4) {
        conv(g, PF(p, "memory_encoder.mask_downsampler.encoder.%d", 3 * i), 4 * in, in, 3);
        norm(g, PF(p, "memory_encoder.mask_downsampler.encoder.%d", 3 * i + 1), 4 * in);
    }
    conv(g, "memory_encoder.mask_downsampler.encoder.12", D, D, 1);
    conv(g, "memory_encoder.pix_feat_proj", D, D, 1);
    for (int l = 0; l < 2; l++) { /* Fuser: CXBlocks */
        conv(g, PF(p, "memory_encoder.fuser.layers.%d.dwconv", l), D, 1, 7);
        norm(g, PF(p, "memory_encoder.fuser.layers.%d.norm", l), D);
        linear(g, PF(p, "memory_encoder.fuser.layers.%d.pwconv1", l), 4 * D, D, 1);
        linear(g, PF(p, "memory_encoder.fuser.layers.%d.pwconv2", l), D, 4 * D, 1);
        vec(g, PF(p, "memory_encoder.fuser.layers.%d", l), ".gamma", D);
    }
    conv(g, "memory_encoder.out_proj", MEM_DIM, D, 1);
}

/* EdgeTAM PerceiverResampler (dim 64, 256 + 256 latents, depth 2; Linear layers have no bias):
 * attention projections and the LayerNorm-Linear-GELU-Linear feed-forward under prefix p. */
static void perceiver_attn(struct gen *g, const char *p, int64_t dim) {
    char b[SAMRT_KEY_NAME_MAX];
    linear(g, PF(b, "%s.to_q", p), dim, dim, 0);
    linear(g, PF(b, "%s.to_kv", p), 2 * dim, dim, 0);
    linear(g, PF(b, "%s.to_out", p), dim, dim, 0);
}
static void perceiver_ff(struct gen *g, const char *p, int64_t dim) {
    char b[SAMRT_KEY_NAME_MAX];
    norm(g, PF(b, "%s.0", p), dim);
    linear(g, PF(b, "%s.1", p), 4 * dim, dim, 0);
    linear(g, PF(b, "%s.3", p), dim, 4 * dim, 0);
}

static void spatial_perceiver(struct gen *g) {
    char p[SAMRT_KEY_NAME_MAX];
    const int64_t dim = MEM_DIM, latents = 256;
    mat(g, "spatial_perceiver.", "latents", latents, dim);
    mat(g, "spatial_perceiver.", "latents_2d", latents, dim);
    for (int l = 0; l < 2; l++) {
        norm(g, PF(p, "spatial_perceiver.layers.%d.attn.norm_x", l), dim);
        norm(g, PF(p, "spatial_perceiver.layers.%d.attn.norm_latents", l), dim);
        perceiver_attn(g, PF(p, "spatial_perceiver.layers.%d.attn", l), dim);
        perceiver_ff(g, PF(p, "spatial_perceiver.layers.%d.ff", l), dim);
        norm(g, PF(p, "spatial_perceiver.layers.%d.self_attn.norm", l), dim);
        perceiver_attn(g, PF(p, "spatial_perceiver.layers.%d.self_attn", l), dim);
        perceiver_ff(g, PF(p, "spatial_perceiver.layers.%d.self_ff", l), dim);
    }
    norm(g, "spatial_perceiver.norm", dim);
}

static void prompt_encoder(struct gen *g) {
    char p[SAMRT_KEY_NAME_MAX];
    add(g, "sam_prompt_encoder.pe_layer.", "positional_encoding_gaussian_matrix", KEY_BUFFER, 2, 2, D / 2, 0, 0);
    for (int i = 0; i < 4; i++) mat(g, PF(p, "sam_prompt_encoder.point_embeddings.%d", i), ".weight", 1, D);
    mat(g, "sam_prompt_encoder.not_a_point_embed", ".weight", 1, D);
    conv(g, "sam_prompt_encoder.mask_downscaling.0", 4, 1, 2);
    norm(g, "sam_prompt_encoder.mask_downscaling.1", 4);
    conv(g, "sam_prompt_encoder.mask_downscaling.3", 16, 4, 2);
    norm(g, "sam_prompt_encoder.mask_downscaling.4", 16);
    conv(g, "sam_prompt_encoder.mask_downscaling.6", D, 16, 1);
    mat(g, "sam_prompt_encoder.no_mask_embed", ".weight", 1, D);
}

static void mask_decoder(struct gen *g, int high_res) {
    char p[SAMRT_KEY_NAME_MAX];
    for (int n = 0; n < 2; n++) { /* TwoWayAttentionBlock */
        attention(g, PF(p, "sam_mask_decoder.transformer.layers.%d.self_attn", n), D, D);
        norm(g, PF(p, "sam_mask_decoder.transformer.layers.%d.norm1", n), D);
        attention(g, PF(p, "sam_mask_decoder.transformer.layers.%d.cross_attn_token_to_image", n), DEC_ATTN, D);
        norm(g, PF(p, "sam_mask_decoder.transformer.layers.%d.norm2", n), D);
        mlp(g, PF(p, "sam_mask_decoder.transformer.layers.%d.mlp", n), D, MLP_DIM, D, 2);
        norm(g, PF(p, "sam_mask_decoder.transformer.layers.%d.norm3", n), D);
        norm(g, PF(p, "sam_mask_decoder.transformer.layers.%d.norm4", n), D);
        attention(g, PF(p, "sam_mask_decoder.transformer.layers.%d.cross_attn_image_to_token", n), DEC_ATTN, D);
    }
    attention(g, "sam_mask_decoder.transformer.final_attn_token_to_image", DEC_ATTN, D);
    norm(g, "sam_mask_decoder.transformer.norm_final_attn", D);
    mat(g, "sam_mask_decoder.iou_token", ".weight", 1, D);
    mat(g, "sam_mask_decoder.mask_tokens", ".weight", N_MASK_TOKENS, D);
    mat(g, "sam_mask_decoder.obj_score_token", ".weight", 1, D);
    conv_t(g, "sam_mask_decoder.output_upscaling.0", D, D / 4, 2);
    norm(g, "sam_mask_decoder.output_upscaling.1", D / 4);
    conv_t(g, "sam_mask_decoder.output_upscaling.3", D / 4, D / 8, 2);
    if (high_res) { /* use_high_res_features_in_sam (EfficientTAM: off) */
        conv(g, "sam_mask_decoder.conv_s0", D / 8, D, 1);
        conv(g, "sam_mask_decoder.conv_s1", D / 4, D, 1);
    }
    for (int i = 0; i < N_MASK_TOKENS; i++)
        mlp(g, PF(p, "sam_mask_decoder.output_hypernetworks_mlps.%d", i), D, D, D / 8, 3);
    mlp(g, "sam_mask_decoder.iou_prediction_head", D, D, N_MASK_TOKENS, 3);
    mlp(g, "sam_mask_decoder.pred_obj_score_head", D, D, 1, 3);
}

enum samrt_status samrt_keys_init(enum samrt_model_id model, struct samrt_keys *out) {
    SAMRT_CHECK(out, SAMRT_E_INVALID_ARG, "samrt_keys_init: NULL output");
    memset(out, 0, sizeof *out);
    const struct model_cfg *c = NULL;
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(g_models); i++)
        if (g_models[i].id == model) c = &g_models[i];
    SAMRT_CHECK(c, SAMRT_E_INVALID_ARG, "samrt_keys_init: no key layout for model %d", (int)model);
    out->model = model;
    struct gen g = {out, SAMRT_OK};
    int64_t channels[4];
    /* SAM2Base's own parameters */
    add(&g, "", "maskmem_tpos_enc", 0, 4, 7, 1, 1, MEM_DIM);
    add(&g, "", "no_mem_embed", 0, 3, 1, 1, D, 0);
    add(&g, "", "no_mem_pos_enc", 0, 3, 1, 1, D, 0);
    mat(&g, "", "no_obj_ptr", 1, D);
    if (c->sam21) mat(&g, "", "no_obj_embed_spatial", 1, MEM_DIM);
    char p[SAMRT_KEY_NAME_MAX];
    if (c->trunk == TRUNK_VITDET) {
        vitdet(&g, c);
    } else {
        if (c->trunk == TRUNK_HIERA) hiera(&g, c, channels);
        else repvit(&g, c, channels);
        for (int j = 0; j < 4; j++) conv(&g, PF(p, "image_encoder.neck.convs.%d.conv", j), D, channels[j], 1);
    }
    conv(&g, "mask_downsample", 1, 1, 4);
    memory_attention(&g, c->n_mem_layers);
    memory_encoder(&g);
    if (c->perceiver) spatial_perceiver(&g);
    prompt_encoder(&g);
    mask_decoder(&g, c->trunk != TRUNK_VITDET);
    mlp(&g, "obj_ptr_proj", D, D, D, 3);
    if (c->sam21) linear(&g, "obj_ptr_tpos_proj", MEM_DIM, D, 1);
    if (g.st != SAMRT_OK) samrt_keys_free(out);
    return g.st;
}

void samrt_keys_free(struct samrt_keys *keys) {
    if (!keys) return;
    free(keys->keys);
    memset(keys, 0, sizeof *keys);
}

static int64_t key_numel(const struct samrt_key *k) {
    int64_t n = 1;
    for (int d = 0; d < k->n_dims; d++) n *= k->ne[d];
    return n;
}

uint64_t samrt_keys_param_count(const struct samrt_keys *keys) {
    uint64_t n = 0;
    for (int i = 0; keys && i < keys->n_keys; i++)
        if (!keys->keys[i].is_buffer) n += (uint64_t)key_numel(&keys->keys[i]);
    return n;
}

/* ---- comparing with a checkpoint ----------------------------------------------------------- */

static const char *shape_str(char *buf, size_t len, int n_dims, const int64_t *ne) {
    size_t w = (size_t)snprintf(buf, len, "(");
    for (int d = 0; d < n_dims && w < len; d++)
        w += (size_t)snprintf(buf + w, len - w, "%s%lld", d ? "," : "", (long long)ne[d]);
    if (w < len) snprintf(buf + w, len - w, ")");
    return buf;
}

static int cmp_tensor_ptr(const void *a, const void *b) {
    return strcmp((*(const struct samrt_ckpt_tensor *const *)a)->name,
                  (*(const struct samrt_ckpt_tensor *const *)b)->name);
}

static int is_float_dtype(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F32 || dt == SAMRT_DTYPE_F16 || dt == SAMRT_DTYPE_BF16;
}

/* 1 when the checkpoint tensor has the key's shape and dtype class. */
static int same_shape(const struct samrt_key *k, const struct samrt_ckpt_tensor *t) {
    if (k->n_dims != t->n_dims || (k->is_int ? is_float_dtype(t->dtype) : !is_float_dtype(t->dtype))) return 0;
    for (int d = 0; d < k->n_dims; d++)
        if (k->ne[d] != t->ne[d]) return 0;
    return 1;
}

static void log_more(int log, int count, const char *what) {
    if (log && count > SAMRT_KEYS_LOG_MAX)
        SAMRT_LOG_ERROR("  ... and %d more %s keys (%d in all)", count - SAMRT_KEYS_LOG_MAX, what, count);
}

enum samrt_status samrt_keys_diff(const struct samrt_keys *want, const struct samrt_ckpt_tensor *t, int n,
                                  int log, struct samrt_keys_diff *out) {
    SAMRT_CHECK(want && out && (t || n == 0) && n >= 0, SAMRT_E_INVALID_ARG, "samrt_keys_diff: bad argument");
    memset(out, 0, sizeof *out);
    const struct samrt_ckpt_tensor **sorted = malloc((size_t)SAMRT_MAX(n, 1) * sizeof *sorted);
    uint8_t *seen = calloc((size_t)SAMRT_MAX(n, 1), 1);
    if (!sorted || !seen) {
        free(sorted);
        free(seen);
        SAMRT_LOG_ERROR("samrt_keys_diff: out of memory");
        return SAMRT_E_HOST_MEMORY;
    }
    for (int i = 0; i < n; i++) sorted[i] = &t[i];
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_tensor_ptr);
    char a[96], b[96];
    const char *model = samrt_model_name(want->model);
    for (int i = 0; i < want->n_keys; i++) {
        const struct samrt_key *k = &want->keys[i];
        struct samrt_ckpt_tensor probe = {.name = (char *)k->name};
        const struct samrt_ckpt_tensor *pp = &probe;
        const struct samrt_ckpt_tensor **hit = bsearch(&pp, sorted, (size_t)n, sizeof *sorted, cmp_tensor_ptr);
        if (!hit) {
            if (!k->optional && log && out->n_missing < SAMRT_KEYS_LOG_MAX)
                SAMRT_LOG_ERROR("  missing key %s %s (%s needs it)", k->name,
                                shape_str(a, sizeof a, k->n_dims, k->ne), model);
            out->n_missing += !k->optional;
            continue;
        }
        seen[*hit - t] = 1;
        if (!same_shape(k, *hit)) {
            if (log && out->n_misshaped < SAMRT_KEYS_LOG_MAX)
                SAMRT_LOG_ERROR("  key %s: checkpoint has %s %s, %s expects %s %s", k->name,
                                samrt_dtype_name((*hit)->dtype), shape_str(a, sizeof a, (*hit)->n_dims, (*hit)->ne),
                                model, k->is_int ? "i64" : "floating-point", shape_str(b, sizeof b, k->n_dims, k->ne));
            out->n_misshaped++;
        }
    }
    for (int i = 0; i < n; i++) {
        if (seen[i]) continue;
        if (log && out->n_unexpected < SAMRT_KEYS_LOG_MAX)
            SAMRT_LOG_ERROR("  unexpected key %s %s (not in %s)", t[i].name,
                            shape_str(a, sizeof a, t[i].n_dims, t[i].ne), model);
        out->n_unexpected++;
    }
    log_more(log, out->n_missing, "missing");
    log_more(log, out->n_misshaped, "mis-shaped");
    log_more(log, out->n_unexpected, "unexpected");
    free(sorted);
    free(seen);
    return SAMRT_OK;
}

/* Diff against every model; exact = the first whose names and shapes equal the checkpoint's, else the
 * first whose names do; best = fewest missing + unexpected names. */
static enum samrt_status scan_models(const struct samrt_ckpt_tensor *t, int n, enum samrt_model_id *exact,
                                     enum samrt_model_id *best, struct samrt_keys_diff *best_diff) {
    *exact = *best = SAMRT_MODEL_UNKNOWN;
    enum samrt_model_id exact_shapes = SAMRT_MODEL_UNKNOWN;  /* names and shapes: EfficientTAM Ti vs S */
    int best_score = -1;
    for (int m = 1; m < SAMRT_MODEL_COUNT; m++) {
        struct samrt_keys k;
        struct samrt_keys_diff d;
        SAMRT_TRY(samrt_keys_init((enum samrt_model_id)m, &k));
        enum samrt_status st = samrt_keys_diff(&k, t, n, 0, &d);
        samrt_keys_free(&k);
        SAMRT_TRY(st);
        int score = d.n_missing + d.n_unexpected;
        if (score == 0 && *exact == SAMRT_MODEL_UNKNOWN) *exact = (enum samrt_model_id)m;
        if (score == 0 && d.n_misshaped == 0 && exact_shapes == SAMRT_MODEL_UNKNOWN)
            exact_shapes = (enum samrt_model_id)m;
        if (best_score < 0 || score < best_score) {
            best_score = score;
            *best = (enum samrt_model_id)m;
            *best_diff = d;
        }
    }
    if (exact_shapes != SAMRT_MODEL_UNKNOWN) *exact = exact_shapes;  /* else the first by names alone */
    return SAMRT_OK;
}

enum samrt_model_id samrt_keys_identify(const struct samrt_ckpt_tensor *t, int n) {
    enum samrt_model_id exact, best;
    struct samrt_keys_diff d;
    if (scan_models(t, n, &exact, &best, &d) != SAMRT_OK) return SAMRT_MODEL_UNKNOWN;
    return exact;
}

enum samrt_model_id samrt_keys_closest(const struct samrt_ckpt_tensor *t, int n, struct samrt_keys_diff *diff) {
    enum samrt_model_id exact, best;
    struct samrt_keys_diff d = {0, 0, 0};
    if (scan_models(t, n, &exact, &best, &d) != SAMRT_OK) best = SAMRT_MODEL_UNKNOWN;
    if (diff) *diff = d;
    return best;
}

int samrt_keys_same_layout(enum samrt_model_id a, enum samrt_model_id b) {
    if (a == b) return 1;
    struct samrt_keys ka, kb;
    if (samrt_keys_init(a, &ka) != SAMRT_OK) return 0;
    if (samrt_keys_init(b, &kb) != SAMRT_OK) {
        samrt_keys_free(&ka);
        return 0;
    }
    int same = ka.n_keys == kb.n_keys;
    for (int i = 0; same && i < ka.n_keys; i++)
        same = !strcmp(ka.keys[i].name, kb.keys[i].name) && ka.keys[i].n_dims == kb.keys[i].n_dims &&
               !memcmp(ka.keys[i].ne, kb.keys[i].ne, sizeof ka.keys[i].ne);
    samrt_keys_free(&ka);
    samrt_keys_free(&kb);
    return same;
}

enum samrt_model_id samrt_keys_variant(enum samrt_model_id found, enum samrt_model_id want, const char *path,
                                       char *why, size_t why_len) {
    if (why && why_len) why[0] = 0;
    if (found == SAMRT_MODEL_UNKNOWN) return found;
    char names[256] = "";
    int n_same = 0;
    for (int m = 1; m < SAMRT_MODEL_COUNT; m++)
        if (samrt_keys_same_layout(found, (enum samrt_model_id)m)) {
            const size_t w = strlen(names);
            snprintf(names + w, sizeof names - w, "%s%s", n_same ? ", " : "", samrt_model_name((enum samrt_model_id)m));
            n_same++;
        }
    if (n_same < 2) return found;  /* the weights name the model */
    if (want != SAMRT_MODEL_UNKNOWN && samrt_keys_same_layout(found, want)) {
        if (why) snprintf(why, why_len, "%s as requested (%s share these keys and shapes)", samrt_model_name(want), names);
        return want;
    }
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    for (int m = 1; base && m < SAMRT_MODEL_COUNT; m++) {
        const char *file = samrt_model_checkpoint_name((enum samrt_model_id)m);
        if (file && !strcmp(base, file) && samrt_keys_same_layout(found, (enum samrt_model_id)m)) {
            if (why)
                snprintf(why, why_len, "%s by its official file name %s (%s share these keys and shapes)",
                         samrt_model_name((enum samrt_model_id)m), file, names);
            return (enum samrt_model_id)m;
        }
    }
    if (why)
        snprintf(why, why_len, "%s assumed: %s share these keys and shapes and the file name names none of them; "
                 "pass --model to choose", samrt_model_name(found), names);
    return found;
}

enum samrt_status samrt_keys_match(enum samrt_model_id want, const struct samrt_ckpt_tensor *t, int n,
                                   enum samrt_model_id *found) {
    if (found) *found = SAMRT_MODEL_UNKNOWN;
    SAMRT_CHECK((unsigned)want < SAMRT_MODEL_COUNT, SAMRT_E_INVALID_ARG, "samrt_keys_match: bad model %d", (int)want);
    enum samrt_model_id exact, best;
    struct samrt_keys_diff bd;
    SAMRT_TRY(scan_models(t, n, &exact, &best, &bd));
    if (found) *found = exact != SAMRT_MODEL_UNKNOWN && want != SAMRT_MODEL_UNKNOWN &&
                        samrt_keys_same_layout(exact, want) ? want : exact;
    if (want == SAMRT_MODEL_UNKNOWN) {
        if (exact == SAMRT_MODEL_UNKNOWN) {
            SAMRT_LOG_ERROR("checkpoint keys match no supported model; closest is %s (%d missing, %d unexpected):",
                            samrt_model_name(best), bd.n_missing, bd.n_unexpected);
            want = best;
        } else {
            want = exact;
        }
    } else if (exact != SAMRT_MODEL_UNKNOWN && exact != want && !samrt_keys_same_layout(exact, want)) {
        SAMRT_LOG_ERROR("the checkpoint holds %s weights, but %s was requested", samrt_model_name(exact),
                        samrt_model_name(want));
        return SAMRT_E_MODEL_MISMATCH;
    }
    struct samrt_keys k;
    struct samrt_keys_diff d;
    SAMRT_TRY(samrt_keys_init(want, &k));
    enum samrt_status st = samrt_keys_diff(&k, t, n, 1, &d);
    samrt_keys_free(&k);
    SAMRT_TRY(st);
    if (d.n_missing || d.n_unexpected || d.n_misshaped) {
        SAMRT_LOG_ERROR("checkpoint keys do not match %s: %d missing, %d unexpected, %d mis-shaped",
                        samrt_model_name(want), d.n_missing, d.n_unexpected, d.n_misshaped);
        return SAMRT_E_KEYS;
    }
    return SAMRT_OK;
}
