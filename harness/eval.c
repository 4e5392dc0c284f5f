/* eval.c - J, F and J&F as sav_evaluator.py computes them; see eval.h and eval-spec 2-4.
 *
 * Exactness: J is one double division of integer counts; the radius is the same double
 * expression; precision and recall are double divisions of integer counts; F is evaluated as
 * ((2*P)*R)/(P+R), Python's left-to-right order; means use numpy's pairwise summation. With
 * those, every double equals the reference's bit for bit.
 *
 * The dilation of a boundary map by the disk {dx^2+dy^2 <= r^2} is never materialised: for
 * each row we keep the horizontal distance to the nearest boundary pixel of the other map,
 * and a pixel matches when some row offset dy within r has hdist^2 + dy^2 <= r^2. That is
 * O(H*W) to prepare and O(boundary * r) to count, and exactly the same set as cv2.dilate.
 *
 * Where the reference crashes (missing prediction file, three-valued PNG, size mismatch,
 * object with nothing to score) we report the file and fail; results are written by the
 * caller only when the whole run succeeded. Objects are evaluated on worker threads; each
 * object's numbers depend only on its own files, so the output does not depend on them.
 */
#include "eval.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "sav.h"
#include "util.h"

#define EVAL_PATH_MAX 4096
#define EVAL_MAX_THREADS 16
/* Stop scheduling work after this many failed objects; the first ones say enough. */
#define EVAL_MAX_FAILURES 20
#define HDIST_FAR 0xFFFFu

/* ---- one frame -------------------------------------------------------------------------- */

int samrt_eval_radius(int h, int w) {
    double diag = sqrt((double)h * (double)h + (double)w * (double)w);
    return (int)ceil(SAMRT_EVAL_BOUND_TH * diag);
}

long samrt_eval_seg2bmap(const uint8_t *m, int w, int h, uint8_t *b) {
    long n = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = m + (size_t)y * (size_t)w, *next = y + 1 < h ? row + w : NULL;
        uint8_t *out = b + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++) {
            int v = row[x] != 0, edge = 0;
            if (x + 1 < w && next) /* interior: east, south, south-east */
                edge = v != (row[x + 1] != 0) || v != (next[x] != 0) || v != (next[x + 1] != 0);
            else if (x + 1 < w) /* last row: east only */
                edge = v != (row[x + 1] != 0);
            else if (next) /* last column: south only */
                edge = v != (next[x] != 0);
            out[x] = (uint8_t)edge;
            n += edge;
        }
    }
    return n;
}

size_t samrt_eval_scratch_bytes(int w, int h) {
    if (w <= 0 || h <= 0) return 0;
    return (size_t)w * (size_t)h * (2 + 2 * sizeof(uint16_t));
}

/* Per row, the distance along the row to the nearest set pixel of b (HDIST_FAR if none). */
static void row_hdist(const uint8_t *b, int w, int h, uint16_t *d) {
    for (int y = 0; y < h; y++) {
        const uint8_t *br = b + (size_t)y * (size_t)w;
        uint16_t *dr = d + (size_t)y * (size_t)w;
        long last = -1;
        for (int x = 0; x < w; x++) {
            if (br[x]) last = x;
            dr[x] = last < 0 ? (uint16_t)HDIST_FAR : (uint16_t)SAMRT_MIN((long)HDIST_FAR, x - last);
        }
        last = -1;
        for (int x = w - 1; x >= 0; x--) {
            if (br[x]) last = x;
            if (last >= 0 && last - x < dr[x]) dr[x] = (uint16_t)(last - x);
        }
    }
}

/* Pixels of b within distance r of a pixel of the other map (given by its hdist). */
static long count_matched(const uint8_t *b, const uint16_t *hd_other, int w, int h, int r) {
    const int64_t r2 = (int64_t)r * r;
    long n = 0;
    for (int y = 0; y < h; y++) {
        const uint8_t *br = b + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++) {
            if (!br[x]) continue;
            for (int k = 0; k <= 2 * r; k++) {
                int dy = (k & 1) ? (k + 1) / 2 : -(k / 2);   /* 0, 1, -1, 2, -2, ... */
                int yy = y + dy;
                if (yy < 0 || yy >= h) continue;
                uint16_t hd = hd_other[(size_t)yy * (size_t)w + (size_t)x];
                if (hd != HDIST_FAR && (int64_t)hd * hd + (int64_t)dy * dy <= r2) {
                    n++;
                    break;
                }
            }
        }
    }
    return n;
}

enum samrt_status samrt_eval_frame(const uint8_t *gt, const uint8_t *pred, int w, int h, void *scratch,
                                   size_t scratch_bytes, struct samrt_eval_frame *out) {
    SAMRT_CHECK(gt && pred && out && scratch && w > 0 && h > 0, SAMRT_E_INVALID_ARG, "eval frame: bad arguments");
    SAMRT_CHECK(scratch_bytes >= samrt_eval_scratch_bytes(w, h), SAMRT_E_INVALID_ARG,
                "eval frame: scratch holds %zu bytes, %dx%d needs %zu", scratch_bytes, w, h,
                samrt_eval_scratch_bytes(w, h));
    size_t n = (size_t)w * (size_t)h;
    uint8_t *bg = (uint8_t *)scratch, *bp = bg + n;
    uint16_t *hg = (uint16_t *)(bp + n), *hp = hg + n;
    memset(out, 0, sizeof *out);

    long ng = 0, np = 0, ni = 0;
    for (size_t i = 0; i < n; i++) {
        int g = gt[i] != 0, p = pred[i] != 0;
        ng += g;
        np += p;
        ni += g & p;
    }
    out->n_gt = ng;
    out->n_pred = np;
    out->n_inter = ni;
    long s = ng + np;
    out->j = ni == s ? 1.0 : (double)ni / (double)(s - ni);

    out->radius = samrt_eval_radius(h, w);
    long nbg = samrt_eval_seg2bmap(gt, w, h, bg);
    long nbp = samrt_eval_seg2bmap(pred, w, h, bp);
    out->nb_gt = nbg;
    out->nb_pred = nbp;
    double prec, rec;
    if (nbp == 0 && nbg > 0) {
        prec = 1, rec = 0;
    } else if (nbp > 0 && nbg == 0) {
        prec = 0, rec = 1;
    } else if (nbp == 0 && nbg == 0) {
        prec = 1, rec = 1;
    } else {
        row_hdist(bg, w, h, hg);
        row_hdist(bp, w, h, hp);
        prec = (double)count_matched(bp, hg, w, h, out->radius) / (double)nbp;
        rec = (double)count_matched(bg, hp, w, h, out->radius) / (double)nbg;
    }
    out->precision = prec;
    out->recall = rec;
    out->f = prec + rec == 0 ? 0.0 : ((2 * prec) * rec) / (prec + rec);
    return SAMRT_OK;
}

/* ---- one object ------------------------------------------------------------------------- */

void samrt_eval_seq_init(struct samrt_eval_seq *s, double *j, double *f, int cap) {
    memset(s, 0, sizeof *s);
    s->j = j;
    s->f = f;
    s->cap = cap;
}

enum samrt_status samrt_eval_seq_feed(struct samrt_eval_seq *s, const struct samrt_eval_frame *fr) {
    if (fr->n_gt > 0) s->seen_gt = 1;
    if (fr->n_pred > 0) s->seen_pred = 1;
    if (!s->seen_gt && !s->seen_pred) return SAMRT_OK;
    SAMRT_CHECK(s->n < s->cap, SAMRT_E_INVALID_ARG, "eval: more frames than the %d declared", s->cap);
    s->j[s->n] = fr->j;
    s->f[s->n] = fr->f;
    s->n++;
    return SAMRT_OK;
}

/* numpy's pairwise_sum for float64 (loops_utils.h): plain below 8, eight accumulators up to
 * 128, split at a multiple of 8 above. */
static double pairwise_sum(const double *a, size_t n) {
    if (n < 8) {
        double r = 0.;
        for (size_t i = 0; i < n; i++) r += a[i];
        return r;
    }
    if (n <= 128) {
        double r[8];
        for (int k = 0; k < 8; k++) r[k] = a[k];
        size_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++) r[k] += a[i + (size_t)k];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double samrt_eval_mean(const double *x, size_t n) {
    if (n == 0) return NAN;
    return (0.0 + pairwise_sum(x, n)) / (double)n;
}

int samrt_eval_seq_conclude(const struct samrt_eval_seq *s, double *j, double *f) {
    if (!s->seen_gt || s->n == 0) return 0;
    *j = samrt_eval_mean(s->j, (size_t)s->n) * 100;
    *f = samrt_eval_mean(s->f, (size_t)s->n) * 100;
    return 1;
}

/* ---- a dataset --------------------------------------------------------------------------- */

struct samrt_eval_opts samrt_eval_default_opts(void) {
    struct samrt_eval_opts o;
    memset(&o, 0, sizeof o);
    return o;
}

struct obj_task {
    int video;
    char *obj;
    struct samrt_names frames;   /* the object's GT PNG names, strcmp order */
    enum samrt_status st;
    int evaluable;
    double j, f;
    int n_counted;
    const char *why;             /* static text when not evaluable */
};

struct run_ctx {
    const char *gt_root, *pred_root;
    char **videos;
    struct obj_task *tasks;
    int n_tasks;
    int keep_first_last;
    pthread_mutex_t mu;
    int next, n_failed;
};

/* A worker's buffers; they grow to the largest frame seen and are then reused. */
struct worker {
    struct samrt_mask_reader mr;
    uint8_t *gt, *pred;
    size_t gt_cap, pred_cap;
    void *scratch;
    size_t scratch_cap;
    double *jv, *fv;
    int v_cap;
};

static void worker_free(struct worker *w) {
    samrt_mask_reader_free(&w->mr);
    free(w->gt);
    free(w->pred);
    free(w->scratch);
    free(w->jv);
    free(w->fv);
}

static enum samrt_status eval_object(const struct run_ctx *c, struct obj_task *t, struct worker *wk) {
    int first = c->keep_first_last ? 0 : 1;
    int last = c->keep_first_last ? t->frames.n : t->frames.n - 1;
    int n_eval = last - first;
    if (n_eval <= 0) {
        t->why = "it has at most 2 GT frames, so nothing is left after skipping the first and last";
        return SAMRT_OK;
    }
    if (n_eval > wk->v_cap) {
        double *jv = (double *)realloc(wk->jv, (size_t)n_eval * sizeof *jv);
        if (jv) wk->jv = jv;
        double *fv = (double *)realloc(wk->fv, (size_t)n_eval * sizeof *fv);
        if (fv) wk->fv = fv;
        SAMRT_CHECK(jv && fv, SAMRT_E_HOST_MEMORY, "out of memory");
        wk->v_cap = n_eval;
    }
    struct samrt_eval_seq seq;
    samrt_eval_seq_init(&seq, wk->jv, wk->fv, n_eval);
    const char *video = c->videos[t->video];
    for (int k = first; k < last; k++) {
        char gp[EVAL_PATH_MAX], pp[EVAL_PATH_MAX];
        snprintf(gp, sizeof gp, "%s/%s/%s/%s", c->gt_root, video, t->obj, t->frames.v[k]);
        snprintf(pp, sizeof pp, "%s/%s/%s/%s", c->pred_root, video, t->obj, t->frames.v[k]);
        SAMRT_CHECK(access(pp, F_OK) == 0, SAMRT_E_IO, "%s not found (every evaluated GT frame needs a prediction)",
                    pp);
        int gw, gh, pw, ph;
        SAMRT_TRY(samrt_mask_load(&wk->mr, gp, &wk->gt, &wk->gt_cap, &gw, &gh, NULL));
        SAMRT_TRY(samrt_mask_load(&wk->mr, pp, &wk->pred, &wk->pred_cap, &pw, &ph, NULL));
        SAMRT_CHECK(gw == pw && gh == ph, SAMRT_E_FORMAT, "shape mismatch: %s is %dx%d, %s is %dx%d", gp, gw, gh, pp,
                    pw, ph);
        size_t need = samrt_eval_scratch_bytes(gw, gh);
        if (need > wk->scratch_cap) {
            free(wk->scratch);
            wk->scratch = malloc(need);
            wk->scratch_cap = wk->scratch ? need : 0;
            SAMRT_CHECK(wk->scratch, SAMRT_E_HOST_MEMORY, "out of memory for a %dx%d frame", gw, gh);
        }
        struct samrt_eval_frame fr;
        SAMRT_TRY(samrt_eval_frame(wk->gt, wk->pred, gw, gh, wk->scratch, wk->scratch_cap, &fr));
        SAMRT_TRY(samrt_eval_seq_feed(&seq, &fr));
    }
    t->evaluable = samrt_eval_seq_conclude(&seq, &t->j, &t->f);
    t->n_counted = seq.n;
    if (!t->evaluable) t->why = "its GT is empty in every evaluated frame";
    return SAMRT_OK;
}

static void *worker_main(void *arg) {
    struct run_ctx *c = (struct run_ctx *)arg;
    struct worker wk;
    memset(&wk, 0, sizeof wk);
    for (;;) {
        pthread_mutex_lock(&c->mu);
        int i = c->n_failed >= EVAL_MAX_FAILURES ? c->n_tasks : c->next++;
        pthread_mutex_unlock(&c->mu);
        if (i >= c->n_tasks) break;
        c->tasks[i].st = eval_object(c, &c->tasks[i], &wk);
        if (c->tasks[i].st != SAMRT_OK) {
            pthread_mutex_lock(&c->mu);
            c->n_failed++;
            pthread_mutex_unlock(&c->mu);
        }
    }
    worker_free(&wk);
    return NULL;
}

static int names_has(const struct samrt_names *l, const char *s) {
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s)) return 1;
    return 0;
}

/* Moves the names of a that are (want = 1) or are not (want = 0) in b into out. */
static enum samrt_status names_filter(const struct samrt_names *a, const struct samrt_names *b, int want,
                                      struct samrt_names *out) {
    for (int i = 0; i < a->n; i++)
        if (names_has(b, a->v[i]) == want) SAMRT_TRY(samrt_names_push(out, a->v[i]));
    return SAMRT_OK;
}

/* The GT folder to read. Accepts the split folder (descends into Annotations_6fps), and
 * applies the reference's own heuristic for a DAVIS-style "Annotations" child. */
static enum samrt_status resolve_gt_root(const char *gt, int n_pred_entries, char **out) {
    char p[EVAL_PATH_MAX];
    size_t n = strlen(gt);
    const char *sep = n && gt[n - 1] == '/' ? "" : "/";   /* as os.path.join */
    snprintf(p, sizeof p, "%s%s%s", gt, sep, SAMRT_SAV_ANN_DIR);
    if (samrt_is_dir(p)) {
        SAMRT_LOG_INFO("reading GT from %s", p);
    } else {
        snprintf(p, sizeof p, "%s", gt);
        struct samrt_names dirs = {0}, files = {0}, inner = {0}, inner_files = {0};
        SAMRT_TRY(samrt_list_dir(gt, &dirs, &files));
        char ann[EVAL_PATH_MAX];
        snprintf(ann, sizeof ann, "%s%sAnnotations", gt, sep);
        if (dirs.n + files.n != n_pred_entries && names_has(&dirs, "Annotations") &&
            samrt_list_dir(ann, &inner, &inner_files) == SAMRT_OK) {
            int has_png = 0;
            for (int i = 0; i < inner_files.n; i++) has_png |= strstr(inner_files.v[i], ".png") != NULL;
            if (!has_png) snprintf(p, sizeof p, "%s", ann);
        }
        samrt_names_free(&dirs);
        samrt_names_free(&files);
        samrt_names_free(&inner);
        samrt_names_free(&inner_files);
    }
    *out = strdup(p);
    SAMRT_CHECK(*out, SAMRT_E_HOST_MEMORY, "out of memory");
    return SAMRT_OK;
}

static char **names_take(struct samrt_names *l, int *n) {
    char **v = l->v;
    *n = l->n;
    memset(l, 0, sizeof *l);
    return v;
}

/* Lists the object folders and their PNGs for every video into tasks. */
static enum samrt_status build_tasks(const char *gt_root, char **videos, int n_videos, struct obj_task **out,
                                     int *n_out) {
    struct obj_task *tasks = NULL;
    int n = 0, cap = 0;
    enum samrt_status st = SAMRT_OK;
    for (int v = 0; st == SAMRT_OK && v < n_videos; v++) {
        char vdir[EVAL_PATH_MAX];
        snprintf(vdir, sizeof vdir, "%s/%s", gt_root, videos[v]);
        struct samrt_names objs = {0}, stray = {0};
        st = samrt_list_dir(vdir, &objs, &stray);
        if (st != SAMRT_OK) break;
        int all_png = stray.n > 0;
        for (int i = 0; i < stray.n; i++) all_png &= strlen(stray.v[i]) >= 4 && !strcmp(stray.v[i] + strlen(stray.v[i]) - 4, ".png");
        if (objs.n == 0 && all_png) {
            SAMRT_LOG_ERROR("%s holds PNGs directly (DAVIS layout); only the SA-V layout, one folder per object, is "
                            "supported", vdir);
            st = SAMRT_E_UNSUPPORTED;
        }
        for (int i = 0; st == SAMRT_OK && i < stray.n; i++)
            SAMRT_LOG_WARN("%s/%s: not an object folder, skipped", vdir, stray.v[i]);
        if (st == SAMRT_OK && objs.n == 0) SAMRT_LOG_WARN("%s has no object folders", vdir);
        for (int i = 0; st == SAMRT_OK && i < objs.n; i++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                struct obj_task *nt = (struct obj_task *)realloc(tasks, (size_t)cap * sizeof *nt);
                if (!nt) {
                    st = SAMRT_E_HOST_MEMORY;
                    break;
                }
                tasks = nt;
            }
            struct obj_task *t = &tasks[n++];
            memset(t, 0, sizeof *t);
            t->video = v;
            t->obj = objs.v[i];
            objs.v[i] = NULL;
            char odir[EVAL_PATH_MAX];
            snprintf(odir, sizeof odir, "%s/%s", vdir, t->obj);
            struct samrt_names files = {0};
            st = samrt_list_dir(odir, NULL, &files);
            for (int k = 0; st == SAMRT_OK && k < files.n; k++) {
                size_t len = strlen(files.v[k]);
                if (len >= 4 && !strcmp(files.v[k] + len - 4, ".png"))
                    st = samrt_names_push(&t->frames, files.v[k]);
                else
                    SAMRT_LOG_WARN("%s/%s: not a .png mask, ignored", odir, files.v[k]);
            }
            samrt_names_free(&files);
        }
        samrt_names_free(&objs);
        samrt_names_free(&stray);
    }
    *out = tasks;
    *n_out = n;
    return st;
}

static void free_tasks(struct obj_task *t, int n) {
    for (int i = 0; i < n; i++) {
        free(t[i].obj);
        samrt_names_free(&t[i].frames);
    }
    free(t);
}

static int default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return (int)SAMRT_MAX(1, SAMRT_MIN(n, EVAL_MAX_THREADS));
}

static enum samrt_status run_tasks(struct run_ctx *c, int n_threads) {
    pthread_t th[EVAL_MAX_THREADS * 4];
    int n = SAMRT_MIN(SAMRT_MIN(n_threads, (int)SAMRT_ARRAY_LEN(th)), c->n_tasks), started = 0;
    for (int i = 0; i < n; i++) started += pthread_create(&th[started], NULL, worker_main, c) == 0;
    if (started == 0) worker_main(c);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    enum samrt_status st = SAMRT_OK;
    int failed = 0, not_run = 0;
    for (int i = 0; i < c->n_tasks; i++) {
        if (c->tasks[i].st != SAMRT_OK) {
            failed++;
            if (st == SAMRT_OK) st = c->tasks[i].st;
        }
        not_run += i >= c->next;
    }
    if (failed)
        SAMRT_LOG_ERROR("%d object(s) could not be evaluated%s; no results written", failed,
                        not_run ? " (stopped early)" : "");
    return st;
}

/* The video folders taking part, on each side (gsel, psel). --videos: every name must exist on
 * both sides (want receives them); then only those take part. Otherwise all of them. */
static enum samrt_status select_videos(const struct samrt_eval_opts *o, const char *gt_root,
                                       const struct samrt_names *gdirs, const struct samrt_names *pdirs,
                                       struct samrt_names *want, struct samrt_names *gsel,
                                       struct samrt_names *psel) {
    enum samrt_status st = SAMRT_OK;
    if (!o->videos || !*o->videos) {
        st = names_filter(gdirs, want, 0, gsel);
        if (st == SAMRT_OK) st = names_filter(pdirs, want, 0, psel);
        return st;
    }
    char *list = strdup(o->videos);
    if (!list) st = SAMRT_E_HOST_MEMORY;
    for (char *save = NULL, *tok = list ? strtok_r(list, ", ", &save) : NULL; st == SAMRT_OK && tok;
         tok = strtok_r(NULL, ", ", &save)) {
        if (!names_has(gdirs, tok)) {
            SAMRT_LOG_ERROR("--videos: '%s' is not a video folder of %s", tok, gt_root);
            st = SAMRT_E_INVALID_ARG;
        } else if (!names_has(pdirs, tok)) {
            SAMRT_LOG_ERROR("--videos: '%s' has no prediction folder in %s", tok, o->pred_root);
            st = SAMRT_E_INVALID_ARG;
        } else if (!names_has(want, tok)) {
            st = samrt_names_push(want, tok);
        }
    }
    free(list);
    if (st == SAMRT_OK) st = names_filter(gdirs, want, 1, gsel);
    if (st == SAMRT_OK) st = names_filter(pdirs, want, 1, psel);
    return st;
}

enum samrt_status samrt_eval_run(const struct samrt_eval_opts *o, struct samrt_eval_result *r) {
    SAMRT_CHECK(r, SAMRT_E_INVALID_ARG, "eval: NULL result");
    memset(r, 0, sizeof *r);
    SAMRT_CHECK(o && o->gt_root && o->pred_root, SAMRT_E_INVALID_ARG, "eval: gt_root and pred_root are needed");
    SAMRT_CHECK(samrt_is_dir(o->gt_root), SAMRT_E_IO, "GT folder %s does not exist", o->gt_root);
    SAMRT_CHECK(samrt_is_dir(o->pred_root), SAMRT_E_IO, "prediction folder %s does not exist", o->pred_root);
    struct samrt_names pdirs = {0}, pfiles = {0}, gdirs = {0}, gfiles = {0}, videos = {0};
    struct samrt_names want = {0}, gsel = {0}, psel = {0}, gt_only = {0}, pred_only = {0};
    struct obj_task *tasks = NULL;
    int n_tasks = 0;
    double *jo = NULL, *fo = NULL;
    enum samrt_status st = samrt_list_dir(o->pred_root, &pdirs, &pfiles);
    if (st == SAMRT_OK) st = resolve_gt_root(o->gt_root, pdirs.n + pfiles.n, &r->gt_root);
    if (st == SAMRT_OK) st = samrt_list_dir(r->gt_root, &gdirs, &gfiles);

    if (st == SAMRT_OK) st = select_videos(o, r->gt_root, &gdirs, &pdirs, &want, &gsel, &psel);
    if (st == SAMRT_OK) st = names_filter(&gsel, &psel, 0, &gt_only);
    if (st == SAMRT_OK) st = names_filter(&psel, &gsel, 0, &pred_only);
    if (st == SAMRT_OK && o->strict && (gt_only.n || pred_only.n)) {
        r->strict_failed = 1;
        r->gt_only = names_take(&gt_only, &r->n_gt_only);
        r->pred_only = names_take(&pred_only, &r->n_pred_only);
        st = SAMRT_E_FORMAT;
    }
    if (st == SAMRT_OK) st = names_filter(&gsel, &psel, 1, &videos);
    r->n_gt_videos = gsel.n;
    r->n_skipped = gsel.n - videos.n;
    if (st == SAMRT_OK && videos.n == 0) {
        SAMRT_LOG_ERROR("no video of %s has a prediction folder in %s", r->gt_root, o->pred_root);
        st = SAMRT_E_INVALID_ARG;
    }
    if (st == SAMRT_OK) {
        r->videos = names_take(&videos, &r->n_videos);
        st = build_tasks(r->gt_root, r->videos, r->n_videos, &tasks, &n_tasks);
    }
    if (st == SAMRT_OK && n_tasks == 0) {
        SAMRT_LOG_ERROR("no object folders to evaluate in %s", r->gt_root);
        st = SAMRT_E_INVALID_ARG;
    }
    if (st == SAMRT_OK) {
        struct run_ctx c;
        memset(&c, 0, sizeof c);
        c.gt_root = r->gt_root;
        c.pred_root = o->pred_root;
        c.videos = r->videos;
        c.tasks = tasks;
        c.n_tasks = n_tasks;
        c.keep_first_last = o->keep_first_last;
        pthread_mutex_init(&c.mu, NULL);
        st = run_tasks(&c, o->n_threads > 0 ? o->n_threads : default_threads());
        pthread_mutex_destroy(&c.mu);
    }
    /* Objects with nothing to score: the reference aborts; we fail or leave them out. */
    for (int i = 0; st == SAMRT_OK && i < n_tasks; i++) {
        if (tasks[i].evaluable) continue;
        if (o->skip_unevaluable) {
            SAMRT_LOG_WARN("%s/%s: left out: %s", r->videos[tasks[i].video], tasks[i].obj, tasks[i].why);
            r->n_unevaluable++;
            continue;
        }
        SAMRT_LOG_ERROR("%s/%s: not evaluable: %s (the reference aborts here; --skip_unevaluable leaves such "
                        "objects out)", r->videos[tasks[i].video], tasks[i].obj, tasks[i].why);
        r->n_unevaluable++;
    }
    if (st == SAMRT_OK && r->n_unevaluable && !o->skip_unevaluable) st = SAMRT_E_FORMAT;
    if (st == SAMRT_OK) {
        r->rows = (struct samrt_eval_row *)calloc((size_t)n_tasks, sizeof *r->rows);
        jo = (double *)malloc((size_t)n_tasks * sizeof *jo);
        fo = (double *)malloc((size_t)n_tasks * sizeof *fo);
        if (!r->rows || !jo || !fo) st = SAMRT_E_HOST_MEMORY;
    }
    for (int i = 0; st == SAMRT_OK && i < n_tasks; i++) {
        if (!tasks[i].evaluable) continue;
        struct samrt_eval_row *row = &r->rows[r->n_rows];
        row->video = tasks[i].video;
        row->obj = tasks[i].obj;
        tasks[i].obj = NULL;
        row->j = tasks[i].j;
        row->f = tasks[i].f;
        row->jf = (row->j + row->f) / 2;
        row->n_counted = tasks[i].n_counted;
        jo[r->n_rows] = row->j;
        fo[r->n_rows] = row->f;
        r->n_rows++;
    }
    if (st == SAMRT_OK && r->n_rows == 0) {
        SAMRT_LOG_ERROR("no object could be scored");
        st = SAMRT_E_FORMAT;
    }
    if (st == SAMRT_OK) {
        r->j = samrt_eval_mean(jo, (size_t)r->n_rows);
        r->f = samrt_eval_mean(fo, (size_t)r->n_rows);
        r->jf = (r->j + r->f) / 2;
    }
    free(jo);
    free(fo);
    free_tasks(tasks, n_tasks);
    struct samrt_names *lists[] = {&pdirs, &pfiles, &gdirs, &gfiles, &videos, &want, &gsel, &psel, &gt_only, &pred_only};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(lists); i++) samrt_names_free(lists[i]);
    return st;
}

void samrt_eval_result_free(struct samrt_eval_result *r) {
    if (!r) return;
    for (int i = 0; i < r->n_rows; i++) free(r->rows[i].obj);
    free(r->rows);
    for (int i = 0; i < r->n_videos; i++) free(r->videos[i]);
    free(r->videos);
    for (int i = 0; i < r->n_gt_only; i++) free(r->gt_only[i]);
    free(r->gt_only);
    for (int i = 0; i < r->n_pred_only; i++) free(r->pred_only[i]);
    free(r->pred_only);
    free(r->gt_root);
    memset(r, 0, sizeof *r);
}

enum samrt_status samrt_eval_csv(const struct samrt_eval_result *r, char **out) {
    SAMRT_CHECK(r && out, SAMRT_E_INVALID_ARG, "eval csv: NULL argument");
    *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(out, &len);
    SAMRT_CHECK(f, SAMRT_E_HOST_MEMORY, "out of memory");
    /* ml = max(len(video name) for every evaluated video, len("Global score")) */
    int ml = 12;
    for (int i = 0; i < r->n_videos; i++) ml = SAMRT_MAX(ml, (int)strlen(r->videos[i]));
    fprintf(f, "%-*s,%3s, %4s, %4s, %4s\n", ml, "sequence", "obj", "J&F", "J", "F");
    fprintf(f, "%-*s,%3s, %.1f, %.1f, %.1f\n", ml, "Global score", "", r->jf, r->j, r->f);
    for (int i = 0; i < r->n_rows; i++) {
        const struct samrt_eval_row *row = &r->rows[i];
        /* f"{name:03}" on a str left-aligns and fills with '0': "7" prints as "700". */
        char obj[256];
        snprintf(obj, sizeof obj, "%s", row->obj);
        for (size_t k = strlen(obj); k < 3; k++) obj[k] = '0', obj[k + 1] = 0;
        fprintf(f, "%-*s,%s, %4.1f, %4.1f, %4.1f\n", ml, r->videos[row->video], obj, row->jf, row->j, row->f);
    }
    if (fclose(f) != 0 || !*out) {
        free(*out);
        *out = NULL;
        SAMRT_LOG_ERROR("eval csv: out of memory");
        return SAMRT_E_HOST_MEMORY;
    }
    return SAMRT_OK;
}
