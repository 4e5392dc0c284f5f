/* image_encoder.c - SAM 2 / 2.1 and EdgeTAM image encoder (image_encoder.h): weight binding,
 * planning, constants, and the forward pass of the trunk (Hiera here; RepViT in
 * models/edgetam/repvit.c, reporting its stage outputs back), the FPN neck and conv_s0 / conv_s1;
 * EfficientTAM's ViTDet trunk and neck run whole in models/efficienttam/vitdet.c.
 *
 * Choices that are not obvious:
 *   - No window partition copies. The qkv Linear runs on the unpadded map; the attention
 *     kernel maps window rows to map tokens and gives padded keys the qkv bias as k and v,
 *     which is exactly what the official block computes for zero tokens padded after norm1
 *     (model-spec 3.1 step 3-5, section 7 item 2). Output rows of padded queries are never
 *     written, so no un-partition or crop exists either.
 *   - Q-pool pools q over the whole map (heads merged, as the official pool does) before the
 *     attention; with even maps and even windows every 2x2 cell lies inside one window, so
 *     this equals the per-window pool (attention.h).
 *   - The neck's level 0 and 1 convolutions (and conv_s0 / conv_s1) run right after their
 *     stage ends, and level 2's lateral right after stage 3: nothing but the lateral waits
 *     for the top-down path, which keeps the large stage-1 map out of the scratch peak. The
 *     order of additions is the official one: lateral (rounded) + upsampled level 3.
 *   - The position embedding is a constant of the weights and the image size: computed once
 *     at prepare, in fp32 from the checkpoint values, and added while the patch-embed
 *     output is turned into tokens.
 * Run with the engine; tests: tests/test_sam2_encoder.c, tests/test_sam2_encoder_cuda.c. */
#include "image_encoder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_env.h"
#include "ops.h"

#define HIERA_EPS 1e-6f
#define NECK_DIM 256
#define PATCH_K 7
#define PATCH_STRIDE 4
#define PATCH_PAD 3

/* ---- binding ----------------------------------------------------------------------------------- */

#define VEC(b, n, ...) samrt_model_bindw(b, 1, SAMRT_SHAPE(n), __VA_ARGS__)
#define MAT(b, r, k, ...) samrt_model_bindw(b, 2, SAMRT_SHAPE(r, k), __VA_ARGS__)
#define CONV1(b, o, i, ...) samrt_model_bindw(b, 4, SAMRT_SHAPE(o, i, 1, 1), __VA_ARGS__)

/* The Hiera trunk's weights (image_encoder.trunk.*). */
static void bind_hiera(struct samrt_sam2_encoder *enc, struct samrt_model_binder *b) {
    const struct samrt_hiera_config *h = &enc->cfg->hiera;
    struct samrt_sam2_encoder_weights *w = &enc->w;
    const int64_t E = h->embed_dim;
    const char *tr = "image_encoder.trunk";
    w->pos_embed = samrt_model_bindw(b, 4, SAMRT_SHAPE(1, E, h->bkg, h->bkg), "%s.pos_embed", tr);
    w->pos_embed_window =
        samrt_model_bindw(b, 4, SAMRT_SHAPE(1, E, h->window_spec[0], h->window_spec[0]), "%s.pos_embed_window", tr);
    w->patch_w = samrt_model_bindw(b, 4, SAMRT_SHAPE(E, 3, PATCH_K, PATCH_K), "%s.patch_embed.proj.weight", tr);
    w->patch_b = VEC(b, E, "%s.patch_embed.proj.bias", tr);
    for (int i = 0; i < enc->n_blocks; i++) {
        const int64_t d = enc->blk[i].dim, o = enc->blk[i].dim_out;
        struct samrt_hiera_block_weights *bw = &w->blk[i];
        bw->norm1_w = VEC(b, d, "%s.blocks.%d.norm1.weight", tr, i);
        bw->norm1_b = VEC(b, d, "%s.blocks.%d.norm1.bias", tr, i);
        bw->qkv_w = MAT(b, 3 * o, d, "%s.blocks.%d.attn.qkv.weight", tr, i);
        bw->qkv_b = VEC(b, 3 * o, "%s.blocks.%d.attn.qkv.bias", tr, i);
        bw->attn_proj_w = MAT(b, o, o, "%s.blocks.%d.attn.proj.weight", tr, i);
        bw->attn_proj_b = VEC(b, o, "%s.blocks.%d.attn.proj.bias", tr, i);
        bw->norm2_w = VEC(b, o, "%s.blocks.%d.norm2.weight", tr, i);
        bw->norm2_b = VEC(b, o, "%s.blocks.%d.norm2.bias", tr, i);
        bw->fc1_w = MAT(b, 4 * o, o, "%s.blocks.%d.mlp.layers.0.weight", tr, i);
        bw->fc1_b = VEC(b, 4 * o, "%s.blocks.%d.mlp.layers.0.bias", tr, i);
        bw->fc2_w = MAT(b, o, 4 * o, "%s.blocks.%d.mlp.layers.1.weight", tr, i);
        bw->fc2_b = VEC(b, o, "%s.blocks.%d.mlp.layers.1.bias", tr, i);
        if (d != o) {
            bw->proj_w = MAT(b, o, d, "%s.blocks.%d.proj.weight", tr, i);
            bw->proj_b = VEC(b, o, "%s.blocks.%d.proj.bias", tr, i);
        }
    }
}

enum samrt_status samrt_sam2_encoder_bind(struct samrt_sam2_encoder *enc, const struct samrt_sam2_config *cfg,
                                          int imgsz, const struct samrt_model_env *env,
                                          struct samrt_model_bound_keys *bound) {
    memset(enc, 0, sizeof *enc);
    SAMRT_CHECK(cfg != NULL, SAMRT_E_INVALID_ARG, "sam2 encoder: no configuration");
    enc->cfg = cfg;
    SAMRT_TRY(samrt_sam2_check_imgsz(imgsz));
    enc->imgsz = imgsz;
    for (int s = 0; s < 4; s++) enc->side[s] = imgsz / (4 << s);
    if (bound) bound->n = 0;
    struct samrt_model_binder b = {env, bound, SAMRT_OK};
    struct samrt_sam2_encoder_weights *w = &enc->w;
    if (cfg->trunk == SAMRT_TRUNK_VITDET) {  /* trunk and neck in one; no conv_s0 / conv_s1 */
        enc->vit.slot_pos = -1;
        SAMRT_TRY(samrt_vitdet_bind(&enc->vit, &cfg->vitdet, imgsz, &b));
        return b.st;
    }
    if (cfg->trunk == SAMRT_TRUNK_REPVIT) {
        SAMRT_TRY(samrt_repvit_bind(&enc->rv, &cfg->repvit, imgsz, &b));
    } else {
        enc->n_blocks = samrt_hiera_blocks(&cfg->hiera, enc->blk);
        SAMRT_CHECK(enc->n_blocks > 0, SAMRT_E_INVALID_ARG, "sam2 encoder: bad block table");
        bind_hiera(enc, &b);
    }
    int chans[4];
    samrt_sam2_trunk_channels(cfg, chans);
    for (int j = 0; j < 4; j++) {
        const int64_t cj = chans[3 - j];  /* backbone_channel_list: coarsest first */
        w->neck_w[j] = CONV1(&b, NECK_DIM, cj, "image_encoder.neck.convs.%d.conv.weight", j);
        w->neck_b[j] = VEC(&b, NECK_DIM, "image_encoder.neck.convs.%d.conv.bias", j);
    }
    w->s0_w = CONV1(&b, 32, NECK_DIM, "sam_mask_decoder.conv_s0.weight");
    w->s0_b = VEC(&b, 32, "sam_mask_decoder.conv_s0.bias");
    w->s1_w = CONV1(&b, 64, NECK_DIM, "sam_mask_decoder.conv_s1.weight");
    w->s1_b = VEC(&b, 64, "sam_mask_decoder.conv_s1.bias");
    return b.st;
}

/* ---- planning ---------------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_encoder_plan(struct samrt_sam2_encoder *enc, struct samrt_op_ctx *c) {
    const int64_t S = enc->imgsz, E = enc->cfg->hiera.embed_dim;
    const int hiera = enc->cfg->trunk == SAMRT_TRUNK_HIERA;
    const int64_t n0 = (int64_t)enc->side[0] * enc->side[0], n1 = (int64_t)enc->side[1] * enc->side[1],
                  n2 = (int64_t)enc->side[2] * enc->side[2];
    const enum samrt_dtype dt = c->dtype;
    enc->input = samrt_tensor_make(NULL, dt, 4, SAMRT_SHAPE(1, 3, S, S));  /* a scratch slot of the PLAN pass */
    enc->slot_input = -1;
    enc->slot_pos = -1;
    const int vit = enc->cfg->trunk == SAMRT_TRUNK_VITDET;
    if (hiera)
        SAMRT_TRY(samrt_ctx_persistent(c, "sam2.enc.pos_embed", SAMRT_REGION_WEIGHTS, dt, 3, SAMRT_SHAPE(1, n0, E),
                                       &enc->pos, &enc->slot_pos));
    else if (vit)
        SAMRT_TRY(samrt_vitdet_plan(&enc->vit, c));
    else
        SAMRT_TRY(samrt_repvit_plan(&enc->rv, c));
    SAMRT_TRY(samrt_ctx_persistent(c, "sam2.enc.vision_pos", SAMRT_REGION_WEIGHTS, dt, 3, SAMRT_SHAPE(1, n2, NECK_DIM),
                         &enc->vision_pos, &enc->slot_vision_pos));
    enc->slot_feat_s0 = enc->slot_feat_s1 = -1;
    if (!vit) {  /* EfficientTAM: no high-resolution features */
        SAMRT_TRY(samrt_ctx_persistent(c, "sam2.feat_s0", SAMRT_REGION_STATE, dt, 3, SAMRT_SHAPE(1, n0, 32),
                                       &enc->feat_s0, &enc->slot_feat_s0));
        SAMRT_TRY(samrt_ctx_persistent(c, "sam2.feat_s1", SAMRT_REGION_STATE, dt, 3, SAMRT_SHAPE(1, n1, 64),
                                       &enc->feat_s1, &enc->slot_feat_s1));
    }
    SAMRT_TRY(samrt_ctx_persistent(c, "sam2.vision", SAMRT_REGION_STATE, dt, 3, SAMRT_SHAPE(1, n2, NECK_DIM), &enc->vision,
                         &enc->slot_vision));
    samrt_ctx_begin(c, SAMRT_EXEC_PLAN, NULL);
    samrt_sam2_encoder_forward(enc, c);
    SAMRT_TRY(samrt_ctx_end(c));
    SAMRT_CHECK(enc->slot_input >= 0, SAMRT_E_BAD_STATE, "sam2 encoder: the input was not planned");
    return SAMRT_OK;
}

/* ---- constants --------------------------------------------------------------------------------- */

/* pos[(y*W + x), c] = bicubic(pos_embed)[c, y, x] + window[c, y % w0, x % w0], in fp32, then
 * rounded once to the run dtype (model-spec 3.1 "Position embedding"). */
static enum samrt_status make_pos_embed(const struct samrt_sam2_encoder *enc, const float *small, const float *win,
                                        enum samrt_dtype dt, void *out) {
    const struct samrt_hiera_config *h = &enc->cfg->hiera;
    const int E = h->embed_dim, sb = h->bkg, w0 = h->window_spec[0], side = enc->side[0];
    SAMRT_CHECK(small && win, SAMRT_E_INVALID_ARG, "sam2 encoder: pos_embed values are required");
    float *big = malloc(sizeof(float) * (size_t)E * side * side);  /* setup only */
    enum samrt_status st = big ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) st = samrt_op_host_interp(SAMRT_INTERP_BICUBIC, E, sb, sb, side, side, small, big);
    if (st == SAMRT_OK) {
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++)
                for (int ch = 0; ch < E; ch++) {
                    const float v = big[((size_t)ch * side + y) * side + x] + win[((size_t)ch * w0 + y % w0) * w0 + x % w0];
                    samrt_op_host_store(dt, out, (long)(((size_t)y * side + x) * E + ch), v);
                }
    }
    free(big);
    return st;
}

static void resolve(const struct samrt_model_env *env, struct samrt_tensor *t, int slot) {
    t->data = slot >= 0 ? samrt_model_slot(env, slot) : NULL;
}

enum samrt_status samrt_sam2_encoder_prepare(struct samrt_sam2_encoder *enc, const struct samrt_model_env *env,
                                             const float *pos_embed, const float *pos_embed_window) {
    resolve(env, &enc->input, enc->slot_input);
    resolve(env, &enc->pos, enc->slot_pos);
    resolve(env, &enc->vision_pos, enc->slot_vision_pos);
    resolve(env, &enc->feat_s0, enc->slot_feat_s0);
    resolve(env, &enc->feat_s1, enc->slot_feat_s1);
    resolve(env, &enc->vision, enc->slot_vision);
    const uint64_t nb_pos = samrt_tensor_nbytes(&enc->pos), nb_vp = samrt_tensor_nbytes(&enc->vision_pos);
    void *host = malloc(SAMRT_MAX(nb_pos, nb_vp));  /* setup only */
    SAMRT_CHECK(host != NULL, SAMRT_E_HOST_MEMORY, "sam2 encoder: no host memory for the constants");
    enum samrt_status st = SAMRT_OK;
    if (enc->slot_pos >= 0) {  /* Hiera only */
        st = make_pos_embed(enc, pos_embed, pos_embed_window, enc->pos.dtype, host);
        if (st == SAMRT_OK) st = samrt_model_upload(env, enc->pos.data, host, nb_pos);
    }
    if (st == SAMRT_OK)
        st = samrt_op_host_sine_pe(enc->vision_pos.dtype, NECK_DIM, enc->side[2], enc->side[2], host);
    if (st == SAMRT_OK) st = samrt_model_upload(env, enc->vision_pos.data, host, nb_vp);
    free(host);
    return st;
}

/* ---- forward ----------------------------------------------------------------------------------- */

/* (1, H*W, C) tokens at token stride t->s[1] seen as (1, H, W, C). */
static struct samrt_tensor map4(const struct samrt_tensor *t, int64_t h, int64_t w) {
    struct samrt_tensor v = *t;
    const int64_t st = t->s[t->n_dims - 2], ch = t->ne[t->n_dims - 1];
    v.n_dims = 4;
    v.ne[0] = 1; v.ne[1] = h; v.ne[2] = w; v.ne[3] = ch;
    v.s[0] = h * w * st; v.s[1] = w * st; v.s[2] = st; v.s[3] = 1;
    return v;
}

/* (1, H, W, C) contiguous seen as (1, H*W, C). */
static struct samrt_tensor tokens3(const struct samrt_tensor *t) {
    const int64_t ne[3] = {t->ne[0], t->ne[1] * t->ne[2], t->ne[3]};
    struct samrt_tensor v = samrt_tensor_make(t->data, t->dtype, 3, ne);
    return v;
}

/* Channels [start, start+len) of the last dim, without pointer arithmetic on the NULL data of
 * weights in PLAN mode. */
static struct samrt_tensor chan_slice(const struct samrt_tensor *t, int64_t start, int64_t len) {
    struct samrt_tensor v = *t;
    const int last = t->n_dims - 1;
    if (t->data) v.data = (char *)t->data + (size_t)start * samrt_dtype_size(t->dtype);
    v.ne[last] = len;
    return v;
}

static void tap_map(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *t, int64_t h, int64_t w) {
    if (!samrt_ctx_tapping(c)) return;
    const struct samrt_tensor v = map4(t, h, w);
    samrt_op_tap(c, name, &v);
}

/* One MultiScaleBlock on x (1, H*W, dim); *h, *w become the output map. */
static struct samrt_tensor hiera_block(struct samrt_sam2_encoder *enc, struct samrt_op_ctx *c, int i,
                                       const struct samrt_tensor *x, int *h, int *w) {
    const struct samrt_hiera_block *b = &enc->blk[i];
    const struct samrt_hiera_block_weights *bw = &enc->w.blk[i];
    const int H = *h, W = *w, o = b->dim_out;
    const int Hq = b->q_pool ? H / 2 : H, Wq = b->q_pool ? W / 2 : W;

    struct samrt_tensor xn = samrt_op_layernorm(c, "hiera.norm1", x, bw->norm1_w, bw->norm1_b, NULL, HIERA_EPS, NULL);
    struct samrt_tensor shortcut = *x;
    if (b->dim != o) {
        /* the projection of the NORMED input, pooled on the full map (section 7 item 3) */
        struct samrt_tensor p = samrt_op_linear(c, "hiera.proj", &xn, bw->proj_w, bw->proj_b, SAMRT_ACT_NONE, NULL);
        if (b->q_pool) {
            const struct samrt_tensor pm = map4(&p, H, W);
            struct samrt_tensor pooled = samrt_op_maxpool2x2(c, "hiera.proj_pool", &pm);
            shortcut = tokens3(&pooled);
        } else {
            shortcut = p;
        }
    }
    struct samrt_tensor qkv = samrt_op_linear(c, "hiera.qkv", &xn, bw->qkv_w, bw->qkv_b, SAMRT_ACT_NONE, NULL);
    struct samrt_tensor q = chan_slice(&qkv, 0, o);
    const struct samrt_tensor k = chan_slice(&qkv, o, o), v = chan_slice(&qkv, 2 * o, o);
    if (b->q_pool) {
        const struct samrt_tensor qm = map4(&q, H, W);
        struct samrt_tensor qp = samrt_op_maxpool2x2(c, "hiera.q_pool", &qm);
        q = tokens3(&qp);
    }
    const struct samrt_tensor pad_k = chan_slice(bw->qkv_b, o, o), pad_v = chan_slice(bw->qkv_b, 2 * o, o);
    struct samrt_op_attn_args a;
    memset(&a, 0, sizeof a);
    a.n_head = b->heads;
    a.d_qk = a.d_v = o / b->heads;
    if (b->window > 0) {
        a.win_k = b->window;
        a.win_q = b->q_pool ? b->window / 2 : b->window;
        a.q_h = Hq; a.q_w = Wq; a.k_h = H; a.k_w = W;
        a.pad_k = &pad_k;
        a.pad_v = &pad_v;
    }
    struct samrt_tensor att = samrt_op_attention(c, "hiera.attn", &q, &k, &v, &a);
    struct samrt_tensor x1 =
        samrt_op_linear(c, "hiera.attn_proj", &att, bw->attn_proj_w, bw->attn_proj_b, SAMRT_ACT_NONE, &shortcut);
    struct samrt_tensor h2 = samrt_op_layernorm(c, "hiera.norm2", &x1, bw->norm2_w, bw->norm2_b, NULL, HIERA_EPS, NULL);
    struct samrt_tensor m = samrt_op_linear(c, "hiera.fc1", &h2, bw->fc1_w, bw->fc1_b, SAMRT_ACT_GELU, NULL);
    struct samrt_tensor x2 = samrt_op_linear(c, "hiera.fc2", &m, bw->fc2_w, bw->fc2_b, SAMRT_ACT_NONE, &x1);
    *h = Hq;
    *w = Wq;
    return x2;
}

/* The neck's work at the end of trunk stage s, whose output x is (1, h*w, C) tokens or
 * (1, h, w, C): the lateral 1x1 conv convs[3 - s]; levels 0 and 1 go straight through
 * conv_s0 / conv_s1, level 2 waits for level 3, which closes the top-down path. */
struct neck_state {
    struct samrt_sam2_encoder *enc;
    struct samrt_tensor lat2;
};

static void neck_level(void *user, struct samrt_op_ctx *c, int s, const struct samrt_tensor *x, int h, int wd) {
    struct neck_state *ns = user;
    struct samrt_sam2_encoder *enc = ns->enc;
    const struct samrt_sam2_encoder_weights *w = &enc->w;
    char name[48];
    snprintf(name, sizeof name, "tap.trunk.out.%d", s);
    tap_map(c, name, x, h, wd);
    struct samrt_tensor lat =
        samrt_op_linear(c, "neck.lateral", x, w->neck_w[3 - s], w->neck_b[3 - s], SAMRT_ACT_NONE, NULL);
    if (s <= 1) {
        snprintf(name, sizeof name, "tap.neck.feat.%d", s);
        tap_map(c, name, &lat, h, wd);
        const struct samrt_tensor *out = s == 0 ? &enc->feat_s0 : &enc->feat_s1;
        samrt_op_linear_into(c, &lat, s == 0 ? w->s0_w : w->s1_w, s == 0 ? w->s0_b : w->s1_b, SAMRT_ACT_NONE, NULL,
                             out);
        tap_map(c, s == 0 ? "tap.fpn.0" : "tap.fpn.1", out, h, wd);
    } else if (s == 2) {
        ns->lat2 = lat;
    } else {
        tap_map(c, "tap.neck.feat.3", &lat, h, wd);
        /* nearest x2 of level 3 in two copies (columns, then rows), the second fused with
         * the add: vision = lateral2 + up(level 3), the sum rounded once */
        const struct samrt_tensor cols_src = {lat.data, lat.dtype, 4, {h, wd, 2, NECK_DIM},
                                              {(int64_t)wd * NECK_DIM, NECK_DIM, 0, 1}};
        struct samrt_tensor cols = samrt_op_copy(c, "neck.up_cols", &cols_src, c->dtype, NULL);
        const struct samrt_tensor rows_src = {cols.data, cols.dtype, 3, {h, 2, (int64_t)wd * 2 * NECK_DIM},
                                              {(int64_t)wd * 2 * NECK_DIM, 0, 1, 1}};
        samrt_op_copy_into(c, &rows_src, &ns->lat2, &enc->vision);
        tap_map(c, "tap.neck.feat.2", &enc->vision, 2 * h, 2 * wd);
        tap_map(c, "tap.fpn.2", &enc->vision, 2 * h, 2 * wd);
    }
}

void samrt_sam2_encoder_forward(struct samrt_sam2_encoder *enc, struct samrt_op_ctx *c) {
    const struct samrt_sam2_encoder_weights *w = &enc->w;
    struct neck_state ns = {enc, {0}};
    /* the preprocessed frame: the pass's first scratch tensor, alive from the pass's first step
     * to its last reader (the trunk's first op), so later passes reuse its bytes; the frame is
     * written into it before the pass (enc->input, resolved at prepare: the same bytes) */
    const struct samrt_tensor in = samrt_op_new(c, "sam2.input", enc->input.dtype, 4, enc->input.ne);
    if (c->ex->mode == SAMRT_EXEC_PLAN && samrt_ctx_ok(c)) enc->slot_input = c->ex->slot_of[c->ex->n_new - 1];
    samrt_op_tap(c, "tap.input", &in);
    if (enc->cfg->trunk == SAMRT_TRUNK_VITDET) {
        samrt_vitdet_forward(&enc->vit, c, &in, &enc->vision);
        return;
    }
    if (enc->cfg->trunk == SAMRT_TRUNK_REPVIT) {
        samrt_repvit_forward(&enc->rv, c, &in, neck_level, &ns);
        return;
    }

    /* patch embed (NCHW conv on the NCHW input), then tokens + position embedding in one copy */
    struct samrt_tensor pe = samrt_op_conv2d(c, "hiera.patch_embed", &in, w->patch_w, w->patch_b,
                                             PATCH_STRIDE, PATCH_PAD, 1, SAMRT_CONV_NCHW, SAMRT_ACT_NONE);
    int h = enc->side[0], wd = enc->side[0];
    static const int to_nhwc[4] = {0, 2, 3, 1};
    struct samrt_tensor pe_nhwc;
    samrt_ctx_fail(c, samrt_tensor_permute(&pe, to_nhwc, &pe_nhwc));
    samrt_op_tap(c, "tap.trunk.patch_embed", &pe_nhwc);
    struct samrt_tensor x4 = samrt_op_copy(c, "hiera.embed", &pe_nhwc, c->dtype, &enc->pos);
    struct samrt_tensor x = tokens3(&x4);
    tap_map(c, "tap.trunk.embed", &x, h, wd);

    char name[48];
    for (int i = 0; i < enc->n_blocks && samrt_ctx_ok(c); i++) {
        x = hiera_block(enc, c, i, &x, &h, &wd);
        snprintf(name, sizeof name, "tap.trunk.block.%d", i);
        tap_map(c, name, &x, h, wd);
        if (enc->blk[i].stage_end) neck_level(&ns, c, enc->blk[i].stage, &x, h, wd);
    }
}
