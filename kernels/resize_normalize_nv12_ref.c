/* resize_normalize_nv12_ref.c - the C reference of kernels/resize_normalize_nv12.h: the
 * resize reference (samrt_resize_normalize_sampled_ref) reading each input sample through
 * nv12_rgb's per-pixel conversion (samrt_yuv_pixel), i.e. nv12_rgb_ref followed by
 * resize_normalize_ref without the RGB8 frame in between (tests/test_resize_normalize_nv12.c
 * checks the two agree bit for bit). */
#include "resize_normalize_nv12.h"

#include "samrt_impl.h"

struct nv12_src {
    const struct samrt_yuv_coefs *k;
    const uint8_t *y, *uv;
    size_t y_pitch, uv_pitch;
};

static void nv12_sample(const void *src, int x, int y, uint8_t rgb[3]) {
    const struct nv12_src *s = (const struct nv12_src *)src;
    const uint8_t *c = s->uv + (size_t)(y >> 1) * s->uv_pitch + 2 * (size_t)(x >> 1);
    samrt_yuv_pixel(s->k, s->y[(size_t)y * s->y_pitch + (size_t)x], c[0], c[1], rgb);
}

enum samrt_status samrt_resize_normalize_nv12_check(const struct samrt_resize_plan *plan, const void *tables,
                                                    const struct samrt_yuv_coefs *k, const uint8_t *y,
                                                    size_t y_pitch, const uint8_t *uv, size_t uv_pitch,
                                                    const void *dst) {
    SAMRT_CHECK(plan && tables && k && y && uv && dst, SAMRT_E_INVALID_ARG, "resize_nv12: NULL argument");
    SAMRT_CHECK(plan->in_w >= 1 && plan->in_h >= 1 && plan->out_w >= 1 && plan->out_h >= 1, SAMRT_E_INVALID_ARG,
                "resize_nv12: plan not initialised");
    SAMRT_CHECK(y_pitch >= (size_t)plan->in_w && uv_pitch >= samrt_nv12_packed_uv_pitch(plan->in_w),
                SAMRT_E_INVALID_ARG, "resize_nv12: pitches %zu / %zu too small for a %d-pixel row", y_pitch, uv_pitch,
                plan->in_w);
    return SAMRT_OK;
}

enum samrt_status samrt_resize_normalize_nv12_ref(const struct samrt_resize_plan *plan, const void *tables,
                                                  const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                                  const uint8_t *uv, size_t uv_pitch, const float mean[3],
                                                  const float std[3], void *dst, enum samrt_dtype dtype) {
    SAMRT_TRY(samrt_resize_normalize_nv12_check(plan, tables, k, y, y_pitch, uv, uv_pitch, dst));
    const struct nv12_src s = {k, y, uv, y_pitch, uv_pitch};
    return samrt_resize_normalize_sampled_ref(plan, tables, nv12_sample, &s, mean, std, dst, dtype);
}
