/* bench_run.c - the run of `samrt bench` (bench.h): the tracking loop over videos, models and
 * passes, the measurements (loop clock, latency, stages, memory, setup), the masks and J&F of
 * timed run 0, and the rows and files. The options are bench.c's; the object sweep
 * (--objects) is bench_sweep.c, on the pieces of this file that bench_run.h declares;
 * docs/profiling.md is the manual and describes every column.
 *
 * A tracking unit is a video (all its objects in one pass, as vos_inference.py does) or,
 * with --per_obj, one object of a video. Each unit gets --warmup untimed passes and --runs
 * timed ones; each timed pass gives one row per object. Timed run 0 also writes the masks
 * and scores them against the ground truth, with the loop clock paused meanwhile.
 *
 * Run the tests: ctest --preset cpu -R test_bench */
#include "bench_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "latency_rec.h"
#include "platform.h"
#include "util.h"

#define MIB (1024.0 * 1024.0)
#define N_STAGES SAMRT_BENCH_N_STAGES
#define PATH_LEN 4096

/* ---- small helpers ------------------------------------------------------------------------ */

/* Monotonic time of the process start: /proc/self/stat's starttime (boot clock ticks), moved
 * to the monotonic clock; `fallback` when it cannot be read. */
static uint64_t process_start_ns(uint64_t fallback) {
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return fallback;
    char buf[2048];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');  /* the command name may hold spaces */
    unsigned long long start_ticks = 0;
    for (int field = 2; p && *p && field < 22; field++) p = strchr(p + 1, ' ');
    struct timespec boot;
    const long hz = sysconf(_SC_CLK_TCK);
    if (!p || sscanf(p, " %llu", &start_ticks) != 1 || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return fallback;
    const uint64_t now_mono = samrt_platform_now_ns();
    const uint64_t now_boot = (uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec;
    const uint64_t start_boot = (uint64_t)(start_ticks * (1000000000ull / (unsigned long long)hz));
    const uint64_t age = now_boot > start_boot ? now_boot - start_boot : 0;
    return now_mono > age && age < 86400ull * 1000000000ull ? now_mono - age : fallback;
}

static double ms_between(uint64_t a, uint64_t b) { return (double)(b - a) / 1e6; }

/* ---- the run ---------------------------------------------------------------------------- */

void samrt_bench_video_free(struct video_run *vr) {
    free(vr->first_masks), free(vr->prompts), free(vr->res_masks), free(vr->res), free(vr->ann_of);
    free(vr->ev), free(vr->jo), free(vr->fo), free(vr->gt), free(vr->ev_scratch);
    samrt_mask_reader_free(&vr->mr);
    samrt_latency_rec_free(&vr->lat);
    memset(vr, 0, sizeof *vr);
}

static int obj_id(const struct samrt_sav_video *v, int k) { return v->objects[k].id >= 0 ? v->objects[k].id : k; }

/* The object's mask folder, when masks are saved. */
static enum samrt_status make_mask_dir(const struct bench *B, const struct samrt_sav_video *v,
                                       const struct samrt_sav_object *ob) {
    if (B->o->save_masks == SAMRT_BENCH_SAVE_NONE || B->o->n_sweep) return SAMRT_OK;  /* a sweep saves none */
    char dir[PATH_LEN];
    snprintf(dir, sizeof dir, "%s/%s/%s/%s", B->o->out_dir, B->label, v->name, ob->name);
    return samrt_mkdirs(dir);
}

enum samrt_status samrt_bench_video_prepare(const struct bench *B, const struct samrt_bench_model *m,
                                            const struct samrt_sav_video *v, int n_clip, struct video_run *vr) {
    memset(vr, 0, sizeof *vr);
    vr->v = v;
    vr->w = v->width, vr->h = v->height, vr->n_obj = v->n_objects;
    vr->npx = (size_t)v->width * (size_t)v->height;
    const size_t n = (size_t)vr->n_obj;
    for (int k = 0; k < vr->n_obj; k++) vr->max_anns = SAMRT_MAX(vr->max_anns, v->objects[k].n_anns);
    const size_t ps = samrt_prompt_scratch_bytes(vr->w, vr->h);
    void *pscratch = malloc(ps ? ps : 1);
    vr->first_masks = malloc(n * vr->npx);
    vr->res_masks = malloc(n * vr->npx);
    vr->prompts = calloc(n, sizeof *vr->prompts);
    vr->res = calloc(n, sizeof *vr->res);
    vr->ann_of = malloc(n * (size_t)v->n_frames * sizeof(int));
    vr->ev = calloc(n * (size_t)SAMRT_MAX(vr->max_anns, 1), sizeof *vr->ev);
    vr->jo = malloc(n * sizeof(double));
    vr->fo = malloc(n * sizeof(double));
    vr->ev_scratch_bytes = samrt_eval_scratch_bytes(vr->w, vr->h);
    vr->ev_scratch = malloc(vr->ev_scratch_bytes);
    enum samrt_status st = SAMRT_OK;
    if (!pscratch || !vr->first_masks || !vr->res_masks || !vr->prompts || !vr->res || !vr->ann_of || !vr->ev ||
        !vr->jo || !vr->fo || !vr->ev_scratch)
        st = SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) st = samrt_latency_rec_init(&vr->lat, (size_t)v->n_frames);
    for (int k = 0; k < vr->n_obj && st == SAMRT_OK; k++) {
        const struct samrt_sav_object *ob = &v->objects[k];
        char path[PATH_LEN];
        int mw = 0, mh = 0;
        int *ao = vr->ann_of + (size_t)k * (size_t)v->n_frames;
        vr->jo[k] = vr->fo[k] = SAMRT_PROFILE_ABSENT;
        if (k >= n_clip || B->o->video) {  /* a grid click or the command line's prompt; no ground truth */
            for (int t = 0; t < v->n_frames; t++) ao[t] = -1;
            if (k >= n_clip) samrt_bench_grid_prompt(k - n_clip, vr->n_obj - n_clip, vr->w, vr->h, &vr->prompts[k]);
            else vr->prompts[k] = B->o->prompts[k];
            vr->prompts[k].width = vr->w, vr->prompts[k].height = vr->h;
            st = make_mask_dir(B, v, ob);
            continue;
        }
        samrt_sav_ann_path(v, ob, 0, path, sizeof path);
        st = samrt_mask_load(&vr->mr, path, &vr->gt, &vr->gt_cap, &mw, &mh, NULL);
        if (st == SAMRT_OK && (mw != vr->w || mh != vr->h || ob->anns[0].frame != 0)) {
            SAMRT_LOG_ERROR("%s: the first mask must be frame 0 at %dx%d", path, vr->w, vr->h);
            st = SAMRT_E_FORMAT;
        }
        if (st != SAMRT_OK) break;
        uint8_t *fm = vr->first_masks + (size_t)k * vr->npx;
        memcpy(fm, vr->gt, vr->npx);
        st = samrt_prompt_from_mask(m->prompt, fm, vr->w, vr->h, pscratch, ps, &vr->prompts[k]);
        for (int t = 0; t < v->n_frames; t++) ao[t] = -1;
        for (int a = 0; a < ob->n_anns; a++) ao[ob->anns[a].frame] = a;
        if (st == SAMRT_OK) st = make_mask_dir(B, v, ob);
    }
    free(pscratch);
    return st;
}

/* One mask of timed run 0: written (when asked) and scored against its ground truth. */
static enum samrt_status save_and_score(struct bench *B, struct video_run *vr, int k, int t, uint8_t *mask) {
    const struct samrt_sav_video *v = vr->v;
    const struct samrt_sav_object *ob = &v->objects[k];
    const int a = vr->ann_of[(size_t)k * (size_t)v->n_frames + (size_t)t];
    if (a < 0 && B->o->save_masks != SAMRT_BENCH_SAVE_ALL) return SAMRT_OK;
    for (size_t i = 0; i < vr->npx; i++) mask[i] = mask[i] != 0;
    if (B->o->save_masks != SAMRT_BENCH_SAVE_NONE) {
        char path[PATH_LEN], stem[256];
        snprintf(stem, sizeof stem, "%s", v->frames[t].name);
        char *dot = strrchr(stem, '.');
        if (dot) *dot = 0;
        snprintf(path, sizeof path, "%s/%s/%s/%s/%s.png", B->o->out_dir, B->label, v->name, ob->name, stem);
        SAMRT_TRY(samrt_png_write_palette8(path, mask, vr->w, vr->h, B->palette, 256));
    }
    if (a < 0) return SAMRT_OK;
    char path[PATH_LEN];
    int gw = 0, gh = 0;
    samrt_sav_ann_path(v, ob, a, path, sizeof path);
    SAMRT_TRY(samrt_mask_load(&vr->mr, path, &vr->gt, &vr->gt_cap, &gw, &gh, NULL));
    SAMRT_CHECK(gw == vr->w && gh == vr->h, SAMRT_E_FORMAT, "%s: %dx%d, the video is %dx%d", path, gw, gh, vr->w,
                vr->h);
    return samrt_eval_frame(vr->gt, mask, vr->w, vr->h, vr->ev_scratch, vr->ev_scratch_bytes,
                            &vr->ev[(size_t)k * (size_t)vr->max_anns + (size_t)a]);
}

/* J_o and F_o of object k from the per-frame scores, fed in the evaluator's order (sorted
 * annotation names, first and last left out); absent when the object is not evaluable. */
static void conclude_scores(struct video_run *vr, int k) {
    const struct samrt_sav_object *ob = &vr->v->objects[k];
    double *j = malloc(sizeof(double) * (size_t)SAMRT_MAX(ob->n_anns, 1));
    double *f = malloc(sizeof(double) * (size_t)SAMRT_MAX(ob->n_anns, 1));
    struct samrt_eval_seq seq;
    double jo, fo;
    if (j && f) {
        samrt_eval_seq_init(&seq, j, f, ob->n_anns);
        const struct samrt_eval_frame *ev = &vr->ev[(size_t)k * (size_t)vr->max_anns];
        for (int a = 1; a + 1 < ob->n_anns; a++) samrt_eval_seq_feed(&seq, &ev[a]);
        if (ob->n_anns > 2 && samrt_eval_seq_conclude(&seq, &jo, &fo)) vr->jo[k] = jo, vr->fo[k] = fo;
    }
    free(j), free(f);
}

static void progress(struct bench *B, const struct model_run *mr, const struct video_run *vr, int vi, int pass,
                     int frame, int force) {
    if (!B->progress || mr->stream) return;  /* one line: stream 0's */
    const uint64_t now = samrt_platform_now_ns();
    if (!force && now - B->t_progress < 100000000ull) return;
    B->t_progress = now;
    const int n_pass = B->o->warmup + B->o->runs;
    fprintf(stderr, "\r\033[K[%d/%d %s] video %d/%d %s  pass %d/%d%s  frame %d/%d", mr->index + 1, B->o->n_models,
            B->label, vi + 1, B->split.n_videos, vr->v->name, pass + 1, n_pass,
            pass < B->o->warmup ? " (warm-up)" : "",
            frame, vr->v->n_frames);
    fflush(stderr);
}

enum samrt_status samrt_bench_push_row(struct bench *B, const struct samrt_profile_row *row) {
    if (B->n_rows == B->cap_rows) {
        const size_t cap = B->cap_rows ? 2 * B->cap_rows : 64;
        struct samrt_profile_row *p = realloc(B->rows, cap * sizeof *p);
        if (!p) return SAMRT_E_HOST_MEMORY;
        B->rows = p, B->cap_rows = cap;
    }
    B->rows[B->n_rows++] = *row;
    return SAMRT_OK;
}

/* Device memory the process took since the baseline, and the arena resident in RSS. */
static void measure_memory(struct bench *B, struct model_run *mr, double *reserved_mib, double *rss_mib) {
    const uint64_t resident = mr->tr.ops->host_resident_bytes ? mr->tr.ops->host_resident_bytes(mr->tr.self) : 0;
    const uint64_t hwm = samrt_platform_peak_rss_bytes();
    *rss_mib = hwm ? (double)(hwm > resident ? hwm - resident : 0) / MIB : SAMRT_PROFILE_ABSENT;
    *reserved_mib = SAMRT_PROFILE_ABSENT;
    struct samrt_device_info di;
    if (!B->have_device || samrt_platform_device_query(0, &di) != SAMRT_OK) return;
    double drop = B->free0 > di.free_bytes ? (double)(B->free0 - di.free_bytes) : 0.0;
    if (mr->have_mem && mr->mem.mem_kind == SAMRT_MEM_UNIFIED) {
        /* shared DRAM: host memory the process gained (arena pages excluded) also lowered the
         * free figure; it is counted in cpu_peak_rss_MiB, so not here */
        const uint64_t rss = samrt_platform_rss_bytes();
        const double host = (double)rss - (double)resident - (double)B->rss0;
        if (host > 0) drop = drop > host ? drop - host : 0.0;
    }
    if (drop > mr->max_drop) mr->max_drop = drop;
    double v = mr->max_drop;
    if (mr->have_mem && (double)mr->mem.arena_bytes > v && mr->mem.mem_kind != SAMRT_MEM_HOST)
        v = (double)mr->mem.arena_bytes;
    *reserved_mib = v / MIB;
}

static double stage_of(const struct samrt_stage_times *t, int i) {
    const float v[N_STAGES] = {t->preprocess_ms,       t->h2d_ms,
                               t->image_encoder_ms,    t->memory_attention_ms,
                               t->prompt_and_mask_decoder_ms, t->memory_encoder_ms,
                               t->postprocess_ms,      t->d2h_ms};
    return v[i];
}

static double *row_stage(struct samrt_profile_row *r, int i) {
    double *p[N_STAGES] = {&r->preprocess_ms,   &r->h2d_ms,       &r->image_encoder_ms, &r->memory_attention_ms,
                           &r->prompt_and_mask_decoder_ms, &r->memory_encoder_ms, &r->postprocess_ms, &r->d2h_ms};
    return p[i];
}

void samrt_bench_fill_row(const struct bench *B, const struct model_run *mr, const struct video_run *vr,
                          const struct pass_stats *ps, struct samrt_latency_rec *lat, struct samrt_profile_row *row) {
    const struct samrt_bench_opts *o = B->o;
    const int frames = ps->frames;
    samrt_profile_row_init(row);
    snprintf(row->platform, sizeof row->platform, "%s", B->platform);
    snprintf(row->hostname, sizeof row->hostname, "%s", B->hostname);
    snprintf(row->video, sizeof row->video, "%s", vr->v->name);
    snprintf(row->model, sizeof row->model, "%s", mr->m->tag);
    snprintf(row->precision, sizeof row->precision, "%s", B->precision);
    snprintf(row->device, sizeof row->device, "%s", B->device);
    snprintf(row->driver, sizeof row->driver, "%s", B->driver);
    snprintf(row->timestamp, sizeof row->timestamp, "%s", ps->ts);
    if (o->nsight_report) snprintf(row->nsight_report, sizeof row->nsight_report, "%s", o->nsight_report);
    row->imgsz = o->imgsz;
    row->sm_limit = B->sm_count;
    snprintf(row->memory, sizeof row->memory, "%s", samrt_memory_policy_name(B->memory));
    row->infer_H = row->infer_W = o->imgsz;
    row->H = vr->h, row->W = vr->w;
    row->frames = frames;
    if (ps->loop_s > 0) row->fps = frames / ps->loop_s;
    samrt_latency_rec_fill_row(lat, row);
    row->setup_ms = mr->setup_ms;
    row->cpu_peak_rss_MiB = ps->rss_mib;
    row->gpu_peak_reserved_MiB = ps->reserved_mib;
    if (mr->have_mem) {
        row->gpu_peak_alloc_MiB = (double)mr->mem.arena_bytes / MIB;
        row->arena_weights_MiB = (double)mr->mem.weights_bytes / MIB;
        row->arena_state_MiB = (double)mr->mem.state_bytes / MIB;
        row->arena_workspace_MiB = (double)mr->mem.workspace_bytes / MIB;
        row->arena_staging_MiB = (double)mr->mem.staging_bytes / MIB;
        row->arena_scratch_MiB = (double)mr->mem.scratch_bytes / MIB;
    }
    for (int i = 0; i < N_STAGES; i++)
        if (ps->stage_n[i]) *row_stage(row, i) = ps->stage_sum[i] / frames;
    if (frames) row->decode_ms = ps->decode_sum / frames;
}

/* The rows of one pass: one per object of [k0, k0 + n_obj) and, for timed run 0, the
 * objects' scores. */
static enum samrt_status push_pass_rows(struct bench *B, struct model_run *mr, struct video_run *vr, int k0,
                                        int n_obj, int pass, const struct pass_stats *ps) {
    const int warm = pass < B->o->warmup, run = pass - B->o->warmup, keep = !warm && run == 0;
    for (int k = k0; k < k0 + n_obj && keep; k++) conclude_scores(vr, k);
    for (int k = k0; k < k0 + n_obj; k++) {
        struct samrt_profile_row row;
        samrt_bench_fill_row(B, mr, vr, ps, &vr->lat, &row);
        row.warmup = warm;
        snprintf(row.object, sizeof row.object, "%s", vr->v->objects[k].name);
        if (!warm) row.run = run;
        row.J = vr->jo[k], row.F = vr->fo[k];
        if (!samrt_profile_absent(row.J) && !samrt_profile_absent(row.F)) row.JF = (row.J + row.F) / 2;
        samrt_profile_row_derive(&row);
        SAMRT_TRY(samrt_bench_push_row(B, &row));
    }
    return SAMRT_OK;
}

void samrt_bench_pass_add(struct pass_stats *acc, const struct pass_stats *ps) {
    if (!acc->frames && !acc->ts[0]) memcpy(acc->ts, ps->ts, sizeof acc->ts);
    acc->frames += ps->frames;
    acc->loop_s += ps->loop_s;
    for (int i = 0; i < N_STAGES; i++) acc->stage_sum[i] += ps->stage_sum[i], acc->stage_n[i] += ps->stage_n[i];
    acc->decode_sum += ps->decode_sum;
    acc->wait_sum += ps->wait_sum;
    acc->reserved_mib = ps->reserved_mib;
    acc->rss_mib = ps->rss_mib;
}

enum samrt_status samrt_bench_run_pass(struct bench *B, struct model_run *mr, struct video_run *vr, int vi, int k0,
                                       int n_obj, int pass, struct pass_stats *out) {
    const struct samrt_bench_opts *o = B->o;
    const struct samrt_sav_video *v = vr->v;
    const int warm = pass < o->warmup, run = pass - o->warmup, keep = !warm && run == 0 && !o->n_sweep;
    char range[320];
    snprintf(range, sizeof range, "%s %s pass %d", B->label, v->name, pass);
    samrt_latency_rec_reset(&vr->lat);
    struct pass_stats ps;
    memset(&ps, 0, sizeof ps);
    samrt_profile_timestamp((int64_t)time(NULL), ps.ts, sizeof ps.ts);

    samrt_frame_stream_t fs = NULL;
    const struct samrt_frame_source src = {v->jpeg_dir, o->prefetch, o->video ? o->start : 0,
                                           o->video ? v->n_frames : 0};
    const struct samrt_frame_decode dec = {o->decode_threads, o->gpu_decode, 0};
    SAMRT_TRY(samrt_frame_stream_open_decode(&src, &dec, &fs));
    const int t0 = o->video ? o->start : 0;  /* frame index -> position in the split's video */
    enum samrt_status st = mr->tr.ops->begin(mr->tr.self, vr->w, vr->h);
    for (int k = k0; k < k0 + n_obj && st == SAMRT_OK; k++)
        st = mr->tr.ops->prompt(mr->tr.self, obj_id(v, k), &vr->prompts[k]);
    for (int k = 0; k < n_obj; k++)
        vr->res[k] = (struct samrt_track_result){.mask = vr->res_masks + (size_t)(k0 + k) * vr->npx};

    uint64_t t_loop0 = 0, paused = 0;
    samrt_nvtx_push(range);
    while (st == SAMRT_OK) {
        if (warm && o->warmup_frames && ps.frames == o->warmup_frames) break;
        samrt_nvtx_push("frame");
        struct samrt_frame f;
        samrt_nvtx_push("wait_frame");
        st = samrt_frame_stream_next(fs, &f);
        samrt_nvtx_pop();
        if (st != SAMRT_OK || !f.rgb) {
            samrt_nvtx_pop();
            break;
        }
        const uint64_t t_avail = samrt_platform_now_ns();
        if (!ps.frames) t_loop0 = t_avail;
        if (samrt_profile_absent(mr->setup_ms)) mr->setup_ms = B->common_setup_ms + ms_between(mr->t_setup0, t_avail);
        const struct samrt_image img = {f.rgb, f.width, f.height, 3 * f.width};
        struct samrt_stage_times times;
        int n_res = 0;
        samrt_nvtx_push("track");
        st = mr->tr.ops->push(mr->tr.self, &img, f.on_device, vr->res, n_obj, &n_res, &times);
        samrt_nvtx_pop();
        const uint64_t t_done = samrt_platform_now_ns();
        samrt_frame_stream_release(fs, &f);
        samrt_nvtx_pop();
        if (st != SAMRT_OK) break;
        ps.frames++;
        samrt_latency_rec_add(&vr->lat, ms_between(t_avail, t_done));
        ps.loop_s = (double)(t_done - t_loop0 - paused) / 1e9;
        ps.decode_sum += f.decode_ms;  /* on the streamer's thread, overlapping earlier frames */
        if (ps.frames > 1) ps.wait_sum += f.wait_ms;
        for (int i = 0; i < N_STAGES; i++) {
            const double s = stage_of(&times, i);
            if (s >= 0) ps.stage_sum[i] += s, ps.stage_n[i]++;
        }
        const uint64_t t_pause = samrt_platform_now_ns();
        if (n_res != n_obj) {
            SAMRT_LOG_ERROR("%s: the tracker returned %d objects on frame %d of %s, %d were prompted", B->label,
                            n_res, f.index, v->name, n_obj);
            st = SAMRT_E_BAD_STATE;
        }
        for (int k = 0; k < n_obj && st == SAMRT_OK && keep; k++) {
            const struct samrt_track_result *r = NULL;
            for (int i = 0; i < n_res; i++)
                if (vr->res[i].obj_id == obj_id(v, k0 + k)) r = &vr->res[i];
            if (!r || !r->mask) {
                SAMRT_LOG_ERROR("%s: no mask for object %s on frame %d of %s", B->label, v->objects[k0 + k].name,
                                f.index, v->name);
                st = SAMRT_E_BAD_STATE;
                break;
            }
            samrt_nvtx_push("save_and_score");
            st = save_and_score(B, vr, k0 + k, f.index - t0, r->mask);
            samrt_nvtx_pop();
        }
        progress(B, mr, vr, vi, pass, ps.frames, 0);
        paused += samrt_platform_now_ns() - t_pause;
    }
    samrt_nvtx_pop();
    if (mr->tr.ops->end) mr->tr.ops->end(mr->tr.self);
    samrt_frame_stream_close(fs);
    if (st != SAMRT_OK) return st;
    SAMRT_CHECK(ps.frames > 0, SAMRT_E_FORMAT, "%s: no frame was tracked", v->name);
    if (!warm) mr->frames += ps.frames, mr->decode_sum += ps.decode_sum, mr->wait_sum += ps.wait_sum;
    if (!warm) mr->loop_s += ps.loop_s;
    measure_memory(B, mr, &ps.reserved_mib, &ps.rss_mib);
    *out = ps;
    return SAMRT_OK;
}

enum samrt_status samrt_bench_write_outputs(struct bench *B) {
    char path[PATH_LEN];
    snprintf(path, sizeof path, "%s/profile_summary.csv", B->o->out_dir);
    SAMRT_TRY(samrt_profile_write_csv(path, B->rows, B->n_rows));
    snprintf(path, sizeof path, "%s/profile_stats.json", B->o->out_dir);
    return samrt_profile_write_stats(path, B->rows, B->n_rows);
}

static enum samrt_status write_config(struct bench *B, const char *status) {
    const struct samrt_bench_opts *o = B->o;
    char models[SAMRT_BENCH_MAX_MODELS * 64 + 1] = "", shard[32] = "", ints[8][24];
    static char ckpts[SAMRT_BENCH_MAX_MODELS][PATH_LEN];
    char keys[SAMRT_BENCH_MAX_MODELS][96];
    struct samrt_profile_kv kv[32 + SAMRT_BENCH_MAX_MODELS];
    size_t n = 0;
    for (int i = 0; i < o->n_models; i++) {
        size_t len = strlen(models);
        snprintf(models + len, sizeof models - len, "%s%s", i ? "," : "", o->models[i].tag);
    }
    if (o->shard_n) snprintf(shard, sizeof shard, "%d/%d", o->shard_k, o->shard_n);
    const int iv[8] = {o->limit_videos, o->limit_objects, o->warmup, o->warmup_frames, o->runs, o->imgsz, o->prefetch,
                       B->split.n_videos};
    for (int i = 0; i < 8; i++) snprintf(ints[i], sizeof ints[i], "%d", iv[i]);
    static const char *save_names[] = {"annotated", "all", "none"};
    kv[n++] = (struct samrt_profile_kv){"command", "samrt bench"};
    kv[n++] = (struct samrt_profile_kv){"split_dir", o->split_dir};
    kv[n++] = (struct samrt_profile_kv){"video", o->video};
    kv[n++] = (struct samrt_profile_kv){"models", models};
    kv[n++] = (struct samrt_profile_kv){"weights_dir", o->weights_dir};
    kv[n++] = (struct samrt_profile_kv){"out_dir", o->out_dir};
    kv[n++] = (struct samrt_profile_kv){"videos", o->videos};
    kv[n++] = (struct samrt_profile_kv){"limit_videos", ints[0]};
    kv[n++] = (struct samrt_profile_kv){"limit_objects", ints[1]};
    kv[n++] = (struct samrt_profile_kv){"shard", shard};
    kv[n++] = (struct samrt_profile_kv){"warmup", ints[2]};
    kv[n++] = (struct samrt_profile_kv){"warmup_frames", ints[3]};
    kv[n++] = (struct samrt_profile_kv){"runs", ints[4]};
    kv[n++] = (struct samrt_profile_kv){"imgsz", ints[5]};
    kv[n++] = (struct samrt_profile_kv){"prefetch", ints[6]};
    kv[n++] = (struct samrt_profile_kv){"precision", B->precision};
    kv[n++] = (struct samrt_profile_kv){"per_obj", o->per_obj ? "1" : "0"};
    char sweep[SAMRT_BENCH_MAX_SWEEP * 4 + 1] = "";
    for (int i = 0; i < o->n_sweep; i++) {
        size_t len = strlen(sweep);
        snprintf(sweep + len, sizeof sweep - len, "%s%d", i ? "," : "", o->sweep[i]);
    }
    if (o->n_sweep) kv[n++] = (struct samrt_profile_kv){"objects", sweep};  /* only in a sweep */
    char streams[SAMRT_BENCH_MAX_STREAMS * 3 + 1] = "";
    for (int i = 0; i < o->n_streams; i++) {
        size_t len = strlen(streams);
        snprintf(streams + len, sizeof streams - len, "%s%d", i ? "," : "", o->streams[i]);
    }
    if (o->n_streams) kv[n++] = (struct samrt_profile_kv){"streams", streams};  /* only with --streams */
    char mems[SAMRT_MEMORY_POLICY_COUNT * 8 + 1] = "";
    for (int i = 0; i < o->n_memory; i++) {
        size_t len = strlen(mems);
        snprintf(mems + len, sizeof mems - len, "%s%s", i ? "," : "", samrt_memory_policy_name(o->memories[i]));
    }
    if (o->n_memory > 1) kv[n++] = (struct samrt_profile_kv){"memory", mems};  /* only with a --memory list */
    kv[n++] = (struct samrt_profile_kv){"save_masks", save_names[o->save_masks]};
    kv[n++] = (struct samrt_profile_kv){"nsight_report", o->nsight_report};
    kv[n++] = (struct samrt_profile_kv){"n_videos_selected", ints[7]};
    for (int i = 0; i < o->n_models; i++) {
        snprintf(keys[i], sizeof keys[i], "checkpoint.%s", o->models[i].tag);
        snprintf(ckpts[i], sizeof ckpts[i], "%s/%s", o->weights_dir, samrt_model_checkpoint_name(o->models[i].model));
        kv[n++] = (struct samrt_profile_kv){keys[i], ckpts[i]};
    }
    char ts[32];
    samrt_profile_timestamp((int64_t)time(NULL), ts, sizeof ts);
    kv[n++] = (struct samrt_profile_kv){"platform", B->platform};
    kv[n++] = (struct samrt_profile_kv){"hostname", B->hostname};
    kv[n++] = (struct samrt_profile_kv){"device", B->device};
    kv[n++] = (struct samrt_profile_kv){"driver", B->driver};
    kv[n++] = (struct samrt_profile_kv){"timestamp", ts};
    kv[n++] = (struct samrt_profile_kv){"status", status};
    char path[PATH_LEN];
    snprintf(path, sizeof path, "%s/experiment_config.txt", o->out_dir);
    return samrt_profile_write_config(path, kv, n);
}

/* Platform, device, precision, hostname and the memory baselines. */
static enum samrt_status bench_init(struct bench *B) {
    const struct samrt_bench_opts *o = B->o;
    int n_dev = 0;
    struct samrt_device_info di;
    memset(&di, 0, sizeof di);
    B->have_device = samrt_platform_device_count(&n_dev) == SAMRT_OK && n_dev > 0 &&
                     samrt_platform_device_query(0, &di) == SAMRT_OK;
    const struct samrt_platform_profile *prof =
        o->platform ? samrt_platform_profile_find(o->platform)
                    : samrt_platform_profile_detect(B->have_device ? &di : NULL);
    snprintf(B->platform, sizeof B->platform, "%s", prof->name);
    if (B->have_device) {
        snprintf(B->device, sizeof B->device, "%s", di.name);
        snprintf(B->driver, sizeof B->driver, "%d.%d", di.driver_version / 1000, (di.driver_version % 1000) / 10);
        B->free0 = di.free_bytes;
    } else {
        snprintf(B->device, sizeof B->device, "cpu");
    }
    if (o->sm_limit > 0) {  /* the SMs each engine's green context gets: the driver rounds up */
        struct samrt_sm_share_info q;
        samrt_platform_sm_share_query(0, o->sm_limit, &q);
        B->sm_count = q.granted > 0 ? q.granted : o->sm_limit;
    }
    B->rss0 = samrt_platform_rss_bytes();
    B->dtype = o->precision_set ? o->precision : prof->precision;
    snprintf(B->precision, sizeof B->precision, "%s",
             B->dtype == SAMRT_DTYPE_F32 ? "fp32" : B->dtype == SAMRT_DTYPE_F16 ? "fp16" : "bf16");
    if (gethostname(B->hostname, sizeof B->hostname) != 0) snprintf(B->hostname, sizeof B->hostname, "unknown");
    B->hostname[sizeof B->hostname - 1] = 0;
    samrt_palette_davis(B->palette);
    B->progress = isatty(2);
    return SAMRT_OK;
}

/* Every checkpoint exists before anything runs, so a typo fails in milliseconds. */
static enum samrt_status check_checkpoints(const struct samrt_bench_opts *o) {
    enum samrt_status st = SAMRT_OK;
    for (int i = 0; i < o->n_models; i++) {
        char path[PATH_LEN];
        snprintf(path, sizeof path, "%s/%s", o->weights_dir, samrt_model_checkpoint_name(o->models[i].model));
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            fprintf(stderr, "samrt bench: %s: checkpoint %s not found (--weights_dir)\n", o->models[i].tag, path);
            st = SAMRT_E_IO;
        }
    }
    return st;
}

/* Whether decoding kept up: the time the tracker waited for frames against the loop time. */
static void print_decode(const struct bench *B, const struct model_run *mr) {
    if (!mr->frames || mr->loop_s <= 0) return;
    const double wait_pct = 100.0 * mr->wait_sum / (1e3 * mr->loop_s);
    printf("samrt bench: %s: decode %.2f ms/frame on its thread; the tracker waited %.2f ms/frame for frames "
           "(%.1f%% of the loop): %s\n",
           B->label, mr->decode_sum / mr->frames, mr->wait_sum / mr->frames, wait_pct,
           wait_pct > 5.0 ? "decode-bound (decoding is slower than tracking; fps is the decoder's)"
                          : "decoding keeps up");
}

enum samrt_status samrt_bench_open_model(struct bench *B, struct model_run *mr, int max_objects) {
    const struct samrt_bench_opts *o = B->o;
    char ckpt[PATH_LEN];
    snprintf(ckpt, sizeof ckpt, "%s/%s", o->weights_dir, samrt_model_checkpoint_name(mr->m->model));
    const struct samrt_tracker_config cfg = {mr->m->model, ckpt,        B->platform, B->dtype,
                                             o->imgsz,     max_objects, o->sm_limit, B->memory};
    /* each model's cpu_peak_rss_MiB is its own peak (setup included), not the process's so
     * far; where the kernel refuses the reset the value stays cumulative (docs/profiling.md) */
    if (!samrt_platform_peak_rss_reset() && (mr->index > 0 || o->n_sweep > 1 || o->n_memory > 1) &&
        !B->rss_reset_warned) {
        fprintf(stderr, "samrt bench: note: cannot reset the peak RSS (/proc/self/clear_refs); "
                        "cpu_peak_rss_MiB of later models includes earlier models' peaks\n");
        B->rss_reset_warned = 1;
    }
    mr->t_setup0 = samrt_platform_now_ns();
    mr->setup_ms = SAMRT_PROFILE_ABSENT;
    samrt_nvtx_push("setup");
    const enum samrt_status st = B->b->open(&cfg, &mr->tr);
    samrt_nvtx_pop();
    if (st != SAMRT_OK) {
        fprintf(stderr, "samrt bench: %s: cannot set up the tracker (%s)\n", B->label, samrt_status_str(st));
        return st;
    }
    mr->have_mem = mr->tr.ops->memory && mr->tr.ops->memory(mr->tr.self, &mr->mem) == SAMRT_OK;
    return SAMRT_OK;
}

enum samrt_status samrt_bench_each_video(struct bench *B, struct model_run *mr, samrt_bench_video_fn fn, void *ctx) {
    enum samrt_status st = SAMRT_OK;
    for (int vi = 0; vi < B->split.n_videos && st == SAMRT_OK; vi++) {
        const size_t n_rows0 = B->n_rows;
        st = fn(B, mr, vi, ctx);
        if (st != SAMRT_OK)
            fprintf(stderr, "%ssamrt bench: %s: video %s failed (%s)\n", B->progress ? "\n" : "", B->label,
                    B->split.videos[vi].name, samrt_status_str(st));
        if (st != SAMRT_OK) B->n_rows = n_rows0;
        if (st == SAMRT_OK) st = samrt_bench_write_outputs(B);
    }
    if (B->progress) fputc('\n', stderr);
    mr->tr.ops->close(mr->tr.self);
    if (st == SAMRT_OK) print_decode(B, mr);
    return st;
}

/* One video's tracking units (the video, or each object with --per_obj), their passes and rows. */
static enum samrt_status run_video(struct bench *B, struct model_run *mr, int vi, void *ctx) {
    (void)ctx;
    const struct samrt_bench_opts *o = B->o;
    const struct samrt_sav_video *v = &B->split.videos[vi];
    struct video_run vr;
    enum samrt_status st = samrt_bench_video_prepare(B, mr->m, v, v->n_objects, &vr);
    const int n_units = o->per_obj ? vr.n_obj : 1, n_obj = o->per_obj ? 1 : vr.n_obj;
    for (int u = 0; u < n_units && st == SAMRT_OK; u++)
        for (int pass = 0; pass < o->warmup + o->runs && st == SAMRT_OK; pass++) {
            struct pass_stats ps;
            st = samrt_bench_run_pass(B, mr, &vr, vi, o->per_obj ? u : 0, n_obj, pass, &ps);
            if (st == SAMRT_OK) st = push_pass_rows(B, mr, &vr, o->per_obj ? u : 0, n_obj, pass, &ps);
        }
    samrt_bench_video_free(&vr);
    return st;
}

static enum samrt_status run_model(struct bench *B, struct model_run *mr) {
    int max_obj = 1;
    for (int v = 0; v < B->split.n_videos && !B->o->per_obj; v++)
        max_obj = SAMRT_MAX(max_obj, B->split.videos[v].n_objects);
    SAMRT_TRY(samrt_bench_open_model(B, mr, max_obj));
    return samrt_bench_each_video(B, mr, run_video, NULL);
}

int samrt_bench_run(const struct samrt_bench_opts *o, const struct samrt_tracker_backend *backend) {
    struct bench B;
    memset(&B, 0, sizeof B);
    B.o = o, B.b = backend;
    const uint64_t t_entry = samrt_platform_now_ns();
    B.t_start = process_start_ns(t_entry);
    enum samrt_status st = bench_init(&B);
    struct samrt_sav_select sel = samrt_sav_default_select();
    sel.videos = o->videos;
    sel.limit_videos = o->limit_videos;
    sel.limit_objects = o->limit_objects;
    sel.shard_k = o->shard_k, sel.shard_n = o->shard_n;
    if (st == SAMRT_OK) st = o->video ? samrt_bench_video_split(o, &B.split) : samrt_sav_open(o->split_dir, &sel, &B.split);
    if (st == SAMRT_OK) st = check_checkpoints(o);
    if (st == SAMRT_OK) st = samrt_mkdirs(o->out_dir);
    if (st == SAMRT_OK) st = write_config(&B, "running");
    if (st != SAMRT_OK) {
        fprintf(stderr, "samrt bench: %s\n", samrt_status_str(st));
        samrt_sav_free(&B.split);
        return samrt_exit_code(st);
    }
    B.common_setup_ms = ms_between(B.t_start, samrt_platform_now_ns());
    for (int i = 0; i < o->n_models && st == SAMRT_OK; i++)
        for (int p = 0; p < SAMRT_MAX(o->n_memory, 1) && st == SAMRT_OK; p++) {  /* each policy of --memory */
            struct model_run mr;
            memset(&mr, 0, sizeof mr);
            mr.m = &o->models[i], mr.index = i;
            B.memory = o->n_memory ? o->memories[p] : o->memory;
            snprintf(B.label, sizeof B.label, "%s%s%s", mr.m->tag, o->n_memory > 1 ? "@" : "",
                     o->n_memory > 1 ? samrt_memory_policy_name(B.memory) : "");
            st = o->n_sweep ? samrt_bench_sweep_model(&B, mr.m, i) : run_model(&B, &mr);
        }
    /* the finished videos are on disk already; this records the end state */
    const enum samrt_status wst = samrt_bench_write_outputs(&B);
    char status[128];
    snprintf(status, sizeof status, "%s", st == SAMRT_OK ? "ok" : samrt_status_str(st));
    const enum samrt_status cst = write_config(&B, st == SAMRT_OK ? "ok" : status);
    if (st == SAMRT_OK) st = wst != SAMRT_OK ? wst : cst;
    size_t n_timed = 0;
    for (size_t i = 0; i < B.n_rows; i++) n_timed += !B.rows[i].warmup;
    if (st == SAMRT_OK)
        printf("samrt bench: %zu rows (%d videos, %d models) -> %s/profile_summary.csv\n", n_timed, B.split.n_videos,
               o->n_models, o->out_dir);
    else
        fprintf(stderr, "samrt bench: stopped: %s; %zu rows of finished videos kept in %s\n", samrt_status_str(st),
                n_timed, o->out_dir);
    free(B.rows);
    samrt_sav_free(&B.split);
    return samrt_exit_code(st);
}
