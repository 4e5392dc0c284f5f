/* sine_pe_ref.c - plain C11 references for sine_pe.h, following the fp32 operation order
 * of position_encoding.py / sam2_utils.py: (i+1) / (H + eps), times the scale; the
 * exponent 2*floor(k/2) / F as an fp32 division; 10000^e with powf; position / t_k;
 * sinf / cosf. The tests check these against the closed form in double.
 * Tests: tests/test_sine_pe.c (hand values), the op table (tests/ops_table_*.c, test_ops_table_cuda) (vs the kernel). */
#include "sine_pe.h"

#include <math.h>

#include "ref_util.h"
#include "samrt_impl.h"

#define SINE_PE_SCALE 6.28318530717958647692f  /* 2*pi rounded to fp32, as torch does */
#define SINE_PE_EPS 1e-6f
#define SINE_PE_TEMPERATURE 10000.0f

enum samrt_status samrt_sine_pe_check(const struct samrt_sine_pe_args *a) {
    if (!a || a->n_feats <= 0 || a->n_feats % 4 != 0 || a->h <= 0 || a->w <= 0 || !a->out)
        return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

enum samrt_status samrt_sine_pe_1d_check(const struct samrt_sine_pe_1d_args *a) {
    if (!a || a->n_pos <= 0 || a->dim <= 0 || a->dim % 2 != 0 || !a->pos || !a->out)
        return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

/* t_k = temperature ^ (2*floor(k/2) / F) */
static float dim_t(int32_t k, int32_t f) {
    return powf(SINE_PE_TEMPERATURE, (float)(2 * (k / 2)) / (float)f);
}

enum samrt_status samrt_sine_pe_ref(const struct samrt_sine_pe_args *a) {
    SAMRT_TRY(samrt_sine_pe_check(a));
    const int32_t f = a->n_feats / 2;
    const int64_t hw = (int64_t)a->h * a->w;
    for (int32_t i = 0; i < a->h; i++)
        for (int32_t j = 0; j < a->w; j++) {
            const float y = (float)(i + 1) / ((float)a->h + SINE_PE_EPS) * SINE_PE_SCALE;
            const float x = (float)(j + 1) / ((float)a->w + SINE_PE_EPS) * SINE_PE_SCALE;
            const int64_t pix = (int64_t)i * a->w + j;
            for (int32_t c = 0; c < a->n_feats; c++) {
                const int32_t k = c < f ? c : c - f;
                const float v = (c < f ? y : x) / dim_t(k, f);
                const int64_t o = a->channels_last ? pix * a->n_feats + c : c * hw + pix;
                ref_store(a->dtype, a->out, o, k % 2 ? cosf(v) : sinf(v));
            }
        }
    return SAMRT_OK;
}

enum samrt_status samrt_sine_pe_1d_ref(const struct samrt_sine_pe_1d_args *a) {
    SAMRT_TRY(samrt_sine_pe_1d_check(a));
    const int32_t f = a->dim / 2;
    for (int32_t n = 0; n < a->n_pos; n++)
        for (int32_t k = 0; k < f; k++) {
            const float v = a->pos[n] / dim_t(k, f);
            ref_store(a->dtype, a->out, (int64_t)n * a->dim + k, sinf(v));
            ref_store(a->dtype, a->out, (int64_t)n * a->dim + f + k, cosf(v));
        }
    return SAMRT_OK;
}
