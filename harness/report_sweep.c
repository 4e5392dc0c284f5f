/* report_sweep.c - the throughput-vs-latency chart of a sweep for `samrt report` (see
 * report_sweep.h). A sweep over objects shows what one more object costs per frame and buys in
 * object-frames per second; a sweep over streams shows the same for one more video on the same
 * weights. Both are one chart: each configuration is a point at its medians, joined into lines
 * along the dimension that varies, so a reader sees the trade of each model at a glance.
 *
 * The rows are read as text from the CSV table (merged files included) and grouped by
 * (model, platform) in order of first appearance, as the report's other charts are; a row
 * without a `streams` cell is one stream (a sweep file written before the streams columns).
 * Tested by tests/test_report.c. */
#include "report_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "report_html.h"
#include "stats.h"
#include "util.h"

struct sweep_rows {
    const struct samrt_csv *t;
    size_t n_groups;
    size_t *group;           /* (n_rows) the (model, platform) group of each row */
    int *objects, *streams;  /* (n_rows) 0: not a sweep row */
    size_t *first;           /* (n_groups) a row of each group */
    double *scratch;         /* (n_rows) */
};

/* A count cell: its value, dflt when empty (or the column is absent), 0 when not a count. */
static int count_cell(const struct samrt_csv *t, size_t row, int col, int dflt) {
    const char *s = samrt_csv_cell(t, row, col);
    long v;
    if (!*s) return dflt;
    return samrt_parse_int(s, 1, 1 << 20, &v) ? 0 : (int)v;
}

/* Groups every row and reads the counts of the sweep rows; the number of sweep rows. */
static size_t read_rows(struct sweep_rows *s) {
    const struct samrt_csv *t = s->t;
    const int c_model = samrt_csv_col(t, "model"), c_plat = samrt_csv_col(t, "platform");
    const int c_obj = samrt_csv_col(t, "objects"), c_k = samrt_csv_col(t, "streams");
    size_t n_sweep = 0;
    for (size_t i = 1; i < t->n_rows; i++) {
        const char *m = samrt_csv_cell(t, i, c_model), *p = samrt_csv_cell(t, i, c_plat);
        size_t g = 0;
        while (g < s->n_groups && (strcmp(samrt_csv_cell(t, s->first[g], c_model), m) ||
                                   strcmp(samrt_csv_cell(t, s->first[g], c_plat), p)))
            g++;
        if (g == s->n_groups) s->first[s->n_groups++] = i;
        s->group[i] = g;
        s->objects[i] = c_obj < 0 ? 0 : count_cell(t, i, c_obj, 0);
        s->streams[i] = s->objects[i] ? count_cell(t, i, c_k, 1) : 0;
        if (!s->streams[i]) s->objects[i] = 0;
        n_sweep += s->objects[i] > 0;
    }
    return n_sweep;
}

/* Rows of group g with n objects (0: any) and k streams (0: any). */
static int is_point_row(const struct sweep_rows *s, size_t i, size_t g, int n, int k) {
    return s->group[i] == g && s->objects[i] && (!n || s->objects[i] == n) && (!k || s->streams[i] == k);
}

/* The median of column name over the rows of configuration (g, n, k); NaN when none. */
static double median_of(struct sweep_rows *s, size_t g, int n, int k, const char *name) {
    const int c = samrt_csv_col(s->t, name);
    size_t m = 0;
    for (size_t i = 1; c >= 0 && i < s->t->n_rows; i++) {
        double v;
        const char *cell = samrt_csv_cell(s->t, i, c);
        if (is_point_row(s, i, g, n, k) && *cell && !samrt_parse_double(cell, &v) && isfinite(v)) s->scratch[m++] = v;
    }
    struct samrt_stats st;
    return samrt_stats_compute(s->scratch, m, &st) == SAMRT_OK ? st.median : NAN;
}

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* The distinct object counts (which 0) or stream counts (1) of group g's sweep rows, ascending. */
static size_t distinct_counts(const struct sweep_rows *s, size_t g, int which, int *out) {
    size_t n = 0;
    for (size_t i = 1; i < s->t->n_rows; i++) {
        if (!is_point_row(s, i, g, 0, 0)) continue;
        const int v = which ? s->streams[i] : s->objects[i];
        size_t j = 0;
        while (j < n && out[j] != v) j++;
        if (j == n) out[n++] = v;
    }
    qsort(out, n, sizeof *out, cmp_int);
    return n;
}

/* The chart's series and points, in arrays of one entry per point (a series has at least one). */
struct sweep_chart {
    struct samrt_html_xy_series *se;
    char (*names)[224];
    double *x, *y, *hi;
    char (*text)[24];
    const char **labels;
    size_t n_series, used;
    const char *x_col;
    int any_streams;
};

/* One point of the current series (the last one) at configuration (g, n, k). */
static void add_point(struct sweep_rows *s, struct sweep_chart *c, size_t g, int n, int k, int by_streams) {
    const size_t u = c->used++;
    if (by_streams) snprintf(c->text[u], sizeof c->text[u], "%dx", k);
    else snprintf(c->text[u], sizeof c->text[u], c->any_streams ? "%dobj" : "%d", n);
    c->labels[u] = c->text[u];
    c->x[u] = median_of(s, g, n, k, c->x_col);
    c->y[u] = median_of(s, g, n, k, "ms_per_frame_p50");
    c->hi[u] = median_of(s, g, n, k, "ms_per_frame_p95");
    c->se[c->n_series - 1].n++;
}

/* Starts a series named after group g ("model / platform") and what it holds fixed. */
static void open_series(const struct sweep_rows *s, struct sweep_chart *c, size_t g, const char *what, int v) {
    const struct samrt_csv *t = s->t;
    const char *m = samrt_csv_cell(t, s->first[g], samrt_csv_col(t, "model"));
    const char *p = samrt_csv_cell(t, s->first[g], samrt_csv_col(t, "platform"));
    char *name = c->names[c->n_series];
    int len = snprintf(name, sizeof c->names[0], "%.100s%s%.100s", m, *p ? " / " : "", p);
    if (what) snprintf(name + len, sizeof c->names[0] - (size_t)len, ", %d %s%s", v, what, v == 1 ? "" : "s");
    c->se[c->n_series++] = (struct samrt_html_xy_series){name, 0, c->x + c->used, c->y + c->used, c->hi + c->used,
                                                         c->labels + c->used};
}

/* Group g's lines: along the streams when it has one object count and several stream
 * counts, else along the objects, one line per stream count. */
static void group_series(struct sweep_rows *s, struct sweep_chart *c, size_t g, int *objs, int *ks) {
    const size_t n_o = distinct_counts(s, g, 0, objs), n_k = distinct_counts(s, g, 1, ks);
    if (n_o == 1 && n_k > 1) {
        open_series(s, c, g, "object", objs[0]);
        for (size_t j = 0; j < n_k; j++) add_point(s, c, g, objs[0], ks[j], 1);
        return;
    }
    for (size_t j = 0; j < n_k; j++) {
        open_series(s, c, g, c->any_streams ? "stream" : NULL, ks[j]);
        for (size_t o = 0; o < n_o; o++) {
            size_t i = 1;
            while (i < s->t->n_rows && !is_point_row(s, i, g, objs[o], ks[j])) i++;
            if (i < s->t->n_rows) add_point(s, c, g, objs[o], ks[j], 0);
        }
    }
}

static void draw(FILE *f, const struct sweep_chart *c) {
    const struct samrt_html_xy x = {
        c->any_streams ? "Throughput vs latency (sweep over objects and streams)"
                       : "Throughput vs latency (object sweep)",
        c->any_streams ? "object-frames per second, all streams together (higher is better)"
                       : "object-frames per second (higher is better)",
        "ms per frame, p50 (lower is better)", c->n_series, c->se, c->any_streams ? "configuration" : "objects",
        "ms/frame p95",
        c->any_streams
            ? "One point per configuration, the median over its rows (e.g. videos): x aggregate_object_frames_per_s "
              "(the objects times the frames of all K streams per second of the slowest stream), y ms/frame p50 of "
              "one push, the whisker up to ms/frame p95. A line per model, platform and stream count, its points "
              "labelled by objects (Nobj); where only the streams vary, one line across them (Kx). The other "
              "charts take every row of a model, configurations included."
            : "One point per object count (its label), the median over the rows of that count: x object-frames/s, "
              "y ms/frame p50, the whisker up to ms/frame p95. The other charts take every row of a model, "
              "configurations included."};
    samrt_html_xy_chart(f, &x);
}

int samrt_report_sweep_chart(FILE *f, const struct samrt_csv *t) {
    const size_t cap = t && t->n_rows ? t->n_rows : 1;
    struct sweep_rows s = {t, 0, calloc(cap, sizeof(size_t)), calloc(cap, sizeof(int)), calloc(cap, sizeof(int)),
                           calloc(cap, sizeof(size_t)), malloc(cap * sizeof(double))};
    struct sweep_chart c = {calloc(cap, sizeof *c.se), calloc(cap, sizeof *c.names), malloc(cap * sizeof(double)),
                            malloc(cap * sizeof(double)), malloc(cap * sizeof(double)), calloc(cap, sizeof *c.text),
                            calloc(cap, sizeof(const char *)), 0, 0, NULL, 0};
    int *objs = malloc(cap * sizeof(int)), *ks = malloc(cap * sizeof(int));
    int rc = s.group && s.objects && s.streams && s.first && s.scratch && c.se && c.names && c.x && c.y && c.hi &&
                     c.text && c.labels && objs && ks
                 ? 0
                 : -1;
    if (!rc && t && samrt_csv_col(t, "model") >= 0 && read_rows(&s)) {
        for (size_t i = 1; i < t->n_rows; i++) c.any_streams |= s.streams[i] > 1;
        c.x_col = c.any_streams && samrt_csv_col(t, "aggregate_object_frames_per_s") >= 0
                      ? "aggregate_object_frames_per_s"
                      : "object_frames_per_s";
        for (size_t g = 0; g < s.n_groups; g++) group_series(&s, &c, g, objs, ks);
        draw(f, &c);
    }
    free(s.group), free(s.objects), free(s.streams), free(s.first), free(s.scratch);
    free(c.se), free(c.names), free(c.x), free(c.y), free(c.hi), free(c.text), free(c.labels);
    free(objs), free(ks);
    return rc;
}

const struct samrt_profile_col *samrt_report_sweep_columns(size_t *n, size_t *n_required) {
    struct samrt_profile_row row;  /* one sweep row: the file's columns then include the sweep's */
    samrt_profile_row_init(&row);
    row.objects = 1;
    size_t n_base, n_all;
    samrt_profile_columns(&n_base);
    const struct samrt_profile_col *all = samrt_profile_file_columns(&row, 1, &n_all);
    size_t req = n_base;
    while (req < n_all && strcmp(all[req].name, "streams")) req++;
    if (n) *n = n_all - n_base;
    if (n_required) *n_required = req - n_base;
    return all + n_base;
}

const char *samrt_report_sweep_missing(const struct samrt_csv *t, int all) {
    static const char *const read[] = {"objects", "ms_per_frame_p50", "ms_per_frame_p95", "object_frames_per_s"};
    size_t n, n_req;
    const struct samrt_profile_col *cols = samrt_report_sweep_columns(&n, &n_req);
    int any = 0, any_streams = 0, rows = 0;
    for (size_t i = 0; i < n; i++) {
        const int has = samrt_csv_col(t, cols[i].name) >= 0;
        any |= has;
        any_streams |= has && i >= n_req;
    }
    const int c_obj = samrt_csv_col(t, "objects");
    for (size_t r = 1; c_obj >= 0 && r < t->n_rows && !rows; r++) rows = *samrt_csv_cell(t, r, c_obj) != '\0';
    if (!any || (!all && c_obj >= 0 && !rows)) return NULL;
    for (size_t i = 0; all && i < n; i++)
        if ((i < n_req || any_streams) && samrt_csv_col(t, cols[i].name) < 0) return cols[i].name;
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(read); i++)
        if (samrt_csv_col(t, read[i]) < 0) return read[i];
    return NULL;
}
