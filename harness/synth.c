/* synth.c - the synthetic SA-V-layout dataset; see synth.h.
 *
 * Everything is integer arithmetic on 1/8-pixel fixed point (no libm, no float), so a seed
 * gives the same pixels on x86 and aarch64 whatever the compiler contracts into FMAs. Shapes
 * are tested at pixel centres; the ellipse test (dx*hh)^2 + (dy*hw)^2 <= (hw*hh)^2 stays
 * below 2^62 for sides up to SAMRT_SYNTH_MAX_SIDE.
 *
 * Run: samrt synth --out /tmp/synth_val --videos 2 --frames 48 --seed 1
 */
#include "synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io.h"
#include "sav.h"
#include "util.h"

#define FP 8                 /* fixed-point steps per pixel */
#define SCENE_TRIES 64

/* ---- randomness ------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi) {
    return lo + (int64_t)(splitmix(s) % (uint64_t)(hi - lo + 1));
}

static uint32_t hash3(uint64_t seed, int64_t a, int64_t b, int64_t c) {
    uint64_t s = seed ^ ((uint64_t)a * 0xD6E8FEB86659FD93ull) ^ ((uint64_t)b * 0xA0761D6478BD642Full) ^
                 ((uint64_t)c * 0xE7037ED1A0B428DBull);
    return (uint32_t)(splitmix(&s) >> 32);
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* cos(15 deg * k) * 1024; sin(15 deg * k) = cos(15 deg * (k - 6)). */
static const int16_t cos24[24] = {1024, 989,  887,  724,  512,  265,  0,    -265, -512, -724, -887, -989,
                                  -1024, -989, -887, -724, -512, -265, 0,   265,  512,  724,  887,  989};

/* Saturated object colours (a) and muted backgrounds come from here. */
static const uint8_t palette12[12][3] = {{230, 60, 50},  {60, 180, 75},  {255, 225, 25}, {0, 130, 200},
                                         {245, 130, 48}, {145, 30, 180}, {70, 240, 240}, {240, 50, 230},
                                         {210, 245, 60}, {250, 190, 212}, {0, 128, 128}, {170, 110, 40}};

/* ---- parameters ------------------------------------------------------------------------- */

struct samrt_synth_params samrt_synth_default_params(void) {
    struct samrt_synth_params p;
    memset(&p, 0, sizeof p);
    p.n_videos = 2;
    p.n_frames = 48;
    p.n_objects = 3;
    p.width = 640;
    p.height = 360;
    p.quality = 90;
    p.ann_step = 4;
    return p;
}

enum samrt_status samrt_synth_check_params(const struct samrt_synth_params *p) {
    SAMRT_CHECK(p, SAMRT_E_INVALID_ARG, "synth: NULL params");
    SAMRT_CHECK(p->n_videos >= 1 && p->n_videos <= 10000, SAMRT_E_INVALID_ARG, "synth: --videos %d not in 1..10000",
                p->n_videos);
    SAMRT_CHECK(p->n_frames >= 1 && p->n_frames <= 100000, SAMRT_E_INVALID_ARG, "synth: --frames %d not in 1..100000",
                p->n_frames);
    SAMRT_CHECK(p->n_objects >= 1 && p->n_objects <= SAMRT_SYNTH_MAX_OBJECTS, SAMRT_E_INVALID_ARG,
                "synth: --objects %d not in 1..%d", p->n_objects, SAMRT_SYNTH_MAX_OBJECTS);
    SAMRT_CHECK(p->width >= 16 && p->width <= SAMRT_SYNTH_MAX_SIDE && p->height >= 16 &&
                    p->height <= SAMRT_SYNTH_MAX_SIDE,
                SAMRT_E_INVALID_ARG, "synth: %dx%d: each side must be in 16..%d", p->width, p->height,
                SAMRT_SYNTH_MAX_SIDE);
    SAMRT_CHECK(p->quality >= 1 && p->quality <= 100, SAMRT_E_INVALID_ARG, "synth: quality %d not in 1..100",
                p->quality);
    SAMRT_CHECK(p->ann_step >= 1, SAMRT_E_INVALID_ARG, "synth: annotation step %d < 1", p->ann_step);
    return SAMRT_OK;
}

void samrt_synth_video_name(int video, char *buf, size_t len) { snprintf(buf, len, "synth_%03d", video); }

/* ---- scene ------------------------------------------------------------------------------ */

static void draw_object(uint64_t *rng, const struct samrt_synth_params *p, struct samrt_synth_object *o) {
    int64_t m = SAMRT_MIN(p->width, p->height);
    memset(o, 0, sizeof *o);
    o->shape = (int)rnd(rng, 0, 2);
    o->hw = rnd(rng, m * 8, m * 18) * FP / 100;
    o->hh = rnd(rng, m * 8, m * 18) * FP / 100;
    o->x0 = rnd(rng, p->width * 15, p->width * 85) * FP / 100;
    o->y0 = rnd(rng, p->height * 15, p->height * 85) * FP / 100;
    do {
        o->vx = rnd(rng, -3 * FP, 3 * FP);
        o->vy = rnd(rng, -3 * FP, 3 * FP);
    } while ((o->vx < 0 ? -o->vx : o->vx) + (o->vy < 0 ? -o->vy : o->vy) < FP / 2);
    o->pulse_amp = (int)rnd(rng, 0, 48);
    o->pulse_period = (int)rnd(rng, 24, 72);
    if (o->shape == 2) {
        static const int counts[4] = {3, 4, 6, 8};
        o->n_verts = counts[rnd(rng, 0, 3)];
        int step = 24 / o->n_verts, phase = (int)rnd(rng, 0, 23);
        int64_t r = SAMRT_MAX(o->hw, o->hh);
        for (int k = 0; k < o->n_verts; k++) {
            int a = (phase + k * step) % 24;
            int64_t rk = r * rnd(rng, 60, 100) / 100;
            o->vert_x[k] = cos24[a] * rk / 1024;
            o->vert_y[k] = cos24[(a + 18) % 24] * rk / 1024;
        }
    }
    const uint8_t *ca = palette12[rnd(rng, 0, 11)];
    for (int c = 0; c < 3; c++) {
        o->color_a[c] = ca[c];
        o->color_b[c] = (uint8_t)(ca[c] * 3 / 5);
    }
    o->stripe_period = (int)rnd(rng, 4, 12);
    o->stripe_dir = (int)rnd(rng, 0, 3);
}

static void draw_scene(uint64_t *rng, const struct samrt_synth_params *p, struct samrt_synth_scene *s) {
    memset(s, 0, sizeof *s);
    s->width = p->width;
    s->height = p->height;
    s->n_objects = p->n_objects;
    s->noise_seed = splitmix(rng);
    for (int c = 0; c < 3; c++) {
        s->bg_a[c] = (uint8_t)rnd(rng, 40, 110);
        s->bg_b[c] = (uint8_t)(s->bg_a[c] + rnd(rng, 30, 90));
    }
    s->bg_cell = (int)rnd(rng, 16, 48);
    s->drift_x = rnd(rng, 0, FP / 2);
    s->drift_y = rnd(rng, 0, FP / 2);
    for (int i = 0; i < s->n_objects; i++) {
        draw_object(rng, p, &s->obj[i]);
        s->order[i] = i;
    }
    for (int i = s->n_objects - 1; i > 0; i--) {   /* Fisher-Yates: depth is not the id */
        int j = (int)rnd(rng, 0, i), t = s->order[i];
        s->order[i] = s->order[j];
        s->order[j] = t;
    }
}

/* Bounces v inside [lo, hi]. */
static int64_t reflect(int64_t v, int64_t lo, int64_t hi) {
    int64_t len = hi - lo;
    if (len <= 0) return lo;
    int64_t m = (v - lo) % (2 * len);
    if (m < 0) m += 2 * len;
    return lo + (m > len ? 2 * len - m : m);
}

/* Scale at frame t, in 1/256: a triangle wave around 256. */
static int64_t scale_at(const struct samrt_synth_object *o, int t) {
    int64_t ph = t % o->pulse_period;
    int64_t u = 512 * ph / o->pulse_period;               /* 0..511 */
    int64_t tri = (u < 256 ? u : 512 - u) - 128;          /* -128..128 */
    return 256 + o->pulse_amp * tri / 128;
}

/* The object's pose at frame t: centre, half extents, polygon, bounding box (pixels). */
struct pose {
    int64_t cx, cy, hw, hh;
    int64_t px[SAMRT_SYNTH_MAX_VERTS], py[SAMRT_SYNTH_MAX_VERTS];
    int x0, x1, y0, y1;
};

static void pose_at(const struct samrt_synth_scene *s, const struct samrt_synth_object *o, int t, struct pose *q) {
    int64_t W = (int64_t)s->width * FP, H = (int64_t)s->height * FP;
    q->cx = reflect(o->x0 + o->vx * t, W / 10, W - W / 10);
    q->cy = reflect(o->y0 + o->vy * t, H / 10, H - H / 10);
    int64_t k = scale_at(o, t);
    q->hw = o->hw * k / 256;
    q->hh = o->hh * k / 256;
    int64_t rx = q->hw, ry = q->hh;
    if (o->shape == 2) {
        rx = ry = 0;
        for (int i = 0; i < o->n_verts; i++) {
            q->px[i] = q->cx + o->vert_x[i] * k / 256;
            q->py[i] = q->cy + o->vert_y[i] * k / 256;
            rx = SAMRT_MAX(rx, o->vert_x[i] < 0 ? -o->vert_x[i] * k / 256 : o->vert_x[i] * k / 256);
            ry = SAMRT_MAX(ry, o->vert_y[i] < 0 ? -o->vert_y[i] * k / 256 : o->vert_y[i] * k / 256);
        }
    }
    q->x0 = (int)SAMRT_MAX(0, floor_div(q->cx - rx, FP) - 1);
    q->x1 = (int)SAMRT_MIN(s->width - 1, floor_div(q->cx + rx, FP) + 1);
    q->y0 = (int)SAMRT_MAX(0, floor_div(q->cy - ry, FP) - 1);
    q->y1 = (int)SAMRT_MIN(s->height - 1, floor_div(q->cy + ry, FP) + 1);
}

/* Is the pixel centre (px, py) (1/8 px) inside the posed shape? */
static int inside(const struct samrt_synth_object *o, const struct pose *q, int64_t px, int64_t py) {
    int64_t dx = px - q->cx, dy = py - q->cy;
    switch (o->shape) {
    case 0: return (dx < 0 ? -dx : dx) <= q->hw && (dy < 0 ? -dy : dy) <= q->hh;
    case 1: {
        int64_t a = dx * q->hh, b = dy * q->hw, r = q->hw * q->hh;
        return a * a + b * b <= r * r;
    }
    default: {
        /* even-odd crossings of a horizontal ray, in exact integers */
        int in = 0;
        for (int i = 0, j = o->n_verts - 1; i < o->n_verts; j = i++) {
            int64_t yi = q->py[i], yj = q->py[j], xi = q->px[i], xj = q->px[j];
            if ((yi > py) == (yj > py)) continue;
            int64_t num = (py - yi) * (xj - xi), den = yj - yi, lhs = (px - xi) * den;
            if (den > 0 ? lhs < num : lhs > num) in = !in;
        }
        return in;
    }
    }
}

/* Two octaves of value noise (0..255) at (x, y) px shifted by (sx, sy) in 1/8 px. */
static int value_noise(const struct samrt_synth_scene *s, int x, int y, int64_t sx, int64_t sy) {
    int total = 0;
    for (int oct = 0; oct < 2; oct++) {
        int64_t cell = (int64_t)(oct ? SAMRT_MAX(4, s->bg_cell / 4) : s->bg_cell) * FP;
        int64_t X = (int64_t)x * FP + sx, Y = (int64_t)y * FP + sy;
        int64_t i = floor_div(X, cell), j = floor_div(Y, cell), fx = X - i * cell, fy = Y - j * cell;
        int64_t v00 = hash3(s->noise_seed, i, j, oct) & 255, v10 = hash3(s->noise_seed, i + 1, j, oct) & 255;
        int64_t v01 = hash3(s->noise_seed, i, j + 1, oct) & 255, v11 = hash3(s->noise_seed, i + 1, j + 1, oct) & 255;
        int64_t v = (v00 * (cell - fx) * (cell - fy) + v10 * fx * (cell - fy) + v01 * (cell - fx) * fy +
                     v11 * fx * fy) / (cell * cell);
        total += (int)(oct ? v : 2 * v);
    }
    return total / 3;
}

static uint8_t clamp_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

void samrt_synth_render(const struct samrt_synth_scene *s, int t, uint8_t *rgb, uint8_t *labels, uint32_t *amodal) {
    int w = s->width, h = s->height;
    if (labels) memset(labels, 0, (size_t)w * (size_t)h);
    if (amodal) memset(amodal, 0, (size_t)s->n_objects * sizeof *amodal);
    if (rgb) {
        int64_t sx = s->drift_x * t, sy = s->drift_y * t;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int v = value_noise(s, x, y, sx, sy);
                uint8_t *px = rgb + ((size_t)y * (size_t)w + (size_t)x) * 3;
                for (int c = 0; c < 3; c++) px[c] = (uint8_t)(s->bg_a[c] + (s->bg_b[c] - s->bg_a[c]) * v / 255);
            }
    }
    for (int k = 0; k < s->n_objects; k++) {
        int id = s->order[k];
        const struct samrt_synth_object *o = &s->obj[id];
        struct pose q;
        pose_at(s, o, t, &q);
        int64_t ox = floor_div(q.cx, FP), oy = floor_div(q.cy, FP);
        for (int y = q.y0; y <= q.y1; y++)
            for (int x = q.x0; x <= q.x1; x++) {
                if (!inside(o, &q, (int64_t)x * FP + FP / 2, (int64_t)y * FP + FP / 2)) continue;
                size_t i = (size_t)y * (size_t)w + (size_t)x;
                if (labels) labels[i] = (uint8_t)(id + 1);
                if (amodal) amodal[id]++;
                if (!rgb) continue;
                /* stripes in object coordinates, so the texture travels with the shape */
                int64_t lx = x - ox, ly = y - oy;
                int64_t u = o->stripe_dir == 0 ? lx : o->stripe_dir == 1 ? ly : o->stripe_dir == 2 ? lx + ly : lx - ly;
                const uint8_t *c = floor_div(u, o->stripe_period) & 1 ? o->color_b : o->color_a;
                memcpy(rgb + i * 3, c, 3);
            }
    }
    if (rgb) /* sensor noise, different every frame */
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint8_t *px = rgb + ((size_t)y * (size_t)w + (size_t)x) * 3;
                uint32_t r = hash3(s->noise_seed ^ 0x5A5Au, x, y, t);
                for (int c = 0; c < 3; c++) px[c] = clamp_u8(px[c] + (int)((r >> (8 * c)) % 9) - 4);
            }
}

/* Every object visible on frame 0 and on some scored frame; some occlusion somewhere. */
static int scene_ok(const struct samrt_synth_params *p, const struct samrt_synth_scene *s, uint8_t *labels) {
    int n_ann = (p->n_frames - 1) / p->ann_step + 1;
    int seen_scored[SAMRT_SYNTH_MAX_OBJECTS] = {0}, occluded = 0;
    uint32_t amodal[SAMRT_SYNTH_MAX_OBJECTS], vis[SAMRT_SYNTH_MAX_OBJECTS];
    size_t n = (size_t)s->width * (size_t)s->height;
    for (int a = 0; a < n_ann; a++) {
        samrt_synth_render(s, a * p->ann_step, NULL, labels, amodal);
        memset(vis, 0, sizeof vis);
        for (size_t i = 0; i < n; i++)
            if (labels[i]) vis[labels[i] - 1]++;
        for (int k = 0; k < s->n_objects; k++) {
            if (a == 0 && vis[k] < 16) return 0;
            if (a > 0 && a < n_ann - 1 && vis[k] > 0) seen_scored[k] = 1;
            if (vis[k] < amodal[k]) occluded = 1;
        }
    }
    for (int k = 0; n_ann >= 3 && k < s->n_objects; k++)
        if (!seen_scored[k]) return 0;
    return occluded || s->n_objects < 2;
}

enum samrt_status samrt_synth_scene_init(const struct samrt_synth_params *p, int video,
                                         struct samrt_synth_scene *s) {
    SAMRT_TRY(samrt_synth_check_params(p));
    SAMRT_CHECK(s && video >= 0, SAMRT_E_INVALID_ARG, "synth: bad scene arguments");
    uint8_t *labels = (uint8_t *)malloc((size_t)p->width * (size_t)p->height);
    SAMRT_CHECK(labels, SAMRT_E_HOST_MEMORY, "out of memory");
    uint64_t rng = p->seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)video + 1) * 0xC2B2AE3D27D4EB4Full;
    int ok = 0;
    for (int tries = 0; tries < SCENE_TRIES && !ok; tries++) {
        draw_scene(&rng, p, s);
        ok = scene_ok(p, s, labels);
    }
    free(labels);
    if (!ok) SAMRT_LOG_WARN("synth: video %d: no draw met every condition in %d tries; keeping the last", video,
                            SCENE_TRIES);
    return SAMRT_OK;
}

/* ---- writing ------------------------------------------------------------------------------ */

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static enum samrt_status write_video(const char *out, const struct samrt_synth_params *p, int v, uint8_t *rgb,
                                     uint8_t *labels, uint8_t *mask, const uint8_t *pal) {
    char name[64], jdir[4200], adir[4200], path[4400];
    samrt_synth_video_name(v, name, sizeof name);
    snprintf(jdir, sizeof jdir, "%s/%s/%s", out, SAMRT_SAV_JPEG_DIR, name);
    snprintf(adir, sizeof adir, "%s/%s/%s", out, SAMRT_SAV_ANN_DIR, name);
    SAMRT_TRY(samrt_mkdirs(jdir));
    SAMRT_TRY(samrt_mkdirs(adir));
    for (int k = 0; k < p->n_objects; k++) {
        snprintf(path, sizeof path, "%s/%03d", adir, k);
        SAMRT_TRY(samrt_mkdirs(path));
    }
    struct samrt_synth_scene scene;
    SAMRT_TRY(samrt_synth_scene_init(p, v, &scene));
    size_t n = (size_t)p->width * (size_t)p->height;
    for (int t = 0; t < p->n_frames; t++) {
        samrt_synth_render(&scene, t, rgb, labels, NULL);
        snprintf(path, sizeof path, "%s/%05d.jpg", jdir, t);
        SAMRT_TRY(samrt_jpeg_write(path, rgb, p->width, p->height, p->quality));
        if (t % p->ann_step) continue;
        for (int k = 0; k < p->n_objects; k++) {
            for (size_t i = 0; i < n; i++) mask[i] = labels[i] == k + 1 ? (p->gray_masks ? 255 : 1) : 0;
            snprintf(path, sizeof path, "%s/%03d/%05d.png", adir, k, t);
            if (p->gray_masks) SAMRT_TRY(samrt_png_write_gray8(path, mask, p->width, p->height));
            else SAMRT_TRY(samrt_png_write_palette8(path, mask, p->width, p->height, pal, 2));
        }
    }
    return SAMRT_OK;
}

enum samrt_status samrt_synth_write(const char *out_dir, const struct samrt_synth_params *p, int force) {
    SAMRT_CHECK(out_dir && *out_dir, SAMRT_E_INVALID_ARG, "synth: no output folder");
    SAMRT_TRY(samrt_synth_check_params(p));
    char out[4096], jroot[4200], aroot[4200], list[4400];
    snprintf(out, sizeof out, "%s", out_dir);
    for (size_t n = strlen(out); n > 1 && out[n - 1] == '/'; n--) out[n - 1] = 0;
    snprintf(jroot, sizeof jroot, "%s/%s", out, SAMRT_SAV_JPEG_DIR);
    snprintf(aroot, sizeof aroot, "%s/%s", out, SAMRT_SAV_ANN_DIR);
    SAMRT_CHECK(force || (!exists(jroot) && !exists(aroot)), SAMRT_E_INVALID_ARG,
                "%s already holds a dataset; pick another folder or pass --force to overwrite its files", out);
    SAMRT_TRY(samrt_mkdirs(out));
    SAMRT_TRY(samrt_mkdirs(jroot));
    SAMRT_TRY(samrt_mkdirs(aroot));
    if (p->n_frames < 2 * p->ann_step + 1)
        SAMRT_LOG_WARN("synth: %d frames give fewer than 3 annotated frames; eval will find nothing to score",
                       p->n_frames);

    size_t n = (size_t)p->width * (size_t)p->height;
    uint8_t *rgb = (uint8_t *)malloc(n * 3), *labels = (uint8_t *)malloc(n), *mask = (uint8_t *)malloc(n);
    enum samrt_status st = rgb && labels && mask ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    uint8_t pal[256 * 3];
    samrt_palette_davis(pal);
    for (int v = 0; st == SAMRT_OK && v < p->n_videos; v++) st = write_video(out, p, v, rgb, labels, mask, pal);
    free(rgb);
    free(labels);
    free(mask);
    SAMRT_TRY(st);

    /* <split>/<basename>.txt, the video list the reader looks for */
    const char *base = strrchr(out, '/');
    base = base ? base + 1 : out;
    snprintf(list, sizeof list, "%s/%s.txt", out, base);
    size_t cap = (size_t)p->n_videos * 32 + 1, len = 0;
    char *text = (char *)malloc(cap);
    SAMRT_CHECK(text, SAMRT_E_HOST_MEMORY, "out of memory");
    for (int v = 0; v < p->n_videos; v++) {
        char name[64];
        samrt_synth_video_name(v, name, sizeof name);
        len += (size_t)snprintf(text + len, cap - len, "%s\n", name);
    }
    st = samrt_file_write(list, text, len);
    free(text);
    return st;
}
