/* exec.h - one forward-pass function, run twice: once in PLAN mode at setup and once per
 * frame in RUN mode. In PLAN mode every samrt_exec_new() adds a scratch slot to the arena
 * plan, and every samrt_exec_use() stretches that slot's lifetime to the current step, so
 * the activation plan is derived from the very code that runs; no kernel is launched and
 * the tensors' data pointers are opaque tags. In RUN mode samrt_exec_new() hands out the
 * committed slots in the same order, and the model launches kernels. The sequence of
 * samrt_exec_new() calls must not depend on data (it never does in these models: shapes
 * are fixed by the config), which is also what makes a CUDA graph of RUN mode valid.
 *
 *   samrt_exec_begin(&ex, SAMRT_EXEC_PLAN, &plan, NULL);  forward(&ex);  samrt_exec_end(&ex);
 *   ... samrt_plan_finalize, commit ...
 *   samrt_exec_begin(&ex, SAMRT_EXEC_RUN, &plan, &arena); forward(&ex);  samrt_exec_end(&ex);
 */
#ifndef SAMRT_EXEC_H
#define SAMRT_EXEC_H

#include "arena.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

enum samrt_exec_mode { SAMRT_EXEC_PLAN = 0, SAMRT_EXEC_RUN = 1 };

#define SAMRT_EXEC_MAX_TENSORS 8192

struct samrt_exec {
    enum samrt_exec_mode mode;
    struct samrt_plan *plan;          /* PLAN: receives slots; RUN: the finalized plan */
    const struct samrt_arena *arena;  /* RUN only */
    int step;                         /* op counter: lifetimes are measured in steps */
    int n_new;                        /* samrt_exec_new calls so far in this pass */
    int slot_of[SAMRT_EXEC_MAX_TENSORS]; /* k-th new -> plan slot (filled in PLAN) */
    int n_planned;                    /* how many news the PLAN pass made */
    enum samrt_status status;         /* first error; later calls become no-ops */
};

/* Starts a pass. A RUN pass must follow a PLAN pass over the same exec (slot_of is kept). */
void samrt_exec_begin(struct samrt_exec *ex, enum samrt_exec_mode mode, struct samrt_plan *plan,
                      const struct samrt_arena *arena);
/* Ends a pass; in RUN mode checks that the news matched the plan one for one. */
enum samrt_status samrt_exec_end(struct samrt_exec *ex);

/* A new contiguous tensor in `region` (SCRATCH: lifetime from now to its last use). */
struct samrt_tensor samrt_exec_new(struct samrt_exec *ex, const char *name, enum samrt_region region,
                                   enum samrt_dtype dtype, int n_dims, const int64_t *ne);
/* Marks t as used by the current step (extends a scratch slot's lifetime). Views of a
 * tensor (slices, permutes) count as uses of it. No-op in RUN mode and for weights. */
void samrt_exec_use(struct samrt_exec *ex, const struct samrt_tensor *t);
/* Advances the step counter; call once per op, after its uses. */
static inline void samrt_exec_step(struct samrt_exec *ex) { ex->step++; }
static inline int samrt_exec_running(const struct samrt_exec *ex) {
    return ex->mode == SAMRT_EXEC_RUN && ex->status == SAMRT_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_EXEC_H */
