/* pool_ref.c - plain C11 references for pool.h. Max pool: for every output token and
 * channel, the max of the 2x2 input window, starting from -inf and taking any NaN it meets
 * (so NaN propagates, as in PyTorch's max pool); values are copied, never rounded. Mean:
 * a double sum per channel over the tokens in order, divided once, rounded once.
 * Tests: tests/test_pool.c (hand values), the op table (tests/ops_table_*.c, test_ops_table_cuda) (vs the kernel). */
#include "pool.h"

#include <math.h>

#include "ref_util.h"
#include "samrt_impl.h"

enum samrt_status samrt_pool_check(const struct samrt_pool_args *a) {
    if (!a || a->n_batch <= 0 || a->h <= 0 || a->w <= 0 || a->n_channels <= 0) return SAMRT_E_INVALID_ARG;
    if ((a->s_in_tok != 0 && a->s_in_tok < a->n_channels) || (a->s_out_tok != 0 && a->s_out_tok < a->n_channels))
        return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    if (!a->x || !a->out) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

enum samrt_status samrt_pool_max2x2_ref(const struct samrt_pool_args *a) {
    SAMRT_TRY(samrt_pool_check(a));
    const int64_t s_in = a->s_in_tok ? a->s_in_tok : a->n_channels;
    const int64_t s_out = a->s_out_tok ? a->s_out_tok : a->n_channels;
    const int32_t ho = a->h / 2, wo = a->w / 2;
    for (int64_t b = 0; b < a->n_batch; b++)
        for (int32_t y = 0; y < ho; y++)
            for (int32_t x = 0; x < wo; x++)
                for (int32_t c = 0; c < a->n_channels; c++) {
                    float m = -INFINITY;
                    for (int dy = 0; dy < 2; dy++)
                        for (int dx = 0; dx < 2; dx++) {
                            const int64_t tok = (b * a->h + 2 * y + dy) * a->w + 2 * x + dx;
                            const float v = ref_load(a->dtype, a->x, tok * s_in + c);
                            if (v > m || isnan(v)) m = v;
                        }
                    ref_store(a->dtype, a->out, ((b * ho + y) * wo + x) * s_out + c, m);
                }
    return SAMRT_OK;
}

enum samrt_status samrt_pool_mean_check(const struct samrt_pool_mean_args *a) {
    if (!a || a->n_batch <= 0 || a->n_tokens <= 0 || a->n_channels <= 0) return SAMRT_E_INVALID_ARG;
    if (a->n_tokens * a->n_channels >= ((int64_t)1 << 31)) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    if (!a->x || !a->out) return SAMRT_E_INVALID_ARG;
    if (a->n_split > 1 && (!a->partial || a->n_split > SAMRT_POOL_MEAN_MAX_SPLIT)) return SAMRT_E_INVALID_ARG;
    if (a->n_split > 1 && (!a->partial || a->n_split > SAMRT_POOL_MEAN_MAX_SPLIT)) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

int32_t samrt_pool_mean_splits(int64_t n_tokens) {
    const int64_t s = n_tokens / 512;
    return (int32_t)(s < 1 ? 1 : s > SAMRT_POOL_MEAN_MAX_SPLIT ? SAMRT_POOL_MEAN_MAX_SPLIT : s);
}

enum samrt_status samrt_pool_mean_ref(const struct samrt_pool_mean_args *a) {
    SAMRT_TRY(samrt_pool_mean_check(a));
    const int64_t C = a->n_channels;
    for (int64_t b = 0; b < a->n_batch; b++)
        for (int64_t c = 0; c < C; c++) {
            double s = 0.0;
            for (int64_t t = 0; t < a->n_tokens; t++) s += ref_load(a->dtype, a->x, (b * a->n_tokens + t) * C + c);
            ref_store(a->dtype, a->out, b * C + c, (float)(s / (double)a->n_tokens));
        }
    return SAMRT_OK;
}
