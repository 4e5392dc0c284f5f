/* memory_attention.c - SAM 2.1's and EdgeTAM's memory attention over the op layer (memory_attention.h):
 * EdgeTAM's config, binding, constants (RoPE table, memory pos-enc, tpos table), the per-frame staging rows,
 * the memory / pointer token assembly and the forward pass.
 *
 * Choices that are not obvious:
 *   - Keys and values of the cross-attention are assembled per pass into (B, L, 64) inputs
 *     (spatial memories, then pointer tokens) and projected with one GEMM each per layer: the
 *     projection from 64 channels reads 4x fewer bytes than it writes, so assembling the 64-wide
 *     inputs is the cheap place to gather ring slots.
 *   - The key input is mem + (pos + tpos): pos + tpos first (one channel-affine), then the add
 *     that converts the bf16 memory (one copy with add), in the official order of roundings.
 *   - The residual adds are the Linear epilogue's residual (out_proj(a) + x rounded once, as
 *     `tgt + tgt2`).
 * Tests: tests/test_sam2_memory.c, tests/test_sam2_memory_cuda.c. */
#include "memory_attention.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../edgetam/perceiver.h"  /* the perceiver's token counts (models/edgetam) */
#include "../efficienttam/pooled_kv.h"  /* EfficientTAM's pooled memory keys (models/efficienttam) */
#include "ckpt.h"
#include "model_env.h"
#include "ops_sam2.h"
#include "prompt_encoder.h"

#define DIM SAMRT_SAM2_DIM
#define MEM_DIM SAMRT_SAM2_MEM_DIM
#define NTP SAMRT_SAM2_PTR_TOKENS
#define LN_EPS 1e-5f
#define ROPE_THETA 10000.0f
#define POS_AT_INPUT 0.1f    /* memory_attention.py: output + 0.1 * curr_pos */

struct samrt_sam2_memattn_config samrt_sam2_memattn_config_edgetam(int model_side, int b_max, int max_mem,
                                                                   int max_ptr, enum samrt_dtype dtype) {
    struct samrt_sam2_memattn_config c;
    memset(&c, 0, sizeof c);
    c.model_side = model_side;
    c.b_max = b_max;
    c.max_mem = max_mem;
    c.max_ptr = max_ptr;
    c.dtype = dtype;
    c.n_layers = SAMRT_EDGETAM_MA_LAYERS;
    c.mem_latents = SAMRT_EDGETAM_LATENTS;
    c.mem_grid = SAMRT_EDGETAM_WINDOWS;
    c.no_ptr_tpos = 1;
    return c;
}

/* ---- binding --------------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_memattn_bind(struct samrt_sam2_memattn *ma, const struct samrt_sam2_memattn_config *cfg,
                                          const struct samrt_model_env *env) {
    SAMRT_CHECK(ma && cfg && env, SAMRT_E_INVALID_ARG, "memory attention: NULL argument");
    memset(ma, 0, sizeof *ma);
    SAMRT_TRY(samrt_model_check_config("memory attention", cfg->model_side, 64, 16, cfg->b_max, SAMRT_SAM2_MAX_OBJ,
                                       cfg->dtype));
    SAMRT_CHECK(cfg->max_mem >= 1 && cfg->max_mem <= SAMRT_SAM2_MAX_MEM && cfg->max_ptr >= 0 &&
                    cfg->max_ptr <= SAMRT_SAM2_MAX_PTR,
                SAMRT_E_INVALID_ARG, "memory attention: %d memories (1 .. %d), %d pointers (0 .. %d)", cfg->max_mem,
                SAMRT_SAM2_MAX_MEM, cfg->max_ptr, SAMRT_SAM2_MAX_PTR);
    SAMRT_CHECK(cfg->n_layers >= 0 && cfg->n_layers <= SAMRT_SAM2_MA_LAYERS && cfg->mem_latents >= 0 &&
                    cfg->mem_grid >= 0 && cfg->mem_grid <= 256,
                SAMRT_E_INVALID_ARG, "memory attention: variant with %d layers (0 .. %d), %d latents, grid %d",
                cfg->n_layers, SAMRT_SAM2_MA_LAYERS, cfg->mem_latents, cfg->mem_grid);
    ma->cfg = *cfg;
    ma->grid = cfg->model_side / 16;
    ma->n_tok = (int64_t)ma->grid * ma->grid;
    ma->n_layers = cfg->n_layers ? cfg->n_layers : SAMRT_SAM2_MA_LAYERS;
    ma->mem_grid = cfg->mem_grid ? cfg->mem_grid : ma->grid;
    ma->n_mem_tok = cfg->mem_latents + (int64_t)ma->mem_grid * ma->mem_grid;
    ma->slot_rope_k = -1;
    ma->slot_rope = ma->slot_mem_pos = ma->slot_tpos = ma->slot_ptr_p = -1;
    ma->slot_pool_w = ma->slot_pool_b = -1;
    SAMRT_CHECK(cfg->kv_pool >= 0 && cfg->kv_pool <= 2 && (!cfg->kv_pool || (!cfg->mem_latents && !cfg->mem_grid &&
                                                                             ma->grid % 2 == 0)),
                SAMRT_E_INVALID_ARG, "memory attention: kv_pool %d needs pixel memories of an even grid", cfg->kv_pool);
    struct samrt_model_binder b = {env, NULL, SAMRT_OK};
    static const char *proj[4] = {"q_proj", "k_proj", "v_proj", "out_proj"};
    const char *ml = "memory_attention.layers";
    for (int l = 0; l < ma->n_layers; l++) {
        struct samrt_sam2_ma_layer_weights *L = &ma->w.layer[l];
        for (int i = 0; i < 4; i++) {
            L->sa_w[i] = samrt_model_bindw(&b, 2, SAMRT_SHAPE(DIM, DIM), "%s.%d.self_attn.%s.weight", ml, l, proj[i]);
            L->sa_b[i] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "%s.%d.self_attn.%s.bias", ml, l, proj[i]);
            const int64_t in = i == 1 || i == 2 ? MEM_DIM : DIM;  /* kv_in_dim 64 */
            L->ca_w[i] =
                samrt_model_bindw(&b, 2, SAMRT_SHAPE(DIM, in), "%s.%d.cross_attn_image.%s.weight", ml, l, proj[i]);
            L->ca_b[i] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "%s.%d.cross_attn_image.%s.bias", ml, l, proj[i]);
        }
        L->l1_w = samrt_model_bindw(&b, 2, SAMRT_SHAPE(SAMRT_SAM2_MA_FFN, DIM), "%s.%d.linear1.weight", ml, l);
        L->l1_b = samrt_model_bindw(&b, 1, SAMRT_SHAPE(SAMRT_SAM2_MA_FFN), "%s.%d.linear1.bias", ml, l);
        L->l2_w = samrt_model_bindw(&b, 2, SAMRT_SHAPE(DIM, SAMRT_SAM2_MA_FFN), "%s.%d.linear2.weight", ml, l);
        L->l2_b = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "%s.%d.linear2.bias", ml, l);
        for (int k = 0; k < 3; k++) {
            L->norm_w[k] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "%s.%d.norm%d.weight", ml, l, k + 1);
            L->norm_b[k] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "%s.%d.norm%d.bias", ml, l, k + 1);
        }
    }
    ma->w.norm_w = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "memory_attention.norm.weight");
    ma->w.norm_b = samrt_model_bindw(&b, 1, SAMRT_SHAPE(DIM), "memory_attention.norm.bias");
    if (!cfg->no_ptr_tpos) {
        ma->w.tpos_w = samrt_model_bindw(&b, 2, SAMRT_SHAPE(MEM_DIM, DIM), "obj_ptr_tpos_proj.weight");
        ma->w.tpos_b = samrt_model_bindw(&b, 1, SAMRT_SHAPE(MEM_DIM), "obj_ptr_tpos_proj.bias");
    }
    samrt_model_bindw(&b, 4, SAMRT_SHAPE(SAMRT_SAM2_NUM_MASKMEM, 1, 1, MEM_DIM), "maskmem_tpos_enc");
    return b.st;
}

/* ---- planning and constants ------------------------------------------------------------------ */

enum samrt_status samrt_sam2_memattn_plan(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c) {
    SAMRT_CHECK(c->dtype == ma->cfg.dtype, SAMRT_E_INVALID_ARG, "memory attention: context dtype %s, module %s",
                samrt_dtype_name(c->dtype), samrt_dtype_name(ma->cfg.dtype));
    const enum samrt_dtype dt = ma->cfg.dtype, f32 = SAMRT_DTYPE_F32;
    const enum samrt_region W = SAMRT_REGION_WEIGHTS, SG = SAMRT_REGION_STAGING;
    const int64_t n = ma->n_tok, M = ma->cfg.max_mem, P = SAMRT_MAX(ma->cfg.max_ptr, 1);
    const int64_t nk = (int64_t)ma->mem_grid * ma->mem_grid;
    SAMRT_TRY(samrt_ctx_persistent(c, "sam2.memattn.rope", W, f32, 3, SAMRT_SHAPE(n, DIM / 2, 2), &ma->rope, &ma->slot_rope));
    if (ma->mem_grid != ma->grid)
        SAMRT_TRY(samrt_ctx_persistent(c, "sam2.memattn.rope_k", W, f32, 3, SAMRT_SHAPE(nk, DIM / 2, 2), &ma->rope_k,
                                       &ma->slot_rope_k));
    else
        ma->rope_k = ma->rope;  /* pixel memories: the query table */
    SAMRT_TRY(samrt_ctx_persistent(c, "sam2.memattn.mem_pos", W, dt, 3, SAMRT_SHAPE(1, ma->n_mem_tok, MEM_DIM),
                                   &ma->mem_pos, &ma->slot_mem_pos));
    SAMRT_TRY(samrt_ctx_persistent(c, "sam2.memattn.tpos", SG, dt, 2, SAMRT_SHAPE(M, MEM_DIM), &ma->tpos, &ma->slot_tpos));
    if (ma->cfg.kv_pool) {
        SAMRT_TRY(samrt_ctx_persistent(c, "efficienttam.memattn.pool_w", W, dt, 4, SAMRT_SHAPE(DIM, 2, 2, 1),
                                       &ma->pool_w, &ma->slot_pool_w));
        SAMRT_TRY(samrt_ctx_persistent(c, "efficienttam.memattn.pool_b", W, dt, 1, SAMRT_SHAPE(DIM), &ma->pool_b,
                                       &ma->slot_pool_b));
    }
    return samrt_ctx_persistent(c, "sam2.memattn.ptr_p", SG, f32, 1, SAMRT_SHAPE(P), &ma->ptr_p, &ma->slot_ptr_p);
}

/* n f32 values rounded to t's dtype into dst (host), for an upload. */
static void round_into(const struct samrt_tensor *t, void *dst, const float *src, int64_t n) {
    for (int64_t i = 0; i < n; i++) samrt_op_host_store(t->dtype, dst, i, src[i]);
}

static enum samrt_status read_f32(const struct samrt_ckpt *ck, const char *name, float *dst, int64_t n) {
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, name);
    SAMRT_CHECK(t && t->nelements == n, SAMRT_E_KEYS, "memory attention: %s missing or mis-shaped in the checkpoint",
                name);
    return samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, dst, sizeof(float) * (size_t)n);
}

enum samrt_status samrt_sam2_memattn_prepare(struct samrt_sam2_memattn *ma, const struct samrt_model_env *env,
                                             const struct samrt_ckpt *ck) {
    SAMRT_CHECK(ma && env && ck && ma->slot_rope >= 0, SAMRT_E_BAD_STATE, "memory attention: not planned");
    ma->rope.data = samrt_model_slot(env, ma->slot_rope);
    ma->mem_pos.data = samrt_model_slot(env, ma->slot_mem_pos);
    ma->rope_k = ma->slot_rope_k >= 0 ? ma->rope_k : ma->rope;
    if (ma->slot_rope_k >= 0) ma->rope_k.data = samrt_model_slot(env, ma->slot_rope_k);
    ma->tpos.data = samrt_model_slot(env, ma->slot_tpos);
    ma->ptr_p.data = samrt_model_slot(env, ma->slot_ptr_p);
    const int64_t n = ma->n_mem_tok, lat = ma->cfg.mem_latents, mg = ma->mem_grid;
    const size_t n_rope = SAMRT_MAX(samrt_op_host_rope_table_floats(DIM, ma->grid, ma->grid),
                                    samrt_op_host_rope_table_floats(DIM, (int)mg, (int)mg));
    float *buf = malloc(sizeof(float) * (n_rope + (size_t)n * MEM_DIM));  /* setup only */
    SAMRT_CHECK(buf != NULL, SAMRT_E_HOST_MEMORY, "memory attention: out of host memory");
    float *pos = buf + n_rope;
    void *tmp = pos;  /* the pos values are rounded in place (dtype size <= 4) */
    enum samrt_status st = samrt_op_host_rope_table(buf, DIM, ma->grid, ma->grid, ROPE_THETA);
    if (st == SAMRT_OK)
        st = samrt_model_upload(env, ma->rope.data, buf,
                                       sizeof(float) * samrt_op_host_rope_table_floats(DIM, ma->grid, ma->grid));
    if (st == SAMRT_OK && ma->slot_rope_k >= 0) {
        st = samrt_op_host_rope_table(buf, DIM, (int)mg, (int)mg, ROPE_THETA);
        if (st == SAMRT_OK)
            st = samrt_model_upload(env, ma->rope_k.data, buf,
                                           sizeof(float) * samrt_op_host_rope_table_floats(DIM, (int)mg, (int)mg));
    }
    if (st == SAMRT_OK) {
        /* latents: position 0 (the perceiver's zeros); grid tokens: the sine PE of the grid */
        memset(pos, 0, sizeof(float) * (size_t)(lat * MEM_DIM));
        st = samrt_op_host_sine_pe(SAMRT_DTYPE_F32, MEM_DIM, (int)mg, (int)mg, pos + lat * MEM_DIM);
    }
    if (st == SAMRT_OK) {
        round_into(&ma->mem_pos, tmp, pos, n * MEM_DIM);
        st = samrt_model_upload(env, ma->mem_pos.data, tmp, samrt_tensor_nbytes(&ma->mem_pos));
    }
    if (st == SAMRT_OK && ma->slot_pool_w >= 0) {  /* EfficientTAM /1, /2: the pool's constants */
        ma->pool_w.data = samrt_model_slot(env, ma->slot_pool_w);
        ma->pool_b.data = samrt_model_slot(env, ma->slot_pool_b);
        samrt_efftam_pool_fill(buf, buf + 4 * DIM);
        round_into(&ma->pool_w, tmp, buf, 4 * DIM);
        st = samrt_model_upload(env, ma->pool_w.data, tmp, samrt_tensor_nbytes(&ma->pool_w));
        round_into(&ma->pool_b, tmp, buf + 4 * DIM, DIM);
        if (st == SAMRT_OK) st = samrt_model_upload(env, ma->pool_b.data, tmp, samrt_tensor_nbytes(&ma->pool_b));
    }
    if (st == SAMRT_OK) st = read_f32(ck, "maskmem_tpos_enc", &ma->maskmem_tpos[0][0],
                                      SAMRT_SAM2_NUM_MASKMEM * MEM_DIM);
    free(buf);
    SAMRT_TRY(st);
    free(ma->stage_host);
    ma->stage_host = malloc(samrt_sam2_memattn_frame_bytes(ma));
    SAMRT_CHECK(ma->stage_host != NULL, SAMRT_E_HOST_MEMORY, "memory attention: out of host memory");
    return SAMRT_OK;
}

void samrt_sam2_memattn_free(struct samrt_sam2_memattn *ma) {
    if (!ma) return;
    free(ma->stage_host);
    ma->stage_host = NULL;
}

/* ---- per-frame staging ----------------------------------------------------------------------- */

size_t samrt_sam2_memattn_frame_bytes(const struct samrt_sam2_memattn *ma) {
    return samrt_tensor_nbytes(&ma->tpos) + samrt_tensor_nbytes(&ma->ptr_p);
}

enum samrt_status samrt_sam2_memattn_fill_frame(const struct samrt_sam2_memattn *ma, int n_mem, const int *tpos_idx,
                                                int n_ptr, const int *ptr_dist, int max_ptr, void *dst) {
    SAMRT_CHECK(ma && dst && ma->stage_host, SAMRT_E_BAD_STATE, "memory attention: not prepared");
    SAMRT_CHECK(n_mem >= 1 && n_mem <= ma->cfg.max_mem && n_ptr >= 0 && n_ptr <= ma->cfg.max_ptr &&
                    (n_ptr == 0 || (ptr_dist && max_ptr >= 2)) && tpos_idx,
                SAMRT_E_INVALID_ARG, "memory attention: %d memories (1 .. %d), %d pointers (0 .. %d), max_ptr %d",
                n_mem, ma->cfg.max_mem, n_ptr, ma->cfg.max_ptr, max_ptr);
    uint8_t *h_tpos = dst;
    float *h_p = (float *)(void *)(h_tpos + samrt_tensor_nbytes(&ma->tpos));
    const int M = ma->cfg.max_mem;
    for (int j = 0; j < M; j++) {
        const int idx = j < n_mem ? tpos_idx[j] : 0;
        SAMRT_CHECK(idx >= 0 && idx < SAMRT_SAM2_NUM_MASKMEM, SAMRT_E_INVALID_ARG,
                    "memory attention: tpos index %d of memory %d (0 .. 6)", idx, j);
        for (int k = 0; k < MEM_DIM; k++)
            samrt_op_host_store(ma->tpos.dtype, h_tpos, (int64_t)j * MEM_DIM + k, ma->maskmem_tpos[idx][k]);
    }
    const int64_t np = samrt_tensor_nelements(&ma->ptr_p);
    for (int64_t i = 0; i < np; i++) h_p[i] = i < n_ptr ? (float)ptr_dist[i] / (float)(max_ptr - 1) : 0.0f;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_memattn_set_frame(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c, int n_mem,
                                               const int *tpos_idx, int n_ptr, const int *ptr_dist, int max_ptr) {
    SAMRT_CHECK(ma && c && ma->stage_host && ma->tpos.data, SAMRT_E_BAD_STATE, "memory attention: not prepared");
    SAMRT_TRY(samrt_sam2_memattn_fill_frame(ma, n_mem, tpos_idx, n_ptr, ptr_dist, max_ptr, ma->stage_host));
    const size_t b_tpos = samrt_tensor_nbytes(&ma->tpos);
    const uint8_t *h_tpos = ma->stage_host, *h_p = h_tpos + b_tpos;
    SAMRT_TRY(samrt_ctx_memcpy(c, ma->tpos.data, h_tpos, b_tpos));
    return samrt_ctx_memcpy(c, ma->ptr_p.data, h_p, samrt_tensor_nbytes(&ma->ptr_p));
}

/* ---- views ----------------------------------------------------------------------------------- */

/* Contiguous (rows, cols) block of a contiguous tensor, starting at element off. */
static struct samrt_tensor block2(const struct samrt_tensor *t, int64_t off, int64_t rows, int64_t cols) {
    return samrt_tensor_view(t, off, 2, SAMRT_SHAPE(rows, cols), SAMRT_SHAPE(cols, 1));
}

struct samrt_tensor samrt_sam2_memattn_ptr_pos(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c, int n_ptr) {
    /* sine1d of the first n_ptr staged distances */
    struct samrt_tensor env = samrt_op_sine_pe_1d(c, "memattn.ptr_sine", &ma->ptr_p, n_ptr, DIM);
    return samrt_op_linear(c, "memattn.ptr_pos", &env, ma->w.tpos_w, ma->w.tpos_b, SAMRT_ACT_NONE, NULL);
}

static int check_inputs(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c, const struct samrt_tensor *curr,
                        const struct samrt_tensor *curr_pos, int n_mem, int n_ptr, const struct samrt_tensor *ptr) {
    if (c->ex->mode != SAMRT_EXEC_PLAN || !samrt_ctx_ok(c)) return 1;
    const int64_t B = ma->cfg.b_max, n = ma->n_tok;
    int ok = n_mem >= 1 && n_mem <= ma->cfg.max_mem && n_ptr >= 0 && n_ptr <= ma->cfg.max_ptr;
    ok = ok && curr->n_dims == 3 && (curr->ne[0] == 1 || curr->ne[0] == B) && curr->ne[1] == n && curr->ne[2] == DIM &&
         samrt_tensor_is_contiguous(curr) && curr->dtype == c->dtype;
    ok = ok && curr_pos->n_dims == 3 && curr_pos->ne[0] == 1 && curr_pos->ne[1] == n && curr_pos->ne[2] == DIM &&
         samrt_tensor_is_contiguous(curr_pos) && curr_pos->dtype == c->dtype;
    ok = ok && (n_ptr == 0 || (ptr && ptr->n_dims == 3 && ptr->ne[0] == B && ptr->ne[1] == n_ptr &&
                                ptr->ne[2] == DIM && ptr->s[2] == 1 && ptr->dtype == SAMRT_DTYPE_F32));
    if (!ok) {
        SAMRT_LOG_ERROR("memory attention: bad inputs (%d memories, %d pointers; curr (1|%lld, %lld, %d), curr_pos "
                        "(1, %lld, %d) %s, ptr (%lld, %d, %d) f32)",
                        n_mem, n_ptr, (long long)B, (long long)n, DIM, (long long)n, DIM, samrt_dtype_name(c->dtype),
                        (long long)B, n_ptr, DIM);
        samrt_ctx_fail(c, SAMRT_E_INVALID_ARG);
        return 0;
    }
    return 1;
}

static int check_mem(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c, const struct samrt_tensor *m,
                     enum samrt_dtype dt, int64_t ch) {
    if (c->ex->mode != SAMRT_EXEC_PLAN || !samrt_ctx_ok(c)) return 1;
    if (!m || m->n_dims != 3 || m->ne[0] != ma->cfg.b_max || m->ne[1] != ma->n_mem_tok || m->ne[2] != ch ||
        !samrt_tensor_is_contiguous(m) || m->dtype != dt) {
        SAMRT_LOG_ERROR("memory attention: memory tensors must be contiguous (%d, %lld, %lld) %s", ma->cfg.b_max,
                        (long long)ma->n_mem_tok, (long long)ch, samrt_dtype_name(dt));
        samrt_ctx_fail(c, SAMRT_E_INVALID_ARG);
        return 0;
    }
    return 1;
}

/* The pointer tokens of every object into rows [row0, row0 + 4 n_ptr) of kin (+ position) and
 * vin (raw), both (B, L, 64). */
static void put_pointers(struct samrt_op_ctx *c, struct samrt_sam2_memattn *ma, int n_ptr,
                         const struct samrt_tensor *ptr, const struct samrt_tensor *kin,
                         const struct samrt_tensor *vin, int64_t row0, int64_t L) {
    if (n_ptr == 0) return;
    struct samrt_tensor pos = {0};
    if (!ma->cfg.no_ptr_tpos) {  /* EdgeTAM: position 0, the key input is the pointer itself */
        struct samrt_tensor pp = samrt_sam2_memattn_ptr_pos(ma, c, n_ptr);          /* (n_ptr, 64) */
        struct samrt_tensor rep = samrt_tensor_view(&pp, 0, 3, SAMRT_SHAPE(n_ptr, NTP, MEM_DIM), SAMRT_SHAPE(MEM_DIM, 0, 1));
        pos = samrt_op_copy(c, "memattn.ptr_pos_rep", &rep, c->dtype, NULL);
    }
    for (int64_t b = 0; b < ma->cfg.b_max; b++) {
        /* pointer i, token t = channels [64 t, 64 t + 64) of the 256 */
        struct samrt_tensor src = samrt_tensor_view(ptr, b * ptr->s[0], 3, SAMRT_SHAPE(n_ptr, NTP, MEM_DIM), SAMRT_SHAPE(ptr->s[1], MEM_DIM, 1));
        const int64_t off = (b * L + row0) * MEM_DIM;
        struct samrt_tensor kd = samrt_tensor_view(kin, off, 3, SAMRT_SHAPE(n_ptr, NTP, MEM_DIM), SAMRT_SHAPE(NTP * MEM_DIM, MEM_DIM, 1));
        struct samrt_tensor vd = samrt_tensor_view(vin, off, 3, SAMRT_SHAPE(n_ptr, NTP, MEM_DIM), SAMRT_SHAPE(NTP * MEM_DIM, MEM_DIM, 1));
        samrt_op_copy_into(c, &src, ma->cfg.no_ptr_tpos ? NULL : &pos, &kd);
        samrt_op_copy_into(c, &src, NULL, &vd);
    }
}

/* x = curr + 0.1 * curr_pos, as (B, n, 256). */
static struct samrt_tensor input_op(struct samrt_op_ctx *c, struct samrt_sam2_memattn *ma,
                                    const struct samrt_tensor *curr, const struct samrt_tensor *curr_pos) {
    const int64_t B = ma->cfg.b_max;
    if (curr->ne[0] == 1) {
        struct samrt_tensor x = samrt_op_add_scaled(c, "memattn.input", curr, curr_pos, 1.0f, POS_AT_INPUT);
        if (B == 1) return x;
        struct samrt_tensor bc = x;
        bc.ne[0] = B, bc.s[0] = 0;
        return samrt_op_copy(c, "memattn.input_bcast", &bc, c->dtype, NULL);
    }
    struct samrt_tensor bc = *curr_pos;
    bc.ne[0] = B, bc.s[0] = 0;
    struct samrt_tensor pos = samrt_op_copy(c, "memattn.pos_bcast", &bc, c->dtype, NULL);
    return samrt_op_add_scaled(c, "memattn.input", curr, &pos, 1.0f, POS_AT_INPUT);
}

/* Self-attention (cross 0): q and k on the g x g table. Cross-attention over n_mem memories:
 * q on the g x g table, each memory's tokens after its latents on the key table, pointers not. */
static struct samrt_op_attn_args rope_args(const struct samrt_sam2_memattn *ma, int cross, int n_mem) {
    struct samrt_op_attn_args a;
    memset(&a, 0, sizeof a);
    a.n_head = 1;
    a.d_qk = a.d_v = DIM;
    a.rope_q = &ma->rope;
    a.rope_k = cross ? &ma->rope_k : &ma->rope;
    a.rope_k_period = cross ? (int)ma->n_mem_tok : (int)ma->n_tok;
    a.rope_k_skip = cross ? ma->cfg.mem_latents : 0;
    a.rope_n_k = cross ? (int64_t)n_mem * ma->n_mem_tok : ma->n_tok;
    return a;
}

/* The layers and the final norm; the cross-attention keys and values of each layer are the
 * projections of kin (memories + position) and vin (raw memories), both (B, L, 64). */
static struct samrt_tensor layers(struct samrt_op_ctx *c, struct samrt_sam2_memattn *ma, struct samrt_tensor x,
                                  int n_mem, const struct samrt_tensor *kin, const struct samrt_tensor *vin) {
    const struct samrt_op_attn_args sa = rope_args(ma, 0, 0);
    const struct samrt_op_attn_args ca = rope_args(ma, 1, n_mem);
    struct samrt_op_attn_args ca_q = ca;  /* pooled keys arrive rotated: RoPE on q only */
    ca_q.rope_k = NULL, ca_q.rope_k_period = ca_q.rope_k_skip = 0, ca_q.rope_n_k = 0;
    struct samrt_efftam_pool_args pool = {(enum samrt_efftam_pool)ma->cfg.kv_pool, ma->grid, n_mem, 0, &ma->rope,
                                          &ma->pool_w, &ma->pool_b};
    for (int l = 0; l < ma->n_layers; l++) {
        const struct samrt_sam2_ma_layer_weights *L = &ma->w.layer[l];
        char name[48];
        snprintf(name, sizeof name, "memattn.%d.sa", l);
        struct samrt_tensor t = samrt_op_layernorm(c, name, &x, L->norm_w[0], L->norm_b[0], NULL, LN_EPS, NULL);
        struct samrt_tensor q = samrt_op_linear(c, name, &t, L->sa_w[0], L->sa_b[0], SAMRT_ACT_NONE, NULL);
        struct samrt_tensor k = samrt_op_linear(c, name, &t, L->sa_w[1], L->sa_b[1], SAMRT_ACT_NONE, NULL);
        struct samrt_tensor v = samrt_op_linear(c, name, &t, L->sa_w[2], L->sa_b[2], SAMRT_ACT_NONE, NULL);
        struct samrt_tensor a = samrt_op_attention(c, name, &q, &k, &v, &sa);
        x = samrt_op_linear(c, name, &a, L->sa_w[3], L->sa_b[3], SAMRT_ACT_NONE, &x);
        snprintf(name, sizeof name, "memattn.%d.ca", l);
        t = samrt_op_layernorm(c, name, &x, L->norm_w[1], L->norm_b[1], NULL, LN_EPS, NULL);
        q = samrt_op_linear(c, name, &t, L->ca_w[0], L->ca_b[0], SAMRT_ACT_NONE, NULL);
        if (ma->cfg.kv_pool && n_mem >= 2) {  /* EfficientTAM /1, /2: rotated, pooled memory keys */
            pool.n_ptr_tok = kin->ne[1] - (int64_t)n_mem * ma->n_tok;
            samrt_efftam_pool_kv(c, &pool, kin, vin, L->ca_w[1], L->ca_b[1], L->ca_w[2], L->ca_b[2], &k, &v);
            a = samrt_op_attention(c, name, &q, &k, &v, &ca_q);
        } else {
            k = samrt_op_linear(c, "memattn.k", kin, L->ca_w[1], L->ca_b[1], SAMRT_ACT_NONE, NULL);
            v = samrt_op_linear(c, "memattn.v", vin, L->ca_w[2], L->ca_b[2], SAMRT_ACT_NONE, NULL);
            a = samrt_op_attention(c, name, &q, &k, &v, &ca);
        }
        x = samrt_op_linear(c, name, &a, L->ca_w[3], L->ca_b[3], SAMRT_ACT_NONE, &x);
        snprintf(name, sizeof name, "memattn.%d.ffn", l);
        t = samrt_op_layernorm(c, name, &x, L->norm_w[2], L->norm_b[2], NULL, LN_EPS, NULL);
        struct samrt_tensor h = samrt_op_linear(c, name, &t, L->l1_w, L->l1_b, SAMRT_ACT_RELU, NULL);
        x = samrt_op_linear(c, name, &h, L->l2_w, L->l2_b, SAMRT_ACT_NONE, &x);
    }
    struct samrt_tensor out = samrt_op_layernorm(c, "memattn.norm", &x, ma->w.norm_w, ma->w.norm_b, NULL, LN_EPS, NULL);
    samrt_op_tap(c, "tap.memattn.out", &out);
    return out;
}

/* ---- forward -------------------------------------------------------------------------------- */

struct samrt_tensor samrt_sam2_memattn_forward(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c,
                                               const struct samrt_tensor *curr, const struct samrt_tensor *curr_pos,
                                               int n_mem, const struct samrt_tensor *const *mem, int n_ptr,
                                               const struct samrt_tensor *ptr) {
    const int64_t B = ma->cfg.b_max, n = ma->n_mem_tok;
    if (!check_inputs(ma, c, curr, curr_pos, n_mem, n_ptr, ptr)) n_mem = 1, n_ptr = 0;
    for (int j = 0; j < n_mem; j++)
        if (!check_mem(ma, c, mem[j], SAMRT_DTYPE_BF16, MEM_DIM)) break;
    const int64_t L = (int64_t)n_mem * n + (int64_t)NTP * n_ptr;
    const struct samrt_tensor kin = samrt_op_new(c, "memattn.kin", c->dtype, 3, SAMRT_SHAPE(B, L, MEM_DIM));
    const struct samrt_tensor vin = samrt_op_new(c, "memattn.vin", c->dtype, 3, SAMRT_SHAPE(B, L, MEM_DIM));
    struct samrt_tensor x = input_op(c, ma, curr, curr_pos);
    const struct samrt_tensor pos1 = block2(&ma->mem_pos, 0, n, MEM_DIM);
    for (int j = 0; j < n_mem && samrt_ctx_ok(c); j++) {
        /* memory_pos = maskmem_pos_enc + maskmem_tpos_enc[idx], then memory + memory_pos */
        struct samrt_tensor trow = block2(&ma->tpos, (int64_t)j * MEM_DIM, 1, MEM_DIM);
        struct samrt_tensor pos = samrt_op_channel_affine(c, "memattn.mem_pos", &pos1, NULL, &trow, NULL, 1);
        for (int64_t b = 0; b < B; b++) {
            struct samrt_tensor src = block2(mem[j], b * n * MEM_DIM, n, MEM_DIM);
            const int64_t off = (b * L + (int64_t)j * n) * MEM_DIM;
            struct samrt_tensor kd = block2(&kin, off, n, MEM_DIM), vd = block2(&vin, off, n, MEM_DIM);
            samrt_op_copy_into(c, &src, &pos, &kd);
            samrt_op_copy_into(c, &src, NULL, &vd);
        }
    }
    put_pointers(c, ma, n_ptr, ptr, &kin, &vin, (int64_t)n_mem * n, L);
    return layers(c, ma, x, n_mem, &kin, &vin);
}
