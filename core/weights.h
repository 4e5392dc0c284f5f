/* weights.h - the weight table: one entry per floating-point checkpoint tensor, converted to
 * the run precision into a slot of the arena's weights region. Sorted by name for lookup.
 * A model may release the slots of tensors it keeps only in a derived form (EdgeTAM's
 * BatchNorm-folded trunk): the entry stays (shape checks, budget tables) with no bytes.
 * Weights (read-only after init) are kept apart from run state, as whisper.cpp splits
 * whisper_context from whisper_state. */
#ifndef SAMRT_WEIGHTS_H
#define SAMRT_WEIGHTS_H

#include "arena.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One checkpoint tensor, converted into the arena's weights region. */
struct samrt_weight {
    char *name;                 /* official state_dict key (host heap, freed by samrt_weights_free) */
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

/* Sorts the table by name; call once it is filled, before any lookup. */
void samrt_weights_sort(struct samrt_weights *w);
/* The tensor called `name`, or NULL. */
const struct samrt_tensor *samrt_weights_find(const struct samrt_weights *w, const char *name);
/* 1 when `name` was released. */
int samrt_weights_released(const struct samrt_weights *w, const char *name);
/* The checkpoint name of t, a tensor samrt_weights_find returned; NULL for any other tensor
 * (a linear search: setup only). */
const char *samrt_weights_name(const struct samrt_weights *w, const struct samrt_tensor *t);
/* Releases every weight whose name starts with `prefix` and does not contain `except` (NULL:
 * no exception): its slot in `plan` (not yet finalized) keeps its name with 0 bytes, lookups
 * still return the tensor (shapes) but its data stays NULL and nothing is uploaded. Returns
 * the number of weights released (0 once the plan is final). */
int samrt_weights_release(struct samrt_weights *w, struct samrt_plan *plan, const char *prefix, const char *except);
/* Frees the names and the table. */
void samrt_weights_free(struct samrt_weights *w);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_WEIGHTS_H */
