/* tensor.c - shape and stride arithmetic for arena views (no storage is ever allocated). */
#include "tensor.h"

#include <stdio.h>
#include <string.h>

struct samrt_tensor samrt_tensor_make(void *data, enum samrt_dtype dtype, int n_dims, const int64_t *ne) {
    struct samrt_tensor t = {0};
    t.data = data;
    t.dtype = dtype;
    t.n_dims = n_dims;
    for (int i = 0; i < SAMRT_MAX_DIMS; i++) t.ne[i] = i < n_dims ? ne[i] : 1;
    int64_t stride = 1;
    for (int i = SAMRT_MAX_DIMS - 1; i >= 0; i--) {
        t.s[i] = stride;
        if (i < n_dims) stride *= t.ne[i];
    }
    return t;
}

int64_t samrt_tensor_nelements(const struct samrt_tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->n_dims; i++) n *= t->ne[i];
    return n;
}

uint64_t samrt_tensor_nbytes(const struct samrt_tensor *t) {
    return (uint64_t)samrt_tensor_nelements(t) * samrt_dtype_size(t->dtype);
}

int samrt_tensor_is_contiguous(const struct samrt_tensor *t) {
    int64_t stride = 1;
    for (int i = t->n_dims - 1; i >= 0; i--) {
        if (t->ne[i] != 1 && t->s[i] != stride) return 0;
        stride *= t->ne[i];
    }
    return 1;
}

struct samrt_tensor samrt_tensor_view(const struct samrt_tensor *t, int64_t off, int n_dims, const int64_t *ne,
                                      const int64_t *s) {
    struct samrt_tensor v = *t;
    v.data = (void *)((uintptr_t)t->data + (uintptr_t)(off * (int64_t)samrt_dtype_size(t->dtype)));
    v.n_dims = n_dims;
    for (int d = 0; d < SAMRT_MAX_DIMS; d++) {
        v.ne[d] = d < n_dims ? ne[d] : 1;
        v.s[d] = d < n_dims ? s[d] : 1;
    }
    return v;
}

enum samrt_status samrt_tensor_permute(const struct samrt_tensor *t, const int *perm, struct samrt_tensor *out) {
    int seen[SAMRT_MAX_DIMS] = {0};
    struct samrt_tensor r = *t;
    for (int i = 0; i < t->n_dims; i++) {
        SAMRT_CHECK(perm[i] >= 0 && perm[i] < t->n_dims && !seen[perm[i]], SAMRT_E_INVALID_ARG,
                    "permute: bad permutation");
        seen[perm[i]] = 1;
        r.ne[i] = t->ne[perm[i]];
        r.s[i] = t->s[perm[i]];
    }
    *out = r;
    return SAMRT_OK;
}

enum samrt_status samrt_tensor_reshape(const struct samrt_tensor *t, int n_dims, const int64_t *ne,
                                       struct samrt_tensor *out) {
    SAMRT_CHECK(samrt_tensor_is_contiguous(t), SAMRT_E_INVALID_ARG, "reshape of a non-contiguous view");
    SAMRT_CHECK(n_dims >= 0 && n_dims <= SAMRT_MAX_DIMS, SAMRT_E_INVALID_ARG, "reshape: %d dims", n_dims);
    struct samrt_tensor r = samrt_tensor_make(t->data, t->dtype, n_dims, ne);
    SAMRT_CHECK(samrt_tensor_nelements(&r) == samrt_tensor_nelements(t), SAMRT_E_INVALID_ARG,
                "reshape: element count changes");
    *out = r;
    return SAMRT_OK;
}

const char *samrt_tensor_shape_str(int n_dims, const int64_t *ne, char *buf, size_t len) {
    size_t o = 0;
    if (len == 0) return buf;
    buf[0] = 0;
    o += (size_t)snprintf(buf + o, len - o, "(");
    for (int i = 0; i < n_dims && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, i ? ",%lld" : "%lld", (long long)ne[i]);
    if (o < len) snprintf(buf + o, len - o, ")");
    return buf;
}
