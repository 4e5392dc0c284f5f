/* vitdet.c - EfficientTAM's ViTDet trunk and single-scale neck (vitdet.h): config checks,
 * binding by official key name, the resized absolute position embedding, and the forward
 * pass over the op layer.
 *
 * Choices that are not obvious:
 *   - No window partition copies: the qkv Linear runs on the unpadded map and the attention
 *     op's window mode maps window rows to map tokens, giving padded keys the qkv bias as k and
 *     v -- what the official block computes for the zero tokens it pads after norm1. The 64 x 64
 *     map of a 1024 input pads to 70 x 70 (5 x 5 windows of 14), the 32 x 32 map of 512 to 42.
 *   - The residual adds are the Linear epilogue's (proj(attn) + x and fc2(h) + x rounded once,
 *     as `shortcut + x` is).
 * Tests: tests/test_efficienttam_keys.c, tests/test_efficienttam.c. */
#include "vitdet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt.h"

#define VIT_EPS 1e-6f   /* ViT's norm_layer: partial(nn.LayerNorm, eps=1e-6) */
#define LN2D_EPS 1e-6f  /* LayerNorm2d's default */
#define NECK SAMRT_VITDET_NECK_DIM

int samrt_vitdet_windowed(const struct samrt_vitdet_config *cfg, int i) {
    return i >= 0 && i < 32 && (cfg->window_blocks >> i & 1u) != 0;
}

/* ---- binding --------------------------------------------------------------------------------- */

#define VEC(b, n, ...) samrt_model_bindw(b, 1, SAMRT_SHAPE(n), __VA_ARGS__)
#define MAT(b, r, k, ...) samrt_model_bindw(b, 2, SAMRT_SHAPE(r, k), __VA_ARGS__)

enum samrt_status samrt_vitdet_bind(struct samrt_vitdet *vt, const struct samrt_vitdet_config *cfg, int imgsz,
                                    struct samrt_model_binder *b) {
    memset(vt, 0, sizeof *vt);
    vt->slot_pos = -1;
    SAMRT_CHECK(cfg && cfg->embed_dim > 0 && cfg->num_heads > 0 && cfg->embed_dim % cfg->num_heads == 0 &&
                    cfg->depth > 0 && cfg->depth <= SAMRT_VITDET_MAX_BLOCKS && cfg->patch > 0 && cfg->window > 0 &&
                    cfg->mlp_ratio > 0 && cfg->pretrain_grid > 0,
                SAMRT_E_INVALID_ARG, "vitdet: bad configuration");
    SAMRT_CHECK(imgsz >= cfg->patch && imgsz % cfg->patch == 0, SAMRT_E_INVALID_ARG,
                "vitdet: image size %d must be a positive multiple of the patch %d", imgsz, cfg->patch);
    vt->cfg = cfg;
    vt->imgsz = imgsz;
    vt->grid = imgsz / cfg->patch;
    const int64_t E = cfg->embed_dim, P = cfg->patch, n_pos = (int64_t)cfg->pretrain_grid * cfg->pretrain_grid;
    const char *tr = "image_encoder.trunk";
    vt->pos_embed = samrt_model_bindw(b, 3, SAMRT_SHAPE(1, n_pos + cfg->cls_token, E), "%s.pos_embed", tr);
    vt->patch_w = samrt_model_bindw(b, 4, SAMRT_SHAPE(E, 3, P, P), "%s.patch_embed.proj.weight", tr);
    vt->patch_b = VEC(b, E, "%s.patch_embed.proj.bias", tr);
    const int64_t hid = cfg->mlp_ratio * E;
    for (int i = 0; i < cfg->depth; i++) {
        struct samrt_vitdet_block_weights *w = &vt->blk[i];
        w->norm1_w = VEC(b, E, "%s.blocks.%d.norm1.weight", tr, i);
        w->norm1_b = VEC(b, E, "%s.blocks.%d.norm1.bias", tr, i);
        w->qkv_w = MAT(b, 3 * E, E, "%s.blocks.%d.attn.qkv.weight", tr, i);
        w->qkv_b = VEC(b, 3 * E, "%s.blocks.%d.attn.qkv.bias", tr, i);
        w->proj_w = MAT(b, E, E, "%s.blocks.%d.attn.proj.weight", tr, i);
        w->proj_b = VEC(b, E, "%s.blocks.%d.attn.proj.bias", tr, i);
        w->norm2_w = VEC(b, E, "%s.blocks.%d.norm2.weight", tr, i);
        w->norm2_b = VEC(b, E, "%s.blocks.%d.norm2.bias", tr, i);
        w->fc1_w = MAT(b, hid, E, "%s.blocks.%d.mlp.layers.0.weight", tr, i);
        w->fc1_b = VEC(b, hid, "%s.blocks.%d.mlp.layers.0.bias", tr, i);
        w->fc2_w = MAT(b, E, hid, "%s.blocks.%d.mlp.layers.1.weight", tr, i);
        w->fc2_b = VEC(b, E, "%s.blocks.%d.mlp.layers.1.bias", tr, i);
    }
    const char *nk = "image_encoder.neck.convs.0";
    vt->neck_w1 = samrt_model_bindw(b, 4, SAMRT_SHAPE(NECK, E, 1, 1), "%s.conv_1x1.weight", nk);
    vt->neck_n0_w = VEC(b, NECK, "%s.norm_0.weight", nk);
    vt->neck_n0_b = VEC(b, NECK, "%s.norm_0.bias", nk);
    vt->neck_w3 = samrt_model_bindw(b, 4, SAMRT_SHAPE(NECK, NECK, 3, 3), "%s.conv_3x3.weight", nk);
    vt->neck_n1_w = VEC(b, NECK, "%s.norm_1.weight", nk);
    vt->neck_n1_b = VEC(b, NECK, "%s.norm_1.bias", nk);
    return b->st;
}

enum samrt_status samrt_vitdet_plan(struct samrt_vitdet *vt, struct samrt_op_ctx *c) {
    const int64_t n = (int64_t)vt->grid * vt->grid;
    return samrt_ctx_persistent(c, "efficienttam.pos_embed", SAMRT_REGION_WEIGHTS, c->dtype, 3,
                                SAMRT_SHAPE(1, n, vt->cfg->embed_dim), &vt->pos, &vt->slot_pos);
}

/* ---- the position embedding ------------------------------------------------------------------ */

enum samrt_status samrt_vitdet_pos_table(const struct samrt_vitdet_config *cfg, int grid, const float *pos_embed,
                                         float *out) {
    const int E = cfg->embed_dim, s = cfg->pretrain_grid;
    const float *rows = pos_embed + (size_t)cfg->cls_token * E;  /* abs_pos[:, 1:] */
    if (s == grid) {  /* abs_pos.reshape(1, h, w, -1): no resize */
        memcpy(out, rows, sizeof(float) * (size_t)s * s * E);
        return SAMRT_OK;
    }
    /* (s*s, E) -> planes (E, s, s), bicubic to (E, grid, grid), back to (grid*grid, E) */
    float *planes = malloc(sizeof(float) * ((size_t)E * s * s + (size_t)E * grid * grid));  /* setup only */
    SAMRT_CHECK(planes != NULL, SAMRT_E_HOST_MEMORY, "vitdet: out of host memory");
    float *big = planes + (size_t)E * s * s;
    for (int t = 0; t < s * s; t++)
        for (int ch = 0; ch < E; ch++) planes[(size_t)ch * s * s + t] = rows[(size_t)t * E + ch];
    enum samrt_status st = samrt_op_host_interp(SAMRT_INTERP_BICUBIC, E, s, s, grid, grid, planes, big);
    for (int t = 0; st == SAMRT_OK && t < grid * grid; t++)
        for (int ch = 0; ch < E; ch++) out[(size_t)t * E + ch] = big[(size_t)ch * grid * grid + t];
    free(planes);
    return st;
}

enum samrt_status samrt_vitdet_prepare_with(struct samrt_vitdet *vt, const struct samrt_model_env *env,
                                            const float *pos_embed) {
    SAMRT_CHECK(vt->slot_pos >= 0 && pos_embed, SAMRT_E_BAD_STATE, "vitdet: not planned");
    vt->pos.data = samrt_model_slot(env, vt->slot_pos);
    const size_t n = (size_t)vt->grid * vt->grid * vt->cfg->embed_dim;
    float *tab = malloc(sizeof(float) * n);  /* setup only; rounded in place below (dtype size <= 4) */
    SAMRT_CHECK(tab != NULL, SAMRT_E_HOST_MEMORY, "vitdet: out of host memory");
    enum samrt_status st = samrt_vitdet_pos_table(vt->cfg, vt->grid, pos_embed, tab);
    if (st == SAMRT_OK) {
        for (size_t i = 0; i < n; i++) samrt_op_host_store(vt->pos.dtype, tab, (int64_t)i, tab[i]);
        st = samrt_model_upload(env, vt->pos.data, tab, samrt_tensor_nbytes(&vt->pos));
    }
    free(tab);
    return st;
}

enum samrt_status samrt_vitdet_prepare(struct samrt_vitdet *vt, const struct samrt_model_env *env,
                                       const struct samrt_ckpt *ck) {
    const char *name = "image_encoder.trunk.pos_embed";
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, name);
    const int64_t want = ((int64_t)vt->cfg->pretrain_grid * vt->cfg->pretrain_grid + vt->cfg->cls_token) *
                         vt->cfg->embed_dim;
    SAMRT_CHECK(t && t->nelements == want, SAMRT_E_KEYS, "vitdet: %s missing or mis-shaped", name);
    float *v = malloc(sizeof(float) * (size_t)want);  /* setup only */
    SAMRT_CHECK(v != NULL, SAMRT_E_HOST_MEMORY, "vitdet: out of host memory");
    enum samrt_status st = samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, v, sizeof(float) * (uint64_t)want);
    if (st == SAMRT_OK) st = samrt_vitdet_prepare_with(vt, env, v);
    free(v);
    return st;
}

/* ---- forward --------------------------------------------------------------------------------- */

/* (1, g*g, C) contiguous tokens seen as (1, g, g, C). */
static struct samrt_tensor map4(const struct samrt_tensor *t, int64_t g) {
    const int64_t ch = t->ne[t->n_dims - 1];
    return samrt_tensor_view(t, 0, 4, SAMRT_SHAPE(1, g, g, ch), SAMRT_SHAPE(g * g * ch, g * ch, ch, 1));
}

static void tap_map(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *t, int64_t g) {
    if (!samrt_ctx_tapping(c)) return;
    const struct samrt_tensor v = map4(t, g);
    samrt_op_tap(c, name, &v);
}

/* Block i of the trunk on x (1, g*g, E). */
static struct samrt_tensor block(struct samrt_vitdet *vt, struct samrt_op_ctx *c, int i, const struct samrt_tensor *x) {
    const struct samrt_vitdet_block_weights *w = &vt->blk[i];
    const int64_t E = vt->cfg->embed_dim, g = vt->grid, n = g * g;
    struct samrt_tensor xn = samrt_op_layernorm(c, "vit.norm1", x, w->norm1_w, w->norm1_b, NULL, VIT_EPS, NULL);
    struct samrt_tensor qkv = samrt_op_linear(c, "vit.qkv", &xn, w->qkv_w, w->qkv_b, SAMRT_ACT_NONE, NULL);
    const int64_t s3[3] = {n * 3 * E, 3 * E, 1};
    const struct samrt_tensor q = samrt_tensor_view(&qkv, 0, 3, SAMRT_SHAPE(1, n, E), s3);
    const struct samrt_tensor k = samrt_tensor_view(&qkv, E, 3, SAMRT_SHAPE(1, n, E), s3);
    const struct samrt_tensor v = samrt_tensor_view(&qkv, 2 * E, 3, SAMRT_SHAPE(1, n, E), s3);
    const struct samrt_tensor pad_k = samrt_tensor_view(w->qkv_b, E, 1, SAMRT_SHAPE(E), SAMRT_SHAPE(1));
    const struct samrt_tensor pad_v = samrt_tensor_view(w->qkv_b, 2 * E, 1, SAMRT_SHAPE(E), SAMRT_SHAPE(1));
    struct samrt_op_attn_args a;
    memset(&a, 0, sizeof a);
    a.n_head = vt->cfg->num_heads;
    a.d_qk = a.d_v = (int)(E / vt->cfg->num_heads);
    if (samrt_vitdet_windowed(vt->cfg, i)) {
        a.win_q = a.win_k = vt->cfg->window;
        a.q_h = a.q_w = a.k_h = a.k_w = (int)g;
        a.pad_k = &pad_k;
        a.pad_v = &pad_v;
    }
    struct samrt_tensor att = samrt_op_attention(c, "vit.attn", &q, &k, &v, &a);
    struct samrt_tensor x1 = samrt_op_linear(c, "vit.proj", &att, w->proj_w, w->proj_b, SAMRT_ACT_NONE, x);
    struct samrt_tensor h = samrt_op_layernorm(c, "vit.norm2", &x1, w->norm2_w, w->norm2_b, NULL, VIT_EPS, NULL);
    struct samrt_tensor m = samrt_op_linear(c, "vit.fc1", &h, w->fc1_w, w->fc1_b, SAMRT_ACT_GELU, NULL);
    return samrt_op_linear(c, "vit.fc2", &m, w->fc2_w, w->fc2_b, SAMRT_ACT_NONE, &x1);
}

/* ViTDetNeck: conv_1x1 (a Linear over tokens) -> norm_0 -> conv_3x3 (NCHW) -> norm_1 -> out. */
static void neck(struct samrt_vitdet *vt, struct samrt_op_ctx *c, const struct samrt_tensor *x,
                 const struct samrt_tensor *out) {
    const int64_t g = vt->grid;
    struct samrt_tensor y = samrt_op_linear(c, "vit.neck.conv_1x1", x, vt->neck_w1, NULL, SAMRT_ACT_NONE, NULL);
    y = samrt_op_layernorm(c, "vit.neck.norm_0", &y, vt->neck_n0_w, vt->neck_n0_b, NULL, LN2D_EPS, NULL);
    tap_map(c, "tap.neck.conv_1x1", &y, g);
    static const int to_nchw[4] = {0, 3, 1, 2}, to_nhwc[4] = {0, 2, 3, 1};
    struct samrt_tensor ym = map4(&y, g), yv;
    samrt_ctx_fail(c, samrt_tensor_permute(&ym, to_nchw, &yv));
    struct samrt_tensor yc = samrt_op_copy(c, "vit.neck.to_nchw", &yv, c->dtype, NULL);
    struct samrt_tensor z = samrt_op_conv2d(c, "vit.neck.conv_3x3", &yc, vt->neck_w3, NULL, 1, 1, 1, SAMRT_CONV_NCHW,
                                            SAMRT_ACT_NONE);
    z = samrt_op_layernorm2d(c, "vit.neck.norm_1", &z, vt->neck_n1_w, vt->neck_n1_b, NULL, LN2D_EPS, SAMRT_ACT_NONE);
    struct samrt_tensor zv;
    samrt_ctx_fail(c, samrt_tensor_permute(&z, to_nhwc, &zv));
    const struct samrt_tensor om = map4(out, g);
    samrt_op_copy_into(c, &zv, NULL, &om);
    tap_map(c, "tap.fpn.0", out, g);
}

void samrt_vitdet_forward(struct samrt_vitdet *vt, struct samrt_op_ctx *c, const struct samrt_tensor *input,
                          const struct samrt_tensor *out) {
    const int64_t g = vt->grid;
    struct samrt_tensor pe = samrt_op_conv2d(c, "vit.patch_embed", input, vt->patch_w, vt->patch_b, vt->cfg->patch, 0,
                                             1, SAMRT_CONV_NCHW, SAMRT_ACT_NONE);
    static const int to_nhwc[4] = {0, 2, 3, 1};
    struct samrt_tensor pe_nhwc;
    samrt_ctx_fail(c, samrt_tensor_permute(&pe, to_nhwc, &pe_nhwc));
    samrt_op_tap(c, "tap.trunk.patch_embed", &pe_nhwc);
    const struct samrt_tensor pos = map4(&vt->pos, g);
    struct samrt_tensor x4 = samrt_op_copy(c, "vit.embed", &pe_nhwc, c->dtype, &pos);  /* x + get_abs_pos(...) */
    struct samrt_tensor x = samrt_tensor_view(&x4, 0, 3, SAMRT_SHAPE(1, g * g, x4.ne[3]),
                                              SAMRT_SHAPE(g * g * x4.ne[3], x4.ne[3], 1));
    tap_map(c, "tap.trunk.embed", &x, g);
    char name[48];
    for (int i = 0; i < vt->cfg->depth && samrt_ctx_ok(c); i++) {
        x = block(vt, c, i, &x);
        snprintf(name, sizeof name, "tap.trunk.block.%d", i);
        tap_map(c, name, &x, g);
    }
    tap_map(c, "tap.trunk.out.0", &x, g);
    neck(vt, c, &x, out);
}
