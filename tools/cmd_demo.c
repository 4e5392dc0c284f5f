/* cmd_demo.c - `samrt demo`: the main job, run by `cmake --workflow --preset demo`, on the real
 * clip shipped in data/ (40 frames of the SAM 2 notebooks' bedroom video) with nothing else
 * to set up:
 *   1. reports the machine: GPU, or the CPU backend (a few frames at a reduced input size);
 *   2. the clip and its two objects (the notebook's clicks on the two children); in a build
 *      without FFmpeg it says so and uses synthetic shapes instead;
 *   3. the weights: an official checkpoint when there is one (--weights, SAMRT_WEIGHTS, or the
 *      .pt files of ./checkpoints), else EdgeTAM with seeded random weights in the official
 *      format, said loudly (timings and memory are real, the masks mean nothing);
 *   4. `samrt track` with EdgeTAM (and SAM 2.1 tiny when its checkpoint is found): masks,
 *      overlay PNGs and an overlay video;
 *   5. `samrt bench` on the clip (profile_summary.csv, profile_stats.json) and `samrt report`
 *      (the HTML page with overlay thumbnails), then a five-line summary.
 * docs/video.md ("samrt demo") describes the outputs. */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_tracker.h"
#include "ckpt_write.h"
#include "cli.h"
#include "csv.h"
#include "frame_stream.h"
#include "prompts.h"
#include "synth.h"
#include "video.h"

#define PATH_LEN 4096
#define MAX_ARGS 48
#define N_MODELS 2   /* EdgeTAM, SAM 2.1 tiny */
#define HELP_SHOWN 100

static const enum samrt_model_id g_models[N_MODELS] = {SAMRT_MODEL_EDGETAM, SAMRT_MODEL_SAM2_1_TINY};

struct demo {
    const char *out, *video_arg, *weights_arg;
    int force_cpu, use_gpu, frames, imgsz;
    char clip[PATH_LEN];
    char prompts[2][2][32];          /* per object: up to two clicks "x,y" ("" = none) */
    char ckpt[N_MODELS][PATH_LEN];   /* the checkpoint used per model; "" = model not run */
    int random[N_MODELS];            /* 1: seeded random weights */
    char device[300];
};

static int usage(FILE *f, int code) {
    fprintf(f, "usage: samrt demo [--out DIR] [--video FILE] [--weights CKPT|DIR] [--cpu] [--frames N]\n"
               "                  [--imgsz N]\n\n"
               "Runs the real pipeline on the clip shipped in data/: tracks two objects with EdgeTAM (and\n"
               "SAM 2.1 tiny when its checkpoint is found), writes overlay PNGs and an overlay video, runs\n"
               "the bench (profile_summary.csv, profile_stats.json) and the HTML report, and prints a\n"
               "summary. Weights: --weights, else $SAMRT_WEIGHTS, else ./checkpoints/*.pt; without an\n"
               "official checkpoint, seeded random weights in the official format (the masks then mean\n"
               "nothing; timings and memory are real). Without a GPU (or with --cpu) it runs the CPU\n"
               "backend on --frames frames (default 3) at --imgsz (default 256).\n\n"
               "  --out DIR        outputs (default demo)\n"
               "  --video FILE     another clip (its objects: the same two clicks)\n"
               "  --frames N       frames tracked (default: all on a GPU, 3 on the CPU)\n"
               "  --imgsz N        model input side (default 1024 on a GPU, 256 on the CPU)\n"
               "exit: 0 ok, 2 bad usage or input, 3 runtime failure, 4 unavailable\n");
    return code;
}

/* ---- step 2: the clip ------------------------------------------------------------------- */

static int file_exists(const char *p) {
    struct stat sb;
    return p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The shipped clip: the source tree's data/, else the installed copy. */
static const char *default_clip(void) {
#ifdef SAMRT_DEMO_CLIP
    if (file_exists(SAMRT_DEMO_CLIP)) return SAMRT_DEMO_CLIP;
#endif
#ifdef SAMRT_DEMO_CLIP_INSTALLED
    if (file_exists(SAMRT_DEMO_CLIP_INSTALLED)) return SAMRT_DEMO_CLIP_INSTALLED;
#endif
    return NULL;
}

/* Without FFmpeg: one synthetic video, its objects prompted by the first click of their
 * first masks (prompts.h). */
static enum samrt_status synthetic_clip(struct demo *d) {
    char split[PATH_LEN];
    snprintf(split, sizeof split, "%s/synth", d->out);
    struct samrt_synth_params sp = samrt_synth_default_params();
    sp.n_videos = 1, sp.n_objects = 2, sp.n_frames = 24;
    SAMRT_TRY(samrt_synth_write(split, &sp, 1));
    struct samrt_synth_scene scene;
    SAMRT_TRY(samrt_synth_scene_init(&sp, 0, &scene));
    const size_t npx = (size_t)sp.width * (size_t)sp.height;
    const size_t ns = samrt_prompt_scratch_bytes(sp.width, sp.height);
    uint8_t *labels = malloc(npx), *mask = malloc(npx);
    void *scratch = malloc(ns);
    enum samrt_status st = labels && mask && scratch ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) samrt_synth_render(&scene, 0, NULL, labels, NULL);
    for (int k = 0; k < 2 && st == SAMRT_OK; k++) {
        for (size_t i = 0; i < npx; i++) mask[i] = labels[i] == k + 1;
        struct samrt_prompt p;
        st = samrt_prompt_from_mask(SAMRT_PROMPT_POINTS, mask, sp.width, sp.height, scratch, ns, &p);
        if (st == SAMRT_OK) snprintf(d->prompts[k][0], sizeof d->prompts[k][0], "%g,%g", p.points[0].x, p.points[0].y);
    }
    free(labels), free(mask), free(scratch);
    char name[64];
    samrt_synth_video_name(0, name, sizeof name);
    snprintf(d->clip, sizeof d->clip, "%s/JPEGImages_24fps/%s", split, name);
    return st;
}

static enum samrt_status find_clip(struct demo *d) {
    /* the notebook's clicks: object 1 the boy, object 2 the girl */
    snprintf(d->prompts[0][0], sizeof d->prompts[0][0], "210,350");
    snprintf(d->prompts[0][1], sizeof d->prompts[0][1], "250,220");
    snprintf(d->prompts[1][0], sizeof d->prompts[1][0], "400,150");
    if (!samrt_video_available() && !d->video_arg) {
        printf("[2/5] clip: THIS BUILD HAS NO VIDEO INPUT (FFmpeg absent; docs/video.md): the demo tracks "
               "synthetic shapes instead of the bedroom clip\n");
        d->prompts[0][1][0] = 0;
        return synthetic_clip(d);
    }
    const char *clip = d->video_arg ? d->video_arg : default_clip();
    SAMRT_CHECK(clip, SAMRT_E_IO, "samrt demo: the demo clip (data/bedroom_40.mp4) is not found; pass --video FILE");
    snprintf(d->clip, sizeof d->clip, "%s", clip);
    return SAMRT_OK;
}

static void print_clip(const struct demo *d) {
    samrt_frame_stream_t fs = NULL;
    const struct samrt_frame_source src = {d->clip, 1, 0, 0};
    struct samrt_frame_stream_info info = {0};
    if (samrt_frame_stream_open_source(&src, &fs) == SAMRT_OK) samrt_frame_stream_info(fs, &info);
    samrt_frame_stream_close(fs);
    printf("[2/5] clip: %s (%d frames, %dx%d%s%s); object 1: click %s%s%s, object 2: click %s\n", d->clip,
           info.n_frames, info.width, info.height, info.codec[0] ? ", " : "", info.codec, d->prompts[0][0],
           d->prompts[0][1][0] ? " + " : "", d->prompts[0][1], d->prompts[1][0]);
}

/* ---- step 3: the weights ------------------------------------------------------------------ */

/* Takes path for its model when it is EdgeTAM or SAM 2.1 tiny and that model has none yet. */
static void consider(struct demo *d, const char *path) {
    enum samrt_model_id id = SAMRT_MODEL_UNKNOWN;
    if (samrt_ckpt_identify(path, &id) != SAMRT_OK) return;
    for (int m = 0; m < N_MODELS; m++)
        if (id == g_models[m] && !d->ckpt[m][0]) {
            if (!realpath(path, d->ckpt[m])) snprintf(d->ckpt[m], sizeof d->ckpt[m], "%s", path);
        }
}

/* Every .pt / .safetensors of a folder, the canonical names first. */
static void consider_dir(struct demo *d, const char *dir) {
    char path[PATH_LEN];
    for (int m = 0; m < N_MODELS; m++) {
        snprintf(path, sizeof path, "%s/%s", dir, samrt_model_checkpoint_name(g_models[m]));
        if (file_exists(path)) consider(d, path);
    }
    DIR *dp = opendir(dir);
    for (struct dirent *e; dp && (e = readdir(dp));) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".pt") && strcmp(dot, ".safetensors"))) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (file_exists(path)) consider(d, path);
    }
    if (dp) closedir(dp);
}

static void consider_any(struct demo *d, const char *p) {
    if (!p || !*p) return;
    if (samrt_is_dir(p)) consider_dir(d, p);
    else if (file_exists(p)) consider(d, p);
    else fprintf(stderr, "samrt demo: %s: no such file or folder; not used\n", p);
}

/* Official checkpoints where found; EdgeTAM on seeded random weights otherwise. The bench
 * reads them by their canonical names from <out>/weights. */
static enum samrt_status find_weights(struct demo *d) {
    if (d->weights_arg) consider_any(d, d->weights_arg);
    consider_any(d, getenv("SAMRT_WEIGHTS"));
    if (samrt_is_dir("checkpoints")) consider_dir(d, "checkpoints");
    char dir[PATH_LEN], path[PATH_LEN + 64];
    snprintf(dir, sizeof dir, "%s/weights", d->out);
    SAMRT_TRY(samrt_mkdirs(dir));
    for (int m = 0; m < N_MODELS; m++) {
        snprintf(path, sizeof path, "%s/%s", dir, samrt_model_checkpoint_name(g_models[m]));
        unlink(path);
        if (d->ckpt[m][0]) {
            SAMRT_CHECK(symlink(d->ckpt[m], path) == 0, SAMRT_E_IO, "samrt demo: cannot link %s to %s", path,
                        d->ckpt[m]);
            printf("[3/5] weights: %s: official checkpoint %s\n", samrt_model_name(g_models[m]), d->ckpt[m]);
        } else if (g_models[m] == SAMRT_MODEL_EDGETAM) {
            SAMRT_TRY(samrt_ckpt_write_random(path, g_models[m], 0));
            snprintf(d->ckpt[m], sizeof d->ckpt[m], "%s", path);
            d->random[m] = 1;
            printf("[3/5] weights: %s: NO OFFICIAL CHECKPOINT FOUND (--weights, SAMRT_WEIGHTS, ./checkpoints/*.pt):\n"
                   "      RANDOM WEIGHTS (seed 0, official format) in %s.\n"
                   "      THE MASKS AND OVERLAYS FROM RANDOM WEIGHTS ARE NOT MEANINGFUL; timings and memory are real.\n",
                   samrt_model_name(g_models[m]), path);
        } else {
            printf("[3/5] weights: %s: no checkpoint found; not run\n", samrt_model_name(g_models[m]));
        }
    }
    return SAMRT_OK;
}

/* ---- steps 4 and 5: track, bench, report -------------------------------------------------- */

struct argv_buf {
    char *v[MAX_ARGS + 1];
    char store[MAX_ARGS][PATH_LEN + 64];
    int n;
};

/* One more argument, printf-style. */
static void SAMRT_PRINTF(2, 3) arg(struct argv_buf *a, const char *fmt, ...) {
    if (a->n == MAX_ARGS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->store[a->n], sizeof a->store[a->n], fmt, ap);
    va_end(ap);
    a->v[a->n] = a->store[a->n];
    a->v[++a->n] = NULL;
}

/* Prints the command line of a step, then runs the subcommand. */
static int run_step(const char *step, samrt_cmd_fn fn, struct argv_buf *a) {
    printf("%s: samrt", step);
    for (int i = 0; i < a->n; i++) printf(" %s", a->v[i]);
    printf("\n");
    fflush(stdout);
    return fn(a->n, a->v);
}

/* The options of track and bench alike: prompts, frames, size, platform. */
static void common_args(const struct demo *d, struct argv_buf *a, int bench) {
    for (int k = 0; k < 2; k++) {
        if (k && bench) arg(a, "--object");
        if (k && !bench) arg(a, "--obj"), arg(a, "2");
        for (int c = 0; c < 2; c++)
            if (d->prompts[k][c][0]) arg(a, "--point"), arg(a, "%s", d->prompts[k][c]);
    }
    if (d->frames) arg(a, "--max-frames"), arg(a, "%d", d->frames);
    arg(a, "--imgsz"), arg(a, "%d", d->imgsz);
    if (!d->use_gpu) arg(a, "--platform"), arg(a, "cpu"), arg(a, "--precision"), arg(a, "fp32");
}

static int run_track(const struct demo *d, int m) {
    struct argv_buf a = {.n = 0};
    const char *name = samrt_model_name(g_models[m]);
    arg(&a, "track");
    arg(&a, "--weights"), arg(&a, "%s", d->ckpt[m]);
    arg(&a, samrt_frame_source_is_folder(d->clip) ? "--frames" : "--video"), arg(&a, "%s", d->clip);
    common_args(d, &a, 0);
    arg(&a, "--out"), arg(&a, "%s/%s/masks", d->out, name);
    arg(&a, "--overlay-dir"), arg(&a, "%s/%s/overlays", d->out, name);
    if (samrt_video_available()) arg(&a, "--overlay-video"), arg(&a, "%s/%s/overlay.mp4", d->out, name);
    return run_step("[4/5] track", samrt_cmd_track, &a);
}

static int run_bench(const struct demo *d) {
    struct argv_buf a = {.n = 0};
    char models[128] = "";
    for (int m = 0; m < N_MODELS; m++)
        if (d->ckpt[m][0])
            snprintf(models + strlen(models), sizeof models - strlen(models), "%s%s_points", models[0] ? "," : "",
                     samrt_model_name(g_models[m]));
    arg(&a, "bench");
    arg(&a, "--video"), arg(&a, "%s", d->clip);
    common_args(d, &a, 1);
    arg(&a, "--models"), arg(&a, "%s", models);
    arg(&a, "--weights_dir"), arg(&a, "%s/weights", d->out);
    arg(&a, "--out_dir"), arg(&a, "%s/bench", d->out);
    arg(&a, "--warmup"), arg(&a, d->use_gpu ? "1" : "0");
    arg(&a, "--runs"), arg(&a, d->use_gpu ? "3" : "1");
    return run_step("[5/5] bench", samrt_cmd_bench, &a);
}

static int run_report(const struct demo *d) {
    struct argv_buf a = {.n = 0};
    arg(&a, "report");
    arg(&a, "%s/bench/profile_summary.csv", d->out);
    arg(&a, "-o"), arg(&a, "%s/report.html", d->out);
    arg(&a, "--title"), arg(&a, "samrt demo");
    arg(&a, "--thumbs"), arg(&a, "%s/%s/%s", d->out, samrt_model_name(g_models[0]),
                              samrt_video_available() ? "overlay.mp4" : "overlays");
    return run_step("[5/5] report", samrt_cmd_report, &a);
}

/* ---- summary ---------------------------------------------------------------------------- */

/* The mean of column `col` over the CSV rows of model tag, NaN when none. */
static double column_mean(const struct samrt_csv *t, const char *tag, const char *col) {
    const int cm = samrt_csv_col(t, "model"), cc = samrt_csv_col(t, col);
    double sum = 0;
    int n = 0;
    for (size_t r = 1; cm >= 0 && cc >= 0 && r < t->n_rows; r++) {
        double v;
        if (strcmp(samrt_csv_cell(t, r, cm), tag) || samrt_parse_double(samrt_csv_cell(t, r, cc), &v)) continue;
        sum += v, n++;
    }
    return n ? sum / n : NAN;
}

static void print_summary(const struct demo *d) {
    char path[PATH_LEN + 64], err[256], models[512] = "", ms[512] = "", arena[512] = "";
    snprintf(path, sizeof path, "%s/bench/profile_summary.csv", d->out);
    struct samrt_csv t;
    memset(&t, 0, sizeof t);
    const int have_csv = samrt_csv_read_table(path, &t, err, sizeof err) == SAMRT_OK;
    for (int m = 0; m < N_MODELS; m++) {
        if (!d->ckpt[m][0]) continue;
        const char *name = samrt_model_name(g_models[m]);
        char tag[64];
        snprintf(tag, sizeof tag, "%s_points", name);
        size_t n = strlen(models);
        snprintf(models + n, sizeof models - n, "%s%s (%s)", n ? ", " : "", name,
                 d->random[m] ? "RANDOM WEIGHTS: masks not meaningful, timings and memory real" : "official weights");
        n = strlen(ms);
        snprintf(ms + n, sizeof ms - n, "%s%s p50 %.2f p95 %.2f", n ? ", " : "", name,
                 have_csv ? column_mean(&t, tag, "latency_p50_ms") : NAN,
                 have_csv ? column_mean(&t, tag, "latency_p95_ms") : NAN);
        n = strlen(arena);
        snprintf(arena + n, sizeof arena - n, "%s%s %.1f", n ? ", " : "", name,
                 have_csv ? column_mean(&t, tag, "gpu_peak_alloc_MiB") : NAN);
    }
    samrt_csv_free(&t);
    printf("\n---- samrt demo ----\n");
    printf("model      %s\n", models);
    printf("ms/frame   %s  (%s, %d px, %s)\n", ms, d->device, d->imgsz, d->use_gpu ? "GPU" : "CPU backend");
    printf("arena MiB  %s\n", arena);
    if (samrt_video_available())
        printf("overlays   %s/<model>/overlay.mp4 and overlays/*.png; masks in %s/<model>/masks\n", d->out, d->out);
    else
        printf("overlays   %s/<model>/overlays/*.png (no overlay video: FFmpeg absent); masks in %s/<model>/masks\n",
               d->out, d->out);
    printf("profile    %s/bench/profile_summary.csv, profile_stats.json; report %s/report.html\n", d->out, d->out);
}

/* ---- the command ---------------------------------------------------------------------- */

static int parse(int argc, char **argv, struct demo *d) {
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},     {"video", required_argument, 0, 'v'},
                                         {"weights", required_argument, 0, 'w'}, {"frames", required_argument, 0, 'f'},
                                         {"imgsz", required_argument, 0, 's'},   {"cpu", no_argument, 0, 'c'},
                                         {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    memset(d, 0, sizeof *d);
    d->out = "demo";
    long v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': d->out = optarg; break;
        case 'v': d->video_arg = optarg; break;
        case 'w': d->weights_arg = optarg; break;
        case 'c': d->force_cpu = 1; break;
        case 'f':
            if (samrt_parse_int(optarg, 1, 1 << 30, &v)) return usage(stderr, SAMRT_EXIT_USAGE);
            d->frames = (int)v;
            break;
        case 's':
            if (samrt_parse_int(optarg, 64, 4096, &v)) return usage(stderr, SAMRT_EXIT_USAGE);
            d->imgsz = (int)v;
            break;
        case 'h': usage(stdout, SAMRT_EXIT_OK); return HELP_SHOWN;
        default: return usage(stderr, SAMRT_EXIT_USAGE);
        }
    }
    return optind == argc ? 0 : usage(stderr, SAMRT_EXIT_USAGE);
}

/* Step 1: GPU or CPU backend, and the sizes that follow from it. */
static void pick_device(struct demo *d) {
    int n_dev = 0;
    samrt_device_count(&n_dev);
    struct samrt_device_info dev;
    d->use_gpu = samrt_has_cuda() && n_dev > 0 && !d->force_cpu && samrt_device_query(0, &dev) == SAMRT_OK;
    if (d->use_gpu) {
        snprintf(d->device, sizeof d->device, "%s", dev.name);
        printf("[1/5] device: %s (sm_%d%d, %d SMs, %.1f GiB): GPU path\n", dev.name, dev.cc_major, dev.cc_minor,
               dev.sm_count, dev.total_bytes / 1073741824.0);
    } else {
        snprintf(d->device, sizeof d->device, "cpu");
        if (!d->frames) d->frames = 3;
        printf("[1/5] device: %s: the CPU backend (the C reference kernels) on %d frames at a reduced input size; "
               "it is slow, the numbers are not a GPU's\n",
               d->force_cpu ? "--cpu" : samrt_has_cuda() ? "no GPU is visible" : "a CPU-only build", d->frames);
    }
    if (!d->imgsz) d->imgsz = d->use_gpu ? 1024 : 256;
}

int samrt_cmd_demo(int argc, char **argv) {
    static struct demo d;
    const int rc = parse(argc, argv, &d);
    if (rc) return rc == HELP_SHOWN ? SAMRT_EXIT_OK : rc;
    pick_device(&d);
    enum samrt_status st = samrt_mkdirs(d.out);
    if (st == SAMRT_OK) st = find_clip(&d);
    if (st != SAMRT_OK) return samrt_exit_code(st);
    print_clip(&d);
    if ((st = find_weights(&d)) != SAMRT_OK) return samrt_exit_code(st);
    for (int m = 0; m < N_MODELS; m++) {
        if (!d.ckpt[m][0]) continue;
        const int code = run_track(&d, m);
        if (code) return code;
    }
    int code = run_bench(&d);
    if (!code) code = run_report(&d);
    if (code) return code;
    print_summary(&d);
    return SAMRT_EXIT_OK;
}
