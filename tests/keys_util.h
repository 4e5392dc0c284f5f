/* keys_util.h - shared pieces of the key-layout tests (test_keys.c, test_efficienttam_keys.c):
 * a synthetic checkpoint tensor list holding a model's keys, and key lookups with shape checks.
 * Header-only, static; include after check.h and keys.h. */
#ifndef SAMRT_TEST_KEYS_UTIL_H
#define SAMRT_TEST_KEYS_UTIL_H

#include <string.h>

/* A tensor list with a model's keys (optional ones only when with_optional). */
static int fake_ckpt(const struct samrt_keys *k, int with_optional, struct samrt_ckpt_tensor *t) {
    int n = 0;
    for (int i = 0; i < k->n_keys; i++) {
        if (k->keys[i].optional && !with_optional) continue;
        memset(&t[n], 0, sizeof t[n]);
        t[n].name = (char *)k->keys[i].name;
        t[n].dtype = k->keys[i].is_int ? SAMRT_DTYPE_I64 : SAMRT_DTYPE_F32;
        t[n].n_dims = k->keys[i].n_dims;
        memcpy(t[n].ne, k->keys[i].ne, sizeof k->keys[i].ne);
        t[n].nelements = 1;
        for (int d = 0; d < t[n].n_dims; d++) t[n].nelements *= t[n].ne[d];
        n++;
    }
    return n;
}

static const struct samrt_key *find_key(const struct samrt_keys *k, const char *name) {
    for (int i = 0; i < k->n_keys; i++)
        if (!strcmp(k->keys[i].name, name)) return &k->keys[i];
    return NULL;
}

static void check_shape(const struct samrt_keys *k, const char *name, int n_dims, int64_t a, int64_t b, int64_t c,
                        int64_t d) {
    const struct samrt_key *key = find_key(k, name);
    CHECK_MSG(key != NULL, "%s: key %s missing", samrt_model_name(k->model), name);
    if (!key) return;
    const int64_t ne[4] = {a, b, c, d};
    CHECK_MSG(key->n_dims == n_dims, "%s: %s has %d dims, want %d", samrt_model_name(k->model), name, key->n_dims, n_dims);
    for (int i = 0; i < n_dims && i < 4; i++)
        CHECK_MSG(key->ne[i] == ne[i], "%s: %s dim %d is %lld, want %lld", samrt_model_name(k->model), name, i,
                  (long long)key->ne[i], (long long)ne[i]);
}

#endif /* SAMRT_TEST_KEYS_UTIL_H */
