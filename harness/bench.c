/* bench.c - the options of `samrt bench` (bench.h): usage, the --models list, the number and
 * choice options, checked before anything runs (unknown models, models the backend cannot
 * track, unknown platform profiles fail in milliseconds). The options shared with `samrt
 * track` (--video, --point, --start, --imgsz, --precision, --platform, ...) are parsed by
 * track_opts.c; this file says in its own words what they refused. The run itself is
 * bench_run.c; docs/profiling.md is the manual.
 *
 * Run the tests: ctest --preset cpu -R test_bench */
#include "bench.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sav.h"
#include "track_opts.h"
#include "util.h"

/* ---- options -------------------------------------------------------------------------- */

static void usage(FILE *f) {
    fprintf(f,
            "usage: samrt bench --split_dir DIR --models LIST --out_dir DIR [--weights_dir DIR]\n"
            "       samrt bench --video FILE|/dev/videoN (--point x,y[,l] ... | --box x0,y0,x1,y1)\n"
            "                   [--object (--point ... | --box ...)] ... [--start N] [--max-frames N]\n"
            "                   --models LIST --out_dir DIR [--weights_dir DIR]\n"
            "                   [--videos LIST] [--limit_videos N] [--limit_objects N] [--shard K/N]\n"
            "                   [--warmup N] [--warmup_frames N] [--runs N] [--imgsz N]\n"
            "                   [--precision fp32|fp16|bf16] [--platform PROFILE] [--per_obj]\n"
            "                   [--prefetch N] [--save_masks annotated|all|none] [--nsight_report PATH]\n"
            "                   [--objects N,N,...] [--streams K,K,...] [--memory P[,P...]]\n\n"
            "Tracks the videos of an SA-V split from a prompt derived from each object's frame-0 mask\n"
            "and writes profile_summary.csv, profile_stats.json and experiment_config.txt to the\n"
            "out folder, the masks to <out_dir>/<model>/<video>/<obj>/<frame>.png (`samrt eval`\n"
            "scores them) and J, F, J&F per object in the CSV.\n\n"
            "  --split_dir DIR     SA-V split: JPEGImages_24fps/, Annotations_6fps/ [, <split>.txt]\n"
            "  --video FILE        instead of a split: one video file (mp4, mkv, webm, ...), camera\n"
            "                      (/dev/videoN, needs --max-frames) or JPEG folder, its objects prompted\n"
            "                      on its first frame by --point / --box (no ground truth: no J&F)\n"
            "  --point x,y[,l]     --video: a click of the current object, label 1 (default) or 0\n"
            "  --box x0,y0,x1,y1   --video: the current object's box\n"
            "  --object            --video: the next prompts are the next object's (objects 001, 002, ...)\n"
            "  --start N           --video: skip the first N frames\n"
            "  --max-frames N      --video: at most N frames\n"
            "  --models LIST       comma-separated <model>_<prompt>: model sam2.1_tiny, sam2.1_small,\n"
            "                      sam2.1_base_plus, sam2.1_large, edgetam, efficienttam_ti, _ti_1,\n"
            "                      _ti_2, _ti_512x512, _s, _s_1, _s_2, _s_512x512 (e.g.\n"
            "                      efficienttam_ti_2_points; the SAM 2.0 names\n"
            "                      sam2_tiny/small/base/large, where the build has them); prompt\n"
            "                      points (first click), bbox (tight box) or mask (default); with\n"
            "                      --video the prompt part says what the prompts are (bbox when every\n"
            "                      object has a box, else points)\n"
            "  --weights_dir DIR   checkpoints, one per model: sam2.1_hiera_tiny.pt, sam2.1_hiera_small.pt,\n"
            "                      sam2.1_hiera_base_plus.pt, sam2.1_hiera_large.pt, edgetam.pt,\n"
            "                      efficienttam_<variant>.pt, sam2_hiera_<size>.pt (default: checkpoints)\n"
            "  --out_dir DIR       run folder (alias --out)\n"
            "  --videos LIST       comma-separated video names (default: the whole split)\n"
            "  --limit_videos N    first N videos after --videos and --shard\n"
            "  --limit_objects N   first N objects per video\n"
            "  --shard K/N         every N-th video starting at K (0-based), for job arrays\n"
            "  --warmup N          untimed passes per video (per object with --per_obj), default 1\n"
            "  --warmup_frames N   frames per warm-up pass, default 0 = the whole video\n"
            "  --runs N            timed passes, one CSV row per object each, default 1\n"
            "  --imgsz N           model input side, default 1024\n"
            "  --precision P       fp32, fp16 or bf16 (default: the platform profile's)\n"
            "  --platform P        platform profile (samrt check lists them; default: detected)\n"
            "  --sm-limit N        the engines run in a green context of N SMs, an Orin-sized share\n"
            "                      (8 ~ Orin Nano/NX, 16 ~ AGX Orin; rounded up to the driver's granularity,\n"
            "                      the sm_limit column); 0 = the whole GPU (default)\n"
            "  --memory P[,P...]   memory-selection policy: sam2 (default), samurai or dam4sam (the memory\n"
            "                      column); a list (e.g. sam2,samurai,dam4sam) runs each model once per\n"
            "                      policy, its masks under <out_dir>/<model>@<policy>/ and its sweep\n"
            "                      configurations named ...;memory=<policy>\n"
            "  --per_obj           track each object in its own pass (max_objects 1)\n"
            "  --prefetch N        frames decoded ahead of the tracker, default 4\n"
            "  --decode-threads N  threads decoding a JPEG folder, default one per core but one, <= 4\n"
            "  --gpu-decode        decode on the GPU into device frames (nvJPEG; NVDEC for --video) where\n"
            "                      the build and machine can, else on the CPU\n"
            "  --save_masks S      annotated (default: the frames `samrt eval` reads), all, none\n"
            "  --nsight_report P   the nsight_report column (tools/nsys_profile.sh sets it)\n"
            "  --objects LIST      the object sweep instead: per count N in LIST (1..256, e.g. 1,2,4,8,16) the\n"
            "                      tracker is set up for N objects and tracks the clip's first N objects plus\n"
            "                      grid clicks for the rest; one row per count: ms/frame p50/p95/p99,\n"
            "                      object-frames/s, GPU busy, arena bytes (no masks, no J&F)\n"
            "  --streams LIST      the sweep over streams (1..16, e.g. 1,2,4), alone (1 object) or with\n"
            "                      --objects: per count K one engine and K-1 sessions on its weights\n"
            "                      track the clip from K threads at once; the row adds each stream's\n"
            "                      frames/s, the aggregate frames/s and object-frames/s, all K arenas\n"
            "exit: 0 ok, 2 bad usage or input, 3 runtime failure, 4 model, tracking or video not in this build\n");
}

enum samrt_status samrt_bench_parse_model(const char *s, struct samrt_bench_model *out) {
    SAMRT_CHECK(s && out && strlen(s) < sizeof out->tag, SAMRT_E_INVALID_ARG, "bad model '%s'", s ? s : "");
    char name[sizeof out->tag];
    snprintf(name, sizeof name, "%s", s);
    enum samrt_prompt_kind kind = SAMRT_PROMPT_MASK;
    char *us = strrchr(name, '_');
    static const char *suffixes[] = {"points", "bbox", "box", "mask"};
    for (size_t i = 0; us && i < SAMRT_ARRAY_LEN(suffixes); i++)  /* not parse_kind: it logs misses */
        if (!strcmp(us + 1, suffixes[i]) && samrt_prompt_parse_kind(us + 1, &kind) == SAMRT_OK) *us = 0;
    if (samrt_model_parse(name, &out->model) != SAMRT_OK) return SAMRT_E_INVALID_ARG;
    out->prompt = kind;
    snprintf(out->tag, sizeof out->tag, "%s_%s", samrt_model_name(out->model), samrt_prompt_kind_name(kind));
    return SAMRT_OK;
}

static int parse_models(const char *list, const struct samrt_tracker_backend *b, struct samrt_bench_opts *o) {
    char buf[2048];
    if (strlen(list) >= sizeof buf) {
        fprintf(stderr, "samrt bench: --models is too long\n");
        return SAMRT_EXIT_USAGE;
    }
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        struct samrt_bench_model m;
        if (samrt_bench_parse_model(tok, &m) != SAMRT_OK) {
            fprintf(stderr,
                    "samrt bench: unknown model '%s' (want <model>_<prompt>, model sam2.1_tiny, sam2.1_small, "
                    "sam2.1_base_plus, sam2.1_large, edgetam, efficienttam_ti, efficienttam_ti_1, "
                    "efficienttam_ti_2, efficienttam_ti_512x512, efficienttam_s, efficienttam_s_1, "
                    "efficienttam_s_2, efficienttam_s_512x512; prompt points, bbox or mask)\n",
                    tok);
            return SAMRT_EXIT_USAGE;
        }
        const char *why = NULL;
        if (b->available(m.model, &why) != SAMRT_OK) {
            fprintf(stderr, "samrt bench: %s: %s\n", tok, why ? why : "not in this build");
            return SAMRT_EXIT_UNAVAILABLE;
        }
        for (int i = 0; i < o->n_models; i++)
            if (!strcmp(o->models[i].tag, m.tag)) {
                fprintf(stderr, "samrt bench: --models names %s twice\n", m.tag);
                return SAMRT_EXIT_USAGE;
            }
        if (o->n_models == SAMRT_BENCH_MAX_MODELS) {
            fprintf(stderr, "samrt bench: at most %d models\n", SAMRT_BENCH_MAX_MODELS);
            return SAMRT_EXIT_USAGE;
        }
        o->models[o->n_models++] = m;
    }
    if (!o->n_models) {
        fprintf(stderr, "samrt bench: --models is empty\n");
        return SAMRT_EXIT_USAGE;
    }
    return -1;
}

/* Prints why option `name` refused s (a whole int in [lo, hi] was wanted); returns 1. */
static int int_wanted(const char *name, const char *s, long lo, long hi) {
    fprintf(stderr, "samrt bench: --%s wants an integer in [%ld, %ld], got '%s'\n", name, lo, hi, s);
    return 1;
}

/* A whole int in [lo, hi] for option `name`; prints the error. */
static int opt_int(const char *name, const char *s, long lo, long hi, int *out) {
    long v;
    if (samrt_parse_int(s, lo, hi, &v)) return int_wanted(name, s, lo, hi);
    *out = (int)v;
    return 0;
}

/* The --video prompt options: --object, --point, --box. Returns 0, or 1 after printing why. */
static int parse_prompt_opt(int c, const char *arg, struct samrt_bench_opts *o) {
    if (c == 'o' || !o->n_prompts) {
        if (o->n_prompts == SAMRT_BENCH_MAX_OBJECTS) {
            fprintf(stderr, "samrt bench: at most %d objects\n", SAMRT_BENCH_MAX_OBJECTS);
            return 1;
        }
        memset(&o->prompts[o->n_prompts++], 0, sizeof o->prompts[0]);
        if (c == 'o') return 0;
    }
    struct samrt_prompt *p = &o->prompts[o->n_prompts - 1];
    if (c == SAMRT_OPT_POINT) {
        struct samrt_point pt;
        if (samrt_opt_point(arg, &pt) || p->n_points == SAMRT_PROMPT_MAX_POINTS) {
            fprintf(stderr, "samrt bench: --point takes x,y or x,y,label (0 or 1), at most %d per object, got '%s'\n",
                    SAMRT_PROMPT_MAX_POINTS, arg);
            return 1;
        }
        p->points[p->n_points++] = pt;
        return 0;
    }
    float box[4];
    if (samrt_opt_box(arg, box) || p->has_box) {
        fprintf(stderr, "samrt bench: --box takes x0,y0,x1,y1, once per object, got '%s'\n", arg);
        return 1;
    }
    p->has_box = 1;
    memcpy(p->box, box, sizeof p->box);
    return 0;
}

/* --objects or --streams (streams 1): the sweep's configurations. Returns 0, or 1 after
 * printing why. */
static int parse_sweep(const char *arg, int streams, struct samrt_bench_opts *o) {
    char why[160];
    const int bad = streams ? samrt_bench_parse_streams(arg, o->streams, &o->n_streams, why, sizeof why)
                            : samrt_bench_parse_objects(arg, o->sweep, &o->n_sweep, why, sizeof why);
    if (bad) fprintf(stderr, "samrt bench: --%s '%s': %s\n", streams ? "streams" : "objects", arg, why);
    return bad != 0;
}

/* --video: every object has a prompt, and the models' tags say which kind they all are. */
static int finish_video_opts(struct samrt_bench_opts *o) {
    if (!o->video) {
        if (o->n_prompts || o->start || o->max_frames) {
            fprintf(stderr, "samrt bench: --point, --box, --object, --start and --max-frames need --video\n");
            return SAMRT_EXIT_USAGE;
        }
        return -1;
    }
    int all_boxes = o->n_prompts > 0;
    for (int k = 0; k < o->n_prompts; k++) {
        struct samrt_prompt *p = &o->prompts[k];
        if (!p->n_points && !p->has_box) {
            fprintf(stderr, "samrt bench: --video: object %d has no --point or --box\n", k + 1);
            return SAMRT_EXIT_USAGE;
        }
        p->kind = p->has_box && !p->n_points ? SAMRT_PROMPT_BOX : SAMRT_PROMPT_POINTS;
        all_boxes &= p->kind == SAMRT_PROMPT_BOX;
    }
    if (!o->n_prompts) {
        fprintf(stderr, "samrt bench: --video needs each object's prompt (--point x,y or --box x0,y0,x1,y1)\n");
        return SAMRT_EXIT_USAGE;
    }
    for (int i = 0; i < o->n_models; i++) {
        struct samrt_bench_model *m = &o->models[i];
        m->prompt = all_boxes ? SAMRT_PROMPT_BOX : SAMRT_PROMPT_POINTS;
        snprintf(m->tag, sizeof m->tag, "%s_%s", samrt_model_name(m->model), samrt_prompt_kind_name(m->prompt));
        for (int j = 0; j < i; j++)
            if (!strcmp(o->models[j].tag, m->tag)) {
                fprintf(stderr, "samrt bench: --video: --models names %s twice (the prompts come from --point "
                                "and --box, not from the model names)\n",
                        samrt_model_name(m->model));
                return SAMRT_EXIT_USAGE;
            }
    }
    return -1;
}

/* A value of an option shared with samrt track (track_opts.h) that was refused, in bench's
 * words; returns 1. */
static int refused(const struct samrt_opt_refusal *why, const char *arg) {
    switch (why->rule) {
    case SAMRT_OPT_RULE_PRECISION:
        fprintf(stderr, "samrt bench: --precision wants fp32, fp16 or bf16, got '%s'\n", arg);
        return 1;
    case SAMRT_OPT_RULE_PLATFORM:
        fprintf(stderr, "samrt bench: unknown platform profile '%s' (samrt check lists them)\n", arg);
        return 1;
    case SAMRT_OPT_RULE_MEMORY:
        fprintf(stderr, "samrt bench: --memory wants sam2, samurai or dam4sam, got '%s'\n", arg);
        return 1;
    case SAMRT_OPT_RULE_INT: break;
    }
    return int_wanted(why->name, arg, why->lo, why->hi);
}

int samrt_bench_parse_memory(const char *list, enum samrt_memory_policy *out, int *n_out, char *why,
                             size_t why_len) {
    *n_out = 0;
    int n = 0;
    for (const char *p = list ? list : "";;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[16];
        enum samrt_memory_policy m;
        snprintf(item, sizeof item, "%.*s", (int)SAMRT_MIN(len, sizeof item - 1), p);
        if (!len) {
            snprintf(why, why_len, "item %d is empty (want sam2, samurai, dam4sam)", n + 1);
            return -1;
        }
        if (len >= sizeof item || samrt_memory_policy_parse(item, &m) != SAMRT_OK) {
            snprintf(why, why_len, "'%.*s' is not a memory policy (want sam2, samurai, dam4sam)",
                     (int)SAMRT_MIN(len, 24), p);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (out[i] == m) {
                snprintf(why, why_len, "%s is given twice", item);
                return -1;
            }
        out[n++] = m;  /* n < SAMRT_MEMORY_POLICY_COUNT: the names are distinct */
        if (!comma) break;
        p = comma + 1;
    }
    *n_out = n;
    return 0;
}

/* --memory: one policy (refused in samrt track's words) or a list of them. Returns 0, or 1
 * after printing why. */
static int parse_memory(const char *arg, struct samrt_bench_opts *o) {
    char why[160];
    if (!samrt_bench_parse_memory(arg, o->memories, &o->n_memory, why, sizeof why)) return 0;
    if (!strchr(arg, ',')) return refused(&(struct samrt_opt_refusal){"memory", SAMRT_OPT_RULE_MEMORY, 0, 0}, arg);
    fprintf(stderr, "samrt bench: --memory '%s': %s\n", arg, why);
    return 1;
}

/* The shared values into the bench's options. */
static void take_shared(const struct samrt_track_opts *v, struct samrt_bench_opts *o) {
    o->video = v->video;
    o->out_dir = v->out;
    o->platform = v->platform;
    o->start = v->start;
    o->max_frames = v->max_frames;
    o->prefetch = v->prefetch;
    o->decode_threads = v->decode_threads;
    o->gpu_decode = v->gpu_decode;
    o->runs = v->runs;
    o->imgsz = v->imgsz;
    o->sm_limit = v->sm_limit;
    if (!o->n_memory) o->memories[o->n_memory++] = v->memory;  /* no --memory: the default */
    o->memory = o->memories[0];
    o->precision_set = v->precision != SAMRT_DTYPE_COUNT;
    if (o->precision_set) o->precision = v->precision;
}

int samrt_bench_parse(int argc, char **argv, const struct samrt_tracker_backend *backend,
                      struct samrt_bench_opts *o) {
    enum { O_SPLIT = SAMRT_OPT_OWN, O_MODELS, O_WEIGHTS, O_OUT, O_VIDEOS, O_LIMV, O_LIMO, O_SHARD, O_WARM,
           O_WARMF, O_PEROBJ, O_SAVE, O_NSYS, O_SWEEP, O_STREAMS };
    static const struct option own[] = {
        {"split_dir", required_argument, 0, O_SPLIT},     {"models", required_argument, 0, O_MODELS},
        {"weights_dir", required_argument, 0, O_WEIGHTS}, {"out_dir", required_argument, 0, O_OUT},
        {"videos", required_argument, 0, O_VIDEOS},       {"limit_videos", required_argument, 0, O_LIMV},
        {"limit_objects", required_argument, 0, O_LIMO},  {"shard", required_argument, 0, O_SHARD},
        {"warmup", required_argument, 0, O_WARM},         {"warmup_frames", required_argument, 0, O_WARMF},
        {"per_obj", no_argument, 0, O_PEROBJ},            {"save_masks", required_argument, 0, O_SAVE},
        {"nsight_report", required_argument, 0, O_NSYS},  {"object", no_argument, 0, 'o'},
        {"objects", required_argument, 0, O_SWEEP},       {"streams", required_argument, 0, O_STREAMS},
        {0, 0, 0, 0}};
    struct option opts[SAMRT_OPT_N_SHARED + SAMRT_ARRAY_LEN(own)];
    if (samrt_opt_table(own, opts, SAMRT_ARRAY_LEN(opts))) return SAMRT_EXIT_RUNTIME;
    memset(o, 0, sizeof *o);
    o->weights_dir = "checkpoints";
    o->warmup = 1;
    struct samrt_track_opts v;
    struct samrt_opt_refusal why;
    samrt_track_opts_init(&v);
    const char *models = NULL;
    int c, bad = 0;
    optind = 1;
    opterr = 1;
    while (!bad && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == SAMRT_OPT_MEMORY) {  /* a list here, one name in samrt track */
            bad = parse_memory(optarg, o);
            continue;
        }
        const int shared = samrt_track_opts_parse(c, optarg, &v, &why);
        if (shared <= 0) {
            bad = shared < 0 && refused(&why, optarg);
            continue;
        }
        switch (c) {
        case 'h': usage(stdout); return SAMRT_EXIT_OK;
        case O_SPLIT: o->split_dir = optarg; break;
        case O_MODELS: models = optarg; break;
        case O_WEIGHTS: o->weights_dir = optarg; break;
        case O_OUT: v.out = optarg; break;  /* --out_dir, the bench's spelling of --out */
        case O_VIDEOS: o->videos = optarg; break;
        case O_NSYS: o->nsight_report = optarg; break;
        case O_PEROBJ: o->per_obj = 1; break;
        case SAMRT_OPT_POINT: case SAMRT_OPT_BOX: case 'o': bad = parse_prompt_opt(c, optarg, o); break;
        case O_SWEEP: bad = parse_sweep(optarg, 0, o); break;
        case O_STREAMS: bad = parse_sweep(optarg, 1, o); break;
        case O_LIMV: bad = opt_int("limit_videos", optarg, 0, 1000000, &o->limit_videos); break;
        case O_LIMO: bad = opt_int("limit_objects", optarg, 0, 1000000, &o->limit_objects); break;
        case O_WARM: bad = opt_int("warmup", optarg, 0, 1000, &o->warmup); break;
        case O_WARMF: bad = opt_int("warmup_frames", optarg, 0, 1000000, &o->warmup_frames); break;
        case O_SHARD:
            bad = samrt_sav_parse_shard(optarg, &o->shard_k, &o->shard_n) != SAMRT_OK;  /* it says why */
            break;
        case O_SAVE:
            if (!strcmp(optarg, "annotated")) o->save_masks = SAMRT_BENCH_SAVE_ANNOTATED;
            else if (!strcmp(optarg, "all")) o->save_masks = SAMRT_BENCH_SAVE_ALL;
            else if (!strcmp(optarg, "none")) o->save_masks = SAMRT_BENCH_SAVE_NONE;
            else {
                fprintf(stderr, "samrt bench: --save_masks wants annotated, all or none, got '%s'\n", optarg);
                bad = 1;
            }
            break;
        default: usage(stderr); return SAMRT_EXIT_USAGE;
        }
    }
    take_shared(&v, o);
    if (bad) return SAMRT_EXIT_USAGE;
    if (optind < argc || !o->split_dir == !o->video || !models || !o->out_dir) {
        fprintf(stderr, "samrt bench: %s\n\n",
                optind < argc ? "unexpected argument"
                              : "one of --split_dir and --video, --models and --out_dir are required");
        usage(stderr);
        return SAMRT_EXIT_USAGE;
    }
    if ((o->n_sweep || o->n_streams) && o->per_obj) {
        fprintf(stderr, "samrt bench: --%s tracks each configuration's objects together; drop --per_obj\n",
                o->n_sweep ? "objects" : "streams");
        return SAMRT_EXIT_USAGE;
    }
    if (o->n_streams && !o->n_sweep) o->sweep[o->n_sweep++] = 1;  /* --streams alone: one object */
    const int rc = parse_models(models, backend, o);
    return rc < 0 ? finish_video_opts(o) : rc;
}

int samrt_bench_main(int argc, char **argv, const struct samrt_tracker_backend *backend) {
    struct samrt_bench_opts *o = malloc(sizeof *o);
    if (!o) return SAMRT_EXIT_RUNTIME;
    int rc = samrt_bench_parse(argc, argv, backend, o);
    if (rc < 0) rc = samrt_bench_run(o, backend);
    free(o);
    return rc;
}
