/* track_write.c - what `samrt track` writes (track_cli.h): per frame the object masks (SA-V
 * layout), the overlay PNG and the overlay video frame; at the end the --timing lines and the
 * --dump-taps file. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "image_io.h"
#include "overlay.h"
#include "profile.h"
#include "stats.h"
#include "track_cli.h"

/* Masks, overlay PNG and overlay video frame of one tracked frame (the first pass only). */
enum samrt_status samrt_track_write_frame(const struct track_args *a, struct track_run *r, const struct samrt_frame *fr, int n) {
    const size_t npx = (size_t)fr->width * fr->height;
    char stem[256], path[4096];
    snprintf(stem, sizeof stem, "%s", fr->name);
    char *dot = strrchr(stem, '.');
    if (dot) *dot = 0;
    for (int i = 0; i < n && a->s.out; i++) {
        for (size_t p = 0; p < npx; p++) r->gray[p] = r->res[i].mask[p] ? 255 : 0;
        snprintf(path, sizeof path, "%s/%03d", a->s.out, r->res[i].obj_id);
        SAMRT_TRY(samrt_mkdirs(path));
        snprintf(path, sizeof path, "%s/%03d/%s.png", a->s.out, r->res[i].obj_id, stem);
        SAMRT_TRY(samrt_png_write_gray8(path, r->gray, fr->width, fr->height));
    }
    if (!a->overlay && !r->vw) return SAMRT_OK;
    struct samrt_overlay_object obj[MAX_OBJ];
    for (int i = 0; i < n; i++) obj[i] = (struct samrt_overlay_object){r->res[i].mask, r->res[i].obj_id};
    memcpy(r->over, fr->rgb, 3 * npx);
    samrt_overlay_draw(r->over, fr->width, fr->height, obj, n);
    if (r->vw) SAMRT_TRY(samrt_video_writer_push(r->vw, r->over));
    if (!a->overlay) return SAMRT_OK;
    snprintf(path, sizeof path, "%s/%s.png", a->overlay, stem);
    return samrt_png_write_rgb8(path, r->over, fr->width, fr->height);
}

/* --timing: nearest-rank percentiles of the per-frame push times, the decoding, and the
 * arena. The loop time of the first pass includes writing the outputs, so fps there is a
 * lower bound; `samrt bench` times the tracker alone. */
void samrt_track_print_timing(struct track_run *r, int n_objects) {
    struct samrt_stats s;  /* sorts r->ms in place (harness/profile.h) */
    if (r->n_ms == 0 || samrt_stats_compute(r->ms, (size_t)r->n_ms, &s) != SAMRT_OK) return;
    const int n = r->n_ms;
    const size_t nn = (size_t)n;
    struct samrt_memory_report m;
    samrt_engine_memory(r->e, &m);
    printf("timing: %d frames, %d object(s): ms/frame median %.3f p95 %.3f p99 %.3f mean %.3f min %.3f max %.3f "
           "(push: RGB8 in, masks on the host out)\n",
           n, n_objects, samrt_percentile_nearest_sorted(r->ms, nn, 50.0),
           samrt_percentile_nearest_sorted(r->ms, nn, 95.0), samrt_percentile_nearest_sorted(r->ms, nn, 99.0), s.mean,
           s.min, s.max);
    printf("decode: %.3f ms/frame on the decode thread (%s); the tracker waited %.3f ms/frame for frames%s\n",
           r->decode_ms / n, r->decoder[0] ? r->decoder : "?", r->wait_ms / n, r->wait_ms > 0.05 * r->loop_ms ? " (decode-bound)" : "");
    printf("arena: total %.2f MiB (weights %.2f, state %.2f, workspace %.2f, staging %.2f, scratch %.2f)\n",
           m.arena_bytes / 1048576.0, m.weights_bytes / 1048576.0, m.state_bytes / 1048576.0,
           m.workspace_bytes / 1048576.0, m.staging_bytes / 1048576.0, m.scratch_bytes / 1048576.0);
}

enum samrt_status samrt_track_write_taps(const struct track_args *a, struct track_run *r, int w, int h, int n_frames) {
    enum samrt_model_id id = SAMRT_MODEL_UNKNOWN;
    samrt_engine_model(r->e, &id, NULL);
    char meta[512];
    snprintf(meta, sizeof meta,
             "\"producer\":\"samrt track\",\"model\":\"%s\",\"settings\":\"%s\",\"video_hw\":"
             "\"%dx%d\",\"image_size\":\"%d\",\"num_frames\":\"%d\",\"format\":\"samrt-taps/1\"",
             samrt_model_name(id), a->postproc == SAMRT_POSTPROC_NOTEBOOK ? "notebook" : "vos_inference", h, w,
             a->p.imgsz, n_frames);
    SAMRT_TRY(samrt_taps_write(r->ts, a->taps, meta));
    printf("taps: %d tensors -> %s\n", samrt_taps_count(r->ts), a->taps);
    return SAMRT_OK;
}
