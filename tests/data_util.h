/* data_util.h - helpers for the data tests: a scratch folder that is removed at exit,
 * writing small files, and a direct libpng writer for the PNG modes samrt itself never
 * writes (1/2/4/16-bit gray, RGB, RGBA, gray+alpha, Adam7), so the reader is tested against
 * files it did not produce. Header-only, like test_util.h. */
#ifndef SAMRT_TEST_DATA_UTIL_H
#define SAMRT_TEST_DATA_UTIL_H

#include <ftw.h>   /* nftw: _GNU_SOURCE comes from the build flags */
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "samrt.h"

static int du_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* rm -rf */
static inline void du_rmtree(const char *path) { nftw(path, du_rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* A fresh folder under $TMPDIR (or /tmp) named after the test. */
static inline int du_tmpdir(const char *tag, char *out, size_t len) {
    const char *base = getenv("TMPDIR");
    snprintf(out, len, "%s/samrt_%s_XXXXXX", base && *base ? base : "/tmp", tag);
    return mkdtemp(out) ? 0 : -1;
}

static inline int du_mkdir(const char *fmt_dir) { return mkdir(fmt_dir, 0777) == 0 ? 0 : -1; }

static inline int du_write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* Reads a whole file into a malloc'd buffer (NULL on failure). */
static inline uint8_t *du_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = (uint8_t *)malloc(sz > 0 ? (size_t)sz : 1);
    if (b && sz > 0 && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = sz > 0 ? (size_t)sz : 0;
    return b;
}

/* Writes w x h pixels of `channels` samples each (values as given, one uint16 per sample)
 * as a PNG of the given bit depth and colour type; palette images get a gray ramp PLTE of
 * 2^depth entries. Returns 0 on success. */
static inline int du_write_png_raw(const char *path, int w, int h, int depth, int color_type, int interlace,
                                   const uint16_t *samples) {
    int channels = color_type == 0 || color_type == 3 ? 1 : color_type == 4 ? 2 : color_type == 2 ? 3 : 4;
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(p);
    uint8_t *row = (uint8_t *)calloc((size_t)w * (size_t)channels * 2 + 8, 1);
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info);
        free(row);
        fclose(f);
        return -1;
    }
    png_init_io(p, f);
    png_set_IHDR(p, info, (png_uint_32)w, (png_uint_32)h, depth, color_type,
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (color_type == 3) {
        png_color pal[256];
        int n = 1 << depth;
        for (int i = 0; i < n; i++) pal[i].red = pal[i].green = pal[i].blue = (png_byte)(i * 255 / (n - 1));
        png_set_PLTE(p, info, pal, n);
    }
    png_write_info(p, info);
    if (depth < 8) png_set_packing(p);
    int passes = png_set_interlace_handling(p);
    for (int pass = 0; pass < passes; pass++)
        for (int y = 0; y < h; y++) {
            const uint16_t *s = samples + (size_t)y * (size_t)w * (size_t)channels;
            for (int i = 0; i < w * channels; i++) {
                if (depth == 16) {
                    row[2 * i] = (uint8_t)(s[i] >> 8);   /* PNG is big-endian */
                    row[2 * i + 1] = (uint8_t)(s[i] & 0xFF);
                } else {
                    row[i] = (uint8_t)s[i];
                }
            }
            png_write_row(p, row);
        }
    png_write_end(p, NULL);
    png_destroy_write_struct(&p, &info);
    free(row);
    return fclose(f) == 0 ? 0 : -1;
}

static void du_log_none(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

/* Silences the log while bad inputs are tested (each one logs its error), or restores it. */
static inline void du_quiet(int on) {
    if (on) samrt_log_set(du_log_none, NULL, SAMRT_LOG_ERROR);
    else samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
}

/* rect(H,W, r0..r1, c0..c1) of eval-spec 6 into m (0/1). */
static inline void du_rect(uint8_t *m, int h, int w, int r0, int r1, int c0, int c1) {
    memset(m, 0, (size_t)h * (size_t)w);
    for (int r = r0; r <= r1; r++)
        for (int c = c0; c <= c1; c++) m[r * w + c] = 1;
}

#endif /* SAMRT_TEST_DATA_UTIL_H */
