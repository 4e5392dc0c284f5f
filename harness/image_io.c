/* image_io.c - JPEG (libjpeg API) and PNG (libpng) decode and encode; see image_io.h.
 *
 * Both libraries report errors by calling a handler that must not return. We install
 * handlers that copy the library's message and longjmp back into a small "guarded" function;
 * the library state lives in a job struct owned by the caller's frame, so nothing the
 * longjmp skips over is needed afterwards (no volatile locals), and the caller always runs
 * the matching destroy call. No error path reaches exit() or abort().
 *
 * Writers go through atomic_file.h ("<path>.tmp.<pid>", flushed, fsynced, renamed over the
 * target), so a failed write never leaves a truncated file under the real name.
 */
#include "image_io.h"

#include "atomic_file.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

/* Progressive JPEGs may hold any number of scans, and a crafted file can make libjpeg spend
 * minutes on them; real encoders emit about ten. libjpeg-turbo's TurboJPEG API uses the same
 * kind of cap. */
#define JPEG_MAX_SCANS 500
/* The largest file samrt_file_read accepts. */
#define FILE_MAX_BYTES ((size_t)1 << 30)

size_t samrt_image_nbytes(const struct samrt_image_info *info) {
    return (size_t)info->width * (size_t)info->height * (size_t)info->channels * (size_t)info->bytes_per_sample;
}

enum samrt_image_format samrt_image_sniff(const void *data, size_t size) {
    const uint8_t *p = (const uint8_t *)data;
    if (size >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return SAMRT_IMAGE_JPEG;
    if (size >= 8 && !png_sig_cmp((png_const_bytep)p, 0, 8)) return SAMRT_IMAGE_PNG;
    return SAMRT_IMAGE_UNKNOWN;
}

/* ---- files ------------------------------------------------------------------------------ */

enum samrt_status samrt_file_read(const char *path, uint8_t **buf, size_t *cap, size_t *size) {
    SAMRT_CHECK(path && buf && cap && size, SAMRT_E_INVALID_ARG, "samrt_file_read: NULL argument");
    *size = 0;
    FILE *f = fopen(path, "rb");
    SAMRT_CHECK(f, SAMRT_E_IO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        SAMRT_LOG_ERROR("%s is not a regular file", path);
        return SAMRT_E_IO;
    }
    if ((uint64_t)st.st_size > FILE_MAX_BYTES) {
        fclose(f);
        SAMRT_LOG_ERROR("%s is too large (%lld bytes)", path, (long long)st.st_size);
        return SAMRT_E_FORMAT;
    }
    size_t n = (size_t)st.st_size;
    if (n > *cap || !*buf) {
        size_t want = SAMRT_MAX(n, *cap + *cap / 2);
        want = SAMRT_MAX(want, (size_t)4096);
        uint8_t *nb = (uint8_t *)realloc(*buf, want);
        if (!nb) {
            fclose(f);
            SAMRT_LOG_ERROR("out of memory reading %s (%zu bytes)", path, n);
            return SAMRT_E_HOST_MEMORY;
        }
        *buf = nb;
        *cap = want;
    }
    size_t got = fread(*buf, 1, n, f);
    int err = ferror(f);
    fclose(f);
    SAMRT_CHECK(got == n && !err, SAMRT_E_IO, "short read on %s (%zu of %zu bytes)", path, got, n);
    *size = n;
    return SAMRT_OK;
}

enum samrt_status samrt_file_write(const char *path, const void *data, size_t size) {
    SAMRT_CHECK(path && (data || !size), SAMRT_E_INVALID_ARG, "samrt_file_write: NULL argument");
    return samrt_atomic_write(path, data, size);
}

/* Commits af when st is SAMRT_OK, else removes its temporary file; the status of the write. */
static enum samrt_status finish_write(struct samrt_atomic_file *af, enum samrt_status st) {
    if (st == SAMRT_OK) return samrt_atomic_commit(af);
    samrt_atomic_abort(af);
    return st;
}

static enum samrt_status check_dims(const char *what, long w, long h) {
    SAMRT_CHECK(w > 0 && h > 0, SAMRT_E_FORMAT, "%s: empty image (%ldx%ld)", what, w, h);
    SAMRT_CHECK(w <= SAMRT_IMAGE_MAX_SIDE && h <= SAMRT_IMAGE_MAX_SIDE, SAMRT_E_UNSUPPORTED,
                "%s: %ldx%ld exceeds the %d-pixel limit per side", what, w, h, SAMRT_IMAGE_MAX_SIDE);
    return SAMRT_OK;
}

/* ---- JPEG ------------------------------------------------------------------------------- */

struct jpeg_err {
    struct jpeg_error_mgr pub;   /* first: libjpeg casts cinfo->err to this */
    jmp_buf jb;
    int truncated;               /* libjpeg warned "premature end of JPEG file" */
    char msg[JMSG_LENGTH_MAX + 64];
};

struct jpeg_djob {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_err err;
    struct jpeg_progress_mgr progress;
    int created;
};

static void jpeg_on_error(j_common_ptr c) {
    struct jpeg_err *e = (struct jpeg_err *)c->err;
    c->err->format_message(c, e->msg);
    longjmp(e->jb, 1);
}

/* Warnings (corrupt entropy data and the like) are tolerated as Pillow tolerates them; only
 * the end-of-data warning is remembered, because it means pixels were invented. */
static void jpeg_on_message(j_common_ptr c, int level) {
    if (level >= 0) return;
    if (c->err->msg_code == JWRN_JPEG_EOF) ((struct jpeg_err *)c->err)->truncated = 1;
    c->err->num_warnings++;
}

static void jpeg_on_progress(j_common_ptr c) {
    if (!c->is_decompressor) return;
    struct jpeg_err *e = (struct jpeg_err *)c->err;
    if (((j_decompress_ptr)c)->input_scan_number > JPEG_MAX_SCANS) {
        snprintf(e->msg, sizeof e->msg, "more than %d progressive scans", JPEG_MAX_SCANS);
        longjmp(e->jb, 1);
    }
}

static void jpeg_fill_info(const struct jpeg_decompress_struct *c, struct samrt_image_info *info) {
    memset(info, 0, sizeof *info);
    info->format = SAMRT_IMAGE_JPEG;
    info->width = (int)c->image_width;
    info->height = (int)c->image_height;
    info->channels = 3;
    info->bytes_per_sample = 1;
    info->bit_depth = c->data_precision;
    info->color_type = -1;
}

/* Everything libjpeg may longjmp out of happens here; see the file comment. */
static enum samrt_status jpeg_guarded(struct jpeg_djob *j, const void *data, size_t size, uint8_t *rgb,
                                      size_t rgb_bytes, struct samrt_image_info *info) {
    if (setjmp(j->err.jb)) return SAMRT_E_FORMAT;
    jpeg_create_decompress(&j->cinfo);
    j->created = 1;
    j->progress.progress_monitor = jpeg_on_progress;
    j->cinfo.progress = &j->progress;
    /* Bounds the whole-image coefficient buffers of progressive files: past this libjpeg
     * asks for a backing store, which this build refuses with an error. */
    j->cinfo.mem->max_memory_to_use = 64L * 1024 * 1024 + (long)SAMRT_MIN(rgb_bytes * 4, (size_t)1 << 30);
    jpeg_mem_src(&j->cinfo, (unsigned char *)(uintptr_t)data, (unsigned long)size);
    jpeg_read_header(&j->cinfo, TRUE);
    jpeg_fill_info(&j->cinfo, info);
    SAMRT_TRY(check_dims("jpeg", (long)j->cinfo.image_width, (long)j->cinfo.image_height));
    J_COLOR_SPACE cs = j->cinfo.jpeg_color_space;
    if (cs != JCS_GRAYSCALE && cs != JCS_YCbCr && cs != JCS_RGB) {
        snprintf(j->err.msg, sizeof j->err.msg, "colour space %d (CMYK/YCCK) is not supported", (int)cs);
        return SAMRT_E_UNSUPPORTED;
    }
    if (!rgb) return SAMRT_OK;
    if (rgb_bytes < samrt_image_nbytes(info)) {
        snprintf(j->err.msg, sizeof j->err.msg, "output buffer holds %zu bytes, %dx%d RGB needs %zu", rgb_bytes,
                 info->width, info->height, samrt_image_nbytes(info));
        return SAMRT_E_INVALID_ARG;
    }
    /* libjpeg's defaults, spelled out: they are what makes the pixels equal Pillow's. */
    j->cinfo.out_color_space = JCS_RGB;
    j->cinfo.dct_method = JDCT_ISLOW;
    j->cinfo.do_fancy_upsampling = TRUE;
    jpeg_start_decompress(&j->cinfo);
    if (j->cinfo.output_components != 3 || (int)j->cinfo.output_width != info->width ||
        (int)j->cinfo.output_height != info->height) {
        snprintf(j->err.msg, sizeof j->err.msg, "unexpected output geometry");
        return SAMRT_E_FORMAT;
    }
    size_t stride = (size_t)info->width * 3;
    while (j->cinfo.output_scanline < j->cinfo.output_height && !j->err.truncated) {
        JSAMPROW row = rgb + (size_t)j->cinfo.output_scanline * stride;
        if (jpeg_read_scanlines(&j->cinfo, &row, 1) != 1) break;
    }
    if (j->err.truncated || j->cinfo.output_scanline < j->cinfo.output_height) {
        snprintf(j->err.msg, sizeof j->err.msg, "premature end of JPEG data (truncated file)");
        return SAMRT_E_FORMAT;
    }
    /* A missing EOI after complete image data only warns here; the pixels are all real. */
    jpeg_finish_decompress(&j->cinfo);
    return SAMRT_OK;
}

static enum samrt_status jpeg_run(const void *data, size_t size, uint8_t *rgb, size_t rgb_bytes,
                                  struct samrt_image_info *info) {
    SAMRT_CHECK(data && info, SAMRT_E_INVALID_ARG, "jpeg: NULL argument");
    if (samrt_image_sniff(data, size) != SAMRT_IMAGE_JPEG) {
        SAMRT_LOG_ERROR("jpeg: not a JPEG file (no SOI marker)");
        return SAMRT_E_FORMAT;
    }
    struct jpeg_djob j;
    memset(&j, 0, sizeof j);
    j.cinfo.err = jpeg_std_error(&j.err.pub);
    j.err.pub.error_exit = jpeg_on_error;
    j.err.pub.emit_message = jpeg_on_message;
    enum samrt_status st = jpeg_guarded(&j, data, size, rgb, rgb_bytes, info);
    if (j.created) jpeg_destroy_decompress(&j.cinfo);
    if (st != SAMRT_OK && j.err.msg[0]) SAMRT_LOG_ERROR("jpeg: %s", j.err.msg);
    return st;
}

enum samrt_status samrt_jpeg_info(const void *data, size_t size, struct samrt_image_info *info) {
    return jpeg_run(data, size, NULL, 0, info);
}

enum samrt_status samrt_jpeg_decode(const void *data, size_t size, uint8_t *rgb, size_t rgb_bytes,
                                    struct samrt_image_info *info) {
    SAMRT_CHECK(rgb, SAMRT_E_INVALID_ARG, "jpeg: NULL output buffer");
    return jpeg_run(data, size, rgb, rgb_bytes, info);
}

struct jpeg_cjob {
    struct jpeg_compress_struct cinfo;
    struct jpeg_err err;
    int created;
};

static enum samrt_status jpeg_write_guarded(struct jpeg_cjob *j, FILE *fp, const uint8_t *rgb, int w, int h,
                                            int quality) {
    if (setjmp(j->err.jb)) return SAMRT_E_IO;
    jpeg_create_compress(&j->cinfo);
    j->created = 1;
    jpeg_stdio_dest(&j->cinfo, fp);
    j->cinfo.image_width = (JDIMENSION)w;
    j->cinfo.image_height = (JDIMENSION)h;
    j->cinfo.input_components = 3;
    j->cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&j->cinfo);             /* YCbCr 4:2:0, baseline Huffman */
    jpeg_set_quality(&j->cinfo, quality, TRUE);
    j->cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_compress(&j->cinfo, TRUE);
    while (j->cinfo.next_scanline < j->cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(uintptr_t)(rgb + (size_t)j->cinfo.next_scanline * (size_t)w * 3);
        jpeg_write_scanlines(&j->cinfo, &row, 1);
    }
    jpeg_finish_compress(&j->cinfo);
    return SAMRT_OK;
}

enum samrt_status samrt_jpeg_write(const char *path, const uint8_t *rgb, int width, int height, int quality) {
    SAMRT_CHECK(path && rgb, SAMRT_E_INVALID_ARG, "jpeg write: NULL argument");
    SAMRT_TRY(check_dims("jpeg write", width, height));
    SAMRT_CHECK(quality >= 1 && quality <= 100, SAMRT_E_INVALID_ARG, "jpeg write: quality %d not in 1..100", quality);
    struct samrt_atomic_file af;
    SAMRT_TRY(samrt_atomic_open(&af, path));
    struct jpeg_cjob j;
    memset(&j, 0, sizeof j);
    j.cinfo.err = jpeg_std_error(&j.err.pub);
    j.err.pub.error_exit = jpeg_on_error;
    j.err.pub.emit_message = jpeg_on_message;
    enum samrt_status st = jpeg_write_guarded(&j, af.f, rgb, width, height, quality);
    if (j.created) jpeg_destroy_compress(&j.cinfo);
    if (st != SAMRT_OK) SAMRT_LOG_ERROR("jpeg write %s: %s", path, j.err.msg);
    return finish_write(&af, st);
}

/* ---- PNG -------------------------------------------------------------------------------- */

struct png_job {
    png_structp png;
    png_infop info;
    const uint8_t *data;   /* read side: the whole file in memory */
    size_t size, off;
    jmp_buf jb;
    char msg[256];
};

static void png_on_error(png_structp png, png_const_charp msg) {
    struct png_job *j = (struct png_job *)png_get_error_ptr(png);
    snprintf(j->msg, sizeof j->msg, "%s", msg);
    longjmp(j->jb, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg) {
    (void)png;
    SAMRT_LOG_DEBUG("png: %s", msg);
}

static void png_on_read(png_structp png, png_bytep out, size_t n) {
    struct png_job *j = (struct png_job *)png_get_io_ptr(png);
    if (n > j->size - j->off) png_error(png, "unexpected end of file (truncated PNG)");
    memcpy(out, j->data + j->off, n);
    j->off += n;
}

static int png_channels(int color_type) {
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: return 1;
    case PNG_COLOR_TYPE_PALETTE: return 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB: return 3;
    case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
    default: return 0;
    }
}

static int host_is_little_endian(void) {
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static enum samrt_status png_guarded(struct png_job *j, void *out, size_t out_bytes, struct samrt_image_info *info) {
    if (setjmp(j->jb)) return SAMRT_E_FORMAT;
    png_set_read_fn(j->png, j, png_on_read);
    png_set_user_limits(j->png, SAMRT_IMAGE_MAX_SIDE, SAMRT_IMAGE_MAX_SIDE);
    png_read_info(j->png, j->info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, ctype = 0, ilace = 0;
    png_get_IHDR(j->png, j->info, &w, &h, &depth, &ctype, &ilace, NULL, NULL);
    memset(info, 0, sizeof *info);
    info->format = SAMRT_IMAGE_PNG;
    info->width = (int)w;
    info->height = (int)h;
    info->channels = png_channels(ctype);
    info->bytes_per_sample = depth == 16 ? 2 : 1;
    info->bit_depth = depth;
    info->color_type = ctype;
    info->interlaced = ilace == PNG_INTERLACE_ADAM7;
    if (ctype == PNG_COLOR_TYPE_PALETTE) {
        png_colorp pal = NULL;
        int n = 0;
        if (png_get_PLTE(j->png, j->info, &pal, &n)) info->n_palette = n;
    }
    SAMRT_TRY(check_dims("png", (long)w, (long)h));
    if (!info->channels) {
        snprintf(j->msg, sizeof j->msg, "colour type %d is not valid", ctype);
        return SAMRT_E_FORMAT;
    }
    if (!out) return SAMRT_OK;
    if (out_bytes < samrt_image_nbytes(info)) {
        snprintf(j->msg, sizeof j->msg, "output buffer holds %zu bytes, the image needs %zu", out_bytes,
                 samrt_image_nbytes(info));
        return SAMRT_E_INVALID_ARG;
    }
    /* Raw samples only: unpack sub-byte depths without scaling, no palette/tRNS expansion,
     * no gamma; 16-bit to host order. */
    if (depth < 8) png_set_packing(j->png);
    if (depth == 16 && host_is_little_endian()) png_set_swap(j->png);
    int passes = png_set_interlace_handling(j->png);
    png_read_update_info(j->png, j->info);
    size_t stride = (size_t)w * (size_t)info->channels * (size_t)info->bytes_per_sample;
    if (png_get_rowbytes(j->png, j->info) != stride) {
        snprintf(j->msg, sizeof j->msg, "unexpected row size %zu (want %zu)", (size_t)png_get_rowbytes(j->png, j->info),
                 stride);
        return SAMRT_E_FORMAT;
    }
    /* With interlace handling on, each pass merges its pixels into the full rows. */
    for (int pass = 0; pass < passes; pass++)
        for (png_uint_32 y = 0; y < h; y++) png_read_row(j->png, (png_bytep)out + (size_t)y * stride, NULL);
    png_read_end(j->png, NULL);
    return SAMRT_OK;
}

static enum samrt_status png_run(const void *data, size_t size, void *out, size_t out_bytes,
                                 struct samrt_image_info *info) {
    SAMRT_CHECK(data && info, SAMRT_E_INVALID_ARG, "png: NULL argument");
    if (samrt_image_sniff(data, size) != SAMRT_IMAGE_PNG) {
        SAMRT_LOG_ERROR("png: not a PNG file (bad signature)");
        return SAMRT_E_FORMAT;
    }
    struct png_job j;
    memset(&j, 0, sizeof j);
    j.data = (const uint8_t *)data;
    j.size = size;
    j.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &j, png_on_error, png_on_warning);
    SAMRT_CHECK(j.png, SAMRT_E_HOST_MEMORY, "png: cannot create a read struct");
    j.info = png_create_info_struct(j.png);
    if (!j.info) {
        png_destroy_read_struct(&j.png, NULL, NULL);
        SAMRT_LOG_ERROR("png: cannot create an info struct");
        return SAMRT_E_HOST_MEMORY;
    }
    enum samrt_status st = png_guarded(&j, out, out_bytes, info);
    png_destroy_read_struct(&j.png, &j.info, NULL);
    if (st != SAMRT_OK && j.msg[0]) SAMRT_LOG_ERROR("png: %s", j.msg);
    return st;
}

enum samrt_status samrt_png_info(const void *data, size_t size, struct samrt_image_info *info) {
    return png_run(data, size, NULL, 0, info);
}

enum samrt_status samrt_png_decode(const void *data, size_t size, void *out, size_t out_bytes,
                                   struct samrt_image_info *info) {
    SAMRT_CHECK(out, SAMRT_E_INVALID_ARG, "png: NULL output buffer");
    return png_run(data, size, out, out_bytes, info);
}

/* channels: 1 (gray or palette indices) or 3 (RGB). */
static enum samrt_status png_write_guarded(struct png_job *j, FILE *fp, const uint8_t *px, int w, int h,
                                           const uint8_t *pal, int n_pal, int channels) {
    if (setjmp(j->jb)) return SAMRT_E_IO;
    png_init_io(j->png, fp);
    png_set_IHDR(j->png, j->info, (png_uint_32)w, (png_uint_32)h, 8,
                 pal ? PNG_COLOR_TYPE_PALETTE : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (pal) {
        png_color c[256];
        for (int i = 0; i < n_pal; i++) {
            c[i].red = pal[3 * i];
            c[i].green = pal[3 * i + 1];
            c[i].blue = pal[3 * i + 2];
        }
        png_set_PLTE(j->png, j->info, c, n_pal);
    }
    png_write_info(j->png, j->info);
    const size_t stride = (size_t)w * (size_t)channels;
    for (int y = 0; y < h; y++) png_write_row(j->png, (png_const_bytep)(px + (size_t)y * stride));
    png_write_end(j->png, NULL);
    return SAMRT_OK;
}

static enum samrt_status png_write(const char *path, const uint8_t *px, int w, int h, const uint8_t *pal,
                                   int n_pal, int channels) {
    SAMRT_CHECK(path && px, SAMRT_E_INVALID_ARG, "png write: NULL argument");
    SAMRT_TRY(check_dims("png write", w, h));
    if (pal) {
        SAMRT_CHECK(n_pal >= 1 && n_pal <= 256, SAMRT_E_INVALID_ARG, "png write: %d palette entries", n_pal);
        for (size_t i = 0, n = (size_t)w * (size_t)h; i < n; i++)
            SAMRT_CHECK(px[i] < n_pal, SAMRT_E_INVALID_ARG, "png write %s: index %d outside a %d-entry palette",
                        path, px[i], n_pal);
    }
    struct samrt_atomic_file af;
    SAMRT_TRY(samrt_atomic_open(&af, path));
    struct png_job j;
    memset(&j, 0, sizeof j);
    enum samrt_status st = SAMRT_E_HOST_MEMORY;
    j.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &j, png_on_error, png_on_warning);
    if (j.png) j.info = png_create_info_struct(j.png);
    if (j.png && j.info) st = png_write_guarded(&j, af.f, px, w, h, pal, n_pal, channels);
    if (j.png) png_destroy_write_struct(&j.png, j.info ? &j.info : NULL);
    if (st != SAMRT_OK) SAMRT_LOG_ERROR("png write %s: %s", path, j.msg[0] ? j.msg : "cannot create libpng state");
    return finish_write(&af, st);
}

enum samrt_status samrt_png_write_gray8(const char *path, const uint8_t *px, int width, int height) {
    return png_write(path, px, width, height, NULL, 0, 1);
}

enum samrt_status samrt_png_write_rgb8(const char *path, const uint8_t *rgb, int width, int height) {
    return png_write(path, rgb, width, height, NULL, 0, 3);
}

enum samrt_status samrt_png_write_palette8(const char *path, const uint8_t *idx, int width, int height,
                                           const uint8_t *palette_rgb, int n_palette) {
    SAMRT_CHECK(palette_rgb, SAMRT_E_INVALID_ARG, "png write: NULL palette");
    return png_write(path, idx, width, height, palette_rgb, n_palette, 1);
}

/* Bits 0, 1, 2 of k go to R, G, B from the most significant bit down; then k >>= 3. */
void samrt_palette_davis(uint8_t rgb[256 * 3]) {
    for (int k = 0; k < 256; k++) {
        int r = 0, g = 0, b = 0, c = k;
        for (int bit = 7; bit >= 0; bit--, c >>= 3) {
            r |= (c & 1) << bit;
            g |= ((c >> 1) & 1) << bit;
            b |= ((c >> 2) & 1) << bit;
        }
        rgb[3 * k] = (uint8_t)r;
        rgb[3 * k + 1] = (uint8_t)g;
        rgb[3 * k + 2] = (uint8_t)b;
    }
}

/* ---- the libraries ------------------------------------------------------------------------ */

void samrt_image_io_versions(struct samrt_image_lib_versions *out) {
    memset(out, 0, sizeof *out);
    out->libjpeg = JPEG_LIB_VERSION;
#ifdef LIBJPEG_TURBO_VERSION
    out->libjpeg_turbo = 1;
#else
    /* jconfig.h of libjpeg-turbo defines C_ARITH_CODING_SUPPORTED & co; the version macro
     * only exists in newer builds. Detect the turbo ABI by its extension API instead. */
#ifdef JCS_EXTENSIONS
    out->libjpeg_turbo = 1;
#endif
#endif
    snprintf(out->libpng, sizeof out->libpng, "%s", png_get_libpng_ver(NULL));
}
