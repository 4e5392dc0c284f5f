/* profile.c - result rows and the column table (see profile.h; columns are defined in
 * docs/profiling.md). The writers are profile_write.c, the statistics stats.c, the latency
 * recorder latency_rec.c.
 *
 * The column table is the single source of the CSV layout: header, cell formatting, the
 * stats JSON, `samrt compare` directions and the report's stage list all read it, so a new
 * column is one line here plus its field in the row struct. Tested by tests/test_profile.c. */
#include "profile.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    COL_I("sm_limit", sm_limit, "SMs"),
    COL_S("memory", memory),
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
