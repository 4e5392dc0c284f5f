/* mask_decoder.c - SAM 2.1's SAM heads over the op layer (mask_decoder.h): binding, planning,
 * constants, per-call prompts, and the forward pass (two-way transformer, upscaling,
 * hypernetworks, IoU and object-score heads, selection, object pointer).
 *
 * Choices that are not obvious:
 *   - Residual adds that precede a LayerNorm are fused into it (layernorm's residual input),
 *     which forms `queries + attn_out` exactly as the official code, rounded once.
 *   - keys + key_pe is one strided copy with an add: the dense PE is a (g*g, 256) constant
 *     broadcast over the objects with a batch stride of 0. Layer 0 reuses it for its
 *     image-to-token attention, since the keys do not change in between.
 *   - Attentions whose keys are prompt tokens run per object over that object's tokens only
 *     (attn_token_keys below); see mask_decoder.h for why this keeps batching exact.
 *   - The two transposed convolutions use weights packed once at prepare (conv.h layout),
 *     computed in fp32 from the checkpoint and rounded once to the decoder's dtype (tr_dtype:
 *     f32 in bf16 runs, which compute the whole decoder in f32; mask_decoder.h).
 * Tests: tests/test_sam2_decoder.c (CPU backend vs a naive reference of the official math),
 * tests/test_sam2_decoder_cuda.c (CUDA vs CPU backend at production shapes). */
#include "mask_decoder.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt.h"
#include "model_env.h"
#include "ops_sam2.h"

#define DIM SAMRT_SAM2_DIM
#define CROSS_DIM 128        /* attention_downsample_rate 2 */
#define N_HEADS 8
#define UP0_DIM 64           /* transformer_dim / 4 */
#define UP1_DIM 32           /* transformer_dim / 8 */
#define MLP_DIM 2048
#define LN_EPS 1e-5f
#define LN2D_EPS 1e-6f

/* ---- binding --------------------------------------------------------------------------------- */

#define VEC(b, n, ...) samrt_model_bindw(b, 1, SAMRT_SHAPE(n), __VA_ARGS__)
#define MAT(b, o, i, ...) samrt_model_bindw(b, 2, SAMRT_SHAPE(o, i), __VA_ARGS__)

static void bind_attn(struct samrt_model_binder *b, struct samrt_sam2_attn_weights *a, int64_t c, const char *prefix) {
    a->q_w = MAT(b, c, DIM, "%s.q_proj.weight", prefix);
    a->q_b = VEC(b, c, "%s.q_proj.bias", prefix);
    a->k_w = MAT(b, c, DIM, "%s.k_proj.weight", prefix);
    a->k_b = VEC(b, c, "%s.k_proj.bias", prefix);
    a->v_w = MAT(b, c, DIM, "%s.v_proj.weight", prefix);
    a->v_b = VEC(b, c, "%s.v_proj.bias", prefix);
    a->o_w = MAT(b, DIM, c, "%s.out_proj.weight", prefix);
    a->o_b = VEC(b, DIM, "%s.out_proj.bias", prefix);
}

static void bind_mlp3(struct samrt_model_binder *b, struct samrt_sam2_mlp3_weights *m, int64_t out,
                      const char *prefix) {
    for (int i = 0; i < 3; i++) {
        const int64_t o = i == 2 ? out : DIM;
        m->w[i] = MAT(b, o, DIM, "%s.layers.%d.weight", prefix, i);
        m->b[i] = VEC(b, o, "%s.layers.%d.bias", prefix, i);
    }
}

static enum samrt_status bind_decoder(const struct samrt_model_env *env, struct samrt_sam2_decoder_weights *w) {
    struct samrt_model_binder b = {env, NULL, SAMRT_OK};
    char p[128];
    const char *tr = "sam_mask_decoder.transformer";
    for (int l = 0; l < 2; l++) {
        struct samrt_sam2_twoway_layer_weights *L = &w->layer[l];
        snprintf(p, sizeof p, "%s.layers.%d.self_attn", tr, l);
        bind_attn(&b, &L->self_attn, DIM, p);
        snprintf(p, sizeof p, "%s.layers.%d.cross_attn_token_to_image", tr, l);
        bind_attn(&b, &L->t2i, CROSS_DIM, p);
        snprintf(p, sizeof p, "%s.layers.%d.cross_attn_image_to_token", tr, l);
        bind_attn(&b, &L->i2t, CROSS_DIM, p);
        L->mlp_w[0] = MAT(&b, MLP_DIM, DIM, "%s.layers.%d.mlp.layers.0.weight", tr, l);
        L->mlp_b[0] = VEC(&b, MLP_DIM, "%s.layers.%d.mlp.layers.0.bias", tr, l);
        L->mlp_w[1] = MAT(&b, DIM, MLP_DIM, "%s.layers.%d.mlp.layers.1.weight", tr, l);
        L->mlp_b[1] = VEC(&b, DIM, "%s.layers.%d.mlp.layers.1.bias", tr, l);
        for (int n = 0; n < 4; n++) {
            L->norm_w[n] = VEC(&b, DIM, "%s.layers.%d.norm%d.weight", tr, l, n + 1);
            L->norm_b[n] = VEC(&b, DIM, "%s.layers.%d.norm%d.bias", tr, l, n + 1);
        }
    }
    snprintf(p, sizeof p, "%s.final_attn_token_to_image", tr);
    bind_attn(&b, &w->final_attn, CROSS_DIM, p);
    w->norm_final_w = VEC(&b, DIM, "%s.norm_final_attn.weight", tr);
    w->norm_final_b = VEC(&b, DIM, "%s.norm_final_attn.bias", tr);
    /* the transposed convolutions are read from the checkpoint at prepare (packed); bind them
     * here anyway so a checkpoint with other shapes fails at init */
    samrt_model_bindw(&b, 4, SAMRT_SHAPE(DIM, UP0_DIM, 2, 2), "sam_mask_decoder.output_upscaling.0.weight");
    VEC(&b, UP0_DIM, "sam_mask_decoder.output_upscaling.0.bias");
    samrt_model_bindw(&b, 4, SAMRT_SHAPE(UP0_DIM, UP1_DIM, 2, 2), "sam_mask_decoder.output_upscaling.3.weight");
    VEC(&b, UP1_DIM, "sam_mask_decoder.output_upscaling.3.bias");
    w->up_ln_w = VEC(&b, UP0_DIM, "sam_mask_decoder.output_upscaling.1.weight");
    w->up_ln_b = VEC(&b, UP0_DIM, "sam_mask_decoder.output_upscaling.1.bias");
    for (int k = 0; k < SAMRT_SAM2_N_MASK_TOKENS; k++) {
        snprintf(p, sizeof p, "sam_mask_decoder.output_hypernetworks_mlps.%d", k);
        bind_mlp3(&b, &w->hyper[k], UP1_DIM, p);
    }
    bind_mlp3(&b, &w->iou_head, SAMRT_SAM2_N_MASK_TOKENS, "sam_mask_decoder.iou_prediction_head");
    bind_mlp3(&b, &w->obj_head, 1, "sam_mask_decoder.pred_obj_score_head");
    bind_mlp3(&b, &w->obj_ptr_proj, DIM, "obj_ptr_proj");
    w->no_obj_ptr = MAT(&b, 1, DIM, "no_obj_ptr");
    w->no_mem_embed = samrt_model_bindw(&b, 3, SAMRT_SHAPE(1, 1, DIM), "no_mem_embed");
    return b.st;
}

/* The decoder's tensor fields of w that bf16 runs hold in f32 (the two-way transformer, the
 * upscaling LayerNorm2d, the hypernetworks, the IoU and object-score heads) plus the prompt
 * encoder's no_mask_embed, in one fixed order (SAMRT_SAM2_TR_TENSORS): where bf16 runs swap in
 * the f32 copies. */
static int tr_mlp3(const struct samrt_tensor **f[], int i, struct samrt_sam2_mlp3_weights *m) {
    for (int j = 0; j < 3; j++) f[i++] = &m->w[j], f[i++] = &m->b[j];
    return i;
}

static int tr_attn(const struct samrt_tensor **f[], int i, struct samrt_sam2_attn_weights *a) {
    const struct samrt_tensor **p[8] = {&a->q_w, &a->q_b, &a->k_w, &a->k_b, &a->v_w, &a->v_b, &a->o_w, &a->o_b};
    for (int j = 0; j < 8; j++) f[i++] = p[j];
    return i;
}

static void tr_fields(struct samrt_sam2_decoder_weights *w, const struct samrt_tensor **no_mask_embed,
                      const struct samrt_tensor **f[SAMRT_SAM2_TR_TENSORS]) {
    int i = 0;
    for (int l = 0; l < 2; l++) {
        struct samrt_sam2_twoway_layer_weights *L = &w->layer[l];
        i = tr_attn(f, i, &L->self_attn);
        i = tr_attn(f, i, &L->t2i);
        i = tr_attn(f, i, &L->i2t);
        for (int k = 0; k < 2; k++) f[i++] = &L->mlp_w[k], f[i++] = &L->mlp_b[k];
        for (int k = 0; k < 4; k++) f[i++] = &L->norm_w[k], f[i++] = &L->norm_b[k];
    }
    i = tr_attn(f, i, &w->final_attn);
    f[i++] = &w->norm_final_w;
    f[i++] = &w->norm_final_b;
    f[i++] = &w->up_ln_w;
    f[i++] = &w->up_ln_b;
    for (int k = 0; k < SAMRT_SAM2_N_MASK_TOKENS; k++) i = tr_mlp3(f, i, &w->hyper[k]);
    i = tr_mlp3(f, i, &w->iou_head);
    i = tr_mlp3(f, i, &w->obj_head);
    f[i++] = no_mask_embed;
    assert(i == SAMRT_SAM2_TR_TENSORS);
}

enum samrt_status samrt_sam2_heads_bind(struct samrt_sam2_heads *h, const struct samrt_sam2_heads_config *cfg,
                                        const struct samrt_model_env *env) {
    SAMRT_CHECK(h && cfg && env, SAMRT_E_INVALID_ARG, "sam2 heads: NULL argument");
    memset(h, 0, sizeof *h);
    SAMRT_TRY(samrt_model_check_config("sam2 heads", cfg->model_side, 64, 16, cfg->b_max, SAMRT_SAM2_MAX_OBJ,
                                       cfg->dtype));
    SAMRT_CHECK(cfg->max_points >= 1 && cfg->max_points <= SAMRT_SAM2_MAX_POINTS, SAMRT_E_INVALID_ARG,
                "sam2 heads: %d points per object (1 .. %d)", cfg->max_points, SAMRT_SAM2_MAX_POINTS);
    h->cfg = *cfg;
    h->grid = cfg->model_side / 16;
    h->low = 4 * h->grid;
    h->t_max = SAMRT_SAM2_N_OUT_TOKENS + cfg->max_points + 1;
    SAMRT_TRY(samrt_sam2_prompt_bind(env, &h->pw));
    SAMRT_TRY(bind_decoder(env, &h->dw));
    h->tr_dtype = cfg->dtype == SAMRT_DTYPE_BF16 ? SAMRT_DTYPE_F32 : cfg->dtype;
    h->tw = h->dw;
    h->no_mask_embed_tr = h->pw.no_mask_embed;
    return SAMRT_OK;
}

/* ---- planning and constants ------------------------------------------------------------------ */

enum samrt_status samrt_sam2_heads_plan(struct samrt_sam2_heads *h, struct samrt_op_ctx *c) {
    SAMRT_CHECK(c->dtype == h->cfg.dtype, SAMRT_E_INVALID_ARG, "sam2 heads: context dtype %s, heads %s",
                samrt_dtype_name(c->dtype), samrt_dtype_name(h->cfg.dtype));
    const enum samrt_dtype dt = h->cfg.dtype, tr = h->tr_dtype, f32 = SAMRT_DTYPE_F32;
    const int64_t B = h->cfg.b_max, n = (int64_t)h->grid * h->grid, L = h->low;
    /* one table: name, region, dtype, shape, tensor, slot */
    struct slot_spec {
        const char *name;
        enum samrt_region region;
        enum samrt_dtype dt;
        int n_dims;
        int64_t ne[4];
        struct samrt_tensor *t;
        int *slot;
    };
    const enum samrt_region W = SAMRT_REGION_WEIGHTS, ST = SAMRT_REGION_STATE, SG = SAMRT_REGION_STAGING;
    const int64_t NM = SAMRT_SAM2_N_MASK_TOKENS, RC = SAMRT_SAM2_RES_COLS;
    const struct slot_spec spec[] = {
        {"sam2.heads.image_pe", W, tr, 3, {1, n, DIM}, &h->image_pe, &h->slot_image_pe},
        {"sam2.heads.up0_w", W, tr, 3, {2, 2 * UP0_DIM, DIM}, &h->up0_w, &h->slot_up[0]},
        {"sam2.heads.up0_b", W, tr, 1, {2 * UP0_DIM}, &h->up0_b, &h->slot_up[1]},
        {"sam2.heads.up1_w", W, tr, 3, {2, 2 * UP1_DIM, UP0_DIM}, &h->up1_w, &h->slot_up[2]},
        {"sam2.heads.up1_b", W, tr, 1, {2 * UP1_DIM}, &h->up1_b, &h->slot_up[3]},
        {"sam2.heads.tokens", SG, tr, 3, {B, h->t_max, DIM}, &h->tokens, &h->slot_tokens},
        {"sam2.heads.mask_in", SG, dt, 4, {B, 1, L, L}, &h->mask_in, &h->slot_mask_in},
        {"sam2.heads.all_masks", ST, f32, 3, {B, NM, L * L}, &h->all_masks, &h->slot_all_masks},
        {"sam2.heads.all_iou", ST, f32, 2, {B, NM}, &h->all_iou, &h->slot_all_iou},
        {"sam2.heads.score", ST, f32, 2, {B, 1}, &h->score, &h->slot_score},
        {"sam2.heads.low_res", ST, f32, 4, {B, 1, L, L}, &h->low_res, &h->slot_low_res},
        {"sam2.heads.result", ST, f32, 2, {B, RC}, &h->result, &h->slot_result},
        {"sam2.heads.obj_ptr", ST, f32, 2, {B, DIM}, &h->obj_ptr, &h->slot_obj_ptr},
    };
    h->slot_mask_in = -1;
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(spec); i++) {
        const struct slot_spec *q = &spec[i];
        if (q->t == &h->mask_in && !h->cfg.mask_input) continue;
        SAMRT_TRY(samrt_ctx_persistent(c, q->name, q->region, q->dt, q->n_dims, q->ne, q->t, q->slot));
    }
    /* the decoder's f32 weights (bf16 runs): tw's tensors (dw's since bind) become the copies */
    h->own_tr = 0;
    const struct samrt_sam2_heads *sh = h->cfg.share_tr;
    if (tr != dt && sh && sh->tr_dtype == tr && sh->own_tr) {  /* the engine's other heads hold them */
        h->tw = sh->tw;
        h->no_mask_embed_tr = sh->no_mask_embed_tr;
    } else if (tr != dt) {
        const struct samrt_tensor **f[SAMRT_SAM2_TR_TENSORS];
        tr_fields(&h->tw, &h->no_mask_embed_tr, f);
        for (int i = 0; i < SAMRT_SAM2_TR_TENSORS; i++) {
            const struct samrt_tensor *src = *f[i];
            SAMRT_TRY(samrt_ctx_persistent(c, "sam2.heads.decoder_f32", W, tr, src->n_dims, src->ne, &h->tr_f32[i],
                                           &h->slot_tr[i]));
            *f[i] = &h->tr_f32[i];
        }
        h->own_tr = 1;
    }
    return SAMRT_OK;
}

static void resolve(const struct samrt_model_env *env, struct samrt_tensor *t, int slot) {
    t->data = slot >= 0 ? samrt_model_slot(env, slot) : NULL;
}

/* n fp32 values rounded to t's dtype and uploaded into t. */
static enum samrt_status upload_f32(const struct samrt_model_env *env, const struct samrt_tensor *t, const float *src) {
    const int64_t n = samrt_tensor_nelements(t);
    const uint64_t bytes = samrt_tensor_nbytes(t);
    void *tmp = malloc(bytes);  /* setup only */
    SAMRT_CHECK(tmp != NULL, SAMRT_E_HOST_MEMORY, "sam2 heads: out of host memory");
    for (int64_t i = 0; i < n; i++) samrt_op_host_store(t->dtype, tmp, i, src[i]);
    enum samrt_status st = samrt_model_upload(env, t->data, tmp, bytes);
    free(tmp);
    return st;
}

/* ConvTranspose2d weight (c_in, c_out, 2, 2) and bias from the checkpoint, packed (conv.h). */
static enum samrt_status upload_convt(const struct samrt_model_env *env, const struct samrt_ckpt *ck, const char *prefix,
                                      int c_in, int c_out, const struct samrt_tensor *w_out,
                                      const struct samrt_tensor *b_out) {
    char name[96];
    const size_t nw = (size_t)4 * c_in * c_out;
    float *buf = malloc(sizeof(float) * (2 * nw + 3 * (size_t)c_out));  /* setup only */
    SAMRT_CHECK(buf != NULL, SAMRT_E_HOST_MEMORY, "sam2 heads: out of host memory");
    float *w = buf, *wp = buf + nw, *b = wp + nw, *bp = b + c_out;
    enum samrt_status st = SAMRT_OK;
    const struct samrt_ckpt_tensor *tw, *tb;
    snprintf(name, sizeof name, "%s.weight", prefix);
    tw = samrt_ckpt_find(ck, name);
    snprintf(name, sizeof name, "%s.bias", prefix);
    tb = samrt_ckpt_find(ck, name);
    if (!tw || !tb || tw->nelements != (int64_t)nw || tb->nelements != c_out) {
        SAMRT_LOG_ERROR("sam2 heads: %s weight/bias missing or mis-shaped in the checkpoint", prefix);
        st = SAMRT_E_KEYS;
    }
    if (st == SAMRT_OK) st = samrt_ckpt_read(ck, tw, SAMRT_DTYPE_F32, w, sizeof(float) * nw);
    if (st == SAMRT_OK) st = samrt_ckpt_read(ck, tb, SAMRT_DTYPE_F32, b, sizeof(float) * (size_t)c_out);
    if (st == SAMRT_OK) {
        samrt_op_host_pack_convt2x2(c_in, c_out, w, b, wp, bp);
        st = upload_f32(env, w_out, wp);
    }
    if (st == SAMRT_OK) st = upload_f32(env, b_out, bp);
    free(buf);
    return st;
}

/* The decoder's f32 copies, read at full precision from the checkpoint under the names of
 * the engine weights they replace (h->dw and no_mask_embed keep the run-dtype originals). */
static enum samrt_status upload_tr(struct samrt_sam2_heads *h, const struct samrt_model_env *env,
                                   const struct samrt_ckpt *ck) {
    struct samrt_sam2_decoder_weights dw = h->dw;
    const struct samrt_tensor *nme = h->pw.no_mask_embed;
    const struct samrt_tensor **f[SAMRT_SAM2_TR_TENSORS];
    const struct samrt_tensor *src[SAMRT_SAM2_TR_TENSORS];
    tr_fields(&dw, &nme, f);
    for (int i = 0; i < SAMRT_SAM2_TR_TENSORS; i++) {
        resolve(env, &h->tr_f32[i], h->slot_tr[i]);
        src[i] = *f[i];
    }
    return samrt_model_weights_f32_copy(env, ck, SAMRT_SAM2_TR_TENSORS, src, h->tr_f32);
}

enum samrt_status samrt_sam2_heads_prepare(struct samrt_sam2_heads *h, const struct samrt_model_env *env,
                                           const struct samrt_ckpt *ck) {
    SAMRT_CHECK(h && env && ck, SAMRT_E_INVALID_ARG, "sam2 heads prepare: NULL argument");
    resolve(env, &h->image_pe, h->slot_image_pe);
    resolve(env, &h->up0_w, h->slot_up[0]);
    resolve(env, &h->up0_b, h->slot_up[1]);
    resolve(env, &h->up1_w, h->slot_up[2]);
    resolve(env, &h->up1_b, h->slot_up[3]);
    resolve(env, &h->tokens, h->slot_tokens);
    resolve(env, &h->mask_in, h->slot_mask_in);
    resolve(env, &h->all_masks, h->slot_all_masks);
    resolve(env, &h->all_iou, h->slot_all_iou);
    resolve(env, &h->score, h->slot_score);
    resolve(env, &h->low_res, h->slot_low_res);
    resolve(env, &h->result, h->slot_result);
    resolve(env, &h->obj_ptr, h->slot_obj_ptr);
    SAMRT_TRY(samrt_sam2_prompt_tables_read(ck, &h->tables));
    float *pe = malloc(sizeof(float) * (size_t)samrt_tensor_nelements(&h->image_pe));  /* setup only */
    SAMRT_CHECK(pe != NULL, SAMRT_E_HOST_MEMORY, "sam2 heads: out of host memory");
    enum samrt_status st = samrt_sam2_dense_pe_host(&h->tables, h->grid, pe);
    if (st == SAMRT_OK) st = upload_f32(env, &h->image_pe, pe);
    free(pe);
    SAMRT_TRY(st);
    if (h->own_tr) SAMRT_TRY(upload_tr(h, env, ck));
    SAMRT_TRY(upload_convt(env, ck, "sam_mask_decoder.output_upscaling.0", DIM, UP0_DIM, &h->up0_w, &h->up0_b));
    SAMRT_TRY(upload_convt(env, ck, "sam_mask_decoder.output_upscaling.3", UP0_DIM, UP1_DIM, &h->up1_w, &h->up1_b));
    free(h->tokens_host);
    h->tokens_host = malloc(samrt_tensor_nbytes(&h->tokens));
    SAMRT_CHECK(h->tokens_host != NULL, SAMRT_E_HOST_MEMORY, "sam2 heads: out of host memory");
    return SAMRT_OK;
}

void samrt_sam2_heads_free(struct samrt_sam2_heads *h) {
    if (!h) return;
    free(h->tokens_host);
    h->tokens_host = NULL;
}

/* ---- prompts --------------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_heads_set_prompts(struct samrt_sam2_heads *h, struct samrt_op_ctx *c,
                                               const struct samrt_sam2_points *pts, int n_obj, int dynamic) {
    SAMRT_CHECK(h && c && h->tokens_host && h->tokens.data, SAMRT_E_BAD_STATE, "sam2 heads: not prepared");
    SAMRT_CHECK(n_obj >= 1 && n_obj <= h->cfg.b_max, SAMRT_E_INVALID_ARG, "sam2 heads: %d objects (1 .. %d)", n_obj,
                h->cfg.b_max);
    for (int b = 0; b < n_obj; b++)
        SAMRT_CHECK(pts[b].n <= h->cfg.max_points, SAMRT_E_INVALID_ARG,
                    "sam2 heads: object %d has %d points, the engine was planned for %d", b, pts[b].n,
                    h->cfg.max_points);
    SAMRT_TRY(samrt_sam2_tokens_fill(&h->tables, pts, n_obj, h->cfg.b_max, h->t_max, h->cfg.model_side, h->tr_dtype,
                                     h->tokens_host, h->n_sparse));
    h->n_obj = n_obj;
    for (int b = 0; b < h->cfg.b_max; b++) {
        const int n_pts = b < n_obj ? pts[b].n : 0;
        h->mode[b] = samrt_sam2_use_multimask(n_pts) ? SAMRT_SAM2_MODE_MULTI
                     : dynamic                       ? SAMRT_SAM2_MODE_SINGLE_DYNAMIC
                                                     : SAMRT_SAM2_MODE_SINGLE;
    }
    /* from pageable memory: returns once the source is staged, so the buffer is free again */
    return samrt_ctx_memcpy(c, h->tokens.data, h->tokens_host, (size_t)samrt_tensor_nbytes(&h->tokens));
}

/* ---- views ----------------------------------------------------------------------------------- */


/* (Bt, N, C) with Bt = 1 seen as (B, N, C) with batch stride 0; unchanged when Bt = B. */
static struct samrt_tensor bcast(const struct samrt_tensor *t, int64_t B) {
    if (t->ne[0] == B) return *t;
    return samrt_tensor_view(t, 0, 3, SAMRT_SHAPE(B, t->ne[1], t->ne[2]), SAMRT_SHAPE(0, t->s[1], t->s[2]));
}

/* Token r of every object of the (B, T, C) tokens tensor t: (B, C) rows T*C apart. */
static struct samrt_tensor token_rows(const struct samrt_tensor *t, int r) {
    return samrt_tensor_view(t, (int64_t)r * t->ne[2], 2, SAMRT_SHAPE(t->ne[0], t->ne[2]), SAMRT_SHAPE(t->s[0], 1));
}

/* ---- forward --------------------------------------------------------------------------------- */

/* One Attention module: projections, SDPA (token keys limited per object when n_keys is
 * given), out_proj. The residual is left to the LayerNorm that follows. */
static struct samrt_tensor attention(struct samrt_op_ctx *c, const struct samrt_sam2_attn_weights *w,
                                     const struct samrt_tensor *q_in, const struct samrt_tensor *k_in,
                                     const struct samrt_tensor *v_in, int d_head, const int32_t *n_keys) {
    struct samrt_tensor q = samrt_op_linear(c, "dec.attn.q", q_in, w->q_w, w->q_b, SAMRT_ACT_NONE, NULL);
    struct samrt_tensor k = samrt_op_linear(c, "dec.attn.k", k_in, w->k_w, w->k_b, SAMRT_ACT_NONE, NULL);
    struct samrt_tensor v = samrt_op_linear(c, "dec.attn.v", v_in, w->v_w, w->v_b, SAMRT_ACT_NONE, NULL);
    struct samrt_tensor o;
    if (n_keys) {
        o = samrt_op_attention_key_prefix(c, "dec.attn.o", &q, &k, &v, N_HEADS, d_head, n_keys);
    } else {
        struct samrt_op_attn_args a;
        memset(&a, 0, sizeof a);
        a.n_head = N_HEADS;
        a.d_qk = a.d_v = d_head;
        o = samrt_op_attention(c, "dec.attn.o", &q, &k, &v, &a);
    }
    return samrt_op_linear(c, "dec.attn.out", &o, w->o_w, w->o_b, SAMRT_ACT_NONE, NULL);
}

static struct samrt_tensor mlp3(struct samrt_op_ctx *c, const struct samrt_sam2_mlp3_weights *m,
                                const struct samrt_tensor *x) {
    struct samrt_tensor y = samrt_op_linear(c, "dec.mlp3.0", x, m->w[0], m->b[0], SAMRT_ACT_RELU, NULL);
    y = samrt_op_linear(c, "dec.mlp3.1", &y, m->w[1], m->b[1], SAMRT_ACT_RELU, NULL);
    return samrt_op_linear(c, "dec.mlp3.2", &y, m->w[2], m->b[2], SAMRT_ACT_NONE, NULL);
}

/* Taps a 4-D map given as an NCHW-ordered view: the tap convention (as the encoder's) is
 * channels-last (N, H, W, C), which the dump writer turns into the official NCHW. */
static void tap4(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *nchw) {
    static const int to_nhwc[4] = {0, 2, 3, 1};
    struct samrt_tensor v;
    if (samrt_tensor_permute(nchw, to_nhwc, &v) == SAMRT_OK) samrt_op_tap(c, name, &v);
}

void samrt_sam2_tap_host(struct samrt_op_ctx *c, const char *name, float *data, int n_dims, const int64_t *ne) {
    struct samrt_tensor t = samrt_tensor_make(data, SAMRT_DTYPE_F32, n_dims, ne);
    if (n_dims == 4) tap4(c, name, &t);
    else samrt_op_tap(c, name, &t);
}

/* Taps of object 0 (the parity runs prompt one object), in the official layouts. */
static void tap_maps(struct samrt_op_ctx *c, struct samrt_sam2_heads *h, const struct samrt_tensor *image) {
    if (!samrt_ctx_tapping(c)) return;
    const int64_t g = h->grid, n = g * g, ns0 = h->n_sparse[0];
    struct samrt_tensor t = samrt_tensor_view(&h->tokens, SAMRT_SAM2_N_OUT_TOKENS * DIM, 3, SAMRT_SHAPE(1, ns0, DIM),
                                 SAMRT_SHAPE(h->tokens.s[0], DIM, 1));
    samrt_op_tap(c, "tap.prompt.sparse", &t);
    if (!h->cfg.mask_input) {  /* no_mask_embed expanded, as the official dense output */
        t = samrt_tensor_view(h->pw.no_mask_embed, 0, 4, SAMRT_SHAPE(1, DIM, g, g), SAMRT_SHAPE(0, 1, 0, 0));
        tap4(c, "tap.prompt.dense", &t);
    }
    t = samrt_tensor_view(image, 0, 4, SAMRT_SHAPE(1, DIM, g, g), SAMRT_SHAPE(n * DIM, 1, g * DIM, DIM));
    tap4(c, "tap.decoder.image_embed", &t);
    t = samrt_tensor_view(&h->image_pe, 0, 4, SAMRT_SHAPE(1, DIM, g, g), SAMRT_SHAPE(n * DIM, 1, g * DIM, DIM));
    tap4(c, "tap.decoder.image_pe", &t);
}

/* src = image_embeddings + dense prompt embeddings (B, N, 256), at the transformer's dtype tr
 * (f32 in bf16 runs: the sum is fp32 under autocast as well). */
static struct samrt_tensor dense_src(struct samrt_sam2_heads *h, struct samrt_op_ctx *c,
                                     const struct samrt_tensor *image) {
    const int64_t B = h->cfg.b_max, g = h->grid, n = g * g, L = h->low;
    const enum samrt_dtype tr = h->tr_dtype;
    struct samrt_tensor keys;
    if (h->cfg.mask_input) {
        struct samrt_tensor dense = samrt_sam2_mask_embed(c, &h->pw, &h->mask_in);   /* (B, 256, g, g) */
        if (samrt_ctx_tapping(c)) {
            struct samrt_tensor d0 = samrt_tensor_view(&dense, 0, 4, SAMRT_SHAPE(1, DIM, g, g), SAMRT_SHAPE(DIM * n, n, g, 1));
            tap4(c, "tap.prompt.dense", &d0);
            d0 = samrt_tensor_view(&h->mask_in, 0, 4, SAMRT_SHAPE(1, 1, L, L), SAMRT_SHAPE(L * L, L * L, L, 1));
            tap4(c, "tap.prompt.mask_input", &d0);
        }
        struct samrt_tensor dv = samrt_tensor_view(&dense, 0, 3, SAMRT_SHAPE(B, n, DIM), SAMRT_SHAPE(DIM * n, 1, n));
        struct samrt_tensor dense_tok = samrt_op_copy(c, "dec.dense_tokens", &dv, tr, NULL);
        struct samrt_tensor img_b = bcast(image, B);
        keys = samrt_op_copy(c, "dec.src", &img_b, tr, &dense_tok);
    } else {
        struct samrt_tensor img = *image;
        if (tr != c->dtype) img = samrt_op_copy(c, "dec.image_tr", image, tr, NULL);
        keys = samrt_op_channel_affine(c, "dec.src", &img, NULL, h->no_mask_embed_tr, NULL, 1);
        if (keys.ne[0] != B) {
            struct samrt_tensor kb = bcast(&keys, B);
            keys = samrt_op_copy(c, "dec.src_b", &kb, tr, NULL);
        }
    }
    return keys;
}

/* TwoWayTransformer: two TwoWayAttentionBlocks, then the final token-to-image attention. The
 * queries are the prompt tokens, which are also their PE; the keys are src, with the dense PE.
 * Returns the queries; *keys becomes the transformer's keys. */
static struct samrt_tensor twoway_transformer(struct samrt_sam2_heads *h, struct samrt_op_ctx *c,
                                              struct samrt_tensor *keys, const int32_t *n_keys) {
    const struct samrt_sam2_decoder_weights *tw = &h->tw;
    const enum samrt_dtype tr = h->tr_dtype;
    const struct samrt_tensor pe_b = bcast(&h->image_pe, h->cfg.b_max);
    const struct samrt_tensor *qpe = &h->tokens;
    struct samrt_tensor queries = h->tokens, q, k, a;
    for (int l = 0; l < 2; l++) {
        const struct samrt_sam2_twoway_layer_weights *Lw = &tw->layer[l];
        if (l == 0) {  /* skip_first_layer_pe: the self-attention output replaces the queries */
            a = attention(c, &Lw->self_attn, &queries, &queries, &queries, DIM / N_HEADS, n_keys);
            queries = samrt_op_layernorm(c, "dec.norm1", &a, Lw->norm_w[0], Lw->norm_b[0], NULL, LN_EPS, NULL);
        } else {
            q = samrt_op_add(c, "dec.q_pe", &queries, qpe);
            a = attention(c, &Lw->self_attn, &q, &q, &queries, DIM / N_HEADS, n_keys);
            queries = samrt_op_layernorm(c, "dec.norm1", &a, Lw->norm_w[0], Lw->norm_b[0], &queries, LN_EPS, NULL);
        }
        q = samrt_op_add(c, "dec.q_pe", &queries, qpe);
        k = samrt_op_copy(c, "dec.k_pe", &pe_b, tr, keys);
        a = attention(c, &Lw->t2i, &q, &k, keys, CROSS_DIM / N_HEADS, NULL);
        queries = samrt_op_layernorm(c, "dec.norm2", &a, Lw->norm_w[1], Lw->norm_b[1], &queries, LN_EPS, NULL);
        a = samrt_op_linear(c, "dec.mlp0", &queries, Lw->mlp_w[0], Lw->mlp_b[0], SAMRT_ACT_RELU, NULL);
        a = samrt_op_linear(c, "dec.mlp1", &a, Lw->mlp_w[1], Lw->mlp_b[1], SAMRT_ACT_NONE, NULL);
        queries = samrt_op_layernorm(c, "dec.norm3", &a, Lw->norm_w[2], Lw->norm_b[2], &queries, LN_EPS, NULL);
        q = samrt_op_add(c, "dec.q_pe", &queries, qpe);
        a = attention(c, &Lw->i2t, &k, &q, &queries, CROSS_DIM / N_HEADS, n_keys);  /* keys unchanged: k reused */
        *keys = samrt_op_layernorm(c, "dec.norm4", &a, Lw->norm_w[3], Lw->norm_b[3], keys, LN_EPS, NULL);
    }
    q = samrt_op_add(c, "dec.q_pe", &queries, qpe);
    k = samrt_op_copy(c, "dec.k_pe", &pe_b, tr, keys);
    a = attention(c, &tw->final_attn, &q, &k, keys, CROSS_DIM / N_HEADS, NULL);
    return samrt_op_layernorm(c, "dec.norm_final", &a, tw->norm_final_w, tw->norm_final_b, &queries, LN_EPS, NULL);
}

/* output_upscaling of the keys (B, g*g, 256) with the high-resolution features (NHWC) ->
 * (B, L*L, 32), at tr as well: in bf16 runs the whole decoder computes in f32 (the
 * high-resolution features arrive in bf16). */
static struct samrt_tensor upscale(struct samrt_sam2_heads *h, struct samrt_op_ctx *c, const struct samrt_tensor *keys,
                                   const struct samrt_tensor *feat_s0, const struct samrt_tensor *feat_s1) {
    const struct samrt_sam2_decoder_weights *tw = &h->tw;
    const enum samrt_dtype tr = h->tr_dtype;
    const int64_t B = h->cfg.b_max, g = h->grid, n = g * g, L = h->low;
    struct samrt_tensor x = samrt_tensor_view(keys, 0, 4, SAMRT_SHAPE(B, g, g, DIM), SAMRT_SHAPE(n * DIM, g * DIM, DIM, 1));
    struct samrt_tensor u = samrt_op_convt2x2(c, "dec.up0", &x, &h->up0_w, &h->up0_b, UP0_DIM, SAMRT_ACT_NONE);
    const int high_res = feat_s1->n_dims != 0;  /* EfficientTAM: none (use_high_res_features false) */
    struct samrt_tensor f = high_res ? bcast(feat_s1, B) : u;
    if (high_res) u = samrt_op_copy(c, "dec.up0_s1", &f, tr, &u);       /* (B, 4n, 64) */
    u = samrt_op_layernorm(c, "dec.up_ln", &u, tw->up_ln_w, tw->up_ln_b, NULL, LN2D_EPS, NULL);
    u = samrt_op_unary(c, "dec.up_gelu0", &u, SAMRT_ACT_GELU, 1.0f, 0.0f);
    x = samrt_tensor_view(&u, 0, 4, SAMRT_SHAPE(B, 2 * g, 2 * g, UP0_DIM), SAMRT_SHAPE(4 * n * UP0_DIM, 2 * g * UP0_DIM, UP0_DIM, 1));
    u = samrt_op_convt2x2(c, "dec.up1", &x, &h->up1_w, &h->up1_b, UP1_DIM, SAMRT_ACT_NONE);
    if (high_res) {
        f = bcast(feat_s0, B);
        u = samrt_op_copy(c, "dec.up1_s0", &f, tr, &u);                  /* (B, L*L, 32) */
    }
    u = samrt_op_unary(c, "dec.up_gelu1", &u, SAMRT_ACT_GELU, 1.0f, 0.0f);
    if (samrt_ctx_tapping(c)) {
        struct samrt_tensor t =
            samrt_tensor_view(&u, 0, 4, SAMRT_SHAPE(1, UP1_DIM, L, L), SAMRT_SHAPE(L * L * UP1_DIM, 1, L * UP1_DIM, UP1_DIM));
        tap4(c, "tap.decoder.upscaled", &t);
    }
    return u;
}

/* The hypernetworks on the mask tokens and masks = hyper_in @ upscaled, into h->all_masks. */
static void mask_logits(struct samrt_sam2_heads *h, struct samrt_op_ctx *c, const struct samrt_tensor *queries,
                        const struct samrt_tensor *u) {
    const struct samrt_sam2_decoder_weights *tw = &h->tw;
    const int64_t B = h->cfg.b_max, L = h->low;
    /* hypernetworks: H (4, B, 32), row k*B + b = MLP_k(mask token k of object b) */
    struct samrt_tensor hyp = samrt_op_new(c, "dec.hyper", h->tr_dtype, 3, SAMRT_SHAPE(SAMRT_SAM2_N_MASK_TOKENS, B, UP1_DIM));
    for (int kk = 0; kk < SAMRT_SAM2_N_MASK_TOKENS; kk++) {
        struct samrt_tensor tok = token_rows(queries, 2 + kk);
        struct samrt_tensor y = samrt_op_linear(c, "dec.hyper.0", &tok, tw->hyper[kk].w[0], tw->hyper[kk].b[0],
                                                SAMRT_ACT_RELU, NULL);
        y = samrt_op_linear(c, "dec.hyper.1", &y, tw->hyper[kk].w[1], tw->hyper[kk].b[1], SAMRT_ACT_RELU, NULL);
        struct samrt_tensor out = samrt_tensor_view(&hyp, (int64_t)kk * B * UP1_DIM, 2, SAMRT_SHAPE(B, UP1_DIM), SAMRT_SHAPE(UP1_DIM, 1));
        samrt_op_linear_into(c, &y, tw->hyper[kk].w[2], tw->hyper[kk].b[2], SAMRT_ACT_NONE, NULL, &out);
    }
    /* masks[b] (4, L*L) = H[:, b, :] (4, 32) x upscaled[b] (L*L, 32)^T, in f32 */
    const struct samrt_tensor masks = h->all_masks;
    for (int64_t b = 0; b < B; b++) {
        struct samrt_tensor hx = samrt_tensor_view(&hyp, b * UP1_DIM, 2, SAMRT_SHAPE(SAMRT_SAM2_N_MASK_TOKENS, UP1_DIM),
                                      SAMRT_SHAPE(B * UP1_DIM, 1));
        struct samrt_tensor ub = samrt_tensor_view(u, b * L * L * UP1_DIM, 2, SAMRT_SHAPE((int64_t)L * L, UP1_DIM), SAMRT_SHAPE(UP1_DIM, 1));
        struct samrt_tensor mb = samrt_tensor_view(&masks, b * SAMRT_SAM2_N_MASK_TOKENS * L * L, 2,
                                      SAMRT_SHAPE(SAMRT_SAM2_N_MASK_TOKENS, (int64_t)L * L), SAMRT_SHAPE((int64_t)L * L, 1));
        samrt_op_linear_into(c, &hx, &ub, NULL, SAMRT_ACT_NONE, NULL, &mb);
    }
}

void samrt_sam2_heads_forward(struct samrt_sam2_heads *h, struct samrt_op_ctx *c, const struct samrt_tensor *image,
                              const struct samrt_tensor *feat_s0, const struct samrt_tensor *feat_s1) {
    const struct samrt_sam2_decoder_weights *w = &h->dw, *tw = &h->tw;
    const int64_t B = h->cfg.b_max, T = h->t_max, g = h->grid, n = g * g, L = h->low;
    const enum samrt_dtype dt = c->dtype, tr = h->tr_dtype;
    int32_t n_keys[SAMRT_SAM2_MAX_OBJ];
    for (int64_t b = 0; b < B; b++) n_keys[b] = SAMRT_SAM2_N_OUT_TOKENS + h->n_sparse[b];
    if (c->ex->mode == SAMRT_EXEC_PLAN) {
        const int no_high_res = feat_s0->n_dims == 0 && feat_s1->n_dims == 0;
        const int ok = image->n_dims == 3 && image->ne[1] == n && image->ne[2] == DIM &&
                       (image->ne[0] == 1 || image->ne[0] == B) && (no_high_res || (feat_s0->n_dims == 3 &&
                       feat_s0->ne[1] == (int64_t)L * L && feat_s0->ne[2] == UP1_DIM && feat_s1->n_dims == 3 &&
                       feat_s1->ne[1] == (int64_t)4 * n && feat_s1->ne[2] == UP0_DIM &&
                       feat_s0->ne[0] == feat_s1->ne[0] && (feat_s0->ne[0] == 1 || feat_s0->ne[0] == B)));
        if (!ok) {
            SAMRT_LOG_ERROR("sam2 heads: inputs must be image (1|B, %lld, 256), feat_s0 (1|B, %lld, 32), "
                            "feat_s1 (1|B, %lld, 64) tokens", (long long)n, (long long)L * L, (long long)4 * n);
            samrt_ctx_fail(c, SAMRT_E_INVALID_ARG);
        }
    }
    tap_maps(c, h, image);

    struct samrt_tensor keys = dense_src(h, c, image);
    struct samrt_tensor queries = twoway_transformer(h, c, &keys, n_keys);
    if (samrt_ctx_tapping(c)) {
        struct samrt_tensor t = samrt_tensor_view(&queries, 0, 3, SAMRT_SHAPE(1, n_keys[0], DIM), SAMRT_SHAPE(T * DIM, DIM, 1));
        samrt_op_tap(c, "tap.decoder.hs", &t);
        t = samrt_tensor_view(&keys, 0, 3, SAMRT_SHAPE(1, n, DIM), SAMRT_SHAPE(n * DIM, DIM, 1));
        samrt_op_tap(c, "tap.decoder.src", &t);
    }
    const struct samrt_tensor u = upscale(h, c, &keys, feat_s0, feat_s1);
    mask_logits(h, c, &queries, &u);

    /* IoU (sigmoid) and object-score heads */
    struct samrt_tensor tok = token_rows(&queries, 1);
    struct samrt_tensor iou = mlp3(c, &tw->iou_head, &tok);
    iou = samrt_op_unary(c, "dec.iou", &iou, SAMRT_ACT_SIGMOID, 1.0f, 0.0f);
    tok = token_rows(&queries, 0);
    struct samrt_tensor score = mlp3(c, &tw->obj_head, &tok);
    samrt_op_copy_into(c, &iou, NULL, &h->all_iou);
    samrt_op_copy_into(c, &score, NULL, &h->score);
    if (samrt_ctx_tapping(c)) {
        const int64_t nb = 1;
        struct samrt_tensor t = samrt_tensor_view(&h->all_masks, 0, 4, SAMRT_SHAPE(nb, 4, L, L), SAMRT_SHAPE(4 * L * L, L * L, L, 1));
        tap4(c, "tap.decoder.all_masks", &t);
        t = samrt_tensor_view(&iou, 0, 2, SAMRT_SHAPE(nb, 4), SAMRT_SHAPE(4, 1));
        samrt_op_tap(c, "tap.decoder.all_iou", &t);
        t = samrt_tensor_view(&queries, 2 * DIM, 3, SAMRT_SHAPE(nb, 4, DIM), SAMRT_SHAPE(T * DIM, DIM, 1));
        samrt_op_tap(c, "tap.decoder.all_tokens", &t);
        t = samrt_tensor_view(&score, 0, 2, SAMRT_SHAPE(nb, 1), SAMRT_SHAPE(1, 1));
        samrt_op_tap(c, "tap.decoder.object_score_logits", &t);
        /* the pointer token of object 0: its choice is known before the pass (tokens 1..3 when
         * multimask, token 0 otherwise), unlike the dynamic fallback's mask choice */
        const int multi = h->mode[0] == SAMRT_SAM2_MODE_MULTI;
        t = samrt_tensor_view(&queries, (multi ? 3 : 2) * DIM, 3, SAMRT_SHAPE(1, multi ? 3 : 1, DIM), SAMRT_SHAPE(T * DIM, DIM, 1));
        samrt_op_tap(c, "tap.decoder.sam_tokens", &t);
    }

    /* selection, gate, object pointer: obj_ptr_proj runs outside the decoder (SAM2Base) at the
     * run dtype, so the selection reads the tokens at that dtype */
    struct samrt_tensor sam_token = samrt_op_new(c, "dec.sam_token", dt, 2, SAMRT_SHAPE(B, DIM));
    if (tr != dt) queries = samrt_op_copy(c, "dec.queries_rt", &queries, dt, NULL);
    const struct samrt_tensor mask_tokens =  /* tokens 2..5 */
        samrt_tensor_view(&queries, 2 * DIM, 3, SAMRT_SHAPE(B, SAMRT_SAM2_N_MASK_TOKENS, DIM), SAMRT_SHAPE(queries.s[0], DIM, 1));
    samrt_op_sam2_select(c, &h->all_masks, &h->all_iou, &h->score, &mask_tokens, h->mode, &h->low_res, &h->result,
                         &sam_token);
    struct samrt_tensor ptr = mlp3(c, &w->obj_ptr_proj, &sam_token);
    samrt_op_sam2_ptr_gate(c, &ptr, w->no_obj_ptr, &h->result, &h->obj_ptr);
}

/* ---- selection taps (after the pass) ----------------------------------------------------------- */

enum samrt_status samrt_sam2_heads_taps(struct samrt_sam2_heads *h, struct samrt_op_ctx *c) {
    if (!c->tap) return SAMRT_OK;
    const int64_t L = h->low, P = L * L, S = h->cfg.model_side;
    float iou[4], score, res[SAMRT_SAM2_RES_COLS], ptr[DIM];
    float *buf = malloc(sizeof(float) * (size_t)(4 * P + 3 * P + P + S * S));  /* debug path only */
    SAMRT_CHECK(buf != NULL, SAMRT_E_HOST_MEMORY, "sam2 heads: no host memory for the taps");
    float *all = buf, *sel = all + 4 * P, *low = sel + 3 * P, *high = low + P;
    enum samrt_status st = samrt_ctx_fetch(c, all, h->all_masks.data, sizeof(float) * (size_t)(4 * P));
    if (st == SAMRT_OK) st = samrt_ctx_fetch(c, iou, h->all_iou.data, sizeof iou);
    if (st == SAMRT_OK) st = samrt_ctx_fetch(c, &score, h->score.data, sizeof score);
    if (st == SAMRT_OK) st = samrt_ctx_fetch(c, res, h->result.data, sizeof res);
    if (st == SAMRT_OK) st = samrt_ctx_fetch(c, low, h->low_res.data, sizeof(float) * (size_t)P);
    if (st == SAMRT_OK) st = samrt_ctx_fetch(c, ptr, h->obj_ptr.data, sizeof ptr);
    if (st == SAMRT_OK) {
        /* MaskDecoder.forward's selection: masks 1..3 (multimask), mask 0, or the dynamic choice */
        const int multi = h->mode[0] == SAMRT_SAM2_MODE_MULTI, m = multi ? 3 : 1;
        float ious[3];
        for (int j = 0; j < m; j++) {
            const int k = multi ? 1 + j : (int)res[SAMRT_SAM2_RES_INDEX];
            memcpy(sel + j * P, all + k * P, sizeof(float) * (size_t)P);
            ious[j] = multi ? iou[k] : res[SAMRT_SAM2_RES_IOU];
        }
        samrt_sam2_tap_host(c, "tap.decoder.masks", sel, 4, SAMRT_SHAPE(1, m, L, L));
        samrt_sam2_tap_host(c, "tap.decoder.iou", ious, 2, SAMRT_SHAPE(1, m));
        samrt_sam2_tap_host(c, "tap.heads.ious", ious, 2, SAMRT_SHAPE(1, m));
        for (int64_t i = 0; i < m * P; i++) sel[i] = score > 0.0f ? sel[i] : SAMRT_SAM2_NO_OBJ_SCORE;
        samrt_sam2_tap_host(c, "tap.heads.low_res_multimasks", sel, 4, SAMRT_SHAPE(1, m, L, L));
        samrt_sam2_tap_host(c, "tap.heads.low_res_masks", low, 4, SAMRT_SHAPE(1, 1, L, L));
        st = samrt_op_host_interp(SAMRT_INTERP_BILINEAR, 1, (int)L, (int)L, (int)S, (int)S, low, high);
        if (st == SAMRT_OK) samrt_sam2_tap_host(c, "tap.heads.high_res_masks", high, 4, SAMRT_SHAPE(1, 1, S, S));
        samrt_sam2_tap_host(c, "tap.heads.obj_ptr", ptr, 2, SAMRT_SHAPE(1, DIM));
        samrt_sam2_tap_host(c, "tap.heads.object_score_logits", &score, 2, SAMRT_SHAPE(1, 1));
    }
    free(buf);
    return st != SAMRT_OK ? st : c->ex->status;
}
