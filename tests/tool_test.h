/* tool_test.h - helpers for the tests of the samrt subcommands (merge, compare, report):
 * a scratch directory under the test's working directory, whole-file read/write, and
 * TT_RUN, which calls a subcommand's entry point in-process with its stdout and stderr sent
 * to a file, so a test can check both the exit code and the message. Header-only. */
#ifndef SAMRT_TEST_TOOL_TEST_H
#define SAMRT_TEST_TOOL_TEST_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"

/* Writes text to path; 0 on success. */
static inline int tt_write(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n;
    return fclose(f) != 0 || bad ? -1 : 0;
}

/* The whole file, NUL-terminated (malloc'd), or NULL when it cannot be read. */
static inline char *tt_read(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *p = realloc(buf, cap *= 2);
            if (!p) { free(buf); buf = NULL; }
            else buf = p;
        }
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

static inline int tt_count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; hay && (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* A fresh directory "<name>_XXXXXX" in the working directory; path receives its name. */
static inline int tt_tmpdir(char *path, size_t len, const char *name) {
    snprintf(path, len, "%s_XXXXXX", name);
    return mkdtemp(path) ? 0 : -1;
}

static inline int tt_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}
static inline void tt_rmtree(const char *path) { nftw(path, tt_rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* Runs fn(argc, argv) with stdout and stderr going to capture; returns its exit code. */
static inline int tt_run(samrt_cmd_fn fn, const char *capture, int argc, char **argv) {
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2);
    int fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || out < 0 || err < 0) return -1;
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    int rc = fn(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    return rc;
}

/* ---- one scratch directory per test executable ---------------------------------------- */

static char tt_dir[64];

/* "<scratch>/<rel>" in one of 8 rotating buffers: copy it if it must outlive 7 more calls. */
static inline const char *tt_path(const char *rel) {
    static char buf[8][512];
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tt_dir, rel);
    return buf[k];
}

/* Creates the scratch directory "<name>_XXXXXX"; 0 on success. */
static inline int tt_begin(const char *name) {
    if (tt_tmpdir(tt_dir, sizeof tt_dir, name) == 0) return 0;
    fprintf(stderr, "%s: cannot create a scratch directory\n", name);
    return -1;
}

/* Reports the checks; removes the scratch directory when all passed (kept on failure). */
static inline int tt_end(const char *name) {
    int rc = check_report(name);
    if (!rc) tt_rmtree(tt_dir);
    return rc;
}

/* TT_RUN(capture, fn, "merge", "a.csv", "-o", "m.csv") */
#define TT_RUN(capture, fn, ...)                                                              \
    tt_run(fn, capture, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)),  \
           (char **)(const char *[]){__VA_ARGS__, NULL})

#endif /* SAMRT_TEST_TOOL_TEST_H */
