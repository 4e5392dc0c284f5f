/* cmd_track.c - `samrt track`: SAM 2.1 video tracking over a folder of JPEG frames through
 * the public streaming API (samrt_engine_track_*). Frames are decoded ahead by the bounded
 * prefetching streamer of harness/sav.h (never the whole video in memory). Writes one PNG per
 * frame and object in the SA-V prediction layout (eval-spec 1.5): OUT/<obj %03d>/<stem>.png,
 * 0/255, plus optional overlays and a parity tap dump of every object (the first-added one
 * under frame.<t>.*, the others under obj<id>.frame.<t>.*; tests/parity/run_sam2_video_parity.sh).
 * Example:
 *   samrt track --weights sam2.1_hiera_tiny.pt --frames video/ --point 210,350 --out pred/video
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "image_io.h"
#include "profile.h"
#include "samrt_internal.h"
#include "sav.h"
#include "taps.h"

#define MAX_OBJ 64
#define HELP_SHOWN 100

static void usage(FILE *f) {
    fprintf(f,
            "usage: samrt track --weights CKPT --frames DIR --out DIR\n"
            "                   (--point x,y[,l] ... | --box x0,y0,x1,y1 | --mask PNG)\n"
            "                   [--obj N [--at F] (--point ... | --box ... | --mask PNG)] ...\n"
            "                   [--overlay-dir DIR] [--precision fp32|bf16|fp16] [--platform P]\n"
            "                   [--imgsz N] [--max-objects K] [--max-frames N] [--non-overlap]\n"
            "                   [--settings vos_inference|notebook] [--fill-holes N] [--dump-taps FILE]\n"
            "                   [--timing] [--runs N]\n\n"
            "Tracks objects through the JPEG frames of DIR (sorted by the integer stem) with SAM 2.1,\n"
            "streaming: each object is prompted on one frame (default 0) and tracked forward from it,\n"
            "as the official video predictor does from its prompt frame.\n\n"
            "  --weights CKPT     official checkpoint (.pt) or safetensors with the official keys\n"
            "  --frames DIR       a folder of JPEG frames of one size\n"
            "  --obj N            start object N (id >= 0); prompts before any --obj belong to object 1\n"
            "  --at F             the current object's prompt frame (default 0)\n"
            "  --point x,y[,l]    a click in frame pixels, label 1 (default) or 0; repeatable\n"
            "  --box x0,y0,x1,y1  a box in frame pixels (one per object)\n"
            "  --mask PNG         a mask prompt: a gray or palette PNG of the frame size, object = value > 0\n"
            "                     (instead of points or a box for that object)\n"
            "  --out DIR          writes DIR/<obj %%03d>/<frame stem>.png (0 / 255)\n"
            "  --overlay-dir DIR  the frames with the masks tinted, DIR/<stem>.png\n"
            "  --max-objects K    object slots planned (default: the number of objects)\n"
            "  --max-frames N     stop after N frames\n"
            "  --non-overlap      per pixel, only the object with the highest logit keeps it\n"
            "  --settings S       post-processing of the official scripts: vos_inference (default;\n"
            "                     tools/vos_inference.py) or notebook (build_sam2_video_predictor's\n"
            "                     defaults: holes of <= 8 low-res pixels filled, binarised prompt\n"
            "                     memories, single-mask fallback)\n"
            "  --fill-holes N     fill background components of <= N low-res pixels (either settings)\n"
            "  --precision, --platform, --imgsz   as for samrt segment\n"
            "  --dump-taps FILE   every object's per-frame taps for tests/parity/compare_taps.py: the\n"
            "                     first object's as frame.<t>.*, the others' as obj<id>.frame.<t>.*\n"
            "  --dump-memattn     with --dump-taps: also each tracked frame's memory attention output\n"
            "                     (frame.<t>.memattn.out, 2 MiB per frame and object in bf16)\n"
            "  --timing           print ms/frame (median, p95, p99) of samrt_engine_track_push: RGB8 frame\n"
            "                     in, masks on the host out (decoding excluded), and the arena peak\n"
            "  --runs N           track the folder N times; with N > 1 the first pass is a warm-up\n"
            "exit: 0 ok, 2 bad usage or input, 3 runtime failure, 4 unavailable\n");
}

struct obj_arg {
    int id, at;
    struct samrt_object_prompt p;
    const char *mask_path;  /* a mask prompt instead of p */
    uint8_t *mask;          /* its pixels, loaded before the weights */
};

struct args {
    const char *weights, *frames, *out, *overlay, *taps;
    struct samrt_engine_params p;
    struct obj_arg obj[MAX_OBJ];
    int n_obj, max_frames, non_overlap, fill_holes, timing, runs, dump_memattn;
    enum samrt_postproc postproc;
};

static int bad(const char *what, const char *arg) {
    fprintf(stderr, "samrt track: %s ('%s')\n", what, arg);
    return SAMRT_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, struct args *a) {
    static const struct option opts[] = {
        {"weights", required_argument, 0, 'w'},     {"frames", required_argument, 0, 'f'},
        {"point", required_argument, 0, 'p'},       {"box", required_argument, 0, 'b'},
        {"obj", required_argument, 0, 'o'},         {"at", required_argument, 0, 'a'},
        {"mask", required_argument, 0, 'M'},        {"out", required_argument, 0, 'O'},
        {"overlay-dir", required_argument, 0, 'v'}, {"precision", required_argument, 0, 'P'},
        {"platform", required_argument, 0, 'F'},    {"imgsz", required_argument, 0, 's'},
        {"max-objects", required_argument, 0, 'k'}, {"max-frames", required_argument, 0, 'n'},
        {"non-overlap", no_argument, 0, 'N'},       {"dump-taps", required_argument, 0, 't'},
        {"timing", no_argument, 0, 'T'},            {"runs", required_argument, 0, 'R'},
        {"settings", required_argument, 0, 'S'},    {"fill-holes", required_argument, 0, 'H'},
        {"dump-memattn", no_argument, 0, 'D'},      {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(a, 0, sizeof *a);
    a->p = samrt_engine_default_params();
    a->p.max_objects = 0;
    a->n_obj = 1;
    a->obj[0].id = 1;
    a->runs = 1;
    int c, lab;
    long v;
    float f[4];
    char tail;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        struct obj_arg *o = &a->obj[a->n_obj - 1];
        switch (c) {
        case 'w': a->weights = optarg; break;
        case 'f': a->frames = optarg; break;
        case 'O': a->out = optarg; break;
        case 'v': a->overlay = optarg; break;
        case 'F': a->p.platform = optarg; break;
        case 't': a->taps = optarg; break;
        case 'D': a->dump_memattn = 1; break;
        case 'N': a->non_overlap = 1; break;
        case 'T': a->timing = 1; break;
        case 'R':
            if (samrt_parse_int(optarg, 1, 1000, &v)) return bad("--runs takes [1, 1000]", optarg);
            a->runs = (int)v;
            break;
        case 'S':
            if (samrt_cli_parse_postproc(optarg, &a->postproc))
                return bad("--settings: vos_inference or notebook", optarg);
            break;
        case 'H':
            if (samrt_parse_int(optarg, 1, 1 << 24, &v)) return bad("--fill-holes takes N >= 1", optarg);
            a->fill_holes = (int)v;
            break;
        case 'M':
            if (o->mask_path) return bad("--mask: one per object", optarg);
            o->mask_path = optarg;
            break;
        case 'p': {
            lab = 1;
            const int k = sscanf(optarg, "%f,%f,%d%c", &f[0], &f[1], &lab, &tail);
            if ((k != 2 && k != 3) || (lab != 0 && lab != 1)) return bad("--point takes x,y or x,y,label (0 or 1)", optarg);
            if (o->p.n_clicks == SAMRT_MAX_CLICKS) return bad("too many clicks for one object", optarg);
            o->p.clicks[o->p.n_clicks++] = (struct samrt_click){f[0], f[1], lab};
            break;
        }
        case 'b':
            if (sscanf(optarg, "%f,%f,%f,%f%c", &f[0], &f[1], &f[2], &f[3], &tail) != 4 || o->p.has_box)
                return bad("--box takes x0,y0,x1,y1, once per object", optarg);
            o->p.has_box = 1;
            memcpy(o->p.box, f, sizeof o->p.box);
            break;
        case 'o':
            if (samrt_parse_int(optarg, 0, 1 << 30, &v)) return bad("--obj takes an id >= 0", optarg);
            if (o->p.n_clicks || o->p.has_box || o->mask_path) {  /* the first --obj renames the default object */
                if (a->n_obj == MAX_OBJ) return bad("too many objects", optarg);
                o = &a->obj[a->n_obj++];
                memset(o, 0, sizeof *o);
            }
            o->id = (int)v;
            break;
        case 'a':
            if (samrt_parse_int(optarg, 0, 1 << 30, &v)) return bad("--at takes a frame index", optarg);
            o->at = (int)v;
            break;
        case 'P':
            if (samrt_dtype_parse(optarg, &a->p.precision) != SAMRT_OK) return bad("--precision: fp32, bf16, fp16", optarg);
            break;
        case 's':
            if (samrt_parse_int(optarg, 64, 4096, &v)) return bad("--imgsz takes [64, 4096]", optarg);
            a->p.imgsz = (int)v;
            break;
        case 'k':
            if (samrt_parse_int(optarg, 1, 256, &v)) return bad("--max-objects takes [1, 256]", optarg);
            a->p.max_objects = (int)v;
            break;
        case 'n':
            if (samrt_parse_int(optarg, 1, 1 << 30, &v)) return bad("--max-frames takes N >= 1", optarg);
            a->max_frames = (int)v;
            break;
        case 'h': usage(stdout); return HELP_SHOWN;
        default: return -1;
        }
    }
    if (optind != argc || !a->weights || !a->frames || !a->out) return -1;
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

/* The frame with each object's pixels blended 50/50 with its DAVIS colour. */
static void tint(uint8_t *rgb, const uint8_t *mask, size_t n, const uint8_t *col) {
    for (size_t i = 0; i < n; i++)
        if (mask[i])
            for (int c = 0; c < 3; c++) rgb[3 * i + c] = (uint8_t)((rgb[3 * i + c] + col[c] + 1) / 2);
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
    uint8_t *masks, *gray, *over;
    struct samrt_track_result res[MAX_OBJ];
    uint8_t pal[256 * 3];
    double *ms;          /* --timing: per-frame push times of the timed passes */
    int n_ms, cap_ms;
    double loop_ms;      /* wall time of the timed passes' tracking loops */
};

static enum samrt_status write_frame(const struct args *a, struct run *r, const struct samrt_frame *fr, int n) {
    const size_t npx = (size_t)fr->width * fr->height;
    char stem[256], path[4096];
    snprintf(stem, sizeof stem, "%s", fr->name);
    char *dot = strrchr(stem, '.');
    if (dot) *dot = 0;
    if (a->overlay) memcpy(r->over, fr->rgb, 3 * npx);
    for (int i = 0; i < n; i++) {
        for (size_t p = 0; p < npx; p++) r->gray[p] = r->res[i].mask[p] ? 255 : 0;
        snprintf(path, sizeof path, "%s/%03d", a->out, r->res[i].obj_id);
        SAMRT_TRY(samrt_mkdirs(path));
        snprintf(path, sizeof path, "%s/%03d/%s.png", a->out, r->res[i].obj_id, stem);
        SAMRT_TRY(samrt_png_write_gray8(path, r->gray, fr->width, fr->height));
        if (a->overlay) tint(r->over, r->res[i].mask, npx, &r->pal[3 * (1 + i % 255)]);
    }
    if (!a->overlay) return SAMRT_OK;
    snprintf(path, sizeof path, "%s/%s.png", a->overlay, stem);
    return samrt_png_write_rgb8(path, r->over, fr->width, fr->height);
}

static enum samrt_status track_all(const struct args *a, struct run *r, samrt_frame_stream_t fs, int w, int h,
                                   int n_frames, int timed) {
    const size_t npx = (size_t)w * h;
    SAMRT_TRY(samrt_engine_track_begin(r->e, w, h));
    const struct samrt_internal_track_options opt = {a->postproc, a->non_overlap, n_frames, a->fill_holes};
    SAMRT_TRY(samrt_internal_track_set_options(r->e, &opt));
    if (r->ts) SAMRT_TRY(samrt_internal_track_set_tap(r->e, samrt_taps_hook, r->ts));
    if (r->ts && a->dump_memattn) SAMRT_TRY(samrt_internal_track_set_tap_memattn(r->e, 1));
    for (int i = 0; i < a->p.max_objects; i++) r->res[i].mask = r->masks + npx * (size_t)i;
    enum samrt_status st = SAMRT_OK;
    struct samrt_frame fr;
    int t = 0;
    const uint64_t loop0 = samrt_cli_now_ns();
    while (st == SAMRT_OK && (!a->max_frames || t < a->max_frames)) {
        st = samrt_frame_stream_next(fs, &fr);
        if (st != SAMRT_OK || !fr.rgb) break;
        for (int k = 0; k < a->n_obj && st == SAMRT_OK; k++)
            if (a->obj[k].at == t)
                st = a->obj[k].mask ? samrt_engine_track_prompt_mask(r->e, a->obj[k].id, a->obj[k].mask)
                                    : samrt_engine_track_prompt(r->e, a->obj[k].id, &a->obj[k].p);
        const struct samrt_image img = {fr.rgb, fr.width, fr.height, 3 * fr.width};
        int n = 0;
        const uint64_t t0 = samrt_cli_now_ns();
        if (st == SAMRT_OK) st = samrt_engine_track_push(r->e, &img, 0, r->res, a->p.max_objects, &n);
        if (timed && r->n_ms < r->cap_ms) r->ms[r->n_ms++] = (double)(samrt_cli_now_ns() - t0) * 1e-6;
        if (st == SAMRT_OK) st = write_frame(a, r, &fr, n);
        if (st == SAMRT_OK && (t % 50 == 0 || t < 3))
            for (int i = 0; i < n; i++)
                printf("frame %d object %d: score %+.4f area %d\n", t, r->res[i].obj_id, r->res[i].object_score,
                       r->res[i].area);
        samrt_frame_stream_release(fs, &fr);
        t++;
    }
    if (timed) r->loop_ms += (double)(samrt_cli_now_ns() - loop0) * 1e-6;
    if (st == SAMRT_OK) printf("tracked %d frames -> %s\n", t, a->out);
    return st;
}

/* --timing: nearest-rank percentiles of the per-frame push times, and the arena. The loop
 * time includes writing the PNGs, so fps here is a lower bound; `samrt bench` times the
 * tracker alone. */
static void print_timing(struct run *r, int n_objects) {
    struct samrt_stats s;  /* sorts r->ms in place (harness/profile.h) */
    if (r->n_ms == 0 || samrt_stats_compute(r->ms, (size_t)r->n_ms, &s) != SAMRT_OK) return;
    const int n = r->n_ms;
#define PCT(q) r->ms[(int)((q) * (n - 1) + 0.5)]
    struct samrt_memory_report m;
    samrt_engine_memory(r->e, &m);
    printf("timing: %d frames, %d object(s): ms/frame median %.3f p95 %.3f p99 %.3f mean %.3f min %.3f max %.3f "
           "(push: RGB8 in, masks on the host out)\n",
           n, n_objects, PCT(0.5), PCT(0.95), PCT(0.99), s.mean, s.min, s.max);
#undef PCT
    printf("arena: total %.2f MiB (weights %.2f, state %.2f, workspace %.2f, staging %.2f, scratch %.2f)\n",
           m.arena_bytes / 1048576.0, m.weights_bytes / 1048576.0, m.state_bytes / 1048576.0,
           m.workspace_bytes / 1048576.0, m.staging_bytes / 1048576.0, m.scratch_bytes / 1048576.0);
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
    samrt_frame_stream_t fs = NULL;
    enum samrt_status st = samrt_frame_stream_open(a.frames, 2, &fs);
    int w = 0, h = 0;
    if (st == SAMRT_OK) samrt_frame_stream_size(fs, &w, &h);
    for (int k = 0; k < a.n_obj && st == SAMRT_OK; k++) {  /* fail fast, before the weights load */
        if (a.obj[k].mask_path) {
            st = load_mask(&a.obj[k], w, h);
            continue;
        }
        st = samrt_internal_check_prompt(&a.obj[k].p, w, h, a.p.imgsz);
        if (st != SAMRT_OK) fprintf(stderr, "samrt track: object %d: bad prompt (see above)\n", a.obj[k].id);
    }
    if (st == SAMRT_OK) st = samrt_mkdirs(a.out);
    if (st == SAMRT_OK && a.overlay) st = samrt_mkdirs(a.overlay);
    if (st == SAMRT_OK) st = samrt_engine_init(a.weights, &a.p, &r.e);
    const size_t npx = (size_t)w * h;
    if (st == SAMRT_OK) {
        r.masks = malloc(npx * (size_t)a.p.max_objects);
        r.gray = malloc(npx);
        r.over = malloc(3 * npx);
        if (!r.masks || !r.gray || !r.over) st = SAMRT_E_HOST_MEMORY;
    }
    samrt_palette_davis(r.pal);
    if (st == SAMRT_OK && a.taps) {
        struct samrt_memory_report mem;
        samrt_engine_memory(r.e, &mem);
        st = samrt_taps_init(mem.mem_kind, NULL, &r.ts);
    }
    const int n_frames = st == SAMRT_OK ? samrt_frame_stream_count(fs) : 0;
    if (st == SAMRT_OK && a.timing) {
        r.cap_ms = n_frames * a.runs;
        r.ms = malloc(sizeof *r.ms * (size_t)(r.cap_ms > 0 ? r.cap_ms : 1));
        if (!r.ms) st = SAMRT_E_HOST_MEMORY;
    }
    for (int pass = 0; pass < a.runs && st == SAMRT_OK; pass++) {  /* the whole folder is the video */
        if (pass > 0) {  /* the stream is forward-only: open it again */
            samrt_frame_stream_close(fs);
            fs = NULL;
            st = samrt_frame_stream_open(a.frames, 2, &fs);
            if (st != SAMRT_OK) break;
        }
        st = track_all(&a, &r, fs, w, h, n_frames, a.timing && (a.runs == 1 || pass > 0));
    }
    if (st == SAMRT_OK && a.timing) print_timing(&r, a.n_obj);
    if (st == SAMRT_OK && r.ts) {
        enum samrt_model_id id = SAMRT_MODEL_UNKNOWN;
        samrt_engine_model(r.e, &id, NULL);
        char meta[512];
        snprintf(meta, sizeof meta,
                 "\"producer\":\"samrt track\",\"model\":\"%s\",\"settings\":\"%s\",\"video_hw\":"
                 "\"%dx%d\",\"image_size\":\"%d\",\"num_frames\":\"%d\",\"format\":\"samrt-taps/1\"",
                 samrt_model_name(id), a.postproc == SAMRT_POSTPROC_NOTEBOOK ? "notebook" : "vos_inference", h, w,
                 a.p.imgsz, n_frames);
        st = samrt_taps_write(r.ts, a.taps, meta);
        if (st == SAMRT_OK) printf("taps: %d tensors -> %s\n", samrt_taps_count(r.ts), a.taps);
    }
    if (st != SAMRT_OK) fprintf(stderr, "samrt track: %s\n", samrt_status_str(st));
    samrt_taps_free(r.ts);
    samrt_engine_free(r.e);
    samrt_frame_stream_close(fs);
    free(r.masks), free(r.gray), free(r.over), free(r.ms);
    for (int k = 0; k < a.n_obj; k++) free(a.obj[k].mask);
    return samrt_exit_code(st);
}
