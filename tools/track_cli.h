/* track_cli.h - the pieces of `samrt track` (cmd_track.c) shared by its three files: the
 * options it parses (track_args.c), the state of a run (cmd_track.c) and what a run writes
 * (track_write.c: masks, overlays, the timing lines, the parity taps). */
#ifndef SAMRT_TRACK_CLI_H
#define SAMRT_TRACK_CLI_H

#include <stdio.h>

#include "frame_stream.h"
#include "samrt_internal.h"
#include "taps.h"
#include "track_opts.h"
#include "video.h"

#define MAX_OBJ 64
#define HELP_SHOWN 100

struct obj_arg {
    int id, at;
    struct samrt_object_prompt p;
    const char *mask_path;  /* a mask prompt instead of p */
    uint8_t *mask;          /* its pixels, loaded before the weights */
};

struct track_args {
    struct samrt_track_opts s;  /* the options shared with samrt bench (harness/track_opts.h) */
    const char *weights, *frames, *overlay, *overlay_video, *taps;
    struct samrt_engine_params p;  /* imgsz, precision, platform from s */
    struct obj_arg obj[MAX_OBJ];
    int n_obj, non_overlap, fill_holes, timing, dump_memattn;
    double fps;
    enum samrt_postproc postproc;
};

struct track_run {
    samrt_engine_t e;
    struct samrt_taps *ts;
    struct samrt_video_writer *vw;
    uint8_t *masks, *gray, *over;
    struct samrt_track_result res[MAX_OBJ];
    double *ms;          /* --timing: per-frame push times of the timed passes */
    int n_ms, cap_ms;
    double loop_ms;      /* wall time of the timed passes' tracking loops */
    double decode_ms, wait_ms;  /* sums over the timed frames: decode thread, tracker waiting */
    char decoder[32];    /* the streamer's decode path (frame_stream.h), for --timing */
};

/* Parses the options into *a: 0 to run, HELP_SHOWN after --help, -1 for bad usage (the
 * caller prints the usage), else the exit code after the message (track_args.c). */
int samrt_track_parse_args(int argc, char **argv, struct track_args *a);
void samrt_track_usage(FILE *f);

/* Masks, overlay PNG and overlay video frame of one tracked frame (the first pass only). */
enum samrt_status samrt_track_write_frame(const struct track_args *a, struct track_run *r,
                                          const struct samrt_frame *fr, int n);
/* --timing: the ms/frame, decoding and arena lines. */
void samrt_track_print_timing(struct track_run *r, int n_objects);
/* --dump-taps: the taps file and its line. */
enum samrt_status samrt_track_write_taps(const struct track_args *a, struct track_run *r, int w, int h, int n_frames);

#endif /* SAMRT_TRACK_CLI_H */
