/* engine.c - samrt_engine_init / free: open the checkpoint, recognise the model and check
 * its keys strictly, choose the platform profile, plan the arena, take the one pool from
 * the platform, commit, and convert the weights into it. After init returns nothing is
 * allocated: later stages only add slots to the plan built here (models/ plan functions).
 *
 * Setup order matters for the "exact high-water mark" promise: the plan is complete and
 * checked against the profile's pool before a single device byte is requested. */
#include "engine_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ckpt.h"
#include "hooks.h"
#include "keys.h"

struct samrt_engine_params samrt_engine_default_params(void) {
    struct samrt_engine_params p;
    memset(&p, 0, sizeof p);
    p.platform = NULL;
    p.precision = SAMRT_DTYPE_COUNT;  /* = the profile's default */
    p.mem_kind = SAMRT_MEM_AUTO;
    p.expect_model = SAMRT_MODEL_UNKNOWN;
    p.imgsz = 1024;
    p.max_objects = 1;
    p.device = 0;
    p.max_frame_width = 3840;
    p.max_frame_height = 2160;
    p.verbose = 0;
    return p;
}

const struct samrt_model_env *samrt_engine_env(struct samrt_engine *e) {
    e->env.weights = &e->weights;
    e->env.arena = &e->arena;
    e->env.mem_kind = e->mem_kind;
    e->env.precision = e->precision;
    return &e->env;
}

const struct samrt_tensor *samrt_engine_weight(const struct samrt_engine *e, const char *name) {
    return samrt_weights_find(&e->weights, name);
}

int samrt_engine_weight_released(const struct samrt_engine *e, const char *name) {
    return samrt_weights_released(&e->weights, name);
}

const char *samrt_engine_weight_name(const struct samrt_engine *e, const struct samrt_tensor *t) {
    return samrt_weights_name(&e->weights, t);
}

static int is_float(enum samrt_dtype d) {
    return d == SAMRT_DTYPE_F32 || d == SAMRT_DTYPE_F16 || d == SAMRT_DTYPE_BF16;
}

static enum samrt_status resolve_profile(struct samrt_engine *e) {
    const struct samrt_engine_params *p = &e->params;
    if (p->platform) {
        e->profile = samrt_platform_profile_find(p->platform);
        if (!e->profile) {
            int n = 0;
            const struct samrt_platform_profile *all = samrt_platform_profiles(&n);
            char names[512] = {0};
            for (int i = 0; i < n; i++) {
                strncat(names, all[i].name, sizeof names - strlen(names) - 1);
                if (i + 1 < n) strncat(names, ", ", sizeof names - strlen(names) - 1);
            }
            SAMRT_LOG_ERROR("unknown platform profile '%s' (known: %s)", p->platform, names);
            return SAMRT_E_INVALID_ARG;
        }
    } else {
        struct samrt_device_info info;
        int have = samrt_platform_device_query(p->device, &info) == SAMRT_OK;
        e->profile = samrt_platform_profile_detect(have ? &info : NULL);
    }
    e->precision = p->precision == SAMRT_DTYPE_COUNT ? e->profile->precision : p->precision;
    SAMRT_CHECK(is_float(e->precision), SAMRT_E_INVALID_ARG, "precision must be fp32, fp16 or bf16");
    /* a plan-only engine plans for the profile's pool kind, whatever this machine has */
    e->mem_kind = p->mem_kind != SAMRT_MEM_AUTO ? p->mem_kind
                  : e->profile->mem_kind == SAMRT_MEM_HOST || e->plan_only
                      ? e->profile->mem_kind
                      : samrt_platform_resolve_mem_kind(SAMRT_MEM_AUTO, p->device);
    return SAMRT_OK;
}

/* Slots the model's forward passes may add to the plan (runtime/hooks.h). */
#define SAMRT_ENGINE_MODEL_SLOTS 32768

/* Weights: one persistent slot per floating-point checkpoint tensor, at run precision (a model
 * may release the slots of tensors it keeps only as a derived copy: samrt_engine_release_weights).
 * Workspaces: the profile's fixed caps (GPU pools only), so the plan is exact without a GPU. */
static enum samrt_status plan_engine(struct samrt_engine *e, const struct samrt_ckpt_tensor *tensors, int n_tensors) {
    int cap = n_tensors + 64 + SAMRT_ENGINE_MODEL_SLOTS;
    e->slots = calloc((size_t)cap, sizeof *e->slots);
    e->weights.items = calloc((size_t)n_tensors + 1, sizeof *e->weights.items);
    SAMRT_CHECK(e->slots && e->weights.items, SAMRT_E_HOST_MEMORY, "engine: out of host memory");
    samrt_plan_init(&e->plan, e->slots, cap);
    for (int i = 0; i < n_tensors; i++) {
        const struct samrt_ckpt_tensor *t = &tensors[i];
        if (!is_float(t->dtype)) continue;  /* BatchNorm num_batches_tracked */
        struct samrt_weight *w = &e->weights.items[e->weights.n];
        w->name = strdup(t->name);
        SAMRT_CHECK(w->name != NULL, SAMRT_E_HOST_MEMORY, "engine: out of host memory");
        uint64_t bytes = (uint64_t)t->nelements * samrt_dtype_size(e->precision);
        SAMRT_TRY(samrt_plan_add(&e->plan, w->name, SAMRT_REGION_WEIGHTS, bytes, 0, 0, &w->slot));
        SAMRT_CHECK(t->n_dims <= SAMRT_MAX_DIMS, SAMRT_E_UNSUPPORTED, "tensor %s has %d dims", t->name, t->n_dims);
        w->t = samrt_tensor_make(NULL, e->precision, t->n_dims, t->ne);
        e->weights.n++;
        e->weights.n_floats += (uint64_t)t->nelements;
    }
    e->slot_ws_cublaslt = e->slot_ws_cudnn = -1;
    if (e->mem_kind != SAMRT_MEM_HOST) {
        if (e->profile->cublaslt_ws_bytes)
            SAMRT_TRY(samrt_plan_add(&e->plan, "workspace.cublaslt", SAMRT_REGION_WORKSPACE,
                                     e->profile->cublaslt_ws_bytes, 0, 0, &e->slot_ws_cublaslt));
        if (e->profile->cudnn_ws_bytes)
            SAMRT_TRY(samrt_plan_add(&e->plan, "workspace.cudnn", SAMRT_REGION_WORKSPACE,
                                     e->profile->cudnn_ws_bytes, 0, 0, &e->slot_ws_cudnn));
    }
    samrt_weights_sort(&e->weights);
    SAMRT_TRY(samrt_model_plan(e));  /* the forward passes' slots, before the plan is final */
    SAMRT_TRY(samrt_plan_finalize(&e->plan));
    return SAMRT_OK;
}

int samrt_engine_release_weights(struct samrt_engine *e, const char *prefix, const char *except) {
    return e ? samrt_weights_release(&e->weights, &e->plan, prefix, except) : 0;
}

static enum samrt_status load_weights(struct samrt_engine *e, const struct samrt_ckpt *ck) {
    uint64_t max_bytes = 0;
    for (int i = 0; i < e->weights.n; i++) {
        uint64_t b = samrt_tensor_nbytes(&e->weights.items[i].t);
        if (b > max_bytes) max_bytes = b;
    }
    uint8_t *bounce = malloc(max_bytes ? max_bytes : 1);  /* setup only; freed below */
    SAMRT_CHECK(bounce != NULL, SAMRT_E_HOST_MEMORY, "engine: no host memory for a %" PRIu64 "-byte bounce buffer",
                max_bytes);
    enum samrt_status st = SAMRT_OK;
    for (int i = 0; i < e->weights.n && st == SAMRT_OK; i++) {
        struct samrt_weight *w = &e->weights.items[i];
        if (w->released) continue;
        w->t.data = samrt_arena_ptr(&e->arena, w->slot);
        const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, w->name);
        uint64_t bytes = samrt_tensor_nbytes(&w->t);
        st = samrt_ckpt_read(ck, t, e->precision, bounce, bytes);
        if (st == SAMRT_OK) st = samrt_platform_mem_upload(e->mem_kind, w->t.data, bounce, bytes);
    }
    free(bounce);
    return st;
}

enum samrt_status samrt_engine_init(const char *checkpoint_path, const struct samrt_engine_params *params,
                                    samrt_engine_t *out) {
    if (out) *out = NULL;
    SAMRT_CHECK(checkpoint_path && params && out, SAMRT_E_INVALID_ARG,
                "engine_init: checkpoint path, params and out are required");
    SAMRT_CHECK(params->imgsz >= 64 && params->imgsz <= 4096 && params->imgsz % 16 == 0, SAMRT_E_INVALID_ARG,
                "imgsz %d: must be a multiple of 16 in [64, 4096]", params->imgsz);
    SAMRT_CHECK(params->max_objects >= 1 && params->max_objects <= 256, SAMRT_E_INVALID_ARG,
                "max_objects %d: must be in [1, 256]", params->max_objects);

    struct samrt_engine *e = calloc(1, sizeof *e);
    SAMRT_CHECK(e != NULL, SAMRT_E_HOST_MEMORY, "engine: out of host memory");
    e->params = *params;
    struct samrt_ckpt ck;
    memset(&ck, 0, sizeof ck);
    enum samrt_status st = samrt_ckpt_open(checkpoint_path, &ck);
    if (st == SAMRT_OK) {
        st = samrt_keys_match(params->expect_model, ck.tensors, ck.n_tensors, &e->model);
    }
    if (st == SAMRT_OK) {
        struct samrt_keys keys;
        if (samrt_keys_init(e->model, &keys) == SAMRT_OK) {
            e->weights.n_params = samrt_keys_param_count(&keys);
            samrt_keys_free(&keys);
        }
        samrt_ckpt_check_finite(&ck);
        st = resolve_profile(e);
    }
    if (st == SAMRT_OK) st = plan_engine(e, ck.tensors, ck.n_tensors);
    if (st == SAMRT_OK) {
        if (params->verbose) samrt_plan_log(&e->plan, SAMRT_LOG_INFO);
        if (e->plan.total_bytes > e->profile->pool_bytes) {
            SAMRT_LOG_ERROR("arena plan needs %" PRIu64 " bytes (%.2f MiB) but profile %s allows a pool of %" PRIu64
                            " bytes (%.2f MiB)", e->plan.total_bytes, e->plan.total_bytes / 1048576.0, e->profile->name,
                            e->profile->pool_bytes, e->profile->pool_bytes / 1048576.0);
            st = SAMRT_E_ARENA_TOO_SMALL;
        }
    }
    if (st == SAMRT_OK) st = samrt_platform_mem_alloc(e->mem_kind, e->plan.total_bytes, &e->pool);
    if (st == SAMRT_OK) st = samrt_arena_commit(&e->arena, &e->plan, e->pool, e->plan.total_bytes);
    if (st == SAMRT_OK) st = load_weights(e, &ck);
    if (st == SAMRT_OK) st = samrt_model_prepare(e, &ck);
    samrt_ckpt_close(&ck);
    if (st != SAMRT_OK) {
        samrt_engine_free(e);
        return st;
    }
    SAMRT_LOG_INFO("%s: %" PRIu64 " parameters, %s, arena %.2f MiB (%s) on profile %s", samrt_model_name(e->model),
                   e->weights.n_params, samrt_dtype_name(e->precision), e->plan.total_bytes / 1048576.0,
                   samrt_mem_kind_name(e->mem_kind), e->profile->name);
    *out = e;
    return SAMRT_OK;
}

/* The plan of a model without its checkpoint: weights come from the key table
 * (models/sam2/keys.c) with the same shapes a checkpoint must have, and the model's PLAN passes
 * run exactly as in samrt_engine_init, with no pool and no GPU. samrt_engine_memory() then
 * reports what samrt_engine_init would commit on that profile. */
enum samrt_status samrt_engine_init_plan_only(enum samrt_model_id model, const struct samrt_engine_params *params,
                                              samrt_engine_t *out) {
    if (out) *out = NULL;
    SAMRT_CHECK(params && out, SAMRT_E_INVALID_ARG, "engine_init_plan_only: params and out are required");
    SAMRT_CHECK(params->platform != NULL, SAMRT_E_INVALID_ARG, "a budget needs a platform profile");
    struct samrt_keys keys;
    SAMRT_TRY(samrt_keys_init(model, &keys));
    struct samrt_ckpt_tensor *t = calloc((size_t)keys.n_keys + 1, sizeof *t);
    struct samrt_engine *e = calloc(1, sizeof *e);
    enum samrt_status st = t && e ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) {
        e->params = *params;
        e->model = model;
        e->plan_only = 1;
        for (int i = 0; i < keys.n_keys; i++) {
            const struct samrt_key *k = &keys.keys[i];
            t[i].name = (char *)k->name;
            t[i].dtype = k->is_int ? SAMRT_DTYPE_I64 : SAMRT_DTYPE_F32;
            t[i].n_dims = k->n_dims;
            t[i].nelements = 1;
            for (int d = 0; d < k->n_dims; d++) {
                t[i].ne[d] = k->ne[d];
                t[i].nelements *= k->ne[d];
            }
        }
        e->weights.n_params = samrt_keys_param_count(&keys);
        st = resolve_profile(e);
    }
    if (st == SAMRT_OK) st = plan_engine(e, t, keys.n_keys);
    free(t);
    samrt_keys_free(&keys);
    if (st != SAMRT_OK) {
        samrt_engine_free(e);
        return st;
    }
    *out = e;
    return SAMRT_OK;
}

const struct samrt_plan *samrt_engine_plan(const struct samrt_engine *e) { return e ? &e->plan : NULL; }

void samrt_engine_free(samrt_engine_t e) {
    if (!e) return;
    samrt_model_free(e);
    samrt_backend_close(e);  /* after every pass that borrowed the GPU context */
    if (e->pool) samrt_platform_mem_free(e->mem_kind, e->pool);
    samrt_weights_free(&e->weights);
    free(e->slots);
    free(e);
}

enum samrt_status samrt_engine_memory(samrt_engine_t e, struct samrt_memory_report *out) {
    SAMRT_CHECK(e && out, SAMRT_E_INVALID_ARG, "engine_memory: engine and out are required");
    memset(out, 0, sizeof *out);
    out->weights_bytes = e->plan.region_bytes[SAMRT_REGION_WEIGHTS];
    out->state_bytes = e->plan.region_bytes[SAMRT_REGION_STATE];
    out->workspace_bytes = e->plan.region_bytes[SAMRT_REGION_WORKSPACE];
    out->staging_bytes = e->plan.region_bytes[SAMRT_REGION_STAGING];
    out->scratch_bytes = e->plan.region_bytes[SAMRT_REGION_SCRATCH];
    out->arena_bytes = e->plan.total_bytes;
    out->pool_capacity_bytes = e->profile->pool_bytes;
    out->mem_kind = e->mem_kind;
    return SAMRT_OK;
}

enum samrt_status samrt_engine_model(samrt_engine_t e, enum samrt_model_id *id, uint64_t *n_params) {
    SAMRT_CHECK(e, SAMRT_E_INVALID_ARG, "engine_model: engine is NULL");
    if (id) *id = e->model;
    if (n_params) *n_params = e->weights.n_params;
    return SAMRT_OK;
}
