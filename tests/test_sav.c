/* test_sav.c - harness/sav: the SA-V reader on small splits written by synth and edited by
 * hand (numbering, sorting, annotated frames, selection and shards, the split list), every
 * bad input of eval-spec 1.6 / 7 (missing frames, RGB or three-valued masks, size mismatch,
 * all-empty objects, missing first-frame masks, stray files, missing folders), the PNG mask
 * rules of eval-spec 6, and the prefetching frame streamer (order, pixels, ring limits,
 * errors mid-stream, early close). */
#include "sav.h"

#include "check.h"
#include "data_util.h"
#include "frame_decode_util.h"
#include "image_io.h"
#include "synth.h"

static char g_tmp[512];
static int g_case = 0;

/* A fresh split <tmp>/<n>/sav_val from synth: n_videos x n_frames, 2 objects, 48x32. */
static void make_split(char *root, size_t len, int n_videos, int n_frames) {
    char dir[600];
    snprintf(dir, sizeof dir, "%s/%d", g_tmp, g_case++);
    du_mkdir(dir);
    snprintf(root, len, "%s/sav_val", dir);
    struct samrt_synth_params p = samrt_synth_default_params();
    p.n_videos = n_videos;
    p.n_frames = n_frames;
    p.n_objects = 2;
    p.width = 48;
    p.height = 32;
    p.seed = 3;
    CHECK_STATUS(samrt_synth_write(root, &p, 0), SAMRT_OK);
}

static enum samrt_status open_sel(const char *root, struct samrt_sav_select sel, struct samrt_sav_split *s) {
    return samrt_sav_open(root, &sel, s);
}

static void test_basic(void) {
    char root[700];
    make_split(root, sizeof root, 4, 9);
    struct samrt_sav_select sel = samrt_sav_default_select();
    sel.validate_masks = 1;
    struct samrt_sav_split s;
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    CHECK_EQ_INT(s.n_videos, 4);
    CHECK_EQ_INT(s.n_videos_total, 4);
    for (int v = 0; v < s.n_videos; v++) {
        const struct samrt_sav_video *vid = &s.videos[v];
        char want[32];
        snprintf(want, sizeof want, "synth_%03d", v);
        CHECK(!strcmp(vid->name, want));
        CHECK_EQ_INT(vid->width, 48);
        CHECK_EQ_INT(vid->height, 32);
        CHECK_EQ_INT(vid->n_frames, 9);
        for (int i = 0; i < vid->n_frames; i++) CHECK_EQ_INT(vid->frames[i].number, i);
        CHECK(!strcmp(vid->frames[8].name, "00008.jpg"));
        CHECK_EQ_INT(vid->n_objects, 2);
        for (int o = 0; o < vid->n_objects; o++) {
            CHECK_EQ_INT(vid->objects[o].id, o);
            CHECK_EQ_INT(vid->objects[o].n_anns, 3);   /* frames 0, 4, 8: every 4th */
            for (int a = 0; a < 3; a++) CHECK_EQ_INT(vid->objects[o].anns[a].frame, 4 * a);
        }
        CHECK(strstr(vid->jpeg_dir, "JPEGImages_24fps/") && strstr(vid->ann_dir, "Annotations_6fps/"));
    }
    char path[1024];
    samrt_sav_ann_path(&s.videos[1], &s.videos[1].objects[1], 2, path, sizeof path);
    CHECK(strstr(path, "Annotations_6fps/synth_001/001/00008.png") != NULL);
    samrt_sav_free(&s);
    samrt_sav_free(&s);   /* a second free is harmless */
}

static int names_are(const struct samrt_sav_split *s, const char *a, const char *b, const char *c) {
    const char *want[3] = {a, b, c};
    int n = (a != NULL) + (b != NULL) + (c != NULL);
    if (s->n_videos != n) return 0;
    for (int i = 0; i < n; i++)
        if (strcmp(s->videos[i].name, want[i])) return 0;
    return 1;
}

static void test_selection(void) {
    char root[700];
    make_split(root, sizeof root, 4, 5);
    struct samrt_sav_split s;
    struct samrt_sav_select sel = samrt_sav_default_select();
    sel.limit_videos = 2;
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    CHECK(names_are(&s, "synth_000", "synth_001", NULL));
    samrt_sav_free(&s);
    sel = samrt_sav_default_select();
    sel.videos = "synth_003, synth_001";   /* split order, not list order */
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    CHECK(names_are(&s, "synth_001", "synth_003", NULL));
    samrt_sav_free(&s);
    sel = samrt_sav_default_select();
    sel.shard_k = 1, sel.shard_n = 2;
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    CHECK(names_are(&s, "synth_001", "synth_003", NULL));
    samrt_sav_free(&s);
    sel.shard_k = 0, sel.shard_n = 3;
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    CHECK(names_are(&s, "synth_000", "synth_003", NULL));
    samrt_sav_free(&s);
    sel.limit_videos = 1;   /* the limit applies after the shard */
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    CHECK(names_are(&s, "synth_000", NULL, NULL));
    samrt_sav_free(&s);
    sel = samrt_sav_default_select();
    sel.videos = "synth_002,synth_003";
    sel.shard_k = 1, sel.shard_n = 2;   /* the shard applies after --videos */
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    CHECK(names_are(&s, "synth_003", NULL, NULL));
    samrt_sav_free(&s);
    sel = samrt_sav_default_select();
    sel.limit_objects = 1;
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    CHECK(s.n_videos == 4 && s.videos[0].n_objects == 1 && !strcmp(s.videos[0].objects[0].name, "000"));
    samrt_sav_free(&s);
    sel = samrt_sav_default_select();
    sel.videos = "synth_001,nope";
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_E_INVALID_ARG);
    sel = samrt_sav_default_select();
    sel.shard_k = 3, sel.shard_n = 3;
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_E_INVALID_ARG);
    sel = samrt_sav_default_select();
    sel.shard_k = 7, sel.shard_n = 8;   /* 4 videos: shard 7 is empty */
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_E_INVALID_ARG);

    int k = -1, n = -1;
    CHECK_STATUS(samrt_sav_parse_shard("1/4", &k, &n), SAMRT_OK);
    CHECK(k == 1 && n == 4);
    CHECK_STATUS(samrt_sav_parse_shard("4/4", &k, &n), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_sav_parse_shard("a/b", &k, &n), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_sav_parse_shard("1", &k, &n), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_sav_parse_shard("-1/3", &k, &n), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_sav_parse_shard("0/0", &k, &n), SAMRT_E_INVALID_ARG);
}

static void test_split_list(void) {
    char root[700], txt[800];
    make_split(root, sizeof root, 3, 5);
    snprintf(txt, sizeof txt, "%s/sav_val.txt", root);
    /* stripped lines, blanks skipped, list order kept */
    const char *list = "  synth_002 \n\n\tsynth_000\r\n";
    CHECK(du_write_file(txt, list, strlen(list)) == 0);
    struct samrt_sav_split s;
    CHECK_STATUS(open_sel(root, samrt_sav_default_select(), &s), SAMRT_OK);
    CHECK(names_are(&s, "synth_002", "synth_000", NULL));
    CHECK_EQ_INT(s.n_videos_total, 2);
    samrt_sav_free(&s);
    list = "synth_001\nsynth_001\n";
    CHECK(du_write_file(txt, list, strlen(list)) == 0);
    CHECK_STATUS(open_sel(root, samrt_sav_default_select(), &s), SAMRT_E_FORMAT);
    list = "synth_001\nsynth_009\n";   /* listed but absent: only an error when selected */
    CHECK(du_write_file(txt, list, strlen(list)) == 0);
    CHECK_STATUS(open_sel(root, samrt_sav_default_select(), &s), SAMRT_E_FORMAT);
    struct samrt_sav_select sel = samrt_sav_default_select();
    sel.limit_videos = 1;
    CHECK_STATUS(open_sel(root, sel, &s), SAMRT_OK);
    samrt_sav_free(&s);
    /* no list: the sorted folders */
    CHECK(remove(txt) == 0);
    CHECK_STATUS(open_sel(root, samrt_sav_default_select(), &s), SAMRT_OK);
    CHECK(names_are(&s, "synth_000", "synth_001", "synth_002"));
    samrt_sav_free(&s);
    /* a split folder that is not one */
    char bad[800];
    snprintf(bad, sizeof bad, "%s/JPEGImages_24fps", root);
    CHECK_STATUS(open_sel(bad, samrt_sav_default_select(), &s), SAMRT_E_FORMAT);
    snprintf(bad, sizeof bad, "%s/does_not_exist", root);
    CHECK_STATUS(open_sel(bad, samrt_sav_default_select(), &s), SAMRT_E_IO);
}

/* Opens root with only `video` selected (and validate as given). */
static enum samrt_status open_one(const char *root, const char *video, int validate, int skip_empty,
                                  struct samrt_sav_split *s) {
    struct samrt_sav_select sel = samrt_sav_default_select();
    sel.videos = video;
    sel.validate_masks = validate;
    sel.skip_empty_objects = skip_empty;
    enum samrt_status st = samrt_sav_open(root, &sel, s);
    if (st == SAMRT_OK) samrt_sav_free(s);
    return st;
}

static void put_mask(const char *root, const char *rel, int w, int h, uint8_t value_fg, const uint8_t *m) {
    char path[1024];
    snprintf(path, sizeof path, "%s/Annotations_6fps/%s", root, rel);
    uint8_t *px = (uint8_t *)malloc((size_t)w * h);
    for (int i = 0; i < w * h; i++) px[i] = m && m[i] ? value_fg : 0;
    CHECK_STATUS(samrt_png_write_gray8(path, px, w, h), SAMRT_OK);
    free(px);
}

static void test_bad_frames(void) {
    char root[700], path[1024];
    struct samrt_sav_split s;
    make_split(root, sizeof root, 2, 9);
    /* a missing frame: an error for that video only */
    snprintf(path, sizeof path, "%s/JPEGImages_24fps/synth_000/00003.jpg", root);
    CHECK(remove(path) == 0);
    CHECK_STATUS(open_one(root, "synth_000", 0, 0, &s), SAMRT_E_FORMAT);
    CHECK_STATUS(open_one(root, "synth_001", 0, 0, &s), SAMRT_OK);
    /* non-JPEG files are ignored; a JPEG whose name is not a number is an error */
    snprintf(path, sizeof path, "%s/JPEGImages_24fps/synth_001/notes.txt", root);
    CHECK(du_write_file(path, "x", 1) == 0);
    CHECK_STATUS(open_one(root, "synth_001", 0, 0, &s), SAMRT_OK);
    snprintf(path, sizeof path, "%s/JPEGImages_24fps/synth_001/cover.jpg", root);
    CHECK(du_write_file(path, "x", 1) == 0);
    CHECK_STATUS(open_one(root, "synth_001", 0, 0, &s), SAMRT_E_FORMAT);
    CHECK(remove(path) == 0);
    /* two files with the same frame number */
    snprintf(path, sizeof path, "%s/JPEGImages_24fps/synth_001/0001.jpg", root);
    CHECK(du_write_file(path, "x", 1) == 0);
    CHECK_STATUS(open_one(root, "synth_001", 0, 0, &s), SAMRT_E_FORMAT);
    CHECK(remove(path) == 0);
    /* an empty frame folder, a missing one */
    struct samrt_sav_jpeg *fr;
    int n;
    snprintf(path, sizeof path, "%s/empty_dir", root);
    du_mkdir(path);
    CHECK_STATUS(samrt_sav_list_jpegs(path, &fr, &n), SAMRT_E_FORMAT);
    snprintf(path, sizeof path, "%s/JPEGImages_24fps/synth_001", root);
    CHECK_STATUS(samrt_sav_list_jpegs(path, &fr, &n), SAMRT_OK);
    CHECK_EQ_INT(n, 9);
    samrt_sav_free_jpegs(fr, n);
    snprintf(path, sizeof path, "%s/JPEGImages_24fps/synth_001", root);
    char moved[1100];
    snprintf(moved, sizeof moved, "%s_moved", path);
    CHECK(rename(path, moved) == 0);
    CHECK_STATUS(open_one(root, "synth_001", 0, 0, &s), SAMRT_E_FORMAT);
    CHECK(rename(moved, path) == 0);
}

static void test_bad_masks(void) {
    char root[700], path[1024];
    struct samrt_sav_split s;
    make_split(root, sizeof root, 1, 9);
    const char *v = "synth_000";
    uint8_t m[48 * 32];
    for (int i = 0; i < 48 * 32; i++) m[i] = (uint8_t)(i % 3);
    /* an annotation without a JPEG of the same stem */
    put_mask(root, "synth_000/000/00012.png", 48, 32, 1, m);
    CHECK_STATUS(open_one(root, v, 0, 0, &s), SAMRT_E_FORMAT);
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_000/000/00012.png", root);
    CHECK(remove(path) == 0);
    CHECK_STATUS(open_one(root, v, 1, 0, &s), SAMRT_OK);
    /* RGB mask: refused from its header */
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_000/001/00004.png", root);
    uint16_t rgb[48 * 32 * 3] = {0};
    CHECK(du_write_png_raw(path, 48, 32, 8, 2, 0, rgb) == 0);
    CHECK_STATUS(open_one(root, v, 0, 0, &s), SAMRT_E_FORMAT);
    /* size mismatch */
    put_mask(root, "synth_000/001/00004.png", 47, 32, 255, NULL);
    CHECK_STATUS(open_one(root, v, 0, 0, &s), SAMRT_E_FORMAT);
    /* three values {0, 1, 2}: found by decoding (validate) */
    put_mask(root, "synth_000/001/00004.png", 48, 32, 1, NULL);
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_000/001/00004.png", root);
    CHECK_STATUS(samrt_png_write_gray8(path, m, 48, 32), SAMRT_OK);
    CHECK_STATUS(open_one(root, v, 0, 0, &s), SAMRT_OK);
    CHECK_STATUS(open_one(root, v, 1, 0, &s), SAMRT_E_FORMAT);
    /* an object empty in every frame: error, or dropped with skip_empty_objects */
    for (int f = 0; f <= 8; f += 4) {
        char rel[64];
        snprintf(rel, sizeof rel, "synth_000/001/%05d.png", f);
        put_mask(root, rel, 48, 32, 255, NULL);
    }
    CHECK_STATUS(open_one(root, v, 1, 0, &s), SAMRT_E_FORMAT);
    struct samrt_sav_select sel = samrt_sav_default_select();
    sel.validate_masks = 1;
    sel.skip_empty_objects = 1;
    CHECK_STATUS(samrt_sav_open(root, &sel, &s), SAMRT_OK);
    CHECK(s.n_videos == 1 && s.videos[0].n_objects == 1 && !strcmp(s.videos[0].objects[0].name, "000"));
    samrt_sav_free(&s);
    /* no first-frame mask */
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_000/001/00000.png", root);
    CHECK(remove(path) == 0);
    CHECK_STATUS(open_one(root, v, 0, 0, &s), SAMRT_E_FORMAT);
    put_mask(root, "synth_000/001/00000.png", 48, 32, 255, m);
    /* a stray file beside the object folders is skipped */
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_000/readme.txt", root);
    CHECK(du_write_file(path, "x", 1) == 0);
    CHECK_STATUS(open_one(root, v, 0, 0, &s), SAMRT_OK);
    /* an object folder without PNGs; a video without object folders */
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_000/002", root);
    du_mkdir(path);
    CHECK_STATUS(open_one(root, v, 0, 0, &s), SAMRT_E_FORMAT);
    CHECK(remove(path) == 0);
    make_split(root, sizeof root, 1, 5);
    for (int o = 0; o < 2; o++)
        for (int f = 0; f <= 4; f += 4) {
            snprintf(path, sizeof path, "%s/Annotations_6fps/synth_000/%03d/%05d.png", root, o, f);
            CHECK(remove(path) == 0);
        }
    for (int o = 0; o < 2; o++) {
        snprintf(path, sizeof path, "%s/Annotations_6fps/synth_000/%03d", root, o);
        CHECK(remove(path) == 0);
    }
    CHECK_STATUS(open_one(root, v, 0, 0, &s), SAMRT_E_FORMAT);
}

/* eval-spec 6, "PNG reader checks": 4x4 masks in every accepted mode decode alike. */
static void test_mask_modes(void) {
    uint16_t s[16];
    uint8_t want[16];
    for (int i = 0; i < 16; i++) want[i] = (uint8_t)((i * 5) % 3 == 0);
    struct {
        const char *name;
        int depth, ctype, interlace;
        uint16_t fg;
    } ok[] = {{"p8", 8, 3, 0, 1}, {"g8", 8, 0, 0, 255}, {"g1", 1, 0, 0, 1}, {"g16", 16, 0, 0, 65535},
              {"p2i", 2, 3, 1, 3}, {"g4", 4, 0, 0, 15}};
    struct samrt_mask_reader r = {0};
    uint8_t *mask = NULL;
    size_t cap = 0;
    int w, h;
    long fg;
    char path[700];
    for (size_t k = 0; k < SAMRT_ARRAY_LEN(ok); k++) {
        for (int i = 0; i < 16; i++) s[i] = want[i] ? ok[k].fg : 0;
        snprintf(path, sizeof path, "%s/mask_%s.png", g_tmp, ok[k].name);
        CHECK(du_write_png_raw(path, 4, 4, ok[k].depth, ok[k].ctype, ok[k].interlace, s) == 0);
        CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_OK);
        CHECK(w == 4 && h == 4 && fg == 6 && mask && !memcmp(mask, want, 16));
    }
    /* {3, 7}: every pixel is foreground */
    for (int i = 0; i < 16; i++) s[i] = i % 2 ? 3 : 7;
    snprintf(path, sizeof path, "%s/mask_37.png", g_tmp);
    CHECK(du_write_png_raw(path, 4, 4, 8, 0, 0, s) == 0);
    CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_OK);
    CHECK_EQ_INT(fg, 16);
    /* {255} alone is fine too */
    for (int i = 0; i < 16; i++) s[i] = 255;
    CHECK(du_write_png_raw(path, 4, 4, 8, 0, 0, s) == 0);
    CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_OK);
    CHECK_EQ_INT(fg, 16);
    /* refused: {0, 1, 255}; 16-bit {0, 1, 65535}; RGB; gray+alpha */
    for (int i = 0; i < 16; i++) s[i] = (uint16_t)(i < 5 ? 0 : i < 10 ? 1 : 255);
    CHECK(du_write_png_raw(path, 4, 4, 8, 0, 0, s) == 0);
    CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_E_FORMAT);
    s[15] = 65535;
    CHECK(du_write_png_raw(path, 4, 4, 16, 0, 0, s) == 0);
    CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_E_FORMAT);
    uint16_t rgb[16 * 4] = {0};
    CHECK(du_write_png_raw(path, 4, 4, 8, 2, 0, rgb) == 0);
    CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_E_FORMAT);
    CHECK(du_write_png_raw(path, 4, 4, 8, 4, 0, rgb) == 0);
    CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_E_FORMAT);
    snprintf(path, sizeof path, "%s/no_such_mask.png", g_tmp);
    CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_E_IO);
    /* the buffer grows for a bigger mask */
    uint16_t big[40 * 30] = {0};
    snprintf(path, sizeof path, "%s/mask_big.png", g_tmp);
    CHECK(du_write_png_raw(path, 40, 30, 8, 3, 0, big) == 0);
    CHECK_STATUS(samrt_mask_load(&r, path, &mask, &cap, &w, &h, &fg), SAMRT_OK);
    CHECK(cap >= 1200 && w == 40 && h == 30 && fg == 0);
    free(mask);
    samrt_mask_reader_free(&r);
}

/* ---- streamer ------------------------------------------------------------------------ */

/* A folder of JPEGs from its first frame, as `samrt track --frames` and the bench open it. */
static enum samrt_status open_folder(const char *dir, int depth, samrt_frame_stream_t *out) {
    const struct samrt_frame_source src = {dir, depth, 0, 0};
    return samrt_frame_stream_open_source(&src, out);
}

static void test_stream(void) {
    char root[700], dir[800], path[900];
    make_split(root, sizeof root, 1, 11);
    snprintf(dir, sizeof dir, "%s/JPEGImages_24fps/synth_000", root);
    samrt_frame_stream_t fs = NULL;
    CHECK_STATUS(open_folder(dir, 2, &fs), SAMRT_OK);
    CHECK_EQ_INT(samrt_frame_stream_count(fs), 11);
    int w = 0, h = 0;
    samrt_frame_stream_size(fs, &w, &h);
    CHECK(w == 48 && h == 32);
    struct samrt_frame f;
    int i = 0, same = 0;
    for (; samrt_frame_stream_next(fs, &f) == SAMRT_OK && f.rgb; i++) {
        CHECK_EQ_INT(f.index, i);
        snprintf(path, sizeof path, "%s/%s", dir, f.name);
        int ww, hh;
        uint8_t *want = fd_decode_file(path, &ww, &hh);
        same += want && ww == f.width && hh == f.height && !memcmp(want, f.rgb, (size_t)ww * hh * 3);
        free(want);
        samrt_frame_stream_release(fs, &f);
    }
    CHECK_EQ_INT(i, 11);
    CHECK_EQ_INT(same, 11);
    CHECK_STATUS(samrt_frame_stream_next(fs, &f), SAMRT_OK);   /* past the end, still the end */
    CHECK(f.rgb == NULL && f.index == 11);
    samrt_frame_stream_close(fs);

    /* ring limits: depth 2 = 3 buffers; holding all 3 and asking again is refused */
    CHECK_STATUS(open_folder(dir, 2, &fs), SAMRT_OK);
    struct samrt_frame held[3];
    for (int k = 0; k < 3; k++) {
        CHECK_STATUS(samrt_frame_stream_next(fs, &held[k]), SAMRT_OK);
        CHECK_EQ_INT(held[k].index, k);
    }
    CHECK(held[0].rgb != held[1].rgb && held[1].rgb != held[2].rgb && held[0].rgb != held[2].rgb);
    CHECK_STATUS(samrt_frame_stream_next(fs, &f), SAMRT_E_BAD_STATE);
    samrt_frame_stream_release(fs, &held[1]);   /* out of order: frame 4 goes in slot 1 */
    CHECK_STATUS(samrt_frame_stream_next(fs, &f), SAMRT_E_BAD_STATE);   /* frame 3 needs slot 0 */
    samrt_frame_stream_release(fs, &held[0]);
    CHECK_STATUS(samrt_frame_stream_next(fs, &f), SAMRT_OK);
    CHECK_EQ_INT(f.index, 3);
    samrt_frame_stream_close(fs);   /* with frames still held and the decoder waiting */

    /* a corrupt frame mid-video and a frame of another size: reported at that frame */
    snprintf(path, sizeof path, "%s/00005.jpg", dir);
    size_t n = 0;
    uint8_t *d = du_read_file(path, &n);
    CHECK(d && du_write_file(path, d, n / 2) == 0);
    free(d);
    CHECK_STATUS(open_folder(dir, 3, &fs), SAMRT_OK);
    enum samrt_status st = SAMRT_OK;
    for (i = 0; (st = samrt_frame_stream_next(fs, &f)) == SAMRT_OK && f.rgb; i++) samrt_frame_stream_release(fs, &f);
    CHECK_EQ_INT(i, 5);
    CHECK_EQ_INT(st, SAMRT_E_FORMAT);
    CHECK_STATUS(samrt_frame_stream_next(fs, &f), SAMRT_E_FORMAT);   /* sticky */
    samrt_frame_stream_close(fs);
    uint8_t other[40 * 30 * 3] = {0};
    CHECK_STATUS(samrt_jpeg_write(path, other, 40, 30, 90), SAMRT_OK);
    CHECK_STATUS(open_folder(dir, 1, &fs), SAMRT_OK);
    for (i = 0; (st = samrt_frame_stream_next(fs, &f)) == SAMRT_OK && f.rgb; i++) samrt_frame_stream_release(fs, &f);
    CHECK_EQ_INT(i, 5);
    CHECK_EQ_INT(st, SAMRT_E_FORMAT);
    samrt_frame_stream_close(fs);

    /* immediate close; bad arguments */
    CHECK_STATUS(open_folder(dir, 1, &fs), SAMRT_OK);
    samrt_frame_stream_close(fs);
    samrt_frame_stream_close(NULL);
    CHECK_STATUS(open_folder(dir, 0, &fs), SAMRT_E_INVALID_ARG);
    CHECK(fs == NULL);
    snprintf(path, sizeof path, "%s/nope", root);
    CHECK_STATUS(open_folder(path, 2, &fs), SAMRT_E_IO);
}

int main(void) {
    if (du_tmpdir("sav", g_tmp, sizeof g_tmp) != 0) return check_skip("test_sav", "no temp folder");
    du_quiet(1);   /* the bad inputs log their errors */
    test_basic();
    test_selection();
    test_split_list();
    test_bad_frames();
    test_bad_masks();
    test_mask_modes();
    test_stream();
    du_quiet(0);
    du_rmtree(g_tmp);
    return check_report("test_sav");
}
