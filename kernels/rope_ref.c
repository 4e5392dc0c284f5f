/* rope_ref.c - RoPE table generation (host, used by the runtime at load time) and the plain C
 * reference of the row rotation. The table is built the way PyTorch builds it (float32
 * frequencies and angles) so that the runtime's table matches the official one to an ulp.
 * Tested by tests/test_attention.c. */
#include "rope.h"

#include <math.h>

#include "half.h"

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

static float load_elem(enum samrt_dtype dt, const void *base, int64_t i) {
    if (dt == SAMRT_DTYPE_F32) return ((const float *)base)[i];
    const uint16_t h = ((const uint16_t *)base)[i];
    return dt == SAMRT_DTYPE_F16 ? samrt_f16_to_f32(h) : samrt_bf16_to_f32(h);
}

static void store_elem(enum samrt_dtype dt, void *base, int64_t i, float v) {
    if (dt == SAMRT_DTYPE_F32) ((float *)base)[i] = v;
    else if (dt == SAMRT_DTYPE_F16) ((uint16_t *)base)[i] = samrt_f32_to_f16(v);
    else ((uint16_t *)base)[i] = samrt_f32_to_bf16(v);
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
                    const float a = load_elem(p->dtype, p->src, si + 2 * q);
                    const float c = load_elem(p->dtype, p->src, si + 2 * q + 1);
                    float ra = a, rc = c;
                    if (cs) {  /* (a + ic)(cos + i sin) */
                        ra = a * cs[2 * q] - c * cs[2 * q + 1];
                        rc = a * cs[2 * q + 1] + c * cs[2 * q];
                    }
                    store_elem(p->dtype, p->dst, di + 2 * q, ra);
                    store_elem(p->dtype, p->dst, di + 2 * q + 1, rc);
                }
            }
    return SAMRT_OK;
}
