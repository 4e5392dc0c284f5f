/* engine_impl.h - the engine struct, shared by runtime/engine.c and the model code that binds
 * weights and plans activations. Weights (read-only after init) are kept apart from run
 * state, as whisper.cpp splits whisper_context from whisper_state. */
#ifndef SAMRT_ENGINE_IMPL_H
#define SAMRT_ENGINE_IMPL_H

#include "arena.h"
#include "gpu_ctx.h"
#include "platform.h"
#include "samrt_impl.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_sam2;
struct samrt_ckpt;

/* One checkpoint tensor, converted into the arena's weights region. */
struct samrt_weight {
    char *name;                 /* official state_dict key (host heap, freed at engine free) */
    int slot;                   /* arena slot */
    struct samrt_tensor t;      /* view into the arena, at run precision (data NULL if released) */
    int released;               /* the model keeps its own derived copy: no bytes, never uploaded */
};

struct samrt_weights {
    struct samrt_weight *items; /* n, sorted by name for lookup */
    int n;
    uint64_t n_floats;          /* floating-point elements in the checkpoint (float buffers too) */
    uint64_t n_params;          /* parameters as PyTorch counts them (no buffers) */
};

struct samrt_engine {
    struct samrt_engine_params params;
    enum samrt_model_id model;
    const struct samrt_platform_profile *profile;
    enum samrt_mem_kind mem_kind;
    enum samrt_dtype precision;

    struct samrt_arena_slot *slots;  /* plan storage (host heap, setup only) */
    struct samrt_plan plan;
    struct samrt_arena arena;
    void *pool;                      /* the one allocation from the platform */

    struct samrt_weights weights;
    int slot_ws_cublaslt, slot_ws_cudnn;  /* workspaces (-1 when absent) */
    int failed;                      /* set after a run failure; the engine refuses work */
    int plan_only;                   /* a budget: planned from the key table, no pool, no GPU */
#ifdef SAMRT_HAVE_CUDA
    struct samrt_gpu_ctx gpu;        /* cuBLASLt / cuDNN handles, made by runtime/hooks.h planning (GPU pools) */
#endif
    struct samrt_sam2 *sam2;         /* SAM 2 model state (runtime/sam2.h); NULL otherwise */
};

/* The arena plan (finalized), for budget tables. */
const struct samrt_plan *samrt_engine_plan(const struct samrt_engine *e);

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
/* f32 copies of engine weights, read at full precision from ck (not widened from the run-dtype
 * copy): dst[i] (f32, data resolved in the arena) receives the checkpoint values of src[i] (a
 * tensor samrt_engine_weight returned), found under its name. SAMRT_E_KEYS when a source is not
 * an engine weight or the checkpoint lacks it at dst[i]'s element count. Setup only. */
enum samrt_status samrt_engine_weights_f32_copy(const struct samrt_engine *e, const struct samrt_ckpt *ck, int n,
                                                const struct samrt_tensor *const *src,
                                                const struct samrt_tensor *dst);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_ENGINE_IMPL_H */
