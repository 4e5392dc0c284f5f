/* track_opts.h - the option values that `samrt track` (tools/cmd_track.c) and `samrt bench`
 * (bench.c) both take, parsed in one place (track_opts.c): the prompts (--point x,y[,l],
 * --box x0,y0,x1,y1), the frames (--start, --max-frames, --prefetch) and the model input side
 * (--imgsz). Each parser says only whether the text is valid and stores the value; the
 * caller prints its own message, so each subcommand's wording stays its own.
 *
 *   struct samrt_point pt;
 *   if (samrt_opt_point(optarg, &pt)) return bad("--point takes x,y or x,y,label (0 or 1)", optarg);
 */
#ifndef SAMRT_HARNESS_TRACK_OPTS_H
#define SAMRT_HARNESS_TRACK_OPTS_H

#include "prompts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ranges, for the messages. */
#define SAMRT_OPT_FRAMES_MAX (1L << 30)   /* --start, --max-frames */
#define SAMRT_OPT_PREFETCH_MAX 64L        /* --prefetch: frames decoded ahead, from 1 */
#define SAMRT_OPT_IMGSZ_MIN 64L           /* --imgsz */
#define SAMRT_OPT_IMGSZ_MAX 4096L

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
