/* profile.h - the result rows of `samrt bench` and the files written from them:
 * profile_summary.csv (one row per video, object, model and run), profile_stats.json (per
 * model and metric: n, mean, std, min, max, median, p95) and experiment_config.txt
 * (key=value); the column table is profile.c, the writers profile_write.c. The statistics
 * are stats.h, the per-frame latency recorder latency_rec.h. docs/profiling.md defines
 * every column. The
 * sweep (`samrt bench --objects`, `--streams`) writes one row per configuration with its own
 * columns appended, and a "sweep" list in the JSON; files without sweep rows are unchanged.
 *
 * Design choices:
 * - A value that was not measured is ABSENT, stored as NaN (SAMRT_PROFILE_ABSENT) and
 *   written as an empty cell, never as 0: a stage that does not exist yet must not read as
 *   "took no time". Text fields are absent when empty. Integers (run, frames, H, ...) are
 *   stored as doubles too, so that every number has the same absent marker; they are
 *   exact up to 2^53 and written without decimals.
 * - The first SAMRT_PROFILE_N_BASE_COLS columns are exactly the columns users' existing
 *   plotting scripts read, in the same order; later columns are only appended.
 * - Rows flagged warmup never reach the CSV or the statistics (the writers skip them), so
 *   the bench can keep one list and cannot leak a cold run into the numbers.
 * - Every file is written through atomic_file.h ("<path>.tmp.<pid>", flushed, fsynced and
 *   renamed over the target): an error leaves the previous file whole.
 *
 * Usage (bench side):
 *   struct samrt_profile_row row;
 *   samrt_profile_row_init(&row);                 // all numbers absent, all text empty
 *   snprintf(row.model, sizeof row.model, "%s", "sam2.1_tiny");
 *   row.fps = frames / loop_s;  ...  samrt_latency_rec_fill_row(&lat, &row);
 *   samrt_profile_row_derive(&row);               // gpu_busy_fraction from stages and fps
 *   samrt_profile_write_csv(dir "/profile_summary.csv", rows, n_rows);
 *   samrt_profile_write_stats(dir "/profile_stats.json", rows, n_rows);
 */
#ifndef SAMRT_HARNESS_PROFILE_H
#define SAMRT_HARNESS_PROFILE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_PROFILE_ABSENT ((double)NAN)
/* 1 when v holds no measurement (NaN; infinities are treated the same). */
static inline int samrt_profile_absent(double v) { return !isfinite(v); }

/* The number of leading columns that keep the historical names and order. */
#define SAMRT_PROFILE_N_BASE_COLS 19

/* One (video, object, model, run). Numbers are absent until set; see docs/profiling.md. */
struct samrt_profile_row {
    char platform[64];            /* platform profile name or a --platform label */
    char hostname[256];
    char video[256];
    char object[64];
    char model[64];               /* samrt_model_name(), plus a prompt suffix if any */
    double run;                   /* 0..runs-1, warm-up runs excluded */
    double imgsz;                 /* model input side, pixels */
    double frames;                /* frames tracked in the timed loop */
    double fps;                   /* frames / wall time of the tracking loop */
    double latency_ms;            /* mean per-frame latency, frame available -> masks on host */
    double gpu_peak_alloc_MiB;    /* arena high-water mark */
    double gpu_peak_reserved_MiB; /* device memory held by the process, measured */
    double cpu_peak_rss_MiB;      /* VmHWM, arena excluded on unified memory */
    double setup_ms;              /* process start -> first frame ready */
    double H, W;                  /* source frame size */
    double infer_H, infer_W;      /* model input size */
    char nsight_report[1024];     /* path of the .nsys-rep, from --nsight_report */
    double latency_p50_ms, latency_p95_ms, latency_p99_ms;
    /* per-frame mean of each stage, ms, from CUDA events (decode: host clock) */
    double decode_ms, preprocess_ms, h2d_ms, image_encoder_ms, memory_attention_ms,
        prompt_and_mask_decoder_ms, memory_encoder_ms, postprocess_ms, d2h_ms;
    /* arena high-water mark by region, MiB */
    double arena_weights_MiB, arena_state_MiB, arena_workspace_MiB, arena_staging_MiB,
        arena_scratch_MiB;
    double J, F, JF;              /* SA-V scores x100 for this object; JF is column "J&F" */
    char precision[16];           /* "fp32", "bf16", "fp16" */
    char device[256];             /* GPU name */
    char driver[32];              /* CUDA driver version, e.g. "12.6" */
    double gpu_busy_fraction;     /* sum of GPU stage times / loop wall time */
    char timestamp[32];           /* ISO 8601 UTC, e.g. 2025-11-30T14:30:22Z */
    double sm_limit;              /* SMs of the engine's green context (--sm-limit); 0 = the whole GPU */
    char memory[16];              /* memory-selection policy (--memory): "sam2", "samurai", "dam4sam" */
    /* the object sweep (`samrt bench --objects`): one row per configuration; these columns
     * are written only when some row has `objects` (samrt_profile_file_columns) */
    char config[64];              /* "objects=4" */
    double objects;               /* objects tracked at once (the engine's max_objects) */
    double grid_objects;          /* of those, placed on the grid (beyond the clip's prompts) */
    double ms_per_frame_p50, ms_per_frame_p95, ms_per_frame_p99;  /* nearest rank */
    double object_frames_per_s;   /* objects * fps */
    double frame_gpu_busy;        /* sum of stage times / sum of frame times, in [0, 1] */
    double arena_bytes, state_bytes;  /* samrt_engine_memory of the model engine */
    /* its streams dimension (`--streams`): K engines on one copy of the weights, one thread
     * each; an objects-only sweep row has streams 1 and the same columns */
    double streams;               /* K: the model engine plus K-1 sessions */
    char stream_fps[256];         /* each stream's frames / its loop seconds, "%.3f" joined by ';' */
    double stream_fps_min, stream_fps_max;
    double aggregate_fps;         /* all streams' frames / the slowest stream's loop seconds */
    double aggregate_object_frames_per_s;  /* objects * aggregate_fps */
    double total_arena_bytes;     /* the model engine's arena + the K-1 sessions' */
    int warmup;                   /* 1: never written (not a column) */
};

void samrt_profile_row_init(struct samrt_profile_row *row);
/* Fills gpu_busy_fraction = (sum of the present GPU stages) * fps / 1000 when fps and at
 * least one GPU stage are present; leaves it absent otherwise. On a sweep row (objects
 * present) also object_frames_per_s = objects * fps, aggregate_object_frames_per_s =
 * objects * aggregate_fps and frame_gpu_busy = (sum of the present GPU stages) / latency_ms
 * clamped to [0, 1] (both per-frame means over the same frames, so the ratio is total stage
 * time over total frame time). */
void samrt_profile_row_derive(struct samrt_profile_row *row);
/* 1 when the row belongs to an object sweep (objects present). */
int samrt_profile_row_is_sweep(const struct samrt_profile_row *row);

/* ---- the column table ----------------------------------------------------------------- */

enum samrt_profile_kind { SAMRT_PCOL_STR, SAMRT_PCOL_INT, SAMRT_PCOL_REAL };

enum samrt_profile_col_flag {
    SAMRT_PCOL_STAGE = 1,      /* a per-frame stage time (stacked in the report) */
    SAMRT_PCOL_GPU_STAGE = 2,  /* the stage runs on the GPU and counts in gpu_busy_fraction */
    SAMRT_PCOL_ARENA = 4       /* an arena region high-water mark */
};

struct samrt_profile_col {
    const char *name;              /* CSV header cell */
    enum samrt_profile_kind kind;
    size_t offset;                 /* of the field in struct samrt_profile_row */
    size_t size;                   /* STR: buffer size */
    int decimals;                  /* REAL: digits after the point in the CSV */
    int better;                    /* +1 higher is better, -1 lower is better, 0 neither */
    unsigned flags;                /* enum samrt_profile_col_flag */
    const char *unit;              /* for tables and charts; "" when none */
};

/* All columns in CSV order; *n receives the count. */
const struct samrt_profile_col *samrt_profile_columns(size_t *n);
/* The columns of a file holding these rows, in CSV order: those of samrt_profile_columns,
 * then, when some non-warm-up row is a sweep row (and only then), the sweep's (config,
 * objects, ..., total_arena_bytes); *n receives the count. */
const struct samrt_profile_col *samrt_profile_file_columns(const struct samrt_profile_row *rows, size_t n_rows,
                                                          size_t *n);
/* NULL when name is not a column. */
const struct samrt_profile_col *samrt_profile_column_find(const char *name);
/* The CSV text of one cell: "" for absent values. */
void samrt_profile_cell_text(const struct samrt_profile_row *row, const struct samrt_profile_col *col,
                             char *buf, size_t len);
/* A REAL/INT field of a row. */
double samrt_profile_get(const struct samrt_profile_row *row, const struct samrt_profile_col *col);

/* ---- writers ------------------------------------------------------------------------ */

/* profile_summary.csv: the header, then every non-warm-up row. When some row is a sweep row,
 * the sweep columns follow the others (empty on the rows that are not sweep rows). */
enum samrt_status samrt_profile_write_csv(const char *path, const struct samrt_profile_row *rows,
                                          size_t n);
/* profile_stats.json: {model: {metric: {n, mean, std, min, max, median, p95}}} over the
 * non-warm-up rows, for every REAL column with at least one present value; a model whose rows
 * hold several memory policies (bench --memory sam2,samurai) has one key per policy,
 * "<model>@<policy>". Models appear
 * in order of first row, metrics in column order. std is the population std (numpy's
 * default, ddof=0); median and p95 interpolate linearly (numpy's default method). When some
 * row is a sweep row, a last key "sweep" holds a list with one object per sweep row: model,
 * video, then every sweep column (absent numbers as null). */
enum samrt_status samrt_profile_write_stats(const char *path, const struct samrt_profile_row *rows,
                                            size_t n);

struct samrt_profile_kv {
    const char *key;    /* [A-Za-z0-9_.-]+ */
    const char *value;  /* any text without CR or LF; NULL is written as empty */
};
/* experiment_config.txt: a comment line, then one key=value per line, in the given order. */
enum samrt_status samrt_profile_write_config(const char *path, const struct samrt_profile_kv *kv,
                                             size_t n);
/* The value of key in such a file (last one wins); SAMRT_E_KEYS when absent, SAMRT_E_IO
 * when the file cannot be read. */
enum samrt_status samrt_profile_config_get(const char *path, const char *key, char *out, size_t len);

/* Formats t (seconds since the epoch, UTC) as 2025-11-30T14:30:22Z. */
void samrt_profile_timestamp(int64_t t, char *buf, size_t len);
/* Shortest "%.*g" text that reads back as exactly v (what Python's repr prints). */
void samrt_profile_fmt_double(double v, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_PROFILE_H */
