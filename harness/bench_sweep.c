/* bench_sweep.c - `samrt bench --objects 1,2,4,8,16`: the throughput-vs-latency sweep over the
 * number of objects tracked at once (bench.h). Users who track many objects want to see what
 * one more object costs per frame, what it buys in object-frames per second, and how much
 * arena it takes; this measures exactly that, with the same loop as every other bench row.
 *
 * Per model and configuration (a count N of --objects) the tracker is opened for max_objects
 * N, so the arena columns are those of N objects; on each video it tracks the clip's first N
 * objects (their usual prompts) and, where the clip has fewer, extra objects clicked on a
 * grid over the frame (samrt_bench_grid_prompt). Each configuration gets --warmup untimed
 * passes and --runs timed ones, and one row: the per-frame push times of every timed frame
 * (nearest-rank p50 / p95 / p99, as `samrt track --timing`), object-frames per second, the
 * share of the frame time in the tracker's stages and the arena. No masks are written and
 * nothing is scored (the grid objects have no ground truth). docs/profiling.md ("Objects
 * sweep") is the manual.
 *
 * Run the tests: ctest --preset cpu -R 'test_bench' */
#include "bench_run.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MIB (1024.0 * 1024.0)

int samrt_bench_parse_objects(const char *list, int *out, int *n_out, char *why, size_t why_len) {
    *n_out = 0;
    if (!list || !*list) {
        snprintf(why, why_len, "the list is empty (want counts such as 1,2,4,8,16)");
        return -1;
    }
    int n = 0;
    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!len) {
            snprintf(why, why_len, "item %d is empty (want counts such as 1,2,4,8,16)", n + 1);
            return -1;
        }
        char item[16];
        int ok = len < sizeof item;
        for (size_t i = 0; ok && i < len; i++) ok = isdigit((unsigned char)p[i]);
        long v = 0;
        if (ok) snprintf(item, sizeof item, "%.*s", (int)len, p);
        if (!ok || samrt_parse_int(item, 1, SAMRT_BENCH_SWEEP_MAX_OBJ, &v)) {
            snprintf(why, why_len, "'%.*s' is not a whole number in [1, %d]", (int)SAMRT_MIN(len, 24), p,
                     SAMRT_BENCH_SWEEP_MAX_OBJ);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (out[i] == (int)v) {
                snprintf(why, why_len, "%ld is given twice", v);
                return -1;
            }
        if (n == SAMRT_BENCH_MAX_SWEEP) {
            snprintf(why, why_len, "more than %d configurations", SAMRT_BENCH_MAX_SWEEP);
            return -1;
        }
        out[n++] = (int)v;
        if (!comma) break;
        p = comma + 1;
    }
    *n_out = n;
    return 0;
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

/* The configuration's row from the timed passes (acc, every timed frame in lat). */
static enum samrt_status push_sweep_row(struct bench *B, const struct model_run *mr, const struct video_run *vr,
                                        const struct pass_stats *acc, struct samrt_latency_rec *lat, int n_clip) {
    struct samrt_profile_row row;
    samrt_bench_fill_row(B, mr, vr, acc, lat, &row);
    snprintf(row.config, sizeof row.config, "objects=%d", vr->n_obj);
    row.objects = vr->n_obj;
    row.grid_objects = vr->n_obj - n_clip;
    if (mr->have_mem) row.arena_bytes = (double)mr->mem.arena_bytes, row.state_bytes = (double)mr->mem.state_bytes;
    samrt_latency_rec_fill_nearest(lat, &row);
    samrt_profile_row_derive(&row);
    SAMRT_TRY(samrt_bench_push_row(B, &row));
    char busy[16] = "-";
    if (!samrt_profile_absent(row.frame_gpu_busy)) snprintf(busy, sizeof busy, "%.2f", row.frame_gpu_busy);
    printf("samrt bench: %s %s %s: ms/frame p50 %.3f p95 %.3f p99 %.3f, %.2f object-frames/s, %s busy %s, "
           "arena %.1f MiB (state %.2f MiB)\n",
           mr->m->tag, row.config, vr->v->name, row.ms_per_frame_p50, row.ms_per_frame_p95, row.ms_per_frame_p99,
           row.object_frames_per_s, B->have_device ? "GPU" : "stages", busy, row.arena_bytes / MIB,
           row.state_bytes / MIB);
    return SAMRT_OK;
}

/* One video with the configuration's objects: warm-up and timed passes, then one row. */
static enum samrt_status sweep_video(struct bench *B, struct model_run *mr, int vi, void *ctx) {
    const struct samrt_bench_opts *o = B->o;
    const int n_obj = *(const int *)ctx;
    const struct samrt_sav_video *v = &B->split.videos[vi];
    const int n_clip = SAMRT_MIN(n_obj, v->n_objects);
    struct samrt_sav_object *objs = calloc((size_t)n_obj, sizeof *objs);
    char(*names)[16] = calloc((size_t)n_obj, sizeof *names);
    struct video_run vr;
    struct samrt_latency_rec lat;  /* every timed frame of the configuration */
    memset(&vr, 0, sizeof vr);
    memset(&lat, 0, sizeof lat);
    enum samrt_status st = objs && names ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    struct samrt_sav_video sv;
    if (st == SAMRT_OK) {
        sweep_video_of(v, n_obj, n_clip, objs, names, &sv);
        st = samrt_bench_video_prepare(B, mr->m, &sv, n_clip, &vr);
    }
    if (st == SAMRT_OK) st = samrt_latency_rec_init(&lat, (size_t)v->n_frames * (size_t)o->runs);
    struct pass_stats acc;
    memset(&acc, 0, sizeof acc);
    for (int pass = 0; pass < o->warmup + o->runs && st == SAMRT_OK; pass++) {
        struct pass_stats ps;
        st = samrt_bench_run_pass(B, mr, &vr, vi, 0, n_obj, pass, &ps);
        if (st != SAMRT_OK || pass < o->warmup) continue;
        samrt_bench_pass_add(&acc, &ps);
        for (size_t i = 0; i < vr.lat.n; i++) samrt_latency_rec_add(&lat, vr.lat.ms[i]);
    }
    if (st == SAMRT_OK) st = push_sweep_row(B, mr, &vr, &acc, &lat, n_clip);
    samrt_latency_rec_free(&lat);
    samrt_bench_video_free(&vr);
    free(objs);
    free(names);
    return st;
}

enum samrt_status samrt_bench_sweep_model(struct bench *B, const struct samrt_bench_model *m, int index) {
    enum samrt_status st = SAMRT_OK;
    for (int c = 0; c < B->o->n_sweep && st == SAMRT_OK; c++) {
        struct model_run mr;
        memset(&mr, 0, sizeof mr);
        mr.m = m, mr.index = index;
        int n_obj = B->o->sweep[c];
        st = samrt_bench_open_model(B, &mr, n_obj);  /* max_objects = N: the arena of N objects */
        if (st == SAMRT_OK) st = samrt_bench_each_video(B, &mr, sweep_video, &n_obj);
    }
    return st;
}
