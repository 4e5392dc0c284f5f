/* cmd_info.c - `samrt info CKPT`: what a checkpoint holds, read with no Python. Prints the
 * format, every tensor (dtype, shape, name; --summary prints counts only), the value and
 * parameter counts, and the model the keys identify; warns per tensor holding NaN/Inf.
 * With --model NAME the keys must match that model exactly (exit 2 otherwise, with the
 * missing, unexpected and mis-shaped keys listed). The report is the harness's
 * (ckpt_report.h); this file parses the arguments. Example:
 *   samrt info sam2.1_hiera_tiny.pt --model sam2.1_tiny --summary */
#include <getopt.h>
#include <stdio.h>

#include "ckpt_report.h"
#include "cli.h"

static void usage(FILE *f) {
    fprintf(f, "usage: samrt info CKPT [--model NAME] [--summary | --all]\n\n"
               "Lists what a checkpoint (torch.save zip or safetensors) holds: format, tensors (dtype,\n"
               "shape, name), value and parameter counts, and the model its keys identify.\n"
               "Warns about tensors holding NaN or Inf (the checkpoint still loads).\n\n"
               "  --model NAME  require the keys of this model: sam2.1_tiny, sam2.1_small,\n"
               "                sam2.1_base_plus, sam2.1_large, edgetam, sam2_tiny, sam2_small,\n"
               "                sam2_base_plus, sam2_large\n"
               "  --summary     counts only, no per-tensor lines\n"
               "  --all         list every tensor (the default)\n"
               "exit: 0 read (and matched --model), 2 unreadable, refused, or not the --model given\n");
}

int samrt_cmd_info(int argc, char **argv) {
    static const struct option opts[] = {{"model", required_argument, 0, 'm'}, {"summary", no_argument, 0, 's'},
                                         {"all", no_argument, 0, 'a'},        {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    enum samrt_model_id want = SAMRT_MODEL_UNKNOWN;
    int summary = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "m:sah", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (samrt_model_parse(optarg, &want) != SAMRT_OK) {
                fprintf(stderr, "samrt info: unknown model '%s'\n\n", optarg);
                usage(stderr);
                return SAMRT_EXIT_USAGE;
            }
            break;
        case 's': summary = 1; break;
        case 'a': summary = 0; break;
        case 'h': usage(stdout); return SAMRT_EXIT_OK;
        default: usage(stderr); return SAMRT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return SAMRT_EXIT_USAGE;
    }
    return samrt_exit_code(samrt_ckpt_report(stdout, argv[optind], want, summary));
}
