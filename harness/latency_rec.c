/* latency_rec.c - the per-frame latency recorder of the bench (latency_rec.h): arrays
 * allocated once at init, so recording a frame never allocates in the timed loop; the
 * summaries go into a profile row. Tested by tests/test_profile.c. */
#include "latency_rec.h"

#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "samrt_impl.h"
#include "stats.h"

/* ---- latency recorder ------------------------------------------------------------------ */

enum samrt_status samrt_latency_rec_init(struct samrt_latency_rec *rec, size_t cap) {
    SAMRT_CHECK(rec && cap > 0, SAMRT_E_INVALID_ARG, "latency recorder: capacity must be > 0");
    memset(rec, 0, sizeof *rec);
    rec->ms = malloc(cap * sizeof *rec->ms);
    rec->sorted = malloc(cap * sizeof *rec->sorted);
    if (!rec->ms || !rec->sorted) {
        samrt_latency_rec_free(rec);
        return SAMRT_E_HOST_MEMORY;
    }
    rec->cap = cap;
    return SAMRT_OK;
}

void samrt_latency_rec_free(struct samrt_latency_rec *rec) {
    if (!rec) return;
    free(rec->ms);
    free(rec->sorted);
    memset(rec, 0, sizeof *rec);
}

void samrt_latency_rec_reset(struct samrt_latency_rec *rec) {
    if (!rec) return;
    rec->n = 0;
    rec->n_dropped = 0;
}

enum samrt_status samrt_latency_rec_add(struct samrt_latency_rec *rec, double ms) {
    if (rec->n >= rec->cap) {
        rec->n_dropped++;
        return SAMRT_E_INVALID_ARG;
    }
    rec->ms[rec->n++] = ms;
    return SAMRT_OK;
}

enum samrt_status samrt_latency_rec_summary(struct samrt_latency_rec *rec,
                                            struct samrt_latency_summary *out) {
    if (!rec || !out || rec->n == 0) return SAMRT_E_INVALID_ARG;
    memcpy(rec->sorted, rec->ms, rec->n * sizeof *rec->ms);
    struct samrt_stats s;
    SAMRT_TRY(samrt_stats_compute(rec->sorted, rec->n, &s));
    out->n = rec->n;
    out->mean = s.mean;
    out->p50 = s.median;
    out->p95 = s.p95;
    out->p99 = samrt_percentile_sorted(rec->sorted, rec->n, 99.0);
    out->max = s.max;
    return SAMRT_OK;
}

void samrt_latency_rec_fill_row(struct samrt_latency_rec *rec, struct samrt_profile_row *row) {
    if (!row) return;
    struct samrt_latency_summary s;
    if (!rec || samrt_latency_rec_summary(rec, &s) != SAMRT_OK) {
        row->latency_ms = row->latency_p50_ms = row->latency_p95_ms = row->latency_p99_ms =
            SAMRT_PROFILE_ABSENT;
        return;
    }
    row->latency_ms = s.mean;
    row->latency_p50_ms = s.p50;
    row->latency_p95_ms = s.p95;
    row->latency_p99_ms = s.p99;
}

void samrt_latency_rec_fill_nearest(struct samrt_latency_rec *rec, struct samrt_profile_row *row) {
    if (!row) return;
    row->ms_per_frame_p50 = row->ms_per_frame_p95 = row->ms_per_frame_p99 = SAMRT_PROFILE_ABSENT;
    if (!rec || !rec->n) return;
    memcpy(rec->sorted, rec->ms, rec->n * sizeof *rec->ms);
    samrt_sort_doubles(rec->sorted, rec->n);
    row->ms_per_frame_p50 = samrt_percentile_nearest_sorted(rec->sorted, rec->n, 50.0);
    row->ms_per_frame_p95 = samrt_percentile_nearest_sorted(rec->sorted, rec->n, 95.0);
    row->ms_per_frame_p99 = samrt_percentile_nearest_sorted(rec->sorted, rec->n, 99.0);
}
