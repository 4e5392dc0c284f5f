/* cmd_compare.c - `samrt compare BASELINE.csv LATEST.csv [--threshold fps=5%,...]`: the
 * regression gate. For each (platform, model) present in both files and each metric with a
 * threshold, compares the medians over the rows (medians, not means, so one disturbed run
 * does not decide) and flags a regression when the latest value is worse than the baseline
 * by more than the threshold. Direction comes from the column table (profile.c): fps and
 * J/F/J&F are better higher; times and memory are better lower.
 *
 * A threshold is relative ("5%": of the baseline median) or absolute ("0.5": in the
 * metric's unit); "off" drops a default. Rows are grouped by platform and model, so a
 * merged multi-machine CSV compares like with like; --by-model ignores platform (to
 * compare one machine against another). Empty cells are absent and are not counted.
 *
 * Sweep rows (`samrt bench --objects`, `--streams`: an `objects` value) are compared
 * configuration by configuration: their group is (platform, model, objects N, streams K),
 * printed as "model objects=N" (";streams=K" when K > 1), never mixed with the ordinary rows
 * of the model, so a merged file of both compares each part with its own baseline. The
 * sweep's metrics have thresholds too (ms_per_frame_p95, object_frames_per_s,
 * aggregate_object_frames_per_s by default). A sweep CSV missing one of the sweep's columns
 * is refused, naming the file and the column.
 *
 * Exit: 0 no regression, 1 at least one regression, 2 bad input (unreadable or malformed
 * CSV, no model column, bad threshold, nothing in common to compare). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "profile.h"
#include "report_sweep.h"
#include "stats.h"

struct threshold {
    const struct samrt_profile_col *col;
    double value;
    int relative;  /* value is a percentage of the baseline median */
    int off;
};

/* Defaults: throughput and latency get room for run-to-run noise; the arena high-water
 * mark is a deterministic plan, so its bound is tight. */
static const struct { const char *name, *spec; } g_defaults[] = {
    {"fps", "5%"},
    {"latency_ms", "10%"},
    {"latency_p50_ms", "10%"},
    {"latency_p95_ms", "10%"},
    {"latency_p99_ms", "15%"},
    {"gpu_peak_alloc_MiB", "1%"},
    {"gpu_peak_reserved_MiB", "5%"},
    {"cpu_peak_rss_MiB", "10%"},
    {"J&F", "0.5"},
    /* sweep rows */
    {"ms_per_frame_p95", "10%"},
    {"object_frames_per_s", "5%"},
    {"aggregate_object_frames_per_s", "5%"},
};

#define MAX_THRESHOLDS 64

static int parse_threshold_value(const char *s, struct threshold *t) {
    if (!strcmp(s, "off")) {
        t->off = 1;
        return 0;
    }
    char buf[64];
    size_t n = strlen(s);
    if (!n || n >= sizeof buf) return -1;
    memcpy(buf, s, n + 1);
    t->relative = buf[n - 1] == '%';
    if (t->relative) buf[n - 1] = '\0';
    t->off = 0;
    return samrt_parse_double(buf, &t->value) || !(t->value >= 0) || !isfinite(t->value) ? -1 : 0;
}

/* The columns a threshold may name: the profile table's, then the sweep's. */
static const struct samrt_profile_col *col_at(size_t i, size_t *n) {
    size_t n_base, n_sweep;
    const struct samrt_profile_col *base = samrt_profile_columns(&n_base);
    const struct samrt_profile_col *sweep = samrt_report_sweep_columns(&n_sweep, NULL);
    *n = n_base + n_sweep;
    return i < n_base ? &base[i] : i < *n ? &sweep[i - n_base] : NULL;
}

static const struct samrt_profile_col *find_col(const char *name) {
    size_t n = 1;
    for (size_t i = 0; i < n; i++) {
        const struct samrt_profile_col *c = col_at(i, &n);
        if (c && !strcmp(c->name, name)) return c;
    }
    return NULL;
}

/* Sets or adds name=value pairs from a comma-separated spec. */
static int add_thresholds(const char *spec, struct threshold *th, int *n_th) {
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf) return -1;
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            fprintf(stderr, "samrt compare: threshold '%s' is not metric=value\n", item);
            return -1;
        }
        *eq = '\0';
        const struct samrt_profile_col *col = find_col(item);
        if (!col || col->kind != SAMRT_PCOL_REAL || col->better == 0) {
            fprintf(stderr, "samrt compare: '%s' is not a metric with a direction (see docs/profiling.md)\n",
                    item);
            return -1;
        }
        struct threshold t = {col, 0, 0, 0};
        if (parse_threshold_value(eq + 1, &t)) {
            fprintf(stderr, "samrt compare: bad threshold '%s' for %s (use 5%%, 0.5 or off)\n", eq + 1, item);
            return -1;
        }
        int k = 0;
        while (k < *n_th && th[k].col != col) k++;
        if (k == MAX_THRESHOLDS) return -1;
        th[k] = t;
        if (k == *n_th) (*n_th)++;
    }
    return 0;
}

struct table {
    const char *path;
    struct samrt_csv csv;
    int c_model, c_platform, c_objects, c_streams;
};

static int load(struct table *t, const char *path) {
    char err[256];
    t->path = path;
    if (samrt_csv_read_table(path, &t->csv, err, sizeof err) != SAMRT_OK) {
        fprintf(stderr, "samrt compare: %s: %s\n", path, err);
        return -1;
    }
    t->c_model = samrt_csv_col(&t->csv, "model");
    t->c_platform = samrt_csv_col(&t->csv, "platform");
    t->c_objects = samrt_csv_col(&t->csv, "objects");
    t->c_streams = samrt_csv_col(&t->csv, "streams");
    if (t->c_model < 0) {
        fprintf(stderr, "samrt compare: %s: no 'model' column\n", path);
        return -1;
    }
    const char *missing = samrt_report_sweep_missing(&t->csv, 0);
    if (missing) {
        fprintf(stderr, "samrt compare: %s: a sweep CSV (samrt bench --objects, --streams) without its column '%s'\n",
                path, missing);
        return -1;
    }
    return 0;
}

/* The configuration of row r: "" for an ordinary row, "objects=N" or "objects=N;streams=K"
 * (K > 1) for a sweep row. */
static const char *row_config(const struct table *t, size_t r, char *buf, size_t len) {
    const char *obj = samrt_csv_cell(&t->csv, r, t->c_objects), *k = samrt_csv_cell(&t->csv, r, t->c_streams);
    buf[0] = '\0';
    if (*obj && (!*k || !strcmp(k, "1"))) snprintf(buf, len, "objects=%s", obj);
    else if (*obj) snprintf(buf, len, "objects=%s;streams=%s", obj, k);
    return buf;
}

struct group {
    const char *platform, *model, *config;
    int by_model;
};

static int same_group(const struct table *t, size_t r, const struct group *g) {
    char cfg[96];
    return !strcmp(samrt_csv_cell(&t->csv, r, t->c_model), g->model) &&
           (g->by_model || !strcmp(samrt_csv_cell(&t->csv, r, t->c_platform), g->platform)) &&
           !strcmp(row_config(t, r, cfg, sizeof cfg), g->config);
}

/* The group of row r of t (its strings live in t or in cfg). */
static struct group row_group(const struct table *t, size_t r, int by_model, char *cfg, size_t len) {
    struct group g = {by_model ? "" : samrt_csv_cell(&t->csv, r, t->c_platform),
                      samrt_csv_cell(&t->csv, r, t->c_model), row_config(t, r, cfg, len), by_model};
    return g;
}

/* 1 when some row of t before row `before` (every row: t->csv.n_rows) is in group g. */
static int group_seen(const struct table *t, const struct group *g, size_t before) {
    for (size_t r = 1; r < before; r++)
        if (same_group(t, r, g)) return 1;
    return 0;
}

/* "model" or "model objects=N..." */
static const char *group_label(const struct group *g, char *buf, size_t len) {
    snprintf(buf, len, "%s%s%s", g->model, *g->config ? " " : "", g->config);
    return buf;
}

/* Median of the present values of column name over a group; NaN when none. -1 on a cell
 * that is neither empty nor a number. */
static int group_median(const struct table *t, const struct group *g, const char *name, double *vals, double *out,
                        size_t *n_out) {
    int c = samrt_csv_col(&t->csv, name);
    size_t k = 0;
    *out = NAN;
    *n_out = 0;
    if (c < 0) return 0;
    for (size_t r = 1; r < t->csv.n_rows; r++) {
        if (!same_group(t, r, g)) continue;
        const char *s = samrt_csv_cell(&t->csv, r, c);
        double v;
        if (!*s) continue;
        if (samrt_parse_double(s, &v)) {
            fprintf(stderr, "samrt compare: %s: line %zu: %s '%s' is not a number\n", t->path,
                    t->csv.line[r], name, s);
            return -1;
        }
        if (isfinite(v)) vals[k++] = v;
    }
    struct samrt_stats st;
    if (samrt_stats_compute(vals, k, &st) == SAMRT_OK) {
        *out = st.median;
        *n_out = k;
    }
    return 0;
}

/* Prints one line per metric with a threshold and values in the group; counts the
 * comparisons and regressions. -1 on a malformed cell (the error printed). */
static int compare_group(const struct table *base, const struct table *latest, const struct group *g,
                         const struct threshold *th, int n_th, double *vals, int *n_cmp, int *n_reg) {
    char label[192];
    const char *plat = g->by_model ? "*" : g->platform, *model = group_label(g, label, sizeof label);
    size_t n_cols = 1;
    for (size_t ci = 0; ci < n_cols; ci++) {
        const struct samrt_profile_col *col = col_at(ci, &n_cols);
        const struct threshold *t = NULL;
        for (int k = 0; k < n_th; k++)
            if (th[k].col == col && !th[k].off) t = &th[k];
        if (!t) continue;
        double mb, ml;
        size_t nb, nl;
        if (group_median(base, g, col->name, vals, &mb, &nb) || group_median(latest, g, col->name, vals, &ml, &nl))
            return -1;
        if (!nb || !nl) {
            if (nb || nl) printf("%-18s %-22s %-22s %12s %12s %9s %9s  absent in %s\n", plat, model, col->name, "-",
                                 "-", "-", "-", nb ? "latest" : "baseline");
            continue;
        }
        double worse = col->better > 0 ? mb - ml : ml - mb;  /* > 0: got worse */
        double limit = t->relative ? fabs(mb) * t->value / 100.0 : t->value;
        const char *status = worse > limit ? "REGRESSION" : -worse > limit ? "improved" : "ok";
        char change[32], thr[32];
        if (mb != 0) snprintf(change, sizeof change, "%+.1f%%", (ml - mb) / fabs(mb) * 100.0);
        else snprintf(change, sizeof change, "%+.3g", ml - mb);
        snprintf(thr, sizeof thr, t->relative ? "%g%%" : "%g", t->value);
        printf("%-18s %-22s %-22s %12.3f %12.3f %9s %9s  %s\n", plat, model, col->name, mb, ml, change, thr, status);
        (*n_cmp)++;
        *n_reg += worse > limit;
    }
    return 0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: samrt compare BASELINE.csv LATEST.csv [--threshold METRIC=VALUE,...] [--by-model]\n\n"
               "Compares per-(platform, model) medians and flags regressions beyond a threshold;\n"
               "sweep rows (samrt bench --objects, --streams) per configuration (objects, streams).\n"
               "VALUE is a percentage of the baseline (5%%), an absolute amount in the metric's\n"
               "unit (0.5), or off. Defaults:");
    for (size_t i = 0; i < sizeof g_defaults / sizeof g_defaults[0]; i++)
        fprintf(f, "%s%s=%s", i ? "," : " ", g_defaults[i].name, g_defaults[i].spec);
    fprintf(f, "\nHigher is better for fps, J, F, J&F and the *_per_s throughputs; lower for *_ms and *_MiB.\n\n"
               "  -t, --threshold SPEC   set or add thresholds (repeatable)\n"
               "      --by-model         group by model only, ignoring platform\n\n"
               "exit: 0 no regression, 1 regression found, 2 bad input\n");
}

int samrt_cmd_compare(int argc, char **argv) {
    static const struct option opts[] = {{"threshold", required_argument, 0, 't'},
                                         {"by-model", no_argument, 0, 'm'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct threshold th[MAX_THRESHOLDS];
    int n_th = 0, by_model = 0, c;
    for (size_t i = 0; i < sizeof g_defaults / sizeof g_defaults[0]; i++) {
        char spec[128];
        snprintf(spec, sizeof spec, "%s=%s", g_defaults[i].name, g_defaults[i].spec);
        if (add_thresholds(spec, th, &n_th)) return SAMRT_EXIT_RUNTIME;  /* a broken default table */
    }
    optind = 1;
    while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
        if (c == 't') {
            if (add_thresholds(optarg, th, &n_th)) return SAMRT_EXIT_USAGE;
        } else if (c == 'm') by_model = 1;
        else if (c == 'h') {
            usage(stdout);
            return SAMRT_EXIT_OK;
        } else {
            usage(stderr);
            return SAMRT_EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        usage(stderr);
        return SAMRT_EXIT_USAGE;
    }
    struct table base = {0}, latest = {0};
    int rc = SAMRT_EXIT_USAGE;
    double *vals = NULL;
    if (load(&base, argv[optind]) || load(&latest, argv[optind + 1])) goto done;
    size_t n_max = base.csv.n_rows > latest.csv.n_rows ? base.csv.n_rows : latest.csv.n_rows;
    vals = malloc(n_max * sizeof *vals);
    if (!vals) {
        rc = SAMRT_EXIT_RUNTIME;
        goto done;
    }

    printf("%-18s %-22s %-22s %12s %12s %9s %9s  %s\n", "platform", "model", "metric", "baseline", "latest",
           "change", "threshold", "status");
    int n_cmp = 0, n_reg = 0, n_groups = 0;
    char cfg[96];
    for (size_t r = 1; r < base.csv.n_rows; r++) {
        const struct group g = row_group(&base, r, by_model, cfg, sizeof cfg);
        if (group_seen(&base, &g, r)) continue;  /* handle each group once, at its first row */
        if (!group_seen(&latest, &g, latest.csv.n_rows)) {
            char label[192];
            printf("%-18s %-22s only in the baseline\n", by_model ? "*" : g.platform, group_label(&g, label, sizeof label));
            continue;
        }
        n_groups++;
        if (compare_group(&base, &latest, &g, th, n_th, vals, &n_cmp, &n_reg)) goto done;
    }
    for (size_t s = 1; s < latest.csv.n_rows; s++) {
        const struct group g = row_group(&latest, s, by_model, cfg, sizeof cfg);
        char label[192];
        if (!group_seen(&latest, &g, s) && !group_seen(&base, &g, base.csv.n_rows))
            printf("%-18s %-22s only in the latest\n", by_model ? "*" : g.platform, group_label(&g, label, sizeof label));
    }
    if (!n_groups || !n_cmp) {
        fprintf(stderr, "samrt compare: nothing to compare: %s\n",
                !n_groups ? "no (platform, model) is in both files (try --by-model)"
                          : "no metric with a threshold has values in both files");
        goto done;
    }
    printf("\n%d regression%s in %d comparison%s (%d group%s)\n", n_reg, n_reg == 1 ? "" : "s", n_cmp,
           n_cmp == 1 ? "" : "s", n_groups, n_groups == 1 ? "" : "s");
    rc = n_reg ? SAMRT_EXIT_PROBLEM : SAMRT_EXIT_OK;
done:
    free(vals);
    samrt_csv_free(&base.csv);
    samrt_csv_free(&latest.csv);
    return rc;
}
