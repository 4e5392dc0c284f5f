/* bench_util.h - what the hand-run benchmarks of tests/ (bench_prompted_frame.c,
 * bench_frame_projection.c) share: a wall clock in ms and nearest-rank percentiles. */
#ifndef SAMRT_TESTS_BENCH_UTIL_H
#define SAMRT_TESTS_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static inline int bench_cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the n values, then their nearest-rank percentile p (0..100). */
static inline double bench_pct(double *v, int n, double p) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    const int i = (int)(p / 100.0 * n + 0.999999) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

#endif /* SAMRT_TESTS_BENCH_UTIL_H */
