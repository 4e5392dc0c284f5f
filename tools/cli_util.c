/* cli_util.c - the option parsers several subcommands share (cli.h); the exit codes and
 * number parsers are harness/util.c's. */
#include "cli.h"

#include <string.h>

int samrt_cli_parse_postproc(const char *s, enum samrt_postproc *out) {
    if (s && !strcmp(s, "vos_inference")) *out = SAMRT_POSTPROC_VOS_INFERENCE;
    else if (s && !strcmp(s, "notebook")) *out = SAMRT_POSTPROC_NOTEBOOK;
    else return -1;
    return 0;
}
