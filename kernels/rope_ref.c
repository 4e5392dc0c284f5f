/* rope_ref.c - RoPE table generation (host, used by the runtime at load time) and the plain C
 * references of the row rotation and of the fused rotate + 2x2 pool. The table is built the
 * way PyTorch builds it (float32 frequencies and angles) so that the runtime's table matches
 * the official one to an ulp. Tested by tests/test_attention.c, tests/test_rope_pool.c and the
 * op table's rope and rope_pool rows. */
#include "rope.h"

#include <math.h>

#include "ref_util.h"

size_t samrt_rope_table_floats(int dim, int end_x, int end_y) {
    if (dim <= 0 || end_x <= 0 || end_y <= 0) return 0;
    return (size_t)end_x * (size_t)end_y * (size_t)dim;  /* rows x (dim/2 pairs x 2) */
}

enum samrt_status samrt_rope_table_fill(float *table, int dim, int end_x, int end_y, float theta) {
    if (!table || dim <= 0 || dim % 4 != 0 || end_x <= 0 || end_y <= 0 || !(theta > 0.0f))
        return SAMRT_E_INVALID_ARG;
    const int n_freq = dim / 4, n_pair = dim / 2;
    for (int n = 0; n < end_x * end_y; n++) {
        /* init_t_xy: t_x = n % end_x, t_y = n // end_x, as float32 */
        const float tx = (float)(n % end_x), ty = (float)(n / end_x);
        float *row = table + (size_t)n * (size_t)dim;
        for (int p = 0; p < n_pair; p++) {
            const int j = p < n_freq ? p : p - n_freq;
            /* 1 / theta^(arange(0, dim, 4)[j] / dim), every step in float32 like torch */
            const float e = (float)(4 * j) / (float)dim;
            const float f = 1.0f / powf(theta, e);
            const float angle = (p < n_freq ? tx : ty) * f;  /* torch.outer: one f32 product */
            row[2 * p] = (float)cos((double)angle);
            row[2 * p + 1] = (float)sin((double)angle);
        }
    }
    return SAMRT_OK;
}

enum samrt_status samrt_rope_check(const struct samrt_rope_params *p) {
    if (!p || !p->src || !p->dst) return SAMRT_E_INVALID_ARG;
    if (p->dtype != SAMRT_DTYPE_F32 && p->dtype != SAMRT_DTYPE_F16 && p->dtype != SAMRT_DTYPE_BF16)
        return SAMRT_E_UNSUPPORTED;
    if (p->n_batch <= 0 || p->n_head <= 0 || p->n_tok <= 0 || p->dim <= 0 || p->dim % 2 != 0)
        return SAMRT_E_INVALID_ARG;
    if (p->n_rope < 0 || p->n_rope > p->n_tok) return SAMRT_E_INVALID_ARG;
    if (p->n_rope > 0 && (!p->table || p->period <= 0 || p->skip < 0 || p->skip >= p->period))
        return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

enum samrt_status samrt_rope_apply_ref(const struct samrt_rope_params *p) {
    enum samrt_status st = samrt_rope_check(p);
    if (st != SAMRT_OK) return st;
    const int n_pair = p->dim / 2;
    for (int b = 0; b < p->n_batch; b++)
        for (int h = 0; h < p->n_head; h++)
            for (int t = 0; t < p->n_tok; t++) {
                const int64_t si = b * p->s_src_b + h * p->s_src_h + t * p->s_src_t;
                const int64_t di = b * p->s_dst_b + h * p->s_dst_h + t * p->s_dst_t;
                const int row = samrt_rope_row(t, p->period, p->skip, p->n_rope);
                const float *cs = row >= 0 ? p->table + (size_t)row * (size_t)p->dim : NULL;
                for (int q = 0; q < n_pair; q++) {
                    const float a = ref_load(p->dtype, p->src, si + 2 * q);
                    const float c = ref_load(p->dtype, p->src, si + 2 * q + 1);
                    float ra = a, rc = c;
                    if (cs) {  /* (a + ic)(cos + i sin) */
                        ra = a * cs[2 * q] - c * cs[2 * q + 1];
                        rc = a * cs[2 * q + 1] + c * cs[2 * q];
                    }
                    ref_store(p->dtype, p->dst, di + 2 * q, ra);
                    ref_store(p->dtype, p->dst, di + 2 * q + 1, rc);
                }
            }
    return SAMRT_OK;
}

int64_t samrt_rope_pool_rows(const struct samrt_rope_pool_params *p) {
    const int64_t h = p->grid / 2;
    return (int64_t)p->rep * p->n_mem * h * h + p->n_tail;
}

enum samrt_status samrt_rope_pool_check(const struct samrt_rope_pool_params *p) {
    if (!p || !p->src || !p->dst || p->src == p->dst) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(p->dtype)) return SAMRT_E_UNSUPPORTED;
    if (p->n_batch <= 0 || p->n_mem <= 0 || p->grid <= 0 || p->grid % 2 || p->dim <= 0 || p->dim % 2 ||
        p->n_tail < 0 || p->rep <= 0)
        return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

/* The two channels of pair q of pooled row (m, y, x) of batch item b, before the bias. */
static void pool_pair(const struct samrt_rope_pool_params *p, int b, int m, int y, int x, int q, float out[2]) {
    const int g = p->grid;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {  /* the depthwise conv's tap order */
            const int tok = (2 * y + dy) * g + 2 * x + dx;
            const int64_t si = b * p->s_src_b + ((int64_t)m * g * g + tok) * p->s_src_t + 2 * q;
            float a = ref_load(p->dtype, p->src, si), c = ref_load(p->dtype, p->src, si + 1);
            if (p->table) {  /* (a + ic)(cos + i sin) in fp32, stored as rope stores it */
                const float *cs = p->table + (size_t)tok * (size_t)p->dim + 2 * q;
                const float ra = a * cs[0] - c * cs[1];
                c = ref_round(p->dtype, a * cs[1] + c * cs[0]);
                a = ref_round(p->dtype, ra);
            }
            acc0 += a * 0.25f;
            acc1 += c * 0.25f;
        }
    out[0] = acc0;
    out[1] = acc1;
}

enum samrt_status samrt_rope_pool_ref(const struct samrt_rope_pool_params *p) {
    enum samrt_status st = samrt_rope_pool_check(p);
    if (st != SAMRT_OK) return st;
    const int h = p->grid / 2, n_pair = p->dim / 2;
    const int64_t n_pool = (int64_t)p->n_mem * h * h, n_mem_tok = (int64_t)p->n_mem * p->grid * p->grid;
    for (int b = 0; b < p->n_batch; b++) {
        for (int64_t r = 0; r < n_pool; r++) {
            const int m = (int)(r / ((int64_t)h * h)), y = (int)(r / h % h), x = (int)(r % h);
            for (int q = 0; q < n_pair; q++) {
                float v[2];
                pool_pair(p, b, m, y, x, q, v);
                for (int k = 0; k < p->rep; k++) {
                    const int64_t di = b * p->s_dst_b + (r * p->rep + k) * p->s_dst_t + 2 * q;
                    ref_store(p->dtype, p->dst, di, v[0] + p->bias);
                    ref_store(p->dtype, p->dst, di + 1, v[1] + p->bias);
                }
            }
        }
        for (int64_t i = 0; i < p->n_tail; i++)
            for (int e = 0; e < p->dim; e++)
                ref_store(p->dtype, p->dst, b * p->s_dst_b + (p->rep * n_pool + i) * p->s_dst_t + e,
                          ref_load(p->dtype, p->src, b * p->s_src_b + (n_mem_tok + i) * p->s_src_t + e));
    }
    return SAMRT_OK;
}
