/* family.c - the SAM 2 family (family.h): SAM 2.1 tiny / small / base_plus / large, EdgeTAM,
 * EfficientTAM (Ti, S and their /1, /2 and 512x512 variants: a ViTDet trunk, models/
 * efficienttam) and SAM 2.0 checkpoints (segmentation only). Its lifecycle (plan, prepare, free), checkpoint
 * recognition through the strict key tables (models/sam2/keys.h), and the table of entries the
 * engine and samrt.h's calls reach it through.
 *
 * EdgeTAM shares everything but the image trunk (the encoder's trunk kind) and the tracker's
 * memory path (tracker.h: the perceiver's memory tokens, the 2-layer memory attention); SAM 2.1
 * and EdgeTAM engines both segment and track, SAM 2.0 engines segment only (their track calls
 * return SAMRT_E_UNSUPPORTED). A host engine runs f32 only (the CPU reference backend): at
 * another precision it keeps its weights but plans no forward pass (its entries return
 * SAMRT_E_UNSUPPORTED). */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ckpt.h"
#include "engine_impl.h"
#include "engine_limits.h"
#include "family.h"
#include "keys.h"
#include "sam2.h"
#include "tracker.h"
#include "tracker_run.h"

static enum samrt_status sam2_plan(struct samrt_engine *e) {
    if (!samrt_sam2_config_get(e->model)) return SAMRT_OK;  /* not a SAM 2 family checkpoint */
    if (e->ckpt_path) {  /* EfficientTAM's variants share their layout: the request or the file name decides */
        char why[384];
        e->model = samrt_keys_variant(e->model, e->params.expect_model, e->ckpt_path, why, sizeof why);
        if (why[0]) SAMRT_LOG_INFO("%s: %s", e->ckpt_path, why);
    }
    const int native = samrt_sam2_config_get(e->model)->image_size;
    if (native && e->params.imgsz != native)
        SAMRT_LOG_WARN("%s: its image_size is %d, this engine runs at %d (pass --imgsz %d to run the official model)",
                       samrt_model_name(e->model), native, e->params.imgsz, native);
    if (e->mem_kind == SAMRT_MEM_HOST && e->precision != SAMRT_DTYPE_F32) {
        SAMRT_LOG_INFO("sam2: the CPU backend runs f32 only; no forward pass planned at %s",
                       samrt_dtype_name(e->precision));
        return SAMRT_OK;
    }
    struct samrt_sam2 *m = calloc(1, sizeof *m);
    SAMRT_CHECK(m != NULL, SAMRT_E_HOST_MEMORY, "sam2: out of host memory");
    e->model_state = m;
    SAMRT_TRY(samrt_backend_open(e));  /* device engines: the GPU context and the engine's stream */
    SAMRT_TRY(samrt_sam2_encoder_bind(&m->enc, samrt_sam2_config_get(e->model), e->params.imgsz, samrt_engine_env(e), NULL));
    /* EdgeTAM's trunk runs on the BatchNorm-folded copy that its prepare builds from the
     * checkpoint (models/edgetam/repvit.c); of its tensors only the squeeze-excite layers are
     * read from the engine's weights */
    if (samrt_sam2_config_get(e->model)->trunk == SAMRT_TRUNK_REPVIT)
        samrt_engine_release_weights(e, "image_encoder.trunk.body.", ".se.");
    SAMRT_TRY(samrt_sam2_ctx_init(e, &m->ctx_enc, &m->ex_enc));
    SAMRT_TRY(samrt_sam2_encoder_plan(&m->enc, &m->ctx_enc));
    SAMRT_TRY(samrt_sam2_segment_plan(e, m));
    SAMRT_TRY(samrt_sam2_tracker_plan(e, m));
    /* the output block and logits plane: scratch at a step after every pass (staging.h) */
    return samrt_staging_plan_out(&m->stage, &m->seg.ctx, m->step_base);
}

/* The f32 values of a checkpoint tensor (host heap; the caller frees). */
static enum samrt_status read_f32(const struct samrt_ckpt *ck, const char *name, float **out) {
    *out = NULL;
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, name);
    SAMRT_CHECK(t != NULL, SAMRT_E_KEYS, "sam2: %s missing from the checkpoint", name);
    *out = malloc(sizeof(float) * (size_t)t->nelements);
    SAMRT_CHECK(*out != NULL, SAMRT_E_HOST_MEMORY, "sam2: out of host memory");
    return samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, *out, sizeof(float) * (uint64_t)t->nelements);
}

static enum samrt_status sam2_prepare(struct samrt_engine *e, const struct samrt_ckpt *ck) {
    struct samrt_sam2 *m = samrt_sam2_of(e);
    if (!m) return SAMRT_OK;
    /* the position embedding is formed from the checkpoint's f32 values, as autocast does */
    float *pos = NULL, *win = NULL;
    enum samrt_status st = SAMRT_OK;
    if (m->enc.cfg->trunk == SAMRT_TRUNK_REPVIT) {
        st = samrt_repvit_prepare(&m->enc.rv, samrt_engine_env(e), ck);  /* BatchNorm folding; no position embedding */
    } else if (m->enc.cfg->trunk == SAMRT_TRUNK_VITDET) {
        st = samrt_vitdet_prepare(&m->enc.vit, samrt_engine_env(e), ck);  /* the resized absolute position embedding */
    } else {
        st = read_f32(ck, "image_encoder.trunk.pos_embed", &pos);
        if (st == SAMRT_OK) st = read_f32(ck, "image_encoder.trunk.pos_embed_window", &win);
    }
    if (st == SAMRT_OK) st = samrt_sam2_encoder_prepare(&m->enc, samrt_engine_env(e), pos, win);
    free(pos);
    free(win);
    SAMRT_TRY(st);
    samrt_sam2_ctx_workspace(e, &m->ctx_enc);
    m->enc_ready = 1;
    SAMRT_TRY(samrt_stage_clock_init(&m->clock, e->mem_kind != SAMRT_MEM_HOST));
    samrt_stage_times_none(&m->times);
    SAMRT_TRY(samrt_sam2_segment_prepare(e, m, ck));
    return samrt_sam2_tracker_prepare(e, m, ck);
}

static void sam2_free(struct samrt_engine *e) {
    struct samrt_sam2 *m = samrt_sam2_of(e);
    if (!m) return;
    samrt_sam2_tracker_free(m);
    samrt_sam2_segment_free(m);
    samrt_stage_clock_free(&m->clock);  /* after the graphs that record its events */
    samrt_ctx_free(&m->ctx_enc);
    free(m);
    e->model_state = NULL;
}

static enum samrt_status sam2_stage_times(struct samrt_engine *e, struct samrt_stage_times *out) {
    SAMRT_CHECK(e && out, SAMRT_E_INVALID_ARG, "stage_times: engine and out are required");
    if (e->failed) return SAMRT_E_BAD_STATE;
    const struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->seg.ready, SAMRT_E_UNSUPPORTED, "stage_times: this engine has no SAM 2 forward pass");
    *out = m->times;
    return SAMRT_OK;
}

/* ---- checkpoints: the key tables ----------------------------------------------------------- */

static enum samrt_status sam2_recognise(enum samrt_model_id expect, const struct samrt_ckpt_tensor *t, int n,
                                        enum samrt_model_id *out) {
    return samrt_keys_match(expect, t, n, out);
}

static enum samrt_status sam2_key_tensors(enum samrt_model_id id, struct samrt_ckpt_tensor **out, int *n,
                                          uint64_t *n_params) {
    if (out) *out = NULL, *n = 0;
    struct samrt_keys keys;
    SAMRT_TRY(samrt_keys_init(id, &keys));
    if (n_params) *n_params = samrt_keys_param_count(&keys);
    if (!out) {  /* the count alone */
        samrt_keys_free(&keys);
        return SAMRT_OK;
    }
    struct samrt_ckpt_tensor *t = calloc((size_t)keys.n_keys + 1, sizeof *t);
    enum samrt_status st = t ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    for (int i = 0; st == SAMRT_OK && i < keys.n_keys; i++) {
        const struct samrt_key *k = &keys.keys[i];
        t[i].name = strdup(k->name);
        if (!t[i].name) st = SAMRT_E_HOST_MEMORY;
        t[i].dtype = k->is_int ? SAMRT_DTYPE_I64 : SAMRT_DTYPE_F32;
        t[i].n_dims = k->n_dims;
        t[i].nelements = 1;
        for (int d = 0; d < k->n_dims; d++) {
            t[i].ne[d] = k->ne[d];
            t[i].nelements *= k->ne[d];
        }
    }
    const int n_keys = keys.n_keys;
    samrt_keys_free(&keys);
    if (st != SAMRT_OK) {
        samrt_family_free_tensors(t, n_keys);
        return st;
    }
    *out = t;
    *n = n_keys;
    return SAMRT_OK;
}

/* ---- the entries that adapt the family's calls to family.h's signatures -------------------------- */

static enum samrt_status sam2_segment_entry(struct samrt_engine *e, const struct samrt_image *img, int img_on_device,
                                            const struct samrt_object_prompt *prompts, int n, enum samrt_postproc pp,
                                            struct samrt_mask_result *out) {
    return samrt_sam2_segment(e, img, img_on_device, prompts, n, pp, out);
}

static enum samrt_status sam2_track_options(struct samrt_engine *e, const struct samrt_internal_track_options *o) {
    const struct samrt_sam2_track_options opt = {o->postproc, o->non_overlap, o->num_frames, o->fill_hole_area};
    return samrt_sam2_track_set_options(e, &opt);
}

static enum samrt_status sam2_check_prompt(const struct samrt_object_prompt *p, int width, int height, int imgsz) {
    struct samrt_sam2_points pts;
    return samrt_sam2_points_from_prompt(p, width, height, imgsz, &pts);
}

_Static_assert(SAMRT_MAX_OBJECTS <= SAMRT_SAM2_MAX_OBJ, "the SAM heads' mask selection holds max_objects objects");

static const enum samrt_model_id g_models[] = {
    SAMRT_MODEL_SAM2_1_TINY, SAMRT_MODEL_SAM2_1_SMALL, SAMRT_MODEL_SAM2_1_BASE_PLUS, SAMRT_MODEL_SAM2_1_LARGE,
    SAMRT_MODEL_EDGETAM,     SAMRT_MODEL_SAM2_TINY,   SAMRT_MODEL_SAM2_SMALL,       SAMRT_MODEL_SAM2_BASE_PLUS,
    SAMRT_MODEL_SAM2_LARGE,
    SAMRT_MODEL_EFFICIENTTAM_TI, SAMRT_MODEL_EFFICIENTTAM_TI_1, SAMRT_MODEL_EFFICIENTTAM_TI_2, SAMRT_MODEL_EFFICIENTTAM_TI_512,
    SAMRT_MODEL_EFFICIENTTAM_S,  SAMRT_MODEL_EFFICIENTTAM_S_1,  SAMRT_MODEL_EFFICIENTTAM_S_2,  SAMRT_MODEL_EFFICIENTTAM_S_512,
};

const struct samrt_family samrt_family_sam2 = {
    .name = "sam2",
    .models = g_models,
    .n_models = (int)(sizeof g_models / sizeof g_models[0]),
    .claims = NULL, /* the family that diagnoses any checkpoint no other family claims */
    .recognise = sam2_recognise,
    .key_tensors = sam2_key_tensors,
    .plan = sam2_plan,
    .prepare = sam2_prepare,
    .free = sam2_free,
    .segment = sam2_segment_entry,
    .segment_masked = samrt_sam2_segment_masked,
    .mask_prompt = samrt_sam2_mask_prompt,
    .track_begin = samrt_sam2_track_begin,
    .track_prompt = samrt_sam2_track_prompt,
    .track_prompt_mask = samrt_sam2_track_prompt_mask,
    .track_remove = samrt_sam2_track_remove,
    .track_push = samrt_sam2_track_push,
    .track_options = sam2_track_options,
    .stage_times = sam2_stage_times,
    .segment_tap = samrt_sam2_segment_set_tap,
    .segment_configure = samrt_sam2_segment_configure,
    .track_tap = samrt_sam2_track_set_tap,
    .track_tap_memattn = samrt_sam2_track_set_tap_memattn,
    .check_prompt = sam2_check_prompt,
    .frame_cost = samrt_sam2_frame_cost,
    .track_graph_nodes = samrt_sam2_track_graph_nodes,
};
