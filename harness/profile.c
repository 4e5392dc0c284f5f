/* profile.c - result rows, the column table, the CSV / JSON / config writers, statistics
 * and the latency recorder (see profile.h; columns are defined in docs/profiling.md).
 *
 * The column table is the single source of the CSV layout: header, cell formatting, the
 * stats JSON, `samrt compare` directions and the report's stage list all read it, so a new
 * column is one line here plus its field in the row struct. Tested by tests/test_profile.c. */
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "csv.h"
#include "samrt_impl.h"

/* ---- column table -------------------------------------------------------------------- */

#define FIELD_SIZE(f) sizeof(((struct samrt_profile_row *)0)->f)
#define COL_S(name, f) {name, SAMRT_PCOL_STR, offsetof(struct samrt_profile_row, f), FIELD_SIZE(f), 0, 0, 0, ""}
#define COL_I(name, f, unit) {name, SAMRT_PCOL_INT, offsetof(struct samrt_profile_row, f), sizeof(double), 0, 0, 0, unit}
#define COL_R(name, f, dec, better, flags, unit)                                                   \
    {name, SAMRT_PCOL_REAL, offsetof(struct samrt_profile_row, f), sizeof(double), dec, better, flags, unit}
#define GPU_STAGE (SAMRT_PCOL_STAGE | SAMRT_PCOL_GPU_STAGE)

static const struct samrt_profile_col g_cols[] = {
    /* the historical 19, in users' order */
    COL_S("platform", platform),
    COL_S("hostname", hostname),
    COL_S("video", video),
    COL_S("object", object),
    COL_S("model", model),
    COL_I("run", run, ""),
    COL_I("imgsz", imgsz, "px"),
    COL_I("frames", frames, ""),
    COL_R("fps", fps, 3, +1, 0, "FPS"),
    COL_R("latency_ms", latency_ms, 3, -1, 0, "ms"),
    COL_R("gpu_peak_alloc_MiB", gpu_peak_alloc_MiB, 3, -1, 0, "MiB"),
    COL_R("gpu_peak_reserved_MiB", gpu_peak_reserved_MiB, 3, -1, 0, "MiB"),
    COL_R("cpu_peak_rss_MiB", cpu_peak_rss_MiB, 3, -1, 0, "MiB"),
    COL_R("setup_ms", setup_ms, 3, -1, 0, "ms"),
    COL_I("H", H, "px"),
    COL_I("W", W, "px"),
    COL_I("infer_H", infer_H, "px"),
    COL_I("infer_W", infer_W, "px"),
    COL_S("nsight_report", nsight_report),
    /* appended by samrt */
    COL_R("latency_p50_ms", latency_p50_ms, 3, -1, 0, "ms"),
    COL_R("latency_p95_ms", latency_p95_ms, 3, -1, 0, "ms"),
    COL_R("latency_p99_ms", latency_p99_ms, 3, -1, 0, "ms"),
    COL_R("decode_ms", decode_ms, 4, -1, SAMRT_PCOL_STAGE, "ms"),  /* host libjpeg: not GPU time */
    COL_R("preprocess_ms", preprocess_ms, 4, -1, GPU_STAGE, "ms"),
    COL_R("h2d_ms", h2d_ms, 4, -1, GPU_STAGE, "ms"),
    COL_R("image_encoder_ms", image_encoder_ms, 4, -1, GPU_STAGE, "ms"),
    COL_R("memory_attention_ms", memory_attention_ms, 4, -1, GPU_STAGE, "ms"),
    COL_R("prompt_and_mask_decoder_ms", prompt_and_mask_decoder_ms, 4, -1, GPU_STAGE, "ms"),
    COL_R("memory_encoder_ms", memory_encoder_ms, 4, -1, GPU_STAGE, "ms"),
    COL_R("postprocess_ms", postprocess_ms, 4, -1, GPU_STAGE, "ms"),
    COL_R("d2h_ms", d2h_ms, 4, -1, GPU_STAGE, "ms"),
    COL_R("arena_weights_MiB", arena_weights_MiB, 3, -1, SAMRT_PCOL_ARENA, "MiB"),
    COL_R("arena_state_MiB", arena_state_MiB, 3, -1, SAMRT_PCOL_ARENA, "MiB"),
    COL_R("arena_workspace_MiB", arena_workspace_MiB, 3, -1, SAMRT_PCOL_ARENA, "MiB"),
    COL_R("arena_staging_MiB", arena_staging_MiB, 3, -1, SAMRT_PCOL_ARENA, "MiB"),
    COL_R("arena_scratch_MiB", arena_scratch_MiB, 3, -1, SAMRT_PCOL_ARENA, "MiB"),
    COL_R("J", J, 3, +1, 0, ""),
    COL_R("F", F, 3, +1, 0, ""),
    COL_R("J&F", JF, 3, +1, 0, ""),
    COL_S("precision", precision),
    COL_S("device", device),
    COL_S("driver", driver),
    COL_R("gpu_busy_fraction", gpu_busy_fraction, 4, 0, 0, ""),
    COL_S("timestamp", timestamp),
    /* the sweep's (--objects, --streams): the last N_SWEEP_COLS, only in files that hold a
     * sweep row */
    COL_S("config", config),
    COL_I("objects", objects, ""),
    COL_I("grid_objects", grid_objects, ""),
    COL_R("ms_per_frame_p50", ms_per_frame_p50, 3, -1, 0, "ms"),
    COL_R("ms_per_frame_p95", ms_per_frame_p95, 3, -1, 0, "ms"),
    COL_R("ms_per_frame_p99", ms_per_frame_p99, 3, -1, 0, "ms"),
    COL_R("object_frames_per_s", object_frames_per_s, 3, +1, 0, "1/s"),
    COL_R("frame_gpu_busy", frame_gpu_busy, 4, 0, 0, ""),
    COL_I("arena_bytes", arena_bytes, "B"),
    COL_I("state_bytes", state_bytes, "B"),
    COL_I("streams", streams, ""),
    COL_S("stream_fps", stream_fps),
    COL_R("stream_fps_min", stream_fps_min, 3, +1, 0, "FPS"),
    COL_R("stream_fps_max", stream_fps_max, 3, +1, 0, "FPS"),
    COL_R("aggregate_fps", aggregate_fps, 3, +1, 0, "FPS"),
    COL_R("aggregate_object_frames_per_s", aggregate_object_frames_per_s, 3, +1, 0, "1/s"),
    COL_I("total_arena_bytes", total_arena_bytes, "B"),
};
#define N_SWEEP_COLS 17
#define N_BASE_COLS (SAMRT_ARRAY_LEN(g_cols) - N_SWEEP_COLS)

const struct samrt_profile_col *samrt_profile_columns(size_t *n) {
    if (n) *n = N_BASE_COLS;
    return g_cols;
}

const struct samrt_profile_col *samrt_profile_file_columns(const struct samrt_profile_row *rows, size_t n_rows,
                                                          size_t *n) {
    int sweep = 0;  /* some non-warm-up row is a sweep row */
    for (size_t r = 0; r < n_rows && !sweep; r++) sweep = !rows[r].warmup && samrt_profile_row_is_sweep(&rows[r]);
    if (n) *n = sweep ? SAMRT_ARRAY_LEN(g_cols) : N_BASE_COLS;
    return g_cols;
}

const struct samrt_profile_col *samrt_profile_column_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < N_BASE_COLS; i++)
        if (!strcmp(g_cols[i].name, name)) return &g_cols[i];
    return NULL;
}

double samrt_profile_get(const struct samrt_profile_row *row, const struct samrt_profile_col *col) {
    if (!row || !col || col->kind == SAMRT_PCOL_STR) return SAMRT_PROFILE_ABSENT;
    double v;
    memcpy(&v, (const char *)row + col->offset, sizeof v);
    return v;
}

static void set_absent(struct samrt_profile_row *row, const struct samrt_profile_col *cols, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (cols[i].kind == SAMRT_PCOL_STR) continue;
        double a = SAMRT_PROFILE_ABSENT;
        memcpy((char *)row + cols[i].offset, &a, sizeof a);
    }
}

void samrt_profile_row_init(struct samrt_profile_row *row) {
    if (!row) return;
    memset(row, 0, sizeof *row);  /* text empty, warmup 0 */
    set_absent(row, g_cols, SAMRT_ARRAY_LEN(g_cols));
}

int samrt_profile_row_is_sweep(const struct samrt_profile_row *row) {
    return row && !samrt_profile_absent(row->objects);
}

void samrt_profile_row_derive(struct samrt_profile_row *row) {
    if (!row) return;
    row->gpu_busy_fraction = SAMRT_PROFILE_ABSENT;
    double sum = 0;
    int any = 0;
    for (size_t i = 0; i < N_BASE_COLS; i++) {
        if (!(g_cols[i].flags & SAMRT_PCOL_GPU_STAGE)) continue;
        double v = samrt_profile_get(row, &g_cols[i]);
        if (samrt_profile_absent(v)) continue;
        sum += v;
        any = 1;
    }
    if (samrt_profile_row_is_sweep(row)) {
        row->object_frames_per_s = row->objects * row->fps;  /* absent when fps is */
        row->aggregate_object_frames_per_s = row->objects * row->aggregate_fps;
        row->frame_gpu_busy = SAMRT_PROFILE_ABSENT;
        /* per-frame stage ms / per-frame push ms == total stage time / total frame time */
        if (any && !samrt_profile_absent(row->latency_ms) && row->latency_ms > 0)
            row->frame_gpu_busy = SAMRT_MIN(SAMRT_MAX(sum / row->latency_ms, 0.0), 1.0);
    }
    if (samrt_profile_absent(row->fps)) return;
    /* per-frame GPU ms * frames / loop ms == per-frame GPU ms * fps / 1000 */
    if (any) row->gpu_busy_fraction = sum * row->fps / 1000.0;
}

void samrt_profile_cell_text(const struct samrt_profile_row *row, const struct samrt_profile_col *col,
                             char *buf, size_t len) {
    if (!buf || !len) return;
    buf[0] = '\0';
    if (!row || !col) return;
    if (col->kind == SAMRT_PCOL_STR) {
        const char *s = (const char *)row + col->offset;
        size_t n = strnlen(s, col->size);  /* a full buffer without NUL is cut, never overrun */
        if (n >= len) n = len - 1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        return;
    }
    double v = samrt_profile_get(row, col);
    if (samrt_profile_absent(v)) return;
    if (col->kind == SAMRT_PCOL_INT) snprintf(buf, len, "%.0f", v);
    else snprintf(buf, len, "%.*f", col->decimals, v);
}

void samrt_profile_timestamp(int64_t t, char *buf, size_t len) {
    time_t tt = (time_t)t;
    struct tm tm;
    if (!buf || !len) return;
    if (!gmtime_r(&tt, &tm)) {
        buf[0] = '\0';
        return;
    }
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void samrt_profile_fmt_double(double v, char *buf, size_t len) {
    /* start at the integer digit count so 100 prints as "100", not "1e+02" */
    int prec = fabs(v) >= 1 && isfinite(v) ? (int)floor(log10(fabs(v))) + 1 : 1;
    for (prec = prec < 1 ? 1 : prec > 17 ? 17 : prec; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* ---- CSV ----------------------------------------------------------------------------- */

enum samrt_status samrt_profile_write_csv(const char *path, const struct samrt_profile_row *rows,
                                          size_t n) {
    SAMRT_CHECK(path && (rows || n == 0), SAMRT_E_INVALID_ARG, "write_csv: NULL argument");
    struct samrt_atomic_file af;
    SAMRT_TRY(samrt_atomic_open(&af, path));
    size_t n_cols;
    const struct samrt_profile_col *cols = samrt_profile_file_columns(rows, n, &n_cols);
    for (size_t c = 0; c < n_cols; c++) {
        if (c) fputc(',', af.f);
        samrt_csv_write_field(af.f, cols[c].name);
    }
    fputc('\n', af.f);
    char cell[1100];
    for (size_t r = 0; r < n; r++) {
        if (rows[r].warmup) continue;
        for (size_t c = 0; c < n_cols; c++) {
            if (c) fputc(',', af.f);
            samrt_profile_cell_text(&rows[r], &cols[c], cell, sizeof cell);
            samrt_csv_write_field(af.f, cell);
        }
        fputc('\n', af.f);
    }
    return samrt_atomic_commit(&af);
}

/* ---- statistics ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void samrt_sort_doubles(double *v, size_t n) {
    if (v && n > 1) qsort(v, n, sizeof *v, cmp_double);
}

double samrt_percentile_nearest_sorted(const double *sorted, size_t n, double p) {
    if (!sorted || n == 0) return SAMRT_PROFILE_ABSENT;
    const double rank = SAMRT_MIN(SAMRT_MAX(p, 0.0), 100.0) / 100.0 * (double)(n - 1);
    return sorted[SAMRT_MIN((size_t)(rank + 0.5), n - 1)];
}

double samrt_percentile_sorted(const double *sorted, size_t n, double p) {
    if (!sorted || n == 0) return SAMRT_PROFILE_ABSENT;
    if (p <= 0) return sorted[0];
    if (p >= 100) return sorted[n - 1];
    double rank = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)rank;
    if (lo + 1 >= n) return sorted[n - 1];
    double t = rank - (double)lo, a = sorted[lo], b = sorted[lo + 1], d = b - a;
    /* numpy's _lerp: interpolate from the nearer end, so t = 1 gives b exactly */
    return t < 0.5 ? a + d * t : b - d * (1.0 - t);
}

enum samrt_status samrt_stats_compute(double *v, size_t n, struct samrt_stats *out) {
    if (!v || !out || n == 0) return SAMRT_E_INVALID_ARG;
    samrt_sort_doubles(v, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++) ss += (v[i] - mean) * (v[i] - mean);
    out->n = n;
    out->mean = mean;
    out->std = sqrt(ss / (double)n);  /* population, ddof = 0 (numpy.std's default) */
    out->min = v[0];
    out->max = v[n - 1];
    /* numpy.median: the middle value, or the mean of the two middle values */
    out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
    out->p95 = samrt_percentile_sorted(v, n, 95.0);
    return SAMRT_OK;
}

/* ---- stats JSON ------------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, const char *key, double v, int last) {
    char buf[40];
    if (samrt_profile_absent(v)) snprintf(buf, sizeof buf, "null");
    else samrt_profile_fmt_double(v, buf, sizeof buf);
    fprintf(f, "\"%s\": %s%s", key, buf, last ? "" : ", ");
}

/* A text field (at most size bytes, maybe without NUL) as a JSON string. */
static void json_field(FILE *f, const char *s, size_t size) {
    char buf[300];
    snprintf(buf, sizeof buf, "%.*s", (int)SAMRT_MIN(size, sizeof buf - 1), s);
    json_string(f, buf);
}

/* "sweep": [{model, video, config, objects, ...}, ...], one object per sweep row. */
static void json_sweep(FILE *f, const struct samrt_profile_row *rows, size_t n) {
    size_t n_cols, n_base;
    const struct samrt_profile_col *cols = samrt_profile_file_columns(rows, n, &n_cols);
    samrt_profile_columns(&n_base);
    fputs(",\n  \"sweep\": [", f);
    int first = 1;
    for (size_t r = 0; r < n; r++) {
        if (rows[r].warmup || !samrt_profile_row_is_sweep(&rows[r])) continue;
        fputs(first ? "\n    {\"model\": " : ",\n    {\"model\": ", f);
        first = 0;
        json_field(f, rows[r].model, sizeof rows[r].model);
        fputs(", \"video\": ", f);
        json_field(f, rows[r].video, sizeof rows[r].video);
        for (size_t c = n_base; c < n_cols; c++) {
            const struct samrt_profile_col *col = &cols[c];
            fputs(", ", f);
            if (col->kind != SAMRT_PCOL_STR) {
                json_number(f, col->name, samrt_profile_get(&rows[r], col), 1);
                continue;
            }
            fprintf(f, "\"%s\": ", col->name);
            json_field(f, (const char *)&rows[r] + col->offset, col->size);
        }
        fputs("}", f);
    }
    fputs("\n  ]", f);
}

enum samrt_status samrt_profile_write_stats(const char *path, const struct samrt_profile_row *rows,
                                            size_t n) {
    SAMRT_CHECK(path && (rows || n == 0), SAMRT_E_INVALID_ARG, "write_stats: NULL argument");
    double *vals = malloc((n ? n : 1) * sizeof *vals);
    char *done = calloc(n ? n : 1, 1);  /* rows whose model was already written */
    if (!vals || !done) {
        free(vals);
        free(done);
        return SAMRT_E_HOST_MEMORY;
    }
    struct samrt_atomic_file af;
    enum samrt_status st = samrt_atomic_open(&af, path);
    if (st != SAMRT_OK) {
        free(vals);
        free(done);
        return st;
    }
    FILE *f = af.f;
    size_t n_base;
    const struct samrt_profile_col *cols = samrt_profile_columns(&n_base);
    fputs("{", f);
    int first_model = 1;
    for (size_t r0 = 0; r0 < n; r0++) {
        if (rows[r0].warmup || done[r0]) continue;
        const char *model = rows[r0].model;
        for (size_t r = r0; r < n; r++)
            if (!strncmp(rows[r].model, model, sizeof rows[r].model)) done[r] = 1;
        fputs(first_model ? "\n  " : ",\n  ", f);
        first_model = 0;
        json_field(f, model, sizeof rows[r0].model);
        fputs(": {", f);
        int first_metric = 1;
        for (size_t c = 0; c < n_base; c++) {
            if (cols[c].kind != SAMRT_PCOL_REAL) continue;
            size_t k = 0;
            for (size_t r = r0; r < n; r++) {
                if (rows[r].warmup || strncmp(rows[r].model, model, sizeof rows[r].model)) continue;
                double v = samrt_profile_get(&rows[r], &cols[c]);
                if (!samrt_profile_absent(v)) vals[k++] = v;
            }
            struct samrt_stats s;
            if (samrt_stats_compute(vals, k, &s) != SAMRT_OK) continue;  /* never measured */
            fputs(first_metric ? "\n    " : ",\n    ", f);
            first_metric = 0;
            json_string(f, cols[c].name);
            fprintf(f, ": {\"n\": %zu, ", s.n);
            json_number(f, "mean", s.mean, 0);
            json_number(f, "std", s.std, 0);
            json_number(f, "min", s.min, 0);
            json_number(f, "max", s.max, 0);
            json_number(f, "median", s.median, 0);
            json_number(f, "p95", s.p95, 1);
            fputs("}", f);
        }
        fputs(first_metric ? "}" : "\n  }", f);
    }
    size_t n_cols;
    samrt_profile_file_columns(rows, n, &n_cols);
    if (n_cols > n_base) json_sweep(f, rows, n);  /* after a model: first_model is 0 */
    fputs(first_model ? "}\n" : "\n}\n", f);
    free(vals);
    free(done);
    return samrt_atomic_commit(&af);
}

/* ---- experiment_config.txt ------------------------------------------------------------ */

static int valid_key(const char *k) {
    if (!k || !*k) return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '_' || *k == '.' || *k == '-'))
            return 0;
    return 1;
}

enum samrt_status samrt_profile_write_config(const char *path, const struct samrt_profile_kv *kv,
                                             size_t n) {
    SAMRT_CHECK(path && (kv || n == 0), SAMRT_E_INVALID_ARG, "write_config: NULL argument");
    for (size_t i = 0; i < n; i++) {
        SAMRT_CHECK(valid_key(kv[i].key), SAMRT_E_INVALID_ARG, "config key '%s' is not [A-Za-z0-9_.-]+",
                    kv[i].key ? kv[i].key : "(null)");
        SAMRT_CHECK(!kv[i].value || !strpbrk(kv[i].value, "\r\n"), SAMRT_E_INVALID_ARG,
                    "config value of '%s' holds a line break", kv[i].key);
    }
    struct samrt_atomic_file af;
    SAMRT_TRY(samrt_atomic_open(&af, path));
    fprintf(af.f, "# samrt %d.%d.%d experiment configuration (key=value)\n", SAMRT_VERSION_MAJOR,
            SAMRT_VERSION_MINOR, SAMRT_VERSION_PATCH);
    for (size_t i = 0; i < n; i++) fprintf(af.f, "%s=%s\n", kv[i].key, kv[i].value ? kv[i].value : "");
    return samrt_atomic_commit(&af);
}

enum samrt_status samrt_profile_config_get(const char *path, const char *key, char *out, size_t len) {
    if (!path || !key || !out || !len) return SAMRT_E_INVALID_ARG;
    FILE *f = fopen(path, "r");
    if (!f) return SAMRT_E_IO;
    char line[8192];
    int found = 0;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || strncmp(line, key, klen) || line[klen] != '=') continue;
        snprintf(out, len, "%s", line + klen + 1);
        found = 1;
    }
    fclose(f);
    return found ? SAMRT_OK : SAMRT_E_KEYS;
}

/* ---- latency recorder ------------------------------------------------------------------ */

enum samrt_status samrt_latency_rec_init(struct samrt_latency_rec *rec, size_t cap) {
    SAMRT_CHECK(rec && cap > 0, SAMRT_E_INVALID_ARG, "latency recorder: capacity must be > 0");
    memset(rec, 0, sizeof *rec);
    rec->ms = malloc(cap * sizeof *rec->ms);
    rec->sorted = malloc(cap * sizeof *rec->sorted);
    if (!rec->ms || !rec->sorted) {
        samrt_latency_rec_free(rec);
        return SAMRT_E_HOST_MEMORY;
    }
    rec->cap = cap;
    return SAMRT_OK;
}

void samrt_latency_rec_free(struct samrt_latency_rec *rec) {
    if (!rec) return;
    free(rec->ms);
    free(rec->sorted);
    memset(rec, 0, sizeof *rec);
}

void samrt_latency_rec_reset(struct samrt_latency_rec *rec) {
    if (!rec) return;
    rec->n = 0;
    rec->n_dropped = 0;
}

enum samrt_status samrt_latency_rec_add(struct samrt_latency_rec *rec, double ms) {
    if (rec->n >= rec->cap) {
        rec->n_dropped++;
        return SAMRT_E_INVALID_ARG;
    }
    rec->ms[rec->n++] = ms;
    return SAMRT_OK;
}

enum samrt_status samrt_latency_rec_summary(struct samrt_latency_rec *rec,
                                            struct samrt_latency_summary *out) {
    if (!rec || !out || rec->n == 0) return SAMRT_E_INVALID_ARG;
    memcpy(rec->sorted, rec->ms, rec->n * sizeof *rec->ms);
    struct samrt_stats s;
    SAMRT_TRY(samrt_stats_compute(rec->sorted, rec->n, &s));
    out->n = rec->n;
    out->mean = s.mean;
    out->p50 = s.median;
    out->p95 = s.p95;
    out->p99 = samrt_percentile_sorted(rec->sorted, rec->n, 99.0);
    out->max = s.max;
    return SAMRT_OK;
}

void samrt_latency_rec_fill_row(struct samrt_latency_rec *rec, struct samrt_profile_row *row) {
    if (!row) return;
    struct samrt_latency_summary s;
    if (!rec || samrt_latency_rec_summary(rec, &s) != SAMRT_OK) {
        row->latency_ms = row->latency_p50_ms = row->latency_p95_ms = row->latency_p99_ms =
            SAMRT_PROFILE_ABSENT;
        return;
    }
    row->latency_ms = s.mean;
    row->latency_p50_ms = s.p50;
    row->latency_p95_ms = s.p95;
    row->latency_p99_ms = s.p99;
}

void samrt_latency_rec_fill_nearest(struct samrt_latency_rec *rec, struct samrt_profile_row *row) {
    if (!row) return;
    row->ms_per_frame_p50 = row->ms_per_frame_p95 = row->ms_per_frame_p99 = SAMRT_PROFILE_ABSENT;
    if (!rec || !rec->n) return;
    memcpy(rec->sorted, rec->ms, rec->n * sizeof *rec->ms);
    samrt_sort_doubles(rec->sorted, rec->n);
    row->ms_per_frame_p50 = samrt_percentile_nearest_sorted(rec->sorted, rec->n, 50.0);
    row->ms_per_frame_p95 = samrt_percentile_nearest_sorted(rec->sorted, rec->n, 95.0);
    row->ms_per_frame_p99 = samrt_percentile_nearest_sorted(rec->sorted, rec->n, 99.0);
}
