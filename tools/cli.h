/* cli.h - shared pieces of the samrt command-line program: the subcommand signature, exit
 * codes, and small option parsers. Exit codes (docs/errors.md):
 *   0 success, 1 a check or comparison found a problem, 2 bad usage or bad input,
 *   3 runtime failure (CUDA, memory, I/O while running), 4 not available in this build. */
#ifndef SAMRT_CLI_H
#define SAMRT_CLI_H

#include "samrt.h"

#define SAMRT_EXIT_OK 0
#define SAMRT_EXIT_PROBLEM 1
#define SAMRT_EXIT_USAGE 2
#define SAMRT_EXIT_RUNTIME 3
#define SAMRT_EXIT_UNAVAILABLE 4

/* argv[0] is the subcommand name. */
typedef int (*samrt_cmd_fn)(int argc, char **argv);

/* Maps a library status to the exit code above. */
int samrt_cli_exit_code(enum samrt_status st);
/* Parses a whole int / double; returns 0 on success. */
int samrt_cli_parse_int(const char *s, long lo, long hi, long *out);
int samrt_cli_parse_double(const char *s, double *out);
/* 1 when stdout/stderr is a terminal and NO_COLOR is unset. */
int samrt_cli_use_color(int fd);

int samrt_cmd_check(int argc, char **argv);
int samrt_cmd_demo(int argc, char **argv);
int samrt_cmd_budget(int argc, char **argv);
int samrt_cmd_merge(int argc, char **argv);
int samrt_cmd_compare(int argc, char **argv);
int samrt_cmd_report(int argc, char **argv);
int samrt_cmd_info(int argc, char **argv);
int samrt_cmd_synth(int argc, char **argv);
int samrt_cmd_eval(int argc, char **argv);
int samrt_cmd_segment(int argc, char **argv);
int samrt_cmd_bench(int argc, char **argv);
int samrt_cmd_track(int argc, char **argv);

#endif /* SAMRT_CLI_H */
