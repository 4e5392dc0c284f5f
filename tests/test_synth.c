/* test_synth.c - harness/synth: determinism for a seed (pixels and files), the SA-V layout it
 * writes (every frame a JPEG, masks every 4th frame, one folder per object), masks that
 * match the frames' size and the rendered labels, visibility on frame 0, occlusion, the
 * gray-mask option, parameter checks and the refusal to overwrite a dataset. */
#include "synth.h"

#include "check.h"
#include "data_util.h"
#include "image_io.h"
#include "sav.h"

static char g_tmp[512];

static struct samrt_synth_params small_params(uint64_t seed) {
    struct samrt_synth_params p = samrt_synth_default_params();
    p.n_videos = 2;
    p.n_frames = 13;
    p.n_objects = 3;
    p.width = 96;
    p.height = 64;
    p.seed = seed;
    return p;
}

static void test_render_determinism(void) {
    struct samrt_synth_params p = small_params(5);
    size_t n = (size_t)p.width * p.height;
    uint8_t *a = (uint8_t *)malloc(n * 3), *b = (uint8_t *)malloc(n * 3), *la = (uint8_t *)malloc(n),
            *lb = (uint8_t *)malloc(n);
    struct samrt_synth_scene s1, s2;
    CHECK_STATUS(samrt_synth_scene_init(&p, 1, &s1), SAMRT_OK);
    CHECK_STATUS(samrt_synth_scene_init(&p, 1, &s2), SAMRT_OK);
    samrt_synth_render(&s1, 7, a, la, NULL);
    samrt_synth_render(&s2, 7, b, lb, NULL);
    CHECK(!memcmp(a, b, n * 3) && !memcmp(la, lb, n));
    /* another frame, video or seed changes the pixels */
    samrt_synth_render(&s1, 8, b, lb, NULL);
    CHECK(memcmp(a, b, n * 3) != 0);
    CHECK_STATUS(samrt_synth_scene_init(&p, 0, &s2), SAMRT_OK);
    samrt_synth_render(&s2, 7, b, lb, NULL);
    CHECK(memcmp(a, b, n * 3) != 0);
    p.seed = 6;
    CHECK_STATUS(samrt_synth_scene_init(&p, 1, &s2), SAMRT_OK);
    samrt_synth_render(&s2, 7, b, lb, NULL);
    CHECK(memcmp(a, b, n * 3) != 0);
    free(a), free(b), free(la), free(lb);
}

/* For several seeds: each object visible on frame 0 and the labels agree with the amodal
 * counts (visible <= amodal); some annotated frame shows an occluded object. */
static void test_scene_conditions(void) {
    for (uint64_t seed = 0; seed < 6; seed++) {
        struct samrt_synth_params p = small_params(seed);
        size_t n = (size_t)p.width * p.height;
        uint8_t *lab = (uint8_t *)malloc(n);
        struct samrt_synth_scene s;
        CHECK_STATUS(samrt_synth_scene_init(&p, 0, &s), SAMRT_OK);
        int occluded = 0, overcount = 0, invisible0 = 0;
        for (int t = 0; t < p.n_frames; t += p.ann_step) {
            uint32_t amodal[SAMRT_SYNTH_MAX_OBJECTS], vis[SAMRT_SYNTH_MAX_OBJECTS] = {0};
            samrt_synth_render(&s, t, NULL, lab, amodal);
            for (size_t i = 0; i < n; i++)
                if (lab[i]) vis[lab[i] - 1]++;
            for (int k = 0; k < p.n_objects; k++) {
                overcount += vis[k] > amodal[k];
                occluded |= vis[k] < amodal[k];
                invisible0 += t == 0 && vis[k] == 0;
            }
        }
        CHECK_MSG(occluded, "seed %llu: no occlusion", (unsigned long long)seed);
        CHECK_EQ_INT(overcount, 0);
        CHECK_EQ_INT(invisible0, 0);
        free(lab);
    }
}

/* Hash of every file under a dataset, in a fixed order, to compare two writes. */
static uint64_t tree_hash(const char *root, const struct samrt_synth_params *p) {
    uint64_t h = 0xCBF29CE484222325ull;
    char path[1024], name[64];
    for (int v = 0; v < p->n_videos; v++) {
        samrt_synth_video_name(v, name, sizeof name);
        for (int t = 0; t < p->n_frames; t++) {
            for (int k = -1; k < p->n_objects; k++) {
                if (k < 0) snprintf(path, sizeof path, "%s/JPEGImages_24fps/%s/%05d.jpg", root, name, t);
                else if (t % p->ann_step == 0) snprintf(path, sizeof path, "%s/Annotations_6fps/%s/%03d/%05d.png", root, name, k, t);
                else continue;
                size_t n = 0;
                uint8_t *d = du_read_file(path, &n);
                if (!d) return 0;
                for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 0x100000001B3ull;
                free(d);
            }
        }
    }
    return h;
}

static void test_write(void) {
    struct samrt_synth_params p = small_params(11);
    char a[600], b[600], c[600], path[1024];
    snprintf(a, sizeof a, "%s/a/sav_val", g_tmp);   /* parents are created */
    snprintf(b, sizeof b, "%s/b", g_tmp);
    snprintf(c, sizeof c, "%s/c", g_tmp);
    CHECK_STATUS(samrt_synth_write(a, &p, 0), SAMRT_OK);
    CHECK_STATUS(samrt_synth_write(b, &p, 0), SAMRT_OK);
    uint64_t ha = tree_hash(a, &p), hb = tree_hash(b, &p);
    CHECK(ha != 0 && ha == hb);
    p.seed = 12;
    CHECK_STATUS(samrt_synth_write(c, &p, 0), SAMRT_OK);
    CHECK(tree_hash(c, &p) != ha);
    p.seed = 11;
    /* an existing dataset is refused unless forced, and forcing rewrites the same bytes */
    CHECK_STATUS(samrt_synth_write(b, &p, 0), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_synth_write(b, &p, 1), SAMRT_OK);
    CHECK(tree_hash(b, &p) == ha);

    /* the layout: every frame a JPEG, masks only every 4th frame, the split list */
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_001/002/00012.png", a);
    CHECK(access(path, F_OK) == 0);
    snprintf(path, sizeof path, "%s/Annotations_6fps/synth_001/002/00001.png", a);
    CHECK(access(path, F_OK) != 0);
    snprintf(path, sizeof path, "%s/JPEGImages_24fps/synth_001/00012.jpg", a);
    CHECK(access(path, F_OK) == 0);
    snprintf(path, sizeof path, "%s/sav_val.txt", a);
    size_t n = 0;
    char *list = (char *)du_read_file(path, &n);
    CHECK(list && n == 20 && !memcmp(list, "synth_000\nsynth_001\n", 20));
    free(list);

    /* the reader accepts it, masks decoded and all; masks equal the rendered labels and the
     * JPEGs are close to the rendered pixels */
    struct samrt_sav_select sel = samrt_sav_default_select();
    sel.validate_masks = 1;
    struct samrt_sav_split s;
    CHECK_STATUS(samrt_sav_open(a, &sel, &s), SAMRT_OK);
    CHECK_EQ_INT(s.n_videos, 2);
    size_t np = (size_t)p.width * p.height;
    uint8_t *lab = (uint8_t *)malloc(np), *rgb = (uint8_t *)malloc(np * 3), *dec = (uint8_t *)malloc(np * 3);
    uint8_t *mask = NULL;
    size_t cap = 0;
    struct samrt_mask_reader mr = {0};
    int mask_bad = 0, overlap = 0;
    double err = 0;
    for (int v = 0; v < s.n_videos; v++) {
        const struct samrt_sav_video *vid = &s.videos[v];
        CHECK(vid->width == p.width && vid->height == p.height && vid->n_frames == p.n_frames);
        CHECK_EQ_INT(vid->n_objects, 3);
        struct samrt_synth_scene sc;
        CHECK_STATUS(samrt_synth_scene_init(&p, v, &sc), SAMRT_OK);
        for (int o = 0; o < vid->n_objects; o++) CHECK_EQ_INT(vid->objects[o].n_anns, 4);
        for (int a_i = 0; a_i < 4; a_i++) {
            samrt_synth_render(&sc, 4 * a_i, rgb, lab, NULL);
            uint8_t seen[96 * 64] = {0};
            for (int o = 0; o < vid->n_objects; o++) {
                samrt_sav_ann_path(vid, &vid->objects[o], a_i, path, sizeof path);
                int w, h;
                CHECK_STATUS(samrt_mask_load(&mr, path, &mask, &cap, &w, &h, NULL), SAMRT_OK);
                for (size_t i = 0; i < np; i++) {
                    mask_bad += mask[i] != (lab[i] == o + 1);
                    overlap += mask[i] && seen[i];
                    seen[i] |= mask[i];
                }
            }
            snprintf(path, sizeof path, "%s/%s", vid->jpeg_dir, vid->frames[4 * a_i].name);
            size_t fn = 0;
            uint8_t *d = du_read_file(path, &fn);
            struct samrt_image_info info;
            CHECK_STATUS(samrt_jpeg_decode(d, fn, dec, np * 3, &info), SAMRT_OK);
            for (size_t i = 0; i < np * 3; i++) err += abs((int)dec[i] - (int)rgb[i]);
            free(d);
        }
    }
    CHECK_EQ_INT(mask_bad, 0);
    CHECK_EQ_INT(overlap, 0);
    err /= (double)np * 3 * 4 * s.n_videos;
    CHECK_MSG(err < 8.0, "mean JPEG error %.2f", err);   /* quality 90 over textured content */
    samrt_sav_free(&s);
    samrt_mask_reader_free(&mr);
    free(mask), free(lab), free(rgb), free(dec);

    /* gray masks are 0/255 gray PNGs */
    p.gray_masks = 1;
    p.n_videos = 1;
    snprintf(path, sizeof path, "%s/g", g_tmp);
    CHECK_STATUS(samrt_synth_write(path, &p, 0), SAMRT_OK);
    snprintf(path, sizeof path, "%s/g/Annotations_6fps/synth_000/000/00000.png", g_tmp);
    n = 0;
    uint8_t *d = du_read_file(path, &n);
    struct samrt_image_info info;
    CHECK_STATUS(samrt_png_info(d, n, &info), SAMRT_OK);
    CHECK(info.color_type == SAMRT_PNG_GRAY && info.bit_depth == 8);
    uint8_t *px = (uint8_t *)malloc(np);
    CHECK_STATUS(samrt_png_decode(d, n, px, np, &info), SAMRT_OK);
    int odd = 0, fg = 0;
    for (size_t i = 0; i < np; i++) odd += px[i] != 0 && px[i] != 255, fg += px[i] == 255;
    CHECK(odd == 0 && fg > 0);
    free(px);
    free(d);
}

static void test_params(void) {
    struct samrt_synth_params p = small_params(0);
    CHECK_STATUS(samrt_synth_check_params(&p), SAMRT_OK);
    p.n_objects = SAMRT_SYNTH_MAX_OBJECTS + 1;
    CHECK_STATUS(samrt_synth_check_params(&p), SAMRT_E_INVALID_ARG);
    p = small_params(0);
    p.width = 8;
    CHECK_STATUS(samrt_synth_check_params(&p), SAMRT_E_INVALID_ARG);
    p = small_params(0);
    p.height = SAMRT_SYNTH_MAX_SIDE + 1;
    CHECK_STATUS(samrt_synth_check_params(&p), SAMRT_E_INVALID_ARG);
    p = small_params(0);
    p.n_frames = 0;
    CHECK_STATUS(samrt_synth_check_params(&p), SAMRT_E_INVALID_ARG);
    p = small_params(0);
    p.quality = 101;
    CHECK_STATUS(samrt_synth_write(g_tmp, &p, 0), SAMRT_E_INVALID_ARG);
    char name[32];
    samrt_synth_video_name(12, name, sizeof name);
    CHECK(!strcmp(name, "synth_012"));
}

int main(void) {
    if (du_tmpdir("synth", g_tmp, sizeof g_tmp) != 0) return check_skip("test_synth", "no temp folder");
    test_render_determinism();
    test_scene_conditions();
    test_write();
    du_quiet(1);
    test_params();
    du_quiet(0);
    du_rmtree(g_tmp);
    return check_report("test_synth");
}
