/* cmd_report.c - `samrt report merged.csv -o report.html`: one self-contained HTML page
 * (inline CSS and SVG, no script, no external resource) from a profile_summary.csv or a
 * merged CSV. Charts, each the median over the rows of a (model, platform):
 *   1. FPS per model, one bar per platform, whiskers min..max;
 *   2. p95 latency the same way (mean latency_ms when no row has latency_p95_ms);
 *   3. memory per model and platform: gpu_peak_alloc / gpu_peak_reserved / cpu_peak_rss;
 *   4. the per-frame stage breakdown, stacked per model and platform, from the *_ms stage
 *      columns; stages empty in every row are left out and named in a note (not drawn as 0).
 * A run on a checkpoint of seeded random weights (experiment_config.txt beside the CSV has
 * weights.<model>=random) gets a banner at the top saying its masks mean nothing.
 * A summary table lists rows, frames, precision and device per model and platform; with
 * --thumbs, four thumbnails of a run's overlays follow it (harness/thumbs.h, inline JPEGs).
 * When the CSV holds a sweep (`samrt bench --objects`, `--streams`: rows with an `objects`
 * value), a throughput-vs-latency chart comes first (harness/report_sweep.c): per model and
 * platform (and stream count) one line, per configuration one point at the medians of
 * object-frames/s (x; all streams together with --streams) and ms_per_frame_p50 (y), with a
 * whisker up to the median ms_per_frame_p95. Without one it is left out. A file holding both
 * sweep rows and ordinary ones (`samrt merge` of both) draws the sweep rows in that chart and
 * the ordinary rows in the others, and says so; a sweep CSV missing one of the sweep's
 * columns is refused, naming the file and the column.
 *
 * Exit: 0 written, 2 bad input (nothing written), 3 the page could not be written.
 * Run: samrt report merged.csv -o report.html; check it in headless Chromium as
 * docs/profiling.md shows. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "cli.h"
#include "csv.h"
#include "profile.h"
#include "report_html.h"
#include "report_sweep.h"
#include "stats.h"
#include "thumbs.h"

struct group {
    const char *model, *platform;
    char label[160];  /* "model / platform" */
};

struct report {
    const char *path;
    struct samrt_csv csv;
    int c_model, c_platform;
    int c_objects;         /* -1: no sweep columns */
    size_t n_sweep_rows;   /* rows with an `objects` value */
    int plain_only;        /* 1: the ordinary charts skip the sweep rows (the file has both kinds) */
    char random[512];      /* the models that ran on random weights, ", "-joined; "" when none */
    struct group *groups;  /* distinct (model, platform), first-appearance order */
    size_t n_groups;
    const char **models, **platforms;
    const char **platform_labels;  /* legend text: "(no platform)" for an empty cell */
    size_t n_models, n_platforms;
    double *scratch;       /* (n_rows) */
};

static size_t intern(const char **list, size_t *n, const char *s) {
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(list[i], s)) return i;
    list[*n] = s;
    return (*n)++;
}

/* Median, min and max of column name over the rows of (model, platform) whose column `where`
 * holds `is` (every row of the group when where < 0); NaN when none. */
static void group_stats_where(struct report *r, const char *model, const char *platform, int where, const char *is,
                              const char *name, double *med, double *lo, double *hi) {
    *med = *lo = *hi = NAN;
    int c = samrt_csv_col(&r->csv, name);
    if (c < 0) return;
    size_t k = 0;
    for (size_t i = 1; i < r->csv.n_rows; i++) {
        if (strcmp(samrt_csv_cell(&r->csv, i, r->c_model), model) ||
            strcmp(samrt_csv_cell(&r->csv, i, r->c_platform), platform) ||
            (where >= 0 && strcmp(samrt_csv_cell(&r->csv, i, where), is)) ||
            (r->plain_only && *samrt_csv_cell(&r->csv, i, r->c_objects)))
            continue;
        double v;
        const char *s = samrt_csv_cell(&r->csv, i, c);
        if (*s && !samrt_parse_double(s, &v) && isfinite(v)) r->scratch[k++] = v;
    }
    struct samrt_stats st;
    if (samrt_stats_compute(r->scratch, k, &st) != SAMRT_OK) return;
    *med = st.median;
    *lo = st.min;
    *hi = st.max;
}

static void group_stats(struct report *r, const char *model, const char *platform, const char *name, double *med,
                        double *lo, double *hi) {
    group_stats_where(r, model, platform, -1, NULL, name, med, lo, hi);
}

/* 1 when some row has a value in column name. */
static int column_present(const struct report *r, const char *name) {
    int c = samrt_csv_col(&r->csv, name);
    for (size_t i = 1; c >= 0 && i < r->csv.n_rows; i++)
        if (*samrt_csv_cell(&r->csv, i, c)) return 1;
    return 0;
}

/* Chart of one metric: groups = models, series = platforms. */
static int chart_by_platform(FILE *f, struct report *r, const char *title, const char *y_label,
                             const char *metric, const char *note) {
    size_t n = r->n_models * r->n_platforms;
    double *v = malloc(3 * n * sizeof *v);
    if (!v) return -1;
    for (size_t m = 0; m < r->n_models; m++)
        for (size_t p = 0; p < r->n_platforms; p++)
            group_stats(r, r->models[m], r->platforms[p], metric, &v[m * r->n_platforms + p],
                        &v[n + m * r->n_platforms + p], &v[2 * n + m * r->n_platforms + p]);
    struct samrt_html_chart c = {title, y_label, r->n_models, r->models, r->n_platforms, r->platform_labels,
                                 v, v + n, v + 2 * n, 0, note};
    samrt_html_chart(f, &c);
    free(v);
    return 0;
}

/* Chart over (model, platform) groups with one series per column. */
static int chart_by_group(FILE *f, struct report *r, const char *title, const char *y_label,
                          const char *const *cols, size_t n_cols, int stacked, const char *note) {
    const char **labels = malloc(r->n_groups * sizeof *labels);
    double *v = malloc(r->n_groups * n_cols * sizeof *v);
    if (!labels || !v) {
        free(labels);
        free(v);
        return -1;
    }
    for (size_t g = 0; g < r->n_groups; g++) {
        labels[g] = r->groups[g].label;
        for (size_t s = 0; s < n_cols; s++) {
            double lo, hi;
            group_stats(r, r->groups[g].model, r->groups[g].platform, cols[s], &v[g * n_cols + s], &lo, &hi);
        }
    }
    struct samrt_html_chart c = {title, y_label, r->n_groups, labels, n_cols, cols, v, NULL, NULL, stacked, note};
    samrt_html_chart(f, &c);
    free(labels);
    free(v);
    return 0;
}

static void summary_table(FILE *f, struct report *r) {
    static const char *const text_cols[] = {"precision", "device", "driver", "imgsz"};
    fputs("<h2>Runs</h2>\n<table><tr><th>model</th><th>platform</th><th>rows</th><th>frames (median)</th>", f);
    for (size_t k = 0; k < sizeof text_cols / sizeof text_cols[0]; k++) fprintf(f, "<th>%s</th>", text_cols[k]);
    fputs("</tr>\n", f);
    for (size_t g = 0; g < r->n_groups; g++) {
        const struct group *gr = &r->groups[g];
        size_t n = 0, first = 0;
        for (size_t i = 1; i < r->csv.n_rows; i++)
            if (!strcmp(samrt_csv_cell(&r->csv, i, r->c_model), gr->model) &&
                !strcmp(samrt_csv_cell(&r->csv, i, r->c_platform), gr->platform)) {
                if (!n) first = i;
                n++;
            }
        double med, lo, hi;
        group_stats(r, gr->model, gr->platform, "frames", &med, &lo, &hi);
        fputs("<tr><td>", f);
        samrt_html_text(f, gr->model);
        fputs("</td><td class=\"t\">", f);
        samrt_html_text(f, gr->platform[0] ? gr->platform : "-");
        fprintf(f, "</td><td>%zu</td><td>", n);
        if (isnan(med)) fputs("-", f);
        else fprintf(f, "%.0f", med);
        fputs("</td>", f);
        /* the first row's value; these are constant within a run */
        for (size_t k = 0; k < sizeof text_cols / sizeof text_cols[0]; k++) {
            const char *s = samrt_csv_cell(&r->csv, first, samrt_csv_col(&r->csv, text_cols[k]));
            fputs(k < 3 ? "<td class=\"t\">" : "<td>", f);
            samrt_html_text(f, *s ? s : "-");
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The models whose checkpoint held seeded random weights: weights.<model>=random... in the
 * experiment_config.txt beside the CSV (profile_write.c writes it for a bench run). */
static void find_random_weights(struct report *r) {
    char cfg[4096], key[160], val[64];
    const char *slash = strrchr(r->path, '/');
    snprintf(cfg, sizeof cfg, "%.*s%sexperiment_config.txt", slash ? (int)(slash - r->path) : 0, r->path,
             slash ? "/" : "");
    for (size_t m = 0; m < r->n_models; m++) {
        snprintf(key, sizeof key, "weights.%s", r->models[m]);
        if (samrt_profile_config_get(cfg, key, val, sizeof val) != SAMRT_OK || strncmp(val, "random", 6)) continue;
        size_t n = strlen(r->random);
        snprintf(r->random + n, sizeof r->random - n, "%s%s", n ? ", " : "", r->models[m]);
    }
}

static int write_page(FILE *f, struct report *r, const char *title, const struct samrt_thumbs *thumbs) {
    samrt_html_begin(f, title);
    if (r->random[0]) {
        fputs("<p class=\"warn\"><strong>RANDOM WEIGHTS.</strong> ", f);
        samrt_html_text(f, r->random);
        fputs(" ran on a checkpoint of seeded random weights (samrt demo's stand-in when no official checkpoint "
              "is found): the masks and overlays in this report are not meaningful; the timings and memory "
              "are real.</p>\n",
              f);
    }
    char when[32];
    samrt_profile_timestamp((int64_t)time(NULL), when, sizeof when);
    const char *base = strrchr(r->path, '/');
    fputs("<p class=\"meta\">Source: ", f);
    samrt_html_text(f, base ? base + 1 : r->path);
    fprintf(f, " (%zu rows). Generated %s by samrt %d.%d.%d. Bars are medians over runs; whiskers "
               "span min to max. Empty cells (not measured) are never plotted as 0.</p>\n",
            r->csv.n_rows - 1, when, SAMRT_VERSION_MAJOR, SAMRT_VERSION_MINOR, SAMRT_VERSION_PATCH);
    summary_table(f, r);
    samrt_html_thumbnails(f, "Overlays", "A few frames of the run's overlays (each object's mask tinted, outlined "
                          "and labelled with its id), spread from its first frame to its last.", thumbs);
    if (samrt_report_sweep_chart(f, &r->csv)) return -1;
    if (r->plain_only)
        fprintf(f, "<p class=\"note\">This file holds %zu sweep rows (samrt bench --objects, --streams), drawn in the "
                   "chart above, and %zu ordinary rows, drawn in the charts below.</p>\n",
                r->n_sweep_rows, r->csv.n_rows - 1 - r->n_sweep_rows);

    if (chart_by_platform(f, r, "Throughput", "FPS (higher is better)", "fps", NULL)) return -1;
    if (column_present(r, "latency_p95_ms") || !column_present(r, "latency_ms")) {
        if (chart_by_platform(f, r, "p95 latency per frame", "ms (lower is better)", "latency_p95_ms", NULL))
            return -1;
    } else if (chart_by_platform(f, r, "Mean latency per frame", "ms (lower is better)", "latency_ms",
                                 "No row has latency_p95_ms (an older CSV); the mean latency_ms is shown."))
        return -1;
    static const char *const mem[] = {"gpu_peak_alloc_MiB", "gpu_peak_reserved_MiB", "cpu_peak_rss_MiB"};
    if (chart_by_group(f, r, "Memory", "MiB (lower is better)", mem, 3, 0,
                       "gpu_peak_alloc = arena high-water mark; gpu_peak_reserved = device memory the "
                       "process holds; cpu_peak_rss = VmHWM (on unified memory the arena is counted once)."))
        return -1;

    size_t n_cols, n_present = 0, n_absent = 0;
    const struct samrt_profile_col *cols = samrt_profile_columns(&n_cols);
    const char *present[32], *absent[32];
    for (size_t i = 0; i < n_cols; i++) {
        if (!(cols[i].flags & SAMRT_PCOL_STAGE)) continue;
        if (column_present(r, cols[i].name)) {
            if (n_present < 32) present[n_present++] = cols[i].name;
        } else if (n_absent < 32)
            absent[n_absent++] = cols[i].name;
    }
    char note[1024] = "";
    size_t off = 0;
    if (n_absent) {
        off = (size_t)snprintf(note, sizeof note, "Not measured in any row, left out: ");
        for (size_t i = 0; i < n_absent && off < sizeof note; i++)
            off += (size_t)snprintf(note + off, sizeof note - off, "%s%s", i ? ", " : "", absent[i]);
    }
    if (n_present) {
        if (chart_by_group(f, r, "Stage breakdown per frame", "ms per frame (stacked)", present, n_present, 1,
                           n_absent ? note : NULL))
            return -1;
    } else {
        fputs("<h2>Stage breakdown per frame</h2>\n<p class=\"note\">No stage timings in this CSV "
              "(every stage column is empty or missing); nothing to draw.</p>\n",
              f);
    }
    samrt_html_end(f);
    return 0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: samrt report PROFILE.csv -o report.html [--title TEXT] [--thumbs OVERLAYS]\n\n"
               "Writes one self-contained HTML page (inline CSS and SVG, no script, no external\n"
               "resource): FPS, p95 latency and memory per model and platform, and the stacked\n"
               "stage breakdown. Works on profile_summary.csv and on `samrt merge` output; the\n"
               "throughput-vs-latency chart of a sweep (samrt bench --objects, --streams) comes\n"
               "first when the CSV holds one.\n"
               "--thumbs embeds four thumbnails of a run's overlays: a folder of PNG / JPEG frames\n"
               "(samrt track --overlay-dir) or a video (--overlay-video).\n\n"
               "exit: 0 written, 2 bad input, 3 write failed\n");
}

int samrt_cmd_report(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"title", required_argument, 0, 'T'},
                                         {"thumbs", required_argument, 0, 'm'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out_path = NULL, *title = "samrt profile report", *thumbs_src = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        if (c == 'o') out_path = optarg;
        else if (c == 'T') title = optarg;
        else if (c == 'm') thumbs_src = optarg;
        else if (c == 'h') {
            usage(stdout);
            return SAMRT_EXIT_OK;
        } else {
            usage(stderr);
            return SAMRT_EXIT_USAGE;
        }
    }
    if (!out_path || argc - optind != 1) {
        usage(stderr);
        return SAMRT_EXIT_USAGE;
    }
    struct report r = {0};
    static struct samrt_thumbs thumbs;
    memset(&thumbs, 0, sizeof thumbs);
    if (thumbs_src && samrt_thumbs_collect(thumbs_src, 4, 320, &thumbs) != SAMRT_OK)
        fprintf(stderr, "samrt report: %s: no thumbnails (see above); the report goes on without them\n", thumbs_src);
    r.path = argv[optind];
    char err[256];
    if (samrt_csv_read_table(r.path, &r.csv, err, sizeof err) != SAMRT_OK) {
        fprintf(stderr, "samrt report: %s: %s\n", r.path, err);
        samrt_csv_free(&r.csv);
        return SAMRT_EXIT_USAGE;
    }
    int rc = SAMRT_EXIT_USAGE;
    r.c_model = samrt_csv_col(&r.csv, "model");
    r.c_platform = samrt_csv_col(&r.csv, "platform");  /* -1: every row reads as "" */
    if (r.c_model < 0 || r.csv.n_rows < 2) {
        fprintf(stderr, "samrt report: %s: %s\n", r.path, r.c_model < 0 ? "no 'model' column" : "no rows");
        goto done;
    }
    const char *missing = samrt_report_sweep_missing(&r.csv, 0);
    if (missing) {
        fprintf(stderr, "samrt report: %s: a sweep CSV (samrt bench --objects, --streams) without its column '%s'\n",
                r.path, missing);
        goto done;
    }
    r.c_objects = samrt_csv_col(&r.csv, "objects");
    for (size_t i = 1; r.c_objects >= 0 && i < r.csv.n_rows; i++) r.n_sweep_rows += *samrt_csv_cell(&r.csv, i, r.c_objects) != 0;
    r.plain_only = r.n_sweep_rows && r.n_sweep_rows < r.csv.n_rows - 1;
    size_t n = r.csv.n_rows;
    r.groups = calloc(n, sizeof *r.groups);
    r.models = calloc(n, sizeof *r.models);
    r.platforms = calloc(n, sizeof *r.platforms);
    r.platform_labels = calloc(n, sizeof *r.platform_labels);
    r.scratch = malloc(n * sizeof *r.scratch);
    if (!r.groups || !r.models || !r.platforms || !r.platform_labels || !r.scratch) {
        rc = SAMRT_EXIT_RUNTIME;
        goto done;
    }
    for (size_t i = 1; i < n; i++) {
        const char *m = samrt_csv_cell(&r.csv, i, r.c_model), *p = samrt_csv_cell(&r.csv, i, r.c_platform);
        intern(r.models, &r.n_models, m);
        intern(r.platforms, &r.n_platforms, p);
        size_t g = 0;
        while (g < r.n_groups && (strcmp(r.groups[g].model, m) || strcmp(r.groups[g].platform, p))) g++;
        if (g == r.n_groups) {
            r.groups[g].model = m;
            r.groups[g].platform = p;
            snprintf(r.groups[g].label, sizeof r.groups[g].label, "%s%s%s", m, *p ? " / " : "", p);
            r.n_groups++;
        }
    }
    for (size_t p = 0; p < r.n_platforms; p++)
        r.platform_labels[p] = r.platforms[p][0] ? r.platforms[p] : "(no platform)";
    find_random_weights(&r);

    struct samrt_atomic_file af;
    if (samrt_atomic_open(&af, out_path) != SAMRT_OK) {
        rc = SAMRT_EXIT_RUNTIME;
        goto done;
    }
    if (write_page(af.f, &r, title, &thumbs)) {
        samrt_atomic_abort(&af);
        rc = SAMRT_EXIT_RUNTIME;
        goto done;
    }
    if (samrt_atomic_commit(&af) != SAMRT_OK) {
        rc = SAMRT_EXIT_RUNTIME;
        goto done;
    }
    printf("report written to %s (%zu models, %zu platforms, %zu rows)\n", out_path, r.n_models, r.n_platforms,
           n - 1);
    rc = SAMRT_EXIT_OK;
done:
    samrt_thumbs_free(&thumbs);
    free(r.groups);
    free(r.models);
    free(r.platforms);
    free(r.platform_labels);
    free(r.scratch);
    samrt_csv_free(&r.csv);
    return rc;
}
