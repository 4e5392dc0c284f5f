/* nv12_rgb.h - a decoded video frame in NV12 (8-bit luma plane + interleaved U/V plane at half
 * resolution, each with its own pitch, as NVDEC delivers it) -> RGB8 HWC, with the arithmetic of
 * libswscale's default YUV 4:2:0 -> RGB24 conversion (libswscale/yuv2rgb.c, the C tables of
 * ff_yuv2rgb_c_init_tables with brightness 0, contrast and saturation 1), so that the GPU path's
 * pixels are those the software path (video_read.c: sws_scale with sws_setColorspaceDetails)
 * would give for the same samples:
 *
 *   cy = 1 (full range) or 255/219 (limited), in 16.16; the four chroma gains from
 *   sws_getCoefficients(colorspace) (BT.601 / BT.709 / ...), times 224/255 in full range, then
 *   divided by cy; a luma table y[i] = clip8((yb + i * cy + 0x8000) >> 16) indexed by
 *   Y + yoffs + the chroma term of each channel (each 2x2 block shares its U, V: nearest,
 *   as swscale's unscaled converter).
 *
 * swscale has two forms of this conversion that round differently, and the coefficients say
 * which one to reproduce (mode):
 *   SAMRT_YUV_SWS_C    the C tables above (swscale without SIMD, e.g. aarch64 for RGB24);
 *   SAMRT_YUV_SWS_X86  x86's MMXEXT / SSSE3 converter (libswscale/x86/yuv_2_rgb.asm): 16-bit
 *                      words, (Y*8 - yoff) and (C*8 - 1024) times 13-bit gains, pmulhw's
 *                      floor((a * b) / 65536), saturated adds, packuswb's clip.
 * tests/test_video_nv12.c checks both against swscale on decoded frames.
 *
 *   struct samrt_yuv_coefs k;
 *   samrt_yuv_coefs_init(sws_getCoefficients(frame->colorspace), frame->color_range == AVCOL_RANGE_JPEG,
 *                        SAMRT_YUV_SWS_C, &k);
 *   samrt_nv12_rgb_cuda(&k, frame->data[0], frame->linesize[0], frame->data[1], frame->linesize[1],
 *                       w, h, rgb, 3 * w, stream);        // one launch, no allocation
 */
#ifndef SAMRT_KERNELS_NV12_RGB_H
#define SAMRT_KERNELS_NV12_RGB_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define SAMRT_YUV_HD __host__ __device__
#else
#define SAMRT_YUV_HD
#endif

#define SAMRT_YUV_TABLE_N 2048  /* entries of swscale's luma table (1024 + 2 x 512 headroom) */

#define SAMRT_YUV_SWS_C 0
#define SAMRT_YUV_SWS_X86 1

/* The integer constants of one (matrix, range, form) triple; see the formulas above. */
struct samrt_yuv_coefs {
    int32_t mode;                  /* SAMRT_YUV_SWS_C or SAMRT_YUV_SWS_X86 */
    /* SAMRT_YUV_SWS_X86: the converter's 16-bit words */
    int32_t x_yoff, x_y, x_ub, x_vr, x_ug, x_vg;
    /* SAMRT_YUV_SWS_C */
    int32_t cy;                    /* luma gain, 16.16 */
    int32_t yb;                    /* luma table start, 16.16 */
    int32_t yoffs;                 /* table index of Y = 0 */
    int32_t crv, cbu, cgu, cgv;    /* chroma gains, 16.16, divided by cy (cgu, cgv negative) */
};

/* inv_table: swscale's {crv, cbu, cgu, cgv} of the frame's colour space (sws_getCoefficients);
 * full_range: 1 for JPEG (0..255) levels, 0 for MPEG (16..235); mode: the form to reproduce. */
void samrt_yuv_coefs_init(const int inv_table[4], int full_range, int mode, struct samrt_yuv_coefs *out);

/* The RGB of one pixel (Y, U, V), as swscale's table lookups give it. */
SAMRT_YUV_HD static inline void samrt_yuv_pixel(const struct samrt_yuv_coefs *k, int y, int u, int v, uint8_t rgb[3]) {
    if (k->mode == SAMRT_YUV_SWS_X86) {  /* words; pmulhw is an arithmetic >> 16 of the product */
        const int u8 = 8 * u - 1024, v8 = 8 * v - 1024, y8 = 8 * y - k->x_yoff;
        const int yy = (y8 * k->x_y) >> 16;
        const int x[3] = {yy + ((v8 * k->x_vr) >> 16), yy + (((u8 * k->x_ug) >> 16) + ((v8 * k->x_vg) >> 16)),
                          yy + ((u8 * k->x_ub) >> 16)};
        for (int c = 0; c < 3; c++) rgb[c] = (uint8_t)(x[c] < 0 ? 0 : x[c] > 255 ? 255 : x[c]);
        return;
    }
    const int dr = -(k->crv >> 9) + (int)(((int64_t)v * k->crv) >> 16);
    const int dg = -(k->cgu >> 9) + (int)(((int64_t)u * k->cgu) >> 16) - (k->cgv >> 9) +
                   (int)(((int64_t)v * k->cgv) >> 16);
    const int db = -(k->cbu >> 9) + (int)(((int64_t)u * k->cbu) >> 16);
    const int d[3] = {dr, dg, db};
    for (int c = 0; c < 3; c++) {
        int i = k->yoffs + y + d[c];
        i = i < 0 ? 0 : i >= SAMRT_YUV_TABLE_N ? SAMRT_YUV_TABLE_N - 1 : i;
        const int32_t t = (k->yb + i * k->cy + 0x8000) >> 16;
        rgb[c] = (uint8_t)(t < 0 ? 0 : t > 255 ? 255 : t);
    }
}

/* Checks the sizes and pitches (w, h in 1..16384; y_pitch >= w, uv_pitch >= 2 * ceil(w / 2),
 * rgb_pitch >= 3 * w) and the pointers: SAMRT_E_INVALID_ARG otherwise. */
enum samrt_status samrt_nv12_rgb_check(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                       const uint8_t *uv, size_t uv_pitch, int w, int h, const uint8_t *rgb,
                                       size_t rgb_pitch);
/* The C reference: host pointers. */
enum samrt_status samrt_nv12_rgb_ref(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                     const uint8_t *uv, size_t uv_pitch, int w, int h, uint8_t *rgb,
                                     size_t rgb_pitch);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* The same on the device, one launch on stream (graph-capture safe, no allocation); bit for
 * bit the reference. */
enum samrt_status samrt_nv12_rgb_cuda(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                      const uint8_t *uv, size_t uv_pitch, int w, int h, uint8_t *rgb,
                                      size_t rgb_pitch, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_NV12_RGB_H */
