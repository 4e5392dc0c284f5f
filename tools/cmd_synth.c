/* cmd_synth.c - `samrt synth`: writes a small synthetic dataset in the SA-V val/test layout
 * (see synth.h), so that the benchmark, eval and the tests run without the real data.
 *
 *   samrt synth --out /tmp/synth_val --videos 2 --frames 48 --objects 3 --seed 1
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "synth.h"

static void synth_usage(FILE *f) {
    fprintf(f,
            "usage: samrt synth --out DIR [--videos N] [--frames N] [--objects N] [--width W --height H]\n"
            "                   [--seed S] [--quality Q] [--gray_masks] [--force]\n\n"
            "Writes DIR/JPEGImages_24fps/<video>/NNNNN.jpg (every frame), DIR/Annotations_6fps/<video>/<obj>/\n"
            "NNNNN.png (every 4th frame, one folder per object, 0/1 palette PNGs; --gray_masks: 0/255 gray)\n"
            "and DIR/<basename of DIR>.txt. Moving ellipses, rectangles and polygons over textured\n"
            "backgrounds, occluding one another; the same seed gives the same pixels everywhere.\n\n"
            "  --videos N    videos (default 2)          --frames N   frames per video (default 48)\n"
            "  --objects N   objects per video, 1..16 (default 3)\n"
            "  --width W     default 640                 --height H   default 360 (each 16..4096)\n"
            "  --seed S      default 0                   --quality Q  JPEG quality (default 90)\n"
            "  --force       overwrite files in a DIR that already holds a dataset\n\n"
            "exit: 0 written, 2 bad usage or an existing dataset, 3 a write failed.\n");
}

int samrt_cmd_synth(int argc, char **argv) {
    enum { O_OUT = 256, O_VIDEOS, O_FRAMES, O_OBJECTS, O_WIDTH, O_HEIGHT, O_SEED, O_QUALITY, O_GRAY, O_FORCE };
    static const struct option opts[] = {
        {"out", required_argument, 0, O_OUT},         {"videos", required_argument, 0, O_VIDEOS},
        {"frames", required_argument, 0, O_FRAMES},   {"objects", required_argument, 0, O_OBJECTS},
        {"width", required_argument, 0, O_WIDTH},     {"height", required_argument, 0, O_HEIGHT},
        {"seed", required_argument, 0, O_SEED},       {"quality", required_argument, 0, O_QUALITY},
        {"gray_masks", no_argument, 0, O_GRAY},       {"force", no_argument, 0, O_FORCE},
        {"help", no_argument, 0, 'h'},                {0, 0, 0, 0}};
    struct samrt_synth_params p = samrt_synth_default_params();
    const char *out = NULL;
    int force = 0, c;
    long v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'h': synth_usage(stdout); return SAMRT_EXIT_OK;
        case O_OUT: out = optarg; break;
        case O_VIDEOS: bad = samrt_parse_int(optarg, 1, 10000, &v); p.n_videos = (int)v; break;
        case O_FRAMES: bad = samrt_parse_int(optarg, 1, 100000, &v); p.n_frames = (int)v; break;
        case O_OBJECTS: bad = samrt_parse_int(optarg, 1, SAMRT_SYNTH_MAX_OBJECTS, &v); p.n_objects = (int)v; break;
        case O_WIDTH: bad = samrt_parse_int(optarg, 16, SAMRT_SYNTH_MAX_SIDE, &v); p.width = (int)v; break;
        case O_HEIGHT: bad = samrt_parse_int(optarg, 16, SAMRT_SYNTH_MAX_SIDE, &v); p.height = (int)v; break;
        case O_SEED: bad = samrt_parse_int(optarg, 0, 0x7fffffffL, &v); p.seed = (uint64_t)v; break;
        case O_QUALITY: bad = samrt_parse_int(optarg, 1, 100, &v); p.quality = (int)v; break;
        case O_GRAY: p.gray_masks = 1; break;
        case O_FORCE: force = 1; break;
        default: synth_usage(stderr); return SAMRT_EXIT_USAGE;
        }
        if (bad) {
            fprintf(stderr, "samrt synth: bad value '%s' for --%s\n", optarg, opts[c - O_OUT].name);
            return SAMRT_EXIT_USAGE;
        }
    }
    if (optind < argc || !out) {
        fprintf(stderr, "samrt synth: %s\n\n", out ? "unexpected argument" : "--out DIR is required");
        synth_usage(stderr);
        return SAMRT_EXIT_USAGE;
    }
    enum samrt_status st = samrt_synth_write(out, &p, force);
    if (st != SAMRT_OK) {
        fprintf(stderr, "samrt synth: %s\n", samrt_status_str(st));
        return st == SAMRT_E_IO ? SAMRT_EXIT_RUNTIME : samrt_exit_code(st);
    }
    printf("wrote %d videos x %d frames (%dx%d, %d objects, masks every %d frames, seed %llu) to %s\n", p.n_videos,
           p.n_frames, p.width, p.height, p.n_objects, p.ann_step, (unsigned long long)p.seed, out);
    return SAMRT_EXIT_OK;
}
