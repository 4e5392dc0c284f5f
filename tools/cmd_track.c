/* cmd_track.c - `samrt track`: SAM 2.1 / EdgeTAM video tracking over a folder of JPEG frames,
 * a video file or a camera through the public streaming API (samrt_engine_track_*). Frames
 * are decoded ahead by the bounded prefetching streamer of harness/frame_stream.h (never the
 * whole video in memory). Writes one PNG per frame and object in the SA-V prediction layout
 * (eval-spec 1.5): OUT/<obj %03d>/<stem>.png, 0/255 (a video frame's stem is its index), plus
 * optional overlays (PNGs and / or a video, harness/overlay.h) and a parity tap dump of every
 * object (the first-added one under frame.<t>.*, the others under obj<id>.frame.<t>.*;
 * tests/parity/run_sam2_video_parity.sh). Outputs are written on the first pass; Ctrl-C stops
 * a camera (or any run) after the current frame and still finishes the overlay video.
 * Examples:
 *   samrt track --weights sam2.1_hiera_tiny.pt --frames video/ --point 210,350 --out pred/video
 *   samrt track --weights edgetam.pt --video clip.mp4 --point 210,350 --overlay-video tracked.mp4
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>

#include "cli.h"
#include "frame_stream.h"
#include "image_io.h"
#include "overlay.h"
#include "profile.h"
#include "samrt_internal.h"
#include "sav.h"
#include "stats.h"
#include "taps.h"
#include "track_opts.h"
#include "video.h"

#define MAX_OBJ 64
#define HELP_SHOWN 100

static void usage(FILE *f) {
    fprintf(f,
            "usage: samrt track --weights CKPT (--frames DIR | --video FILE|/dev/videoN)\n"
            "                   (--point x,y[,l] ... | --box x0,y0,x1,y1 | --mask PNG)\n"
            "                   [--obj N [--at F] (--point ... | --box ... | --mask PNG)] ...\n"
            "                   [--out DIR] [--overlay-dir DIR] [--overlay-video FILE] [--fps F]\n"
            "                   [--start N] [--max-frames N] [--prefetch N]\n"
            "                   [--precision fp32|bf16|fp16] [--platform P] [--imgsz N] [--max-objects K]\n"
            "                   [--non-overlap] [--settings vos_inference|notebook] [--fill-holes N]\n"
            "                   [--dump-taps FILE] [--timing] [--runs N]\n\n"
            "Tracks objects through the JPEG frames of DIR (sorted by the integer stem), a video file\n"
            "or a V4L2 camera with SAM 2.1 or EdgeTAM, streaming: each object is prompted on one frame\n"
            "(default the first) and tracked forward from it, as the official video predictor does\n"
            "from its prompt frame.\n\n"
            "  --weights CKPT     official checkpoint (.pt) or safetensors with the official keys\n"
            "  --frames DIR       a folder of JPEG frames of one size\n"
            "  --video FILE       a video file (mp4, mkv, webm, ...; FFmpeg) or a camera, /dev/videoN;\n"
            "                     frames are named by their index (00012) in the outputs\n"
            "  --start N          skip the first N frames (a video decodes and drops them)\n"
            "  --obj N            start object N (id >= 0); prompts before any --obj belong to object 1\n"
            "  --at F             the current object's prompt frame, counted from the first frame\n"
            "                     tracked (default 0)\n"
            "  --point x,y[,l]    a click in frame pixels, label 1 (default) or 0; repeatable\n"
            "  --box x0,y0,x1,y1  a box in frame pixels (one per object)\n"
            "  --mask PNG         a mask prompt: a gray or palette PNG of the frame size, object = value > 0\n"
            "                     (instead of points or a box for that object)\n"
            "  --out DIR          writes DIR/<obj %%03d>/<frame stem>.png (0 / 255)\n"
            "  --overlay-dir DIR  the frames with each mask tinted, outlined and labelled, DIR/<stem>.png\n"
            "  --overlay-video F  the same frames as a video (H.264 when FFmpeg has it, else MPEG-4)\n"
            "  --fps F            frame rate of the overlay video (default: the source's, 24 for JPEGs)\n"
            "  --max-objects K    object slots planned (default: the number of objects)\n"
            "  --max-frames N     stop after N frames (Ctrl-C also stops, after the current frame)\n"
            "  --prefetch N       frames decoded ahead of the tracker (default 4)\n"
            "  --non-overlap      per pixel, only the object with the highest logit keeps it\n"
            "  --settings S       post-processing of the official scripts: vos_inference (default;\n"
            "                     tools/vos_inference.py) or notebook (build_sam2_video_predictor's\n"
            "                     defaults: holes of <= 8 low-res pixels filled, binarised prompt\n"
            "                     memories, single-mask fallback)\n"
            "  --fill-holes N     fill background components of <= N low-res pixels (either settings)\n"
            "  --precision, --platform, --imgsz   as for samrt segment\n"
            "  --sm-limit N       run in a green context of N SMs, an Orin-sized share (8 ~ Orin Nano/NX,\n"
            "                     16 ~ AGX Orin; rounded up to the driver's granularity; 0 = the whole GPU)\n"
            "  --dump-taps FILE   every object's per-frame taps for tests/parity/compare_taps.py: the\n"
            "                     first object's as frame.<t>.*, the others' as obj<id>.frame.<t>.*\n"
            "  --dump-memattn     with --dump-taps: also each tracked frame's memory attention output\n"
            "                     (frame.<t>.memattn.out, 2 MiB per frame and object in bf16)\n"
            "  --timing           print ms/frame (median, p95, p99) of samrt_engine_track_push: RGB8 frame\n"
            "                     in, masks on the host out (decoding excluded), and the arena peak\n"
            "  --runs N           track the video N times; with N > 1 the first pass is a warm-up and\n"
            "                     writes the outputs\n"
            "at least one of --out, --overlay-dir, --overlay-video, --dump-taps, --timing is needed\n"
            "exit: 0 ok, 2 bad usage or input, 3 runtime failure, 4 unavailable (e.g. video without FFmpeg)\n");
}

struct obj_arg {
    int id, at;
    struct samrt_object_prompt p;
    const char *mask_path;  /* a mask prompt instead of p */
    uint8_t *mask;          /* its pixels, loaded before the weights */
};

struct args {
    const char *weights, *frames, *video, *out, *overlay, *overlay_video, *taps;
    struct samrt_engine_params p;
    struct obj_arg obj[MAX_OBJ];
    int n_obj, start, max_frames, prefetch, non_overlap, fill_holes, timing, runs, dump_memattn;
    double fps;
    enum samrt_postproc postproc;
};

static int bad(const char *what, const char *arg) {
    fprintf(stderr, "samrt track: %s ('%s')\n", what, arg);
    return SAMRT_EXIT_USAGE;
}

/* The options that build an object's prompt (--obj, --at, --point, --box, --mask); 1 when c
 * is none of them, else 0 or an exit code. */
static int parse_object_opt(int c, struct args *a) {
    struct obj_arg *o = &a->obj[a->n_obj - 1];
    long v;
    struct samrt_point pt;
    float box[4];
    switch (c) {
    case 'M':
        if (o->mask_path) return bad("--mask: one per object", optarg);
        o->mask_path = optarg;
        return 0;
    case 'p':
        if (samrt_opt_point(optarg, &pt)) return bad("--point takes x,y or x,y,label (0 or 1)", optarg);
        if (o->p.n_clicks == SAMRT_MAX_CLICKS) return bad("too many clicks for one object", optarg);
        o->p.clicks[o->p.n_clicks++] = (struct samrt_click){pt.x, pt.y, pt.label};
        return 0;
    case 'b':
        if (samrt_opt_box(optarg, box) || o->p.has_box) return bad("--box takes x0,y0,x1,y1, once per object", optarg);
        o->p.has_box = 1;
        memcpy(o->p.box, box, sizeof o->p.box);
        return 0;
    case 'o':
        if (samrt_parse_int(optarg, 0, 1 << 30, &v)) return bad("--obj takes an id >= 0", optarg);
        if (o->p.n_clicks || o->p.has_box || o->mask_path) {  /* the first --obj renames the default object */
            if (a->n_obj == MAX_OBJ) return bad("too many objects", optarg);
            o = &a->obj[a->n_obj++];
            memset(o, 0, sizeof *o);
        }
        o->id = (int)v;
        return 0;
    case 'a':
        if (samrt_parse_int(optarg, 0, 1 << 30, &v)) return bad("--at takes a frame index", optarg);
        o->at = (int)v;
        return 0;
    default: return 1;
    }
}

/* The number options; 1 when c is none of them, else 0 or an exit code. */
static int parse_number_opt(int c, struct args *a) {
    long v;
    switch (c) {
    case 'R':
        if (samrt_parse_int(optarg, 1, 1000, &v)) return bad("--runs takes [1, 1000]", optarg);
        a->runs = (int)v;
        return 0;
    case 'H':
        if (samrt_parse_int(optarg, 1, 1 << 24, &v)) return bad("--fill-holes takes N >= 1", optarg);
        a->fill_holes = (int)v;
        return 0;
    case 's':
        if (samrt_opt_imgsz(optarg, &a->p.imgsz)) return bad("--imgsz takes [64, 4096]", optarg);
        return 0;
    case 'k':
        if (samrt_parse_int(optarg, 1, 256, &v)) return bad("--max-objects takes [1, 256]", optarg);
        a->p.max_objects = (int)v;
        return 0;
    case 'n':
        if (samrt_opt_max_frames(optarg, &a->max_frames)) return bad("--max-frames takes N >= 1", optarg);
        return 0;
    case 'B':
        if (samrt_opt_start(optarg, &a->start)) return bad("--start takes N >= 0", optarg);
        return 0;
    case 'Q':
        if (samrt_opt_prefetch(optarg, &a->prefetch)) return bad("--prefetch takes [1, 64]", optarg);
        return 0;
    case 'r':
        if (samrt_parse_double(optarg, &a->fps) || !(a->fps > 0 && a->fps <= 1000))
            return bad("--fps takes a rate in (0, 1000]", optarg);
        return 0;
    case 'P':
        if (samrt_dtype_parse(optarg, &a->p.precision) != SAMRT_OK) return bad("--precision: fp32, bf16, fp16", optarg);
        return 0;
    case 'S':
        if (samrt_cli_parse_postproc(optarg, &a->postproc)) return bad("--settings: vos_inference or notebook", optarg);
        return 0;
    default: return 1;
    }
}

/* What the options leave to check together: a source, an output, prompts, object slots. */
static int check_args(struct args *a) {
    if (!a->weights || !!a->frames == !!a->video) {
        fprintf(stderr, "samrt track: --weights and one of --frames, --video are required\n");
        return -1;
    }
    if (!a->frames) a->frames = a->video;
    if (!a->out && !a->overlay && !a->overlay_video && !a->taps && !a->timing) {
        fprintf(stderr, "samrt track: nothing to write: give --out, --overlay-dir, --overlay-video, --dump-taps "
                        "or --timing\n");
        return SAMRT_EXIT_USAGE;
    }
    for (int k = 0; k < a->n_obj; k++) {
        const int has_pts = a->obj[k].p.n_clicks || a->obj[k].p.has_box;
        if (has_pts == (a->obj[k].mask_path != NULL)) {
            fprintf(stderr, "samrt track: object %d needs --point/--box or --mask (one of them)\n", a->obj[k].id);
            return SAMRT_EXIT_USAGE;
        }
        for (int j = 0; j < k; j++)
            if (a->obj[j].id == a->obj[k].id) return bad("the same --obj id twice", "");
    }
    if (a->p.max_objects == 0) a->p.max_objects = a->n_obj;
    if (a->p.max_objects < a->n_obj) return bad("--max-objects is below the number of objects", "");
    return 0;
}

static int parse_args(int argc, char **argv, struct args *a) {
    static const struct option opts[] = {
        {"weights", required_argument, 0, 'w'},       {"frames", required_argument, 0, 'f'},
        {"video", required_argument, 0, 'V'},         {"start", required_argument, 0, 'B'},
        {"point", required_argument, 0, 'p'},         {"box", required_argument, 0, 'b'},
        {"obj", required_argument, 0, 'o'},           {"at", required_argument, 0, 'a'},
        {"mask", required_argument, 0, 'M'},          {"out", required_argument, 0, 'O'},
        {"overlay-dir", required_argument, 0, 'v'},   {"overlay-video", required_argument, 0, 'W'},
        {"fps", required_argument, 0, 'r'},           {"prefetch", required_argument, 0, 'Q'},
        {"precision", required_argument, 0, 'P'},     {"platform", required_argument, 0, 'F'},
        {"imgsz", required_argument, 0, 's'},         {"max-objects", required_argument, 0, 'k'},
        {"max-frames", required_argument, 0, 'n'},    {"non-overlap", no_argument, 0, 'N'},
        {"dump-taps", required_argument, 0, 't'},     {"timing", no_argument, 0, 'T'},
        {"runs", required_argument, 0, 'R'},          {"settings", required_argument, 0, 'S'},
        {"fill-holes", required_argument, 0, 'H'},    {"dump-memattn", no_argument, 0, 'D'},
        {"help", no_argument, 0, 'h'},                {"sm-limit", required_argument, 0, 'L'},
        {0, 0, 0, 0}};
    memset(a, 0, sizeof *a);
    a->p = samrt_engine_default_params();
    a->p.max_objects = 0;
    a->n_obj = 1;
    a->obj[0].id = 1;
    a->runs = 1;
    a->prefetch = 4;
    int c;
    long n_sm;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = parse_object_opt(c, a);
        if (rc == 1) rc = parse_number_opt(c, a);
        if (rc != 1) {
            if (rc) return rc;
            continue;
        }
        switch (c) {
        case 'w': a->weights = optarg; break;
        case 'f': a->frames = optarg; break;
        case 'V': a->video = optarg; break;
        case 'O': a->out = optarg; break;
        case 'v': a->overlay = optarg; break;
        case 'W': a->overlay_video = optarg; break;
        case 'F': a->p.platform = optarg; break;
        case 'L':
            if (samrt_parse_int(optarg, 0, 4096, &n_sm)) return bad("--sm-limit takes N >= 0", optarg);
            a->p.sm_limit = (int)n_sm;
            break;
        case 't': a->taps = optarg; break;
        case 'D': a->dump_memattn = 1; break;
        case 'N': a->non_overlap = 1; break;
        case 'T': a->timing = 1; break;
        case 'h': usage(stdout); return HELP_SHOWN;
        default: return -1;
        }
    }
    if (optind != argc) return -1;
    return check_args(a);
}

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

struct run {
    samrt_engine_t e;
    struct samrt_taps *ts;
    struct samrt_video_writer *vw;
    uint8_t *masks, *gray, *over;
    struct samrt_track_result res[MAX_OBJ];
    double *ms;          /* --timing: per-frame push times of the timed passes */
    int n_ms, cap_ms;
    double loop_ms;      /* wall time of the timed passes' tracking loops */
    double decode_ms, wait_ms;  /* sums over the timed frames: decode thread, tracker waiting */
};

static volatile sig_atomic_t g_stop;

static void on_sigint(int sig) {
    (void)sig;
    g_stop = 1;
}

/* Masks, overlay PNG and overlay video frame of one tracked frame (the first pass only). */
static enum samrt_status write_frame(const struct args *a, struct run *r, const struct samrt_frame *fr, int n) {
    const size_t npx = (size_t)fr->width * fr->height;
    char stem[256], path[4096];
    snprintf(stem, sizeof stem, "%s", fr->name);
    char *dot = strrchr(stem, '.');
    if (dot) *dot = 0;
    for (int i = 0; i < n && a->out; i++) {
        for (size_t p = 0; p < npx; p++) r->gray[p] = r->res[i].mask[p] ? 255 : 0;
        snprintf(path, sizeof path, "%s/%03d", a->out, r->res[i].obj_id);
        SAMRT_TRY(samrt_mkdirs(path));
        snprintf(path, sizeof path, "%s/%03d/%s.png", a->out, r->res[i].obj_id, stem);
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

/* Prompts the objects whose prompt frame is t, then tracks the frame. */
static enum samrt_status track_frame(const struct args *a, struct run *r, const struct samrt_frame *fr, int t,
                                     int timed, int *n) {
    enum samrt_status st = SAMRT_OK;
    for (int k = 0; k < a->n_obj && st == SAMRT_OK; k++)
        if (a->obj[k].at == t)
            st = a->obj[k].mask ? samrt_engine_track_prompt_mask(r->e, a->obj[k].id, a->obj[k].mask)
                                : samrt_engine_track_prompt(r->e, a->obj[k].id, &a->obj[k].p);
    const struct samrt_image img = {fr->rgb, fr->width, fr->height, 3 * fr->width};
    const uint64_t t0 = samrt_cli_now_ns();
    if (st == SAMRT_OK) st = samrt_engine_track_push(r->e, &img, 0, r->res, a->p.max_objects, n);
    if (timed && r->n_ms < r->cap_ms) {
        r->ms[r->n_ms++] = (double)(samrt_cli_now_ns() - t0) * 1e-6;
        r->decode_ms += fr->decode_ms;
        if (t > 0) r->wait_ms += fr->wait_ms;  /* the first frame waits for the stream to start */
    }
    return st;
}

static enum samrt_status track_all(const struct args *a, struct run *r, samrt_frame_stream_t fs, int w, int h,
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
        if (st == SAMRT_OK && pass == 0) st = write_frame(a, r, &fr, n);
        if (st == SAMRT_OK && pass == 0 && (t % 50 == 0 || t < 3))
            for (int i = 0; i < n; i++)
                printf("frame %d object %d: score %+.4f area %d\n", fr.index, r->res[i].obj_id, r->res[i].object_score,
                       r->res[i].area);
        samrt_frame_stream_release(fs, &fr);
        t++;
    }
    if (timed) r->loop_ms += (double)(samrt_cli_now_ns() - loop0) * 1e-6;
    if (st == SAMRT_OK && pass == 0)
        printf("tracked %d frames%s%s%s\n", t, g_stop ? " (stopped by Ctrl-C)" : "", a->out ? " -> " : "",
               a->out ? a->out : "");
    return st;
}

/* --timing: nearest-rank percentiles of the per-frame push times, the decoding, and the
 * arena. The loop time of the first pass includes writing the outputs, so fps there is a
 * lower bound; `samrt bench` times the tracker alone. */
static void print_timing(struct run *r, int n_objects) {
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
    printf("decode: %.3f ms/frame on the decode thread; the tracker waited %.3f ms/frame for frames%s\n",
           r->decode_ms / n, r->wait_ms / n, r->wait_ms > 0.05 * r->loop_ms ? " (decode-bound)" : "");
    printf("arena: total %.2f MiB (weights %.2f, state %.2f, workspace %.2f, staging %.2f, scratch %.2f)\n",
           m.arena_bytes / 1048576.0, m.weights_bytes / 1048576.0, m.state_bytes / 1048576.0,
           m.workspace_bytes / 1048576.0, m.staging_bytes / 1048576.0, m.scratch_bytes / 1048576.0);
}

/* Opens the source again for another pass, or for the first. */
static enum samrt_status open_stream(const struct args *a, samrt_frame_stream_t *fs) {
    samrt_frame_stream_close(*fs);
    *fs = NULL;
    const struct samrt_frame_source src = {a->frames, a->prefetch, a->start, a->max_frames};
    return samrt_frame_stream_open_source(&src, fs);
}

/* Prompts are checked and mask prompts loaded before the weights, so a bad one fails fast. */
static enum samrt_status check_prompts(struct args *a, int w, int h) {
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
static enum samrt_status setup(struct args *a, struct run *r, samrt_frame_stream_t fs) {
    struct samrt_frame_stream_info info;
    samrt_frame_stream_info(fs, &info);
    const int w = info.width, h = info.height;
    SAMRT_CHECK(a->runs == 1 || !info.is_device, SAMRT_E_INVALID_ARG, "samrt track: --runs needs a file or a folder, "
                "not a camera");
    if (a->out) SAMRT_TRY(samrt_mkdirs(a->out));
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
        r->cap_ms = (info.n_frames > 0 ? info.n_frames : 1 << 20) * a->runs;
        r->ms = malloc(sizeof *r->ms * (size_t)r->cap_ms);
        SAMRT_CHECK(r->ms, SAMRT_E_HOST_MEMORY, "samrt track: out of memory");
    }
    return SAMRT_OK;
}

static enum samrt_status write_taps(const struct args *a, struct run *r, int w, int h, int n_frames) {
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

int samrt_cmd_track(int argc, char **argv) {
    static struct args a;
    static struct run r;
    const int rc = parse_args(argc, argv, &a);
    if (rc == HELP_SHOWN) return SAMRT_EXIT_OK;
    if (rc) {
        if (rc < 0) usage(stderr);
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
    for (int pass = 0; pass < a.runs && st == SAMRT_OK && !g_stop; pass++) {  /* the whole source is the video */
        if (pass > 0) st = open_stream(&a, &fs);  /* the stream is forward-only: open it again */
        if (st == SAMRT_OK) st = track_all(&a, &r, fs, w, h, n_frames, pass, a.timing && (a.runs == 1 || pass > 0));
    }
    signal(SIGINT, old_handler);
    const enum samrt_status vst = samrt_video_writer_close(r.vw);  /* finishes the frames tracked so far */
    if (st == SAMRT_OK) st = vst;
    if (st == SAMRT_OK && a.overlay_video) printf("overlay video: %s\n", a.overlay_video);
    if (st == SAMRT_OK && a.timing) print_timing(&r, a.n_obj);
    if (st == SAMRT_OK && r.ts) st = write_taps(&a, &r, w, h, n_frames);
    if (st != SAMRT_OK) fprintf(stderr, "samrt track: %s\n", samrt_status_str(st));
    samrt_taps_free(r.ts);
    samrt_engine_free(r.e);
    samrt_frame_stream_close(fs);
    free(r.masks), free(r.gray), free(r.over), free(r.ms);
    for (int k = 0; k < a.n_obj; k++) free(a.obj[k].mask), a.obj[k].mask = NULL;
    return samrt_exit_code(st);
}
