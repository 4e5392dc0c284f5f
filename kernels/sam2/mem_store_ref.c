/* mem_store_ref.c - plain C reference of the memory encoder's final store (mem_store.h). */
#include "mem_store.h"

#include "half.h"
#include "ref_util.h"
#include "samrt_impl.h"

enum samrt_status samrt_sam2_mem_store_check(const struct samrt_sam2_mem_store_args *a) {
    if (!a || !a->x || !a->score || !a->out || a->n_obj < 1 || a->n_tok < 1 || a->dim < 1)
        return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->src_dtype)) return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_mem_store_ref(const struct samrt_sam2_mem_store_args *a) {
    SAMRT_TRY(samrt_sam2_mem_store_check(a));
    const int64_t per = a->n_tok * a->dim;
    for (int b = 0; b < a->n_obj; b++) {
        const int absent = !(a->score[b] > 0.0f);  /* NaN counts as absent, as (score > 0) is false */
        for (int64_t i = 0; i < per; i++) {
            const int64_t k = (int64_t)b * per + i;
            float v = ref_load(a->src_dtype, a->x, k);
            if (absent && a->no_obj) v = ref_round(a->src_dtype, v + ref_load(a->src_dtype, a->no_obj, i % a->dim));
            a->out[k] = samrt_f32_to_bf16(v);
        }
    }
    return SAMRT_OK;
}

