/* nv12_rgb_ref.c - the C reference of nv12_rgb.h and the constants both forms use: swscale's
 * YUV -> RGB24 set-up (libswscale/yuv2rgb.c, ff_yuv2rgb_c_init_tables) reduced to a few
 * integers for its C tables and its x86 SIMD words, and the per-pixel arithmetic with each 2x2
 * block sharing its chroma sample. */
#include "nv12_rgb.h"

#include "samrt_impl.h"

#define YUV_LUMA_HEADROOM 512  /* swscale's YUVRGB_TABLE_LUMA_HEADROOM */

/* swscale's roundToInt16: (f + 2^15) >> 16 into [-0x7fff, 0x7fff] (-0x8000 below) */
static int32_t round_to_int16(int64_t f) {
    const int64_t r = (f + (1 << 15)) >> 16;
    return r < -0x7fff ? -0x8000 : r > 0x7fff ? 0x7fff : (int32_t)r;
}

void samrt_yuv_coefs_init(const int inv_table[4], int full_range, int mode, struct samrt_yuv_coefs *out) {
    int64_t crv = inv_table[0], cbu = inv_table[1], cgu = -inv_table[2], cgv = -inv_table[3];
    int64_t cy = 1 << 16, oy = 0;
    if (!full_range) {
        cy = (cy * 255) / 219;
        oy = 16 << 16;
    } else {
        crv = (crv * 224) / 255;
        cbu = (cbu * 224) / 255;
        cgu = (cgu * 224) / 255;
        cgv = (cgv * 224) / 255;
    }
    /* contrast = saturation = 1 << 16, brightness 0: (x * 2^16 * 2^16) >> 32 = x */
    out->mode = mode == SAMRT_YUV_SWS_X86 ? SAMRT_YUV_SWS_X86 : SAMRT_YUV_SWS_C;
    out->x_yoff = round_to_int16(oy * (1 << 3));
    out->x_y = round_to_int16(cy * (1 << 13));
    out->x_ub = round_to_int16(cbu * (1 << 13));
    out->x_vr = round_to_int16(crv * (1 << 13));
    out->x_ug = round_to_int16(cgu * (1 << 13));
    out->x_vg = round_to_int16(cgv * (1 << 13));
    out->crv = (int32_t)(((crv * (1 << 16)) + 0x8000) / cy);
    out->cbu = (int32_t)(((cbu * (1 << 16)) + 0x8000) / cy);
    out->cgu = (int32_t)(((cgu * (1 << 16)) + 0x8000) / cy);
    out->cgv = (int32_t)(((cgv * (1 << 16)) + 0x8000) / cy);
    out->cy = (int32_t)cy;
    out->yb = (int32_t)(-(384 << 16) - YUV_LUMA_HEADROOM * cy - oy);
    out->yoffs = (full_range ? 384 : 326) + YUV_LUMA_HEADROOM;
}

enum samrt_status samrt_nv12_rgb_check(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                       const uint8_t *uv, size_t uv_pitch, int w, int h, const uint8_t *rgb,
                                       size_t rgb_pitch) {
    SAMRT_CHECK(k && y && uv && rgb, SAMRT_E_INVALID_ARG, "nv12_rgb: NULL argument");
    SAMRT_CHECK(w >= 1 && h >= 1 && w <= 16384 && h <= 16384, SAMRT_E_INVALID_ARG, "nv12_rgb: a %dx%d frame", w, h);
    SAMRT_CHECK(y_pitch >= (size_t)w && uv_pitch >= 2 * (size_t)((w + 1) / 2) && rgb_pitch >= 3 * (size_t)w,
                SAMRT_E_INVALID_ARG, "nv12_rgb: pitches %zu / %zu / %zu too small for a %d-pixel row", y_pitch,
                uv_pitch, rgb_pitch, w);
    return SAMRT_OK;
}

enum samrt_status samrt_nv12_rgb_ref(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                     const uint8_t *uv, size_t uv_pitch, int w, int h, uint8_t *rgb,
                                     size_t rgb_pitch) {
    SAMRT_TRY(samrt_nv12_rgb_check(k, y, y_pitch, uv, uv_pitch, w, h, rgb, rgb_pitch));
    for (int r = 0; r < h; r++) {
        const uint8_t *yr = y + (size_t)r * y_pitch, *c = uv + (size_t)(r >> 1) * uv_pitch;
        uint8_t *o = rgb + (size_t)r * rgb_pitch;
        for (int x = 0; x < w; x++) samrt_yuv_pixel(k, yr[x], c[2 * (x >> 1)], c[2 * (x >> 1) + 1], o + 3 * x);
    }
    return SAMRT_OK;
}
