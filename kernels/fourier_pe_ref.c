/* fourier_pe_ref.c - plain C11 references for fourier_pe.h, in the fp32 order the header
 * documents (2u - 1, then fmaf(c_y, G1, c_x * G0), then times 2pi, then sinf / cosf).
 * Tests: tests/test_fourier_pe.c (hand values), the op table (tests/ops_table_*.c, test_ops_table_cuda) (vs the kernel). */
#include "fourier_pe.h"

#include <math.h>

#include "ref_util.h"
#include "samrt_impl.h"

#define FOURIER_PE_TWO_PI 6.28318530717958647692f

enum samrt_status samrt_fourier_pe_dense_check(const struct samrt_fourier_pe_dense_args *a) {
    if (!a || a->n_feats <= 0 || a->h <= 0 || a->w <= 0 || !a->gauss || !a->out) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

enum samrt_status samrt_fourier_pe_points_check(const struct samrt_fourier_pe_points_args *a) {
    if (!a || a->n_feats <= 0 || a->n_points <= 0 || !a->gauss || !a->coords || !a->out)
        return SAMRT_E_INVALID_ARG;
    if (!(a->img_w > 0.0f) || !(a->img_h > 0.0f)) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

/* Writes the 2F channels of one normalised point (u, v) at out[o0 + c * s_c]. */
static void encode(enum samrt_dtype dt, const float *g, int32_t f, float u, float v, void *out, int64_t o0,
                   int64_t s_c) {
    const float cx = 2.0f * u - 1.0f, cy = 2.0f * v - 1.0f;
    for (int32_t k = 0; k < f; k++) {
        const float t = cx * g[k];
        const float h = FOURIER_PE_TWO_PI * fmaf(cy, g[f + k], t);
        ref_store(dt, out, o0 + k * s_c, sinf(h));
        ref_store(dt, out, o0 + (f + k) * s_c, cosf(h));
    }
}

enum samrt_status samrt_fourier_pe_dense_ref(const struct samrt_fourier_pe_dense_args *a) {
    SAMRT_TRY(samrt_fourier_pe_dense_check(a));
    const int64_t hw = (int64_t)a->h * a->w;
    for (int32_t i = 0; i < a->h; i++)
        for (int32_t j = 0; j < a->w; j++) {
            const int64_t pix = (int64_t)i * a->w + j;
            const float u = ((float)j + 0.5f) / (float)a->w, v = ((float)i + 0.5f) / (float)a->h;
            if (a->channels_last) encode(a->dtype, a->gauss, a->n_feats, u, v, a->out, pix * 2 * a->n_feats, 1);
            else encode(a->dtype, a->gauss, a->n_feats, u, v, a->out, pix, hw);
        }
    return SAMRT_OK;
}

enum samrt_status samrt_fourier_pe_points_ref(const struct samrt_fourier_pe_points_args *a) {
    SAMRT_TRY(samrt_fourier_pe_points_check(a));
    for (int32_t n = 0; n < a->n_points; n++) {
        const float u = (a->coords[2 * n] + a->offset) / a->img_w;
        const float v = (a->coords[2 * n + 1] + a->offset) / a->img_h;
        encode(a->dtype, a->gauss, a->n_feats, u, v, a->out, (int64_t)n * 2 * a->n_feats, 1);
    }
    return SAMRT_OK;
}
