/* log.c - the log sink. Default: stderr with a level prefix, INFO and more severe.
 * Embedders replace it with samrt_log_set (TFLM's DebugLog / ggml's log callback). */
#include "samrt_impl.h"

#include <stdio.h>

static samrt_log_fn g_log_fn = NULL;
static void *g_log_user = NULL;
static enum samrt_log_level g_log_max = SAMRT_LOG_INFO;

void samrt_log_set(samrt_log_fn fn, void *user, enum samrt_log_level max_level) {
    g_log_fn = fn;
    g_log_user = user;
    g_log_max = max_level;
}

void samrt_logv(enum samrt_log_level level, const char *fmt, va_list ap) {
    if (level > g_log_max) return;
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (g_log_fn) {
        g_log_fn(level, buf, g_log_user);
        return;
    }
    static const char *const prefix[] = {"error", "warning", "info", "debug"};
    fprintf(stderr, "samrt: %s: %s\n", prefix[level], buf);
}

void samrt_log(enum samrt_log_level level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    samrt_logv(level, fmt, ap);
    va_end(ap);
}
