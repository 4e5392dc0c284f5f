/* track_rows_ref.c - argument checks and the C reference of the tracker's table-driven row
 * copies (track_rows.h). Tests: tests/test_sam2_track.c. */
#include "track_rows.h"

#include <string.h>

enum samrt_status samrt_track_rows_check(const struct samrt_track_rows_args *a) {
    if (!a || a->n < 0 || a->n > 65535) return SAMRT_E_INVALID_ARG;
    if (a->n == 0) return SAMRT_OK;
    if (!a->dst || !a->src || !a->pairs || a->row_bytes == 0 || a->row_bytes % 16 != 0) return SAMRT_E_INVALID_ARG;
    if (((uintptr_t)a->dst | (uintptr_t)a->src) % 16 != 0) return SAMRT_E_INVALID_ARG;
    return a->n_dst > 0 && a->n_src > 0 ? SAMRT_OK : SAMRT_E_INVALID_ARG;
}

enum samrt_status samrt_track_rows_ref(const struct samrt_track_rows_args *a) {
    const enum samrt_status st = samrt_track_rows_check(a);
    if (st != SAMRT_OK) return st;
    for (int i = 0; i < a->n; i++) {
        const int64_t d = a->pairs[2 * i], s = a->pairs[2 * i + 1];
        if (d < 0 || d >= a->n_dst || s < 0 || s >= a->n_src) return SAMRT_E_INVALID_ARG;
        memcpy((char *)a->dst + (size_t)d * a->row_bytes, (const char *)a->src + (size_t)s * a->row_bytes,
               a->row_bytes);
    }
    return SAMRT_OK;
}
