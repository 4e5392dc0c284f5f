/* exec.c - PLAN / RUN passes over a model's forward function (see exec.h).
 * PLAN-mode data pointers are tags: TAG_BASE + k * TAG_STRIDE for the k-th new tensor, with
 * room inside each tag for views that offset the pointer (slices). A pointer is mapped back
 * to its tensor by division, so samrt_exec_use costs O(1). */
#include "exec.h"

#include <string.h>

#define TAG_BASE ((uintptr_t)1 << 40)
#define TAG_STRIDE ((uintptr_t)1 << 36)   /* 64 GiB of view offsets per tensor */

void samrt_exec_begin(struct samrt_exec *ex, enum samrt_exec_mode mode, struct samrt_plan *plan,
                      const struct samrt_arena *arena) {
    ex->mode = mode;
    ex->plan = plan;
    ex->arena = arena;
    ex->step = 0;
    ex->n_new = 0;
    ex->status = SAMRT_OK;
    if (mode == SAMRT_EXEC_PLAN) ex->n_planned = 0;
}

enum samrt_status samrt_exec_end(struct samrt_exec *ex) {
    if (ex->status != SAMRT_OK) return ex->status;
    if (ex->mode == SAMRT_EXEC_PLAN) {
        ex->n_planned = ex->n_new;
        return SAMRT_OK;
    }
    SAMRT_CHECK(ex->n_new == ex->n_planned, SAMRT_E_BAD_STATE,
                "exec: run pass made %d tensors, the plan has %d", ex->n_new, ex->n_planned);
    return SAMRT_OK;
}

struct samrt_tensor samrt_exec_new(struct samrt_exec *ex, const char *name, enum samrt_region region,
                                   enum samrt_dtype dtype, int n_dims, const int64_t *ne) {
    struct samrt_tensor t = samrt_tensor_make(NULL, dtype, n_dims, ne);
    if (ex->status != SAMRT_OK) return t;
    int k = ex->n_new++;
    if (k >= SAMRT_EXEC_MAX_TENSORS) {
        SAMRT_LOG_ERROR("exec: more than %d tensors in one pass", SAMRT_EXEC_MAX_TENSORS);
        ex->status = SAMRT_E_INVALID_ARG;
        return t;
    }
    if (ex->mode == SAMRT_EXEC_PLAN) {
        int slot = -1;
        enum samrt_status st = samrt_plan_add(ex->plan, name, region, samrt_tensor_nbytes(&t), ex->step,
                                              ex->step, &slot);
        if (st != SAMRT_OK) {
            ex->status = st;
            return t;
        }
        ex->slot_of[k] = slot;
        t.data = (void *)(TAG_BASE + (uintptr_t)k * TAG_STRIDE);
        return t;
    }
    if (k >= ex->n_planned) {
        SAMRT_LOG_ERROR("exec: tensor '%s' was not in the plan", name ? name : "?");
        ex->status = SAMRT_E_BAD_STATE;
        return t;
    }
    const struct samrt_arena_slot *s = &ex->plan->slots[ex->slot_of[k]];
    if (s->nbytes != samrt_tensor_nbytes(&t) || s->region != region) {
        SAMRT_LOG_ERROR("exec: tensor '%s' differs from its planned slot '%s'", name ? name : "?",
                        s->name ? s->name : "?");
        ex->status = SAMRT_E_BAD_STATE;
        return t;
    }
    t.data = samrt_arena_ptr(ex->arena, ex->slot_of[k]);
    return t;
}

void samrt_exec_use(struct samrt_exec *ex, const struct samrt_tensor *t) {
    if (ex->mode != SAMRT_EXEC_PLAN || ex->status != SAMRT_OK || !t) return;
    uintptr_t p = (uintptr_t)t->data;
    if (p < TAG_BASE) return;  /* a weight or a caller buffer */
    uintptr_t k = (p - TAG_BASE) / TAG_STRIDE;
    if (k >= (uintptr_t)ex->n_new) return;
    struct samrt_arena_slot *s = &ex->plan->slots[ex->slot_of[k]];
    if (s->region == SAMRT_REGION_SCRATCH && ex->step > s->t_last) s->t_last = ex->step;
}
