/* engine_impl.h - the engine struct, shared by runtime/engine.c and the model code that binds
 * weights and plans activations. Weights (read-only after init) are kept apart from run
 * state, as whisper.cpp splits whisper_context from whisper_state. */
#ifndef SAMRT_ENGINE_IMPL_H
#define SAMRT_ENGINE_IMPL_H

#include "arena.h"
#include "model_env.h"
#include "platform.h"
#include "samrt_impl.h"
#include "tensor.h"
#include "weights.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_family;
struct samrt_ckpt;
struct samrt_gpu_ctx;
struct samrt_weight_share;  /* engine.c: the pool holding the weights, counted by its engines */

struct samrt_engine {
    struct samrt_engine_params params;
    enum samrt_model_id model;
    const struct samrt_platform_profile *profile;
    struct samrt_platform_profile profile_share; /* params.sm_limit: the profile scaled to the SMs
                                        granted (backend.c); then profile points here */
    enum samrt_mem_kind mem_kind;
    enum samrt_dtype precision;

    struct samrt_arena_slot *slots;  /* plan storage (host heap, setup only) */
    struct samrt_plan plan;
    struct samrt_arena arena;
    void *pool;                      /* the one allocation from the platform */

    struct samrt_weights weights;
    int slot_ws;                          /* the workspace cuBLASLt and cuDNN share (-1 when absent) */
    int failed;                      /* set after a run failure; the engine refuses work */
    int plan_only;                   /* a budget: planned from the key table, no pool, no GPU */
    struct samrt_gpu_ctx *gpu;       /* device engines: the GPU context (cuBLASLt / cuDNN handles, the
                                        stream), opened by the family's plan (backend.c); else NULL */
    samrt_sm_share *sm_share;        /* params.sm_limit > 0: the green context the GPU context lives in
                                        (platform.h), shared with the engine's sessions; else NULL */
    const struct samrt_family *family; /* the checkpoint's model family (family.h), set when recognised */
    void *model_state;               /* the family's state (opaque outside its folder); NULL until planned,
                                        and when the family plans no forward pass (host engines below f32) */
    struct samrt_model_env env;      /* what the networks see of this engine (samrt_engine_env) */
    char *ckpt_path;                 /* the checkpoint (host heap): sessions read its derived constants */
    struct samrt_weight_share *share;/* the weights' pool and its reference count (NULL: plan-only) */
    struct samrt_io_counters io;     /* frames in (samrt_engine_io_counters), counted by the families */
    const struct samrt_image_nv12 *frame_nv12; /* inside samrt_engine_track_push_nv12 only: the frame's NV12
                                                  planes and colour (the track_push image is its luma); else NULL */
    int is_session;                  /* 1: the weights region is another engine's (samrt_engine_init_session) */
};

/* 1 on device engines (a GPU-visible pool; plan-only budgets of such a profile too): their
 * passes run on the CUDA backend, on the engine's stream (runtime/backend.h). 0 on host engines. */
static inline int samrt_engine_on_device(const struct samrt_engine *e) { return e->mem_kind != SAMRT_MEM_HOST; }

/* The arena plan (finalized), for budget tables. */
const struct samrt_plan *samrt_engine_plan(const struct samrt_engine *e);

/* The networks' view of e: its weight table, arena, memory kind and precision. */
const struct samrt_model_env *samrt_engine_env(struct samrt_engine *e);

/* The weight called `name`, or NULL. */
const struct samrt_tensor *samrt_engine_weight(const struct samrt_engine *e, const char *name);

/* Releases every weight whose name starts with `prefix` and does not contain `except` (NULL:
 * no exception): the model derives its own copy at prepare from the checkpoint (EdgeTAM's
 * BatchNorm-folded trunk), so the run-precision copy would be dead bytes. Planning time only
 * (before the plan is final): the slot keeps its name with 0 bytes, samrt_engine_weight still
 * returns the tensor (shape checks) but its data stays NULL, and nothing is uploaded. Returns
 * the number of weights released. */
int samrt_engine_release_weights(struct samrt_engine *e, const char *prefix, const char *except);
/* 1 when `name` was released. */
int samrt_engine_weight_released(const struct samrt_engine *e, const char *name);
/* The checkpoint name of t, a tensor samrt_engine_weight returned; NULL for any other tensor
 * (a linear search: setup only). */
const char *samrt_engine_weight_name(const struct samrt_engine *e, const struct samrt_tensor *t);
#ifdef __cplusplus
}
#endif

#endif /* SAMRT_ENGINE_IMPL_H */
