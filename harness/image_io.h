/* image_io.h - JPEG and PNG reading and writing for the benchmark harness (frames, masks,
 * overlays, synthetic data). Internal to samrt; not installed.
 *
 * Decoding is two calls: *_info() parses the header, the caller sizes its buffer with
 * samrt_image_nbytes(), then *_decode() fills it. Nothing is allocated for the pixels, so a
 * frame loop that reuses its buffers allocates nothing per frame on our side (libjpeg and
 * libpng still use their own small per-image pools).
 *
 * JPEG frames decode to RGB8 with libjpeg's defaults (ISLOW IDCT, fancy upsampling), which
 * are the bytes Pillow's Image.open(...).convert("RGB") returns for the same file. PNGs
 * decode to their raw samples: palette indices stay indices, 1/2/4-bit gray stays the raw
 * value (one byte per sample, unscaled), 16-bit samples come back as uint16 in host order,
 * tRNS and gAMA are ignored. That is what numpy.array(PIL.Image.open(p)) gives for the mask
 * modes SA-V uses (eval-spec 1.3); the caller applies the mask rules.
 *
 * Bad input never crashes: libjpeg and libpng errors come back as SAMRT_E_FORMAT and the
 * library's message is logged. A truncated JPEG is an error (Pillow refuses it too), although
 * libjpeg alone would only warn and pad the image with gray.
 *
 *   struct samrt_image_info info;
 *   SAMRT_TRY(samrt_jpeg_info(data, size, &info));
 *   uint8_t *rgb = malloc(samrt_image_nbytes(&info));        // once, at setup
 *   SAMRT_TRY(samrt_jpeg_decode(data, size, rgb, samrt_image_nbytes(&info), &info));
 */
#ifndef SAMRT_IMAGE_IO_H
#define SAMRT_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest side we decode or write; larger headers are SAMRT_E_UNSUPPORTED. It keeps
 * every size computation far from overflow and bounds what a hostile header can ask for. */
#define SAMRT_IMAGE_MAX_SIDE 32768

enum samrt_image_format { SAMRT_IMAGE_UNKNOWN = 0, SAMRT_IMAGE_JPEG, SAMRT_IMAGE_PNG };

/* PNG colour types, with the numbers IHDR stores. */
enum samrt_png_color {
    SAMRT_PNG_GRAY = 0,
    SAMRT_PNG_RGB = 2,
    SAMRT_PNG_PALETTE = 3,
    SAMRT_PNG_GRAY_ALPHA = 4,
    SAMRT_PNG_RGBA = 6
};

struct samrt_image_info {
    enum samrt_image_format format;
    int width, height;
    int channels;          /* samples per pixel in the decoded buffer (JPEG: always 3) */
    int bytes_per_sample;  /* 1, or 2 for 16-bit PNG (host byte order) */
    int bit_depth;         /* bits per sample in the file (JPEG: 8) */
    int color_type;        /* PNG: enum samrt_png_color; JPEG: -1 */
    int interlaced;        /* PNG: 1 for Adam7 */
    int n_palette;         /* PNG: PLTE entries, 0 when there is none */
};

/* width * height * channels * bytes_per_sample: the decode buffer size. */
size_t samrt_image_nbytes(const struct samrt_image_info *info);

/* From the signature bytes; UNKNOWN for anything else. */
enum samrt_image_format samrt_image_sniff(const void *data, size_t size);

/* Reads a whole file into *buf, growing it (realloc) only when the file does not fit in
 * *cap, so a loop over files of similar size stops allocating after the first few. *buf and
 * *cap start as NULL/0 and belong to the caller (free(*buf)). */
enum samrt_status samrt_file_read(const char *path, uint8_t **buf, size_t *cap, size_t *size);
/* Writes size bytes to "<path>.tmp.<pid>", then renames it over path: the target is either
 * the complete new content or untouched, never truncated. */
enum samrt_status samrt_file_write(const char *path, const void *data, size_t size);

/* ---- JPEG ------------------------------------------------------------------------------- */

enum samrt_status samrt_jpeg_info(const void *data, size_t size, struct samrt_image_info *info);
/* Decodes to tightly packed RGB8 (row stride width*3). rgb_bytes must be at least
 * samrt_image_nbytes(info). Gray JPEGs come out with R = G = B; CMYK/YCCK are unsupported. */
enum samrt_status samrt_jpeg_decode(const void *data, size_t size, uint8_t *rgb, size_t rgb_bytes,
                                    struct samrt_image_info *info);
/* Writes RGB8 (stride width*3) as a baseline 4:2:0 JPEG of the given quality (1..100).
 * The file appears complete or not at all (written beside it, then renamed). */
enum samrt_status samrt_jpeg_write(const char *path, const uint8_t *rgb, int width, int height, int quality);

/* ---- PNG -------------------------------------------------------------------------------- */

enum samrt_status samrt_png_info(const void *data, size_t size, struct samrt_image_info *info);
/* Decodes raw samples as described at the top into out (out_bytes >= samrt_image_nbytes). */
enum samrt_status samrt_png_decode(const void *data, size_t size, void *out, size_t out_bytes,
                                   struct samrt_image_info *info);
/* 8-bit gray PNG (stride width). Atomic like samrt_jpeg_write. */
enum samrt_status samrt_png_write_gray8(const char *path, const uint8_t *px, int width, int height);
/* 8-bit RGB PNG (stride width*3). Atomic like samrt_jpeg_write. */
enum samrt_status samrt_png_write_rgb8(const char *path, const uint8_t *rgb, int width, int height);
/* 8-bit palette PNG of indices (stride width); palette_rgb holds n_palette RGB triples
 * (1..256), and every index must be < n_palette. Atomic like samrt_jpeg_write. */
enum samrt_status samrt_png_write_palette8(const char *path, const uint8_t *idx, int width, int height,
                                           const uint8_t *palette_rgb, int n_palette);

/* ---- the libraries ------------------------------------------------------------------------ */

/* The libjpeg and libpng this program is built with (`samrt check`): libsamrt itself takes
 * RGB8 buffers and links neither. */
struct samrt_image_lib_versions {
    int libjpeg;                   /* JPEG_LIB_VERSION, e.g. 80 */
    int libjpeg_turbo;             /* 1 when the libjpeg-turbo build is linked */
    char libpng[32];               /* png_get_libpng_ver */
};
void samrt_image_io_versions(struct samrt_image_lib_versions *out);

/* The DAVIS / PASCAL-VOC palette (entry 1 = (128,0,0)) that vos_inference.py writes
 * predictions with (eval-spec 1.3): 256 RGB triples. */
void samrt_palette_davis(uint8_t rgb[256 * 3]);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_IMAGE_IO_H */
