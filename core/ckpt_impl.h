/* ckpt_impl.h - the three parsers behind ckpt.h: a ZIP directory reader (ckpt_zip.c), a
 * restricted pickle VM for torch.save's data.pkl (ckpt_pickle.c) and a safetensors header
 * reader (ckpt_safetensors.c). ckpt.c glues them into struct samrt_ckpt. Not installed.
 *
 * Every parser works on a caller-owned byte range and checks each offset and size against it
 * before reading; none of them follows a pointer taken from the file without a bound. */
#ifndef SAMRT_CKPT_IMPL_H
#define SAMRT_CKPT_IMPL_H

#include "ckpt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- zip ----------------------------------------------------------------------------- */

struct samrt_ckpt_zip_entry {
    const char *name;       /* points into the file; NOT NUL-terminated */
    uint32_t name_len;
    uint64_t data_offset;   /* first byte of the stored data within the file */
    uint64_t size;          /* stored (= uncompressed) size */
};

/* Reads the central directory (zip64 where present) and every local header. Only STORED
 * entries are accepted. Entries come back sorted by name (for samrt_ckpt_zip_find); duplicate
 * names are refused. *out is malloc'ed; free() it. */
enum samrt_status samrt_ckpt_zip_index(const uint8_t *data, uint64_t size,
                                       struct samrt_ckpt_zip_entry **out, int *n_out);
/* The entry named prefix + name (prefix may be empty), or NULL. */
const struct samrt_ckpt_zip_entry *samrt_ckpt_zip_find(const struct samrt_ckpt_zip_entry *e,
                                                       int n, const char *prefix,
                                                       size_t prefix_len, const char *name);

/* ---- pickle --------------------------------------------------------------------------- */

/* Largest data.pkl accepted. A state_dict pickle holds ~200 bytes per tensor (SAM 2.1 large:
 * well under 1 MiB); the bound keeps the VM's memory proportional to a sane input. */
#define SAMRT_PICKLE_MAX_BYTES (64u << 20)

/* One tensor as data.pkl describes it; the bytes live in zip entry <prefix>/data/<key>. */
struct samrt_ckpt_pkl_tensor {
    char *name;                        /* malloc'ed, NUL-terminated state_dict key */
    enum samrt_dtype dtype;            /* from the storage class (torch.FloatStorage -> f32) */
    char storage_key[64];              /* NUL-terminated, no '/' */
    int64_t storage_numel;             /* elements in the whole storage */
    int64_t storage_offset;            /* elements */
    int n_dims;
    int64_t ne[SAMRT_CKPT_MAX_DIMS];
    int64_t nelements;
};

/* Runs data.pkl and returns the state_dict: the "model" entry of the top-level dict when it
 * has one, else the top-level dict itself. Tensors come back in pickle order. Contiguity and
 * storage_offset + nelements <= storage_numel are already checked. */
enum samrt_status samrt_ckpt_pickle_parse(const uint8_t *pkl, uint64_t len,
                                          struct samrt_ckpt_pkl_tensor **out, int *n_out);
void samrt_ckpt_pickle_free(struct samrt_ckpt_pkl_tensor *t, int n);

/* ---- safetensors ----------------------------------------------------------------------- */

/* Largest JSON header accepted (the safetensors reference implementation uses the same). */
#define SAMRT_SAFETENSORS_MAX_HEADER 100000000ull

/* Parses the header and fills tensors (names malloc'ed, offsets absolute in the file). */
enum samrt_status samrt_ckpt_safetensors_parse(const uint8_t *data, uint64_t size,
                                               struct samrt_ckpt_tensor **out, int *n_out);

/* ---- shared helpers (ckpt.c) ----------------------------------------------------------- */

/* Writes s (len bytes, maybe binary) into buf as printable ASCII for a log message. */
const char *samrt_ckpt_printable(const void *s, size_t len, char *buf, size_t buf_len);
/* nelements of a shape with overflow checks: -1 when a dim is negative or the product
 * exceeds 2^48 elements. */
int64_t samrt_ckpt_shape_numel(const int64_t *ne, int n_dims);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_CKPT_IMPL_H */
