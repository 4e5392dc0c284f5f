/* cli.h - shared pieces of the samrt command-line program: the subcommand signature, the
 * subcommands, the option parsers more than one subcommand uses and the clock (cli_util.c).
 * The program sees samrt.h, runtime/samrt_internal.h and the harness, nothing else. The exit
 * codes, the status -> exit code mapping and the number parsers live in harness/util.h,
 * because the bench (harness/bench.c) returns exit codes too (docs/errors.md). */
#ifndef SAMRT_CLI_H
#define SAMRT_CLI_H

#include "samrt.h"
#include "util.h"

/* argv[0] is the subcommand name. */
typedef int (*samrt_cmd_fn)(int argc, char **argv);

/* "vos_inference" or "notebook" (the post-processing of the official scripts); 0 on success,
 * -1 for anything else. */
int samrt_cli_parse_postproc(const char *s, enum samrt_postproc *out);

/* The monotonic clock in ns (CLOCK_MONOTONIC), for the wall times the subcommands print. */
uint64_t samrt_cli_now_ns(void);

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
