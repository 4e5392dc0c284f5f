/* ckpt_safetensors.c - the safetensors layout: an 8-byte little-endian header length N, N
 * bytes of JSON, then the tensor bytes. The JSON parser is strict and accepts exactly what
 * this format uses: one top-level object whose values are tensor objects
 * {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]} or the "__metadata__" object
 * of strings. Strings may carry escapes (\uXXXX with surrogate pairs included); numbers are
 * non-negative integers. Nesting depth is fixed by the grammar, so the parser needs no
 * recursion limit.
 *
 * Refused: a header over 100 MB or past the end of the file, unknown fields, duplicate names,
 * dtypes other than F32/F16/BF16/I64/I32/U8, data_offsets past the data, ranges that overlap,
 * and byte counts that do not equal shape x dtype size.
 * Tests: tests/test_ckpt.c, tests/test_ckpt_corpus.c, tests/fuzz/fuzz_ckpt.c. */
#include "ckpt_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json {
    const uint8_t *p, *end, *start;
};

#define JFAIL(j, msg)                                                                            \
    do {                                                                                         \
        SAMRT_LOG_ERROR("safetensors: header JSON at byte %ld: %s", (long)((j)->p - (j)->start), \
                        (msg));                                                                  \
        return SAMRT_E_FORMAT;                                                                   \
    } while (0)

static void skip_ws(struct json *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static enum samrt_status expect(struct json *j, char c) {
    skip_ws(j);
    if (j->p >= j->end || *j->p != (uint8_t)c) {
        char msg[32];
        snprintf(msg, sizeof msg, "expected '%c'", c);
        JFAIL(j, msg);
    }
    j->p++;
    return SAMRT_OK;
}

/* Next non-blank byte is c? Consumes it when so. */
static int accept(struct json *j, char c) {
    skip_ws(j);
    if (j->p < j->end && *j->p == (uint8_t)c) {
        j->p++;
        return 1;
    }
    return 0;
}

static int hex4(const uint8_t *p, uint32_t *v) {
    *v = 0;
    for (int k = 0; k < 4; k++) {
        uint8_t c = p[k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return 0;
        *v = *v * 16 + (uint32_t)d;
    }
    return 1;
}

static size_t put_utf8(uint8_t *o, uint32_t cp) {
    if (cp < 0x80) { o[0] = (uint8_t)cp; return 1; }
    if (cp < 0x800) { o[0] = (uint8_t)(0xc0 | cp >> 6); o[1] = (uint8_t)(0x80 | (cp & 63)); return 2; }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xe0 | cp >> 12); o[1] = (uint8_t)(0x80 | ((cp >> 6) & 63)); o[2] = (uint8_t)(0x80 | (cp & 63));
        return 3;
    }
    o[0] = (uint8_t)(0xf0 | cp >> 18); o[1] = (uint8_t)(0x80 | ((cp >> 12) & 63));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 63)); o[3] = (uint8_t)(0x80 | (cp & 63));
    return 4;
}

/* A JSON string, decoded into a malloc'ed NUL-terminated buffer (escapes never lengthen the
 * text: \uXXXX is 6 bytes in, at most 3 out; a surrogate pair 12 in, 4 out). */
static enum samrt_status parse_string(struct json *j, char **out, size_t *out_len) {
    *out = NULL;
    SAMRT_TRY(expect(j, '"'));
    const uint8_t *s = j->p;
    while (j->p < j->end && *j->p != '"') j->p += (*j->p == '\\' && j->p + 1 < j->end) ? 2 : 1;
    if (j->p >= j->end) JFAIL(j, "unterminated string");
    size_t n = (size_t)(j->p - s);
    j->p++;
    uint8_t *o = malloc(n + 1);
    if (!o) return SAMRT_E_HOST_MEMORY;
    size_t w = 0;
    for (size_t k = 0; k < n;) {
        uint8_t c = s[k];
        if (c < 0x20) {
            free(o);
            JFAIL(j, "raw control character in a string");
        }
        if (c != '\\') { o[w++] = c; k++; continue; }
        uint8_t e = s[k + 1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            o[w++] = (uint8_t)map[simple - "\"\\/bfnrt"];
            k += 2;
            continue;
        }
        uint32_t cp = 0, lo = 0;
        if (e != 'u' || k + 6 > n || !hex4(s + k + 2, &cp)) {
            free(o);
            JFAIL(j, "bad escape in a string");
        }
        k += 6;
        if (cp >= 0xd800 && cp < 0xdc00) { /* high surrogate: a low one must follow */
            if (k + 6 > n || s[k] != '\\' || s[k + 1] != 'u' || !hex4(s + k + 2, &lo) || lo < 0xdc00 || lo >= 0xe000) {
                free(o);
                JFAIL(j, "unpaired surrogate in a string");
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            k += 6;
        } else if (cp >= 0xdc00 && cp < 0xe000) {
            free(o);
            JFAIL(j, "unpaired surrogate in a string");
        }
        w += put_utf8(o + w, cp);
    }
    o[w] = 0;
    *out = (char *)o;
    if (out_len) *out_len = w;
    return SAMRT_OK;
}

/* A non-negative integer below 2^53 (JSON's exact-integer range). */
static enum samrt_status parse_uint(struct json *j, uint64_t *v) {
    skip_ws(j);
    const uint8_t *s = j->p;
    *v = 0;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        *v = *v * 10 + (uint64_t)(*j->p - '0');
        if (*v >= (1ull << 53)) JFAIL(j, "integer too large");
        j->p++;
    }
    if (j->p == s) JFAIL(j, "expected a non-negative integer");
    if (j->p - s > 1 && *s == '0') JFAIL(j, "integer with a leading zero");
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
        JFAIL(j, "expected an integer, got a fraction");
    return SAMRT_OK;
}

/* [a, b, ...] of integers, at most max of them. */
static enum samrt_status parse_uint_array(struct json *j, uint64_t *v, int max, int *n) {
    SAMRT_TRY(expect(j, '['));
    *n = 0;
    if (accept(j, ']')) return SAMRT_OK;
    do {
        if (*n >= max) JFAIL(j, "array too long");
        SAMRT_TRY(parse_uint(j, &v[(*n)++]));
    } while (accept(j, ','));
    return expect(j, ']');
}

static const struct {
    const char *name;
    enum samrt_dtype dtype;
} g_dtypes[] = {{"F32", SAMRT_DTYPE_F32}, {"F16", SAMRT_DTYPE_F16}, {"BF16", SAMRT_DTYPE_BF16},
                {"I64", SAMRT_DTYPE_I64}, {"I32", SAMRT_DTYPE_I32}, {"U8", SAMRT_DTYPE_U8}};

/* The tensor object after its name: fills t (offsets relative to the data section). */
static enum samrt_status parse_tensor(struct json *j, struct samrt_ckpt_tensor *t, uint64_t *begin, uint64_t *end) {
    int have_dtype = 0, have_shape = 0, have_offsets = 0;
    SAMRT_TRY(expect(j, '{'));
    if (!accept(j, '}')) {
        do {
            char *field = NULL;
            SAMRT_TRY(parse_string(j, &field, NULL));
            enum samrt_status st = expect(j, ':');
            if (st == SAMRT_OK && !strcmp(field, "dtype") && !have_dtype) {
                char *dt = NULL;
                st = parse_string(j, &dt, NULL);
                int found = 0;
                for (size_t k = 0; st == SAMRT_OK && k < SAMRT_ARRAY_LEN(g_dtypes); k++)
                    if (!strcmp(dt, g_dtypes[k].name)) t->dtype = g_dtypes[k].dtype, found = 1;
                if (st == SAMRT_OK && !found) {
                    char buf[40];
                    SAMRT_LOG_ERROR("safetensors: tensor '%s' has dtype %s (F32, F16, BF16, I64, I32 and U8 "
                                    "are supported)", t->name, samrt_ckpt_printable(dt, strlen(dt), buf, sizeof buf));
                    st = SAMRT_E_UNSUPPORTED;
                }
                free(dt);
                have_dtype = 1;
            } else if (st == SAMRT_OK && !strcmp(field, "shape") && !have_shape) {
                uint64_t ne[SAMRT_CKPT_MAX_DIMS + 1];
                st = parse_uint_array(j, ne, SAMRT_CKPT_MAX_DIMS + 1, &t->n_dims);
                if (st == SAMRT_OK && t->n_dims > SAMRT_CKPT_MAX_DIMS) {
                    SAMRT_LOG_ERROR("safetensors: tensor '%s' has %d dims (at most %d supported)", t->name,
                                    t->n_dims, SAMRT_CKPT_MAX_DIMS);
                    st = SAMRT_E_UNSUPPORTED;
                }
                for (int d = 0; st == SAMRT_OK && d < t->n_dims; d++) t->ne[d] = (int64_t)ne[d];
                have_shape = 1;
            } else if (st == SAMRT_OK && !strcmp(field, "data_offsets") && !have_offsets) {
                uint64_t off[2];
                int n = 0;
                st = parse_uint_array(j, off, 2, &n);
                if (st == SAMRT_OK && n != 2) {
                    SAMRT_LOG_ERROR("safetensors: tensor '%s': data_offsets needs [begin, end]", t->name);
                    st = SAMRT_E_FORMAT;
                }
                *begin = off[0];
                *end = off[1];
                have_offsets = 1;
            } else if (st == SAMRT_OK) {
                SAMRT_LOG_ERROR("safetensors: tensor '%s': unexpected or repeated field '%s'", t->name, field);
                st = SAMRT_E_FORMAT;
            }
            free(field);
            SAMRT_TRY(st);
        } while (accept(j, ','));
        SAMRT_TRY(expect(j, '}'));
    }
    SAMRT_CHECK(have_dtype && have_shape && have_offsets, SAMRT_E_FORMAT,
                "safetensors: tensor '%s' lacks dtype, shape or data_offsets", t->name);
    return SAMRT_OK;
}

/* "__metadata__": {"key": "value", ...}; contents are not used. */
static enum samrt_status skip_metadata(struct json *j) {
    SAMRT_TRY(expect(j, '{'));
    if (accept(j, '}')) return SAMRT_OK;
    do {
        char *s = NULL;
        SAMRT_TRY(parse_string(j, &s, NULL));
        free(s);
        SAMRT_TRY(expect(j, ':'));
        SAMRT_TRY(parse_string(j, &s, NULL));
        free(s);
    } while (accept(j, ','));
    return expect(j, '}');
}

struct range {
    uint64_t begin, end;
    int idx;
};

static int cmp_range(const void *a, const void *b) {
    const struct range *x = a, *y = b;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

/* Sizes match the shapes; ranges lie inside the data and do not overlap. */
static enum samrt_status check_ranges(struct samrt_ckpt_tensor *t, struct range *r, int n, uint64_t base,
                                      uint64_t data_len) {
    for (int k = 0; k < n; k++) {
        struct samrt_ckpt_tensor *x = &t[r[k].idx];
        SAMRT_CHECK(r[k].begin <= r[k].end && r[k].end <= data_len, SAMRT_E_FORMAT,
                    "safetensors: tensor '%s': data_offsets [%llu, %llu) outside the %llu data bytes", x->name,
                    (unsigned long long)r[k].begin, (unsigned long long)r[k].end, (unsigned long long)data_len);
        x->nelements = samrt_ckpt_shape_numel(x->ne, x->n_dims);
        SAMRT_CHECK(x->nelements >= 0, SAMRT_E_FORMAT, "safetensors: tensor '%s': shape too large", x->name);
        x->nbytes = (uint64_t)x->nelements * samrt_dtype_size(x->dtype);
        SAMRT_CHECK(x->nbytes == r[k].end - r[k].begin, SAMRT_E_FORMAT,
                    "safetensors: tensor '%s': shape and dtype make %llu bytes but data_offsets span %llu",
                    x->name, (unsigned long long)x->nbytes, (unsigned long long)(r[k].end - r[k].begin));
        x->offset = base + r[k].begin;
    }
    if (n > 1) qsort(r, (size_t)n, sizeof *r, cmp_range);
    uint64_t prev_end = 0;
    int prev = -1;
    for (int k = 0; k < n; k++) {
        if (r[k].begin == r[k].end) continue; /* empty tensors occupy nothing */
        SAMRT_CHECK(prev < 0 || r[k].begin >= prev_end, SAMRT_E_FORMAT,
                    "safetensors: tensors '%s' and '%s' overlap", t[prev].name, t[r[k].idx].name);
        prev_end = r[k].end;
        prev = r[k].idx;
    }
    return SAMRT_OK;
}

static enum samrt_status parse_header(struct json *j, struct samrt_ckpt_tensor **out, int *n_out,
                                      struct range **ranges) {
    int cap = 0;
    SAMRT_TRY(expect(j, '{'));
    if (accept(j, '}')) return SAMRT_OK;
    do {
        char *name = NULL;
        size_t name_len = 0;
        SAMRT_TRY(parse_string(j, &name, &name_len));
        enum samrt_status st = expect(j, ':');
        if (st == SAMRT_OK && !strcmp(name, "__metadata__")) {
            free(name);
            SAMRT_TRY(skip_metadata(j));
            continue;
        }
        if (st == SAMRT_OK && (name_len == 0 || strlen(name) != name_len)) {
            SAMRT_LOG_ERROR("safetensors: a tensor name is empty or holds a NUL");
            st = SAMRT_E_FORMAT;
        }
        if (st == SAMRT_OK && *n_out == cap) {
            cap = cap ? cap * 2 : 64;
            struct samrt_ckpt_tensor *t = realloc(*out, (size_t)cap * sizeof *t);
            struct range *r = realloc(*ranges, (size_t)cap * sizeof *r);
            if (t) *out = t;
            if (r) *ranges = r;
            if (!t || !r) st = SAMRT_E_HOST_MEMORY;
        }
        if (st != SAMRT_OK) {
            free(name);
            return st;
        }
        struct samrt_ckpt_tensor *t = &(*out)[*n_out];
        memset(t, 0, sizeof *t);
        t->name = name;
        (*ranges)[*n_out].idx = *n_out;
        (*n_out)++;
        SAMRT_TRY(parse_tensor(j, t, &(*ranges)[*n_out - 1].begin, &(*ranges)[*n_out - 1].end));
    } while (accept(j, ','));
    return expect(j, '}');
}

enum samrt_status samrt_ckpt_safetensors_parse(const uint8_t *data, uint64_t size,
                                               struct samrt_ckpt_tensor **out, int *n_out) {
    *out = NULL;
    *n_out = 0;
    SAMRT_CHECK(size >= 8, SAMRT_E_FORMAT, "safetensors: file of %llu bytes has no header", (unsigned long long)size);
    uint64_t n = 0;
    for (int k = 7; k >= 0; k--) n = (n << 8) | data[k];
    SAMRT_CHECK(n <= SAMRT_SAFETENSORS_MAX_HEADER, SAMRT_E_FORMAT,
                "safetensors: header of %llu bytes is larger than the %llu-byte limit", (unsigned long long)n,
                SAMRT_SAFETENSORS_MAX_HEADER);
    SAMRT_CHECK(n <= size - 8, SAMRT_E_FORMAT,
                "safetensors: header of %llu bytes runs past the end of the %llu-byte file (truncated?)",
                (unsigned long long)n, (unsigned long long)size);
    struct json j = {data + 8, data + 8 + n, data + 8};
    struct range *ranges = NULL;
    enum samrt_status st = parse_header(&j, out, n_out, &ranges);
    if (st == SAMRT_OK) {
        while (j.p < j.end && (*j.p == ' ' || *j.p == '\n' || *j.p == '\r' || *j.p == '\t')) j.p++;
        if (j.p != j.end) {
            SAMRT_LOG_ERROR("safetensors: header JSON: trailing bytes after the top-level object");
            st = SAMRT_E_FORMAT;
        }
    }
    if (st == SAMRT_OK) st = check_ranges(*out, ranges, *n_out, 8 + n, size - 8 - n);
    free(ranges);
    if (st != SAMRT_OK) {
        for (int k = 0; k < *n_out; k++) free((*out)[k].name);
        free(*out);
        *out = NULL;
        *n_out = 0;
    }
    return st;
}
