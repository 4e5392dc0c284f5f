/* atomic_file.h - every file the harness writes appears whole or not at all: it is written to
 * "<path>.tmp.<pid>" beside the target (same directory, so rename() is atomic), flushed and
 * fsynced, and only then renamed over the target. A failed write removes the temporary file
 * and leaves any previous target untouched. Profile CSV / JSON / config files, images, random
 * checkpoints and overlay videos all go through it (atomic_file.c).
 *
 *   struct samrt_atomic_file af;
 *   SAMRT_TRY(samrt_atomic_open(&af, "out.csv"));
 *   fprintf(af.f, ...);                          // or hand af.tmp to a library that opens it
 *   return samrt_atomic_commit(&af);             // or samrt_atomic_abort(&af) on an error
 */
#ifndef SAMRT_HARNESS_ATOMIC_FILE_H
#define SAMRT_HARNESS_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_atomic_file {
    FILE *f;          /* write here */
    char path[4096];  /* the target */
    char tmp[4200];   /* "<path>.tmp.<pid>", same directory so rename() is atomic */
};

/* Creates (truncates) the temporary file beside path and opens af->f on it. Errors name the
 * file: SAMRT_E_INVALID_ARG for a NULL, empty or too long path, SAMRT_E_IO when it cannot be
 * created. */
enum samrt_status samrt_atomic_open(struct samrt_atomic_file *af, const char *path);
/* Flushes, fsyncs and renames over the target; on any error (including an earlier write
 * error on af->f) removes the temporary file, leaves the target untouched and returns
 * SAMRT_E_IO. af->f is closed either way. Data written to af->tmp through another descriptor
 * (a library that opens the file by name) is synced with it: fsync works on the file. */
enum samrt_status samrt_atomic_commit(struct samrt_atomic_file *af);
/* Closes and removes the temporary file; the target is untouched. NULL or an af already
 * committed or aborted is fine. */
void samrt_atomic_abort(struct samrt_atomic_file *af);
/* The whole of size bytes as the file path, through the three calls above. */
enum samrt_status samrt_atomic_write(const char *path, const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_ATOMIC_FILE_H */
