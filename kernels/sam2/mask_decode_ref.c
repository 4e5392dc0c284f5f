/* mask_decode_ref.c - C11 reference for kernels/sam2/mask_decode.h: low-res logits -> video-size
 * u8 masks with per-object area and box (optionally under the non-overlap rule), and -> the
 * memory encoder's mask input. Plain loops
 * in the official op order; the bilinear sample uses the shared helpers of interp.h so the
 * CUDA kernel can be compared bit for bit. Tested by tests/test_mask_decode.c. */
#include "mask_decode.h"

#include <math.h>

#include "interp.h"
#include "ref_util.h"
#include "samrt_impl.h"

static int sizes_ok(int n, int hi, int wi, int ho, int wo) {
    return n >= 1 && n <= SAMRT_MASK_MAX_OBJ && hi >= 1 && wi >= 1 && ho >= 1 && wo >= 1 && hi <= SAMRT_INTERP_MAX_SIDE &&
           wi <= SAMRT_INTERP_MAX_SIDE && ho <= SAMRT_INTERP_MAX_SIDE && wo <= SAMRT_INTERP_MAX_SIDE;
}

enum samrt_status samrt_mask_decode_check(const struct samrt_mask_decode_desc *d) {
    if (d == NULL || !sizes_ok(d->n_obj, d->h_in, d->w_in, d->h_out, d->w_out)) return SAMRT_E_INVALID_ARG;
    return ref_dtype_ok(d->src_dtype) ? SAMRT_OK : SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_mask_decode_mem_check(const struct samrt_mask_mem_desc *d) {
    if (d == NULL || !sizes_ok(d->n_obj, d->h_in, d->w_in, d->h_out, d->w_out)) return SAMRT_E_INVALID_ARG;
    if (!isfinite(d->scale) || !isfinite(d->bias)) return SAMRT_E_INVALID_ARG;
    return ref_dtype_ok(d->src_dtype) && ref_dtype_ok(d->dst_dtype) ? SAMRT_OK : SAMRT_E_UNSUPPORTED;
}

static void stats_add(struct samrt_mask_stats *st, int x, int y) {
    st->area++;
    st->x0 = SAMRT_MIN(st->x0, x);
    st->x1 = SAMRT_MAX(st->x1, x);
    st->y0 = SAMRT_MIN(st->y0, y);
    st->y1 = SAMRT_MAX(st->y1, y);
}

/* Per pixel the highest logit in object order (strict >, so the first object wins ties and a
 * NaN never wins), and only that object may be foreground there. */
enum samrt_status samrt_mask_decode_non_overlap_ref(const struct samrt_mask_decode_desc *d, const void *logits,
                                                    uint8_t *mask, struct samrt_mask_stats *stats) {
    SAMRT_TRY(samrt_mask_decode_check(d));
    if (logits == NULL || mask == NULL) return SAMRT_E_INVALID_ARG;
    const int n = d->n_obj, hi = d->h_in, wi = d->w_in, ho = d->h_out, wo = d->w_out;
    const float sh = samrt_interp_scale(hi, ho), sw = samrt_interp_scale(wi, wo);
    const long plane = (long)hi * wi, n_pix = (long)ho * wo;
    for (int k = 0; stats && k < n; k++) stats[k] = (struct samrt_mask_stats){0, wo, ho, -1, -1};
    for (int y = 0; y < ho; y++)
        for (int x = 0; x < wo; x++) {
            int best = 0;
            float vbest = samrt_interp_bilinear_ref(d->src_dtype, logits, 0, hi, wi, sh, sw, y, x);
            for (int k = 1; k < n; k++) {
                const float v = samrt_interp_bilinear_ref(d->src_dtype, logits, k * plane, hi, wi, sh, sw, y, x);
                if (v > vbest) {
                    best = k;
                    vbest = v;
                }
            }
            const int on = vbest > 0.0f;
            for (int k = 0; k < n; k++) mask[k * n_pix + (long)y * wo + x] = (uint8_t)(on && k == best);
            if (on && stats) stats_add(&stats[best], x, y);
        }
    return SAMRT_OK;
}

enum samrt_status samrt_mask_decode_ref(const struct samrt_mask_decode_desc *d, const void *logits,
                                        uint8_t *mask, struct samrt_mask_stats *stats,
                                        float *logits_out) {
    SAMRT_TRY(samrt_mask_decode_check(d));
    if (logits == NULL || mask == NULL) return SAMRT_E_INVALID_ARG;
    const int hi = d->h_in, wi = d->w_in, ho = d->h_out, wo = d->w_out;
    const struct samrt_mask_stats empty = {0, wo, ho, -1, -1};
    const float sh = samrt_interp_scale(hi, ho), sw = samrt_interp_scale(wi, wo);
    for (int n = 0; n < d->n_obj; n++) {
        struct samrt_mask_stats st = empty;
        const long plane = (long)n * hi * wi;
        for (int y = 0; y < ho; y++)
            for (int x = 0; x < wo; x++) {
                const long o = ((long)n * ho + y) * wo + x;
                const float v =
                    samrt_interp_bilinear_ref(d->src_dtype, logits, plane, hi, wi, sh, sw, y, x);
                const int on = v > 0.0f;
                mask[o] = (uint8_t)on;
                if (logits_out) logits_out[o] = v;
                if (on) stats_add(&st, x, y);
            }
        if (stats) stats[n] = st;
    }
    return SAMRT_OK;
}

enum samrt_status samrt_mask_decode_mem_input_ref(const struct samrt_mask_mem_desc *d,
                                                  const void *logits, void *out) {
    SAMRT_TRY(samrt_mask_decode_mem_check(d));
    if (logits == NULL || out == NULL) return SAMRT_E_INVALID_ARG;
    const int hi = d->h_in, wi = d->w_in, ho = d->h_out, wo = d->w_out;
    const float sh = samrt_interp_scale(hi, ho), sw = samrt_interp_scale(wi, wo);
    for (int n = 0; n < d->n_obj; n++)
        for (int y = 0; y < ho; y++)
            for (int x = 0; x < wo; x++) {
                float v = samrt_interp_bilinear_ref(d->src_dtype, logits, (long)n * hi * wi, hi, wi,
                                                    sh, sw, y, x);
                float m = d->binarize ? (v > 0.0f ? 1.0f : 0.0f) : 1.0f / (1.0f + expf(-v));
                m = samrt_mul_rn(m, d->scale) + d->bias;
                ref_store(d->dst_dtype, out, ((long)n * ho + y) * wo + x, m);
            }
    return SAMRT_OK;
}
