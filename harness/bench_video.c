/* bench_video.c - `samrt bench --video`: one video file, camera or JPEG folder in the shape of
 * an SA-V split (bench.h), so that the bench's loop, rows and files stay one code path. The
 * split holds one video named after the file (clip.mp4 -> "clip") whose frames are named by
 * their index in the source (00000.jpg, ...: the stems of saved masks) and whose objects
 * 001, 002, ... carry no annotations: their prompts come from the command line, and J, F,
 * J&F stay empty. The frame count is the stream's (after --start and --max-frames), so a
 * camera needs --max-frames. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_stream.h"
#include "samrt_internal.h"

/* The source's name without folders and extension, e.g. "bedroom_40". */
static char *video_name(const char *path) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/') b--;
    size_t e = n;
    for (size_t i = n; i > b; i--)
        if (path[i - 1] == '.') {
            e = i - 1 > b ? i - 1 : n;
            break;
        }
    char *s = malloc(e - b + 1);
    if (s) memcpy(s, path + b, e - b), s[e - b] = 0;
    return s;
}

/* The prompts against the frame size, as the tracker would check them. */
static enum samrt_status check_prompts(const struct samrt_bench_opts *o, int w, int h) {
    for (int k = 0; k < o->n_prompts; k++) {
        const struct samrt_prompt *p = &o->prompts[k];
        struct samrt_object_prompt op;
        memset(&op, 0, sizeof op);
        op.n_clicks = p->n_points < SAMRT_MAX_CLICKS ? p->n_points : SAMRT_MAX_CLICKS;
        for (int i = 0; i < op.n_clicks; i++) op.clicks[i] = (struct samrt_click){p->points[i].x, p->points[i].y, p->points[i].label};
        op.has_box = p->has_box;
        memcpy(op.box, p->box, sizeof op.box);
        const enum samrt_status st = samrt_internal_check_prompt(&op, w, h, o->imgsz);
        SAMRT_CHECK(st == SAMRT_OK, st, "samrt bench: --video: object %d: bad prompt (see above)", k + 1);
    }
    return SAMRT_OK;
}

/* Frames (named by index from start) and objects (001, ...) of the one video. */
static enum samrt_status fill_video(const struct samrt_bench_opts *o, struct samrt_sav_video *v) {
    v->frames = calloc((size_t)v->n_frames, sizeof *v->frames);
    v->objects = calloc((size_t)o->n_prompts, sizeof *v->objects);
    SAMRT_CHECK(v->frames && v->objects, SAMRT_E_HOST_MEMORY, "out of memory for %d frames", v->n_frames);
    char name[32];
    for (int t = 0; t < v->n_frames; t++) {
        snprintf(name, sizeof name, "%05d.jpg", o->start + t);
        v->frames[t].number = o->start + t;
        v->frames[t].name = strdup(name);
        SAMRT_CHECK(v->frames[t].name, SAMRT_E_HOST_MEMORY, "out of memory");
    }
    v->n_objects = o->n_prompts;
    for (int k = 0; k < o->n_prompts; k++) {
        snprintf(name, sizeof name, "%03d", k + 1);
        v->objects[k].id = k + 1;
        v->objects[k].name = strdup(name);
        SAMRT_CHECK(v->objects[k].name, SAMRT_E_HOST_MEMORY, "out of memory");
    }
    return SAMRT_OK;
}

enum samrt_status samrt_bench_video_split(const struct samrt_bench_opts *o, struct samrt_sav_split *out) {
    SAMRT_CHECK(o && o->video && out, SAMRT_E_INVALID_ARG, "samrt_bench_video_split: no --video");
    memset(out, 0, sizeof *out);
    samrt_frame_stream_t fs = NULL;
    const struct samrt_frame_source src = {o->video, 1, o->start, o->max_frames};
    SAMRT_TRY(samrt_frame_stream_open_source(&src, &fs));
    struct samrt_frame_stream_info info;
    samrt_frame_stream_info(fs, &info);
    samrt_frame_stream_close(fs);
    SAMRT_CHECK(info.n_frames > 0, SAMRT_E_INVALID_ARG, "samrt bench: %s: %s", o->video,
                info.n_frames < 0 ? "a camera has no end: give --max-frames" : "no frames");
    SAMRT_TRY(check_prompts(o, info.width, info.height));
    out->root = strdup(o->video);
    out->videos = calloc(1, sizeof *out->videos);
    if (!out->root || !out->videos) {
        samrt_sav_free(out);
        SAMRT_LOG_ERROR("out of memory");
        return SAMRT_E_HOST_MEMORY;
    }
    out->n_videos = out->n_videos_total = 1;
    struct samrt_sav_video *v = &out->videos[0];
    v->name = video_name(o->video);
    v->jpeg_dir = strdup(o->video);
    v->ann_dir = strdup("");
    v->width = info.width, v->height = info.height;
    v->n_frames = info.n_frames;
    enum samrt_status st = v->name && v->jpeg_dir && v->ann_dir ? fill_video(o, v) : SAMRT_E_HOST_MEMORY;
    if (st != SAMRT_OK) samrt_sav_free(out);
    return st;
}
