/* track_opts.c - the option values shared by `samrt track` and `samrt bench` (track_opts.h):
 * one syntax and one range per option, whichever subcommand reads it. */
#include "track_opts.h"

#include <stdio.h>
#include <string.h>

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
