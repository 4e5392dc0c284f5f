/* copy_ref.c - plain C11 reference for copy.h: one loop nest over the output, each value
 * read through x's strides, converted through fp32, plus add in fp32, stored once.
 * Tests: tests/test_copy.c (hand values), the op table (tests/ops_table_*.c, test_ops_table_cuda) (vs the kernel). */
#include "copy.h"

#include "ref_util.h"
#include "samrt_impl.h"

enum samrt_status samrt_copy_check(const struct samrt_copy_args *a) {
    if (!a || !a->x || !a->out) return SAMRT_E_INVALID_ARG;
    int64_t n = 1;
    for (int d = 0; d < 4; d++) {
        if (a->ne[d] < 1 || a->s[d] < 0) return SAMRT_E_INVALID_ARG;
        if (a->ne[d] > ((int64_t)1 << 40) / n) return SAMRT_E_INVALID_ARG;
        n *= a->ne[d];
    }
    if (!ref_dtype_ok(a->src_dtype) || !ref_dtype_ok(a->dst_dtype)) return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

enum samrt_status samrt_copy_ref(const struct samrt_copy_args *a) {
    SAMRT_TRY(samrt_copy_check(a));
    int64_t o = 0;
    for (int64_t i0 = 0; i0 < a->ne[0]; i0++)
        for (int64_t i1 = 0; i1 < a->ne[1]; i1++)
            for (int64_t i2 = 0; i2 < a->ne[2]; i2++)
                for (int64_t i3 = 0; i3 < a->ne[3]; i3++, o++) {
                    float v = ref_load(a->src_dtype, a->x, i0 * a->s[0] + i1 * a->s[1] + i2 * a->s[2] + i3 * a->s[3]);
                    if (a->add) v = ref_round(a->dst_dtype, v) + ref_load(a->dst_dtype, a->add, o);
                    ref_store(a->dst_dtype, a->out, o, v);
                }
    return SAMRT_OK;
}
