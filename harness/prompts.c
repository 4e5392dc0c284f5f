/* prompts.c - first-frame prompts from a mask: exact squared Euclidean distance transform,
 * the centre-click rule, tight boxes; see prompts.h and eval-spec 1.4.
 *
 * The distance transform is the two-pass exact algorithm (a column pass for the vertical
 * distance, then Felzenszwalb & Huttenlocher's lower envelope of parabolas per row,
 * "Distance Transforms of Sampled Functions", 2012). The envelope's breakpoints are kept as
 * exact rationals in int64, so the squared distances are exact integers and the argmax with
 * its row-major tie rule equals OpenCV's DIST_MASK_PRECISE float result (distinct squared
 * integers map to distinct float square roots at these sizes).
 */
#include "prompts.h"

#include <string.h>

enum samrt_status samrt_prompt_parse_kind(const char *s, enum samrt_prompt_kind *out) {
    SAMRT_CHECK(s && out, SAMRT_E_INVALID_ARG, "prompt kind: NULL argument");
    if (!strcmp(s, "points") || !strcmp(s, "point")) *out = SAMRT_PROMPT_POINTS;
    else if (!strcmp(s, "bbox") || !strcmp(s, "box")) *out = SAMRT_PROMPT_BOX;
    else if (!strcmp(s, "mask")) *out = SAMRT_PROMPT_MASK;
    else {
        SAMRT_LOG_ERROR("unknown prompt '%s' (points, bbox or mask)", s);
        return SAMRT_E_INVALID_ARG;
    }
    return SAMRT_OK;
}

const char *samrt_prompt_kind_name(enum samrt_prompt_kind kind) {
    switch (kind) {
    case SAMRT_PROMPT_POINTS: return "points";
    case SAMRT_PROMPT_BOX: return "bbox";
    case SAMRT_PROMPT_MASK: return "mask";
    }
    return "?";
}

/* int64 words: g (w*h), below (w), f/d/v (w+2 each), zn/zd (w+3 each); then w*h bytes for
 * the error mask of samrt_prompt_next_click. */
static size_t edt_words(int w, int h) { return (size_t)w * (size_t)h + (size_t)w + 3 * ((size_t)w + 2) + 2 * ((size_t)w + 3); }

size_t samrt_prompt_scratch_bytes(int w, int h) {
    if (w <= 0 || h <= 0) return 0;
    return edt_words(w, h) * sizeof(int64_t) + (size_t)w * (size_t)h;
}

int samrt_prompt_box(const uint8_t *mask, int w, int h, float box[4]) {
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = mask + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++) {
            if (!row[x]) continue;
            x0 = SAMRT_MIN(x0, x);
            x1 = SAMRT_MAX(x1, x);
            y0 = SAMRT_MIN(y0, y);
            y1 = SAMRT_MAX(y1, y);
        }
    }
    if (x1 < 0) return 0;
    box[0] = (float)x0;
    box[1] = (float)y0;
    box[2] = (float)x1;
    box[3] = (float)y1;
    return 1;
}

/* a/ad <= b/bd, where ad > 0 and bd == 0 encodes -inf (bn < 0) or +inf (bn > 0). */
static int rat_le(int64_t an, int64_t ad, int64_t bn, int64_t bd) {
    if (bd == 0) return bn > 0;
    return an * bd <= bn * ad;
}

/* z < q for a breakpoint z = zn/zd (zd == 0: infinite). */
static int rat_lt_int(int64_t zn, int64_t zd, int64_t q) {
    if (zd == 0) return zn < 0;
    return zn < q * zd;
}

/* 1-D squared distance transform of the sampled function f (n values): d[q] = min over p of
 * (q-p)^2 + f[p]. v, zn, zd are scratch of n, n+1, n+1 words. */
static void dt1d(const int64_t *f, int n, int64_t *d, int64_t *v, int64_t *zn, int64_t *zd) {
    int k = 0;
    v[0] = 0;
    zn[0] = -1, zd[0] = 0;   /* -inf */
    zn[1] = 1, zd[1] = 0;    /* +inf */
    for (int64_t q = 1; q < n; q++) {
        int64_t sn, sd;
        for (;;) {
            int64_t p = v[k];
            sn = (f[q] + q * q) - (f[p] + p * p);   /* the parabolas from p and q meet at sn/sd */
            sd = 2 * (q - p);
            if (!rat_le(sn, sd, zn[k], zd[k])) break;
            k--;
        }
        k++;
        v[k] = q;
        zn[k] = sn, zd[k] = sd;
        zn[k + 1] = 1, zd[k + 1] = 0;
    }
    k = 0;
    for (int64_t q = 0; q < n; q++) {
        while (rat_lt_int(zn[k + 1], zd[k + 1], q)) k++;
        d[q] = (q - v[k]) * (q - v[k]) + f[v[k]];
    }
}

/* The transform on the mask padded with one background pixel all round. ws holds
 * edt_words(w, h) words; dist2 may be NULL. */
static int64_t edt_core(const uint8_t *mask, int w, int h, int64_t *ws, int64_t *dist2, long *argmax) {
    int64_t *g = ws;                          /* h x w: vertical distance, then its square */
    int64_t *below = g + (size_t)w * (size_t)h;
    int64_t *f = below + w, *d = f + (w + 2), *v = d + (w + 2), *zn = v + (w + 2), *zd = zn + (w + 3);
    /* Column pass: distance to the nearest background above, then below (the padding rows
     * sit at -1 and h). */
    for (int y = 0; y < h; y++) {
        const uint8_t *m = mask + (size_t)y * (size_t)w;
        int64_t *gr = g + (size_t)y * (size_t)w, *up = y ? gr - w : NULL;
        for (int x = 0; x < w; x++) gr[x] = m[x] ? (up ? up[x] + 1 : 1) : 0;
    }
    for (int y = h - 1; y >= 0; y--) {
        const uint8_t *m = mask + (size_t)y * (size_t)w;
        int64_t *gr = g + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++) {
            below[x] = m[x] ? (y == h - 1 ? 1 : below[x] + 1) : 0;
            int64_t t = SAMRT_MIN(gr[x], below[x]);
            gr[x] = t * t;
        }
    }
    /* Row pass over the padded row: the padding columns contribute f = 0. */
    int64_t best = 0;
    long best_at = 0;
    for (int y = 0; y < h; y++) {
        const int64_t *gr = g + (size_t)y * (size_t)w;
        f[0] = 0;
        f[w + 1] = 0;
        memcpy(f + 1, gr, (size_t)w * sizeof *f);
        dt1d(f, w + 2, d, v, zn, zd);
        for (int x = 0; x < w; x++) {
            if (d[x + 1] > best) {
                best = d[x + 1];
                best_at = (long)y * w + x;
            }
        }
        if (dist2) memcpy(dist2 + (size_t)y * (size_t)w, d + 1, (size_t)w * sizeof *d);
    }
    if (argmax) *argmax = best_at;
    return best;
}

int64_t samrt_prompt_edt(const uint8_t *mask, int w, int h, void *scratch, size_t scratch_bytes, int64_t *dist2,
                         long *argmax) {
    if (!mask || w <= 0 || h <= 0 || !scratch || scratch_bytes < edt_words(w, h) * sizeof(int64_t)) {
        SAMRT_LOG_ERROR("samrt_prompt_edt: bad arguments or scratch too small");
        if (argmax) *argmax = 0;
        return -1;
    }
    return edt_core(mask, w, h, (int64_t *)scratch, dist2, argmax);
}

enum samrt_status samrt_prompt_next_click(const uint8_t *gt, const uint8_t *pred, int w, int h, void *scratch,
                                          size_t scratch_bytes, struct samrt_point *out) {
    SAMRT_CHECK(gt && out && scratch && w > 0 && h > 0, SAMRT_E_INVALID_ARG, "next click: bad arguments");
    SAMRT_CHECK(scratch_bytes >= samrt_prompt_scratch_bytes(w, h), SAMRT_E_INVALID_ARG,
                "next click: scratch holds %zu bytes, %dx%d needs %zu", scratch_bytes, w, h,
                samrt_prompt_scratch_bytes(w, h));
    int64_t *ws = (int64_t *)scratch;
    uint8_t *err = (uint8_t *)(ws + edt_words(w, h));
    size_t n = (size_t)w * (size_t)h;
    /* missed: gt and not pred */
    for (size_t i = 0; i < n; i++) err[i] = gt[i] && !(pred && pred[i]);
    long fn_at = 0, fp_at = 0;
    int64_t fn_max = edt_core(err, w, h, ws, NULL, &fn_at);
    /* spurious: pred and not gt */
    int64_t fp_max = 0;
    if (pred) {
        for (size_t i = 0; i < n; i++) err[i] = pred[i] && !gt[i];
        fp_max = edt_core(err, w, h, ws, NULL, &fp_at);
    }
    int positive = fn_max > fp_max;
    long at = positive ? fn_at : fp_at;
    out->x = (float)(at % w);
    out->y = (float)(at / w);
    out->label = positive ? SAMRT_LABEL_POSITIVE : SAMRT_LABEL_NEGATIVE;
    return SAMRT_OK;
}

enum samrt_status samrt_prompt_from_mask(enum samrt_prompt_kind kind, const uint8_t *mask, int w, int h,
                                         void *scratch, size_t scratch_bytes, struct samrt_prompt *out) {
    SAMRT_CHECK(mask && out && w > 0 && h > 0, SAMRT_E_INVALID_ARG, "prompt: bad arguments");
    memset(out, 0, sizeof *out);
    out->kind = kind;
    out->width = w;
    out->height = h;
    float box[4];
    out->empty = !samrt_prompt_box(mask, w, h, box);
    switch (kind) {
    case SAMRT_PROMPT_MASK:
        out->mask = mask;
        return SAMRT_OK;
    case SAMRT_PROMPT_BOX:
        if (!out->empty) {
            memcpy(out->box, box, sizeof box);
            out->has_box = 1;
            return SAMRT_OK;
        }
        /* An empty mask has no box: use the click rule, which gives a negative click. */
        break;
    case SAMRT_PROMPT_POINTS: break;
    default: SAMRT_CHECK(0, SAMRT_E_INVALID_ARG, "prompt: unknown kind %d", (int)kind);
    }
    SAMRT_TRY(samrt_prompt_next_click(mask, NULL, w, h, scratch, scratch_bytes, &out->points[0]));
    out->n_points = 1;
    return SAMRT_OK;
}
