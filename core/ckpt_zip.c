/* ckpt_zip.c - the part of ZIP that torch.save writes: an end-of-central-directory record
 * (plus the zip64 record and locator that PyTorch's writer always adds), central directory
 * headers, local headers, and STORED (uncompressed) entries whose data PyTorch aligns to 64
 * bytes with an "FB" extra field. Anything else is refused with a status and a message.
 *
 * The central directory is authoritative for sizes and offsets; the local header is read only
 * to find where the data starts (its name and extra field lengths may differ from the central
 * copy's) and must repeat the entry's name. Every read is bounds-checked against the file.
 * Tests: tests/test_ckpt.c, tests/test_ckpt_corpus.c, tests/fuzz/fuzz_ckpt.c. */
#include "ckpt_impl.h"

#include <stdlib.h>
#include <string.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_EOCD64_LOC 0x07064b50u
#define EOCD_SIZE 22u
#define EOCD64_SIZE 56u
#define EOCD64_LOC_SIZE 20u
#define CENTRAL_SIZE 46u
#define LOCAL_SIZE 30u
#define EXTRA_ZIP64 0x0001u

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

/* off + len <= size, without overflow. */
static int in_file(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

/* Finds the end-of-central-directory record: the last signature whose comment runs exactly to
 * the end of the file (a signature inside the comment would not). */
static enum samrt_status find_eocd(const uint8_t *d, uint64_t size, uint64_t *eocd) {
    SAMRT_CHECK(size >= EOCD_SIZE, SAMRT_E_FORMAT,
                "zip: %llu bytes is too short for an end-of-central-directory record (truncated?)",
                (unsigned long long)size);
    uint64_t lo = size > EOCD_SIZE + 0xffffu ? size - EOCD_SIZE - 0xffffu : 0;
    for (uint64_t p = size - EOCD_SIZE + 1; p-- > lo;) {
        if (rd32(d + p) == SIG_EOCD && p + EOCD_SIZE + rd16(d + p + 20) == size) {
            *eocd = p;
            return SAMRT_OK;
        }
    }
    SAMRT_LOG_ERROR("zip: no end-of-central-directory record (the file is truncated or not a zip)");
    return SAMRT_E_FORMAT;
}

/* Reads the directory location from the EOCD, or from the zip64 record when the locator is
 * present (PyTorch writes it always; the 32-bit fields are then only trusted when they fit). */
static enum samrt_status read_directory(const uint8_t *d, uint64_t size, uint64_t eocd,
                                        uint64_t *cd_off, uint64_t *cd_size, uint64_t *n_entries) {
    const uint8_t *e = d + eocd;
    SAMRT_CHECK(rd16(e + 4) == 0 && rd16(e + 6) == 0 && rd16(e + 8) == rd16(e + 10), SAMRT_E_FORMAT,
                "zip: multi-disk archives are not supported");
    *n_entries = rd16(e + 10);
    *cd_size = rd32(e + 12);
    *cd_off = rd32(e + 16);
    if (eocd >= EOCD64_LOC_SIZE && rd32(d + eocd - EOCD64_LOC_SIZE) == SIG_EOCD64_LOC) {
        const uint8_t *loc = d + eocd - EOCD64_LOC_SIZE;
        uint64_t off64 = rd64(loc + 8);
        SAMRT_CHECK(rd32(loc + 4) == 0 && rd32(loc + 16) <= 1, SAMRT_E_FORMAT,
                    "zip: multi-disk zip64 archives are not supported");
        SAMRT_CHECK(in_file(off64, EOCD64_SIZE, eocd - EOCD64_LOC_SIZE) && rd32(d + off64) == SIG_EOCD64,
                    SAMRT_E_FORMAT, "zip: the zip64 locator points to offset %llu, where there is no "
                    "zip64 end-of-central-directory record", (unsigned long long)off64);
        const uint8_t *z = d + off64;
        SAMRT_CHECK(rd32(z + 16) == 0 && rd32(z + 20) == 0 && rd64(z + 24) == rd64(z + 32),
                    SAMRT_E_FORMAT, "zip: multi-disk zip64 archives are not supported");
        *n_entries = rd64(z + 32);
        *cd_size = rd64(z + 40);
        *cd_off = rd64(z + 48);
        SAMRT_CHECK(in_file(*cd_off, *cd_size, off64), SAMRT_E_FORMAT,
                    "zip: central directory [%llu, +%llu) runs past the zip64 record at %llu",
                    (unsigned long long)*cd_off, (unsigned long long)*cd_size,
                    (unsigned long long)off64);
        return SAMRT_OK;
    }
    SAMRT_CHECK(in_file(*cd_off, *cd_size, eocd), SAMRT_E_FORMAT,
                "zip: central directory [%llu, +%llu) runs past its end record at %llu (truncated?)",
                (unsigned long long)*cd_off, (unsigned long long)*cd_size, (unsigned long long)eocd);
    return SAMRT_OK;
}

/* Applies the zip64 extended-information extra field: each 0xffffffff field of the header
 * is replaced, in order, by the next 8 bytes of the extra field. */
static enum samrt_status apply_zip64(const uint8_t *x, uint32_t x_len, uint64_t *usize,
                                     uint64_t *csize, uint64_t *lho, const char *what) {
    uint32_t p = 0;
    while (p + 4 <= x_len) {
        uint16_t id = rd16(x + p), len = rd16(x + p + 2);
        SAMRT_CHECK(p + 4u + len <= x_len, SAMRT_E_FORMAT, "zip: %s: extra field runs past its header", what);
        if (id == EXTRA_ZIP64) {
            uint32_t q = p + 4, end = p + 4u + len;
            uint64_t *fields[3] = {usize, csize, lho};
            for (int i = 0; i < 3; i++) {
                if (*fields[i] != 0xffffffffu) continue;
                SAMRT_CHECK(q + 8 <= end, SAMRT_E_FORMAT, "zip: %s: zip64 extra field too short", what);
                *fields[i] = rd64(x + q);
                q += 8;
            }
            return SAMRT_OK;
        }
        p += 4u + len;
    }
    SAMRT_CHECK(*usize != 0xffffffffu && *csize != 0xffffffffu && *lho != 0xffffffffu, SAMRT_E_FORMAT,
                "zip: %s: a 32-bit field says zip64 but there is no zip64 extra field", what);
    return SAMRT_OK;
}

static int cmp_entry(const void *a, const void *b) {
    const struct samrt_ckpt_zip_entry *x = a, *y = b;
    uint32_t n = SAMRT_MIN(x->name_len, y->name_len);
    int c = memcmp(x->name, y->name, n);
    if (c) return c;
    return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* One central directory header at *p: fills e and advances *p. */
static enum samrt_status read_entry(const uint8_t *d, uint64_t size, uint64_t cd_end, uint64_t *p,
                                    struct samrt_ckpt_zip_entry *e) {
    char what[96];
    SAMRT_CHECK(in_file(*p, CENTRAL_SIZE, cd_end) && rd32(d + *p) == SIG_CENTRAL, SAMRT_E_FORMAT,
                "zip: bad central directory header at offset %llu", (unsigned long long)*p);
    const uint8_t *c = d + *p;
    uint16_t flags = rd16(c + 8), method = rd16(c + 10);
    uint32_t n_len = rd16(c + 28), x_len = rd16(c + 30), k_len = rd16(c + 32);
    SAMRT_CHECK(in_file(*p + CENTRAL_SIZE, (uint64_t)n_len + x_len + k_len, cd_end), SAMRT_E_FORMAT,
                "zip: central directory header at %llu runs past the directory", (unsigned long long)*p);
    e->name = (const char *)c + CENTRAL_SIZE;
    e->name_len = n_len;
    samrt_ckpt_printable(e->name, n_len, what, sizeof what);
    uint64_t csize = rd32(c + 20), usize = rd32(c + 24), lho = rd32(c + 42);
    SAMRT_TRY(apply_zip64(c + CENTRAL_SIZE + n_len, x_len, &usize, &csize, &lho, what));
    SAMRT_CHECK(!(flags & 1u), SAMRT_E_UNSUPPORTED, "zip: entry '%s' is encrypted", what);
    SAMRT_CHECK(method == 0, SAMRT_E_UNSUPPORTED,
                "zip: entry '%s' is compressed (method %u); torch.save stores entries uncompressed - "
                "re-save the checkpoint with torch.save instead of re-zipping it", what, method);
    SAMRT_CHECK(csize == usize, SAMRT_E_FORMAT,
                "zip: stored entry '%s' has compressed size %llu != size %llu", what,
                (unsigned long long)csize, (unsigned long long)usize);
    /* the local header: its own name and extra lengths decide where the data starts */
    SAMRT_CHECK(in_file(lho, LOCAL_SIZE, size) && rd32(d + lho) == SIG_LOCAL, SAMRT_E_FORMAT,
                "zip: entry '%s': no local header at offset %llu", what, (unsigned long long)lho);
    const uint8_t *l = d + lho;
    uint64_t data_off = lho + LOCAL_SIZE + rd16(l + 26) + rd16(l + 28);
    SAMRT_CHECK(rd16(l + 26) == n_len && in_file(lho + LOCAL_SIZE, n_len, size) &&
                    memcmp(l + LOCAL_SIZE, e->name, n_len) == 0,
                SAMRT_E_FORMAT, "zip: entry '%s': the local header names a different file", what);
    SAMRT_CHECK(in_file(data_off, usize, size), SAMRT_E_FORMAT,
                "zip: entry '%s' ([%llu, +%llu)) runs past the end of the file (%llu bytes; truncated?)",
                what, (unsigned long long)data_off, (unsigned long long)usize, (unsigned long long)size);
    e->data_offset = data_off;
    e->size = usize;
    *p += CENTRAL_SIZE + n_len + x_len + k_len;
    return SAMRT_OK;
}

enum samrt_status samrt_ckpt_zip_index(const uint8_t *d, uint64_t size,
                                       struct samrt_ckpt_zip_entry **out, int *n_out) {
    *out = NULL;
    *n_out = 0;
    uint64_t eocd = 0, cd_off = 0, cd_size = 0, n = 0;
    SAMRT_TRY(find_eocd(d, size, &eocd));
    SAMRT_TRY(read_directory(d, size, eocd, &cd_off, &cd_size, &n));
    SAMRT_CHECK(n > 0, SAMRT_E_FORMAT, "zip: the archive is empty");
    SAMRT_CHECK(n <= cd_size / CENTRAL_SIZE && n < (1u << 24), SAMRT_E_FORMAT,
                "zip: %llu entries cannot fit a %llu-byte central directory", (unsigned long long)n,
                (unsigned long long)cd_size);
    struct samrt_ckpt_zip_entry *e = calloc((size_t)n, sizeof *e);
    SAMRT_CHECK(e, SAMRT_E_HOST_MEMORY, "zip: out of memory for %llu entries", (unsigned long long)n);
    uint64_t p = cd_off;
    for (uint64_t i = 0; i < n; i++) {
        enum samrt_status st = read_entry(d, size, cd_off + cd_size, &p, &e[i]);
        if (st != SAMRT_OK) {
            free(e);
            return st;
        }
    }
    qsort(e, (size_t)n, sizeof *e, cmp_entry);
    for (uint64_t i = 1; i < n; i++) {
        if (cmp_entry(&e[i - 1], &e[i]) == 0) {
            char what[96];
            SAMRT_LOG_ERROR("zip: entry '%s' appears twice",
                            samrt_ckpt_printable(e[i].name, e[i].name_len, what, sizeof what));
            free(e);
            return SAMRT_E_FORMAT;
        }
    }
    *out = e;
    *n_out = (int)n;
    return SAMRT_OK;
}

const struct samrt_ckpt_zip_entry *samrt_ckpt_zip_find(const struct samrt_ckpt_zip_entry *e,
                                                       int n, const char *prefix,
                                                       size_t prefix_len, const char *name) {
    char buf[512];
    size_t name_len = strlen(name);
    if (prefix_len + name_len > sizeof buf) return NULL;
    memcpy(buf, prefix, prefix_len);
    memcpy(buf + prefix_len, name, name_len);
    struct samrt_ckpt_zip_entry key = {buf, (uint32_t)(prefix_len + name_len), 0, 0};
    return bsearch(&key, e, (size_t)n, sizeof *e, cmp_entry);
}
