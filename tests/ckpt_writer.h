/* ckpt_writer.h - writes a complete, shape-correct safetensors checkpoint for any model from
 * its key table (models/sam2/keys.h), with deterministic values, so engine tests need no real
 * checkpoint. Values: element j of key i is a small pattern that differs per key, stored as
 * f32 or bf16; ckw_write_safetensors_fn takes the values from a callback instead.
 * Header-only to keep tests single-file. */
#ifndef SAMRT_TEST_CKPT_WRITER_H
#define SAMRT_TEST_CKPT_WRITER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "keys.h"

/* The value the writer stores for element j of key i (f32 before any rounding). */
static inline float ckw_value(int i, int64_t j) {
    return (float)((i * 7 + (int)(j % 251)) % 97 - 48) / 64.0f;
}

/* The value of element j of key i (the floating-point keys); user is the caller's. */
typedef float (*ckw_value_fn)(const struct samrt_key *k, int i, int64_t j, void *user);

static inline float ckw_pattern(const struct samrt_key *k, int i, int64_t j, void *user) {
    (void)user;
    float v = ckw_value(i, j);
    /* BatchNorm running_var must stay positive */
    if (strstr(k->name, "running_var")) v = 1.0f + (v < 0 ? -v : v);
    return v;
}

/* The pattern values times *(const float *)user (running_var untouched): the pattern's
 * values (up to 0.75) overflow fp16 in deep stacks, which the engines report (SAMRT_E_NUMERIC). */
static inline float ckw_pattern_scaled(const struct samrt_key *k, int i, int64_t j, void *user) {
    const float v = ckw_pattern(k, i, j, NULL);
    return strstr(k->name, "running_var") ? v : v * *(const float *)user;
}

/* Returns 0 on success. storage: SAMRT_DTYPE_F32 or SAMRT_DTYPE_BF16. Values from fn. */
static inline int ckw_write_safetensors_fn(const char *path, enum samrt_model_id model, enum samrt_dtype storage,
                                           ckw_value_fn fn, void *user) {
    struct samrt_keys keys;
    if (samrt_keys_init(model, &keys) != SAMRT_OK) return -1;
    size_t hcap = (size_t)keys.n_keys * 256 + 64, hlen = 0;
    char *hdr = malloc(hcap);
    if (!hdr) { samrt_keys_free(&keys); return -1; }
    uint64_t off = 0;
    hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "{");
    for (int i = 0; i < keys.n_keys; i++) {
        const struct samrt_key *k = &keys.keys[i];
        int64_t n = 1;
        for (int d = 0; d < k->n_dims; d++) n *= k->ne[d];
        size_t es = k->is_int ? 8 : samrt_dtype_size(storage);
        const char *dt = k->is_int ? "I64" : storage == SAMRT_DTYPE_F32 ? "F32" : "BF16";
        hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", i ? "," : "",
                                 k->name, dt);
        for (int d = 0; d < k->n_dims; d++)
            hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "%s%lld", d ? "," : "", (long long)k->ne[d]);
        hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "],\"data_offsets\":[%llu,%llu]}",
                                 (unsigned long long)off, (unsigned long long)(off + (uint64_t)n * es));
        off += (uint64_t)n * es;
    }
    hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "}");
    while (hlen % 8) hdr[hlen++] = ' ';
    FILE *f = fopen(path, "wb");
    int rc = f ? 0 : -1;
    uint64_t hl = hlen;
    if (!rc && fwrite(&hl, 8, 1, f) != 1) rc = -1;
    if (!rc && fwrite(hdr, 1, hlen, f) != hlen) rc = -1;
    for (int i = 0; i < keys.n_keys && !rc; i++) {
        const struct samrt_key *k = &keys.keys[i];
        int64_t n = 1;
        for (int d = 0; d < k->n_dims; d++) n *= k->ne[d];
        for (int64_t j = 0; j < n && !rc; j++) {
            if (k->is_int) {
                int64_t v = 0;
                rc = fwrite(&v, 8, 1, f) == 1 ? 0 : -1;
            } else if (storage == SAMRT_DTYPE_F32) {
                float v = fn(k, i, j, user);
                rc = fwrite(&v, 4, 1, f) == 1 ? 0 : -1;
            } else {
                uint16_t h = samrt_f32_to_bf16(fn(k, i, j, user));
                rc = fwrite(&h, 2, 1, f) == 1 ? 0 : -1;
            }
        }
    }
    if (f && fclose(f) != 0) rc = -1;
    free(hdr);
    samrt_keys_free(&keys);
    return rc;
}

/* The pattern values of ckw_value (running_var kept positive). */
static inline int ckw_write_safetensors(const char *path, enum samrt_model_id model, enum samrt_dtype storage) {
    return ckw_write_safetensors_fn(path, model, storage, ckw_pattern, NULL);
}

#endif /* SAMRT_TEST_CKPT_WRITER_H */
