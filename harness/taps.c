/* taps.c - parity tap collection and the safetensors writer (taps.h). Used by `samrt segment
 * --dump-taps`, `samrt track --dump-taps` and tests/parity/samrt_taps.c. */
#include "taps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "stream.h"

#define TAP_NAME_MAX 64

static int float_dtype(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F32 || dt == SAMRT_DTYPE_F16 || dt == SAMRT_DTYPE_BF16;
}

/* Element i of a float array of dtype dt, widened to f32. */
static float load_f32(enum samrt_dtype dt, const void *p, int64_t i) {
    if (dt == SAMRT_DTYPE_F32) return ((const float *)p)[i];
    if (dt == SAMRT_DTYPE_F16) return samrt_f16_to_f32(((const uint16_t *)p)[i]);
    return samrt_bf16_to_f32(((const uint16_t *)p)[i]);
}

struct tap {
    char name[TAP_NAME_MAX];
    int n_dims;
    int64_t ne[4];
    float *v;
};

struct samrt_taps {
    struct tap *t;
    int n, cap;
    enum samrt_mem_kind mem_kind;
    void *stream;
};

enum samrt_status samrt_taps_init(enum samrt_mem_kind mem_kind, void *stream, struct samrt_taps **out) {
    SAMRT_CHECK(out != NULL, SAMRT_E_INVALID_ARG, "taps: NULL out");
    *out = calloc(1, sizeof **out);
    SAMRT_CHECK(*out != NULL, SAMRT_E_HOST_MEMORY, "taps: out of host memory");
    (*out)->mem_kind = mem_kind;
    (*out)->stream = stream;
    return SAMRT_OK;
}

void samrt_taps_free(struct samrt_taps *ts) {
    if (!ts) return;
    for (int i = 0; i < ts->n; i++) free(ts->t[i].v);
    free(ts->t);
    free(ts);
}

int samrt_taps_count(const struct samrt_taps *ts) { return ts ? ts->n : 0; }

float *samrt_taps_alloc(struct samrt_taps *ts, const char *name, int n_dims, const int64_t *ne) {
    if (!ts || !name || n_dims < 0 || n_dims > 4 || strlen(name) >= TAP_NAME_MAX) return NULL;
    int64_t n = 1;
    for (int d = 0; d < n_dims; d++) n *= ne[d];
    float *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!v) return NULL;
    struct tap *t = NULL;
    for (int i = 0; i < ts->n && !t; i++)
        if (!strcmp(ts->t[i].name, name)) t = &ts->t[i];
    if (t) {
        free(t->v);
    } else {
        if (ts->n == ts->cap) {
            const int cap = ts->cap ? 2 * ts->cap : 64;
            struct tap *nt = realloc(ts->t, sizeof *nt * (size_t)cap);
            if (!nt) {
                free(v);
                return NULL;
            }
            ts->t = nt;
            ts->cap = cap;
        }
        t = &ts->t[ts->n++];
        snprintf(t->name, sizeof t->name, "%s", name);
    }
    t->n_dims = n_dims;
    memcpy(t->ne, ne, sizeof(int64_t) * (size_t)n_dims);
    t->v = v;
    return v;
}

/* 4-D taps stored as they arrive: Hiera's trunk (NHWC, as the official hooks see it) and the
 * model input (NCHW). */
static int keeps_layout(const char *name) {
    return !strcmp(name, "tap.trunk.patch_embed") || !strcmp(name, "tap.trunk.embed") ||
           !strncmp(name, "tap.trunk.block.", 16) || !strcmp(name, "tap.input");
}

/* The byte span of the view: download it, then gather in logical order, NHWC -> NCHW
 * unless the name stays as given. */
enum samrt_status samrt_taps_hook(void *user, const char *name, const struct samrt_tensor *v) {
    struct samrt_taps *ts = user;
    const size_t es = samrt_dtype_size(v->dtype);
    SAMRT_CHECK(float_dtype(v->dtype) && v->n_dims <= 4, SAMRT_E_UNSUPPORTED, "taps: %s is not a float tensor", name);
    int64_t span = 1;
    for (int d = 0; d < v->n_dims; d++) span += (v->ne[d] - 1) * v->s[d];
    uint8_t *raw = malloc((size_t)span * es);
    SAMRT_CHECK(raw != NULL, SAMRT_E_HOST_MEMORY, "taps: out of host memory for %s", name);
    if (ts->mem_kind != SAMRT_MEM_HOST) {
        /* COPY_DEFAULT: host tensors (computed after a pass) are accepted as well */
        const size_t n = (size_t)span * es;
        if (samrt_stream_sync((samrt_stream *)ts->stream) != SAMRT_OK ||
            samrt_platform_copy_2d(raw, n, v->data, n, n, 1, SAMRT_COPY_DEFAULT) != SAMRT_OK) {
            free(raw);
            SAMRT_LOG_ERROR("taps: cannot copy %s from the device", name);
            return SAMRT_E_CUDA;
        }
    } else {
        memcpy(raw, v->data, (size_t)span * es);
    }
    const int to_nchw = v->n_dims == 4 && !keeps_layout(name);
    int64_t ne[4] = {1, 1, 1, 1}, s[4] = {0, 0, 0, 0};
    const int pad = 4 - v->n_dims;
    for (int d = 0; d < v->n_dims; d++) {
        ne[d + pad] = v->ne[d];
        s[d + pad] = v->s[d];
    }
    /* output order: NCHW walks (n, c, h, w) = source dims (0, 3, 1, 2) */
    const int order[4] = {0, to_nchw ? 3 : 1, to_nchw ? 1 : 2, to_nchw ? 2 : 3};
    const int64_t out_ne[4] = {ne[order[0]], ne[order[1]], ne[order[2]], ne[order[3]]};
    float *out = samrt_taps_alloc(ts, name, v->n_dims, v->n_dims == 4 ? out_ne : v->ne);
    if (!out) {
        free(raw);
        SAMRT_LOG_ERROR("taps: out of host memory for %s", name);
        return SAMRT_E_HOST_MEMORY;
    }
    int64_t k = 0, i[4];
    for (i[0] = 0; i[0] < out_ne[0]; i[0]++)
        for (i[1] = 0; i[1] < out_ne[1]; i[1]++)
            for (i[2] = 0; i[2] < out_ne[2]; i[2]++)
                for (i[3] = 0; i[3] < out_ne[3]; i[3]++) {
                    const int64_t off =
                        i[0] * s[order[0]] + i[1] * s[order[1]] + i[2] * s[order[2]] + i[3] * s[order[3]];
                    out[k++] = load_f32(v->dtype, raw, off);
                }
    free(raw);
    return SAMRT_OK;
}

enum samrt_status samrt_taps_write(const struct samrt_taps *ts, const char *path, const char *meta) {
    SAMRT_CHECK(ts && path, SAMRT_E_INVALID_ARG, "taps: NULL argument");
    size_t cap = 4096 + (meta ? strlen(meta) : 0) + (size_t)ts->n * 160, len = 0;
    char *h = malloc(cap);
    SAMRT_CHECK(h != NULL, SAMRT_E_HOST_MEMORY, "taps: out of host memory");
    len += (size_t)snprintf(h + len, cap - len, "{\"__metadata__\":{%s}", meta ? meta : "");
    uint64_t off = 0;
    for (int i = 0; i < ts->n; i++) {
        const struct tap *t = &ts->t[i];
        int64_t n = 1;
        len += (size_t)snprintf(h + len, cap - len, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[", t->name);
        for (int d = 0; d < t->n_dims; d++) {
            len += (size_t)snprintf(h + len, cap - len, "%s%lld", d ? "," : "", (long long)t->ne[d]);
            n *= t->ne[d];
        }
        len += (size_t)snprintf(h + len, cap - len, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off,
                                (unsigned long long)(off + 4 * (uint64_t)n));
        off += 4 * (uint64_t)n;
    }
    len += (size_t)snprintf(h + len, cap - len, "}");
    while (len % 8) h[len++] = ' ';
    FILE *f = fopen(path, "wb");
    enum samrt_status st = f ? SAMRT_OK : SAMRT_E_IO;
    const uint64_t hl = len;
    if (st == SAMRT_OK && (fwrite(&hl, 8, 1, f) != 1 || fwrite(h, 1, len, f) != len)) st = SAMRT_E_IO;
    for (int i = 0; i < ts->n && st == SAMRT_OK; i++) {
        int64_t n = 1;
        for (int d = 0; d < ts->t[i].n_dims; d++) n *= ts->t[i].ne[d];
        if (fwrite(ts->t[i].v, 4, (size_t)n, f) != (size_t)n) st = SAMRT_E_IO;
    }
    if (f && fclose(f) != 0) st = SAMRT_E_IO;
    free(h);
    if (st != SAMRT_OK) SAMRT_LOG_ERROR("taps: cannot write %s", path);
    return st;
}
