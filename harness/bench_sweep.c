/* bench_sweep.c - `samrt bench --objects 1,2,4,8,16 [--streams 1,2,4]`: the throughput-vs-latency
 * sweep over the number of objects tracked at once, and of videos tracked at once (bench.h).
 * Users who track many objects want to see what one more object costs per frame, what it
 * buys in object-frames per second, and how much arena it takes; this measures exactly that,
 * with the same loop as every other bench row.
 *
 * Per model and configuration (a count N of --objects) the tracker is opened for max_objects
 * N, so the arena columns are those of N objects; on each video it tracks the clip's first N
 * objects (their usual prompts) and, where the clip has fewer, extra objects clicked on a
 * grid over the frame (samrt_bench_grid_prompt). Each configuration gets --warmup untimed
 * passes and --runs timed ones, and one row: the per-frame push times of every timed frame
 * (nearest-rank p50 / p95 / p99, as `samrt track --timing`), object-frames per second, the
 * share of the frame time in the tracker's stages and the arena. No masks are written and
 * nothing is scored (the grid objects have no ground truth). With --streams each count N is
 * run on K streams for each K of the list (bench_streams.c: the model engine and K-1 sessions,
 * one thread each), and the row adds the streams' frame rates, their aggregate and all K
 * arenas. With a --memory list each policy runs every configuration, named
 * "objects=N[;streams=K];memory=<policy>". docs/profiling.md ("Objects sweep") is the manual.
 *
 * Run the tests: ctest --preset cpu -R 'test_bench' */
#include "bench_run.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency_rec.h"
#include "util.h"

#define MIB (1024.0 * 1024.0)

/* A comma list of distinct whole numbers in [1, max_v], at most max_n of them, in the given
 * order; `like` is an example list for the messages. */
static int parse_count_list(const char *list, int max_v, int max_n, const char *like, int *out, int *n_out,
                            char *why, size_t why_len) {
    *n_out = 0;
    if (!list || !*list) {
        snprintf(why, why_len, "the list is empty (want counts such as %s)", like);
        return -1;
    }
    int n = 0;
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!len) {
            snprintf(why, why_len, "item %d is empty (want counts such as %s)", n + 1, like);
            return -1;
        }
        char item[16];
        int ok = len < sizeof item;
        for (size_t i = 0; ok && i < len; i++) ok = isdigit((unsigned char)p[i]);
        long v = 0;
        if (ok) snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (!ok || samrt_parse_int(item, 1, max_v, &v)) {
            snprintf(why, why_len, "'%.*s' is not a whole number in [1, %d]", (int)SAMRT_MIN(len, 24), p, max_v);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (out[i] == (int)v) {
                snprintf(why, why_len, "%ld is given twice", v);
                return -1;
            }
        if (n == max_n) {
            snprintf(why, why_len, "more than %d configurations", max_n);
            return -1;
        }
        out[n++] = (int)v;
        if (!comma) break;
        p = comma + 1;
    }
    *n_out = n;
    return 0;
}

int samrt_bench_parse_objects(const char *list, int *out, int *n_out, char *why, size_t why_len) {
    return parse_count_list(list, SAMRT_BENCH_SWEEP_MAX_OBJ, SAMRT_BENCH_MAX_SWEEP, "1,2,4,8,16", out, n_out, why,
                            why_len);
}

int samrt_bench_parse_streams(const char *list, int *out, int *n_out, char *why, size_t why_len) {
    return parse_count_list(list, SAMRT_BENCH_MAX_STREAMS, SAMRT_BENCH_MAX_STREAMS, "1,2,4", out, n_out, why,
                            why_len);
}

void samrt_bench_grid_prompt(int j, int n_extra, int width, int height, struct samrt_prompt *out) {
    int cols = 1;
    while (cols * cols < n_extra) cols++;
    const int rows = (n_extra + cols - 1) / cols;
    memset(out, 0, sizeof *out);
    out->kind = SAMRT_PROMPT_POINTS;
    out->n_points = 1;
    out->points[0].x = (float)(((2 * (j % cols) + 1) * width) / (2 * cols));  /* floor((c + 1/2) W / cols) */
    out->points[0].y = (float)(((2 * (j / cols) + 1) * height) / (2 * rows));
    out->points[0].label = 1;
    out->width = width, out->height = height;
}

/* The video as the configuration tracks it: the clip's first n_clip objects, then grid objects
 * named grid001, ... with ids after the clip's largest. objs and names hold n_obj entries. */
static void sweep_video_of(const struct samrt_sav_video *v, int n_obj, int n_clip, struct samrt_sav_object *objs,
                           char (*names)[16], struct samrt_sav_video *out) {
    int max_id = -1;
    for (int k = 0; k < v->n_objects; k++) max_id = SAMRT_MAX(max_id, v->objects[k].id >= 0 ? v->objects[k].id : k);
    for (int k = 0; k < n_obj; k++) {
        if (k < n_clip) {
            objs[k] = v->objects[k];
            continue;
        }
        snprintf(names[k], sizeof names[k], "grid%03d", k - n_clip + 1);
        objs[k] = (struct samrt_sav_object){names[k], max_id + 1 + (k - n_clip), 0, NULL};
    }
    *out = *v;
    out->objects = objs;
    out->n_objects = n_obj;
}

/* "a;b;c" of the streams' frame rates, and their smallest and largest. */
static void stream_fps_cells(const struct samrt_bench_streams *res, struct samrt_profile_row *row) {
    size_t len = 0;
    for (int i = 0; i < res->n_streams; i++) {
        const double f = res->stream_fps[i];
        if (samrt_profile_absent(f)) {
            row->stream_fps[0] = 0, row->stream_fps_min = row->stream_fps_max = SAMRT_PROFILE_ABSENT;
            return;  /* a stream without a timed frame: no list */
        }
        len += (size_t)snprintf(row->stream_fps + len, sizeof row->stream_fps - SAMRT_MIN(len, sizeof row->stream_fps),
                                "%s%.3f", i ? ";" : "", f);
        if (!i || f < row->stream_fps_min) row->stream_fps_min = f;
        if (!i || f > row->stream_fps_max) row->stream_fps_max = f;
    }
}

/* The configuration's row from the streams' timed passes (res: every timed frame). */
static enum samrt_status push_sweep_row(struct bench *B, const struct model_run *mr, const struct video_run *vr,
                                        struct samrt_bench_streams *res, int n_clip,
                                        const struct samrt_bench_sweep_config *cfg) {
    struct samrt_profile_row row;
    const int k = cfg->n_streams;
    samrt_bench_fill_row(B, mr, vr, &res->acc, &res->lat, &row);
    char memory[24] = "";  /* a --memory list: the policy names the configuration too */
    if (B->o->n_memory > 1) snprintf(memory, sizeof memory, ";memory=%s", samrt_memory_policy_name(B->memory));
    if (B->o->n_streams) snprintf(row.config, sizeof row.config, "objects=%d;streams=%d%s", vr->n_obj, k, memory);
    else snprintf(row.config, sizeof row.config, "objects=%d%s", vr->n_obj, memory);
    row.objects = vr->n_obj;
    row.grid_objects = vr->n_obj - n_clip;
    row.streams = k;
    stream_fps_cells(res, &row);
    if (res->slowest_s > 0) row.aggregate_fps = res->acc.frames / res->slowest_s;
    if (mr->have_mem) {
        row.arena_bytes = (double)mr->mem.arena_bytes, row.state_bytes = (double)mr->mem.state_bytes;
        row.total_arena_bytes = row.arena_bytes + cfg->sessions_arena;  /* absent when a session's is */
        if (!samrt_profile_absent(row.total_arena_bytes)) row.gpu_peak_alloc_MiB = row.total_arena_bytes / MIB;
    }
    samrt_latency_rec_fill_nearest(&res->lat, &row);
    samrt_profile_row_derive(&row);
    SAMRT_TRY(samrt_bench_push_row(B, &row));
    char busy[16] = "-";
    if (!samrt_profile_absent(row.frame_gpu_busy)) snprintf(busy, sizeof busy, "%.2f", row.frame_gpu_busy);
    printf("samrt bench: %s %s %s: ms/frame p50 %.3f p95 %.3f p99 %.3f, %.2f object-frames/s, %s busy %s, "
           "arena %.1f MiB (state %.2f MiB)",
           mr->m->tag, row.config, vr->v->name, row.ms_per_frame_p50, row.ms_per_frame_p95, row.ms_per_frame_p99,
           row.object_frames_per_s, B->have_device ? "GPU" : "stages", busy, row.arena_bytes / MIB,
           row.state_bytes / MIB);
    if (B->o->n_streams)
        printf("; %d stream%s: %s frames/s, aggregate %.2f frames/s (%.2f object-frames/s), all arenas %.1f MiB", k,
               k == 1 ? "" : "s", row.stream_fps[0] ? row.stream_fps : "-", row.aggregate_fps, row.aggregate_object_frames_per_s,
               row.total_arena_bytes / MIB);
    printf("\n");
    return SAMRT_OK;
}

/* One video with the configuration's objects on its streams: warm-up and timed passes, then
 * one row. */
static enum samrt_status sweep_video(struct bench *B, struct model_run *mr, int vi, void *ctx) {
    const struct samrt_bench_sweep_config *cfg = ctx;
    const int n_obj = cfg->n_obj;
    const struct samrt_sav_video *v = &B->split.videos[vi];
    const int n_clip = SAMRT_MIN(n_obj, v->n_objects);
    struct samrt_sav_object *objs = calloc((size_t)n_obj, sizeof *objs);
    char(*names)[16] = calloc((size_t)n_obj, sizeof *names);
    struct video_run vr;
    struct samrt_bench_streams res;
    memset(&vr, 0, sizeof vr);
    memset(&res, 0, sizeof res);
    enum samrt_status st = objs && names ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    struct samrt_sav_video sv;
    if (st == SAMRT_OK) {
        sweep_video_of(v, n_obj, n_clip, objs, names, &sv);
        st = samrt_bench_video_prepare(B, mr->m, &sv, n_clip, &vr);
    }
    if (st == SAMRT_OK) st = samrt_bench_streams_run(B, mr, &vr, &sv, n_clip, vi, cfg, &res);
    if (st == SAMRT_OK) st = push_sweep_row(B, mr, &vr, &res, n_clip, cfg);
    samrt_latency_rec_free(&res.lat);
    samrt_bench_video_free(&vr);
    free(objs);
    free(names);
    return st;
}

enum samrt_status samrt_bench_sweep_model(struct bench *B, const struct samrt_bench_model *m, int index) {
    const struct samrt_bench_opts *o = B->o;
    const int n_k = o->n_streams ? o->n_streams : 1;
    enum samrt_status st = SAMRT_OK;
    for (int c = 0; c < o->n_sweep && st == SAMRT_OK; c++)
        for (int j = 0; j < n_k && st == SAMRT_OK; j++) {
            struct model_run mr;
            memset(&mr, 0, sizeof mr);
            mr.m = m, mr.index = index;
            struct samrt_bench_sweep_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.n_obj = o->sweep[c];
            cfg.n_streams = o->n_streams ? o->streams[j] : 1;
            cfg.n_open = 1;
            st = samrt_bench_open_model(B, &mr, cfg.n_obj);  /* max_objects = N: the arena of N objects */
            if (st != SAMRT_OK) break;
            st = samrt_bench_sessions_open(&mr, &cfg);       /* the other streams, on its weights */
            if (st == SAMRT_OK) st = samrt_bench_each_video(B, &mr, sweep_video, &cfg);  /* closes mr's tracker */
            else mr.tr.ops->close(mr.tr.self);
            samrt_bench_sessions_close(&cfg);
        }
    return st;
}
