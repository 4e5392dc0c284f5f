/* ckpt.c - opening a checkpoint: map the file, detect the format from its bytes, index the
 * tensors through the zip + pickle readers or the safetensors reader, then look tensors up by
 * name and convert them into caller memory.
 *
 * The index holds only names, shapes and byte ranges into the mapped file; nothing is copied
 * until samrt_ckpt_read, which converts one tensor straight into its destination (the arena,
 * at run precision). Lookups go through an index sorted by name, which also catches duplicate
 * names. Tests: tests/test_ckpt.c, tests/test_ckpt_corpus.c; `samrt info CKPT` shows the index. */
#include "ckpt_impl.h"
#include "half.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers shared by the parsers ------------------------------------------------------- */

const char *samrt_ckpt_printable(const void *s, size_t len, char *buf, size_t buf_len) {
    const uint8_t *p = s;
    size_t w = 0;
    if (buf_len == 0) return buf;
    for (size_t k = 0; k < len && w + 4 < buf_len; k++) buf[w++] = p[k] >= 0x20 && p[k] < 0x7f ? (char)p[k] : '?';
    if (len > 0 && w < len && w + 4 <= buf_len) {
        memcpy(buf + w, "...", 3);
        w += 3;
    }
    buf[w] = 0;
    return buf;
}

int64_t samrt_ckpt_shape_numel(const int64_t *ne, int n_dims) {
    const int64_t limit = (int64_t)1 << 48;
    int64_t n = 1;
    for (int d = 0; d < n_dims; d++) {
        if (ne[d] < 0 || ne[d] > limit) return -1;
        if (ne[d] != 0 && n > limit / ne[d]) return -1;
        n *= ne[d];
    }
    return n;
}

const char *samrt_ckpt_format_name(enum samrt_ckpt_format format) {
    switch (format) {
    case SAMRT_CKPT_TORCH_ZIP: return "PyTorch zip";
    case SAMRT_CKPT_SAFETENSORS: return "safetensors";
    }
    return "?";
}

/* ---- torch.save zip ------------------------------------------------------------------------- */

/* The archive folder: the one entry named <dir>/data.pkl (torch names <dir> after the file,
 * or "archive" since PyTorch 1.13). */
static enum samrt_status find_data_pkl(const struct samrt_ckpt_zip_entry *e, int n,
                                       const struct samrt_ckpt_zip_entry **pkl, size_t *prefix_len) {
    static const char suffix[] = "/data.pkl";
    const size_t sl = sizeof suffix - 1;
    *pkl = NULL;
    for (int k = 0; k < n; k++) {
        if (e[k].name_len <= sl || memcmp(e[k].name + e[k].name_len - sl, suffix, sl) != 0) continue;
        if (memchr(e[k].name, '/', e[k].name_len - sl)) continue; /* a nested data.pkl is not the root */
        SAMRT_CHECK(!*pkl, SAMRT_E_FORMAT, "zip: more than one <dir>/data.pkl; not a single torch.save archive");
        *pkl = &e[k];
        *prefix_len = e[k].name_len - sl + 1; /* keeps the '/' */
    }
    SAMRT_CHECK(*pkl, SAMRT_E_FORMAT, "zip: no <dir>/data.pkl entry; this zip was not written by torch.save");
    return SAMRT_OK;
}

static enum samrt_status index_torch_zip(struct samrt_ckpt *ck) {
    struct samrt_ckpt_zip_entry *e = NULL;
    int n = 0;
    SAMRT_TRY(samrt_ckpt_zip_index(ck->data, ck->size, &e, &n));
    const struct samrt_ckpt_zip_entry *pkl = NULL;
    size_t pl = 0;
    struct samrt_ckpt_pkl_tensor *pt = NULL;
    int n_pt = 0;
    enum samrt_status st = find_data_pkl(e, n, &pkl, &pl);
    if (st == SAMRT_OK) {
        const struct samrt_ckpt_zip_entry *bo = samrt_ckpt_zip_find(e, n, pkl->name, pl, "byteorder");
        if (bo && !(bo->size == 6 && memcmp(ck->data + bo->data_offset, "little", 6) == 0)) {
            SAMRT_LOG_ERROR("zip: the checkpoint was written on a big-endian machine; re-save it on a "
                            "little-endian one");
            st = SAMRT_E_UNSUPPORTED;
        }
    }
    if (st == SAMRT_OK) st = samrt_ckpt_pickle_parse(ck->data + pkl->data_offset, pkl->size, &pt, &n_pt);
    if (st == SAMRT_OK && !(ck->tensors = calloc((size_t)n_pt, sizeof *ck->tensors))) st = SAMRT_E_HOST_MEMORY;
    for (int k = 0; st == SAMRT_OK && k < n_pt; k++) {
        const struct samrt_ckpt_pkl_tensor *p = &pt[k];
        char key[80];
        snprintf(key, sizeof key, "data/%s", p->storage_key);
        const struct samrt_ckpt_zip_entry *s = samrt_ckpt_zip_find(e, n, pkl->name, pl, key);
        uint64_t es = samrt_dtype_size(p->dtype);
        if (!s) {
            SAMRT_LOG_ERROR("zip: tensor '%s' refers to storage '%s', which has no data/%s entry", p->name,
                            p->storage_key, p->storage_key);
            st = SAMRT_E_FORMAT;
        } else if ((uint64_t)p->storage_numel > s->size / es || (uint64_t)p->storage_numel * es != s->size) {
            SAMRT_LOG_ERROR("zip: tensor '%s': storage '%s' holds %llu bytes, but the pickle says %lld %s "
                            "elements", p->name, p->storage_key, (unsigned long long)s->size,
                            (long long)p->storage_numel, samrt_dtype_name(p->dtype));
            st = SAMRT_E_FORMAT;
        } else {
            struct samrt_ckpt_tensor *t = &ck->tensors[k];
            t->name = pt[k].name;
            pt[k].name = NULL; /* moved */
            t->dtype = p->dtype;
            t->n_dims = p->n_dims;
            memcpy(t->ne, p->ne, sizeof t->ne);
            t->nelements = p->nelements;
            /* the pickle reader checked storage_offset + nelements <= storage_numel */
            t->offset = s->data_offset + (uint64_t)p->storage_offset * es;
            t->nbytes = (uint64_t)p->nelements * es;
            ck->n_tensors = k + 1;
        }
    }
    samrt_ckpt_pickle_free(pt, n_pt);
    free(e);
    return st;
}

/* ---- open / close ------------------------------------------------------------------------------ */

struct name_idx {
    const char *name;
    int idx;
};

static int cmp_name_idx(const void *a, const void *b) {
    return strcmp(((const struct name_idx *)a)->name, ((const struct name_idx *)b)->name);
}

static enum samrt_status build_name_index(struct samrt_ckpt *ck) {
    size_t n = (size_t)SAMRT_MAX(ck->n_tensors, 1);
    struct name_idx *ni = malloc(n * sizeof *ni);
    ck->by_name = malloc(n * sizeof *ck->by_name);
    if (!ni || !ck->by_name) {
        free(ni);
        SAMRT_LOG_ERROR("checkpoint: out of memory");
        return SAMRT_E_HOST_MEMORY;
    }
    for (int k = 0; k < ck->n_tensors; k++) ni[k] = (struct name_idx){ck->tensors[k].name, k};
    qsort(ni, (size_t)ck->n_tensors, sizeof *ni, cmp_name_idx);
    enum samrt_status st = SAMRT_OK;
    for (int k = 0; k < ck->n_tensors; k++) {
        ck->by_name[k] = ni[k].idx;
        if (k > 0 && st == SAMRT_OK && strcmp(ni[k - 1].name, ni[k].name) == 0) {
            SAMRT_LOG_ERROR("checkpoint: tensor '%s' appears twice", ni[k].name);
            st = SAMRT_E_FORMAT;
        }
    }
    free(ni);
    return st;
}

static enum samrt_status detect_and_index(struct samrt_ckpt *ck) {
    const uint8_t *d = ck->data;
    uint64_t n = ck->size;
    SAMRT_CHECK(n > 0, SAMRT_E_FORMAT, "checkpoint: the file is empty");
    if (n >= 4 && d[0] == 'P' && d[1] == 'K' && ((d[2] == 3 && d[3] == 4) || (d[2] == 5 && d[3] == 6))) {
        ck->format = SAMRT_CKPT_TORCH_ZIP;
        SAMRT_TRY(index_torch_zip(ck));
    } else if (n >= 9 && d[8] == '{') {
        ck->format = SAMRT_CKPT_SAFETENSORS;
        SAMRT_TRY(samrt_ckpt_safetensors_parse(d, n, &ck->tensors, &ck->n_tensors));
    } else if (n >= 2 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5) {
        SAMRT_LOG_ERROR("checkpoint: this is the legacy torch.save format (before PyTorch 1.6); re-save it "
                        "with a current torch.save, which writes a zip");
        return SAMRT_E_FORMAT;
    } else {
        SAMRT_LOG_ERROR("checkpoint: not a PyTorch zip (torch.save) or safetensors file");
        return SAMRT_E_FORMAT;
    }
    return build_name_index(ck);
}

enum samrt_status samrt_ckpt_open_mem(const void *data, uint64_t size, struct samrt_ckpt *out) {
    SAMRT_CHECK(out && (data || size == 0), SAMRT_E_INVALID_ARG, "samrt_ckpt_open_mem: NULL argument");
    memset(out, 0, sizeof *out);
    out->data = data;
    out->size = size;
    enum samrt_status st = detect_and_index(out);
    if (st != SAMRT_OK) samrt_ckpt_close(out);
    return st;
}

enum samrt_status samrt_ckpt_open(const char *path, struct samrt_ckpt *out) {
    SAMRT_CHECK(path && out, SAMRT_E_INVALID_ARG, "samrt_ckpt_open: NULL argument");
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    SAMRT_CHECK(fd >= 0, SAMRT_E_IO, "checkpoint %s: cannot open", path);
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        SAMRT_LOG_ERROR("checkpoint %s: not a regular file", path);
        return SAMRT_E_IO;
    }
    uint64_t size = (uint64_t)sb.st_size;
    void *map = NULL;
    if (size > 0) {
        map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            close(fd);
            SAMRT_LOG_ERROR("checkpoint %s: cannot map %llu bytes", path, (unsigned long long)size);
            return SAMRT_E_IO;
        }
    }
    close(fd);
    out->data = map;
    out->size = size;
    out->owns_map = map != NULL;
    enum samrt_status st = detect_and_index(out);
    if (st != SAMRT_OK) {
        SAMRT_LOG_ERROR("checkpoint %s: %s", path, samrt_status_str(st));
        samrt_ckpt_close(out);
    }
    return st;
}

void samrt_ckpt_close(struct samrt_ckpt *ck) {
    if (!ck) return;
    for (int k = 0; k < ck->n_tensors; k++) free(ck->tensors[k].name);
    free(ck->tensors);
    free(ck->by_name);
    if (ck->owns_map && ck->data) munmap((void *)ck->data, (size_t)ck->size);
    memset(ck, 0, sizeof *ck);
}

/* ---- lookup and conversion --------------------------------------------------------------------- */

const struct samrt_ckpt_tensor *samrt_ckpt_find(const struct samrt_ckpt *ck, const char *name) {
    if (!ck || !name || !ck->by_name) return NULL;
    int lo = 0, hi = ck->n_tensors - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const struct samrt_ckpt_tensor *t = &ck->tensors[ck->by_name[mid]];
        int c = strcmp(t->name, name);
        if (c == 0) return t;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

static int is_float(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F32 || dt == SAMRT_DTYPE_F16 || dt == SAMRT_DTYPE_BF16;
}

uint64_t samrt_ckpt_param_count(const struct samrt_ckpt *ck) {
    uint64_t n = 0;
    for (int k = 0; ck && k < ck->n_tensors; k++)
        if (is_float(ck->tensors[k].dtype)) n += (uint64_t)ck->tensors[k].nelements;
    return n;
}

/* Element i of a float tensor as f32 (exact for all three source types). */
static float load_float(const uint8_t *p, enum samrt_dtype dt, int64_t i) {
    if (dt == SAMRT_DTYPE_F32) {
        float f;
        memcpy(&f, p + 4 * i, 4);
        return f;
    }
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return dt == SAMRT_DTYPE_F16 ? samrt_f16_to_f32(h) : samrt_bf16_to_f32(h);
}

enum samrt_status samrt_ckpt_read(const struct samrt_ckpt *ck, const struct samrt_ckpt_tensor *t,
                                  enum samrt_dtype dst_dtype, void *dst, uint64_t dst_bytes) {
    SAMRT_CHECK(ck && t && (dst || t->nelements == 0), SAMRT_E_INVALID_ARG, "samrt_ckpt_read: NULL argument");
    SAMRT_CHECK(t->offset <= ck->size && t->nbytes <= ck->size - t->offset, SAMRT_E_INVALID_ARG,
                "samrt_ckpt_read: tensor '%s' is not from this checkpoint", t->name);
    uint64_t need = (uint64_t)t->nelements * samrt_dtype_size(dst_dtype);
    SAMRT_CHECK(samrt_dtype_size(dst_dtype) > 0 && dst_bytes >= need, SAMRT_E_INVALID_ARG,
                "samrt_ckpt_read: tensor '%s' needs %llu bytes as %s, the destination holds %llu", t->name,
                (unsigned long long)need, samrt_dtype_name(dst_dtype), (unsigned long long)dst_bytes);
    const uint8_t *src = ck->data + t->offset;
    if (t->dtype == dst_dtype) { /* bit-exact copy, NaN payloads included */
        if (need) memcpy(dst, src, (size_t)need);
        return SAMRT_OK;
    }
    if (is_float(t->dtype) && is_float(dst_dtype)) {
        for (int64_t i = 0; i < t->nelements; i++) {
            float f = load_float(src, t->dtype, i);
            if (dst_dtype == SAMRT_DTYPE_F32) {
                memcpy((uint8_t *)dst + 4 * i, &f, 4);
            } else {
                uint16_t h = dst_dtype == SAMRT_DTYPE_F16 ? samrt_f32_to_f16(f) : samrt_f32_to_bf16(f);
                memcpy((uint8_t *)dst + 2 * i, &h, 2);
            }
        }
        return SAMRT_OK;
    }
    if (t->dtype == SAMRT_DTYPE_I64 && dst_dtype == SAMRT_DTYPE_I32) {
        for (int64_t i = 0; i < t->nelements; i++) {
            int64_t v;
            memcpy(&v, src + 8 * i, 8);
            SAMRT_CHECK(v >= INT32_MIN && v <= INT32_MAX, SAMRT_E_UNSUPPORTED,
                        "samrt_ckpt_read: tensor '%s' element %lld = %lld does not fit i32", t->name,
                        (long long)i, (long long)v);
            int32_t w = (int32_t)v;
            memcpy((uint8_t *)dst + 4 * i, &w, 4);
        }
        return SAMRT_OK;
    }
    SAMRT_LOG_ERROR("samrt_ckpt_read: tensor '%s' cannot be converted from %s to %s", t->name,
                    samrt_dtype_name(t->dtype), samrt_dtype_name(dst_dtype));
    return SAMRT_E_UNSUPPORTED;
}

/* An f32 / f16 / bf16 element is NaN or Inf when its exponent bits are all ones. */
static void count_nonfinite(const uint8_t *p, enum samrt_dtype dt, int64_t n, int64_t *n_nan, int64_t *n_inf) {
    for (int64_t i = 0; i < n; i++) {
        int nan, inf;
        if (dt == SAMRT_DTYPE_F32) {
            uint32_t u;
            memcpy(&u, p + 4 * i, 4);
            inf = (u & 0x7fffffffu) == 0x7f800000u;
            nan = (u & 0x7fffffffu) > 0x7f800000u;
        } else {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            uint16_t e = dt == SAMRT_DTYPE_F16 ? 0x7c00u : 0x7f80u;
            inf = (h & 0x7fffu) == e;
            nan = (h & 0x7fffu) > e;
        }
        *n_nan += nan;
        *n_inf += inf;
    }
}

int samrt_ckpt_check_finite(struct samrt_ckpt *ck) {
    int bad = 0;
    for (int k = 0; ck && k < ck->n_tensors; k++) {
        const struct samrt_ckpt_tensor *t = &ck->tensors[k];
        if (!is_float(t->dtype)) continue;
        int64_t n_nan = 0, n_inf = 0;
        count_nonfinite(ck->data + t->offset, t->dtype, t->nelements, &n_nan, &n_inf);
        if (n_nan || n_inf) {
            SAMRT_LOG_WARN("checkpoint tensor '%s' holds %lld NaN and %lld Inf of %lld values", t->name,
                           (long long)n_nan, (long long)n_inf, (long long)t->nelements);
            bad++;
        }
    }
    if (ck) ck->n_nonfinite_warnings = bad;
    return bad;
}
