/* family.c - the model-family registry's look-ups (family.h): the family of a model id, the
 * family of a checkpoint, and the key-table tensors a family hands the engine for a budget. */
#include "family.h"

#include <stdlib.h>

const struct samrt_family *samrt_family_of(enum samrt_model_id id) {
    for (int i = 0; samrt_families[i]; i++)
        for (int k = 0; k < samrt_families[i]->n_models; k++)
            if (samrt_families[i]->models[k] == id) return samrt_families[i];
    return NULL;
}

const struct samrt_family *samrt_family_for(enum samrt_model_id expect, const struct samrt_ckpt_tensor *t, int n) {
    if (expect != SAMRT_MODEL_UNKNOWN) return samrt_family_of(expect);
    const struct samrt_family *fallback = NULL;
    for (int i = 0; samrt_families[i]; i++) {
        const struct samrt_family *f = samrt_families[i];
        if (f->claims && f->claims(t, n)) return f;
        if (!f->claims && !fallback) fallback = f;
    }
    return fallback;
}

void samrt_family_free_tensors(struct samrt_ckpt_tensor *t, int n) {
    if (!t) return;
    for (int i = 0; i < n; i++) free(t[i].name);
    free(t);
}
