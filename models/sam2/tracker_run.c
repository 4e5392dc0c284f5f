/* tracker_run.c - the model work of one tracked frame (tracker.h): memory attention per
 * tracked object over the memories and pointers its bank selects, the SAM heads on the
 * memory-conditioned features of all objects at once, the memory encoder of every object
 * into the ring slot of the frame, and the pointer / conditioning copies.
 *
 * Passes and shapes. Each pass is planned once at init with fixed shapes: one memory
 * attention pass per reachable (memories S, pointers P) count (S <= MAX_COND + 6, S <= P <=
 * MAX_COND + 15), planned for ONE object (b_max 1): objects have their own histories (an
 * object added later or corrected has other counts, tpos rows and distances than its
 * neighbours), and the official predictor also runs objects one at a time. The heads and
 * the memory encoder run batched over the K object slots. Which slots a memory pass reads is
 * a RUN-time argument (views into the bank), and the pointers of the object are gathered
 * into one staging tensor by device copies; the frame's variable rows (tpos, distances) are
 * uploaded by samrt_sam2_memattn_set_frame. This file runs the passes eagerly on the legacy
 * default stream, as the segmentation pass does (docs/tracking.md: graphs).
 * Tests: tests/test_sam2_track.c. */
#include "tracker.h"

#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"
#include "sam2.h"

#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})

/* A view of rows [row0, row0 + n) of dim 0 of a contiguous tensor t, as (n, rest...). */
static struct samrt_tensor rows(const struct samrt_tensor *t, int64_t row0, int64_t n) {
    struct samrt_tensor v = *t;
    v.ne[0] = n;
    if (v.data) v.data = (char *)v.data + (size_t)row0 * (size_t)t->s[0] * samrt_dtype_size(t->dtype);
    return v;
}

/* Memory of slot s, object k: (1, g*g, 64) bf16 from the slot-major bank. */
static struct samrt_tensor bank_mem(const struct samrt_sam2_tracker *t, int s, int k) {
    struct samrt_tensor v = rows(&t->mem_bank, s, 1);  /* (1, K, n, 64) */
    struct samrt_tensor r = samrt_tensor_make(v.data, v.dtype, 3, SHAPE(1, v.ne[2], v.ne[3]));
    if (r.data) r.data = (char *)r.data + (size_t)k * (size_t)t->mem_bank.s[1] * 2;
    return r;
}

/* ---- the passes ------------------------------------------------------------------------------ */

static void ma_forward(struct samrt_sam2 *m, struct samrt_model_ctx *c, int n_mem, const struct samrt_tensor *mem,
                       int n_ptr, int k) {
    struct samrt_sam2_tracker *t = &m->trk;
    const struct samrt_tensor *mp[SAMRT_TRACK_MAX_SEL_MEM];
    for (int j = 0; j < n_mem; j++) mp[j] = &mem[j];
    struct samrt_tensor ptr = t->ptr_sel;
    ptr.ne[1] = n_ptr;
    struct samrt_tensor out =
        samrt_sam2_memattn_forward(&t->memattn, c, &m->enc.vision, &m->enc.vision_pos, n_mem, mp, n_ptr, &ptr);
    const struct samrt_tensor dst = rows(&t->pix, k, 1);
    samrt_op_copy_into(c, &out, NULL, &dst);
}

static void heads_forward(struct samrt_sam2 *m, struct samrt_model_ctx *c) {
    samrt_sam2_heads_forward(&m->seg.heads, c, &m->trk.pix, &m->enc.feat_s0, &m->enc.feat_s1);
}

static void enc_forward(struct samrt_sam2 *m, struct samrt_model_ctx *c, const struct samrt_tensor *out) {
    struct samrt_sam2_tracker *t = &m->trk;
    samrt_sam2_memenc_forward(&t->memenc, c, &m->enc.vision, &t->cur_low, &t->cur_score, 0, out);
}

static struct samrt_tensor ring_block(const struct samrt_sam2_tracker *t, int s) {
    struct samrt_tensor v = rows(&t->mem_bank, s, 1);
    return samrt_tensor_make(v.data, v.dtype, 3, SHAPE(v.ne[1], v.ne[2], v.ne[3]));
}

enum samrt_status samrt_sam2_tracker_plan_passes(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_tracker *t = &m->trk;
    const int K = t->k_max, side = e->params.imgsz;
    const int64_t n = (int64_t)t->grid * t->grid, L = 4 * (int64_t)t->grid;
    struct samrt_model_ctx *c0 = &m->seg.ctx;
    SAMRT_TRY(samrt_ops_persistent(c0, "track.pix", SAMRT_REGION_STAGING, e->precision, 3,
                                   SHAPE(K, n, SAMRT_SAM2_DIM), &t->pix, &t->slot_pix));
    SAMRT_TRY(samrt_ops_persistent(c0, "track.ptr_sel", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 3,
                                   SHAPE(1, SAMRT_TRACK_MAX_SEL_PTR, SAMRT_SAM2_DIM), &t->ptr_sel,
                                   &t->slot_ptr_sel));
    SAMRT_TRY(samrt_ops_persistent(c0, "track.cur_low", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 4, SHAPE(K, 1, L, L),
                                   &t->cur_low, &t->slot_cur_low));
    SAMRT_TRY(samrt_ops_persistent(c0, "track.cur_score", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 2, SHAPE(K, 1),
                                   &t->cur_score, &t->slot_cur_score));
    SAMRT_TRY(samrt_ops_persistent(c0, "track.cur_ptr", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 2,
                                   SHAPE(K, SAMRT_SAM2_DIM), &t->cur_ptr, &t->slot_cur_ptr));

    const struct samrt_sam2_memenc_config mec = {side, K, e->precision};
    SAMRT_TRY(samrt_sam2_memenc_bind(&t->memenc, &mec, e));
    SAMRT_TRY(samrt_sam2_memenc_plan(&t->memenc, c0));
    const struct samrt_sam2_memattn_config mac = {side, 1, SAMRT_TRACK_MAX_SEL_MEM, SAMRT_TRACK_MAX_SEL_PTR,
                                                  e->precision};
    SAMRT_TRY(samrt_sam2_memattn_bind(&t->memattn, &mac, e));
    SAMRT_TRY(samrt_sam2_memattn_plan(&t->memattn, c0));

    t->ma = calloc(SAMRT_TRACK_N_MA_PASSES, sizeof *t->ma);
    SAMRT_CHECK(t->ma != NULL, SAMRT_E_HOST_MEMORY, "track: out of host memory");
    struct samrt_tensor mem[SAMRT_TRACK_MAX_SEL_MEM];
    for (int j = 0; j < SAMRT_TRACK_MAX_SEL_MEM; j++) mem[j] = bank_mem(t, 0, 0);
    for (int s = 1; s <= SAMRT_TRACK_MAX_SEL_MEM; s++) {
        for (int p = s; p <= SAMRT_TRACK_MAX_SEL_PTR; p++) {
            struct samrt_sam2_track_pass *ps = &t->ma[samrt_track_ma_index(s, p)];
            SAMRT_TRY(samrt_sam2_ctx_init(e, &ps->ctx, &ps->ex));
            samrt_ops_begin(&ps->ctx, SAMRT_EXEC_PLAN, NULL);
            ma_forward(m, &ps->ctx, s, mem, p, 0);
            SAMRT_TRY(samrt_ops_end(&ps->ctx));
            ps->planned = 1;
        }
    }
    SAMRT_TRY(samrt_sam2_ctx_init(e, &t->heads.ctx, &t->heads.ex));
    samrt_ops_begin(&t->heads.ctx, SAMRT_EXEC_PLAN, NULL);
    heads_forward(m, &t->heads.ctx);
    SAMRT_TRY(samrt_ops_end(&t->heads.ctx));
    t->heads.planned = 1;
    SAMRT_TRY(samrt_sam2_ctx_init(e, &t->enc.ctx, &t->enc.ex));
    samrt_ops_begin(&t->enc.ctx, SAMRT_EXEC_PLAN, NULL);
    const struct samrt_tensor out = ring_block(t, 0);
    enc_forward(m, &t->enc.ctx, &out);
    SAMRT_TRY(samrt_ops_end(&t->enc.ctx));
    t->enc.planned = 1;
    return SAMRT_OK;
}

static void pass_workspaces(const struct samrt_engine *e, struct samrt_model_ctx *c) {
    if (e->slot_ws_cublaslt >= 0) c->ws_lt = samrt_arena_ptr(&e->arena, e->slot_ws_cublaslt);
    if (e->slot_ws_cudnn >= 0) c->ws_dnn = samrt_arena_ptr(&e->arena, e->slot_ws_cudnn);
}

enum samrt_status samrt_sam2_tracker_prepare_passes(struct samrt_engine *e, struct samrt_sam2 *m,
                                                    const struct samrt_ckpt *ck) {
    struct samrt_sam2_tracker *t = &m->trk;
    t->pix.data = samrt_arena_ptr(&e->arena, t->slot_pix);
    t->ptr_sel.data = samrt_arena_ptr(&e->arena, t->slot_ptr_sel);
    t->cur_low.data = samrt_arena_ptr(&e->arena, t->slot_cur_low);
    t->cur_score.data = samrt_arena_ptr(&e->arena, t->slot_cur_score);
    t->cur_ptr.data = samrt_arena_ptr(&e->arena, t->slot_cur_ptr);
    SAMRT_TRY(samrt_sam2_memenc_prepare(&t->memenc, e));
    SAMRT_TRY(samrt_sam2_memattn_prepare(&t->memattn, e, ck));
    for (int i = 0; i < SAMRT_TRACK_N_MA_PASSES; i++)
        if (t->ma[i].planned) pass_workspaces(e, &t->ma[i].ctx);
    pass_workspaces(e, &t->heads.ctx);
    pass_workspaces(e, &t->enc.ctx);
    /* unused object rows of pix must hold finite values: the batched heads read them */
    void *zero = calloc(1, samrt_tensor_nbytes(&t->pix));
    const size_t n_low = (size_t)samrt_tensor_nelements(&t->cur_low);
    t->low_host = malloc(sizeof(float) * n_low);
    t->score_host = malloc(sizeof(float) * (size_t)t->k_max);
    SAMRT_CHECK(zero && t->low_host && t->score_host, SAMRT_E_HOST_MEMORY, "track: out of host memory");
    enum samrt_status st = samrt_platform_mem_upload(e->mem_kind, t->pix.data, zero, samrt_tensor_nbytes(&t->pix));
    free(zero);
    return st;
}

void samrt_sam2_tracker_free_passes(struct samrt_sam2_tracker *t) {
    if (t->ma) {
        for (int i = 0; i < SAMRT_TRACK_N_MA_PASSES; i++)
            if (t->ma[i].planned) samrt_model_ctx_free(&t->ma[i].ctx);
        free(t->ma);
        t->ma = NULL;
    }
    if (t->heads.planned) samrt_model_ctx_free(&t->heads.ctx);
    if (t->enc.planned) samrt_model_ctx_free(&t->enc.ctx);
    t->heads.planned = t->enc.planned = 0;
    samrt_sam2_memattn_free(&t->memattn);
    free(t->low_host);
    free(t->score_host);
    t->low_host = t->score_host = NULL;
}

/* ---- one frame ------------------------------------------------------------------------------- */

/* Row b of the heads' results -> row k of the frame's cur_* tensors. */
static enum samrt_status take_heads_row(struct samrt_sam2 *m, const struct samrt_model_ctx *c, int b, int k) {
    struct samrt_sam2_tracker *t = &m->trk;
    const struct samrt_sam2_heads *h = &m->seg.heads;
    const size_t low_bytes = sizeof(float) * (size_t)h->low * (size_t)h->low;
    SAMRT_TRY(samrt_ops_memcpy(c, (char *)t->cur_low.data + k * low_bytes, (const char *)h->low_res.data + b * low_bytes,
                       low_bytes));
    SAMRT_TRY(samrt_ops_memcpy(c, (float *)t->cur_score.data + k, (const float *)h->score.data + b, sizeof(float)));
    const size_t pb = sizeof(float) * SAMRT_SAM2_DIM;
    return samrt_ops_memcpy(c, (char *)t->cur_ptr.data + k * pb, (const char *)h->obj_ptr.data + b * pb, pb);
}

/* Memory attention of tracked object k on frame t->frame, into pix row k. */
static enum samrt_status attend(struct samrt_engine *e, struct samrt_sam2 *m, int k) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_sam2_track_obj *o = &t->obj[k];
    struct samrt_track_selection sel;
    samrt_track_bank_select(&o->bank, t->frame, t->opt.num_frames, &sel);
    if (sel.n_mem < 1 || sel.n_ptr < sel.n_mem || sel.n_mem > SAMRT_TRACK_MAX_SEL_MEM ||
        sel.n_ptr > SAMRT_TRACK_MAX_SEL_PTR)
        return SAMRT_E_BAD_STATE;  /* the bank never selects these (track_bank.h) */
    struct samrt_sam2_track_pass *ps = &t->ma[samrt_track_ma_index(sel.n_mem, sel.n_ptr)];
    struct samrt_model_ctx *c = &ps->ctx;
#ifdef SAMRT_HAVE_CUDA
    c->stream = NULL;
#endif
    const size_t pb = sizeof(float) * SAMRT_SAM2_DIM;
    for (int i = 0; i < sel.n_ptr; i++) {
        const char *src = (const char *)t->ptr_bank.data + ((size_t)sel.ptr_slot[i] * t->k_max + k) * pb;
        SAMRT_TRY(samrt_ops_memcpy(c, (char *)t->ptr_sel.data + i * pb, src, pb));
    }
    SAMRT_TRY(samrt_sam2_memattn_set_frame(&t->memattn, c, sel.n_mem, sel.mem_tpos, sel.n_ptr, sel.ptr_dist,
                                           sel.max_ptr));
    struct samrt_tensor mem[SAMRT_TRACK_MAX_SEL_MEM];
    for (int j = 0; j < sel.n_mem; j++) mem[j] = bank_mem(t, sel.mem_slot[j], k);
    samrt_ops_begin(c, SAMRT_EXEC_RUN, &e->arena);
    ma_forward(m, c, sel.n_mem, mem, sel.n_ptr, k);
    return samrt_ops_end(c);
}

enum samrt_status samrt_sam2_tracker_step(struct samrt_engine *e, struct samrt_sam2 *m, const int *prompted,
                                          int n_prompted, int encode_needed) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_model_ctx *ch = &t->heads.ctx;
#ifdef SAMRT_HAVE_CUDA
    ch->stream = NULL;
    t->enc.ctx.stream = NULL;
#endif
    if (encode_needed) SAMRT_TRY(samrt_sam2_encode_image(e, NULL));
    int is_prompted[SAMRT_SAM2_MAX_OBJ] = {0};
    for (int i = 0; i < n_prompted; i++) {
        is_prompted[prompted[i]] = 1;
        SAMRT_TRY(take_heads_row(m, ch, i, prompted[i]));  /* the segmentation pass's rows */
    }
    SAMRT_TRY(samrt_sam2_track_mask_step(e, m, is_prompted));  /* track_mask.c: mask-prompted objects */
    int n_tracked = 0;
    for (int k = 0; k < t->n_obj; k++) {
        if (is_prompted[k] || t->obj[k].first_frame < 0) continue;
        SAMRT_TRY(attend(e, m, k));
        n_tracked++;
    }
    if (n_tracked > 0) {
        struct samrt_sam2_points none[SAMRT_SAM2_MAX_OBJ];
        for (int k = 0; k < t->k_max; k++) samrt_sam2_points_none(&none[k]);
        SAMRT_TRY(samrt_sam2_heads_set_prompts(&m->seg.heads, ch, none, t->k_max,
                                               t->opt.postproc == SAMRT_POSTPROC_NOTEBOOK));
        samrt_ops_begin(ch, SAMRT_EXEC_RUN, &e->arena);
        heads_forward(m, ch);
        SAMRT_TRY(samrt_ops_end(ch));
        for (int k = 0; k < t->n_obj; k++)
            if (!is_prompted[k] && t->obj[k].first_frame >= 0) SAMRT_TRY(take_heads_row(m, ch, k, k));
    }
    /* the memory of every object slot goes to ring slot frame % 6 (it held frame - 6, which
     * nothing selects any more); the pointers to ring slot frame % 16 */
    const int f = t->frame;
    const struct samrt_tensor out = ring_block(t, f % SAMRT_TRACK_RING);
    if (samrt_sam2_track_post_on(t)) {  /* notebook: hole filling, binarised prompted memories */
        SAMRT_TRY(samrt_sam2_track_post_encode(e, m, is_prompted, &out));
    } else {
        samrt_ops_begin(&t->enc.ctx, SAMRT_EXEC_RUN, &e->arena);
        enc_forward(m, &t->enc.ctx, &out);
        SAMRT_TRY(samrt_ops_end(&t->enc.ctx));
    }
    const size_t pb = sizeof(float) * SAMRT_SAM2_DIM, mb = (size_t)t->mem_bank.s[1] * 2;
    for (int k = 0; k < t->n_obj; k++) {
        struct samrt_sam2_track_obj *o = &t->obj[k];
        if (!is_prompted[k] && o->first_frame < 0) continue;
        int ms, ps;
        if (is_prompted[k]) {
            samrt_track_bank_add_cond(&o->bank, f, &ms, &ps);
            SAMRT_TRY(samrt_ops_memcpy(ch, (char *)t->mem_bank.data + ((size_t)ms * t->k_max + k) * mb,
                               (const char *)out.data + (size_t)k * mb, mb));
        } else {
            samrt_track_bank_add_tracked(&o->bank, f, &ms, &ps);
        }
        SAMRT_TRY(samrt_ops_memcpy(ch, (char *)t->ptr_bank.data + ((size_t)ps * t->k_max + k) * pb,
                           (const char *)t->cur_ptr.data + k * pb, pb));
    }
#ifdef SAMRT_HAVE_CUDA
    if (ch->backend == SAMRT_BACKEND_CUDA) SAMRT_CUDA_TRY(cudaStreamSynchronize(NULL));
#endif
    SAMRT_TRY(samrt_sam2_fetch(ch, t->low_host, samrt_sam2_track_post_low(t)->data, samrt_tensor_nbytes(&t->cur_low)));
    return samrt_sam2_fetch(ch, t->score_host, t->cur_score.data, sizeof(float) * (size_t)t->k_max);
}
