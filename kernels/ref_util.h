/* ref_util.h - host helpers for the plain C references: read and write element i of an
 * f32 / f16 / bf16 buffer as fp32 (through core/half.h, round to nearest even), so each
 * reference is one loop nest over floats whatever the storage type. Header-only, static. */
#ifndef SAMRT_KERNELS_REF_UTIL_H
#define SAMRT_KERNELS_REF_UTIL_H

#include <stdint.h>

#include "half.h"
#include "samrt.h"

static inline int ref_dtype_ok(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F32 || dt == SAMRT_DTYPE_F16 || dt == SAMRT_DTYPE_BF16;
}

static inline float ref_load(enum samrt_dtype dt, const void *p, int64_t i) {
    if (dt == SAMRT_DTYPE_F32) return ((const float *)p)[i];
    if (dt == SAMRT_DTYPE_F16) return samrt_f16_to_f32(((const uint16_t *)p)[i]);
    return samrt_bf16_to_f32(((const uint16_t *)p)[i]);
}

static inline void ref_store(enum samrt_dtype dt, void *p, int64_t i, float v) {
    if (dt == SAMRT_DTYPE_F32) ((float *)p)[i] = v;
    else if (dt == SAMRT_DTYPE_F16) ((uint16_t *)p)[i] = samrt_f32_to_f16(v);
    else ((uint16_t *)p)[i] = samrt_f32_to_bf16(v);
}

/* What storing v in dtype and reading it back gives. */
static inline float ref_round(enum samrt_dtype dt, float v) {
    if (dt == SAMRT_DTYPE_F16) return samrt_round_f16(v);
    if (dt == SAMRT_DTYPE_BF16) return samrt_round_bf16(v);
    return v;
}

#endif /* SAMRT_KERNELS_REF_UTIL_H */
