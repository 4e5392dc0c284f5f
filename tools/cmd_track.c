/* cmd_track.c - `samrt track`: SAM 2.1 / EdgeTAM video tracking over a folder of JPEG frames,
 * a video file or a camera through the public streaming API (samrt_engine_track_*). This file
 * runs it: the source, the prompts checked against the frame size, the engine and the passes
 * over the frames; the options are track_args.c's, the outputs track_write.c's (track_cli.h).
 * Frames are decoded ahead by the bounded prefetching streamer of harness/frame_stream.h
 * (never the whole video in memory). Writes one PNG per frame and object in the SA-V
 * prediction layout (eval-spec 1.5): OUT/<obj %03d>/<stem>.png, 0/255 (a video frame's stem
 * is its index), plus optional overlays (PNGs and / or a video, harness/overlay.h) and a
 * parity tap dump of every object (the first-added one under frame.<t>.*, the others under
 * obj<id>.frame.<t>.*; tests/parity/run_sam2_video_parity.sh). Outputs are written on the
 * first pass; Ctrl-C stops a camera (or any run) after the current frame and still finishes
 * the overlay video.
 * Examples:
 *   samrt track --weights sam2.1_hiera_tiny.pt --frames video/ --point 210,350 --out pred/video
 *   samrt track --weights edgetam.pt --video clip.mp4 --point 210,350 --overlay-video tracked.mp4
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mask_read.h"
#include "track_cli.h"

/* The object's mask prompt, which must have the frames' size. */
static enum samrt_status load_mask(struct obj_arg *o, int w, int h) {
    struct samrt_mask_reader rd;
    memset(&rd, 0, sizeof rd);
    size_t cap = 0;
    int mw = 0, mh = 0;
    enum samrt_status st = samrt_mask_load(&rd, o->mask_path, &o->mask, &cap, &mw, &mh, NULL);
    samrt_mask_reader_free(&rd);
    SAMRT_TRY(st);
    SAMRT_CHECK(mw == w && mh == h, SAMRT_E_INVALID_ARG, "samrt track: --mask %s is %dx%d, the frames are %dx%d",
                o->mask_path, mw, mh, w, h);
    return SAMRT_OK;
}

static volatile sig_atomic_t g_stop;

static void on_sigint(int sig) {
    (void)sig;
    g_stop = 1;
}

/* Prompts the objects whose prompt frame is t, then tracks the frame. */
static enum samrt_status track_frame(const struct track_args *a, struct track_run *r, const struct samrt_frame *fr, int t,
                                     int timed, int *n) {
    enum samrt_status st = SAMRT_OK;
    for (int k = 0; k < a->n_obj && st == SAMRT_OK; k++)
        if (a->obj[k].at == t)
            st = a->obj[k].mask ? samrt_engine_track_prompt_mask(r->e, a->obj[k].id, a->obj[k].mask)
                                : samrt_engine_track_prompt(r->e, a->obj[k].id, &a->obj[k].p);
    const struct samrt_image img = {fr->rgb, fr->width, fr->height, 3 * fr->width};
    const uint64_t t0 = samrt_cli_now_ns();
    if (st == SAMRT_OK && fr->nv12)  /* an NVDEC frame: its NV12 planes, converted inside the resize */
        st = samrt_engine_track_push_nv12(r->e, fr->nv12, 1, r->res, a->p.max_objects, n);
    else if (st == SAMRT_OK)
        st = samrt_engine_track_push(r->e, &img, fr->on_device, r->res, a->p.max_objects, n);
    if (timed && r->n_ms < r->cap_ms) {
        r->ms[r->n_ms++] = (double)(samrt_cli_now_ns() - t0) * 1e-6;
        r->decode_ms += fr->decode_ms;
        if (t > 0) r->wait_ms += fr->wait_ms;  /* the first frame waits for the stream to start */
    }
    return st;
}

static enum samrt_status track_all(const struct track_args *a, struct track_run *r, samrt_frame_stream_t fs, int w, int h,
                                   int n_frames, int pass, int timed) {
    const size_t npx = (size_t)w * h;
    SAMRT_TRY(samrt_engine_track_begin(r->e, w, h));
    const struct samrt_internal_track_options opt = {a->postproc, a->non_overlap, n_frames > 0 ? n_frames : 0,
                                                     a->fill_holes};
    SAMRT_TRY(samrt_internal_track_set_options(r->e, &opt));
    if (r->ts) SAMRT_TRY(samrt_internal_track_set_tap(r->e, pass == 0 ? samrt_taps_hook : NULL, r->ts));
    if (r->ts && a->dump_memattn) SAMRT_TRY(samrt_internal_track_set_tap_memattn(r->e, pass == 0));
    for (int i = 0; i < a->p.max_objects; i++) r->res[i].mask = r->masks + npx * (size_t)i;
    enum samrt_status st = SAMRT_OK;
    struct samrt_frame fr;
    int t = 0;
    const uint64_t loop0 = samrt_cli_now_ns();
    while (st == SAMRT_OK && !g_stop) {
        st = samrt_frame_stream_next(fs, &fr);
        if (st != SAMRT_OK || !fr.rgb) break;
        int n = 0;
        st = track_frame(a, r, &fr, t, timed, &n);
        if (st == SAMRT_OK && pass == 0) st = samrt_track_write_frame(a, r, &fr, n);
        if (st == SAMRT_OK && pass == 0 && (t % 50 == 0 || t < 3))
            for (int i = 0; i < n; i++)
                printf("frame %d object %d: score %+.4f area %d\n", fr.index, r->res[i].obj_id, r->res[i].object_score,
                       r->res[i].area);
        samrt_frame_stream_release(fs, &fr);
        t++;
    }
    if (timed) r->loop_ms += (double)(samrt_cli_now_ns() - loop0) * 1e-6;
    if (st == SAMRT_OK && pass == 0)
        printf("tracked %d frames%s%s%s\n", t, g_stop ? " (stopped by Ctrl-C)" : "", a->s.out ? " -> " : "",
               a->s.out ? a->s.out : "");
    return st;
}

/* Opens the source again for another pass, or for the first. */
static enum samrt_status open_stream(const struct track_args *a, samrt_frame_stream_t *fs) {
    samrt_frame_stream_close(*fs);
    *fs = NULL;
    const struct samrt_frame_source src = {a->frames, a->s.prefetch, a->s.start, a->s.max_frames};
    const struct samrt_frame_decode dec = {a->s.decode_threads, a->s.gpu_decode, a->s.gpu_decode};
    return samrt_frame_stream_open_decode(&src, &dec, fs);
}

/* Prompts are checked and mask prompts loaded before the weights, so a bad one fails fast. */
static enum samrt_status check_prompts(struct track_args *a, int w, int h) {
    for (int k = 0; k < a->n_obj; k++) {
        if (a->obj[k].mask_path) {
            SAMRT_TRY(load_mask(&a->obj[k], w, h));
            continue;
        }
        const enum samrt_status st = samrt_internal_check_prompt(&a->obj[k].p, w, h, a->p.imgsz);
        if (st != SAMRT_OK) {
            fprintf(stderr, "samrt track: object %d: bad prompt (see above)\n", a->obj[k].id);
            return st;
        }
    }
    return SAMRT_OK;
}

/* Output folders, the engine, the buffers, the taps, the overlay video and the timing record. */
static enum samrt_status setup(struct track_args *a, struct track_run *r, samrt_frame_stream_t fs) {
    struct samrt_frame_stream_info info;
    samrt_frame_stream_info(fs, &info);
    const int w = info.width, h = info.height;
    snprintf(r->decoder, sizeof r->decoder, "%s", info.decoder);
    SAMRT_CHECK(a->s.runs == 1 || !info.is_device, SAMRT_E_INVALID_ARG, "samrt track: --runs needs a file or a folder, "
                "not a camera");
    if (a->s.out) SAMRT_TRY(samrt_mkdirs(a->s.out));
    if (a->overlay) SAMRT_TRY(samrt_mkdirs(a->overlay));
    if (w > a->p.max_frame_width) a->p.max_frame_width = w;
    if (h > a->p.max_frame_height) a->p.max_frame_height = h;
    SAMRT_TRY(samrt_engine_init(a->weights, &a->p, &r->e));
    const size_t npx = (size_t)w * h;
    r->masks = malloc(npx * (size_t)a->p.max_objects);
    r->gray = malloc(npx);
    r->over = malloc(3 * npx);
    SAMRT_CHECK(r->masks && r->gray && r->over, SAMRT_E_HOST_MEMORY, "samrt track: out of memory");
    if (a->taps) {
        struct samrt_memory_report mem;
        samrt_engine_memory(r->e, &mem);
        SAMRT_TRY(samrt_taps_init(mem.mem_kind, NULL, &r->ts));
    }
    if (a->overlay_video) {
        const double fps = a->fps > 0 ? a->fps : info.fps > 0 ? info.fps : 24.0;
        SAMRT_TRY(samrt_video_writer_open(a->overlay_video, w, h, fps, &r->vw));
    }
    if (a->timing) {
        r->cap_ms = (info.n_frames > 0 ? info.n_frames : 1 << 20) * a->s.runs;
        r->ms = malloc(sizeof *r->ms * (size_t)r->cap_ms);
        SAMRT_CHECK(r->ms, SAMRT_E_HOST_MEMORY, "samrt track: out of memory");
    }
    return SAMRT_OK;
}

int samrt_cmd_track(int argc, char **argv) {
    static struct track_args a;
    static struct track_run r;
    const int rc = samrt_track_parse_args(argc, argv, &a);
    if (rc == HELP_SHOWN) return SAMRT_EXIT_OK;
    if (rc) {
        if (rc < 0) samrt_track_usage(stderr);
        return rc < 0 ? SAMRT_EXIT_USAGE : rc;
    }
    memset(&r, 0, sizeof r);
    g_stop = 0;
    samrt_frame_stream_t fs = NULL;
    enum samrt_status st = open_stream(&a, &fs);
    int w = 0, h = 0;
    if (st == SAMRT_OK) samrt_frame_stream_size(fs, &w, &h);
    if (st == SAMRT_OK) st = check_prompts(&a, w, h);
    if (st == SAMRT_OK) st = setup(&a, &r, fs);
    const int n_frames = st == SAMRT_OK ? samrt_frame_stream_count(fs) : 0;
    void (*old_handler)(int) = signal(SIGINT, on_sigint);
    for (int pass = 0; pass < a.s.runs && st == SAMRT_OK && !g_stop; pass++) {  /* the whole source is the video */
        if (pass > 0) st = open_stream(&a, &fs);  /* the stream is forward-only: open it again */
        if (st == SAMRT_OK) st = track_all(&a, &r, fs, w, h, n_frames, pass, a.timing && (a.s.runs == 1 || pass > 0));
    }
    signal(SIGINT, old_handler);
    const enum samrt_status vst = samrt_video_writer_close(r.vw);  /* finishes the frames tracked so far */
    if (st == SAMRT_OK) st = vst;
    if (st == SAMRT_OK && a.overlay_video) printf("overlay video: %s\n", a.overlay_video);
    if (st == SAMRT_OK && a.timing) samrt_track_print_timing(&r, a.n_obj);
    if (st == SAMRT_OK && r.ts) st = samrt_track_write_taps(&a, &r, w, h, n_frames);
    if (st != SAMRT_OK) fprintf(stderr, "samrt track: %s\n", samrt_status_str(st));
    samrt_taps_free(r.ts);
    samrt_engine_free(r.e);
    samrt_frame_stream_close(fs);
    free(r.masks), free(r.gray), free(r.over), free(r.ms);
    for (int k = 0; k < a.n_obj; k++) free(a.obj[k].mask), a.obj[k].mask = NULL;
    return samrt_exit_code(st);
}
