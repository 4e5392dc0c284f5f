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
 * the memory encoder run batched over the K object slots.
 *
 * One frame = one CUDA graph. Everything that changes from frame to frame without changing a
 * launch is DATA in one staging table (`tab`), written on the host and uploaded once before
 * the frame: per object the memory attention's tpos rows and pointer positions
 * (samrt_sam2_memattn_fill_frame) and the (destination, source) row pairs of its memory and
 * pointer gathers; for the frame the ring slot its memories go to and the conditioning /
 * pointer slots of every object. Inside the frame, device copies move an object's rows into
 * the memory attention's staging slots and table-driven kernels (track_rows.h) gather the
 * selected bank slots into fixed staging tensors (mem_sel, ptr_sel) and scatter the frame's
 * memories (mem_new) and pointers into the bank. So the sequence resize -> image encoder ->
 * per tracked object (rows, gathers, memory attention) -> heads -> memory encoder ->
 * scatters has fixed addresses and launches for a given key (struct samrt_sam2_track_key:
 * frame size, whether the frame is encoded here, each object's role and counts) and is
 * captured once per key, as segment.c does: a key's first frame runs eagerly (module loading
 * and library warm-up stay outside any capture), its second frame captures, later frames
 * replay. SAMRT_TRACK_GRAPHS keys are cached (the oldest is replaced); with one conditioning
 * frame a video meets 16 counts in its first 16 frames, each once (eager), then stays on
 * (7, 16): that key is captured on its second frame and replayed for the rest of the video.
 * Graphs are instantiated lazily, not at setup: the keys are the combinations of every
 * object's counts, too many to instantiate ahead. Instantiation allocates driver memory
 * outside the arena (at most SAMRT_TRACK_GRAPHS live graphs; docs/tracking.md).
 *
 * Stage times: marks on the engine's stage clock (stage_clock.h) between the stages: CUDA
 * events, inside the graph as event record nodes, so a replayed frame is timed without
 * splitting its graph; host clocks at the same points on the CPU backend.
 * Tests: tests/test_sam2_track.c (CPU), tests/test_sam2_track_graph_cuda.c (graph = eager). */
#include "tracker_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "engine_impl.h"
#include "graph_cache.h"
#include "perceiver.h"
#include "platform.h"
#include "sam2.h"
#include "stage_clock.h"
#include "staging.h"
#include "ops_runtime.h"


/* ROLE_MASK: prompted with a mask on this frame (track_mask.c; a conditioning frame like
 * ROLE_PROMPTED, but its rows come from the mask path, not the segmentation pass). */
enum { ROLE_IDLE = 0, ROLE_PROMPTED, ROLE_TRACKED, ROLE_MASK };
static int is_cond(int role) { return role == ROLE_PROMPTED || role == ROLE_MASK; }

/* A view of rows [row0, row0 + n) of dim 0 of a contiguous tensor t, as (n, rest...). */
static struct samrt_tensor rows(const struct samrt_tensor *t, int64_t row0, int64_t n) {
    struct samrt_tensor v = *t;
    v.ne[0] = n;
    if (v.data) v.data = (char *)v.data + (size_t)row0 * (size_t)t->s[0] * samrt_dtype_size(t->dtype);
    return v;
}

/* Bytes of one object's memory in the bank (g*g tokens of 64 bf16 channels). */
static size_t mem_bytes(const struct samrt_sam2_tracker *t) {
    return (size_t)t->mem_bank.s[1] * samrt_dtype_size(t->mem_bank.dtype);
}

#define PTR_BYTES (sizeof(float) * SAMRT_SAM2_DIM)

/* ---- the frame table ------------------------------------------------------------------------
 * Per object k, at k * tab_obj_bytes: [tpos rows | pointer positions] (tab_ma_bytes, as the
 * memory attention's slots tpos and ptr_p), then int32 pairs: MAX_SEL_MEM memory gathers,
 * MAX_SEL_PTR pointer gathers. Shared, at tab_shared: the ring pair (4 int32), K conditioning
 * pairs, K pointer pairs, and K memory pairs under a policy with per-object slots. base is the
 * host image or the device slot. */

static int32_t *mem_pairs(void *base, const struct samrt_sam2_tracker *t, int k) {
    return (int32_t *)(void *)((uint8_t *)base + (size_t)k * t->tab_obj_bytes + t->tab_ma_bytes);
}
static int32_t *ptr_pairs(void *base, const struct samrt_sam2_tracker *t, int k) {
    return mem_pairs(base, t, k) + 2 * SAMRT_TRACK_MAX_SEL_MEM;
}
static int32_t *ring_pair(void *base, const struct samrt_sam2_tracker *t) {
    return (int32_t *)(void *)((uint8_t *)base + t->tab_shared);
}
static int32_t *cond_pairs(void *base, const struct samrt_sam2_tracker *t) { return ring_pair(base, t) + 4; }
static int32_t *scatter_pairs(void *base, const struct samrt_sam2_tracker *t) {
    return cond_pairs(base, t) + 2 * t->k_max;
}
/* Policies with per-object memory slots (track_policy.h): K (bank row, mem_new row) pairs. */
static int32_t *own_pairs(void *base, const struct samrt_sam2_tracker *t) { return scatter_pairs(base, t) + 2 * t->k_max; }

static void table_layout(struct samrt_sam2_tracker *t) {
    const struct samrt_sam2_memattn *ma = &t->memattn;
    t->tab_ma_bytes = SAMRT_PAD(samrt_tensor_nbytes(&ma->tpos) + samrt_tensor_nbytes(&ma->ptr_p), 16);
    const size_t pairs = sizeof(int32_t) * 2 * (SAMRT_TRACK_MAX_SEL_MEM + SAMRT_TRACK_MAX_SEL_PTR);
    t->tab_obj_bytes = t->tab_ma_bytes + SAMRT_PAD(pairs, 16);
    t->tab_shared = (size_t)t->k_max * t->tab_obj_bytes;
}

/* ---- the passes ------------------------------------------------------------------------------ */

static void ma_forward(struct samrt_sam2 *m, struct samrt_op_ctx *c, int n_mem, int n_ptr, int k) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_tensor mem[SAMRT_TRACK_MAX_SEL_MEM];
    const struct samrt_tensor *mp[SAMRT_TRACK_MAX_SEL_MEM];
    for (int j = 0; j < n_mem; j++) {
        mem[j] = rows(&t->mem_sel, j, 1);
        mp[j] = &mem[j];
    }
    struct samrt_tensor ptr = t->ptr_sel;
    ptr.ne[1] = n_ptr;
    struct samrt_tensor out =
        samrt_sam2_memattn_forward(&t->memattn, c, &m->enc.vision, &m->enc.vision_pos, n_mem, mp, n_ptr, &ptr);
    const struct samrt_tensor dst = rows(&t->pix, k, 1);
    samrt_op_copy_into(c, &out, NULL, &dst);
}

static void heads_forward(struct samrt_sam2 *m, struct samrt_op_ctx *c) {
    samrt_sam2_heads_forward(&m->seg.heads, c, &m->trk.pix, &m->enc.feat_s0, &m->enc.feat_s1);
}

static void memenc_forward(struct samrt_sam2 *m, struct samrt_op_ctx *c) {
    struct samrt_sam2_tracker *t = &m->trk;
    if (t->perceiver)
        samrt_sam2_memenc_forward_perceiver(t->perceiver, &t->memenc, c, &m->enc.vision, &t->cur_low, 0,
                                            &t->mem_new);
    else
        samrt_sam2_memenc_forward(&t->memenc, c, &m->enc.vision, &t->cur_low, &t->cur_score, 0, &t->mem_new);
}

enum samrt_status samrt_sam2_tracker_plan_passes(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_tracker *t = &m->trk;
    const int K = t->k_max, side = e->params.imgsz;
    const int64_t n = (int64_t)t->grid * t->grid, L = 4 * (int64_t)t->grid;
    struct samrt_op_ctx *c0 = &m->seg.ctx;
    SAMRT_TRY(samrt_ctx_persistent(c0, "track.pix", SAMRT_REGION_STAGING, e->precision, 3,
                                   SAMRT_SHAPE(K, n, SAMRT_SAM2_DIM), &t->pix, &t->slot_pix));
    SAMRT_TRY(samrt_ctx_persistent(c0, "track.ptr_sel", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 3,
                                   SAMRT_SHAPE(1, SAMRT_TRACK_MAX_SEL_PTR, SAMRT_SAM2_DIM), &t->ptr_sel,
                                   &t->slot_ptr_sel));
    SAMRT_TRY(samrt_ctx_persistent(c0, "track.mem_sel", SAMRT_REGION_STAGING, SAMRT_DTYPE_BF16, 3,
                                   SAMRT_SHAPE(SAMRT_TRACK_MAX_SEL_MEM, t->mem_bank.ne[2], t->mem_bank.ne[3]), &t->mem_sel,
                                   &t->slot_mem_sel));
    SAMRT_TRY(samrt_ctx_persistent(c0, "track.mem_new", SAMRT_REGION_STAGING, SAMRT_DTYPE_BF16, 3,
                                   SAMRT_SHAPE(K, t->mem_bank.ne[2], t->mem_bank.ne[3]), &t->mem_new, &t->slot_mem_new));
    SAMRT_TRY(samrt_ctx_persistent(c0, "track.cur_low", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 4, SAMRT_SHAPE(K, 1, L, L),
                                   &t->cur_low, &t->slot_cur_low));
    SAMRT_TRY(samrt_ctx_persistent(c0, "track.cur_score", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 2, SAMRT_SHAPE(K, 1),
                                   &t->cur_score, &t->slot_cur_score));
    SAMRT_TRY(samrt_ctx_persistent(c0, "track.cur_ptr", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 2,
                                   SAMRT_SHAPE(K, SAMRT_SAM2_DIM), &t->cur_ptr, &t->slot_cur_ptr));
    SAMRT_TRY(samrt_health_plan(c0, "track.health", &t->health));

    const struct samrt_sam2_memenc_config mec = {side, K, e->precision};
    SAMRT_TRY(samrt_sam2_memenc_bind(&t->memenc, &mec, samrt_engine_env(e)));
    SAMRT_TRY(samrt_sam2_memenc_plan(&t->memenc, c0));
    struct samrt_sam2_memattn_config mac =
        samrt_sam2_memattn_config_edgetam(side, 1, SAMRT_TRACK_MAX_SEL_MEM, SAMRT_TRACK_MAX_SEL_PTR,
                                          e->precision);
    if (!t->edgetam) mac.n_layers = mac.mem_latents = mac.mem_grid = mac.no_ptr_tpos = 0;  /* SAM 2.1 */
    const struct samrt_sam2_config *mcfg = samrt_sam2_config_get(e->model);
    if (mcfg->no_ptr_tpos) mac.no_ptr_tpos = 1;  /* EfficientTAM: no pointer tpos (config.h) */
    mac.kv_pool = (int)mcfg->kv_pool;            /* EfficientTAM /1, /2: pooled memory keys and values */
    SAMRT_TRY(samrt_sam2_memattn_bind(&t->memattn, &mac, samrt_engine_env(e)));
    SAMRT_TRY(samrt_sam2_memattn_plan(&t->memattn, c0));
    if (t->edgetam) {
        t->perceiver = calloc(1, sizeof *t->perceiver);
        SAMRT_CHECK(t->perceiver != NULL, SAMRT_E_HOST_MEMORY, "track: out of host memory");
        const struct samrt_edgetam_perceiver_config pcfg = {side, K, e->precision};
        SAMRT_TRY(samrt_edgetam_perceiver_bind(t->perceiver, &pcfg, samrt_engine_env(e)));
        SAMRT_TRY(samrt_edgetam_perceiver_plan(t->perceiver, c0));
    }
    table_layout(t);
    SAMRT_TRY(samrt_ctx_persistent(c0, "track.table", SAMRT_REGION_STAGING, SAMRT_DTYPE_U8, 1,
                                   SAMRT_SHAPE((int64_t)(t->tab_shared + sizeof(int32_t) * (4 + 4 * (size_t)K) +
                                                         (samrt_sam2_track_policy_own_slots(&t->policy)
                                                              ? sizeof(int32_t) * 2 * (size_t)K : 0))), &t->tab,
                                   &t->slot_tab));

    t->ma = calloc(SAMRT_TRACK_N_MA_PASSES, sizeof *t->ma);
    SAMRT_CHECK(t->ma != NULL, SAMRT_E_HOST_MEMORY, "track: out of host memory");
    for (int s = 1; s <= SAMRT_TRACK_MAX_SEL_MEM; s++) {
        for (int p = s; p <= SAMRT_TRACK_MAX_SEL_PTR; p++) {
            struct samrt_sam2_track_pass *ps = &t->ma[samrt_track_ma_index(s, p)];
            SAMRT_TRY(samrt_sam2_ctx_init(e, &ps->ctx, &ps->ex));
            samrt_ctx_begin(&ps->ctx, SAMRT_EXEC_PLAN, NULL);
            ma_forward(m, &ps->ctx, s, p, 0);
            SAMRT_TRY(samrt_ctx_end(&ps->ctx));
            ps->planned = 1;
        }
    }
    SAMRT_TRY(samrt_sam2_ctx_init(e, &t->heads.ctx, &t->heads.ex));
    samrt_ctx_begin(&t->heads.ctx, SAMRT_EXEC_PLAN, NULL);
    heads_forward(m, &t->heads.ctx);
    SAMRT_TRY(samrt_ctx_end(&t->heads.ctx));
    t->heads.planned = 1;
    SAMRT_TRY(samrt_sam2_ctx_init(e, &t->memenc_pass.ctx, &t->memenc_pass.ex));
    samrt_ctx_begin(&t->memenc_pass.ctx, SAMRT_EXEC_PLAN, NULL);
    memenc_forward(m, &t->memenc_pass.ctx);
    SAMRT_TRY(samrt_ctx_end(&t->memenc_pass.ctx));
    t->memenc_pass.planned = 1;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_tracker_prepare_passes(struct samrt_engine *e, struct samrt_sam2 *m,
                                                    const struct samrt_ckpt *ck) {
    struct samrt_sam2_tracker *t = &m->trk;
    const struct samrt_arena *a = &e->arena;
    t->pix.data = samrt_arena_ptr(a, t->slot_pix);
    t->ptr_sel.data = samrt_arena_ptr(a, t->slot_ptr_sel);
    t->mem_sel.data = samrt_arena_ptr(a, t->slot_mem_sel);
    t->mem_new.data = samrt_arena_ptr(a, t->slot_mem_new);
    t->tab.data = samrt_arena_ptr(a, t->slot_tab);
    t->cur_low.data = samrt_arena_ptr(a, t->slot_cur_low);
    t->cur_score.data = samrt_arena_ptr(a, t->slot_cur_score);
    t->cur_ptr.data = samrt_arena_ptr(a, t->slot_cur_ptr);
    samrt_health_prepare(&t->health, a);
    SAMRT_TRY(samrt_sam2_memenc_prepare(&t->memenc, samrt_engine_env(e)));
    SAMRT_TRY(samrt_sam2_memattn_prepare(&t->memattn, samrt_engine_env(e), ck));
    if (t->perceiver) SAMRT_TRY(samrt_edgetam_perceiver_prepare(t->perceiver, samrt_engine_env(e), ck));
    for (int i = 0; i < SAMRT_TRACK_N_MA_PASSES; i++)
        if (t->ma[i].planned) samrt_sam2_ctx_workspace(e, &t->ma[i].ctx);
    samrt_sam2_ctx_workspace(e, &t->heads.ctx);
    samrt_sam2_ctx_workspace(e, &t->memenc_pass.ctx);
    SAMRT_TRY(samrt_graph_cache_init(&t->graphs, "track", SAMRT_TRACK_GRAPHS, sizeof t->key));
    /* unused object rows of pix must hold finite values: the batched heads read them */
    void *zero = calloc(1, samrt_tensor_nbytes(&t->pix));
    const size_t n_low = (size_t)samrt_tensor_nelements(&t->cur_low);
    t->low_host = malloc(sizeof(float) * n_low);
    t->score_host = malloc(sizeof(float) * (size_t)t->k_max);
    t->stats_host = malloc(sizeof *t->stats_host * (size_t)t->k_max);
    /* the table's host image, then scratch for one object's memory attention rows */
    t->tab_host = calloc(1, samrt_tensor_nbytes(&t->tab) + samrt_sam2_memattn_frame_bytes(&t->memattn));
    SAMRT_CHECK(zero && t->low_host && t->score_host && t->stats_host && t->tab_host, SAMRT_E_HOST_MEMORY,
                "track: out of host memory");
    enum samrt_status st = samrt_platform_mem_upload(e->mem_kind, t->pix.data, zero, samrt_tensor_nbytes(&t->pix));
    free(zero);
    return st;
}

void samrt_sam2_tracker_free_passes(struct samrt_sam2_tracker *t) {
    samrt_graph_cache_free(&t->graphs);
    if (t->ma) {
        for (int i = 0; i < SAMRT_TRACK_N_MA_PASSES; i++)
            if (t->ma[i].planned) samrt_ctx_free(&t->ma[i].ctx);
        free(t->ma);
        t->ma = NULL;
    }
    if (t->heads.planned) samrt_ctx_free(&t->heads.ctx);
    if (t->memenc_pass.planned) samrt_ctx_free(&t->memenc_pass.ctx);
    t->heads.planned = t->memenc_pass.planned = 0;
    samrt_sam2_memattn_free(&t->memattn);
    free(t->perceiver);
    t->perceiver = NULL;
    free(t->low_host);
    free(t->score_host);
    free(t->stats_host);
    free(t->tab_host);
    t->low_host = t->score_host = NULL;
    t->stats_host = NULL;
    t->tab_host = NULL;
}

/* ---- the host side of a frame: key and table -------------------------------------------------- */

/* The frame's key and table from the banks, then the banks' bookkeeping of this frame (the
 * selection reads the banks as they were before the frame, as the official loop). */
static enum samrt_status build_frame(struct samrt_sam2 *m, const int *prompted, int n_prompted,
                                     const struct samrt_image *img) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_sam2_track_key *key = &t->key;
    const int K = t->k_max, f = t->frame;
    memset(key, 0, sizeof *key);
    key->encode = img != NULL;
    key->width = img ? img->width : 0;
    key->height = img ? img->height : 0;
    key->n_obj = t->n_obj;
    key->dynamic = t->opt.postproc == SAMRT_POSTPROC_NOTEBOOK;
    key->fill = samrt_sam2_track_post_on(t) ? 1 + samrt_sam2_track_fill_area(&t->opt) : 0;
    for (int i = 0; i < n_prompted; i++) key->role[prompted[i]] = ROLE_PROMPTED;
    for (int k = 0; k < t->n_obj; k++)
        if (samrt_sam2_track_mask_pending(m, k)) key->role[k] = ROLE_MASK;
    uint8_t *tab = t->tab_host, *ma_rows = tab + samrt_tensor_nbytes(&t->tab);
    const size_t b_tpos = samrt_tensor_nbytes(&t->memattn.tpos);
    for (int k = 0; k < t->n_obj; k++) {
        if (is_cond(key->role[k]) || t->obj[k].first_frame < 0) continue;
        key->role[k] = ROLE_TRACKED;
        struct samrt_track_selection sel;
        samrt_sam2_track_policy_select(&t->policy, &t->obj[k].bank, &t->obj[k].pol, f, t->opt.num_frames, &sel);
        /* (dam4sam attends to fewer pointers than memories while the object stays hidden) */
        const int few_ptrs = sel.n_ptr < sel.n_mem && t->policy.kind != SAMRT_MEMORY_DAM4SAM;
        if (sel.n_mem < 1 || few_ptrs || sel.n_mem > SAMRT_TRACK_MAX_SEL_MEM ||
            sel.n_ptr > SAMRT_TRACK_MAX_SEL_PTR)
            return SAMRT_E_BAD_STATE;  /* the bank never selects these (track_bank.h) */
        key->n_mem[k] = (uint8_t)sel.n_mem;
        key->n_ptr[k] = (uint8_t)sel.n_ptr;
        int32_t *mp = mem_pairs(tab, t, k), *pp = ptr_pairs(tab, t, k);
        for (int j = 0; j < sel.n_mem; j++) mp[2 * j] = j, mp[2 * j + 1] = sel.mem_slot[j] * K + k;
        for (int i = 0; i < sel.n_ptr; i++) pp[2 * i] = i, pp[2 * i + 1] = sel.ptr_slot[i] * K + k;
        SAMRT_TRY(samrt_sam2_memattn_fill_frame(&t->memattn, sel.n_mem, sel.mem_tpos, sel.n_ptr, sel.ptr_dist,
                                                sel.max_ptr, ma_rows));
        /* the tpos rows and the pointer positions */
        uint8_t *dst = tab + (size_t)k * t->tab_obj_bytes;
        memcpy(dst, ma_rows, b_tpos);
        memcpy(dst + b_tpos, ma_rows + b_tpos, samrt_tensor_nbytes(&t->memattn.ptr_p));
    }
    /* every object slot's memory goes to ring slot f % 6 (it held frame f - 6, which nothing
     * selects any more); pointers to ring slot f % 16 or the conditioning slots */
    int32_t *ring = ring_pair(tab, t), *cp = cond_pairs(tab, t), *sp = scatter_pairs(tab, t);
    ring[0] = f % SAMRT_TRACK_RING, ring[1] = 0;
    int n_cond = 0, n_started = 0, n_own = 0;
    for (int k = 0; k < t->n_obj; k++) {
        int ms, ps;
        if (key->role[k] == ROLE_IDLE) continue;
        if (is_cond(key->role[k])) {
            samrt_track_bank_add_cond(&t->obj[k].bank, f, &ms, &ps);
            cp[2 * n_cond] = ms * K + k, cp[2 * n_cond + 1] = k;
            n_cond++;
        } else {
            samrt_sam2_track_policy_add_tracked(&t->policy, &t->obj[k].bank, &t->obj[k].pol, f, &ms, &ps);
            int32_t *op = own_pairs(tab, t);
            if (samrt_sam2_track_policy_own_slots(&t->policy)) op[2 * n_own] = ms * K + k, op[2 * n_own + 1] = k, n_own++;
        }
        sp[2 * n_started] = ps * K + k, sp[2 * n_started + 1] = k;
        n_started++;
    }
    return SAMRT_OK;
}

/* ---- the device side of a frame ---------------------------------------------------------------- */

/* Stage mark i of the frame on the engine's clock (stage_clock.h). */
static enum samrt_status mark(struct samrt_sam2 *m, int i, samrt_stream *stream) {
    return samrt_stage_clock_mark(&m->clock, i, stream);
}

/* The table-driven row copies (track_rows.h) on the engine's backend. */
static enum samrt_status copy_rows(const struct samrt_engine *e, samrt_stream *s, void *dst, int64_t n_dst,
                                   const void *src, int64_t n_src, size_t row_bytes, const int32_t *pairs, int n) {
    const struct samrt_track_rows_args a = {dst, src, row_bytes, n_dst, n_src, pairs, n};
    return samrt_op_track_rows(samrt_engine_on_device(e), &a, s);
}

/* Row b of the heads' results -> row k of the frame's cur_* tensors. */
static enum samrt_status take_heads_row(struct samrt_sam2 *m, const struct samrt_op_ctx *c, int b, int k) {
    struct samrt_sam2_tracker *t = &m->trk;
    const struct samrt_sam2_heads *h = &m->seg.heads;
    const size_t low_bytes = sizeof(float) * (size_t)h->low * (size_t)h->low;
    SAMRT_TRY(samrt_ctx_memcpy(c, (char *)t->cur_low.data + k * low_bytes, (const char *)h->low_res.data + b * low_bytes,
                               low_bytes));
    SAMRT_TRY(samrt_ctx_memcpy(c, (float *)t->cur_score.data + k, (const float *)h->score.data + b, sizeof(float)));
    return samrt_ctx_memcpy(c, (char *)t->cur_ptr.data + k * PTR_BYTES, (const char *)h->obj_ptr.data + b * PTR_BYTES,
                            PTR_BYTES);
}

/* Memory attention of tracked object k, into pix row k: its table rows into the memory
 * attention's slots, its selected memories and pointers gathered, the (S, P) pass. */
static enum samrt_status attend(struct samrt_engine *e, struct samrt_sam2 *m, int k, samrt_stream *stream) {
    struct samrt_sam2_tracker *t = &m->trk;
    const int S = t->key.n_mem[k], P = t->key.n_ptr[k], K = t->k_max;
    struct samrt_op_ctx *c = &t->ma[samrt_track_ma_index(S, P)].ctx;
    samrt_backend_set_stream(c, stream);
    const uint8_t *rows_dev = (const uint8_t *)t->tab.data + (size_t)k * t->tab_obj_bytes;
    const size_t b_tpos = samrt_tensor_nbytes(&t->memattn.tpos);
    SAMRT_TRY(samrt_ctx_memcpy(c, t->memattn.tpos.data, rows_dev, b_tpos));
    SAMRT_TRY(samrt_ctx_memcpy(c, t->memattn.ptr_p.data, rows_dev + b_tpos, samrt_tensor_nbytes(&t->memattn.ptr_p)));
    SAMRT_TRY(copy_rows(e, stream, t->mem_sel.data, SAMRT_TRACK_MAX_SEL_MEM, t->mem_bank.data,
                        (int64_t)SAMRT_TRACK_MEM_SLOTS * K, mem_bytes(t), mem_pairs(t->tab.data, t, k), S));
    SAMRT_TRY(copy_rows(e, stream, t->ptr_sel.data, SAMRT_TRACK_MAX_SEL_PTR, t->ptr_bank.data,
                        (int64_t)SAMRT_TRACK_PTR_SLOTS * K, PTR_BYTES, ptr_pairs(t->tab.data, t, k), P));
    samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
    ma_forward(m, c, S, P, k);
    return samrt_ctx_end(c);
}

/* The memory policy's kernels (track_policy.h) on the heads' rows of one role, right after
 * those heads ran (the next heads pass overwrites their candidates). */
static enum samrt_status policy_rows(struct samrt_engine *e, struct samrt_sam2 *m, int role, samrt_stream *stream) {
    const struct samrt_sam2_track_key *key = &m->trk.key;
    uint8_t codes[SAMRT_MAX_OBJECTS] = {0};
    for (int k = 0; k < key->n_obj; k++) codes[k] = key->role[k] == role ? key->policy[k] : SAMRT_POLICY_SKIP;
    return samrt_sam2_track_policy_enqueue(e, m, codes, key->n_obj, stream);
}

/* Everything between the uploads and the download, on `stream` (NULL on the CPU backend):
 * the part a graph captures. Allocates nothing, syncs nothing, reads no host memory. */
static enum samrt_status enqueue_frame(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_resize_plan *rp,
                                       samrt_stream *stream) {
    struct samrt_sam2_tracker *t = &m->trk;
    const struct samrt_sam2_track_key *key = &t->key;
    struct samrt_op_ctx *ch = &t->heads.ctx;
    const int K = t->k_max;
    samrt_backend_set_stream(ch, stream);
    samrt_backend_set_stream(&t->memenc_pass.ctx, stream);
    if (key->encode) {
        if (rp) {  /* device engines: the staged frame's resize (host engines preprocessed it) */
            SAMRT_TRY(samrt_staging_resize(&m->stage, rp, &m->enc.input, stream));
            SAMRT_TRY(mark(m, SAMRT_STAGE_MK_PRE, stream));
        }
        SAMRT_TRY(samrt_sam2_encode_image(e, stream));
        SAMRT_TRY(mark(m, SAMRT_STAGE_MK_ENC, stream));
    }
    int n_prompted = 0, n_tracked = 0, n_points = 0, n_mask = 0;
    int is_prompted[SAMRT_MAX_OBJECTS] = {0};
    for (int k = 0; k < key->n_obj; k++) {
        n_points += key->role[k] == ROLE_PROMPTED;
        n_mask += key->role[k] == ROLE_MASK;
        n_prompted += is_prompted[k] = is_cond(key->role[k]);
    }
    /* mask prompts (track_mask.c: host rows uploaded, so such a frame is never captured) */
    if (n_mask) SAMRT_TRY(samrt_sam2_track_mask_step(e, m, is_prompted));
    for (int k = 0; k < key->n_obj; k++) {
        if (key->role[k] != ROLE_TRACKED) continue;
        SAMRT_TRY(attend(e, m, k, stream));
        n_tracked++;
    }
    if (n_tracked > 0) SAMRT_TRY(mark(m, SAMRT_STAGE_MK_MA, stream));
    if (n_points > 0) {  /* the segmentation heads on vision + no_mem_embed, rows = object slots */
        SAMRT_TRY(samrt_sam2_segment_heads(e, m, stream));
        for (int k = 0; k < key->n_obj; k++)
            if (key->role[k] == ROLE_PROMPTED) SAMRT_TRY(take_heads_row(m, &m->seg.ctx, k, k));
        SAMRT_TRY(policy_rows(e, m, ROLE_PROMPTED, stream));
    }
    if (n_tracked > 0) {  /* the heads on the memory-conditioned features, no prompt */
        samrt_ctx_begin(ch, SAMRT_EXEC_RUN, &e->arena);
        heads_forward(m, ch);
        SAMRT_TRY(samrt_ctx_end(ch));
        for (int k = 0; k < key->n_obj; k++)
            if (key->role[k] == ROLE_TRACKED) SAMRT_TRY(take_heads_row(m, ch, k, k));
        SAMRT_TRY(policy_rows(e, m, ROLE_TRACKED, stream));
    }
    if (n_points + n_tracked > 0) SAMRT_TRY(mark(m, SAMRT_STAGE_MK_HEADS, stream));
    if (samrt_sam2_track_post_on(t)) {  /* notebook: hole filling, binarised prompted memories */
        SAMRT_TRY(samrt_sam2_track_post_encode(e, m, is_prompted, &t->mem_new));
    } else {
        samrt_ctx_begin(&t->memenc_pass.ctx, SAMRT_EXEC_RUN, &e->arena);
        memenc_forward(m, &t->memenc_pass.ctx);
        SAMRT_TRY(samrt_ctx_end(&t->memenc_pass.ctx));
    }
    const size_t mb = mem_bytes(t);
    if (samrt_sam2_track_policy_own_slots(&t->policy))  /* each tracked object's own slot */
        SAMRT_TRY(copy_rows(e, stream, t->mem_bank.data, (int64_t)SAMRT_TRACK_MEM_SLOTS * K, t->mem_new.data, K, mb,
                            own_pairs(t->tab.data, t), n_tracked));
    else  /* every object's memory of the frame into ring slot f % 6 */
        SAMRT_TRY(copy_rows(e, stream, t->mem_bank.data, SAMRT_TRACK_MEM_SLOTS, t->mem_new.data, 1, (size_t)K * mb,
                            ring_pair(t->tab.data, t), 1));
    SAMRT_TRY(copy_rows(e, stream, t->mem_bank.data, (int64_t)SAMRT_TRACK_MEM_SLOTS * K, t->mem_new.data, K, mb,
                        cond_pairs(t->tab.data, t), n_prompted));
    SAMRT_TRY(copy_rows(e, stream, t->ptr_bank.data, (int64_t)SAMRT_TRACK_PTR_SLOTS * K, t->cur_ptr.data, K, PTR_BYTES,
                        scatter_pairs(t->tab.data, t), n_prompted + n_tracked));
    /* the frame's results must be finite (health.h): the objects' rows only, and the image
     * embedding when this frame encoded it */
    const struct samrt_health_seg segs[] = {
        {"image embedding", &m->enc.vision, -1},
        {"mask logits", &t->cur_low, key->n_obj},
        {"memories", &t->mem_new, key->n_obj},
        {"object pointers", &t->cur_ptr, key->n_obj},
    };
    const int first = key->encode ? 0 : 1, end = key->n_obj > 0 ? 4 : 1;
    if (end > first) SAMRT_TRY(samrt_health_enqueue(e, &t->health, segs + first, end - first, stream));
    return mark(m, SAMRT_STAGE_MK_MEMENC, stream);
}

/* The frame's verdict after its work is done (health.h). */
static enum samrt_status frame_verdict(const struct samrt_engine *e, const struct samrt_sam2_tracker *t) {
    if (t->health.host == 0) return SAMRT_OK;  /* every frame: nothing to format */
    char what[48];
    snprintf(what, sizeof what, "track: frame %d", t->frame);
    return samrt_health_verdict(e, &t->health, what);
}

/* The graph path (graph_cache.h, segment.c's rule): a key's first frame runs eagerly, its
 * second captures the graph and launches it, later frames replay it. The marks a graph
 * records (its event record nodes) are the entry's tag: a replay records them again. */
struct graph_call {
    struct samrt_engine *e;
    struct samrt_sam2 *m;
    const struct samrt_resize_plan *rp;
    samrt_stream *stream;
};

static enum samrt_status enqueue_call(void *user, int capturing) {
    const struct graph_call *g = user;
    struct samrt_stage_clock *k = &g->m->clock;
    k->capturing = capturing;
    const enum samrt_status st = enqueue_frame(g->e, g->m, g->rp, g->stream);
    k->capturing = 0;
    return st;
}

static enum samrt_status run_graph(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_resize_plan *rp,
                                   samrt_stream *stream) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct graph_call call = {e, m, rp, stream};
    const unsigned before = m->clock.marks;
    int slot;
    enum samrt_graph_how how;
    SAMRT_TRY(samrt_graph_cache_run(&t->graphs, &t->key, stream, enqueue_call, &call, &slot, &how));
    t->last_graph = how == SAMRT_GRAPH_EAGER ? -1 : slot;
    if (how == SAMRT_GRAPH_REPLAYED) m->clock.marks |= t->graphs.tag[slot];
    if (how == SAMRT_GRAPH_CAPTURED) t->graphs.tag[slot] = m->clock.marks & ~before;
    return SAMRT_OK;
}

/* The heads' token slot, before the frame (an upload): object row k gets its point / box prompt
 * when it is prompted on this frame (the segmentation heads read those rows), the no-prompt
 * tokens otherwise (the tracked objects' heads read those). The rows' token counts and mask
 * modes are launch parameters, so they join the frame's key. */
static enum samrt_status set_prompts(struct samrt_sam2 *m, struct samrt_op_ctx *c) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_sam2_track_key *key = &t->key;
    int n_heads = 0;
    for (int k = 0; k < key->n_obj; k++) n_heads += key->role[k] == ROLE_TRACKED || key->role[k] == ROLE_PROMPTED;
    if (n_heads == 0) return SAMRT_OK;
    struct samrt_sam2_points pts[SAMRT_MAX_OBJECTS];
    for (int k = 0; k < t->k_max; k++) {
        if (k < key->n_obj && key->role[k] == ROLE_PROMPTED) pts[k] = t->obj[k].pts;
        else samrt_sam2_points_none(&pts[k]);
    }
    struct samrt_sam2_heads *h = &m->seg.heads;
    SAMRT_TRY(samrt_sam2_heads_set_prompts(h, c, pts, t->k_max, key->dynamic));
    for (int k = 0; k < key->n_obj; k++) {
        key->n_sparse[k] = h->n_sparse[k];
        key->mode[k] = h->mode[k];
        /* the memory policy decides where the heads chose among three candidates */
        const int multi = key->role[k] == ROLE_TRACKED ||
                          (key->role[k] == ROLE_PROMPTED && h->mode[k] == SAMRT_SAM2_MODE_MULTI);
        key->policy[k] =
            samrt_sam2_track_policy_code(&t->policy, &t->obj[k].pol, multi, key->role[k] == ROLE_TRACKED);
    }
    return SAMRT_OK;
}

/* The frame's masks on the device: every started object's low-res logits (hole-filled when
 * the profile fills) -> frame-size u8 masks and area / box, under the non-overlap rule when
 * it is on (obj_idx order decides ties, as tracker.c's host path), in one kernel. They land in
 * the staging output block (staging.h: planned for max_objects masks of the largest accepted
 * frame; the engine's stream orders its users), so the plan does not change. Then both
 * downloads, in stream order. */
static enum samrt_status decode_frame(struct samrt_sam2 *m, samrt_stream *s) {
    struct samrt_sam2_tracker *t = &m->trk;
    const struct samrt_staging *sg = &m->stage;
    const int n = t->n_obj, L = m->seg.heads.low;
    const size_t px = (size_t)t->width * (size_t)t->height;
    SAMRT_CHECK(samrt_staging_out_fits(sg, n, px), SAMRT_E_UNSUPPORTED,
                "track: %d masks of %dx%d do not fit the output block", n, t->width, t->height);
    const struct samrt_mask_decode_desc d = {n, L, L, t->height, t->width, SAMRT_DTYPE_F32};
    struct samrt_mask_stats *stats = samrt_staging_stats(sg);
    uint8_t *masks = samrt_staging_masks(sg);
    const void *low = samrt_sam2_track_post_low(t)->data;
    SAMRT_TRY(t->opt.non_overlap && n > 1 ? samrt_op_mask_decode_non_overlap(&d, low, masks, stats, s)
                                          : samrt_op_mask_decode(&d, low, masks, stats, NULL, s));
    SAMRT_TRY(mark(m, SAMRT_STAGE_MK_POST, s));
    SAMRT_TRY(samrt_stream_copy(t->masks_host, masks, (size_t)n * px, SAMRT_COPY_D2H, s));
    return samrt_stream_copy(t->stats_host, stats, sizeof *stats * (size_t)n, SAMRT_COPY_D2H, s);
}

enum samrt_status samrt_sam2_tracker_step(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_image *img,
                                          int img_on_device, const int *prompted, int n_prompted) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_op_ctx *ch = &t->heads.ctx;
    samrt_stream *stream = samrt_backend_stream(e);  /* NULL on host engines */
    samrt_backend_set_stream(ch, stream);
    samrt_stage_clock_reset(&m->clock);
    t->dev_decoded = 0;
    t->last_graph = -1;
    SAMRT_TRY(build_frame(m, prompted, n_prompted, img));
    const struct samrt_image_nv12 *nv12 = img ? e->frame_nv12 : NULL;  /* NV12: the fused resize's own graphs */
    samrt_staging_fmt_key(nv12, t->key.fmt);
    SAMRT_TRY(mark(m, SAMRT_STAGE_MK_START, stream));
    if (!samrt_engine_on_device(e)) {  /* host engines: the same sequence, run in place */
        if (img) {
            SAMRT_TRY(samrt_staging_preprocess_host(&m->stage, img, nv12, m->enc.imgsz, &m->enc.input));
            SAMRT_TRY(mark(m, SAMRT_STAGE_MK_PRE, stream));
        }
        SAMRT_TRY(samrt_ctx_memcpy(ch, t->tab.data, t->tab_host, samrt_tensor_nbytes(&t->tab)));
        SAMRT_TRY(set_prompts(m, ch));
        SAMRT_TRY(enqueue_frame(e, m, NULL, NULL));
        samrt_stage_clock_read(&m->clock, &m->times);
        SAMRT_TRY(samrt_health_download(e, &t->health, NULL));
        SAMRT_TRY(frame_verdict(e, t));
        SAMRT_TRY(samrt_ctx_fetch(ch, t->low_host, samrt_sam2_track_post_low(t)->data,
                                  samrt_tensor_nbytes(&t->cur_low)));
        SAMRT_TRY(samrt_sam2_track_policy_download(e, m, NULL));
        return samrt_ctx_fetch(ch, t->score_host, t->cur_score.data, sizeof(float) * (size_t)t->k_max);
    }
    struct samrt_resize_plan plan;
    if (img)  /* the resize is in the graph */
        SAMRT_TRY(samrt_staging_upload(&m->stage, img, nv12, img_on_device, m->enc.imgsz, &plan, stream));
    SAMRT_TRY(samrt_ctx_memcpy(ch, t->tab.data, t->tab_host, samrt_tensor_nbytes(&t->tab)));
    SAMRT_TRY(set_prompts(m, ch));
    SAMRT_TRY(mark(m, SAMRT_STAGE_MK_H2D, stream));
    const struct samrt_resize_plan *rp = img ? &plan : NULL;
    int has_mask = 0;
    for (int k = 0; k < t->key.n_obj; k++) has_mask |= t->key.role[k] == ROLE_MASK;
    const int taps = m->ctx_enc.tap || m->seg.ctx.tap;  /* taps read host copies: never inside a capture */
    SAMRT_TRY(m->seg.use_graph && !taps && !has_mask ? run_graph(e, m, rp, stream) : enqueue_frame(e, m, rp, stream));
    /* the masks on the device unless a tap observer needs the host's f32 logits or the host
     * decode is forced; nothing to decode before the first object */
    if (t->n_obj > 0 && m->stage.out.data && !t->tap && !t->host_decode && !t->host_decode_env) {
        SAMRT_TRY(decode_frame(m, stream));
        t->dev_decoded = 1;
    } else {
        SAMRT_TRY(samrt_stream_copy(t->low_host, samrt_sam2_track_post_low(t)->data, samrt_tensor_nbytes(&t->cur_low),
                                    SAMRT_COPY_D2H, stream));
    }
    SAMRT_TRY(samrt_stream_copy(t->score_host, t->cur_score.data, sizeof(float) * (size_t)t->k_max, SAMRT_COPY_D2H,
                                stream));
    SAMRT_TRY(samrt_sam2_track_policy_download(e, m, stream));  /* with the masks, before the one sync */
    SAMRT_TRY(samrt_health_download(e, &t->health, stream));
    SAMRT_TRY(mark(m, SAMRT_STAGE_MK_D2H, stream));
    SAMRT_TRY(samrt_stream_sync(stream));
    samrt_stage_clock_read(&m->clock, &m->times);
    return frame_verdict(e, t);
}
