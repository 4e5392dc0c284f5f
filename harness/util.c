/* util.c - exit codes, strict number parsing and the folder helpers shared by the harness
 * and the samrt program (see util.h). */
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int samrt_exit_code(enum samrt_status st) {
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

int samrt_parse_int(const char *s, long lo, long hi, long *out) {
    if (!s || !*s) return -1;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int samrt_parse_double(const char *s, double *out) {
    if (!s || !*s) return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

int samrt_is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

enum samrt_status samrt_mkdirs(const char *path) {
    char buf[4096];
    const size_t n = path ? strlen(path) : 0;
    SAMRT_CHECK(n > 0 && n < sizeof buf, SAMRT_E_INVALID_ARG, "bad path '%s'", path ? path : "");
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {  /* each component, then the whole path */
        const char keep = buf[i];
        if (keep != '/' && keep != 0) continue;
        buf[i] = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            SAMRT_LOG_ERROR("cannot create %s: %s", buf, strerror(errno));
            return SAMRT_E_IO;
        }
        buf[i] = keep;
    }
    SAMRT_CHECK(samrt_is_dir(path), SAMRT_E_IO, "%s exists and is not a folder", path);
    return SAMRT_OK;
}
