/* finite_ref.c - argument checks and the C reference of the non-finite check (finite.h).
 * Tests: tests/test_finite.c. */
#include "finite.h"

#include <string.h>

enum samrt_status samrt_finite_check(const struct samrt_finite_args *a) {
    if (!a || !a->flags || a->n_seg < 1 || a->n_seg > SAMRT_FINITE_MAX_SEGS) return SAMRT_E_INVALID_ARG;
    for (int i = 0; i < a->n_seg; i++) {
        const struct samrt_finite_seg *s = &a->seg[i];
        if (s->n < 0 || (s->n > 0 && !s->data)) return SAMRT_E_INVALID_ARG;
        if (s->dtype != SAMRT_DTYPE_F32 && s->dtype != SAMRT_DTYPE_F16 && s->dtype != SAMRT_DTYPE_BF16)
            return SAMRT_E_INVALID_ARG;
    }
    return SAMRT_OK;
}

int samrt_finite_is_bad(enum samrt_dtype dtype, const void *p) {
    if (dtype == SAMRT_DTYPE_F32) {
        uint32_t u;
        memcpy(&u, p, sizeof u);
        return (u & 0x7f800000u) == 0x7f800000u;
    }
    uint16_t h;
    memcpy(&h, p, sizeof h);
    return dtype == SAMRT_DTYPE_F16 ? (h & 0x7c00u) == 0x7c00u : (h & 0x7f80u) == 0x7f80u;
}

enum samrt_status samrt_finite_ref(const struct samrt_finite_args *a) {
    const enum samrt_status st = samrt_finite_check(a);
    if (st != SAMRT_OK) return st;
    int32_t bits = 0;
    for (int i = 0; i < a->n_seg; i++) {
        const struct samrt_finite_seg *s = &a->seg[i];
        const size_t es = samrt_dtype_size(s->dtype);
        for (int64_t j = 0; j < s->n; j++)
            if (samrt_finite_is_bad(s->dtype, (const char *)s->data + (size_t)j * es)) {
                bits |= 1 << i;
                break;
            }
    }
    a->flags[0] = bits;
    return SAMRT_OK;
}
