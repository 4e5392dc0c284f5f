/* util.h - small helpers shared by the harness and the samrt program: the program's exit
 * codes and the status -> exit code mapping (the bench returns exit codes itself), strict
 * whole-number parsing for options, and the two folder helpers (mkdir -p, "is a folder")
 * that the SA-V reader, synth, eval, the bench and the subcommands all need. One copy each,
 * here, because the harness sits below the program and cannot include tools/.
 *
 * Exit codes (docs/errors.md):
 *   0 success, 1 a check or comparison found a problem, 2 bad usage or bad input,
 *   3 runtime failure (CUDA, memory, I/O while running), 4 not available in this build. */
#ifndef SAMRT_HARNESS_UTIL_H
#define SAMRT_HARNESS_UTIL_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_EXIT_OK 0
#define SAMRT_EXIT_PROBLEM 1
#define SAMRT_EXIT_USAGE 2
#define SAMRT_EXIT_RUNTIME 3
#define SAMRT_EXIT_UNAVAILABLE 4

/* Maps a library status to the exit code above. */
int samrt_exit_code(enum samrt_status st);
/* Parses a whole int in [lo, hi] / a whole double; returns 0 on success, -1 otherwise. */
int samrt_parse_int(const char *s, long lo, long hi, long *out);
int samrt_parse_double(const char *s, double *out);

/* mkdir -p: creates every missing component (mode 0777 less the umask). SAMRT_E_IO, logged,
 * when a component cannot be created or the path ends up not being a folder. */
enum samrt_status samrt_mkdirs(const char *path);
/* 1 when path exists and is a folder (links followed). */
int samrt_is_dir(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_UTIL_H */
