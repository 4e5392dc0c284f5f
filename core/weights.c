/* weights.c - the weight table (weights.h): sorted by name, found by bsearch, released by
 * prefix while the plan is open. */
#include "weights.h"

#include <stdlib.h>
#include <string.h>

static int cmp_weight_name(const void *a, const void *b) {
    return strcmp(((const struct samrt_weight *)a)->name, ((const struct samrt_weight *)b)->name);
}

void samrt_weights_sort(struct samrt_weights *w) {
    if (w->n > 1) qsort(w->items, (size_t)w->n, sizeof *w->items, cmp_weight_name);
}

static const struct samrt_weight *find(const struct samrt_weights *w, const char *name) {
    if (!w || !w->items || !name) return NULL;
    struct samrt_weight key = {.name = (char *)name};
    return bsearch(&key, w->items, (size_t)w->n, sizeof key, cmp_weight_name);
}

const struct samrt_tensor *samrt_weights_find(const struct samrt_weights *w, const char *name) {
    const struct samrt_weight *it = find(w, name);
    return it ? &it->t : NULL;
}

int samrt_weights_released(const struct samrt_weights *w, const char *name) {
    const struct samrt_weight *it = find(w, name);
    return it && it->released;
}

const char *samrt_weights_name(const struct samrt_weights *w, const struct samrt_tensor *t) {
    for (int i = 0; w && t && i < w->n; i++)
        if (&w->items[i].t == t) return w->items[i].name;
    return NULL;
}

int samrt_weights_release(struct samrt_weights *w, struct samrt_plan *plan, const char *prefix, const char *except) {
    if (!w || !plan || !prefix || plan->finalized) return 0;
    const size_t n = strlen(prefix);
    int released = 0;
    for (int i = 0; i < w->n; i++) {
        struct samrt_weight *it = &w->items[i];
        if (it->released || strncmp(it->name, prefix, n) != 0 || (except && strstr(it->name, except))) continue;
        it->released = 1;
        plan->slots[it->slot].nbytes = 0;
        released++;
    }
    return released;
}

void samrt_weights_free(struct samrt_weights *w) {
    if (!w) return;
    for (int i = 0; i < w->n; i++) free(w->items[i].name);
    free(w->items);
    memset(w, 0, sizeof *w);
}
