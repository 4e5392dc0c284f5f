/* overlay.c - the overlay drawing of overlay.h: tint, outline and id label per object. Plain
 * loops over RGB8; the label digits come from a 5x7 bitmap font, so nothing here needs a font
 * library. */
#include "overlay.h"

#include <stdio.h>
#include <string.h>

/* The report's palette (report_html.c), as RGB. */
static const uint8_t g_colors[][3] = {{0x44, 0x77, 0xaa}, {0xee, 0x66, 0x77}, {0x22, 0x88, 0x33}, {0xcc, 0xbb, 0x44},
                                      {0x66, 0xcc, 0xee}, {0xaa, 0x33, 0x77}, {0xbb, 0xbb, 0xbb}, {0x33, 0x22, 0x88},
                                      {0xdd, 0x77, 0x00}, {0x11, 0x77, 0x33}};
#define N_COLORS ((int)(sizeof g_colors / sizeof g_colors[0]))

/* 5x7 digits: one byte per row, bit 4 = the leftmost column. */
static const uint8_t g_digits[10][7] = {
    {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e}, {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e},
    {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f}, {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e},
    {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02}, {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e},
    {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e}, {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
    {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e}, {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c}};

void samrt_overlay_color(int id, uint8_t rgb[3]) {
    const int k = ((id - 1) % N_COLORS + N_COLORS) % N_COLORS;
    memcpy(rgb, g_colors[k], 3);
}

static void fill_rect(uint8_t *rgb, int w, int h, int x0, int y0, int x1, int y1, const uint8_t *col) {
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < h; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < w; x++) memcpy(rgb + 3 * ((size_t)y * w + x), col, 3);
}

/* The label box of an id: its size at the frame's scale. */
static void label_size(int h, int id, int *bw, int *bh) {
    char text[16];
    const int n = snprintf(text, sizeof text, "%d", id < 0 ? -id : id);
    const int s = h >= 180 ? h / 180 : 1;
    *bw = n * 6 * s + s;
    *bh = 7 * s + 2 * s;
}

/* The id in white digits on a box of col with its top-left corner at (x, y). */
static void draw_label(uint8_t *rgb, int w, int h, int x, int y, int id, const uint8_t *col) {
    char text[16];
    const int n = snprintf(text, sizeof text, "%d", id < 0 ? -id : id);
    const int s = h >= 180 ? h / 180 : 1, pad = s, cw = 6 * s;
    int bw, bh;
    label_size(h, id, &bw, &bh);
    fill_rect(rgb, w, h, x, y, x + bw, y + bh, col);
    static const uint8_t white[3] = {255, 255, 255};
    for (int c = 0; c < n; c++) {
        const uint8_t *g = g_digits[text[c] - '0'];
        for (int r = 0; r < 7; r++)
            for (int b = 0; b < 5; b++)
                if (g[r] & (0x10 >> b)) {
                    const int px = x + pad + c * cw + b * s, py = y + pad + r * s;
                    fill_rect(rgb, w, h, px, py, px + s, py + s, white);
                }
    }
}

/* Tint and outline one mask; returns its top-left corner in *x0, *y0 (-1 when empty). */
static void draw_mask(uint8_t *rgb, int w, int h, const uint8_t *m, const uint8_t *col, int *x0, int *y0) {
    *x0 = *y0 = -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            if (!m[i]) continue;
            if (*y0 < 0) *y0 = y;
            if (*x0 < 0 || x < *x0) *x0 = x;
            const int edge = x == 0 || y == 0 || x == w - 1 || y == h - 1 || !m[i - 1] || !m[i + 1] || !m[i - w] ||
                             !m[i + w];
            uint8_t *p = rgb + 3 * i;
            for (int c = 0; c < 3; c++) p[c] = edge ? col[c] : (uint8_t)((p[c] + col[c] + 1) / 2);
        }
}

void samrt_overlay_draw(uint8_t *rgb, int w, int h, const struct samrt_overlay_object *obj, int n) {
    if (!rgb || w <= 0 || h <= 0) return;
    if (n > SAMRT_OVERLAY_MAX_OBJECTS) n = SAMRT_OVERLAY_MAX_OBJECTS;
    int box[SAMRT_OVERLAY_MAX_OBJECTS][4], n_box = 0;  /* labels placed so far, x0 y0 x1 y1 */
    int corner[SAMRT_OVERLAY_MAX_OBJECTS][2];
    for (int k = 0; k < n; k++) {
        corner[k][0] = -1;
        if (!obj[k].mask) continue;
        uint8_t col[3];
        samrt_overlay_color(obj[k].id, col);
        draw_mask(rgb, w, h, obj[k].mask, col, &corner[k][0], &corner[k][1]);
    }
    /* labels last, on top of every mask, moved right (then down) past labels already placed */
    for (int k = 0; k < n; k++) {
        if (!obj[k].mask || corner[k][0] < 0) continue;
        int bw, bh, x = corner[k][0], y = corner[k][1];
        label_size(h, obj[k].id, &bw, &bh);
        for (int i = 0; i < n_box; i++)
            if (x < box[i][2] && box[i][0] < x + bw && y < box[i][3] && box[i][1] < y + bh) {
                x = box[i][2] + 2;
                if (x + bw > w) x = 0, y = box[i][3] + 2;
                i = -1;  /* check every placed label again */
            }
        if (x + bw > w) x = w - bw;
        if (y + bh > h) y = h - bh;
        if (x < 0) x = 0;
        if (y < 0) y = 0;
        uint8_t col[3];
        samrt_overlay_color(obj[k].id, col);
        draw_label(rgb, w, h, x, y, obj[k].id, col);
        box[n_box][0] = x, box[n_box][1] = y, box[n_box][2] = x + bw, box[n_box][3] = y + bh;
        n_box++;
    }
}
