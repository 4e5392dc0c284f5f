/* cli_util.c - exit-code mapping and strict number parsing shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int samrt_cli_exit_code(enum samrt_status st) {
    switch (st) {
    case SAMRT_OK: return SAMRT_EXIT_OK;
    case SAMRT_E_INVALID_ARG:
    case SAMRT_E_FORMAT:
    case SAMRT_E_FORBIDDEN:
    case SAMRT_E_KEYS:
    case SAMRT_E_MODEL_MISMATCH:
    case SAMRT_E_IO: return SAMRT_EXIT_USAGE;
    case SAMRT_E_UNSUPPORTED:
    case SAMRT_E_NOT_IMPLEMENTED:
    case SAMRT_E_NO_DEVICE: return SAMRT_EXIT_UNAVAILABLE;
    default: return SAMRT_EXIT_RUNTIME;
    }
}

int samrt_cli_parse_int(const char *s, long lo, long hi, long *out) {
    if (!s || !*s) return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int samrt_cli_parse_double(const char *s, double *out) {
    if (!s || !*s) return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

int samrt_cli_use_color(int fd) { return isatty(fd) && !getenv("NO_COLOR"); }
