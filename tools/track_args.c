/* track_args.c - the options of `samrt track` (track_cli.h): the usage, each object's
 * prompts (--obj, --at, --point, --box, --mask), the numbers and what they must say together,
 * all checked before any frame is read. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "track_cli.h"
#include "track_opts.h"

void samrt_track_usage(FILE *f) {
    fprintf(f,
            "usage: samrt track --weights CKPT (--frames DIR | --video FILE|/dev/videoN)\n"
            "                   (--point x,y[,l] ... | --box x0,y0,x1,y1 | --mask PNG)\n"
            "                   [--obj N [--at F] (--point ... | --box ... | --mask PNG)] ...\n"
            "                   [--out DIR] [--overlay-dir DIR] [--overlay-video FILE] [--fps F]\n"
            "                   [--start N] [--max-frames N] [--prefetch N]\n"
            "                   [--precision fp32|bf16|fp16] [--platform P] [--imgsz N] [--max-objects K]\n"
            "                   [--memory sam2|samurai|dam4sam] [--non-overlap] [--settings vos_inference|notebook]\n"
            "                   [--fill-holes N]\n"
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
            "  --decode-threads N threads decoding a JPEG folder (default: one per core but one, <= 4)\n"
            "  --gpu-decode       decode on the GPU into device frames: nvJPEG for a JPEG folder, NVDEC\n"
            "                     for a video file; the CPU decodes where the build or machine cannot\n"
            "                     (samrt check says which); not with --overlay-dir / --overlay-video\n"
            "  --non-overlap      per pixel, only the object with the highest logit keeps it\n"
            "  --settings S       post-processing of the official scripts: vos_inference (default;\n"
            "                     tools/vos_inference.py) or notebook (build_sam2_video_predictor's\n"
            "                     defaults: holes of <= 8 low-res pixels filled, binarised prompt\n"
            "                     memories, single-mask fallback)\n"
            "  --fill-holes N     fill background components of <= N low-res pixels (either settings)\n"
            "  --memory P         memory-selection policy per object: sam2 (default: the last six frames,\n"
            "                     best predicted IoU), samurai (a Kalman filter picks the mask, only\n"
            "                     confident frames enter the memory) or dam4sam (distractor-resolving\n"
            "                     and recent-appearance memories; docs/tracking.md)\n"
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

static int bad(const char *what, const char *arg) {
    fprintf(stderr, "samrt track: %s ('%s')\n", what, arg);
    return SAMRT_EXIT_USAGE;
}

/* The options that build an object's prompt (--obj, --at, --point, --box, --mask); 1 when c
 * is none of them, else 0 or an exit code. */
static int parse_object_opt(int c, struct track_args *a) {
    struct obj_arg *o = &a->obj[a->n_obj - 1];
    long v;
    struct samrt_point pt;
    float box[4];
    switch (c) {
    case 'M':
        if (o->mask_path) return bad("--mask: one per object", optarg);
        o->mask_path = optarg;
        return 0;
    case SAMRT_OPT_POINT:
        if (samrt_opt_point(optarg, &pt)) return bad("--point takes x,y or x,y,label (0 or 1)", optarg);
        if (o->p.n_clicks == SAMRT_MAX_CLICKS) return bad("too many clicks for one object", optarg);
        o->p.clicks[o->p.n_clicks++] = (struct samrt_click){pt.x, pt.y, pt.label};
        return 0;
    case SAMRT_OPT_BOX:
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

/* The number and choice options of track alone; 1 when c is none of them, else 0 or an exit
 * code. */
static int parse_number_opt(int c, struct track_args *a) {
    long v;
    switch (c) {
    case 'H':
        if (samrt_parse_int(optarg, 1, 1 << 24, &v)) return bad("--fill-holes takes N >= 1", optarg);
        a->fill_holes = (int)v;
        return 0;
    case 'k':
        if (samrt_parse_int(optarg, 1, 256, &v)) return bad("--max-objects takes [1, 256]", optarg);
        a->p.max_objects = (int)v;
        return 0;
    case 'r':
        if (samrt_parse_double(optarg, &a->fps) || !(a->fps > 0 && a->fps <= 1000))
            return bad("--fps takes a rate in (0, 1000]", optarg);
        return 0;
    case 'S':
        if (samrt_cli_parse_postproc(optarg, &a->postproc)) return bad("--settings: vos_inference or notebook", optarg);
        return 0;
    default: return 1;
    }
}

/* A value of an option shared with samrt bench (harness/track_opts.h) that was refused, in
 * track's words. */
static int refused(const struct samrt_opt_refusal *why, const char *arg) {
    char what[96];
    switch (why->rule) {
    case SAMRT_OPT_RULE_PRECISION: return bad("--precision: fp32, bf16, fp16", arg);
    case SAMRT_OPT_RULE_MEMORY: return bad("--memory: sam2, samurai, dam4sam", arg);
    case SAMRT_OPT_RULE_PLATFORM:
        fprintf(stderr, "samrt track: unknown platform profile '%s' (samrt check lists them)\n", arg);
        return SAMRT_EXIT_USAGE;
    case SAMRT_OPT_RULE_INT: break;
    }
    if (why->hi == SAMRT_OPT_FRAMES_MAX) snprintf(what, sizeof what, "--%s takes N >= %ld", why->name, why->lo);
    else snprintf(what, sizeof what, "--%s takes [%ld, %ld]", why->name, why->lo, why->hi);
    return bad(what, arg);
}

/* What the options leave to check together: a source, an output, prompts, object slots. */
static int check_args(struct track_args *a) {
    if (!a->weights || !!a->frames == !!a->s.video) {
        fprintf(stderr, "samrt track: --weights and one of --frames, --video are required\n");
        return -1;
    }
    if (!a->frames) a->frames = a->s.video;
    if (!a->s.out && !a->overlay && !a->overlay_video && !a->taps && !a->timing) {
        fprintf(stderr, "samrt track: nothing to write: give --out, --overlay-dir, --overlay-video, --dump-taps "
                        "or --timing\n");
        return SAMRT_EXIT_USAGE;
    }
    if (a->s.gpu_decode && (a->overlay || a->overlay_video)) {
        fprintf(stderr, "samrt track: --gpu-decode keeps frames on the GPU; overlays are drawn on host frames: "
                        "drop --overlay-dir / --overlay-video or --gpu-decode\n");
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

int samrt_track_parse_args(int argc, char **argv, struct track_args *a) {
    static const struct option own[] = {
        {"weights", required_argument, 0, 'w'},       {"frames", required_argument, 0, 'f'},
        {"obj", required_argument, 0, 'o'},           {"at", required_argument, 0, 'a'},
        {"mask", required_argument, 0, 'M'},          {"overlay-dir", required_argument, 0, 'v'},
        {"overlay-video", required_argument, 0, 'W'}, {"fps", required_argument, 0, 'r'},
        {"max-objects", required_argument, 0, 'k'},   {"non-overlap", no_argument, 0, 'N'},
        {"dump-taps", required_argument, 0, 't'},     {"timing", no_argument, 0, 'T'},
        {"settings", required_argument, 0, 'S'},      {"fill-holes", required_argument, 0, 'H'},
        {"dump-memattn", no_argument, 0, 'D'},        {0, 0, 0, 0}};
    struct option opts[SAMRT_OPT_N_SHARED + sizeof own / sizeof own[0]];
    if (samrt_opt_table(own, opts, sizeof opts / sizeof opts[0])) return SAMRT_EXIT_RUNTIME;
    memset(a, 0, sizeof *a);
    a->p = samrt_engine_default_params();
    a->p.max_objects = 0;
    a->n_obj = 1;
    a->obj[0].id = 1;
    struct samrt_opt_refusal why;
    samrt_track_opts_init(&a->s);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = samrt_track_opts_parse(c, optarg, &a->s, &why);
        if (rc < 0) return refused(&why, optarg);
        if (rc == 1) rc = parse_object_opt(c, a);
        if (rc == 1) rc = parse_number_opt(c, a);
        if (rc != 1) {
            if (rc) return rc;
            continue;
        }
        switch (c) {
        case 'w': a->weights = optarg; break;
        case 'f': a->frames = optarg; break;
        case 'v': a->overlay = optarg; break;
        case 'W': a->overlay_video = optarg; break;
        case 't': a->taps = optarg; break;
        case 'D': a->dump_memattn = 1; break;
        case 'N': a->non_overlap = 1; break;
        case 'T': a->timing = 1; break;
        case 'h': samrt_track_usage(stdout); return HELP_SHOWN;
        default: return -1;
        }
    }
    if (optind != argc) return -1;
    a->p.imgsz = a->s.imgsz;
    a->p.precision = a->s.precision;
    a->p.platform = a->s.platform;
    a->p.sm_limit = a->s.sm_limit;
    a->p.memory = a->s.memory;
    return check_args(a);
}
