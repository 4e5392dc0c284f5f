/* track_opts.h - the options that `samrt track` (tools/track_args.c) and `samrt bench`
 * (bench.c) both take, parsed in one place (track_opts.c): one spelling, one syntax and one
 * range per option, whichever subcommand reads it. The shared rows of the getopt_long table
 * (samrt_opt_table): the source (--video), the output folder (--out), the prompts (--point
 * x,y[,l], --box x0,y0,x1,y1), the frames (--start, --max-frames alias --max_frames,
 * --prefetch, --decode-threads), the passes (--runs), the engine (--imgsz, --precision, --platform) and --help.
 * samrt_track_opts_parse stores the values; a refused one comes back as a samrt_opt_refusal
 * and the caller prints it, so each subcommand's wording stays its own. The prompts are only
 * checked here (samrt_opt_point, samrt_opt_box): each subcommand keeps its own objects.
 *
 *   struct option opts[SAMRT_OPT_N_SHARED + 8];
 *   samrt_opt_table(own_rows, opts, SAMRT_ARRAY_LEN(opts));
 *   struct samrt_track_opts v;
 *   struct samrt_opt_refusal why;
 *   samrt_track_opts_init(&v);
 *   while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
 *       if (samrt_track_opts_parse(c, optarg, &v, &why) < 0) return refused(&why, optarg);
 */
#ifndef SAMRT_HARNESS_TRACK_OPTS_H
#define SAMRT_HARNESS_TRACK_OPTS_H

#include <getopt.h>
#include <stddef.h>

#include "prompts.h"
#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ranges, for the messages. */
#define SAMRT_OPT_FRAMES_MAX (1L << 30)   /* --start, --max-frames */
#define SAMRT_OPT_PREFETCH_MAX 64L        /* --prefetch: frames decoded ahead, from 1 */
#define SAMRT_OPT_IMGSZ_MIN 64L           /* --imgsz */
#define SAMRT_OPT_IMGSZ_MAX 4096L
#define SAMRT_OPT_RUNS_MAX 1000L          /* --runs, from 1 */

/* The getopt_long codes of the shared options, above any character and below the
 * subcommands' own codes (which start at SAMRT_OPT_OWN). --help is 'h'. */
enum samrt_opt_code {
    SAMRT_OPT_VIDEO = 0x100, SAMRT_OPT_OUT, SAMRT_OPT_POINT, SAMRT_OPT_BOX, SAMRT_OPT_START,
    SAMRT_OPT_MAX_FRAMES, SAMRT_OPT_PREFETCH, SAMRT_OPT_RUNS, SAMRT_OPT_IMGSZ, SAMRT_OPT_PRECISION,
    SAMRT_OPT_PLATFORM, SAMRT_OPT_SM_LIMIT, SAMRT_OPT_MEMORY, SAMRT_OPT_DECODE_THREADS, SAMRT_OPT_GPU_DECODE,
    SAMRT_OPT_OWN = 0x200
};
#define SAMRT_OPT_N_SHARED 20  /* rows samrt_opt_table puts first */
#define SAMRT_OPT_SM_LIMIT_MAX 4096L      /* --sm-limit, from 0 (the whole GPU) */
#define SAMRT_OPT_DECODE_THREADS_MAX 32L  /* --decode-threads, from 1 (SAMRT_DECODE_THREADS_MAX) */

/* The shared option values, with the defaults of samrt_track_opts_init. */
struct samrt_track_opts {
    const char *video;         /* --video, NULL = not given */
    const char *out;           /* --out, NULL = not given */
    const char *platform;      /* --platform, a known profile; NULL = detect */
    int start;                 /* --start, 0 */
    int max_frames;            /* --max-frames, 0 = all */
    int prefetch;              /* --prefetch, 4 */
    int runs;                  /* --runs, 1 */
    int imgsz;                 /* --imgsz, 1024 */
    enum samrt_dtype precision; /* --precision, SAMRT_DTYPE_COUNT = the platform profile's */
    int sm_limit;              /* --sm-limit, 0 = the whole GPU (samrt_engine_params.sm_limit) */
    int decode_threads;        /* --decode-threads, 0 = from the core count (frame_stream.h) */
    int gpu_decode;            /* --gpu-decode: frames decoded on the GPU (nvJPEG, NVDEC) into device frames */
    enum samrt_memory_policy memory; /* --memory sam2|samurai|dam4sam, SAMRT_MEMORY_SAM2 (samrt_engine_params.memory) */
};

/* Why samrt_track_opts_parse refused a value. */
enum samrt_opt_rule {
    SAMRT_OPT_RULE_INT,        /* a whole number in [lo, hi] */
    SAMRT_OPT_RULE_PRECISION,  /* fp32, fp16 or bf16 */
    SAMRT_OPT_RULE_PLATFORM,   /* a platform profile's name (samrt check lists them) */
    SAMRT_OPT_RULE_MEMORY      /* a memory policy's name: sam2, samurai or dam4sam */
};
struct samrt_opt_refusal {
    const char *name;          /* the option's name without "--" (the first spelling) */
    enum samrt_opt_rule rule;
    long lo, hi;               /* SAMRT_OPT_RULE_INT: the range */
};

/* Copies the shared rows, then own's rows up to and including its zero row, into table
 * (cap rows). Returns 0, or -1 when cap is too small. */
int samrt_opt_table(const struct option *own, struct option *table, size_t cap);

void samrt_track_opts_init(struct samrt_track_opts *v);

/* One option from getopt_long (code, arg = optarg): 1 when code is not a shared value
 * option (--point, --box and --help are the caller's, after samrt_opt_point / samrt_opt_box),
 * 0 when the value is stored, -1 when it is refused (v untouched, why says why). */
int samrt_track_opts_parse(int code, const char *arg, struct samrt_track_opts *v, struct samrt_opt_refusal *why);

/* --point: "x,y" or "x,y,l" with l 0 or 1 (default 1), pixels of the frame; 0 on success,
 * -1 otherwise (out untouched). */
int samrt_opt_point(const char *s, struct samrt_point *out);
/* --box: "x0,y0,x1,y1"; 0 or -1 (box untouched). */
int samrt_opt_box(const char *s, float box[4]);
/* --start: frames skipped, [0, SAMRT_OPT_FRAMES_MAX]; 0 or -1. */
int samrt_opt_start(const char *s, int *out);
/* --max-frames: [1, SAMRT_OPT_FRAMES_MAX]; 0 or -1. */
int samrt_opt_max_frames(const char *s, int *out);
/* --prefetch: [1, SAMRT_OPT_PREFETCH_MAX]; 0 or -1. */
int samrt_opt_prefetch(const char *s, int *out);
/* --imgsz: [SAMRT_OPT_IMGSZ_MIN, SAMRT_OPT_IMGSZ_MAX]; 0 or -1. */
int samrt_opt_imgsz(const char *s, int *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_TRACK_OPTS_H */
