/* image_read.c - samrt_image_read_rgb8 (include/samrt_image.h): the one image call that the
 * shared library libsamrt.so exports, so that bindings read JPEG folders with the same decoder
 * as the samrt program. A thin layer over image_io.h: file, sniff, decode, and PNG samples to
 * RGB8. It allocates per call (the file, and a PNG's raw samples): it reads files, it is not
 * part of an engine's frame loop. */
#include "samrt_image.h"

#include <stdlib.h>
#include <string.h>

#include "image_io.h"

/* Raw 8-bit PNG samples (1, 2, 3 or 4 per pixel) to RGB8: gray repeats, alpha is dropped. */
static void png_to_rgb8(const uint8_t *src, int channels, size_t n_pix, uint8_t *rgb) {
    for (size_t p = 0; p < n_pix; p++) {
        const uint8_t *s = src + p * (size_t)channels;
        if (channels <= 2) {
            rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = s[0];
        } else {
            rgb[3 * p] = s[0];
            rgb[3 * p + 1] = s[1];
            rgb[3 * p + 2] = s[2];
        }
    }
}

static enum samrt_status decode_png(const char *path, const uint8_t *data, size_t size,
                                    struct samrt_image_info *info, uint8_t *rgb) {
    SAMRT_CHECK(info->bytes_per_sample == 1 && info->color_type != SAMRT_PNG_PALETTE, SAMRT_E_UNSUPPORTED,
                "%s: a %d-bit PNG of colour type %d; RGB8 reading takes 8-bit gray, gray + alpha, RGB and RGBA",
                path, info->bit_depth, info->color_type);
    const size_t n_pix = (size_t)info->width * (size_t)info->height;
    uint8_t *raw = malloc(samrt_image_nbytes(info));
    SAMRT_CHECK(raw != NULL, SAMRT_E_HOST_MEMORY, "%s: no host memory for %zu bytes", path, samrt_image_nbytes(info));
    enum samrt_status st = samrt_png_decode(data, size, raw, samrt_image_nbytes(info), info);
    if (st == SAMRT_OK) png_to_rgb8(raw, info->channels, n_pix, rgb);
    free(raw);
    return st;
}

static enum samrt_status read_rgb8(const char *path, const uint8_t *data, size_t size, uint8_t *rgb,
                                   size_t rgb_bytes, int *width, int *height) {
    struct samrt_image_info info;
    const enum samrt_image_format fmt = samrt_image_sniff(data, size);
    SAMRT_CHECK(fmt != SAMRT_IMAGE_UNKNOWN, SAMRT_E_FORMAT, "%s: neither a JPEG nor a PNG file", path);
    SAMRT_TRY(fmt == SAMRT_IMAGE_JPEG ? samrt_jpeg_info(data, size, &info) : samrt_png_info(data, size, &info));
    *width = info.width;
    *height = info.height;
    if (!rgb) return SAMRT_OK;
    const size_t need = (size_t)info.width * (size_t)info.height * 3;
    SAMRT_CHECK(rgb_bytes >= need, SAMRT_E_INVALID_ARG, "%s: a %dx%d image needs %zu bytes, the buffer holds %zu",
                path, info.width, info.height, need, rgb_bytes);
    if (fmt == SAMRT_IMAGE_JPEG) return samrt_jpeg_decode(data, size, rgb, rgb_bytes, &info);
    return decode_png(path, data, size, &info, rgb);
}

enum samrt_status samrt_image_read_rgb8(const char *path, uint8_t *rgb, size_t rgb_bytes, int *width, int *height) {
    SAMRT_CHECK(path && width && height, SAMRT_E_INVALID_ARG, "samrt_image_read_rgb8: path, width and height are required");
    *width = *height = 0;
    uint8_t *data = NULL;
    size_t cap = 0, size = 0;
    enum samrt_status st = samrt_file_read(path, &data, &cap, &size);
    if (st == SAMRT_OK) st = read_rgb8(path, data, size, rgb, rgb_bytes, width, height);
    free(data);
    return st;
}
