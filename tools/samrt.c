/* samrt.c - the samrt command-line program: one binary, one subcommand per file
 * (cmd_<name>.c). `samrt <command> --help` describes each; exit codes are in cli.h and
 * docs/errors.md. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct command {
    const char *name;
    samrt_cmd_fn fn;
    const char *summary;
};

static const struct command g_commands[] = {
    {"demo", samrt_cmd_demo, "the main job on a real clip: track, overlays, bench, report (no setup)"},
    {"budget", samrt_cmd_budget, "exact arena plan of a model on a platform profile (no GPU needed)"},
    {"check", samrt_cmd_check, "report CUDA, cuDNN, cuBLASLt, libjpeg, libpng, FFmpeg and nsys, with hints"},
    {"merge", samrt_cmd_merge, "join profile_summary.csv files from several machines or shards"},
    {"compare", samrt_cmd_compare, "flag regressions between a baseline and a latest profile CSV"},
    {"report", samrt_cmd_report, "write a self-contained HTML report (SVG charts) from a profile CSV"},
    {"info", samrt_cmd_info, "list a checkpoint's tensors, parameter count and model (no Python)"},
    {"synth", samrt_cmd_synth, "write a small synthetic dataset in the SA-V val/test layout"},
    {"eval", samrt_cmd_eval, "J, F and J&F of predicted masks, as SAM 2's sav_evaluator.py"},
    {"segment", samrt_cmd_segment, "segment objects on one image or video frame from clicks / boxes"},
    {"bench", samrt_cmd_bench, "track SA-V videos or a video file and write the profiling CSV/JSON, masks, J&F"},
    {"track", samrt_cmd_track, "track objects through JPEG frames, a video file or a camera"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: samrt <command> [options]   (samrt <command> --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof g_commands / sizeof g_commands[0]; i++)
        fprintf(f, "  %-10s %s\n", g_commands[i].name, g_commands[i].summary);
    fprintf(f, "\nexit codes: 0 ok, 1 a problem was found, 2 bad usage or input, 3 runtime failure,\n"
               "            4 not available in this build or on this machine\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return SAMRT_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return SAMRT_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("samrt %d.%d.%d\n", SAMRT_VERSION_MAJOR, SAMRT_VERSION_MINOR, SAMRT_VERSION_PATCH);
        return SAMRT_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof g_commands / sizeof g_commands[0]; i++)
        if (!strcmp(argv[1], g_commands[i].name)) return g_commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "samrt: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return SAMRT_EXIT_USAGE;
}
