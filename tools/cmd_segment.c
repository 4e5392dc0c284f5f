/* cmd_segment.c - `samrt segment`: SAM 2.1 / EdgeTAM on one image (or one frame of a video
 * file or camera, --video --start N) from clicks and boxes, through the public
 * samrt_engine_segment (samrt_engine_segment_masked when an object has a --mask prompt). Writes the mask as a PNG (gray 0/255 for one object, the DAVIS
 * palette with object k as index k for several), optionally an overlay (the image with each
 * mask tinted, outlined and labelled, harness/overlay.h) and a parity tap dump (harness/taps.h, the names of
 * tests/parity/dump_taps.py). Prompts are validated against the image before the weights
 * load, so a bad click fails in milliseconds. --bench N times N calls after a warm-up: the
 * CUDA graph replay (the default path) and the eager path with CUDA events between the stages
 * (a graph cannot be timed inside), median and p95, plus the arena by region and the measured
 * device-memory drop (cudaMemGetInfo before init vs after the runs). Example:
 *   samrt segment --weights sam2.1_hiera_tiny.pt --image frame.jpg --point 210,350 --out m.png
 *   samrt segment ... --precision bf16 --bench 200
 *   samrt segment ... --point 210,350 --mask prev.png --out m.png   # a click refining a mask
 * A --mask PNG (gray or palette, image size, object = value > 0) becomes the mask input
 * logits with samrt_engine_mask_prompt_logits, as the tracker's mask prompts do.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "frame_stream.h"
#include "image_io.h"
#include "mask_read.h"
#include "overlay.h"
#include "samrt_internal.h"
#include "taps.h"
#include "thumbs.h"

#define MAX_OBJ 64
#define HELP_SHOWN 100  /* parse_args: --help printed, exit 0 */

static void usage(FILE *f) {
    fprintf(f,
            "usage: samrt segment --weights CKPT (--image IMG | --video FILE [--start N])\n"
            "                     (--point x,y[,label] ... | --box x0,y0,x1,y1) [--mask PNG]\n"
            "                     [--object ...] --out MASK.png [--overlay OVERLAY.png]\n"
            "                     [--precision fp32|bf16|fp16] [--platform P] [--imgsz N]\n"
            "                     [--multimask-settings vos_inference|notebook] [--dump-taps FILE]\n"
            "                     [--bench N]\n\n"
            "Segments objects on one image (JPEG or 8-bit PNG) with SAM 2.1 or EdgeTAM. This matches\n"
            "the official VIDEO predictor on its prompt frame (init_state + add_new_points_or_box): the image is\n"
            "stretched to the model size with Pillow's bicubic filter, the frame features get\n"
            "no_mem_embed, and the object-score gate empties the mask of an absent object. It does NOT\n"
            "match SAM2ImagePredictor, which resizes with torchvision bilinear (aspect kept, padded)\n"
            "and has no object-score gate.\n\n"
            "  --weights CKPT     official checkpoint (.pt) or safetensors with the official keys\n"
            "  --image IMG        JPEG or PNG (gray, gray+alpha, RGB, RGBA; 8-bit)\n"
            "  --video FILE       a frame of a video file (mp4, mkv, webm, ...) or camera (/dev/videoN)\n"
            "  --start N          with --video: the frame to segment (default 0, the first)\n"
            "  --point x,y[,l]    a click in image pixels, label 1 (object, default) or 0 (background);\n"
            "                     repeat for more clicks (at most %d per object)\n"
            "  --box x0,y0,x1,y1  a box in image pixels (at most one per object)\n"
            "  --mask PNG         a mask prompt with the clicks / box (at most one per object): a gray or\n"
            "                     palette PNG of the image size, object = value > 0. It becomes\n"
            "                     SAM2ImagePredictor's mask_input: resized (bilinear, antialiased) to\n"
            "                     imgsz, >= 0.5, logits +10 / -10, downsampled (same filter) to\n"
            "                     imgsz/4 (256x256) -- the low-res logits the tracker keeps for a mask\n"
            "                     prompt (samrt track --mask). A mask alone is not supported\n"
            "  --object           start the next object: the prompts after it belong to it\n"
            "  --out MASK.png     one object: 8-bit gray, 255 = object; several: palette PNG, index k\n"
            "                     = object k (the highest logit wins where masks overlap)\n"
            "  --overlay FILE     the image with the masks tinted, outlined and labelled (PNG)\n"
            "  --precision P      fp32, bf16 or fp16 (default: the platform profile's)\n"
            "  --platform P       platform profile (default: detected); 'cpu' runs the C reference\n"
            "                     (fp32 only, practical with a small --imgsz)\n"
            "  --imgsz N          model input side (default 1024)\n"
            "  --multimask-settings S  vos_inference (default; tools/vos_inference.py) or notebook\n"
            "                     (build_sam2_video_predictor's default: an unstable single mask is\n"
            "                     replaced by the best of the three candidates)\n"
            "  --dump-taps FILE   write the intermediate tensors for tests/parity/compare_taps.py\n"
            "  --bench N          time N calls after a warm-up (graph replay and per-stage eager),\n"
            "                     print median / p95 and the memory use\n"
            "exit: 0 ok, 2 bad usage, image, prompt or checkpoint, 3 runtime failure, 4 unavailable\n"
            "      (e.g. --video in a build without FFmpeg)\n",
            SAMRT_MAX_CLICKS);
}

/* "a,b[,c...]" -> up to n floats; returns how many were read, -1 on junk. */
static int parse_floats(const char *s, float *v, int n) {
    int k = 0;
    while (*s && k < n) {
        char *end = NULL;
        double d = strtod(s, &end);
        if (end == s) return -1;
        v[k++] = (float)d;
        if (*end == ',') s = end + 1;
        else if (*end == 0) s = end;
        else return -1;
    }
    return *s ? -1 : k;
}

/* Frame `start` of a video file or camera as RGB8 (the frame streamer, one frame deep). */
static enum samrt_status load_video_frame(const char *path, int start, uint8_t **rgb, int *w, int *h) {
    samrt_frame_stream_t fs = NULL;
    const struct samrt_frame_source src = {path, 1, start, 1};
    SAMRT_TRY(samrt_frame_stream_open_source(&src, &fs));
    struct samrt_frame f;
    enum samrt_status st = samrt_frame_stream_next(fs, &f);
    if (st == SAMRT_OK && !f.rgb) {
        SAMRT_LOG_ERROR("%s: no frame %d", path, start);
        st = SAMRT_E_INVALID_ARG;
    }
    if (st == SAMRT_OK) {
        *rgb = malloc((size_t)f.width * (size_t)f.height * 3);
        if (!*rgb) st = SAMRT_E_HOST_MEMORY;
    }
    if (st == SAMRT_OK) {
        memcpy(*rgb, f.rgb, (size_t)f.width * (size_t)f.height * 3);
        *w = f.width, *h = f.height;
    }
    samrt_frame_stream_release(fs, &f);
    samrt_frame_stream_close(fs);
    return st;
}

/* One object per entry of labels: the winner where masks overlap (highest logit among > 0). */
static void label_map(const struct samrt_mask_result *r, int n, int w, int h, uint8_t *out) {
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        int best = -1;
        for (int k = 0; k < n; k++)
            if (r[k].mask[i] && (best < 0 || r[k].logits[i] > r[best].logits[i])) best = k;
        out[i] = (uint8_t)(n == 1 ? (best >= 0 ? 255 : 0) : best + 1);
    }
}

struct args {
    const char *weights, *image, *video, *out, *overlay, *platform, *taps;
    struct samrt_engine_params p;
    enum samrt_postproc pp;
    struct samrt_object_prompt obj[MAX_OBJ];
    const char *mask_path[MAX_OBJ];  /* --mask of each object, NULL = none */
    int n_obj;
    int start;  /* --video: the frame */
    int bench;  /* --bench N: calls per timed series, 0 = off */
};

/* Parses argv into a; returns -1 to print usage, an exit code otherwise (0 = run). */
static int parse_args(int argc, char **argv, struct args *a) {
    static const struct option opts[] = {
        {"weights", required_argument, 0, 'w'},  {"image", required_argument, 0, 'i'},
        {"point", required_argument, 0, 'p'},    {"box", required_argument, 0, 'b'},
        {"object", no_argument, 0, 'o'},         {"out", required_argument, 0, 'O'},
        {"overlay", required_argument, 0, 'v'},  {"precision", required_argument, 0, 'P'},
        {"platform", required_argument, 0, 'F'}, {"imgsz", required_argument, 0, 's'},
        {"multimask-settings", required_argument, 0, 'm'}, {"dump-taps", required_argument, 0, 't'},
        {"bench", required_argument, 0, 'B'},    {"video", required_argument, 0, 'V'},
        {"start", required_argument, 0, 'S'},    {"mask", required_argument, 0, 'M'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(a, 0, sizeof *a);
    a->p = samrt_engine_default_params();
    a->n_obj = 1;
    int c;
    long v;
    float f[4];
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        struct samrt_object_prompt *o = &a->obj[a->n_obj - 1];
        switch (c) {
        case 'w': a->weights = optarg; break;
        case 'i': a->image = optarg; break;
        case 'V': a->video = optarg; break;
        case 'S':
            if (samrt_parse_int(optarg, 0, 1 << 30, &v)) {
                fprintf(stderr, "samrt segment: --start takes a frame index >= 0 ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            a->start = (int)v;
            break;
        case 'O': a->out = optarg; break;
        case 'v': a->overlay = optarg; break;
        case 'F': a->p.platform = optarg; break;
        case 't': a->taps = optarg; break;
        case 'p': {
            const int k = parse_floats(optarg, f, 3);
            if ((k != 2 && k != 3) || (k == 3 && f[2] != 0.0f && f[2] != 1.0f)) {
                fprintf(stderr, "samrt segment: --point takes x,y or x,y,label with label 0 or 1 ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            if (o->n_clicks == SAMRT_MAX_CLICKS) {
                fprintf(stderr, "samrt segment: at most %d clicks per object\n", SAMRT_MAX_CLICKS);
                return SAMRT_EXIT_USAGE;
            }
            o->clicks[o->n_clicks++] = (struct samrt_click){f[0], f[1], k == 3 ? (int)f[2] : 1};
            break;
        }
        case 'b':
            if (parse_floats(optarg, f, 4) != 4 || o->has_box) {
                fprintf(stderr, "samrt segment: --box takes x0,y0,x1,y1, once per object ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            o->has_box = 1;
            memcpy(o->box, f, sizeof o->box);
            break;
        case 'M':
            if (a->mask_path[a->n_obj - 1]) {
                fprintf(stderr, "samrt segment: --mask takes one PNG per object ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            a->mask_path[a->n_obj - 1] = optarg;
            break;
        case 'o':
            if (a->n_obj == MAX_OBJ) {
                fprintf(stderr, "samrt segment: at most %d objects\n", MAX_OBJ);
                return SAMRT_EXIT_USAGE;
            }
            a->n_obj++;
            break;
        case 'P':
            if (samrt_dtype_parse(optarg, &a->p.precision) != SAMRT_OK) {
                fprintf(stderr, "samrt segment: --precision takes fp32, bf16 or fp16 ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            break;
        case 's':
            if (samrt_parse_int(optarg, 64, 4096, &v)) {
                fprintf(stderr, "samrt segment: --imgsz takes a multiple of 32 in [64, 4096] ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            a->p.imgsz = (int)v;
            break;
        case 'm':
            if (samrt_cli_parse_postproc(optarg, &a->pp)) {
                fprintf(stderr, "samrt segment: --multimask-settings takes vos_inference or notebook\n");
                return SAMRT_EXIT_USAGE;
            }
            break;
        case 'B':
            if (samrt_parse_int(optarg, 1, 100000, &v)) {
                fprintf(stderr, "samrt segment: --bench takes a call count in [1, 100000] ('%s')\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            a->bench = (int)v;
            break;
        case 'h': usage(stdout); return HELP_SHOWN;
        default: return -1;
        }
    }
    if (optind != argc || !a->weights || !a->image == !a->video || !a->out) return -1;
    for (int k = 0; k < a->n_obj; k++)
        if (!a->obj[k].n_clicks && !a->obj[k].has_box) {
            if (a->mask_path[k])
                fprintf(stderr, "samrt segment: object %d has a --mask but no --point or --box (a mask alone is not "
                                "supported)\n", k + 1);
            else
                fprintf(stderr, "samrt segment: object %d has no --point or --box\n", k + 1);
            return SAMRT_EXIT_USAGE;
        }
    if (a->bench && a->taps) {
        fprintf(stderr, "samrt segment: --bench and --dump-taps do not combine (taps run eagerly, untimed)\n");
        return SAMRT_EXIT_USAGE;
    }
    a->p.max_objects = a->n_obj;
    return 0;
}

/* "prompt" metadata as dump_taps.py writes it (object 1, video pixels). */
static void prompt_json(const struct samrt_object_prompt *o, char *buf, size_t len) {
    size_t w = (size_t)snprintf(buf, len, "{\\\"type\\\": \\\"%s\\\"",
                                o->n_clicks && o->has_box ? "click+box" : o->has_box ? "box" : "click");
    if (o->n_clicks) {
        w += (size_t)snprintf(buf + w, len - w, ", \\\"points\\\": [");
        for (int i = 0; i < o->n_clicks && w < len; i++)
            w += (size_t)snprintf(buf + w, len - w, "%s[%.1f, %.1f]", i ? ", " : "", o->clicks[i].x, o->clicks[i].y);
        w += (size_t)snprintf(buf + w, len - w, "], \\\"labels\\\": [");
        for (int i = 0; i < o->n_clicks && w < len; i++)
            w += (size_t)snprintf(buf + w, len - w, "%s%d", i ? ", " : "", o->clicks[i].label);
        w += (size_t)snprintf(buf + w, len - w, "]");
    }
    if (o->has_box && w < len)
        w += (size_t)snprintf(buf + w, len - w, ", \\\"box\\\": [%.1f, %.1f, %.1f, %.1f]", o->box[0], o->box[1],
                              o->box[2], o->box[3]);
    if (w < len) snprintf(buf + w, len - w, "}");
}

static enum samrt_status write_taps(samrt_engine_t e, struct samrt_taps *ts, const struct args *a, int w, int h) {
    enum samrt_model_id id = SAMRT_MODEL_UNKNOWN;
    struct samrt_memory_report mem;
    samrt_engine_model(e, &id, NULL);
    samrt_engine_memory(e, &mem);
    char prompt[1024], meta[1600];
    prompt_json(&a->obj[0], prompt, sizeof prompt);
    snprintf(meta, sizeof meta,
             "\"producer\":\"samrt segment\",\"model\":\"%s\",\"settings\":\"%s\",\"prompt\":\"%s\","
             "\"video_hw\":\"%dx%d\",\"image_size\":\"%d\",\"num_frames\":\"1\",\"frames_tracked\":\"0\","
             "\"layout\":\"NCHW except tap.trunk.patch_embed/embed/block.* (NHWC)\",\"format\":\"samrt-taps/1\"",
             samrt_model_name(id), a->pp == SAMRT_POSTPROC_NOTEBOOK ? "notebook" : "vos_inference", prompt, h, w,
             a->p.imgsz);
    return samrt_taps_write(ts, a->taps, meta);
}

/* ---- mask prompts ------------------------------------------------------------------------------ */

/* Object k's --mask PNG (binary, 0/1) into bin[k], which must have the image's size. */
static enum samrt_status load_masks(const struct args *a, int w, int h, uint8_t **bin) {
    struct samrt_mask_reader rd;
    memset(&rd, 0, sizeof rd);
    enum samrt_status st = SAMRT_OK;
    for (int k = 0; k < a->n_obj && st == SAMRT_OK; k++) {
        if (!a->mask_path[k]) continue;
        size_t cap = 0;
        int mw = 0, mh = 0;
        st = samrt_mask_load(&rd, a->mask_path[k], &bin[k], &cap, &mw, &mh, NULL);
        if (st == SAMRT_OK && (mw != w || mh != h)) {
            fprintf(stderr, "samrt segment: --mask %s is %dx%d, the image is %dx%d\n", a->mask_path[k], mw, mh, w, h);
            st = SAMRT_E_INVALID_ARG;
        }
    }
    samrt_mask_reader_free(&rd);
    return st;
}

/* The masks as the engine's mask-input logits: lg[k] (side x side) for a masked object, NULL else. */
static enum samrt_status mask_logits(samrt_engine_t e, const struct args *a, uint8_t *const *bin, int w, int h,
                                     float **lg) {
    int side = 0;
    for (int k = 0; k < a->n_obj; k++) {
        if (!bin[k]) continue;
        if (!side) SAMRT_TRY(samrt_engine_mask_input_side(e, &side));
        lg[k] = malloc(sizeof(float) * (size_t)side * (size_t)side);
        if (!lg[k]) return SAMRT_E_HOST_MEMORY;
        SAMRT_TRY(samrt_engine_mask_prompt_logits(e, bin[k], w, h, lg[k]));
        long set = 0;
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++) set += bin[k][i] != 0;
        printf("object %d: mask prompt %s, %ld px set -> %dx%d mask-input logits\n", k + 1, a->mask_path[k], set, side,
               side);
    }
    return SAMRT_OK;
}

/* One segmentation call, with the mask inputs when an object has one. */
static enum samrt_status segment(samrt_engine_t e, const struct args *a, const struct samrt_image *img,
                                 float *const *lg, struct samrt_mask_result *res) {
    for (int k = 0; k < a->n_obj; k++)
        if (lg[k]) return samrt_engine_segment_masked(e, img, a->obj, (const float *const *)lg, a->n_obj, a->pp, res);
    return samrt_engine_segment(e, img, a->obj, a->n_obj, a->pp, res);
}

/* ---- --bench ----------------------------------------------------------------------------------- */

static int cmp_float(const void *x, const void *y) {
    const float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* Median and p95 (nearest rank) of v[0..n), sorted in place. */
static void med_p95(float *v, int n, float *med, float *p95) {
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    *med = n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
    int k = (int)((95LL * n + 99) / 100) - 1;
    *p95 = v[k < 0 ? 0 : k];
}

static uint64_t device_free_bytes(int device) {
    struct samrt_device_info info;
    return samrt_device_query(device, &info) == SAMRT_OK ? info.free_bytes : 0;
}

enum { B_PRE, B_ENC, B_HEADS, B_POST, B_EAGER, B_GRAPH, B_N };

/* Times a.bench calls per series (masks only: the optional logits would add their own copy). */
static enum samrt_status run_bench(samrt_engine_t e, const struct args *a, const struct samrt_image *img,
                                   float *const *lg, const struct samrt_mask_result *res0, uint64_t free_before) {
    const int n = a->bench;
    struct samrt_mask_result res[MAX_OBJ];
    for (int k = 0; k < a->n_obj; k++) res[k] = (struct samrt_mask_result){.mask = res0[k].mask};
    float *v = malloc(sizeof(float) * (size_t)n * B_N);
    if (!v) return SAMRT_E_HOST_MEMORY;
    enum samrt_status st = SAMRT_OK;
    /* graph replay: the default path; the first call of the key captured it */
    for (int i = 0; i < 10 && st == SAMRT_OK; i++) st = segment(e, a, img, lg, res);
    for (int i = 0; i < n && st == SAMRT_OK; i++) {
        const uint64_t t0 = samrt_cli_now_ns();
        st = segment(e, a, img, lg, res);
        v[B_GRAPH * n + i] = (float)((samrt_cli_now_ns() - t0) * 1e-6);
    }
    /* eager with events between the stages */
    if (st == SAMRT_OK) st = samrt_internal_segment_configure(e, 1, 1);
    for (int i = 0; i < 5 && st == SAMRT_OK; i++) st = segment(e, a, img, lg, res);
    for (int i = 0; i < n && st == SAMRT_OK; i++) {
        const uint64_t t0 = samrt_cli_now_ns();
        st = segment(e, a, img, lg, res);
        v[B_EAGER * n + i] = (float)((samrt_cli_now_ns() - t0) * 1e-6);
        struct samrt_stage_times t = {-1, -1, -1, -1, -1, -1, -1, -1};
        if (st == SAMRT_OK) st = samrt_engine_stage_times(e, &t);
        v[B_PRE * n + i] = t.preprocess_ms;
        v[B_ENC * n + i] = t.image_encoder_ms;
        v[B_HEADS * n + i] = t.prompt_and_mask_decoder_ms;
        v[B_POST * n + i] = t.postprocess_ms;
    }
    if (st == SAMRT_OK) st = samrt_internal_segment_configure(e, 1, 0);
    const uint64_t free_after = device_free_bytes(a->p.device);
    if (st == SAMRT_OK) {
        static const char *names[B_N] = {"preprocess (upload + resize)", "image encoder", "prompt + mask decoder",
                                         "postprocess (decode + download)", "per call, eager (wall)",
                                         "per call, graph replay (wall)"};
        enum samrt_model_id id = SAMRT_MODEL_UNKNOWN;
        struct samrt_memory_report mem;
        samrt_engine_model(e, &id, NULL);
        samrt_engine_memory(e, &mem);
        printf("bench: %s %s, frame %dx%d, %d object(s), %d calls per series after warm-up\n", samrt_model_name(id),
               a->p.precision == SAMRT_DTYPE_COUNT ? "(profile precision)" : samrt_dtype_name(a->p.precision),
               img->width, img->height, a->n_obj, n);
        printf("%-34s %10s %10s\n", "stage (ms)", "median", "p95");
        for (int b = 0; b < B_N; b++) {
            float med, p95;
            med_p95(v + (size_t)b * n, n, &med, &p95);
            printf("%-34s %10.3f %10.3f\n", names[b], med, p95);
        }
        const double mib = 1.0 / 1048576.0;
        printf("arena MiB: weights %.1f, state %.1f, workspace %.1f, scratch %.1f, staging %.1f, total %.1f (%s)\n",
               mem.weights_bytes * mib, mem.state_bytes * mib, mem.workspace_bytes * mib, mem.scratch_bytes * mib,
               mem.staging_bytes * mib, mem.arena_bytes * mib, samrt_mem_kind_name(mem.mem_kind));
        if (free_before && free_after)
            printf("device memory drop (cudaMemGetInfo, before init -> after the runs): %.1f MiB\n",
                   free_before >= free_after ? (free_before - free_after) * mib : 0.0);
    }
    free(v);
    return st;
}

int samrt_cmd_segment(int argc, char **argv) {
    static struct args a;
    const int rc = parse_args(argc, argv, &a);
    if (rc == HELP_SHOWN) return SAMRT_EXIT_OK;
    if (rc) {
        if (rc < 0) usage(stderr);
        return rc < 0 ? SAMRT_EXIT_USAGE : rc;
    }
    uint8_t *rgb = NULL;
    int w = 0, h = 0;
    enum samrt_status st = a.image ? samrt_image_load_rgb8(a.image, &rgb, &w, &h) : load_video_frame(a.video, a.start, &rgb, &w, &h);
    for (int k = 0; k < a.n_obj && st == SAMRT_OK; k++) {  /* fail fast, before the weights load */
        st = samrt_internal_check_prompt(&a.obj[k], w, h, a.p.imgsz);
        if (st != SAMRT_OK) fprintf(stderr, "samrt segment: object %d: bad prompt (see above)\n", k + 1);
    }
    uint8_t *bin[MAX_OBJ] = {0};
    float *lg[MAX_OBJ] = {0};
    if (st == SAMRT_OK) st = load_masks(&a, w, h, bin);
    if (w > a.p.max_frame_width) a.p.max_frame_width = w;
    if (h > a.p.max_frame_height) a.p.max_frame_height = h;
    const uint64_t free_before = a.bench ? device_free_bytes(a.p.device) : 0;
    samrt_engine_t e = NULL;
    if (st == SAMRT_OK) st = samrt_engine_init(a.weights, &a.p, &e);
    if (st == SAMRT_OK) st = mask_logits(e, &a, bin, w, h, lg);
    const size_t npx = (size_t)w * (size_t)h;
    uint8_t *masks = st == SAMRT_OK ? malloc(npx * (size_t)a.n_obj) : NULL, *lab = malloc(npx ? npx : 1);
    float *logits = st == SAMRT_OK ? malloc(sizeof(float) * npx * (size_t)a.n_obj) : NULL;
    if (st == SAMRT_OK && (!masks || !logits || !lab)) st = SAMRT_E_HOST_MEMORY;
    struct samrt_mask_result res[MAX_OBJ];
    for (int k = 0; k < a.n_obj && st == SAMRT_OK; k++)
        res[k] = (struct samrt_mask_result){.mask = masks + npx * k, .logits = logits + npx * k};
    struct samrt_taps *ts = NULL;
    if (st == SAMRT_OK && a.taps) {
        struct samrt_memory_report mem;
        samrt_engine_memory(e, &mem);
        st = samrt_taps_init(mem.mem_kind, NULL, &ts);
        if (st == SAMRT_OK) st = samrt_internal_segment_set_tap(e, samrt_taps_hook, ts);
    }
    const struct samrt_image img = {rgb, w, h, 3 * w};
    if (st == SAMRT_OK) st = segment(e, &a, &img, lg, res);
    if (st == SAMRT_OK && a.bench) st = run_bench(e, &a, &img, lg, res, free_before);
    for (int k = 0; k < a.n_obj && st == SAMRT_OK; k++)
        printf("object %d: score %+.4f (%s), iou %.4f, area %d px, box (%d,%d)-(%d,%d)\n", k + 1, res[k].object_score,
               res[k].object_score > 0 ? "present" : "absent", res[k].iou, res[k].area, res[k].box[0], res[k].box[1],
               res[k].box[2], res[k].box[3]);
    uint8_t pal[256 * 3];
    samrt_palette_davis(pal);
    if (st == SAMRT_OK) {
        label_map(res, a.n_obj, w, h, lab);
        st = a.n_obj == 1 ? samrt_png_write_gray8(a.out, lab, w, h)
                          : samrt_png_write_palette8(a.out, lab, w, h, pal, 256);
    }
    if (st == SAMRT_OK && a.overlay) {
        struct samrt_overlay_object obj[MAX_OBJ];
        for (int k = 0; k < a.n_obj; k++) obj[k] = (struct samrt_overlay_object){res[k].mask, k + 1};
        samrt_overlay_draw(rgb, w, h, obj, a.n_obj);
        st = samrt_png_write_rgb8(a.overlay, rgb, w, h);
    }
    if (st == SAMRT_OK && ts) {
        st = write_taps(e, ts, &a, w, h);
        if (st == SAMRT_OK) printf("taps: %d tensors -> %s\n", samrt_taps_count(ts), a.taps);
    }
    if (st != SAMRT_OK) fprintf(stderr, "samrt segment: %s\n", samrt_status_str(st));
    samrt_taps_free(ts);
    samrt_engine_free(e);
    free(rgb), free(masks), free(logits), free(lab);
    for (int k = 0; k < a.n_obj; k++) free(bin[k]), free(lg[k]);
    return samrt_exit_code(st);
}
