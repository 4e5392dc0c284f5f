/* cli_util.c - the option parsers several subcommands share and the program's clock (cli.h);
 * the exit codes and number parsers are harness/util.c's. */
#include "cli.h"

#include <string.h>
#include <time.h>

int samrt_cli_parse_postproc(const char *s, enum samrt_postproc *out) {
    if (s && !strcmp(s, "vos_inference")) *out = SAMRT_POSTPROC_VOS_INFERENCE;
    else if (s && !strcmp(s, "notebook")) *out = SAMRT_POSTPROC_NOTEBOOK;
    else return -1;
    return 0;
}

uint64_t samrt_cli_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
