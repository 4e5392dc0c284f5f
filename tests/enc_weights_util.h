/* enc_weights_util.h - generated f32 weights for the keys an encoder binder lists, and a
 * host-memory engine around them, for the image-encoder tests that run a trunk on the CPU
 * backend without a checkpoint file (test_sam2_encoder.c, test_repvit.c). Header-only.
 *
 *   static struct ew_table t;                      // t.keys filled by a listing bind
 *   ew_fill(&t, 12345, my_value);                  // value(name, fan_in, u) per element
 *   ew_engine_init(&e, &t, slots, n_slots);        // sorted weight table, f32 host pool
 */
#ifndef SAMRT_TESTS_ENC_WEIGHTS_UTIL_H
#define SAMRT_TESTS_ENC_WEIGHTS_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"
#include "image_encoder.h"
#include "test_util.h"

struct ew_table {
    struct samrt_model_bound_keys keys;
    struct samrt_weight w[SAMRT_MODEL_MAX_BOUND_KEYS];
    float *data[SAMRT_MODEL_MAX_BOUND_KEYS];  /* data[i] holds keys.keys[i] */
};

static inline int ew_ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The values of key `name`, or NULL. */
static inline const float *ew_find(const struct ew_table *t, const char *name) {
    for (int i = 0; i < t->keys.n; i++)
        if (!strcmp(t->keys.keys[i].name, name)) return t->data[i];
    return NULL;
}

/* Element count and fan-in (product of the dims after the first) of key i. */
static inline int64_t ew_count(const struct samrt_model_bound_key *k, int64_t *fan_in) {
    int64_t n = 1, f = 1;
    for (int d = 0; d < k->n_dims; d++) n *= k->ne[d];
    for (int d = 1; d < k->n_dims; d++) f *= k->ne[d];
    if (fan_in) *fan_in = f;
    return n;
}

/* Fills every listed key: element j = value(name, fan_in, u_j), u_j uniform in [-1, 1) from
 * one seeded stream in key order. */
static inline void ew_fill(struct ew_table *t, uint64_t seed, float (*value)(const char *name, int64_t fan_in, float u)) {
    uint64_t rng = seed;
    for (int i = 0; i < t->keys.n; i++) {
        const struct samrt_model_bound_key *k = &t->keys.keys[i];
        int64_t fan_in;
        const int64_t n = ew_count(k, &fan_in);
        float *v = malloc(sizeof(float) * (size_t)n);
        for (int64_t j = 0; j < n; j++) v[j] = value(k->name, fan_in, tu_rand_uniform(&rng, -1.0f, 1.0f));
        t->data[i] = v;
        t->w[i].name = t->keys.keys[i].name;
        t->w[i].t = samrt_tensor_make(v, SAMRT_DTYPE_F32, k->n_dims, k->ne);
    }
}

static inline int ew_cmp_weight(const void *a, const void *b) {
    return strcmp(((const struct samrt_weight *)a)->name, ((const struct samrt_weight *)b)->name);
}

/* A host f32 engine whose weight table is t's (sorted by name, as the engine looks up) and
 * whose plan uses `slots`. */
static inline void ew_engine_init(struct samrt_engine *e, struct ew_table *t, struct samrt_arena_slot *slots,
                                  int n_slots) {
    memset(e, 0, sizeof *e);
    e->weights.items = t->w;
    e->weights.n = t->keys.n;
    qsort(t->w, (size_t)t->keys.n, sizeof t->w[0], ew_cmp_weight);
    e->mem_kind = SAMRT_MEM_HOST;
    e->precision = SAMRT_DTYPE_F32;
    e->slot_ws = -1;
    samrt_plan_init(&e->plan, slots, n_slots);
}

static inline void ew_free(struct ew_table *t) {
    for (int i = 0; i < t->keys.n; i++) free(t->data[i]);
}

#endif /* SAMRT_TESTS_ENC_WEIGHTS_UTIL_H */
