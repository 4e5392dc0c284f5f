/* stats.c - the statistics of profile_stats.json, `samrt compare`, `samrt report` and
 * `samrt track --timing` (stats.h): numpy's defaults (population std, linear-interpolation
 * percentiles), so the numbers match the Python tools'. Tested by tests/test_profile.c. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include "samrt_impl.h"

/* ---- statistics ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void samrt_sort_doubles(double *v, size_t n) {
    if (v && n > 1) qsort(v, n, sizeof *v, cmp_double);
}

double samrt_percentile_nearest_sorted(const double *sorted, size_t n, double p) {
    if (!sorted || n == 0) return (double)NAN;  /* absent */
    const double rank = SAMRT_MIN(SAMRT_MAX(p, 0.0), 100.0) / 100.0 * (double)(n - 1);
    return sorted[SAMRT_MIN((size_t)(rank + 0.5), n - 1)];
}

double samrt_percentile_sorted(const double *sorted, size_t n, double p) {
    if (!sorted || n == 0) return (double)NAN;  /* absent */
    if (p <= 0) return sorted[0];
    if (p >= 100) return sorted[n - 1];
    double rank = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)rank;
    if (lo + 1 >= n) return sorted[n - 1];
    double t = rank - (double)lo, a = sorted[lo], b = sorted[lo + 1], d = b - a;
    /* numpy's _lerp: interpolate from the nearer end, so t = 1 gives b exactly */
    return t < 0.5 ? a + d * t : b - d * (1.0 - t);
}

enum samrt_status samrt_stats_compute(double *v, size_t n, struct samrt_stats *out) {
    if (!v || !out || n == 0) return SAMRT_E_INVALID_ARG;
    samrt_sort_doubles(v, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++) ss += (v[i] - mean) * (v[i] - mean);
    out->n = n;
    out->mean = mean;
    out->std = sqrt(ss / (double)n);  /* population, ddof = 0 (numpy.std's default) */
    out->min = v[0];
    out->max = v[n - 1];
    /* numpy.median: the middle value, or the mean of the two middle values */
    out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
    out->p95 = samrt_percentile_sorted(v, n, 95.0);
    return SAMRT_OK;
}
