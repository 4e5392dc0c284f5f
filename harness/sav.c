/* sav.c - the SA-V val/test reader; see sav.h and eval-spec section 1. The prefetching frame
 * streamer is frame_stream.{h,c}.
 *
 * The reader is strict where the Python tools crash or silently mis-pair data: frame gaps,
 * annotations without a JPEG, objects without a first-frame mask, RGB or three-valued mask
 * PNGs and size mismatches are errors that name the file. Stray files where folders belong
 * are skipped with a warning (the Python would crash on them). Sorting follows the tools:
 * JPEGs by the integer value of the stem, objects and mask files with strcmp. The mask
 * reader is mask_read.c, the folder listing fsutil.c.
 * */
#include "sav.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "image_io.h"
#include "util.h"

#define SAV_PATH_MAX 4096

/* ---- small helpers ---------------------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* All-digit string to long; -1 when it is not one (or overflows). */
static long parse_decimal(const char *s, size_t len) {
    if (len == 0 || len > 18) return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* ---- JPEG listing ---------------------------------------------------------------------- */

static size_t jpeg_stem_len(const char *name) {
    static const char *const ext[] = {".jpg", ".jpeg", ".JPG", ".JPEG"};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(ext); i++)
        if (ends_with(name, ext[i]) && strlen(name) > strlen(ext[i])) return strlen(name) - strlen(ext[i]);
    return 0;
}

static int cmp_jpeg(const void *a, const void *b) {
    long x = ((const struct samrt_sav_jpeg *)a)->number, y = ((const struct samrt_sav_jpeg *)b)->number;
    return (x > y) - (x < y);
}

void samrt_sav_free_jpegs(struct samrt_sav_jpeg *frames, int n) {
    for (int i = 0; i < n && frames; i++) free(frames[i].name);
    free(frames);
}

enum samrt_status samrt_sav_list_jpegs(const char *dir, struct samrt_sav_jpeg **frames, int *n) {
    SAMRT_CHECK(dir && frames && n, SAMRT_E_INVALID_ARG, "samrt_sav_list_jpegs: NULL argument");
    *frames = NULL;
    *n = 0;
    SAMRT_CHECK(samrt_is_dir(dir), SAMRT_E_IO, "frame folder %s does not exist", dir);
    struct samrt_names files = {0};
    SAMRT_TRY(samrt_list_dir(dir, NULL, &files));
    struct samrt_sav_jpeg *f = (struct samrt_sav_jpeg *)calloc((size_t)files.n + 1, sizeof *f);
    int m = 0;
    enum samrt_status st = f ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    for (int i = 0; st == SAMRT_OK && i < files.n; i++) {
        size_t stem = jpeg_stem_len(files.v[i]);
        if (!stem) continue;
        long num = parse_decimal(files.v[i], stem);
        if (num < 0) {
            SAMRT_LOG_ERROR("%s/%s: frame names must be decimal frame numbers (00000.jpg, 00001.jpg, ...)", dir,
                            files.v[i]);
            st = SAMRT_E_FORMAT;
            break;
        }
        f[m].name = files.v[i];
        files.v[i] = NULL;
        f[m++].number = num;
    }
    samrt_names_free(&files);
    if (st == SAMRT_OK && m == 0) {
        SAMRT_LOG_ERROR("no images found in %s (expected 00000.jpg, 00001.jpg, ...)", dir);
        st = SAMRT_E_FORMAT;
    }
    if (st == SAMRT_OK) {
        qsort(f, (size_t)m, sizeof *f, cmp_jpeg);
        /* The model's frame index is the list position; annotations and predictions are keyed
         * by name. Both agree only when the numbers run 0..n-1. */
        for (int i = 0; i < m; i++) {
            if (f[i].number == i) continue;
            if (i > 0 && f[i].number == f[i - 1].number)
                SAMRT_LOG_ERROR("%s: %s and %s are both frame %ld", dir, f[i - 1].name, f[i].name, f[i].number);
            else
                SAMRT_LOG_ERROR("%s: frame %05d is missing (found %s after %s; frame numbers must run 0, 1, 2, ... "
                                "without gaps)", dir, i, f[i].name, i ? f[i - 1].name : "nothing");
            st = SAMRT_E_FORMAT;
            break;
        }
    }
    if (st != SAMRT_OK) {
        samrt_sav_free_jpegs(f, m);
        return st;
    }
    *frames = f;
    *n = m;
    return SAMRT_OK;
}

/* ---- split reader ----------------------------------------------------------------------- */

struct samrt_sav_select samrt_sav_default_select(void) {
    struct samrt_sav_select s;
    memset(&s, 0, sizeof s);
    return s;
}

enum samrt_status samrt_sav_parse_shard(const char *s, int *k, int *n) {
    SAMRT_CHECK(s && k && n, SAMRT_E_INVALID_ARG, "--shard: NULL argument");
    const char *slash = strchr(s, '/');
    SAMRT_CHECK(slash, SAMRT_E_INVALID_ARG, "--shard '%s': expected K/N, e.g. 0/4", s);
    long kk = parse_decimal(s, (size_t)(slash - s));
    long nn = parse_decimal(slash + 1, strlen(slash + 1));
    SAMRT_CHECK(kk >= 0 && nn >= 1 && kk < nn && nn <= INT_MAX, SAMRT_E_INVALID_ARG,
                "--shard '%s': expected K/N with 0 <= K < N", s);
    *k = (int)kk;
    *n = (int)nn;
    return SAMRT_OK;
}

static void free_object(struct samrt_sav_object *o) {
    for (int i = 0; i < o->n_anns && o->anns; i++) free(o->anns[i].name);
    free(o->anns);
    free(o->name);
}

static void free_video(struct samrt_sav_video *v) {
    for (int i = 0; i < v->n_objects && v->objects; i++) free_object(&v->objects[i]);
    free(v->objects);
    samrt_sav_free_jpegs(v->frames, v->n_frames);
    free(v->name);
    free(v->jpeg_dir);
    free(v->ann_dir);
    memset(v, 0, sizeof *v);
}

void samrt_sav_free(struct samrt_sav_split *split) {
    if (!split) return;
    for (int i = 0; i < split->n_videos && split->videos; i++) free_video(&split->videos[i]);
    free(split->videos);
    free(split->root);
    memset(split, 0, sizeof *split);
}

void samrt_sav_ann_path(const struct samrt_sav_video *v, const struct samrt_sav_object *o, int ann, char *buf,
                        size_t len) {
    snprintf(buf, len, "%s/%s/%s", v->ann_dir, o->name, o->anns[ann].name);
}

/* The video list: <split>/<basename>.txt (stripped lines, blanks skipped) or, without it,
 * the sorted folders of JPEGImages_24fps. */
static enum samrt_status read_video_list(const char *root, const char *jpeg_root, struct samrt_names *out) {
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/') n--;
    size_t b = n;
    while (b > 0 && root[b - 1] != '/') b--;
    char txt[SAV_PATH_MAX];
    snprintf(txt, sizeof txt, "%.*s/%.*s.txt", (int)n, root, (int)(n - b), root + b);
    FILE *f = fopen(txt, "r");
    if (!f) {
        SAMRT_LOG_INFO("%s not found: using every folder of %s", txt, jpeg_root);
        return samrt_list_dir(jpeg_root, out, NULL);
    }
    char line[1024];
    enum samrt_status st = SAMRT_OK;
    while (st == SAMRT_OK && fgets(line, sizeof line, f)) {
        char *s = line, *e = line + strlen(line);
        while (*s && isspace((unsigned char)*s)) s++;
        while (e > s && isspace((unsigned char)e[-1])) e--;
        *e = 0;
        if (!*s) continue;
        for (int i = 0; i < out->n; i++)
            if (!strcmp(out->v[i], s)) {
                SAMRT_LOG_ERROR("%s lists video '%s' twice", txt, s);
                st = SAMRT_E_FORMAT;
            }
        if (st == SAMRT_OK) st = samrt_names_push(out, s);
    }
    fclose(f);
    SAMRT_CHECK(st != SAMRT_OK || out->n > 0, SAMRT_E_FORMAT, "%s lists no videos", txt);
    return st;
}

/* Applies --videos, --shard and --limit_videos (in that order) to the list; keeps the list's
 * order. */
static enum samrt_status select_videos(const struct samrt_names *all, const struct samrt_sav_select *sel,
                                       struct samrt_names *out) {
    struct samrt_names picked = {0};
    enum samrt_status st = SAMRT_OK;
    if (sel->videos && *sel->videos) {
        char *list = strdup(sel->videos);
        SAMRT_CHECK(list, SAMRT_E_HOST_MEMORY, "out of memory");
        char *keep = (char *)calloc((size_t)all->n + 1, 1);
        for (char *save = NULL, *tok = strtok_r(list, ",", &save); keep && tok; tok = strtok_r(NULL, ",", &save)) {
            while (isspace((unsigned char)*tok)) tok++;
            char *e = tok + strlen(tok);
            while (e > tok && isspace((unsigned char)e[-1])) *--e = 0;
            if (!*tok) continue;
            int found = 0;
            for (int i = 0; i < all->n; i++)
                if (!strcmp(all->v[i], tok)) keep[i] = 1, found = 1;
            if (!found) {
                SAMRT_LOG_ERROR("--videos: '%s' is not a video of this split", tok);
                st = SAMRT_E_INVALID_ARG;
            }
        }
        for (int i = 0; keep && st == SAMRT_OK && i < all->n; i++)
            if (keep[i]) st = samrt_names_push(&picked, all->v[i]);
        if (!keep) st = SAMRT_E_HOST_MEMORY;
        free(keep);
        free(list);
    } else {
        for (int i = 0; st == SAMRT_OK && i < all->n; i++) st = samrt_names_push(&picked, all->v[i]);
    }
    for (int i = 0; st == SAMRT_OK && i < picked.n; i++) {
        if (sel->shard_n > 0 && i % sel->shard_n != sel->shard_k) continue;
        if (sel->limit_videos > 0 && out->n >= sel->limit_videos) break;
        st = samrt_names_push(out, picked.v[i]);
    }
    samrt_names_free(&picked);
    return st;
}

/* Lists one object's PNGs and maps each to its JPEG; checks each mask's header. */
static enum samrt_status load_object(struct samrt_sav_video *v, struct samrt_sav_object *o,
                                     struct samrt_mask_reader *mr) {
    char *dir = samrt_path_join(v->ann_dir, o->name);
    SAMRT_CHECK(dir, SAMRT_E_HOST_MEMORY, "out of memory");
    struct samrt_names files = {0};
    enum samrt_status st = samrt_list_dir(dir, NULL, &files);
    int m = 0;
    for (int i = 0; i < files.n; i++) m += ends_with(files.v[i], ".png");
    o->anns = (struct samrt_sav_ann *)calloc((size_t)m + 1, sizeof *o->anns);
    if (st == SAMRT_OK && !o->anns) st = SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK && m == 0) {
        SAMRT_LOG_ERROR("%s: object folder holds no .png masks", dir);
        st = SAMRT_E_FORMAT;
    }
    for (int i = 0; st == SAMRT_OK && i < files.n; i++) {
        if (!ends_with(files.v[i], ".png")) continue;
        struct samrt_sav_ann *a = &o->anns[o->n_anns];
        a->name = files.v[i];
        files.v[i] = NULL;
        o->n_anns++;
        /* The mask in NNNNN.png belongs to NNNNN.jpg: match the stem text exactly. */
        size_t stem = strlen(a->name) - 4;
        long num = parse_decimal(a->name, stem);
        a->frame = -1;
        if (num >= 0 && num < v->n_frames && !strncmp(v->frames[num].name, a->name, stem) &&
            jpeg_stem_len(v->frames[num].name) == stem)
            a->frame = (int)num;
        if (a->frame < 0) {
            SAMRT_LOG_ERROR("%s/%s: no frame %.*s.jpg in %s", dir, a->name, (int)stem, a->name, v->jpeg_dir);
            st = SAMRT_E_FORMAT;
            break;
        }
        char path[SAV_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, a->name);
        size_t size = 0;
        struct samrt_image_info info;
        st = samrt_file_read(path, &mr->file, &mr->file_cap, &size);
        if (st == SAMRT_OK) st = samrt_png_info(mr->file, size, &info);
        if (st != SAMRT_OK) {
            SAMRT_LOG_ERROR("cannot read mask %s", path);
            break;
        }
        st = samrt_mask_check_type(path, &info);
        if (st == SAMRT_OK && (info.width != v->width || info.height != v->height)) {
            SAMRT_LOG_ERROR("%s: mask is %dx%d but the frames of %s are %dx%d", path, info.width, info.height,
                            v->name, v->width, v->height);
            st = SAMRT_E_FORMAT;
        }
    }
    /* vos_inference prompts every object on frame 0 and fails without its mask (spec 1.4). */
    if (st == SAMRT_OK && o->anns[0].frame != 0) {
        SAMRT_LOG_ERROR("%s: the first mask is %s, not the first frame's; SA-V objects are prompted on frame 0 "
                        "(the reference needs --track_object_appearing_later_in_video here)", dir, o->anns[0].name);
        st = SAMRT_E_FORMAT;
    }
    samrt_names_free(&files);
    free(dir);
    return st;
}

/* Decodes every mask of an object: refuses three-valued masks, reports emptiness. Returns
 * the number of non-empty masks in *n_nonempty and whether frame 0 is empty. */
static enum samrt_status validate_object(const struct samrt_sav_video *v, const struct samrt_sav_object *o,
                                         struct samrt_mask_reader *mr, uint8_t **mask, size_t *cap, int *n_nonempty,
                                         int *first_empty) {
    *n_nonempty = 0;
    *first_empty = 0;
    for (int a = 0; a < o->n_anns; a++) {
        char path[SAV_PATH_MAX];
        samrt_sav_ann_path(v, o, a, path, sizeof path);
        int w, h;
        long fg;
        SAMRT_TRY(samrt_mask_load(mr, path, mask, cap, &w, &h, &fg));
        *n_nonempty += fg > 0;
        if (a == 0) *first_empty = fg == 0;
    }
    return SAMRT_OK;
}

static enum samrt_status load_video(const char *root, const char *name, const struct samrt_sav_select *sel,
                                    struct samrt_sav_video *v, struct samrt_mask_reader *mr) {
    v->name = strdup(name);
    char *jroot = samrt_path_join(root, SAMRT_SAV_JPEG_DIR), *aroot = samrt_path_join(root, SAMRT_SAV_ANN_DIR);
    v->jpeg_dir = jroot ? samrt_path_join(jroot, name) : NULL;
    v->ann_dir = aroot ? samrt_path_join(aroot, name) : NULL;
    free(jroot);
    free(aroot);
    SAMRT_CHECK(v->name && v->jpeg_dir && v->ann_dir, SAMRT_E_HOST_MEMORY, "out of memory");
    SAMRT_CHECK(samrt_is_dir(v->jpeg_dir), SAMRT_E_FORMAT, "video '%s': frame folder %s does not exist", name,
                v->jpeg_dir);
    SAMRT_CHECK(samrt_is_dir(v->ann_dir), SAMRT_E_FORMAT, "video '%s': annotation folder %s does not exist", name,
                v->ann_dir);
    SAMRT_TRY(samrt_sav_list_jpegs(v->jpeg_dir, &v->frames, &v->n_frames));

    char path[SAV_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", v->jpeg_dir, v->frames[0].name);
    size_t size = 0;
    struct samrt_image_info info;
    enum samrt_status st = samrt_file_read(path, &mr->file, &mr->file_cap, &size);
    if (st == SAMRT_OK) st = samrt_jpeg_info(mr->file, size, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot read frame %s", path);
    v->width = info.width;
    v->height = info.height;

    struct samrt_names dirs = {0}, files = {0};
    SAMRT_TRY(samrt_list_dir(v->ann_dir, &dirs, &files));
    for (int i = 0; i < files.n; i++)
        SAMRT_LOG_WARN("%s/%s: not an object folder, skipped", v->ann_dir, files.v[i]);
    samrt_names_free(&files);
    if (dirs.n == 0) {
        samrt_names_free(&dirs);
        SAMRT_LOG_ERROR("video '%s': %s has no object folders", name, v->ann_dir);
        return SAMRT_E_FORMAT;
    }
    int n = sel->limit_objects > 0 ? SAMRT_MIN(sel->limit_objects, dirs.n) : dirs.n;
    v->objects = (struct samrt_sav_object *)calloc((size_t)n, sizeof *v->objects);
    st = v->objects ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    for (int i = 0; st == SAMRT_OK && i < n; i++) {
        struct samrt_sav_object *o = &v->objects[v->n_objects++];
        o->name = dirs.v[i];
        dirs.v[i] = NULL;
        long id = parse_decimal(o->name, strlen(o->name));
        o->id = id >= 0 && id <= INT_MAX ? (int)id : -1;
        if (o->id < 0) SAMRT_LOG_WARN("%s/%s: object folder name is not a number", v->ann_dir, o->name);
        st = load_object(v, o, mr);
    }
    samrt_names_free(&dirs);
    if (st != SAMRT_OK || !sel->validate_masks) return st;

    uint8_t *mask = NULL;
    size_t cap = 0;
    for (int i = 0; st == SAMRT_OK && i < v->n_objects; i++) {
        struct samrt_sav_object *o = &v->objects[i];
        int nonempty = 0, first_empty = 0;
        st = validate_object(v, o, mr, &mask, &cap, &nonempty, &first_empty);
        if (st != SAMRT_OK) break;
        if (nonempty == 0) {
            if (!sel->skip_empty_objects) {
                SAMRT_LOG_ERROR("%s/%s: the object is empty in every annotated frame (nothing to prompt or score; "
                                "--skip_empty_objects leaves it out)", v->ann_dir, o->name);
                st = SAMRT_E_FORMAT;
                break;
            }
            SAMRT_LOG_WARN("%s/%s: empty in every annotated frame, skipped", v->ann_dir, o->name);
            free_object(o);
            memset(o, 0, sizeof *o);   /* compacted below; freeing it again is harmless */
            continue;
        }
        if (first_empty)
            SAMRT_LOG_WARN("%s/%s: the first-frame mask is empty; the object is still prompted with it, as "
                           "vos_inference does", v->ann_dir, o->name);
    }
    free(mask);
    if (st == SAMRT_OK) {
        int kept = 0;
        for (int i = 0; i < v->n_objects; i++)
            if (v->objects[i].name) v->objects[kept++] = v->objects[i];
        v->n_objects = kept;
        SAMRT_CHECK(kept > 0, SAMRT_E_FORMAT, "video '%s': every object is empty", name);
    }
    return st;
}

enum samrt_status samrt_sav_open(const char *split_dir, const struct samrt_sav_select *sel_in,
                                 struct samrt_sav_split *out) {
    SAMRT_CHECK(split_dir && out, SAMRT_E_INVALID_ARG, "samrt_sav_open: NULL argument");
    memset(out, 0, sizeof *out);
    struct samrt_sav_select sel = sel_in ? *sel_in : samrt_sav_default_select();
    SAMRT_CHECK(sel.limit_videos >= 0 && sel.limit_objects >= 0, SAMRT_E_INVALID_ARG, "negative limit");
    SAMRT_CHECK(sel.shard_n == 0 || (sel.shard_k >= 0 && sel.shard_k < sel.shard_n), SAMRT_E_INVALID_ARG,
                "shard %d/%d: need 0 <= K < N", sel.shard_k, sel.shard_n);
    SAMRT_CHECK(samrt_is_dir(split_dir), SAMRT_E_IO, "split directory %s does not exist", split_dir);
    char *jroot = samrt_path_join(split_dir, SAMRT_SAV_JPEG_DIR), *aroot = samrt_path_join(split_dir, SAMRT_SAV_ANN_DIR);
    enum samrt_status st = jroot && aroot ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK && (!samrt_is_dir(jroot) || !samrt_is_dir(aroot))) {
        SAMRT_LOG_ERROR("%s is not an SA-V split: it needs %s/ and %s/", split_dir, SAMRT_SAV_JPEG_DIR,
                        SAMRT_SAV_ANN_DIR);
        st = SAMRT_E_FORMAT;
    }
    struct samrt_names all = {0}, picked = {0};
    if (st == SAMRT_OK) st = read_video_list(split_dir, jroot, &all);
    if (st == SAMRT_OK) st = select_videos(&all, &sel, &picked);
    out->n_videos_total = all.n;
    if (st == SAMRT_OK && picked.n == 0) {
        SAMRT_LOG_ERROR("%s: the selection keeps no video (%d in the split)", split_dir, all.n);
        st = SAMRT_E_INVALID_ARG;
    }
    if (st == SAMRT_OK) {
        out->root = strdup(split_dir);
        out->videos = (struct samrt_sav_video *)calloc((size_t)picked.n, sizeof *out->videos);
        if (!out->root || !out->videos) st = SAMRT_E_HOST_MEMORY;
    }
    struct samrt_mask_reader mr = {0};
    for (int i = 0; st == SAMRT_OK && i < picked.n; i++) {
        st = load_video(split_dir, picked.v[i], &sel, &out->videos[i], &mr);
        out->n_videos = i + 1;
    }
    samrt_mask_reader_free(&mr);
    samrt_names_free(&all);
    samrt_names_free(&picked);
    free(jroot);
    free(aroot);
    if (st != SAMRT_OK) samrt_sav_free(out);
    return st;
}
