/* test_eval.c - harness/eval against every test vector of eval-spec section 6 (T1-T9, the
 * seg2bmap and radius checks), compared for exact equality of the doubles (printed with
 * %.17g when they differ). The expected doubles were produced by the reference
 * sav_benchmark.py (numpy/OpenCV/scikit-image) on the same masks; the mean checks by numpy.
 * Then the bad-input paths the reference crashes on: missing prediction, three-valued and RGB
 * PNGs, size mismatch, objects with nothing to score, --strict, --videos. */
#include "eval.h"

#include "check.h"
#include "data_util.h"
#include "image_io.h"

#define CHECK_EXACT(got, want)                                                                     \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        CHECK_MSG(g_ == w_, "%s = %.17g, want %.17g", #got, g_, w_);                               \
    } while (0)

static char g_tmp[512];

/* J and F of one frame of rect masks: gt rect (r0,r1,c0,c1) and pred rect, -1 = empty. */
static struct samrt_eval_frame frame_of(int h, int w, const int *g, const int *p) {
    uint8_t *gm = (uint8_t *)calloc((size_t)h * w, 1), *pm = (uint8_t *)calloc((size_t)h * w, 1);
    if (g) du_rect(gm, h, w, g[0], g[1], g[2], g[3]);
    if (p) du_rect(pm, h, w, p[0], p[1], p[2], p[3]);
    size_t n = samrt_eval_scratch_bytes(w, h);
    void *scratch = malloc(n);
    memset(scratch, 0xCD, n);   /* poisoned: every byte used must be written first */
    struct samrt_eval_frame fr;
    CHECK_STATUS(samrt_eval_frame(gm, pm, w, h, scratch, n, &fr), SAMRT_OK);
    free(scratch);
    free(gm);
    free(pm);
    return fr;
}

static void test_radius(void) {
    static const int t[][3] = {{1, 1, 1},     {4, 4, 1},     {60, 80, 1},     {75, 100, 1},     {100, 75, 1},
                               {76, 100, 2},  {150, 200, 2}, {300, 400, 4},   {480, 854, 8},    {480, 848, 8},
                               {720, 1280, 12}, {750, 1000, 10}, {1080, 1920, 18}, {2160, 3840, 36}};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(t); i++)
        CHECK_MSG(samrt_eval_radius(t[i][0], t[i][1]) == t[i][2], "radius(%dx%d) = %d, want %d", t[i][0], t[i][1],
                  samrt_eval_radius(t[i][0], t[i][1]), t[i][2]);
    /* the integer rule "smallest r with (125 r)^2 >= H^2 + W^2" agrees everywhere tested */
    int bad = 0;
    for (int h = 1; h <= 600; h += 7)
        for (int w = 1; w <= 2000; w += 3) {
            long long d2 = (long long)h * h + (long long)w * w;
            int r = 0;
            while ((long long)(125 * r) * (125 * r) < d2) r++;
            bad += samrt_eval_radius(h, w) != r;
        }
    CHECK_EQ_INT(bad, 0);
}

static void test_seg2bmap(void) {
    uint8_t m[25], b[25];
    du_rect(m, 5, 5, 2, 2, 2, 2);   /* single pixel at (2,2): the 2x2 block up and left */
    CHECK_EQ_INT(samrt_eval_seg2bmap(m, 5, 5, b), 4);
    CHECK(b[1 * 5 + 1] && b[1 * 5 + 2] && b[2 * 5 + 1] && b[2 * 5 + 2]);
    du_rect(m, 5, 5, 1, 2, 1, 2);
    CHECK_EQ_INT(samrt_eval_seg2bmap(m, 5, 5, b), 8);
    memset(m, 1, sizeof m);
    CHECK_EQ_INT(samrt_eval_seg2bmap(m, 5, 5, b), 0);
    /* T6's bottom-right square: the last row compares east only, the last column south only */
    uint8_t m4[16], b4[16];
    du_rect(m4, 4, 4, 2, 3, 2, 3);
    CHECK_EQ_INT(samrt_eval_seg2bmap(m4, 4, 4, b4), 5);
    static const int want[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 1}, {3, 1}};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(want); i++) CHECK(b4[want[i][0] * 4 + want[i][1]]);
    /* 1-pixel-wide images: only the east or south comparison exists */
    uint8_t row[5] = {0, 1, 1, 0, 1}, brow[5];
    CHECK_EQ_INT(samrt_eval_seg2bmap(row, 5, 1, brow), 3);   /* (0,0), (0,2), (0,3); last pixel never */
    CHECK(brow[0] && !brow[1] && brow[2] && brow[3] && !brow[4]);
    CHECK_EQ_INT(samrt_eval_seg2bmap(row, 1, 5, brow), 3);
}

static void test_frames(void) {
    /* T1 identical */
    int t1[] = {1, 2, 1, 2};
    struct samrt_eval_frame f = frame_of(6, 6, t1, t1);
    CHECK_EXACT(f.j, 1.0);
    CHECK_EXACT(f.f, 1.0);
    CHECK_EQ_INT(f.nb_gt, 8);
    CHECK_EQ_INT(f.radius, 1);
    /* T2 both empty */
    f = frame_of(6, 6, NULL, NULL);
    CHECK_EXACT(f.j, 1.0);
    CHECK_EXACT(f.f, 1.0);
    /* T3 GT only */
    f = frame_of(6, 6, t1, NULL);
    CHECK_EXACT(f.j, 0.0);
    CHECK_EXACT(f.f, 0.0);
    CHECK_EXACT(f.precision, 1.0);
    CHECK_EXACT(f.recall, 0.0);
    /* T4 shift by 2 px, r = 1 */
    int t4g[] = {1, 3, 1, 3}, t4p[] = {1, 3, 3, 5};
    f = frame_of(8, 8, t4g, t4p);
    CHECK_EXACT(f.j, 0.2);
    CHECK_EXACT(f.precision, 8.0 / 12.0);
    CHECK_EXACT(f.recall, 8.0 / 12.0);
    CHECK_EXACT(f.f, 0.6666666666666666);
    CHECK_EQ_INT(f.nb_gt, 12);
    CHECK_EQ_INT(f.nb_pred, 12);
    /* T4b shift by 1 */
    int t4bp[] = {1, 3, 2, 4};
    f = frame_of(6, 6, t4g, t4bp);
    CHECK_EXACT(f.j, 0.5);
    CHECK_EXACT(f.f, 1.0);
    /* T5 full GT vs full-minus-a-hole; T5b full vs empty */
    uint8_t full[25], hole[25], emp[25] = {0};
    memset(full, 1, sizeof full);
    memcpy(hole, full, sizeof hole);
    hole[2 * 5 + 2] = 0;
    void *s = malloc(samrt_eval_scratch_bytes(5, 5));
    CHECK_STATUS(samrt_eval_frame(full, hole, 5, 5, s, samrt_eval_scratch_bytes(5, 5), &f), SAMRT_OK);
    CHECK_EXACT(f.j, 0.96);
    CHECK_EXACT(f.f, 0.0);
    CHECK_EQ_INT(f.nb_gt, 0);
    CHECK_EQ_INT(f.nb_pred, 4);
    CHECK_STATUS(samrt_eval_frame(full, emp, 5, 5, s, samrt_eval_scratch_bytes(5, 5), &f), SAMRT_OK);
    CHECK_EXACT(f.j, 0.0);
    CHECK_EXACT(f.f, 1.0);
    CHECK_STATUS(samrt_eval_frame(full, full, 5, 5, s, samrt_eval_scratch_bytes(5, 5), &f), SAMRT_OK);
    CHECK_EXACT(f.j, 1.0);
    CHECK_EXACT(f.f, 1.0);
    CHECK_STATUS(samrt_eval_frame(full, full, 5, 5, s, samrt_eval_scratch_bytes(5, 5) - 1, &f), SAMRT_E_INVALID_ARG);
    free(s);
    /* T6 opposite corners: the reference double is 0.7499999999999999, not 0.75 */
    int t6g[] = {2, 3, 2, 3}, t6p[] = {0, 1, 0, 1};
    f = frame_of(4, 4, t6g, t6p);
    CHECK_EXACT(f.j, 0.0);
    CHECK_EXACT(f.precision, 1.0);
    CHECK_EXACT(f.recall, 0.6);
    CHECK_EXACT(f.f, 0.7499999999999999);
    CHECK_EQ_INT(f.nb_gt, 5);
    CHECK_EQ_INT(f.nb_pred, 3);
    /* T7 the radius depends on the canvas: 75x100 and 100x75 give r = 1, 76x100 gives 2 */
    f = frame_of(75, 100, t4g, t4p);
    CHECK_EQ_INT(f.radius, 1);
    CHECK_EXACT(f.j, 0.2);
    CHECK_EXACT(f.f, 0.6666666666666666);
    f = frame_of(100, 75, t4g, t4p);
    CHECK_EQ_INT(f.radius, 1);
    CHECK_EXACT(f.f, 0.6666666666666666);
    f = frame_of(76, 100, t4g, t4p);
    CHECK_EQ_INT(f.radius, 2);
    CHECK_EXACT(f.j, 0.2);
    CHECK_EXACT(f.f, 1.0);
}

/* T8: the "seen" rule. */
static void test_sequence(void) {
    int a[] = {2, 3, 2, 3};
    struct samrt_eval_frame fr[4] = {frame_of(8, 8, NULL, NULL), frame_of(8, 8, NULL, a), frame_of(8, 8, a, a),
                                     frame_of(8, 8, NULL, NULL)};
    double jv[4], fv[4], J = -1, F = -1;
    struct samrt_eval_seq s;
    samrt_eval_seq_init(&s, jv, fv, 4);
    for (int i = 0; i < 4; i++) CHECK_STATUS(samrt_eval_seq_feed(&s, &fr[i]), SAMRT_OK);
    CHECK_EQ_INT(s.n, 3);
    CHECK(samrt_eval_seq_conclude(&s, &J, &F));
    CHECK_EXACT(J, 66.66666666666666);
    CHECK_EXACT(F, 66.66666666666666);
    /* one both-empty frame on a fresh object counts nothing */
    samrt_eval_seq_init(&s, jv, fv, 4);
    CHECK_STATUS(samrt_eval_seq_feed(&s, &fr[0]), SAMRT_OK);
    CHECK_EQ_INT(s.n, 0);
    CHECK(!samrt_eval_seq_conclude(&s, &J, &F));
    /* GT empty in every frame (prediction not): no entry */
    samrt_eval_seq_init(&s, jv, fv, 4);
    CHECK_STATUS(samrt_eval_seq_feed(&s, &fr[0]), SAMRT_OK);
    CHECK_STATUS(samrt_eval_seq_feed(&s, &fr[1]), SAMRT_OK);
    CHECK_STATUS(samrt_eval_seq_feed(&s, &fr[3]), SAMRT_OK);
    CHECK(!samrt_eval_seq_conclude(&s, &J, &F));
    /* more frames than declared is refused */
    samrt_eval_seq_init(&s, jv, fv, 1);
    CHECK_STATUS(samrt_eval_seq_feed(&s, &fr[2]), SAMRT_OK);
    CHECK_STATUS(samrt_eval_seq_feed(&s, &fr[2]), SAMRT_E_INVALID_ARG);
}

/* numpy.mean of x_i = 1/(i+3): pairwise summation, whose last bits differ from a plain sum
 * from n = 8 on. */
static void test_mean(void) {
    static const struct {
        int n;
        double want;
    } t[] = {{1, 0.3333333333333333},    {5, 0.21857142857142856},   {7, 0.18985260770975057},
             {8, 0.17862103174603172},   {9, 0.16887526054192717},   {16, 0.1246942548872696},
             {17, 0.12045527394962836},  {100, 0.03707082429307257}, {128, 0.030848369830202938},
             {129, 0.030668410279474697}, {300, 0.01596432465904621}, {1000, 0.0059874678655413615}};
    double x[1000];
    for (int i = 0; i < 1000; i++) x[i] = 1.0 / (double)(i + 3);
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(t); i++) CHECK_EXACT(samrt_eval_mean(x, (size_t)t[i].n), t[i].want);
}

/* ---- the end-to-end split (T9) and the bad-input paths ---------------------------------- */

static uint8_t g_pal[256 * 3];

/* Writes a mask file: GT as 0/1 palette PNG, predictions as 0/255 gray (both encodings). */
static void put(const char *root, const char *rel, int h, int w, const int *r, int gray) {
    char path[1024], dir[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            du_mkdir(dir);
            *p = '/';
        }
    uint8_t *m = (uint8_t *)calloc((size_t)h * w, 1);
    if (r) du_rect(m, h, w, r[0], r[1], r[2], r[3]);
    if (gray) {
        for (int i = 0; i < h * w; i++) m[i] *= 255;
        CHECK_STATUS(samrt_png_write_gray8(path, m, w, h), SAMRT_OK);
    } else {
        CHECK_STATUS(samrt_png_write_palette8(path, m, w, h, g_pal, 2), SAMRT_OK);
    }
    free(m);
}

static void build_t9(const char *gt, const char *pr) {
    int a0[] = {2, 4, 2, 4}, a2[] = {1, 3, 1, 3}, a2p[] = {1, 3, 3, 5}, b[] = {5, 6, 5, 6}, v[] = {2, 3, 2, 3},
        v6[] = {0, 1, 0, 1};
    const int *gA0[5] = {a0, NULL, a2, NULL, a0}, *gA1[5] = {b, b, b, NULL, NULL};
    char rel[256];
    for (int i = 0; i < 5; i++) {
        snprintf(rel, sizeof rel, "vidA/000/%05d.png", 4 * i);
        put(gt, rel, 8, 8, gA0[i], 0);
        snprintf(rel, sizeof rel, "vidA/001/%05d.png", 4 * i);
        put(gt, rel, 8, 8, gA1[i], 0);
    }
    for (int i = 0; i < 3; i++) {
        snprintf(rel, sizeof rel, "vidB/000/%05d.png", 4 * i);
        put(gt, rel, 4, 4, v, 0);
    }
    put(pr, "vidA/000/00004.png", 8, 8, NULL, 1);
    put(pr, "vidA/000/00008.png", 8, 8, a2p, 1);
    put(pr, "vidA/000/00012.png", 8, 8, NULL, 1);
    put(pr, "vidA/001/00004.png", 8, 8, NULL, 1);
    put(pr, "vidA/001/00008.png", 8, 8, b, 1);
    put(pr, "vidA/001/00012.png", 8, 8, b, 1);
    put(pr, "vidB/000/00004.png", 4, 4, v6, 1);
}

static enum samrt_status run(const char *gt, const char *pr, struct samrt_eval_opts *o, struct samrt_eval_result *r) {
    o->gt_root = gt;
    o->pred_root = pr;
    return samrt_eval_run(o, r);
}

static void test_t9(void) {
    char gt[600], pr[600];
    snprintf(gt, sizeof gt, "%s/t9gt", g_tmp);
    snprintf(pr, sizeof pr, "%s/t9pred", g_tmp);
    du_mkdir(gt);
    du_mkdir(pr);
    build_t9(gt, pr);
    static const char want_csv[] = "sequence    ,obj,  J&F,    J,    F\n"
                                   "Global score,   , 47.5, 31.1, 63.9\n"
                                   "vidA        ,000, 71.7, 60.0, 83.3\n"
                                   "vidA        ,001, 33.3, 33.3, 33.3\n"
                                   "vidB        ,000, 37.5,  0.0, 75.0\n";
    for (int threads = 1; threads <= 3; threads += 2) {
        struct samrt_eval_opts o = samrt_eval_default_opts();
        o.n_threads = threads;
        struct samrt_eval_result r;
        CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_OK);
        CHECK_EQ_INT(r.n_rows, 3);
        CHECK_EQ_INT(r.n_videos, 2);
        if (r.n_rows == 3) {
            CHECK_EXACT(r.rows[0].j, 60.0);
            CHECK_EXACT(r.rows[0].f, 83.33333333333333);
            CHECK_EXACT(r.rows[0].jf, 71.66666666666666);
            CHECK_EXACT(r.rows[1].j, 33.33333333333333);
            CHECK_EXACT(r.rows[1].f, 33.33333333333333);
            CHECK_EXACT(r.rows[2].j, 0.0);
            CHECK_EXACT(r.rows[2].f, 74.99999999999999);
            CHECK_EXACT(r.rows[2].jf, 37.49999999999999);
            CHECK_EQ_INT(r.rows[0].n_counted, 2);   /* 00004 is before the object is seen */
        }
        CHECK_EXACT(r.j, 31.11111111111111);
        CHECK_EXACT(r.f, 63.88888888888888);
        CHECK_EXACT(r.jf, 47.49999999999999);
        char *csv = NULL;
        CHECK_STATUS(samrt_eval_csv(&r, &csv), SAMRT_OK);
        CHECK_MSG(csv && !strcmp(csv, want_csv), "csv:\n%s", csv ? csv : "(null)");
        free(csv);
        samrt_eval_result_free(&r);
    }
    /* the split folder is accepted too when it holds Annotations_6fps */
    char split[600], ann[700];
    snprintf(split, sizeof split, "%s/split", g_tmp);
    snprintf(ann, sizeof ann, "%s/Annotations_6fps", split);
    du_mkdir(split);
    CHECK(rename(gt, ann) == 0);
    struct samrt_eval_opts o = samrt_eval_default_opts();
    struct samrt_eval_result r;
    CHECK_STATUS(run(split, pr, &o, &r), SAMRT_OK);
    CHECK_EXACT(r.jf, 47.49999999999999);
    samrt_eval_result_free(&r);
    /* --do_not_skip_first_and_last_frame opens the first and last frames: missing here */
    o = samrt_eval_default_opts();
    o.keep_first_last = 1;
    CHECK_STATUS(run(ann, pr, &o, &r), SAMRT_E_IO);
    samrt_eval_result_free(&r);
    /* --videos */
    o = samrt_eval_default_opts();
    o.videos = "vidB";
    CHECK_STATUS(run(ann, pr, &o, &r), SAMRT_OK);
    CHECK_EQ_INT(r.n_rows, 1);
    CHECK_EXACT(r.f, 74.99999999999999);
    samrt_eval_result_free(&r);
    o.videos = "vidC";
    CHECK_STATUS(run(ann, pr, &o, &r), SAMRT_E_INVALID_ARG);
    samrt_eval_result_free(&r);
    CHECK(rename(ann, gt) == 0);
}

/* A one-object split in its own folders; returns the roots. */
static void fresh(const char *tag, char *gt, char *pr, size_t len) {
    snprintf(gt, len, "%s/%s_gt", g_tmp, tag);
    snprintf(pr, len, "%s/%s_pred", g_tmp, tag);
    du_mkdir(gt);
    du_mkdir(pr);
}

static void test_bad_inputs(void) {
    int a[] = {1, 2, 1, 2};
    char gt[600], pr[600], path[900];
    struct samrt_eval_opts o = samrt_eval_default_opts();
    struct samrt_eval_result r;

    /* missing prediction file */
    fresh("missing", gt, pr, sizeof gt);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "v/000/%05d.png", 4 * i);
        put(gt, path, 6, 6, a, 0);
    }
    put(pr, "v/000/00004.png", 6, 6, a, 1);
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_E_IO);
    samrt_eval_result_free(&r);
    put(pr, "v/000/00008.png", 6, 6, a, 1);
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_OK);
    CHECK_EXACT(r.j, 100.0);
    samrt_eval_result_free(&r);

    /* three values in a prediction, an RGB prediction, a size mismatch */
    uint8_t three[36] = {0};
    three[0] = 1, three[1] = 255;
    snprintf(path, sizeof path, "%s/v/000/00008.png", pr);
    CHECK_STATUS(samrt_png_write_gray8(path, three, 6, 6), SAMRT_OK);
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_E_FORMAT);
    samrt_eval_result_free(&r);
    uint16_t rgb[6 * 6 * 3] = {0};
    CHECK(du_write_png_raw(path, 6, 6, 8, 2, 0, rgb) == 0);
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_E_FORMAT);
    samrt_eval_result_free(&r);
    put(pr, "v/000/00008.png", 7, 6, a, 1);
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_E_FORMAT);
    samrt_eval_result_free(&r);
    /* {3,7} in 16-bit gray is legal and all foreground: a 6x6 full prediction */
    uint16_t s37[36];
    for (int i = 0; i < 36; i++) s37[i] = i % 2 ? 3 : 7;
    CHECK(du_write_png_raw(path, 6, 6, 16, 0, 0, s37) == 0);
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_OK);
    CHECK_EXACT(r.j, (1.0 + 4.0 / 36.0) / 2 * 100);
    samrt_eval_result_free(&r);

    /* an object whose GT is empty in every evaluated frame; and one with 2 frames */
    fresh("uneval", gt, pr, sizeof gt);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "v/000/%05d.png", 4 * i);
        put(gt, path, 6, 6, i == 0 ? a : NULL, 0);
        snprintf(path, sizeof path, "v/001/%05d.png", 4 * i);
        put(gt, path, 6, 6, a, 0);
        if (i == 1 || i == 2) {
            snprintf(path, sizeof path, "v/000/%05d.png", 4 * i);
            put(pr, path, 6, 6, a, 1);
            snprintf(path, sizeof path, "v/001/%05d.png", 4 * i);
            put(pr, path, 6, 6, a, 1);
        }
        if (i < 2) {
            snprintf(path, sizeof path, "v/7/%05d.png", 4 * i);
            put(gt, path, 6, 6, a, 0);
        }
    }
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_E_FORMAT);
    CHECK_EQ_INT(r.n_unevaluable, 2);
    samrt_eval_result_free(&r);
    o.skip_unevaluable = 1;
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_OK);
    CHECK_EQ_INT(r.n_rows, 1);
    CHECK_EQ_INT(r.n_unevaluable, 2);
    samrt_eval_result_free(&r);
    o.skip_unevaluable = 0;
    /* with every frame kept, object 7 (2 frames) has frames to score; its short name is
     * printed the way Python's f"{'7':03}" does it: "700" */
    fresh("short", gt, pr, sizeof gt);
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "v/7/%05d.png", 4 * i);
        put(gt, path, 6, 6, a, 0);
        put(pr, path, 6, 6, a, 1);
    }
    o.keep_first_last = 1;
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_OK);
    char *csv = NULL;
    CHECK_STATUS(samrt_eval_csv(&r, &csv), SAMRT_OK);
    CHECK_MSG(csv && strstr(csv, "\nv           ,700, 100.0, 100.0, 100.0\n"), "csv:\n%s", csv ? csv : "");
    free(csv);
    samrt_eval_result_free(&r);
    o.keep_first_last = 0;

    /* strict and non-strict video sets */
    fresh("sets", gt, pr, sizeof gt);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "a/000/%05d.png", 4 * i);
        put(gt, path, 6, 6, a, 0);
        snprintf(path, sizeof path, "b/000/%05d.png", 4 * i);
        put(gt, path, 6, 6, a, 0);
    }
    put(pr, "a/000/00004.png", 6, 6, a, 1);
    put(pr, "c/000/00004.png", 6, 6, a, 1);
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_OK);
    CHECK_EQ_INT(r.n_videos, 1);
    CHECK_EQ_INT(r.n_skipped, 1);
    CHECK_EQ_INT(r.n_gt_videos, 2);
    samrt_eval_result_free(&r);
    o.strict = 1;
    CHECK_STATUS(run(gt, pr, &o, &r), SAMRT_E_FORMAT);
    CHECK(r.strict_failed);
    CHECK(r.n_gt_only == 1 && !strcmp(r.gt_only[0], "b"));
    CHECK(r.n_pred_only == 1 && !strcmp(r.pred_only[0], "c"));
    samrt_eval_result_free(&r);
    o.strict = 0;
    /* a prediction root that does not exist */
    o.gt_root = gt;
    o.pred_root = "/nonexistent/samrt/pred";
    CHECK_STATUS(samrt_eval_run(&o, &r), SAMRT_E_IO);
    samrt_eval_result_free(&r);
}

int main(void) {
    if (du_tmpdir("eval", g_tmp, sizeof g_tmp) != 0) return check_skip("test_eval", "no temp folder");
    samrt_palette_davis(g_pal);
    test_radius();
    test_seg2bmap();
    test_frames();
    test_sequence();
    test_mean();
    test_t9();
    du_quiet(1);   /* the bad inputs log their errors */
    test_bad_inputs();
    du_quiet(0);
    du_rmtree(g_tmp);
    return check_report("test_eval");
}
