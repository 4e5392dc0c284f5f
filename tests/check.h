/* check.h - the whole test framework: CHECK macros that count failures, a tolerance
 * comparator after llm.c's validate_result, and the skip convention.
 *
 * A test executable returns 0 when every check passed, 1 when any failed, and 77
 * (SAMRT_TEST_SKIP, registered as SKIP_RETURN_CODE) when it cannot run here, e.g. a GPU
 * test on a machine without a GPU; it prints why. A skip is never a pass. */
#ifndef SAMRT_TEST_CHECK_H
#define SAMRT_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SAMRT_TEST_SKIP 77

static int g_check_failures = 0;
static int g_check_count = 0;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        g_check_count++;                                                                   \
        if (!(cond)) {                                                                     \
            g_check_failures++;                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                                  \
    } while (0)

#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        g_check_count++;                                                                   \
        if (!(cond)) {                                                                     \
            g_check_failures++;                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                 \
    CHECK_MSG((long long)(a) == (long long)(b), "%lld != %lld", (long long)(a), (long long)(b))

#define CHECK_STATUS(expr, want)                                                           \
    do {                                                                                   \
        int check_st_ = (int)(expr);                                                       \
        CHECK_MSG(check_st_ == (int)(want), "%s returned %d, want %d", #expr, check_st_,   \
                  (int)(want));                                                            \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                              \
    CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol), "%.9g vs %.9g (tol %.3g)",         \
              (double)(a), (double)(b), (double)(tol))

/* Element i passes when |ref - out| <= atol + rtol*|ref|. Prints the first mismatches, the
 * worst error and where; returns the number of mismatches (NaN never passes). */
static inline int check_close_f32(const char *what, const float *out, const float *ref, long n,
                                  double atol, double rtol) {
    int bad = 0;
    double worst = 0;
    long worst_i = -1;
    for (long i = 0; i < n; i++) {
        double d = fabs((double)out[i] - (double)ref[i]);
        double lim = atol + rtol * fabs((double)ref[i]);
        if (!(d <= lim)) {
            if (bad < 10)
                fprintf(stderr, "  %s[%ld]: got %.9g want %.9g (|d| %.3g > %.3g)\n", what, i,
                        (double)out[i], (double)ref[i], d, lim);
            bad++;
        }
        if (d > worst || d != d) { worst = d; worst_i = i; }
    }
    g_check_count++;
    if (bad) {
        g_check_failures++;
        fprintf(stderr, "%s: %d of %ld elements out of tolerance; worst |d| %.3g at %ld\n", what,
                bad, n, worst, worst_i);
    }
    if (getenv("SAMRT_TEST_ERRORS")) {  /* one line per comparison, for error tables */
        double max_ref = 0;
        for (long i = 0; i < n; i++)
            if (fabs((double)ref[i]) > max_ref) max_ref = fabs((double)ref[i]);
        printf("ERR %s | n %ld | max_abs %.3g | max_abs/max|ref| %.3g\n", what, n, worst,
               max_ref > 0 ? worst / max_ref : worst);
    }
    return bad;
}

static inline int check_report(const char *name) {
    if (g_check_failures) {
        fprintf(stderr, "%s: %d of %d checks FAILED\n", name, g_check_failures, g_check_count);
        return 1;
    }
    printf("%s: all %d checks passed\n", name, g_check_count);
    return 0;
}

static inline int check_skip(const char *name, const char *why) {
    printf("%s: SKIPPED: %s\n", name, why);
    return SAMRT_TEST_SKIP;
}

#endif /* SAMRT_TEST_CHECK_H */
