/* thumbs.c - the report's thumbnails (thumbs.h): image files and video frames to RGB8, a box
 * filter down to thumbnail size, and JPEG bytes through the harness's JPEG writer (to a
 * temporary file, read back and removed: the writer is the one every other JPEG goes through). */
#include "thumbs.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "image_io.h"
#include "fsutil.h"
#include "sav.h"
#include "util.h"
#include "video.h"

enum samrt_status samrt_image_load_rgb8(const char *path, uint8_t **rgb, int *width, int *height) {
    SAMRT_CHECK(path && rgb && width && height, SAMRT_E_INVALID_ARG, "samrt_image_load_rgb8: NULL argument");
    *rgb = NULL;
    uint8_t *file = NULL, *px = NULL;
    size_t cap = 0, size = 0;
    struct samrt_image_info info;
    SAMRT_TRY(samrt_file_read(path, &file, &cap, &size));
    const enum samrt_image_format fmt = samrt_image_sniff(file, size);
    enum samrt_status st = fmt == SAMRT_IMAGE_JPEG ? samrt_jpeg_info(file, size, &info)
                           : fmt == SAMRT_IMAGE_PNG ? samrt_png_info(file, size, &info)
                                                    : SAMRT_E_FORMAT;
    if (fmt == SAMRT_IMAGE_UNKNOWN) SAMRT_LOG_ERROR("%s: neither a JPEG nor a PNG", path);
    if (st == SAMRT_OK && fmt == SAMRT_IMAGE_PNG &&
        (info.bytes_per_sample != 1 || info.bit_depth != 8 || info.color_type == SAMRT_PNG_PALETTE)) {
        SAMRT_LOG_ERROR("%s: only 8-bit gray, gray+alpha, RGB and RGBA PNGs are read here", path);
        st = SAMRT_E_UNSUPPORTED;
    }
    if (st == SAMRT_OK) {
        px = malloc(samrt_image_nbytes(&info));
        *rgb = malloc((size_t)info.width * (size_t)info.height * 3);
        if (!px || !*rgb) st = SAMRT_E_HOST_MEMORY;
    }
    if (st == SAMRT_OK)
        st = fmt == SAMRT_IMAGE_JPEG ? samrt_jpeg_decode(file, size, px, samrt_image_nbytes(&info), &info)
                                     : samrt_png_decode(file, size, px, samrt_image_nbytes(&info), &info);
    if (st == SAMRT_OK) {
        const size_t n = (size_t)info.width * (size_t)info.height;
        const int ch = info.channels;
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++) (*rgb)[3 * i + c] = px[ch * i + (ch >= 3 ? c : 0)];
        *width = info.width;
        *height = info.height;
    } else {
        free(*rgb);
        *rgb = NULL;
    }
    free(file);
    free(px);
    return st;
}

void samrt_thumb_downscale(const uint8_t *src, int w, int h, uint8_t *dst, int dw, int dh) {
    for (int y = 0; y < dh; y++) {
        const int sy0 = (int)((long long)y * h / dh), sy1 = SAMRT_MAX((int)((long long)(y + 1) * h / dh), sy0 + 1);
        for (int x = 0; x < dw; x++) {
            const int sx0 = (int)((long long)x * w / dw), sx1 = SAMRT_MAX((int)((long long)(x + 1) * w / dw), sx0 + 1);
            unsigned sum[3] = {0, 0, 0}, cnt = 0;
            for (int sy = sy0; sy < sy1; sy++)
                for (int sx = sx0; sx < sx1; sx++, cnt++)
                    for (int c = 0; c < 3; c++) sum[c] += src[3 * ((size_t)sy * w + sx) + c];
            for (int c = 0; c < 3; c++) dst[3 * ((size_t)y * dw + x) + c] = (uint8_t)((sum[c] + cnt / 2) / cnt);
        }
    }
}

/* One thumbnail of an RGB8 frame. */
static enum samrt_status make_thumb(const uint8_t *rgb, int w, int h, int max_w, const char *label,
                                    struct samrt_thumb *t) {
    const int dw = SAMRT_MIN(w, max_w), dh = SAMRT_MAX(1, (int)((long long)h * dw / w));
    uint8_t *small = malloc((size_t)dw * (size_t)dh * 3);
    SAMRT_CHECK(small, SAMRT_E_HOST_MEMORY, "out of memory");
    samrt_thumb_downscale(rgb, w, h, small, dw, dh);
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/samrt_thumb_XXXXXX", dir && *dir ? dir : "/tmp");
    const int fd = mkstemp(path);
    enum samrt_status st = fd >= 0 ? SAMRT_OK : SAMRT_E_IO;
    if (fd >= 0) close(fd);
    if (st == SAMRT_OK) st = samrt_jpeg_write(path, small, dw, dh, 85);
    size_t cap = 0;
    if (st == SAMRT_OK) st = samrt_file_read(path, &t->jpeg, &cap, &t->size);
    if (fd >= 0) unlink(path);
    free(small);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot make a thumbnail in %s", dir && *dir ? dir : "/tmp");
    t->width = dw, t->height = dh;
    snprintf(t->label, sizeof t->label, "%s", label);
    return SAMRT_OK;
}

/* Which of n_items the i-th of n thumbnails shows: spread from the first to the last. */
static int pick(int i, int n, int n_items) { return n <= 1 ? 0 : (int)((long long)i * (n_items - 1) / (n - 1)); }

static int is_image_name(const char *s) {
    const char *dot = strrchr(s, '.');
    return dot && (!strcasecmp(dot, ".png") || !strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"));
}

static enum samrt_status collect_folder(const char *dir, int n, int max_w, struct samrt_thumbs *out) {
    struct samrt_names files = {0}, images = {0};
    enum samrt_status st = samrt_list_dir(dir, NULL, &files);
    for (int i = 0; i < files.n && st == SAMRT_OK; i++)
        if (is_image_name(files.v[i])) st = samrt_names_push(&images, files.v[i]);
    if (st == SAMRT_OK && !images.n) {
        SAMRT_LOG_ERROR("%s: no .png or .jpg images", dir);
        st = SAMRT_E_INVALID_ARG;
    }
    const int k = SAMRT_MIN(n, images.n);
    for (int i = 0; i < k && st == SAMRT_OK; i++) {
        char path[4096];
        const char *name = images.v[pick(i, k, images.n)];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        uint8_t *rgb = NULL;
        int w = 0, h = 0;
        st = samrt_image_load_rgb8(path, &rgb, &w, &h);
        if (st == SAMRT_OK) st = make_thumb(rgb, w, h, max_w, name, &out->t[out->n]);
        if (st == SAMRT_OK) out->n++;
        free(rgb);
    }
    samrt_names_free(&files);
    samrt_names_free(&images);
    return st;
}

static enum samrt_status collect_video(const char *path, int n, int max_w, struct samrt_thumbs *out) {
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info vi;
    SAMRT_TRY(samrt_video_open(path, &r, &vi));
    uint8_t *rgb = malloc((size_t)vi.width * (size_t)vi.height * 3);
    enum samrt_status st = rgb ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    const int n_frames = vi.n_frames > 0 ? (int)SAMRT_MIN(vi.n_frames, 1 << 30) : n;
    const int k = SAMRT_MIN(n, n_frames);
    for (int i = 0; i < k && st == SAMRT_OK;) {
        struct samrt_video_frame vf;
        st = samrt_video_read(r, rgb, &vf);
        if (st != SAMRT_OK || vf.eof) break;
        if (vf.index != pick(i, k, n_frames)) continue;
        char label[64];
        snprintf(label, sizeof label, "frame %lld", (long long)vf.index);
        st = make_thumb(rgb, vi.width, vi.height, max_w, label, &out->t[out->n]);
        if (st == SAMRT_OK) out->n++, i++;
    }
    free(rgb);
    samrt_video_close(r);
    return st;
}

enum samrt_status samrt_thumbs_collect(const char *src, int n, int max_w, struct samrt_thumbs *out) {
    SAMRT_CHECK(src && out && n >= 1 && n <= SAMRT_THUMBS_MAX && max_w >= 8, SAMRT_E_INVALID_ARG,
                "samrt_thumbs_collect: bad argument");
    memset(out, 0, sizeof *out);
    const enum samrt_status st = samrt_is_dir(src) ? collect_folder(src, n, max_w, out)
                                                   : collect_video(src, n, max_w, out);
    if (st != SAMRT_OK) samrt_thumbs_free(out);
    return st;
}

void samrt_thumbs_free(struct samrt_thumbs *t) {
    if (!t) return;
    for (int i = 0; i < t->n; i++) free(t->t[i].jpeg);
    memset(t, 0, sizeof *t);
}

void samrt_base64_write(FILE *f, const uint8_t *data, size_t n) {
    static const char k[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) |
                           (i + 2 < n ? data[i + 2] : 0);
        const char out[4] = {k[v >> 18], k[(v >> 12) & 63], i + 1 < n ? k[(v >> 6) & 63] : '=', i + 2 < n ? k[v & 63] : '='};
        fwrite(out, 1, 4, f);
    }
}
