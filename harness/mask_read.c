/* mask_read.c - SA-V mask PNGs read with the rules of eval-spec 1.3 (mask_read.h): the
 * ground truth of the SA-V reader and `samrt eval`, the bench's first-frame prompts and the
 * --mask prompt of `samrt track` all load masks here, so they refuse the same files with the
 * same messages. */
#include "mask_read.h"

#include <stdlib.h>
#include <string.h>


void samrt_mask_reader_free(struct samrt_mask_reader *r) {
    if (!r) return;
    free(r->file);
    free(r->wide);
    memset(r, 0, sizeof *r);
}

static const char *color_name(int t) {
    switch (t) {
    case SAMRT_PNG_GRAY: return "gray";
    case SAMRT_PNG_RGB: return "RGB";
    case SAMRT_PNG_PALETTE: return "palette";
    case SAMRT_PNG_GRAY_ALPHA: return "gray+alpha";
    case SAMRT_PNG_RGBA: return "RGBA";
    default: return "unknown";
    }
}

enum samrt_status samrt_mask_check_type(const char *path, const struct samrt_image_info *info) {
    SAMRT_CHECK(info->color_type == SAMRT_PNG_GRAY || info->color_type == SAMRT_PNG_PALETTE, SAMRT_E_FORMAT,
                "%s: %s PNG (colour type %d); SA-V masks are gray or palette PNGs holding one object",
                path, color_name(info->color_type), info->color_type);
    return SAMRT_OK;
}

/* Binarises n raw samples (1 or 2 bytes each) into dst as value > 0, refusing a third
 * distinct value (eval-spec 1.3, rule 2). dst may alias src for 1-byte samples: sample i is
 * read before byte i is written. */
static enum samrt_status binarize(const void *src, int bytes_per_sample, size_t n, uint8_t *dst, const char *path,
                                  long *n_fg) {
    const uint8_t *s8 = (const uint8_t *)src;
    const uint16_t *s16 = (const uint16_t *)src;
    unsigned a = bytes_per_sample == 1 ? s8[0] : s16[0], b = a;
    long fg = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v = bytes_per_sample == 1 ? s8[i] : s16[i];
        if (v != a && v != b) {
            SAMRT_CHECK(a == b, SAMRT_E_FORMAT,
                        "%s: found more than 1 object (values %u, %u and %u); SA-V masks hold one object per PNG",
                        path, a, b, v);
            b = v;
        }
        dst[i] = v > 0;
        fg += v > 0;
    }
    *n_fg = fg;
    return SAMRT_OK;
}

enum samrt_status samrt_mask_load(struct samrt_mask_reader *r, const char *path, uint8_t **mask, size_t *cap,
                                  int *width, int *height, long *n_fg) {
    SAMRT_CHECK(r && path && mask && cap && width && height, SAMRT_E_INVALID_ARG, "samrt_mask_load: NULL argument");
    size_t size = 0;
    SAMRT_TRY(samrt_file_read(path, &r->file, &r->file_cap, &size));
    struct samrt_image_info info;
    enum samrt_status st = samrt_png_info(r->file, size, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot read mask %s", path);
    SAMRT_TRY(samrt_mask_check_type(path, &info));
    size_t n = (size_t)info.width * (size_t)info.height;
    if (n > *cap || !*mask) {
        uint8_t *m = (uint8_t *)realloc(*mask, n);
        SAMRT_CHECK(m, SAMRT_E_HOST_MEMORY, "out of memory decoding %s", path);
        *mask = m;
        *cap = n;
    }
    long fg = 0;
    if (info.bytes_per_sample == 1) {
        st = samrt_png_decode(r->file, size, *mask, *cap, &info);
        SAMRT_CHECK(st == SAMRT_OK, st, "cannot decode mask %s", path);
        SAMRT_TRY(binarize(*mask, 1, n, *mask, path, &fg));
    } else {
        size_t need = samrt_image_nbytes(&info);
        if (need > r->wide_cap) {
            uint8_t *w = (uint8_t *)realloc(r->wide, need);
            SAMRT_CHECK(w, SAMRT_E_HOST_MEMORY, "out of memory decoding %s", path);
            r->wide = w;
            r->wide_cap = need;
        }
        st = samrt_png_decode(r->file, size, r->wide, r->wide_cap, &info);
        SAMRT_CHECK(st == SAMRT_OK, st, "cannot decode mask %s", path);
        SAMRT_TRY(binarize(r->wide, 2, n, *mask, path, &fg));
    }
    *width = info.width;
    *height = info.height;
    if (n_fg) *n_fg = fg;
    return SAMRT_OK;
}
