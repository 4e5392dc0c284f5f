/* ckpt_write.c - the random-weight checkpoint of ckpt_write.h, byte-compatible with what
 * torch.save writes: a zip of STORED entries <prefix>/data.pkl, .format_version,
 * .storage_alignment, byteorder, data/<key> (one per tensor, data aligned to 64 bytes with an
 * "FB" extra field), version and .data/serialization_id, then the central directory, the
 * zip64 end record with its locator and the classic end record. data.pkl is pickle protocol
 * 2 as torch.save writes it: {"model": OrderedDict(name -> _rebuild_tensor_v2(persistent id
 * ('storage', torch.<T>Storage, key, 'cpu', numel), 0, size, stride, False, OrderedDict()))}.
 * The zip layout matches tests/data/ckpt/make_fixtures.py, which follows PyTorch's writer. */
#include "ckpt_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "ckpt.h"
#include "keys.h"
#include "samrt_impl.h"

#define ZIP_ALIGN 64
#define PREFIX "archive/"

/* ---- growable byte buffer --------------------------------------------------------------- */

struct buf {
    uint8_t *p;
    size_t n, cap;
    int oom;
};

static void put(struct buf *b, const void *data, size_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_u8(struct buf *b, unsigned v) { uint8_t c = (uint8_t)v; put(b, &c, 1); }
static void put_le(struct buf *b, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) put_u8(b, (unsigned)(v >> (8 * i)) & 0xff);
}
static void put_str(struct buf *b, const char *s) { put(b, s, strlen(s)); }

/* ---- pickle (protocol 2) ------------------------------------------------------------------- */

static void pk_int(struct buf *b, int64_t v) {
    if (v >= 0 && v < 256) {
        put_u8(b, 'K');
        put_u8(b, (unsigned)v);
    } else if (v >= 0 && v < 65536) {
        put_u8(b, 'M');
        put_le(b, (uint64_t)v, 2);
    } else {
        put_u8(b, 'J');
        put_le(b, (uint64_t)(uint32_t)(int32_t)v, 4);
    }
}

static void pk_str(struct buf *b, const char *s) {
    put_u8(b, 'X');
    put_le(b, strlen(s), 4);
    put_str(b, s);
}

static void pk_ordered_dict(struct buf *b) { put_str(b, "ccollections\nOrderedDict\n)R"); }

/* (v0, v1, ...) of n ints; () when n is 0. */
static void pk_tuple(struct buf *b, const int64_t *v, int n) {
    put_u8(b, n ? '(' : ')');
    for (int i = 0; i < n; i++) pk_int(b, v[i]);
    if (n) put_u8(b, 't');
}

static void pk_tensor(struct buf *b, const struct samrt_key *k, int storage_key) {
    int64_t numel = 1, stride[4];
    for (int d = k->n_dims - 1; d >= 0; d--) stride[d] = numel, numel *= k->ne[d];
    char key[16];
    snprintf(key, sizeof key, "%d", storage_key);
    put_str(b, "ctorch._utils\n_rebuild_tensor_v2\n(");
    put_u8(b, '(');
    pk_str(b, "storage");
    put_str(b, k->is_int ? "ctorch\nLongStorage\n" : "ctorch\nFloatStorage\n");
    pk_str(b, key);
    pk_str(b, "cpu");
    pk_int(b, numel);
    put_str(b, "tQ");
    pk_int(b, 0);
    pk_tuple(b, k->ne, k->n_dims);
    pk_tuple(b, stride, k->n_dims);
    put_u8(b, 0x89);  /* requires_grad False */
    pk_ordered_dict(b);
    put_str(b, "tR");
}

static void pk_state_dict(struct buf *b, const struct samrt_keys *keys) {
    put_str(b, "\x80\x02}");
    pk_str(b, "model");
    pk_ordered_dict(b);
    put_u8(b, '(');
    for (int i = 0; i < keys->n_keys; i++) {
        pk_str(b, keys->keys[i].name);
        pk_tensor(b, &keys->keys[i], i);
    }
    put_str(b, "us.");
}

/* ---- values ---------------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The values of key i (see ckpt_write.h), f32 or int64 into out. */
static void fill_values(const struct samrt_key *k, int i, uint64_t seed, int64_t n, void *out) {
    if (k->is_int) {
        memset(out, 0, (size_t)n * 8);
        return;
    }
    float *v = out, fill = NAN;
    if (ends_with(k->name, "running_var")) fill = 1.0f;
    else if (ends_with(k->name, "running_mean")) fill = 0.0f;
    else if (k->n_dims == 1 && ends_with(k->name, ".weight")) fill = 1.0f;  /* every 1-D weight is a norm's */
    else if (k->n_dims == 1 && ends_with(k->name, ".bias")) fill = 0.0f;
    if (strstr(k->name, "pred_obj_score_head.layers.2.bias")) fill = 4.0f;
    /* RepViT's residual branches end in a BatchNorm: at scale 1 each block would triple the
     * stream's variance (x + dw3x3 + dw1x1), and EdgeTAM's stage 3 would reach ~4e7, past
     * fp16; 0.1 keeps the trunk's activations at a trained model's order */
    if (strstr(k->name, "trunk.body.") &&
        (ends_with(k->name, "token_mixer.conv.bn.weight") || ends_with(k->name, "token_mixer.conv1.bn.weight") ||
         ends_with(k->name, "channel_mixer.conv2.bn.weight") || ends_with(k->name, "ffn.conv2.bn.weight")))
        fill = 0.1f;
    /* and its squeeze-excite gates near open (sigmoid(3) = 0.95), not halving every other block */
    if (strstr(k->name, "trunk.body.") && ends_with(k->name, "se.fc2.bias")) fill = 3.0f;
    if (!isnan(fill)) {
        for (int64_t j = 0; j < n; j++) v[j] = fill;
        return;
    }
    int64_t fan_in = 1;
    for (int d = 1; d < k->n_dims; d++) fan_in *= k->ne[d];
    const float scale = strstr(k->name, "gaussian_matrix") ? 1.7320508f : sqrtf(3.0f / (float)fan_in);
    uint64_t s = (seed + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)i + 1) * 0xD1B54A32D192ED03ull;
    for (int64_t j = 0; j < n; j++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        v[j] = scale * ((float)(s >> 40) * (2.0f / 16777216.0f) - 1.0f);
    }
}

/* ---- zip ----------------------------------------------------------------------------------- */

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n) {
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

struct zip {
    FILE *f;
    uint64_t off;
    struct buf cd;
    uint64_t n_entries;
    int failed;
};

/* One STORED entry, its data aligned to ZIP_ALIGN. */
static void zip_entry(struct zip *z, const char *name, const void *data, size_t n) {
    char full[256];
    snprintf(full, sizeof full, PREFIX "%s", name);
    const size_t name_len = strlen(full);
    const size_t pad = (ZIP_ALIGN - (z->off + 30 + name_len + 4) % ZIP_ALIGN) % ZIP_ALIGN;
    const uint32_t crc = crc32_update(0, data, n);
    struct buf h = {0};
    put_le(&h, 0x04034b50u, 4), put_le(&h, 20, 2), put_le(&h, 0, 2), put_le(&h, 0, 2), put_le(&h, 0, 2);
    put_le(&h, 0x21, 2), put_le(&h, crc, 4), put_le(&h, n, 4), put_le(&h, n, 4), put_le(&h, name_len, 2);
    put_le(&h, 4 + pad, 2), put_str(&h, full), put_str(&h, "FB"), put_le(&h, pad, 2);
    for (size_t i = 0; i < pad; i++) put_u8(&h, 'Z');
    if (h.oom || fwrite(h.p, 1, h.n, z->f) != h.n || (n && fwrite(data, 1, n, z->f) != n)) z->failed = 1;
    struct buf *c = &z->cd;
    put_le(c, 0x02014b50u, 4), put_le(c, 0x031e, 2), put_le(c, 20, 2), put_le(c, 0, 2), put_le(c, 0, 2);
    put_le(c, 0, 2), put_le(c, 0x21, 2), put_le(c, crc, 4), put_le(c, n, 4), put_le(c, n, 4);
    put_le(c, name_len, 2), put_le(c, 0, 2), put_le(c, 0, 2), put_le(c, 0, 2), put_le(c, 0, 2), put_le(c, 0, 4);
    put_le(c, z->off, 4), put_str(c, full);
    z->off += h.n + n;
    z->n_entries++;
    free(h.p);
}

/* The central directory, the zip64 end record and locator, and the classic end record. */
static void zip_finish(struct zip *z) {
    const uint64_t cd_off = z->off, n = z->n_entries, cd_size = z->cd.n;
    struct buf *c = &z->cd;
    const uint64_t z64 = cd_off + cd_size;
    put_le(c, 0x06064b50u, 4), put_le(c, 44, 8), put_le(c, 0x031e, 2), put_le(c, 45, 2), put_le(c, 0, 4);
    put_le(c, 0, 4), put_le(c, n, 8), put_le(c, n, 8), put_le(c, cd_size, 8), put_le(c, cd_off, 8);
    put_le(c, 0x07064b50u, 4), put_le(c, 0, 4), put_le(c, z64, 8), put_le(c, 1, 4);
    put_le(c, 0x06054b50u, 4), put_le(c, 0, 2), put_le(c, 0, 2), put_le(c, n, 2), put_le(c, n, 2);
    put_le(c, cd_size, 4), put_le(c, cd_off, 4), put_le(c, 0, 2);
    if (c->oom || fwrite(c->p, 1, c->n, z->f) != c->n) z->failed = 1;
}

static enum samrt_status write_all(struct zip *z, const struct samrt_keys *keys, uint64_t seed) {
    struct buf pkl = {0};
    pk_state_dict(&pkl, keys);
    SAMRT_CHECK(!pkl.oom, SAMRT_E_HOST_MEMORY, "out of memory");
    zip_entry(z, "data.pkl", pkl.p, pkl.n);
    free(pkl.p);
    zip_entry(z, ".format_version", "1", 1);
    zip_entry(z, ".storage_alignment", "64", 2);
    zip_entry(z, "byteorder", "little", 6);
    void *vals = NULL;
    size_t cap = 0;
    for (int i = 0; i < keys->n_keys && !z->failed; i++) {
        const struct samrt_key *k = &keys->keys[i];
        int64_t n = 1;
        for (int d = 0; d < k->n_dims; d++) n *= k->ne[d];
        const size_t bytes = (size_t)n * (k->is_int ? 8 : 4);
        if (bytes > cap) {
            void *p = realloc(vals, bytes);
            SAMRT_CHECK(p, SAMRT_E_HOST_MEMORY, "out of memory for %zu bytes of %s", bytes, k->name);
            vals = p, cap = bytes;
        }
        fill_values(k, i, seed, n, vals);
        char name[32];
        snprintf(name, sizeof name, "data/%d", i);
        zip_entry(z, name, vals, bytes);
    }
    free(vals);
    zip_entry(z, "version", "3\n", 2);
    zip_entry(z, ".data/serialization_id", "0000000000000000000000000000000000000000", 40);
    zip_finish(z);
    SAMRT_CHECK(!z->cd.oom, SAMRT_E_HOST_MEMORY, "out of memory");
    return z->failed ? SAMRT_E_IO : SAMRT_OK;
}

enum samrt_status samrt_ckpt_write_random(const char *path, enum samrt_model_id model, uint64_t seed) {
    SAMRT_CHECK(path, SAMRT_E_INVALID_ARG, "samrt_ckpt_write_random: NULL path");
    struct samrt_keys keys;
    SAMRT_TRY(samrt_keys_init(model, &keys));
    struct samrt_atomic_file af;
    struct zip z = {0};
    enum samrt_status st = samrt_atomic_open(&af, path);
    if (st == SAMRT_OK) {
        z.f = af.f;
        st = write_all(&z, &keys, seed);
        if (st == SAMRT_OK) st = samrt_atomic_commit(&af);
        else samrt_atomic_abort(&af);
    }
    if (st != SAMRT_OK) SAMRT_LOG_ERROR("%s: cannot write the checkpoint (%s)", path, samrt_status_str(st));
    free(z.cd.p);
    samrt_keys_free(&keys);
    return st;
}

enum samrt_status samrt_ckpt_identify(const char *path, enum samrt_model_id *model) {
    SAMRT_CHECK(path && model, SAMRT_E_INVALID_ARG, "samrt_ckpt_identify: NULL argument");
    *model = SAMRT_MODEL_UNKNOWN;
    struct samrt_ckpt ck;
    SAMRT_TRY(samrt_ckpt_open(path, &ck));
    *model = samrt_keys_identify(ck.tensors, ck.n_tensors);
    samrt_ckpt_close(&ck);
    return SAMRT_OK;
}
