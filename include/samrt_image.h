/* samrt_image.h - the image file reader of the shared library libsamrt.so: a JPEG or PNG file
 * to RGB8, for bindings (the Python package's JPEG folders) that bring no decoder of their
 * own. It is the harness's reader (libjpeg / libpng, the bytes Pillow decodes), so
 * libsamrt.so links the image libraries; libsamrt.a has none of this: its API (samrt.h) takes
 * RGB8 buffers and links no image library.
 *
 *   int w = 0, h = 0;
 *   st = samrt_image_read_rgb8("00000.jpg", NULL, 0, &w, &h);     // the header: the size
 *   uint8_t *rgb = malloc((size_t)w * h * 3);
 *   st = samrt_image_read_rgb8("00000.jpg", rgb, (size_t)w * h * 3, &w, &h);
 */
#ifndef SAMRT_IMAGE_H
#define SAMRT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the JPEG or PNG file at path (recognised by its signature, not its name). With rgb
 * NULL only the header is read: *width and *height get the size. Otherwise the image is
 * decoded into rgb, tightly packed RGB8 (stride 3 * width) of rgb_bytes >= 3 * width * height.
 * JPEG: libjpeg's defaults (ISLOW, fancy upsampling), as Pillow's Image.open(...).convert("RGB");
 * gray comes out with R = G = B. PNG: 8-bit gray, gray + alpha, RGB and RGBA (alpha dropped);
 * palette and 16-bit PNGs are SAMRT_E_UNSUPPORTED. Errors: SAMRT_E_IO (cannot read),
 * SAMRT_E_FORMAT (neither JPEG nor PNG, or malformed), SAMRT_E_INVALID_ARG (NULL arguments, a
 * buffer too small). Thread-safe: no state is kept between calls. */
enum samrt_status samrt_image_read_rgb8(const char *path, uint8_t *rgb, size_t rgb_bytes, int *width, int *height);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_IMAGE_H */
