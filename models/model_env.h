/* model_env.h - what a network needs from the engine that runs it, and nothing more: the
 * weight table, the committed arena (slot addresses), the kind of memory it lives in
 * (uploads of constants at prepare) and the run precision. The runtime fills one for its
 * engine (runtime/engine.c, samrt_engine_env); tests fill one by hand. The networks never see
 * struct samrt_engine, so models/ sits below the runtime. Also the binder that every
 * network's bind shares (weights by formatted name with their expected shapes, optionally
 * listing the keys it asks for), so that a building block (models/edgetam) binds through the
 * same one as its host network, and the configuration checks those binds share. */
#ifndef SAMRT_MODEL_ENV_H
#define SAMRT_MODEL_ENV_H

#include "arena.h"
#include "ckpt.h"
#include "samrt_impl.h"
#include "weights.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_model_env {
    const struct samrt_weights *weights;  /* checkpoint tensors at run precision */
    const struct samrt_arena *arena;      /* committed at prepare (not read while planning) */
    enum samrt_mem_kind mem_kind;         /* where the arena lives */
    enum samrt_dtype precision;           /* the run precision */
};

/* The address of arena slot `slot` (NULL for a negative slot). Prepare time. */
void *samrt_model_slot(const struct samrt_model_env *env, int slot);
/* Copies `bytes` host bytes into the arena at dst (a slot address). Setup only. An arena
 * whose weights region is shared (samrt_arena_commit_shared: a session of another engine)
 * skips copies into that region: the owner wrote the same bytes, and other sessions may be
 * reading them. */
enum samrt_status samrt_model_upload(const struct samrt_model_env *env, void *dst, const void *src, uint64_t bytes);
/* f32 copies of weights, read at full precision from ck (not widened from the run-dtype copy):
 * dst[i] (f32, data resolved in the arena) receives the checkpoint values of src[i] (a tensor
 * of env->weights), found under its name. SAMRT_E_KEYS when a source is not in the table or
 * the checkpoint lacks it at dst[i]'s element count. Setup only. */
enum samrt_status samrt_model_weights_f32_copy(const struct samrt_model_env *env, const struct samrt_ckpt *ck, int n,
                                               const struct samrt_tensor *const *src,
                                               const struct samrt_tensor *dst);

/* Keys (with the shapes asked for) seen by a binder, for the "each key exactly once" check
 * and for tests that build weights for a configuration. */
#define SAMRT_MODEL_MAX_BOUND_KEYS 1024
struct samrt_model_bound_key {
    char name[128];
    int n_dims;
    int64_t ne[4];
};
struct samrt_model_bound_keys {
    struct samrt_model_bound_key keys[SAMRT_MODEL_MAX_BOUND_KEYS];
    int n;
};

/* Binding state of one module's bind, shared with the building blocks it binds: the engine's
 * weight table (env NULL: list keys only), the key list being filled (may be NULL), the first
 * failure. */
struct samrt_model_binder {
    const struct samrt_model_env *env;
    struct samrt_model_bound_keys *bound;
    enum samrt_status st;
};
/* The weight named by fmt with exactly this shape, or NULL (b->st set to SAMRT_E_KEYS after
 * logging "weights: <name> is <shape or missing>, expected <shape>"; also NULL when only
 * listing keys or once b->st holds an error). The one way a network binds a weight: a bind
 * runs its lookups one after another and returns b->st at the end. */
const struct samrt_tensor *samrt_model_bindw(struct samrt_model_binder *b, int n_dims, const int64_t *ne,
                                             const char *fmt, ...) SAMRT_PRINTF(4, 5);

/* The configuration checks that the modules' binds share, each failure logged as
 * "<module>: ..." with SAMRT_E_INVALID_ARG: the model side is a multiple of side_step and at
 * least side_min, the object slots per pass are 1 .. max_obj, the run dtype is f32, f16 or
 * bf16 (the dtypes the kernels have). */
enum samrt_status samrt_model_check_config(const char *module, int model_side, int side_min, int side_step, int b_max,
                                           int max_obj, enum samrt_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_MODEL_ENV_H */
