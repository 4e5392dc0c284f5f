/* track_opts.c - the options shared by `samrt track` and `samrt bench` (track_opts.h): one
 * getopt_long row, one syntax and one range per option, whichever subcommand reads it. */
#include "track_opts.h"

#include <stdio.h>
#include <string.h>

#include "platform.h"
#include "util.h"

int samrt_opt_point(const char *s, struct samrt_point *out) {
    float f[2];
    int lab = 1;
    char tail;
    const int k = sscanf(s, "%f,%f,%d%c", &f[0], &f[1], &lab, &tail);
    if ((k != 2 && k != 3) || (lab != 0 && lab != 1)) return -1;
    *out = (struct samrt_point){f[0], f[1], lab};
    return 0;
}

int samrt_opt_box(const char *s, float box[4]) {
    float f[4];
    char tail;
    if (sscanf(s, "%f,%f,%f,%f%c", &f[0], &f[1], &f[2], &f[3], &tail) != 4) return -1;
    memcpy(box, f, sizeof f);
    return 0;
}

/* A whole int in [lo, hi] into *out; 0 or -1. */
static int int_in(const char *s, long lo, long hi, int *out) {
    long v;
    if (samrt_parse_int(s, lo, hi, &v)) return -1;
    *out = (int)v;
    return 0;
}

int samrt_opt_start(const char *s, int *out) { return int_in(s, 0, SAMRT_OPT_FRAMES_MAX, out); }

int samrt_opt_max_frames(const char *s, int *out) { return int_in(s, 1, SAMRT_OPT_FRAMES_MAX, out); }

int samrt_opt_prefetch(const char *s, int *out) { return int_in(s, 1, SAMRT_OPT_PREFETCH_MAX, out); }

int samrt_opt_imgsz(const char *s, int *out) { return int_in(s, SAMRT_OPT_IMGSZ_MIN, SAMRT_OPT_IMGSZ_MAX, out); }

static const struct option g_shared[SAMRT_OPT_N_SHARED] = {
    {"video", required_argument, 0, SAMRT_OPT_VIDEO},        {"out", required_argument, 0, SAMRT_OPT_OUT},
    {"point", required_argument, 0, SAMRT_OPT_POINT},        {"box", required_argument, 0, SAMRT_OPT_BOX},
    {"start", required_argument, 0, SAMRT_OPT_START},        {"max-frames", required_argument, 0, SAMRT_OPT_MAX_FRAMES},
    {"max_frames", required_argument, 0, SAMRT_OPT_MAX_FRAMES}, {"prefetch", required_argument, 0, SAMRT_OPT_PREFETCH},
    {"runs", required_argument, 0, SAMRT_OPT_RUNS},          {"imgsz", required_argument, 0, SAMRT_OPT_IMGSZ},
    {"precision", required_argument, 0, SAMRT_OPT_PRECISION}, {"platform", required_argument, 0, SAMRT_OPT_PLATFORM},
    {"sm-limit", required_argument, 0, SAMRT_OPT_SM_LIMIT},  {"sm_limit", required_argument, 0, SAMRT_OPT_SM_LIMIT},
    {"memory", required_argument, 0, SAMRT_OPT_MEMORY},
    {"decode-threads", required_argument, 0, SAMRT_OPT_DECODE_THREADS},
    {"decode_threads", required_argument, 0, SAMRT_OPT_DECODE_THREADS},
    {"gpu-decode", no_argument, 0, SAMRT_OPT_GPU_DECODE},    {"gpu_decode", no_argument, 0, SAMRT_OPT_GPU_DECODE},
    {"help", no_argument, 0, 'h'}};

int samrt_opt_table(const struct option *own, struct option *table, size_t cap) {
    size_t n = 0;
    while (own[n].name) n++;
    if (SAMRT_OPT_N_SHARED + n + 1 > cap) return -1;
    memcpy(table, g_shared, sizeof g_shared);
    memcpy(table + SAMRT_OPT_N_SHARED, own, (n + 1) * sizeof *own);
    return 0;
}

void samrt_track_opts_init(struct samrt_track_opts *v) {
    memset(v, 0, sizeof *v);
    v->prefetch = 4;
    v->runs = 1;
    v->imgsz = 1024;
    v->precision = SAMRT_DTYPE_COUNT;
}

/* The integer options: name, range, where the value goes. */
static int int_opt(int code, const char *arg, struct samrt_track_opts *v, struct samrt_opt_refusal *why) {
    static const struct {
        int code;
        const char *name;
        long lo, hi;
        size_t at;
    } rows[] = {
        {SAMRT_OPT_START, "start", 0, SAMRT_OPT_FRAMES_MAX, offsetof(struct samrt_track_opts, start)},
        {SAMRT_OPT_MAX_FRAMES, "max-frames", 1, SAMRT_OPT_FRAMES_MAX, offsetof(struct samrt_track_opts, max_frames)},
        {SAMRT_OPT_PREFETCH, "prefetch", 1, SAMRT_OPT_PREFETCH_MAX, offsetof(struct samrt_track_opts, prefetch)},
        {SAMRT_OPT_RUNS, "runs", 1, SAMRT_OPT_RUNS_MAX, offsetof(struct samrt_track_opts, runs)},
        {SAMRT_OPT_IMGSZ, "imgsz", SAMRT_OPT_IMGSZ_MIN, SAMRT_OPT_IMGSZ_MAX, offsetof(struct samrt_track_opts, imgsz)},
        {SAMRT_OPT_SM_LIMIT, "sm-limit", 0, SAMRT_OPT_SM_LIMIT_MAX, offsetof(struct samrt_track_opts, sm_limit)},
        {SAMRT_OPT_DECODE_THREADS, "decode-threads", 1, SAMRT_OPT_DECODE_THREADS_MAX,
         offsetof(struct samrt_track_opts, decode_threads)},
    };
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(rows); i++) {
        if (rows[i].code != code) continue;
        *why = (struct samrt_opt_refusal){rows[i].name, SAMRT_OPT_RULE_INT, rows[i].lo, rows[i].hi};
        return int_in(arg, rows[i].lo, rows[i].hi, (int *)((char *)v + rows[i].at));
    }
    return 1;
}

int samrt_track_opts_parse(int code, const char *arg, struct samrt_track_opts *v, struct samrt_opt_refusal *why) {
    switch (code) {
    case SAMRT_OPT_VIDEO: v->video = arg; return 0;
    case SAMRT_OPT_OUT: v->out = arg; return 0;
    case SAMRT_OPT_GPU_DECODE: v->gpu_decode = 1; return 0;
    case SAMRT_OPT_PRECISION:
        *why = (struct samrt_opt_refusal){"precision", SAMRT_OPT_RULE_PRECISION, 0, 0};
        return samrt_dtype_parse(arg, &v->precision) == SAMRT_OK ? 0 : -1;
    case SAMRT_OPT_MEMORY:
        *why = (struct samrt_opt_refusal){"memory", SAMRT_OPT_RULE_MEMORY, 0, 0};
        return samrt_memory_policy_parse(arg, &v->memory) == SAMRT_OK ? 0 : -1;
    case SAMRT_OPT_PLATFORM:
        *why = (struct samrt_opt_refusal){"platform", SAMRT_OPT_RULE_PLATFORM, 0, 0};
        if (!samrt_platform_profile_find(arg)) return -1;
        v->platform = arg;
        return 0;
    default: return int_opt(code, arg, v, why);
    }
}
