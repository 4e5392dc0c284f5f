/* test_prompts.c - harness/prompts: the click-derivation checks of eval-spec 6 (centre click,
 * raster tie rule, padded border, tight box), the exact EDT against brute force on seeded
 * random masks of odd shapes, corrective clicks (positive/negative, strict comparison),
 * empty masks, and argument checks. */
#include "prompts.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data_util.h"
#include "test_util.h"

/* Brute force: squared distance of each pixel to the nearest background pixel of the mask
 * padded with one background ring. */
static void brute_edt(const uint8_t *m, int w, int h, int64_t *d) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (!m[y * w + x]) {
                d[y * w + x] = 0;
                continue;
            }
            int64_t best = INT64_MAX;
            for (int yy = -1; yy <= h; yy++)
                for (int xx = -1; xx <= w; xx++) {
                    int bg = yy < 0 || yy >= h || xx < 0 || xx >= w || !m[yy * w + xx];
                    if (!bg) continue;
                    int64_t dd = (int64_t)(yy - y) * (yy - y) + (int64_t)(xx - x) * (xx - x);
                    if (dd < best) best = dd;
                }
            d[y * w + x] = best;
        }
}

static struct samrt_point first_click(const uint8_t *m, int w, int h) {
    size_t n = samrt_prompt_scratch_bytes(w, h);
    void *s = malloc(n);
    struct samrt_prompt p;
    CHECK_STATUS(samrt_prompt_from_mask(SAMRT_PROMPT_POINTS, m, w, h, s, n, &p), SAMRT_OK);
    CHECK_EQ_INT(p.n_points, 1);
    free(s);
    return p.points[0];
}

static void test_spec_clicks(void) {
    uint8_t m[36];
    du_rect(m, 5, 5, 1, 3, 1, 3);
    struct samrt_point pt = first_click(m, 5, 5);
    CHECK(pt.x == 2 && pt.y == 2 && pt.label == SAMRT_LABEL_POSITIVE);
    du_rect(m, 5, 5, 1, 2, 1, 2);   /* four pixels tie at distance 1: the first in raster order */
    pt = first_click(m, 5, 5);
    CHECK(pt.x == 1 && pt.y == 1 && pt.label == SAMRT_LABEL_POSITIVE);
    memset(m, 1, 24);                /* all-ones 4x6: the padded border is background */
    pt = first_click(m, 6, 4);
    CHECK(pt.x == 1 && pt.y == 1 && pt.label == SAMRT_LABEL_POSITIVE);
    int64_t d2[24];
    long at = -1;
    size_t n = samrt_prompt_scratch_bytes(6, 4);
    void *s = malloc(n);
    CHECK_EQ_INT(samrt_prompt_edt(m, 6, 4, s, n, d2, &at), 4);
    CHECK_EQ_INT(at, 1 * 6 + 1);
    free(s);
    /* tight box of T4's GT, inclusive, no +1 */
    uint8_t g[64];
    du_rect(g, 8, 8, 1, 3, 1, 3);
    float box[4];
    CHECK(samrt_prompt_box(g, 8, 8, box));
    CHECK(box[0] == 1 && box[1] == 1 && box[2] == 3 && box[3] == 3);
    du_rect(g, 8, 8, 2, 6, 0, 7);
    CHECK(samrt_prompt_box(g, 8, 8, box));
    CHECK(box[0] == 0 && box[1] == 2 && box[2] == 7 && box[3] == 6);
}

static void test_prompt_kinds(void) {
    uint8_t m[8 * 10];
    du_rect(m, 8, 10, 2, 5, 3, 8);
    size_t n = samrt_prompt_scratch_bytes(10, 8);
    void *s = malloc(n);
    struct samrt_prompt p;
    CHECK_STATUS(samrt_prompt_from_mask(SAMRT_PROMPT_BOX, m, 10, 8, s, n, &p), SAMRT_OK);
    CHECK(p.has_box && p.n_points == 0 && !p.empty);
    CHECK(p.box[0] == 3 && p.box[1] == 2 && p.box[2] == 8 && p.box[3] == 5);
    CHECK_STATUS(samrt_prompt_from_mask(SAMRT_PROMPT_MASK, m, 10, 8, s, n, &p), SAMRT_OK);
    CHECK(p.mask == m && p.width == 10 && p.height == 8 && !p.has_box && p.n_points == 0);
    /* empty mask: a negative click at (0,0) for points and boxes, no box */
    memset(m, 0, sizeof m);
    CHECK_STATUS(samrt_prompt_from_mask(SAMRT_PROMPT_POINTS, m, 10, 8, s, n, &p), SAMRT_OK);
    CHECK(p.empty && p.n_points == 1 && p.points[0].x == 0 && p.points[0].y == 0 &&
          p.points[0].label == SAMRT_LABEL_NEGATIVE);
    CHECK_STATUS(samrt_prompt_from_mask(SAMRT_PROMPT_BOX, m, 10, 8, s, n, &p), SAMRT_OK);
    CHECK(p.empty && !p.has_box && p.n_points == 1 && p.points[0].label == SAMRT_LABEL_NEGATIVE);
    CHECK(!samrt_prompt_box(m, 10, 8, p.box));
    CHECK_STATUS(samrt_prompt_from_mask(SAMRT_PROMPT_POINTS, m, 10, 8, s, n - 1, &p), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_prompt_from_mask((enum samrt_prompt_kind)9, m, 10, 8, s, n, &p), SAMRT_E_INVALID_ARG);
    free(s);
    enum samrt_prompt_kind k;
    CHECK_STATUS(samrt_prompt_parse_kind("points", &k), SAMRT_OK);
    CHECK(k == SAMRT_PROMPT_POINTS);
    CHECK_STATUS(samrt_prompt_parse_kind("bbox", &k), SAMRT_OK);
    CHECK(k == SAMRT_PROMPT_BOX);
    CHECK_STATUS(samrt_prompt_parse_kind("mask", &k), SAMRT_OK);
    CHECK(k == SAMRT_PROMPT_MASK);
    CHECK_STATUS(samrt_prompt_parse_kind("clicks", &k), SAMRT_E_INVALID_ARG);
    CHECK(!strcmp(samrt_prompt_kind_name(SAMRT_PROMPT_BOX), "bbox"));
}

/* Seeded random masks (blobs and noise) of odd shapes against brute force. */
static void test_edt_random(void) {
    static const int shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {7, 5}, {13, 17}, {31, 8}, {24, 40}};
    uint64_t rng = 12345;
    for (size_t si = 0; si < SAMRT_ARRAY_LEN(shapes); si++) {
        int w = shapes[si][0], h = shapes[si][1];
        for (int trial = 0; trial < 6; trial++) {
            uint8_t *m = (uint8_t *)malloc((size_t)w * h);
            int density = (int)(tu_rand_u32(&rng) % 100);
            for (int i = 0; i < w * h; i++) m[i] = (int)(tu_rand_u32(&rng) % 100) < density;
            if (trial == 0) memset(m, 1, (size_t)w * h);
            int64_t *d = (int64_t *)malloc((size_t)w * h * sizeof *d), *want = (int64_t *)malloc((size_t)w * h * sizeof *want);
            size_t n = samrt_prompt_scratch_bytes(w, h);
            void *s = malloc(n);
            long at = -1;
            int64_t mx = samrt_prompt_edt(m, w, h, s, n, d, &at);
            brute_edt(m, w, h, want);
            int64_t wmx = 0;
            long wat = 0;
            int bad = 0;
            for (int i = 0; i < w * h; i++) {
                bad += d[i] != want[i];
                if (want[i] > wmx) wmx = want[i], wat = i;
            }
            CHECK_MSG(bad == 0, "%dx%d trial %d: %d distances differ", w, h, trial, bad);
            CHECK_MSG(mx == wmx && at == wat, "%dx%d trial %d: max %lld at %ld, want %lld at %ld", w, h, trial,
                      (long long)mx, at, (long long)wmx, wat);
            free(m);
            free(d);
            free(want);
            free(s);
        }
    }
}

static void test_next_click(void) {
    enum { W = 12, H = 10 };
    uint8_t gt[W * H], pred[W * H];
    size_t n = samrt_prompt_scratch_bytes(W, H);
    void *s = malloc(n);
    struct samrt_point pt;
    /* the prediction misses a 5x5 block (depth 3) and adds a 3x3 one (depth 2): positive */
    du_rect(gt, H, W, 1, 5, 1, 5);
    memset(pred, 0, sizeof pred);
    for (int y = 6; y <= 8; y++)
        for (int x = 8; x <= 10; x++) pred[y * W + x] = 1;
    CHECK_STATUS(samrt_prompt_next_click(gt, pred, W, H, s, n, &pt), SAMRT_OK);
    CHECK(pt.label == SAMRT_LABEL_POSITIVE && pt.x == 3 && pt.y == 3);
    /* swap roles: the spurious block is deeper: negative at its centre */
    CHECK_STATUS(samrt_prompt_next_click(pred, gt, W, H, s, n, &pt), SAMRT_OK);
    CHECK(pt.label == SAMRT_LABEL_NEGATIVE && pt.x == 3 && pt.y == 3);
    /* equal depths: not strictly deeper, so negative */
    du_rect(gt, H, W, 1, 3, 1, 3);
    du_rect(pred, H, W, 6, 8, 6, 8);
    CHECK_STATUS(samrt_prompt_next_click(gt, pred, W, H, s, n, &pt), SAMRT_OK);
    CHECK(pt.label == SAMRT_LABEL_NEGATIVE && pt.x == 7 && pt.y == 7);
    /* a perfect prediction: both error maps empty, negative at (0,0) */
    CHECK_STATUS(samrt_prompt_next_click(gt, gt, W, H, s, n, &pt), SAMRT_OK);
    CHECK(pt.label == SAMRT_LABEL_NEGATIVE && pt.x == 0 && pt.y == 0);
    CHECK_STATUS(samrt_prompt_next_click(gt, pred, W, H, s, n - 1, &pt), SAMRT_E_INVALID_ARG);
    free(s);
}

int main(void) {
    test_spec_clicks();
    test_edt_random();
    test_next_click();
    du_quiet(1);
    test_prompt_kinds();
    du_quiet(0);
    return check_report("test_prompts");
}
