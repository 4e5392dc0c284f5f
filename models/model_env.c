/* model_env.c - the lookups, uploads, the binder and the configuration checks of model_env.h,
 * shared by every network's bind and prepare so that each is written once. */
#include "model_env.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "samrt_impl.h"

/* The weight `name` when it has exactly the shape (n_dims, ne); otherwise logs what it found
 * and sets *st = SAMRT_E_KEYS. */
static const struct samrt_tensor *model_weight(const struct samrt_model_env *env, enum samrt_status *st,
                                               const char *name, int n_dims, const int64_t *ne) {
    const struct samrt_tensor *t = env ? samrt_weights_find(env->weights, name) : NULL;
    int ok = t && t->n_dims == n_dims;
    for (int d = 0; ok && d < n_dims; d++) ok = t->ne[d] == ne[d];
    if (!ok) {
        char want[64], got[64];
        SAMRT_LOG_ERROR("weights: %s is %s, expected %s", name,
                        t ? samrt_tensor_shape_str(t->n_dims, t->ne, got, sizeof got) : "missing",
                        samrt_tensor_shape_str(n_dims, ne, want, sizeof want));
        *st = SAMRT_E_KEYS;
        return NULL;
    }
    return t;
}

void *samrt_model_slot(const struct samrt_model_env *env, int slot) {
    return slot >= 0 ? samrt_arena_ptr(env->arena, slot) : NULL;
}

enum samrt_status samrt_model_upload(const struct samrt_model_env *env, void *dst, const void *src, uint64_t bytes) {
    const struct samrt_arena *a = env->arena;
    if (a && a->weights_base) {  /* a session: its weights region is another engine's, already written */
        const uint8_t *p = dst, *lo = a->weights_base, *hi = lo + a->plan->region_bytes[SAMRT_REGION_WEIGHTS];
        if (p >= lo && p < hi) return SAMRT_OK;
    }
    return samrt_platform_mem_upload(env->mem_kind, dst, src, bytes);
}

enum samrt_status samrt_model_weights_f32_copy(const struct samrt_model_env *env, const struct samrt_ckpt *ck, int n,
                                               const struct samrt_tensor *const *src,
                                               const struct samrt_tensor *dst) {
    SAMRT_CHECK(env && ck && (n == 0 || (src && dst)), SAMRT_E_INVALID_ARG, "f32 weight copies: NULL argument");
    int64_t most = 0;
    for (int i = 0; i < n; i++) {
        SAMRT_CHECK(dst[i].dtype == SAMRT_DTYPE_F32 && dst[i].data, SAMRT_E_INVALID_ARG,
                    "f32 weight copies: copy %d is not a resolved f32 tensor", i);
        most = SAMRT_MAX(most, samrt_tensor_nelements(&dst[i]));
    }
    float *buf = malloc(sizeof(float) * (size_t)SAMRT_MAX(most, 1));  /* setup only */
    SAMRT_CHECK(buf != NULL, SAMRT_E_HOST_MEMORY, "f32 weight copies: out of host memory");
    enum samrt_status st = SAMRT_OK;
    for (int i = 0; st == SAMRT_OK && i < n; i++) {
        const int64_t m = samrt_tensor_nelements(&dst[i]);
        const char *name = samrt_weights_name(env->weights, src[i]);
        const struct samrt_ckpt_tensor *ct = name ? samrt_ckpt_find(ck, name) : NULL;
        if (!ct || ct->nelements != m) {
            SAMRT_LOG_ERROR("f32 weight copy %d (%s) missing or mis-shaped in the checkpoint", i,
                            name ? name : "not an engine weight");
            st = SAMRT_E_KEYS;
            break;
        }
        st = samrt_ckpt_read(ck, ct, SAMRT_DTYPE_F32, buf, sizeof(float) * (size_t)m);
        if (st == SAMRT_OK) st = samrt_model_upload(env, dst[i].data, buf, sizeof(float) * (size_t)m);
    }
    free(buf);
    return st;
}

const struct samrt_tensor *samrt_model_bindw(struct samrt_model_binder *b, int n_dims, const int64_t *ne,
                                             const char *fmt, ...) {
    if (b->st != SAMRT_OK) return NULL;
    char name[sizeof b->bound->keys[0].name];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (b->bound) {
        if (b->bound->n >= SAMRT_MODEL_MAX_BOUND_KEYS) {
            b->st = SAMRT_E_UNSUPPORTED;
            return NULL;
        }
        struct samrt_model_bound_key *k = &b->bound->keys[b->bound->n++];
        memcpy(k->name, name, sizeof name);
        k->n_dims = n_dims;
        for (int d = 0; d < 4; d++) k->ne[d] = d < n_dims ? ne[d] : 1;
    }
    if (!b->env) return NULL;
    return model_weight(b->env, &b->st, name, n_dims, ne);
}

enum samrt_status samrt_model_check_config(const char *module, int model_side, int side_min, int side_step, int b_max,
                                           int max_obj, enum samrt_dtype dtype) {
    SAMRT_CHECK(model_side >= side_min && side_step > 0 && model_side % side_step == 0, SAMRT_E_INVALID_ARG,
                "%s: model side %d must be a multiple of %d, at least %d", module, model_side, side_step, side_min);
    SAMRT_CHECK(b_max >= 1 && b_max <= max_obj, SAMRT_E_INVALID_ARG, "%s: %d object slots (1 .. %d)", module, b_max,
                max_obj);
    SAMRT_CHECK(dtype == SAMRT_DTYPE_F32 || dtype == SAMRT_DTYPE_F16 || dtype == SAMRT_DTYPE_BF16,
                SAMRT_E_INVALID_ARG, "%s: run dtype %s", module, samrt_dtype_name(dtype));
    return SAMRT_OK;
}
