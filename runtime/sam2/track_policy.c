/* track_policy.c - the tracker's memory-selection policies (track_policy.h): parameters and
 * arena slots, the launch of the policy kernels inside a frame, the download of their
 * decisions, and SAMURAI's bank rules (which frames an object's memory keeps and attends to;
 * DAM4SAM's are in track_policy_dam.c).
 * Tests: tests/test_sam2_policy.c. */
#include "track_policy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"
#include "ops_runtime.h"
#include "sam2.h"

enum samrt_status samrt_memory_policy_parse(const char *name, enum samrt_memory_policy *out) {
    for (int k = 0; name && k < SAMRT_MEMORY_POLICY_COUNT; k++) {
        if (strcmp(name, samrt_memory_policy_name((enum samrt_memory_policy)k)) == 0) {
            if (out) *out = (enum samrt_memory_policy)k;
            return SAMRT_OK;
        }
    }
    return SAMRT_E_INVALID_ARG;
}

const char *samrt_memory_policy_name(enum samrt_memory_policy policy) {
    switch (policy) {
    case SAMRT_MEMORY_SAM2: return "sam2";
    case SAMRT_MEMORY_SAMURAI: return "samurai";
    case SAMRT_MEMORY_DAM4SAM: return "dam4sam";
    default: return "?";
    }
}

/* ---- setup ------------------------------------------------------------------------------------ */

enum samrt_status samrt_sam2_track_policy_plan(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_track_policy *pol = &m->trk.policy;
    const struct samrt_engine_params *prm = &e->params;
    SAMRT_CHECK((int)prm->memory >= 0 && prm->memory < SAMRT_MEMORY_POLICY_COUNT, SAMRT_E_INVALID_ARG,
                "memory policy %d is not one of sam2, samurai, dam4sam", (int)prm->memory);
    SAMRT_CHECK(isfinite(prm->memory_kf_weight) && prm->memory_kf_weight >= 0.0 && prm->memory_kf_weight <= 1.0,
                SAMRT_E_INVALID_ARG, "memory_kf_weight %g is outside [0, 1] (0: the model's)", prm->memory_kf_weight);
    pol->kind = prm->memory;
    pol->p = (struct samrt_samurai_params){
        prm->memory_kf_weight > 0.0 ? prm->memory_kf_weight
        : e->model == SAMRT_MODEL_SAM2_1_LARGE ? SAMRT_SAMURAI_ALPHA_LARGE
                                               : SAMRT_SAMURAI_ALPHA,
        SAMRT_SAMURAI_STABLE_FRAMES, SAMRT_SAMURAI_STABLE_IOU, SAMRT_SAMURAI_MIN_OBJ_SCORE, SAMRT_SAMURAI_MEM_IOU,
        SAMRT_SAMURAI_MEM_SCORE};
    if (pol->kind == SAMRT_MEMORY_SAM2) return SAMRT_OK;
    const int64_t K = m->trk.k_max;
    struct samrt_op_ctx *c = &m->seg.ctx;
    SAMRT_TRY(samrt_ctx_persistent(c, "track.policy_state", SAMRT_REGION_STATE, SAMRT_DTYPE_U8, 1,
                                   SAMRT_SHAPE(K * SAMRT_POLICY_STATE * (int64_t)sizeof(double)), &pol->state,
                                   &pol->slot_state));
    if (pol->kind == SAMRT_MEMORY_DAM4SAM) {  /* the distractor test's labels; no boxes */
        const int64_t low = (int64_t)e->params.imgsz / 4;
        SAMRT_TRY(samrt_ctx_persistent(c, "track.policy_labels", SAMRT_REGION_STAGING, SAMRT_DTYPE_I32, 3,
                                       SAMRT_SHAPE(K, 2, low * low), &pol->labels, &pol->slot_labels));
        return samrt_ctx_persistent(c, "track.policy_decisions", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 2,
                                    SAMRT_SHAPE(K, SAMRT_POLICY_DEC_COLS), &pol->dec, &pol->slot_dec);
    }
    SAMRT_TRY(samrt_ctx_persistent(c, "track.policy_boxes", SAMRT_REGION_STAGING, SAMRT_DTYPE_I32, 3,
                                   SAMRT_SHAPE(K, 3, 4), &pol->boxes, &pol->slot_boxes));
    return samrt_ctx_persistent(c, "track.policy_decisions", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 2,
                                SAMRT_SHAPE(K, SAMRT_POLICY_DEC_COLS), &pol->dec, &pol->slot_dec);
}

enum samrt_status samrt_sam2_track_policy_prepare(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_track_policy *pol = &m->trk.policy;
    if (pol->kind == SAMRT_MEMORY_SAM2) return SAMRT_OK;
    pol->state.data = samrt_arena_ptr(&e->arena, pol->slot_state);
    if (pol->kind == SAMRT_MEMORY_DAM4SAM) pol->labels.data = samrt_arena_ptr(&e->arena, pol->slot_labels);
    else pol->boxes.data = samrt_arena_ptr(&e->arena, pol->slot_boxes);
    pol->dec.data = samrt_arena_ptr(&e->arena, pol->slot_dec);
    pol->dec_host = calloc((size_t)m->trk.k_max * SAMRT_POLICY_DEC_COLS, sizeof(float));
    SAMRT_CHECK(pol->dec_host != NULL, SAMRT_E_HOST_MEMORY, "track: out of host memory");
    return SAMRT_OK;
}

void samrt_sam2_track_policy_free(struct samrt_sam2_track_policy *pol) {
    free(pol->dec_host);
    pol->dec_host = NULL;
    if (pol->dump) fclose(pol->dump);
    pol->dump = NULL;
}

enum samrt_status samrt_sam2_track_policy_begin(struct samrt_sam2_track_policy *pol) {
    if (pol->dump) fclose(pol->dump);
    pol->dump = NULL;
    pol->have_dec = 0;
    const char *path = getenv("SAMRT_TRACK_DECISIONS");
    if (!path || !*path) return SAMRT_OK;
    pol->dump = fopen(path, "w");
    SAMRT_CHECK(pol->dump != NULL, SAMRT_E_IO, "SAMRT_TRACK_DECISIONS: cannot write %s", path);
    fprintf(pol->dump, "# frame obj policy index iou score kf_iou admit memory_frames\n");
    return SAMRT_OK;
}

void samrt_sam2_track_policy_obj_reset(struct samrt_track_policy_obj *po) {
    memset(po, 0, sizeof *po);
    po->restart = 1;
    for (int s = 0; s < SAMRT_TRACK_MEM_SLOTS; s++) po->dam_frame[s] = -1;
    for (int s = 0; s < SAMRT_TRACK_PTR_RING; s++) po->vis_frame[s] = -1;
}

/* ---- bank rules -------------------------------------------------------------------------------- */

/* SAMURAI: the non-conditioning memories of frame t are the last six of the admitted frames
 * held (they are admitted only at least two frames after the object's first, as the official
 * scan stops at frame 2) and frame t - 1 whatever its scores; t - 1 keeps its place in that
 * list even when no memory of it is held (a conditioning frame), as the official list does. */
static void samurai_select(const struct samrt_track_bank *b, const struct samrt_track_policy_obj *po, int t,
                           struct samrt_track_selection *sel) {
    int fr[SAMRT_TRACK_RING + 1], sl[SAMRT_TRACK_RING + 1], n = 0, have_prev = 0;
    for (int s = 0; s < SAMRT_TRACK_RING; s++) {
        const int f = b->ring_frame[s];
        if (f < 0 || f >= t || !(po->ring_ok[s] || f == t - 1)) continue;
        have_prev |= f == t - 1;
        fr[n] = f, sl[n] = s, n++;
    }
    if (!have_prev && t >= 1) fr[n] = t - 1, sl[n] = -1, n++;  /* a place, no memory */
    for (int i = 1; i < n; i++)  /* ascending frames */
        for (int j = i; j > 0 && fr[j - 1] > fr[j]; j--) {
            const int tf = fr[j], ts = sl[j];
            fr[j] = fr[j - 1], sl[j] = sl[j - 1], fr[j - 1] = tf, sl[j - 1] = ts;
        }
    sel->n_mem = b->n_cond;  /* the conditioning memories stay first */
    const int from = n > SAMRT_TRACK_RING ? n - SAMRT_TRACK_RING : 0;
    for (int i = from; i < n; i++) {
        if (sl[i] < 0) continue;
        sel->mem_slot[sel->n_mem] = sl[i];
        sel->mem_frame[sel->n_mem] = fr[i];
        sel->mem_tpos[sel->n_mem] = n - 1 - i;  /* num_maskmem - t_pos - 1, t_pos = 6 for the newest */
        sel->n_mem++;
    }
}

void samrt_sam2_track_policy_select(const struct samrt_sam2_track_policy *pol, const struct samrt_track_bank *b,
                                    struct samrt_track_policy_obj *po, int t, int num_frames,
                                    struct samrt_track_selection *sel) {
    samrt_track_bank_select(b, t, num_frames, sel);
    if (pol->kind == SAMRT_MEMORY_SAMURAI) samurai_select(b, po, t, sel);
    if (pol->kind == SAMRT_MEMORY_DAM4SAM) samrt_sam2_track_dam_select(b, po, t, sel);
    po->n_sel = sel->n_mem;
    memcpy(po->sel_frame, sel->mem_frame, sizeof(int) * (size_t)sel->n_mem);
}

void samrt_sam2_track_policy_add_tracked(const struct samrt_sam2_track_policy *pol, struct samrt_track_bank *b,
                                         struct samrt_track_policy_obj *po, int t, int *mem_slot, int *ptr_slot) {
    if (pol->kind == SAMRT_MEMORY_DAM4SAM) {
        samrt_sam2_track_dam_add_tracked(b, po, t, mem_slot, ptr_slot);
        return;
    }
    if (pol->kind != SAMRT_MEMORY_SAMURAI) {
        samrt_track_bank_add_tracked(b, t, mem_slot, ptr_slot);
        return;
    }
    /* pointers: the ring rule. Memories: keep the five newest admitted frames (with frame t
     * they are all that frame t + 1 can select), reuse an empty slot, else the oldest other */
    b->ptr_frame[t % SAMRT_TRACK_PTR_RING] = t;
    *ptr_slot = t % SAMRT_TRACK_PTR_RING;
    int keep[SAMRT_TRACK_RING] = {0};
    for (int q = 0; q < SAMRT_TRACK_RING - 1; q++) {  /* the q-th newest admitted */
        int best = -1;
        for (int s = 0; s < SAMRT_TRACK_RING; s++)
            if (po->ring_ok[s] && !keep[s] && b->ring_frame[s] >= 0 &&
                (best < 0 || b->ring_frame[s] > b->ring_frame[best]))
                best = s;
        if (best < 0) break;
        keep[best] = 1;
    }
    int slot = -1;
    for (int s = 0; s < SAMRT_TRACK_RING && slot < 0; s++)
        if (b->ring_frame[s] < 0) slot = s;
    if (slot < 0)
        for (int s = 0; s < SAMRT_TRACK_RING; s++)
            if (!keep[s] && (slot < 0 || b->ring_frame[s] < b->ring_frame[slot])) slot = s;
    b->ring_frame[slot] = t;
    po->ring_ok[slot] = 0;  /* known after the frame */
    *mem_slot = slot;
}

void samrt_sam2_track_policy_admit(const struct samrt_sam2_track_policy *pol, const struct samrt_track_bank *b,
                                   struct samrt_track_policy_obj *po, int t, int first_frame, int admitted) {
    if (pol->kind != SAMRT_MEMORY_SAMURAI || !admitted || t - first_frame < 2) return;
    for (int s = 0; s < SAMRT_TRACK_RING; s++)
        if (b->ring_frame[s] == t) po->ring_ok[s] = 1;
}

/* ---- a frame ------------------------------------------------------------------------------------ */

uint8_t samrt_sam2_track_policy_code(const struct samrt_sam2_track_policy *pol, struct samrt_track_policy_obj *po,
                                     int multi, int tracked) {
    const int runs = pol->kind == SAMRT_MEMORY_DAM4SAM ? tracked : multi;
    if (pol->kind == SAMRT_MEMORY_SAM2 || !runs) return SAMRT_POLICY_SKIP;
    const uint8_t code = po->restart ? SAMRT_POLICY_RESTART : SAMRT_POLICY_RUN;
    po->restart = 0;
    return code;
}

enum samrt_status samrt_sam2_track_policy_enqueue(struct samrt_engine *e, struct samrt_sam2 *m, const uint8_t *codes,
                                                  int n_obj, samrt_stream *stream) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_sam2_track_policy *pol = &t->policy;
    int any = 0;
    for (int k = 0; k < n_obj; k++) any |= codes[k] != SAMRT_POLICY_SKIP;
    if (pol->kind == SAMRT_MEMORY_SAM2 || !any) return SAMRT_OK;
    const struct samrt_sam2_heads *h = &m->seg.heads;
    if (pol->kind == SAMRT_MEMORY_DAM4SAM) {
        struct samrt_policy_dam_args d = {.n_obj = n_obj, .low = h->low, .masks = h->all_masks.data,
                                          .iou = h->all_iou.data, .score = h->score.data,
                                          .state = pol->state.data, .labels = pol->labels.data,
                                          .dec = pol->dec.data};
        memcpy(d.code, codes, (size_t)n_obj);
        return samrt_op_policy_dam4sam(samrt_engine_on_device(e), &d, stream);
    }
    struct samrt_policy_args a;
    memset(&a, 0, sizeof a);
    a.n_obj = n_obj;
    a.low = h->low;
    a.side = e->params.imgsz;
    a.masks = h->all_masks.data;
    a.iou = h->all_iou.data;
    a.score = h->score.data;
    memcpy(a.code, codes, (size_t)n_obj);
    a.p = pol->p;
    a.state = pol->state.data;
    a.boxes = pol->boxes.data;
    a.low_out = t->cur_low.data;
    a.dec = pol->dec.data;
    return samrt_op_policy_samurai(samrt_engine_on_device(e), &a, stream);
}

void samrt_sam2_track_policy_cost(const struct samrt_sam2_track_policy *pol, int n_obj, int low, int side,
                                  int64_t *launches, double *flops, double *bytes) {
    *launches = 0, *flops = *bytes = 0.0;
    if (pol->kind == SAMRT_MEMORY_DAM4SAM) samrt_policy_dam4sam_cost(n_obj, low, launches, flops, bytes);
    else if (pol->kind == SAMRT_MEMORY_SAMURAI) samrt_policy_samurai_cost(n_obj, low, side, launches, flops, bytes);
}

enum samrt_status samrt_sam2_track_policy_download(struct samrt_engine *e, struct samrt_sam2 *m, samrt_stream *stream) {
    struct samrt_sam2_track_policy *pol = &m->trk.policy;
    pol->have_dec = 0;
    if (pol->kind == SAMRT_MEMORY_SAM2) return SAMRT_OK;
    const size_t bytes = sizeof(float) * SAMRT_POLICY_DEC_COLS * (size_t)m->trk.k_max;
    pol->have_dec = 1;
    if (!samrt_engine_on_device(e)) {
        memcpy(pol->dec_host, pol->dec.data, bytes);
        return SAMRT_OK;
    }
    return samrt_stream_copy(pol->dec_host, pol->dec.data, bytes, SAMRT_COPY_D2H, stream);
}

void samrt_sam2_track_policy_after_frame(struct samrt_sam2_tracker *t, int frame) {
    struct samrt_sam2_track_policy *pol = &t->policy;
    for (int k = 0; k < t->n_obj; k++) {
        struct samrt_sam2_track_obj *o = &t->obj[k];
        const int ran = pol->have_dec && t->key.policy[k] != SAMRT_POLICY_SKIP;
        const float *d = pol->dec_host ? pol->dec_host + (size_t)k * SAMRT_POLICY_DEC_COLS : NULL;
        if (ran && pol->kind == SAMRT_MEMORY_DAM4SAM)
            samrt_sam2_track_dam_decided(&o->pol, frame, d[SAMRT_DAM_DEC_AREA] >= 1.0f, d[SAMRT_DAM_DEC_ADD] > 0.0f);
        else if (ran)
            samrt_sam2_track_policy_admit(pol, &o->bank, &o->pol, frame, o->first_frame,
                                          d[SAMRT_POLICY_DEC_ADMIT] > 0.0f);
        if (!pol->dump || t->key.role[k] == 0) continue;
        fprintf(pol->dump, "%d %d %s %d %.6f %.6f %.6f %d ", frame, o->obj_id, samrt_memory_policy_name(pol->kind),
                ran ? (int)d[SAMRT_POLICY_DEC_INDEX] : -1, ran ? d[SAMRT_POLICY_DEC_IOU] : 0.0,
                ran ? d[SAMRT_POLICY_DEC_SCORE] : 0.0, ran ? d[SAMRT_POLICY_DEC_KF_IOU] : -1.0,
                ran ? (int)d[SAMRT_POLICY_DEC_ADMIT] : -1);
        const int tracked = t->key.role[k] == 2;  /* track_state.h: 2 tracked */
        for (int i = 0; tracked && i < o->pol.n_sel; i++) fprintf(pol->dump, "%s%d", i ? "," : "", o->pol.sel_frame[i]);
        fprintf(pol->dump, "%s\n", tracked && o->pol.n_sel ? "" : "-");
    }
    if (pol->dump) fflush(pol->dump);
}
