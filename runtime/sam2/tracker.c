/* tracker.c - SAM 2.1 and EdgeTAM streaming video tracking: the family's entries behind
 * samrt.h's samrt_engine_track_* calls, the arena state of the memory bank and the object
 * bookkeeping (tracker.h). The selection rules live in track_bank.c, the model work of a frame
 * in tracker_run.c, the results of a frame in track_out.c, the parity taps in track_taps.c.
 *
 * Design choice: prompts apply to the NEXT pushed frame, so a frame's work is known when it
 * is pushed; objects prompted on it are initial conditioning frames of the official
 * predictor (no memory attention, no_mem_embed) and go through the segmentation pass, which
 * also runs the frame's image encoder; tracked objects reuse those features.
 * Host buffers sized by the frame (video-res logits and masks) are allocated by
 * samrt_engine_track_begin, once per video; a push allocates nothing.
 * Run: `samrt track --help`. Tests: tests/test_sam2_track.c. */
#include "tracker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"
#include "perceiver.h"
#include "sam2.h"
#include "track_out.h"
#include "track_taps.h"
#include "tracker_run.h"
#include "stage_clock.h"
#include "stream.h"


enum { PENDING_NONE = 0, PENDING_POINTS, PENDING_MASK };


/* ---- setup ---------------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_tracker_plan(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_tracker *t = &m->trk;
    t->edgetam = e->model == SAMRT_MODEL_EDGETAM;
    /* SAM 2.0 checkpoints encode pointers differently (no obj_ptr_tpos_proj, no signed
     * distances, no no_obj_embed_spatial): tracking is planned where samrt.h's model table says */
    t->planned = samrt_model_tracks(e->model);
    if (!t->planned) return SAMRT_OK;
    struct samrt_op_ctx *c = &m->seg.ctx;
    t->k_max = e->params.max_objects;
    t->grid = e->params.imgsz / 16;
    t->mem_tok = t->edgetam ? SAMRT_EDGETAM_MEM_TOKENS : (int64_t)t->grid * t->grid;
    SAMRT_TRY(samrt_ctx_persistent(c, "track.mem_bank", SAMRT_REGION_STATE, SAMRT_DTYPE_BF16, 4,
                                   SAMRT_SHAPE(SAMRT_TRACK_MEM_SLOTS, t->k_max, t->mem_tok, 64), &t->mem_bank,
                                   &t->slot_mem_bank));
    SAMRT_TRY(samrt_ctx_persistent(c, "track.ptr_bank", SAMRT_REGION_STATE, SAMRT_DTYPE_F32, 3,
                                   SAMRT_SHAPE(SAMRT_TRACK_PTR_SLOTS, t->k_max, SAMRT_SAM2_DIM), &t->ptr_bank,
                                   &t->slot_ptr_bank));
    SAMRT_TRY(samrt_sam2_track_policy_plan(e, m));  /* before the passes: it sizes the frame table */
    SAMRT_TRY(samrt_sam2_tracker_plan_passes(e, m));
    SAMRT_TRY(samrt_sam2_track_mask_plan(e, m));  /* track_mask.c */
    return samrt_sam2_track_post_plan(e, m);      /* track_post.c */
}

enum samrt_status samrt_sam2_tracker_prepare(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_ckpt *ck) {
    struct samrt_sam2_tracker *t = &m->trk;
    if (!t->planned) return SAMRT_OK;
    t->mem_bank.data = samrt_arena_ptr(&e->arena, t->slot_mem_bank);
    t->ptr_bank.data = samrt_arena_ptr(&e->arena, t->slot_ptr_bank);
    t->obj = calloc((size_t)t->k_max, sizeof *t->obj);
    SAMRT_CHECK(t->obj != NULL, SAMRT_E_HOST_MEMORY, "track: out of host memory");
    t->opt.postproc = SAMRT_POSTPROC_VOS_INFERENCE;
    SAMRT_TRY(samrt_sam2_tracker_prepare_passes(e, m, ck));
    samrt_sam2_track_post_prepare(e, m);
    SAMRT_TRY(samrt_sam2_track_mask_prepare(e, m, ck));
    SAMRT_TRY(samrt_sam2_track_policy_prepare(e, m));
    t->ready = 1;
    return SAMRT_OK;
}

static void free_video(struct samrt_sam2_tracker *t) {
    free(t->logits_host);
    free(t->masks_host);
    t->logits_host = NULL;
    t->masks_host = NULL;
    t->width = t->height = 0;
}

void samrt_sam2_tracker_free(struct samrt_sam2 *m) {
    struct samrt_sam2_tracker *t = &m->trk;
    free_video(t);
    samrt_sam2_tracker_free_passes(t);
    samrt_sam2_track_mask_free(m);
    samrt_sam2_track_policy_free(&t->policy);
    free(t->obj);
    t->obj = NULL;
    t->ready = 0;
}

uint64_t samrt_sam2_tracker_state_bytes(const struct samrt_engine *e) {
    const struct samrt_sam2 *m = samrt_sam2_of(e);
    if (!m || !m->trk.ready) return 0;
    return samrt_tensor_nbytes(&m->trk.mem_bank) + samrt_tensor_nbytes(&m->trk.ptr_bank);
}

enum samrt_status samrt_sam2_tracker_of(struct samrt_engine *e, struct samrt_sam2_tracker **out) {
    SAMRT_CHECK(e != NULL, SAMRT_E_INVALID_ARG, "track: engine is NULL");
    if (e->failed) return SAMRT_E_BAD_STATE;
    struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->enc_ready && m->seg.ready && m->trk.ready, SAMRT_E_UNSUPPORTED,
                "track: this engine has no tracking pass (SAM 2.1 and EdgeTAM; model %s, %s, %s memory)",
                samrt_model_name(e->model), samrt_dtype_name(e->precision), samrt_mem_kind_name(e->mem_kind));
    *out = &m->trk;
    return SAMRT_OK;
}

/* ---- the public calls --------------------------------------------------------------------------- */

enum samrt_status samrt_sam2_track_begin(struct samrt_engine *e, int width, int height) {
    struct samrt_sam2_tracker *t;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    SAMRT_CHECK(width > 0 && height > 0 && width <= SAMRT_RESIZE_MAX_SIDE && height <= SAMRT_RESIZE_MAX_SIDE,
                SAMRT_E_INVALID_ARG, "track_begin: frame size %dx%d out of range", width, height);
    SAMRT_CHECK(width <= samrt_sam2_of(e)->stage.max_w && height <= samrt_sam2_of(e)->stage.max_h, SAMRT_E_INVALID_ARG,
                "track_begin: %dx%d frames are larger than the engine's max frame %dx%d (params max_frame_width, "
                "max_frame_height)", width, height, samrt_sam2_of(e)->stage.max_w, samrt_sam2_of(e)->stage.max_h);
    free_video(t);
    const size_t n_pix = (size_t)width * (size_t)height;
    t->logits_host = malloc(sizeof(float) * n_pix * (size_t)t->k_max);
    t->masks_host = malloc(n_pix * (size_t)t->k_max);
    SAMRT_CHECK(t->logits_host && t->masks_host, SAMRT_E_HOST_MEMORY, "track_begin: no host memory for %dx%d frames", width, height);
    t->width = width;
    t->height = height;
    t->frame = 0;
    t->n_obj = 0;
    memset(t->obj, 0, sizeof *t->obj * (size_t)t->k_max);
    t->opt.postproc = SAMRT_POSTPROC_VOS_INFERENCE;
    t->opt.non_overlap = 0;
    t->opt.num_frames = 0;
    t->opt.fill_hole_area = 0;
    const char *hd = getenv("SAMRT_TRACK_HOST_DECODE");
    t->host_decode_env = hd && strcmp(hd, "1") == 0;
    SAMRT_TRY(samrt_sam2_track_policy_begin(&t->policy));
    samrt_stage_times_none(&samrt_sam2_of(e)->times);
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_track_set_options(struct samrt_engine *e, const struct samrt_sam2_track_options *opt) {
    struct samrt_sam2_tracker *t;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    SAMRT_CHECK(opt != NULL, SAMRT_E_INVALID_ARG, "track options: NULL");
    SAMRT_CHECK(t->width > 0, SAMRT_E_INVALID_ARG, "track options: call samrt_engine_track_begin first");
    SAMRT_CHECK(opt->postproc == SAMRT_POSTPROC_VOS_INFERENCE || opt->postproc == SAMRT_POSTPROC_NOTEBOOK,
                SAMRT_E_INVALID_ARG, "track options: unknown post-processing profile %d", (int)opt->postproc);
    SAMRT_CHECK(opt->num_frames >= 0, SAMRT_E_INVALID_ARG, "track options: num_frames %d < 0", opt->num_frames);
    SAMRT_CHECK(opt->fill_hole_area >= 0, SAMRT_E_INVALID_ARG, "track options: fill_hole_area %d < 0",
                opt->fill_hole_area);
    t->opt = *opt;
    return SAMRT_OK;
}

/* The object with id obj_id, added (first prompt) when absent. */
static enum samrt_status object_for_prompt(struct samrt_sam2_tracker *t, int obj_id,
                                           struct samrt_sam2_track_obj **out) {
    SAMRT_CHECK(t->width > 0, SAMRT_E_INVALID_ARG, "track: call samrt_engine_track_begin first");
    SAMRT_CHECK(obj_id >= 0, SAMRT_E_INVALID_ARG, "track: object id %d < 0", obj_id);
    for (int i = 0; i < t->n_obj; i++) {
        if (t->obj[i].obj_id == obj_id) {
            *out = &t->obj[i];
            return SAMRT_OK;
        }
    }
    SAMRT_CHECK(t->n_obj < t->k_max, SAMRT_E_INVALID_ARG,
                "track: object %d would be object %d; this engine tracks at most %d (max_objects)", obj_id,
                t->n_obj + 1, t->k_max);
    struct samrt_sam2_track_obj *o = &t->obj[t->n_obj];
    memset(o, 0, sizeof *o);
    o->obj_id = obj_id;
    o->first_frame = -1;  /* set when its prompt frame is pushed */
    samrt_track_bank_reset(&o->bank);
    samrt_sam2_track_policy_obj_reset(&o->pol);
    *out = o;
    t->n_obj++;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_track_prompt(struct samrt_engine *e, int obj_id, const struct samrt_object_prompt *prompt) {
    struct samrt_sam2_tracker *t;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    SAMRT_CHECK(prompt != NULL, SAMRT_E_INVALID_ARG, "track_prompt: prompt is NULL");
    struct samrt_sam2_points pts;
    SAMRT_CHECK(t->width > 0, SAMRT_E_INVALID_ARG, "track: call samrt_engine_track_begin first");
    SAMRT_TRY(samrt_sam2_points_from_prompt(prompt, t->width, t->height, samrt_sam2_of(e)->enc.imgsz, &pts));
    struct samrt_sam2_track_obj *o;
    SAMRT_TRY(object_for_prompt(t, obj_id, &o));
    o->pts = pts;
    o->prompt = *prompt;
    o->pending = PENDING_POINTS;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_track_prompt_mask(struct samrt_engine *e, int obj_id, const uint8_t *mask) {
    struct samrt_sam2_tracker *t;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    SAMRT_CHECK(mask != NULL, SAMRT_E_INVALID_ARG, "track_prompt_mask: mask is NULL");
    SAMRT_CHECK(t->width > 0, SAMRT_E_INVALID_ARG, "track: call samrt_engine_track_begin first");
    struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_TRY(samrt_sam2_track_mask_set(m, t->k_max, mask, t->width, t->height));  /* row K: this call's */
    struct samrt_sam2_track_obj *o;
    SAMRT_TRY(object_for_prompt(t, obj_id, &o));
    samrt_sam2_track_mask_move(m, t->k_max, (int)(o - t->obj));
    o->pending = PENDING_MASK;
    return SAMRT_OK;
}

/* Object slot `from`'s rows of the memory bank and the pointer bank into slot `to`: a 2-D copy
 * over every slot of each bank (slot-major, so an object's rows are one stride apart); on the
 * host for a host pool (a CUDA build without a GPU runs host engines too), else a synchronous
 * device copy. */
static enum samrt_status move_bank_rows(struct samrt_engine *e, struct samrt_sam2_tracker *t, int from, int to) {
    const struct samrt_tensor *banks[2] = {&t->mem_bank, &t->ptr_bank};
    const size_t n_slots[2] = {SAMRT_TRACK_MEM_SLOTS, SAMRT_TRACK_PTR_SLOTS};
    for (int b = 0; b < 2; b++) {
        const size_t slot_bytes = samrt_tensor_nbytes(banks[b]) / n_slots[b];
        const size_t obj_bytes = slot_bytes / (size_t)t->k_max;
        uint8_t *dst = (uint8_t *)banks[b]->data + (size_t)to * obj_bytes;
        const uint8_t *src = (const uint8_t *)banks[b]->data + (size_t)from * obj_bytes;
        if (!samrt_engine_on_device(e)) {
            for (size_t s = 0; s < n_slots[b]; s++) memcpy(dst + s * slot_bytes, src + s * slot_bytes, obj_bytes);
            continue;
        }
        SAMRT_TRY(samrt_platform_copy_2d(dst, slot_bytes, src, slot_bytes, obj_bytes, n_slots[b], SAMRT_COPY_D2D));
    }
    if (t->policy.kind == SAMRT_MEMORY_SAM2) return SAMRT_OK;
    const size_t row = samrt_tensor_nbytes(&t->policy.state) / (size_t)t->k_max;  /* the policy's state row */
    uint8_t *dst = (uint8_t *)t->policy.state.data + (size_t)to * row;
    const uint8_t *src = (const uint8_t *)t->policy.state.data + (size_t)from * row;
    if (!samrt_engine_on_device(e)) {
        memcpy(dst, src, row);
        return SAMRT_OK;
    }
    return samrt_platform_copy_2d(dst, row, src, row, row, 1, SAMRT_COPY_D2D);
}

enum samrt_status samrt_sam2_track_remove(struct samrt_engine *e, int obj_id) {
    struct samrt_sam2_tracker *t;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    SAMRT_CHECK(t->width > 0, SAMRT_E_INVALID_ARG, "track: call samrt_engine_track_begin first");
    int k = 0;
    while (k < t->n_obj && t->obj[k].obj_id != obj_id) k++;
    SAMRT_CHECK(k < t->n_obj, SAMRT_E_INVALID_ARG, "track_remove: object %d is not tracked", obj_id);
    /* the later objects move down one slot, keeping their order (the outputs' order) */
    for (int j = k + 1; j < t->n_obj; j++) {
        enum samrt_status st = move_bank_rows(e, t, j, j - 1);
        if (st != SAMRT_OK) {
            e->failed = 1;  /* the banks are half moved */
            return st;
        }
        samrt_sam2_track_mask_move(samrt_sam2_of(e), j, j - 1);
        t->obj[j - 1] = t->obj[j];
    }
    t->n_obj--;
    memset(&t->obj[t->n_obj], 0, sizeof *t->obj);
    return SAMRT_OK;
}

/* ---- one frame ------------------------------------------------------------------------------- */

static enum samrt_status check_push(struct samrt_engine *e, struct samrt_sam2_tracker *t,
                                    const struct samrt_image *f, int on_device,
                                    const struct samrt_track_result *results, int max_results) {
    SAMRT_CHECK(t->width > 0, SAMRT_E_INVALID_ARG, "track_push: call samrt_engine_track_begin first");
    SAMRT_CHECK(f && f->rgb && (e->frame_nv12 || f->stride >= 3 * f->width), SAMRT_E_INVALID_ARG,
                "track_push: bad frame");  /* NV12: samrt_engine_track_push_nv12 checked the planes */
    SAMRT_CHECK(f->width == t->width && f->height == t->height, SAMRT_E_INVALID_ARG,
                "track_push: frame is %dx%d, the video is %dx%d", f->width, f->height, t->width, t->height);
    SAMRT_CHECK(max_results >= 0 && (results || max_results == 0), SAMRT_E_INVALID_ARG,
                "track_push: results is NULL");
    SAMRT_CHECK(!on_device || e->mem_kind != SAMRT_MEM_HOST, SAMRT_E_INVALID_ARG,
                "track_push: a device frame needs a GPU engine");
    return SAMRT_OK;
}

/* A stage's time += ns (a stage that did not run, -1, starts at 0). */
static void add_ms(float *stage, uint64_t ns) {
    *stage = (*stage < 0.0f ? 0.0f : *stage) + (float)(ns * 1e-6);
}

enum samrt_status samrt_sam2_track_push(struct samrt_engine *e, const struct samrt_image *frame, int frame_on_device,
                                          struct samrt_track_result *results, int max_results, int *n_results) {
    struct samrt_sam2_tracker *t;
    if (n_results) *n_results = 0;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    SAMRT_TRY(check_push(e, t, frame, frame_on_device, results, max_results));
    int prompted[SAMRT_MAX_OBJECTS], n_prompted = 0, tracked = 1;  /* tracked: no object prompted here */
    for (int i = 0; i < t->n_obj; i++) {
        if (t->obj[i].pending == PENDING_POINTS) prompted[n_prompted++] = i;
        if (t->obj[i].pending != PENDING_NONE) tracked = 0;
    }
    struct samrt_sam2 *m = samrt_sam2_of(e);
    const enum samrt_status st = samrt_sam2_tracker_step(e, m, frame, frame_on_device, prompted, n_prompted);
    if (st != SAMRT_OK) {
        e->failed = 1;  /* the bank may be half written: the engine refuses further work */
        return st;
    }
    for (int i = 0; i < t->n_obj; i++) {  /* points (prompted[]) and masks (track_mask.c) */
        struct samrt_sam2_track_obj *o = &t->obj[i];
        if (o->pending == PENDING_NONE) continue;
        if (o->first_frame < 0) o->first_frame = t->frame;
        o->pending = PENDING_NONE;
    }
    samrt_sam2_track_policy_after_frame(t, t->frame);  /* admissions, the decision dump */
    const uint64_t t3 = samrt_platform_now_ns();

    int n_out = 0;
    SAMRT_TRY(samrt_sam2_track_outputs(m, results, max_results, &n_out));
    if (n_results) *n_results = n_out;
    if (t->tap && t->n_obj > 0) SAMRT_TRY(samrt_sam2_track_frame_taps(m, t->frame, tracked));
    const uint64_t t4 = samrt_platform_now_ns();
    /* the step's stages (tracker_run.c), plus the host post-processing here */
    add_ms(&m->times.postprocess_ms, t4 - t3);  /* after the device decode's time, if any */
    t->frame++;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_track_set_host_decode(struct samrt_engine *e, int on) {
    struct samrt_sam2_tracker *t;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    t->host_decode = on != 0;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_track_set_tap_memattn(struct samrt_engine *e, int on) {
    struct samrt_sam2_tracker *t;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    t->tap_memattn = on != 0;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_track_set_tap(struct samrt_engine *e, samrt_tap_fn fn, void *user) {
    struct samrt_sam2_tracker *t;
    SAMRT_TRY(samrt_sam2_tracker_of(e, &t));
    t->tap = fn;
    t->tap_user = user;
    return SAMRT_OK;
}
