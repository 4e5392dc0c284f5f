/* engine.c - samrt_engine_init / init_session / free: open the checkpoint, recognise the
 * model and check its keys strictly, choose the platform profile, plan the arena, take the one
 * pool from the platform, commit, and convert the weights into it. After init returns nothing
 * is allocated: later stages only add slots to the plan built here (models/ plan functions).
 *
 * Setup order matters for the "exact high-water mark" promise: the plan is complete and
 * checked against the profile's pool before a single device byte is requested.
 *
 * Sessions (several videos on one copy of the weights, as whisper.cpp's context / state
 * split): a session plans exactly as its model engine does, checks that its weights region
 * is the same slot for slot, and commits only the regions after it (state, workspace,
 * staging, scratch) from a pool of its own; its weight slots resolve into the model
 * engine's pool (core/arena.h, samrt_arena_commit_shared). It re-reads the checkpoint for
 * the derived constants its prepare writes outside the weights; writes into the weights are
 * skipped (models/model_env.c). The weights' pool is reference-counted: freeing the model
 * engine while sessions live keeps it until the last of them is freed. */
#include "engine_impl.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ckpt.h"
#include "family.h"
#include "engine_limits.h"

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
    p.sm_limit = 0;  /* the whole GPU */
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

/* Weights: one persistent slot per floating-point checkpoint tensor, at run precision (a model
 * may release the slots of tensors it keeps only as a derived copy: samrt_engine_release_weights).
 * Workspace: one slot of the larger of the profile's two fixed caps (GPU pools only), so the
 * plan is exact without a GPU. */
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
    /* One workspace slot serves both libraries: every launch of an engine is ordered on its one
     * stream (a captured graph is the same chain), so a cuBLASLt GEMM and a cuDNN convolution
     * never use it at the same time. It holds the larger cap; each library still chooses its
     * algorithms within its own cap (samrt_sam2_ctx_init). */
    e->slot_ws = -1;
    const uint64_t ws_lt = e->profile->cublaslt_ws_bytes, ws_dnn = e->profile->cudnn_ws_bytes;
    if (e->mem_kind != SAMRT_MEM_HOST && (ws_lt || ws_dnn))
        SAMRT_TRY(samrt_plan_add(&e->plan, "workspace", SAMRT_REGION_WORKSPACE, ws_lt > ws_dnn ? ws_lt : ws_dnn, 0, 0,
                                 &e->slot_ws));
    samrt_weights_sort(&e->weights);
    SAMRT_TRY(e->family->plan(e));  /* the forward passes' slots, before the plan is final */
    SAMRT_TRY(samrt_plan_finalize(&e->plan));
    return SAMRT_OK;
}

int samrt_engine_release_weights(struct samrt_engine *e, const char *prefix, const char *except) {
    return e ? samrt_weights_release(&e->weights, &e->plan, prefix, except) : 0;
}

/* Every kept weight's tensor at its slot: the engine's own pool, or a session's model engine's. */
static void resolve_weights(struct samrt_engine *e) {
    for (int i = 0; i < e->weights.n; i++)
        if (!e->weights.items[i].released)
            e->weights.items[i].t.data = samrt_arena_ptr(&e->arena, e->weights.items[i].slot);
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
        const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, w->name);
        uint64_t bytes = samrt_tensor_nbytes(&w->t);
        st = samrt_ckpt_read(ck, t, e->precision, bounce, bytes);
        if (st == SAMRT_OK) st = samrt_platform_mem_upload(e->mem_kind, w->t.data, bounce, bytes);
    }
    free(bounce);
    return st;
}

struct samrt_weight_share {
    atomic_int refs;               /* engines reading the weights */
    void *pool;                    /* the model engine's pool: weights first */
    enum samrt_mem_kind mem_kind;
};

static void share_release(struct samrt_weight_share *s) {
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
        if (s->pool) samrt_platform_mem_free(s->mem_kind, s->pool);
        free(s);
    }
}

/* A session must run what its model engine runs: the same resolved precision, model side,
 * memory kind, device and workspace caps (the profile), so that the weights plan matches. */
static enum samrt_status check_session(const struct samrt_engine *e, const struct samrt_engine *from) {
    SAMRT_CHECK(e->model == from->model, SAMRT_E_MODEL_MISMATCH, "session: model %s, its weights are %s",
                samrt_model_name(e->model), samrt_model_name(from->model));
#define SAME(what, x, fmt, a, b) \
    SAMRT_CHECK(x, SAMRT_E_INVALID_ARG, "session: " what " " fmt " differs from the model engine's " fmt, a, b)
    SAME("precision", e->precision == from->precision, "%s", samrt_dtype_name(e->precision),
         samrt_dtype_name(from->precision));
    SAME("imgsz", e->params.imgsz == from->params.imgsz, "%d", e->params.imgsz, from->params.imgsz);
    SAME("memory kind", e->mem_kind == from->mem_kind, "%s", samrt_mem_kind_name(e->mem_kind),
         samrt_mem_kind_name(from->mem_kind));
    SAME("device", e->params.device == from->params.device, "%d", e->params.device, from->params.device);
    /* by name: an SM share's profile is the engine's own scaled copy (backend.c) */
    SAME("platform profile", !strcmp(e->profile->name, from->profile->name) && e->profile->sm_count == from->profile->sm_count,
         "%s", e->profile->name, from->profile->name);
#undef SAME
    SAMRT_CHECK(samrt_plan_same_weights(&e->plan, &from->plan), SAMRT_E_BAD_STATE,
                "session: the weights plan differs from the model engine's");
    return SAMRT_OK;
}

/* sm_limit before anything is read: what no engine of this build could give fails at once
 * (a session shares its model engine's green context, so it asks for the same count). */
static enum samrt_status check_sm_limit(const struct samrt_engine_params *params, const struct samrt_engine *from) {
    SAMRT_CHECK(params->sm_limit >= 0, SAMRT_E_INVALID_ARG, "sm_limit %d: must be >= 0 (0 = the whole GPU)",
                params->sm_limit);
    SAMRT_CHECK(!from || params->sm_limit == from->params.sm_limit, SAMRT_E_INVALID_ARG,
                "session: sm_limit %d differs from the model engine's %d", params->sm_limit, from->params.sm_limit);
    SAMRT_CHECK(params->sm_limit == 0 || samrt_platform_has_cuda(), SAMRT_E_UNSUPPORTED,
                "sm_limit %d: this build has no CUDA (SAMRT_CUDA=OFF): green contexts need a CUDA build",
                params->sm_limit);
    return SAMRT_OK;
}

/* The family's prepare inside the engine's SM share when it has one (backend.h): the events
 * and streams it makes belong to the share's green context, and the pool's zeroing and the
 * uploads are done before its first kernel. */
static enum samrt_status prepare_engine(struct samrt_engine *e, const struct samrt_ckpt *ck) {
    SAMRT_TRY(samrt_backend_enter(e));
    const enum samrt_status st = e->family->prepare(e, ck);
    const enum samrt_status left = samrt_backend_leave(e);
    return st != SAMRT_OK ? st : left;
}

/* samrt_engine_init, or with `from` a session reading from's weights. */
static enum samrt_status engine_init(const char *checkpoint_path, const struct samrt_engine_params *params,
                                     struct samrt_engine *from, samrt_engine_t *out) {
    SAMRT_CHECK(params->imgsz >= SAMRT_IMGSZ_MIN && params->imgsz <= SAMRT_IMGSZ_MAX && params->imgsz % 16 == 0,
                SAMRT_E_INVALID_ARG, "imgsz %d: must be a multiple of 16 in [%d, %d]", params->imgsz, SAMRT_IMGSZ_MIN,
                SAMRT_IMGSZ_MAX);
    SAMRT_CHECK(params->max_objects >= 1 && params->max_objects <= SAMRT_MAX_OBJECTS, SAMRT_E_INVALID_ARG,
                "max_objects %d: must be in [1, %d]", params->max_objects, SAMRT_MAX_OBJECTS);
    SAMRT_TRY(check_sm_limit(params, from));

    struct samrt_engine *e = calloc(1, sizeof *e);
    SAMRT_CHECK(e != NULL, SAMRT_E_HOST_MEMORY, "engine: out of host memory");
    e->params = *params;
    e->ckpt_path = strdup(checkpoint_path);
    if (!e->ckpt_path) {
        free(e);
        SAMRT_CHECK(0, SAMRT_E_HOST_MEMORY, "engine: out of host memory");
    }
    struct samrt_ckpt ck;
    memset(&ck, 0, sizeof ck);
    enum samrt_status st = samrt_ckpt_open(checkpoint_path, &ck);
    if (st == SAMRT_OK) {
        e->family = samrt_family_for(params->expect_model, ck.tensors, ck.n_tensors);
        if (!e->family) {
            SAMRT_LOG_ERROR("%s: no model family of this build recognises the checkpoint", checkpoint_path);
            st = SAMRT_E_KEYS;
        }
    }
    if (st == SAMRT_OK) st = e->family->recognise(params->expect_model, ck.tensors, ck.n_tensors, &e->model);
    if (st == SAMRT_OK) {
        e->family->key_tensors(e->model, NULL, NULL, &e->weights.n_params);  /* the count alone */
        samrt_ckpt_check_finite(&ck);
        st = resolve_profile(e);
    }
    if (st == SAMRT_OK && params->sm_limit > 0 && e->mem_kind == SAMRT_MEM_HOST) {
        SAMRT_LOG_ERROR("sm_limit %d: a host engine (memory kind host, profile %s) has no GPU work to confine; "
                        "green contexts need a device engine", params->sm_limit, e->profile->name);
        st = SAMRT_E_UNSUPPORTED;
    }
    if (st == SAMRT_OK && from) e->sm_share = samrt_platform_sm_share_retain(from->sm_share);  /* backend.c */
    if (st == SAMRT_OK) st = plan_engine(e, ck.tensors, ck.n_tensors);
    if (st == SAMRT_OK && from) st = check_session(e, from);
    /* a session's pool: the regions after the weights */
    const uint64_t need = from ? samrt_plan_own_bytes(&e->plan) : e->plan.total_bytes;
    if (st == SAMRT_OK) {
        if (params->verbose) samrt_plan_log(&e->plan, SAMRT_LOG_INFO);
        if (need > e->profile->pool_bytes) {
            SAMRT_LOG_ERROR("arena plan needs %" PRIu64 " bytes (%.2f MiB) but profile %s allows a pool of %" PRIu64
                            " bytes (%.2f MiB)", need, need / 1048576.0, e->profile->name,
                            e->profile->pool_bytes, e->profile->pool_bytes / 1048576.0);
            st = SAMRT_E_ARENA_TOO_SMALL;
        }
    }
    if (st == SAMRT_OK) st = samrt_platform_mem_alloc(e->mem_kind, need, &e->pool);
    if (st == SAMRT_OK && !from) {
        e->share = calloc(1, sizeof *e->share);
        if (!e->share) {
            samrt_platform_mem_free(e->mem_kind, e->pool);
            e->pool = NULL;
            st = SAMRT_E_HOST_MEMORY;
        } else {
            atomic_init(&e->share->refs, 1);
            e->share->pool = e->pool, e->share->mem_kind = e->mem_kind;
        }
    }
    if (st == SAMRT_OK && from) {
        e->is_session = 1;
        atomic_fetch_add(&from->share->refs, 1);
        e->share = from->share;
    }
    if (st == SAMRT_OK)
        st = from ? samrt_arena_commit_shared(&e->arena, &e->plan, e->pool, need, from->share->pool)
                  : samrt_arena_commit(&e->arena, &e->plan, e->pool, e->plan.total_bytes);
    if (st == SAMRT_OK) resolve_weights(e);  /* a session's read the model engine's bytes */
    if (st == SAMRT_OK && !from) st = load_weights(e, &ck);
    if (st == SAMRT_OK) st = prepare_engine(e, &ck);
    samrt_ckpt_close(&ck);
    if (st != SAMRT_OK) {
        samrt_engine_free(e);
        return st;
    }
    SAMRT_LOG_INFO("%s: %" PRIu64 " parameters, %s, arena %.2f MiB (%s) on profile %s%s", samrt_model_name(e->model),
                   e->weights.n_params, samrt_dtype_name(e->precision), need / 1048576.0,
                   samrt_mem_kind_name(e->mem_kind), e->profile->name, from ? ", a session on shared weights" : "");
    *out = e;
    return SAMRT_OK;
}

enum samrt_status samrt_engine_init(const char *checkpoint_path, const struct samrt_engine_params *params,
                                    samrt_engine_t *out) {
    if (out) *out = NULL;
    SAMRT_CHECK(checkpoint_path && params && out, SAMRT_E_INVALID_ARG,
                "engine_init: checkpoint path, params and out are required");
    return engine_init(checkpoint_path, params, NULL, out);
}

enum samrt_status samrt_engine_init_session(samrt_engine_t model, const struct samrt_engine_params *params,
                                            samrt_engine_t *out) {
    if (out) *out = NULL;
    SAMRT_CHECK(model && out, SAMRT_E_INVALID_ARG, "engine_init_session: model and out are required");
    SAMRT_CHECK(!model->plan_only && model->share && model->ckpt_path, SAMRT_E_INVALID_ARG,
                "engine_init_session: a plan-only engine has no weights to share");
    struct samrt_engine_params p = params ? *params : model->params;
    if (!params) p.platform = model->profile->name;  /* the model's may have been the caller's string */
    /* the session runs its model engine's model: where variants share a key layout
     * (EfficientTAM's), the file name alone may name another one */
    if (p.expect_model == SAMRT_MODEL_UNKNOWN) p.expect_model = model->model;
    return engine_init(model->ckpt_path, &p, model, out);
}

/* The plan of a model without its checkpoint: weights come from the family's key table (its
 * key_tensors) with the same shapes a checkpoint must have, and the model's PLAN passes run
 * exactly as in samrt_engine_init, with no pool and no GPU. samrt_engine_memory() then
 * reports what samrt_engine_init would commit on that profile. */
enum samrt_status samrt_engine_init_plan_only(enum samrt_model_id model, const struct samrt_engine_params *params,
                                              samrt_engine_t *out) {
    if (out) *out = NULL;
    SAMRT_CHECK(params && out, SAMRT_E_INVALID_ARG, "engine_init_plan_only: params and out are required");
    SAMRT_CHECK(params->platform != NULL, SAMRT_E_INVALID_ARG, "a budget needs a platform profile");
    const struct samrt_family *fam = samrt_family_of(model);
    SAMRT_CHECK(fam, SAMRT_E_INVALID_ARG, "samrt_keys_init: no key layout for model %d", (int)model);
    struct samrt_ckpt_tensor *t = NULL;
    int n = 0;
    uint64_t n_params = 0;
    SAMRT_TRY(fam->key_tensors(model, &t, &n, &n_params));
    struct samrt_engine *e = calloc(1, sizeof *e);
    enum samrt_status st = e ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) {
        e->params = *params;
        e->model = model;
        e->family = fam;
        e->plan_only = 1;
        e->weights.n_params = n_params;
        st = resolve_profile(e);
    }
    if (st == SAMRT_OK && params->sm_limit > 0) {  /* a budget of an SM share (samrt budget --sm-limit) */
        if (params->sm_limit > e->profile->sm_count) {
            SAMRT_LOG_ERROR("sm_limit %d: profile %s has %d SMs", params->sm_limit, e->profile->name,
                            e->profile->sm_count);
            st = SAMRT_E_INVALID_ARG;
        } else {
            samrt_backend_share_profile(e, params->sm_limit);
        }
    }
    if (st == SAMRT_OK) st = plan_engine(e, t, n);
    samrt_family_free_tensors(t, n);
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
    if (e->family) e->family->free(e);
    samrt_backend_close(e);  /* after every pass that borrowed the GPU context */
    /* the model engine's pool holds the weights: it goes with the last engine reading them */
    if (e->share) {
        if (e->is_session && e->pool) samrt_platform_mem_free(e->mem_kind, e->pool);
        share_release(e->share);
    } else if (e->pool) {
        samrt_platform_mem_free(e->mem_kind, e->pool);
    }
    samrt_weights_free(&e->weights);
    free(e->ckpt_path);
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
    if (e->is_session) {  /* its own pool; the weights are the model engine's */
        out->weights_shared_bytes = out->weights_bytes;
        out->weights_bytes = 0;
        out->arena_bytes = samrt_plan_own_bytes(&e->plan);
    }
    out->pool_capacity_bytes = e->profile->pool_bytes;
    out->mem_kind = e->mem_kind;
    return SAMRT_OK;
}

enum samrt_status samrt_engine_io_counters(samrt_engine_t e, struct samrt_io_counters *out) {
    SAMRT_CHECK(e && out, SAMRT_E_INVALID_ARG, "engine_io_counters: engine and out are required");
    *out = e->io;
    return SAMRT_OK;
}

enum samrt_status samrt_engine_model(samrt_engine_t e, enum samrt_model_id *id, uint64_t *n_params) {
    SAMRT_CHECK(e, SAMRT_E_INVALID_ARG, "engine_model: engine is NULL");
    if (id) *id = e->model;
    if (n_params) *n_params = e->weights.n_params;
    return SAMRT_OK;
}
