/* status.c - names for statuses, dtypes, memory kinds and models, and their parsers.
 * Tables are indexed by enum value; the _Static_asserts keep them the same length. */
#include "samrt_impl.h"

#include <string.h>

static const char *const status_names[] = {
    "ok",
    "invalid argument",
    "i/o error",
    "malformed file",
    "forbidden pickle content",
    "checkpoint keys do not match the model",
    "checkpoint is for a different model",
    "unsupported",
    "arena too small",
    "no CUDA device",
    "CUDA error",
    "host allocation failed",
    "engine in a failed state",
    "not implemented in this build",
    "non-finite results",
};
_Static_assert(sizeof(status_names) / sizeof(status_names[0]) == SAMRT_STATUS_COUNT,
               "status_names out of sync with enum samrt_status");

const char *samrt_status_str(enum samrt_status status) {
    if ((unsigned)status >= SAMRT_STATUS_COUNT) return "unknown status";
    return status_names[status];
}

static const char *const dtype_names[] = {"f32", "f16", "bf16", "u8", "i32", "i64"};
static const size_t dtype_sizes[] = {4, 2, 2, 1, 4, 8};
_Static_assert(sizeof(dtype_names) / sizeof(dtype_names[0]) == SAMRT_DTYPE_COUNT, "dtype names");
_Static_assert(sizeof(dtype_sizes) / sizeof(dtype_sizes[0]) == SAMRT_DTYPE_COUNT, "dtype sizes");

const char *samrt_dtype_name(enum samrt_dtype dtype) {
    if ((unsigned)dtype >= SAMRT_DTYPE_COUNT) return "?";
    return dtype_names[dtype];
}

size_t samrt_dtype_size(enum samrt_dtype dtype) {
    if ((unsigned)dtype >= SAMRT_DTYPE_COUNT) return 0;
    return dtype_sizes[dtype];
}

enum samrt_status samrt_dtype_parse(const char *s, enum samrt_dtype *out) {
    if (!s || !out) return SAMRT_E_INVALID_ARG;
    if (!strcmp(s, "fp32") || !strcmp(s, "f32") || !strcmp(s, "float32")) *out = SAMRT_DTYPE_F32;
    else if (!strcmp(s, "fp16") || !strcmp(s, "f16") || !strcmp(s, "float16")) *out = SAMRT_DTYPE_F16;
    else if (!strcmp(s, "bf16") || !strcmp(s, "bfloat16")) *out = SAMRT_DTYPE_BF16;
    else return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

const char *samrt_mem_kind_name(enum samrt_mem_kind kind) {
    switch (kind) {
    case SAMRT_MEM_AUTO: return "auto";
    case SAMRT_MEM_DEVICE: return "device";
    case SAMRT_MEM_UNIFIED: return "unified";
    case SAMRT_MEM_HOST: return "host";
    }
    return "?";
}

#define SAMRT_MODEL_ROW_(id, name, ckpt, tracks) {name, ckpt, tracks},
static const struct {
    const char *name, *checkpoint;
    int tracks;
} g_models[] = {{"unknown", NULL, 0}, SAMRT_MODEL_TABLE(SAMRT_MODEL_ROW_)};
#undef SAMRT_MODEL_ROW_
_Static_assert(sizeof(g_models) / sizeof(g_models[0]) == SAMRT_MODEL_COUNT, "model table");

const char *samrt_model_name(enum samrt_model_id id) {
    if ((unsigned)id >= SAMRT_MODEL_COUNT) return "unknown";
    return g_models[id].name;
}

const char *samrt_model_checkpoint_name(enum samrt_model_id id) {
    return (unsigned)id < SAMRT_MODEL_COUNT ? g_models[id].checkpoint : NULL;
}

int samrt_model_tracks(enum samrt_model_id id) { return (unsigned)id < SAMRT_MODEL_COUNT && g_models[id].tracks; }

enum samrt_status samrt_model_parse(const char *s, enum samrt_model_id *out) {
    if (!s || !out) return SAMRT_E_INVALID_ARG;
    for (int i = 1; i < SAMRT_MODEL_COUNT; i++) {
        if (!strcmp(s, g_models[i].name)) {
            *out = (enum samrt_model_id)i;
            return SAMRT_OK;
        }
    }
    /* the old script names: sam2_base means SAM 2.0 base_plus */
    if (!strcmp(s, "sam2_base")) { *out = SAMRT_MODEL_SAM2_BASE_PLUS; return SAMRT_OK; }
    if (!strcmp(s, "sam2.1_base")) { *out = SAMRT_MODEL_SAM2_1_BASE_PLUS; return SAMRT_OK; }
    return SAMRT_E_INVALID_ARG;
}
