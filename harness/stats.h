/* stats.h - the statistics of the profiling tools (stats.c): sorting, percentiles by linear
 * interpolation (numpy.percentile's default) and by nearest rank, and n / mean / std / min /
 * max / median / p95 of a set of values. profile_stats.json, `samrt compare`, `samrt report`,
 * the sweep report and `samrt track --timing` all compute with these. */
#ifndef SAMRT_HARNESS_STATS_H
#define SAMRT_HARNESS_STATS_H

#include <stddef.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_stats {
    size_t n;
    double mean, std, min, max, median, p95;
};
/* Sorts v ascending in place. */
void samrt_sort_doubles(double *v, size_t n);
/* Percentile p in [0, 100] of sorted values by linear interpolation between closest ranks
 * (numpy.percentile's default): rank = p/100 * (n-1). NaN when n == 0. */
double samrt_percentile_sorted(const double *sorted, size_t n, double p);
/* Percentile p in [0, 100] of sorted values by nearest rank: the value at index
 * round(p/100 * (n-1)), halves rounded up (what `samrt track --timing` prints). NaN when
 * n == 0. */
double samrt_percentile_nearest_sorted(const double *sorted, size_t n, double p);
/* Statistics of n present values; sorts v in place. SAMRT_E_INVALID_ARG when n == 0. */
enum samrt_status samrt_stats_compute(double *v, size_t n, struct samrt_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_STATS_H */
