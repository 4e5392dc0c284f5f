/* latency_rec.h - the bench's per-frame latency recorder (latency_rec.c): up to cap
 * latencies in arrays allocated once at init (add() never allocates, so it can sit in the
 * timed loop), summarised as mean / p50 / p95 / p99 / max and written into a profile row
 * (profile.h). */
#ifndef SAMRT_HARNESS_LATENCY_REC_H
#define SAMRT_HARNESS_LATENCY_REC_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_profile_row;

/* Holds up to cap latencies in arrays allocated once at init; add() never allocates. */
struct samrt_latency_rec {
    double *ms;        /* (cap) in arrival order */
    double *sorted;    /* (cap) scratch for percentiles */
    size_t n, cap;
    uint64_t n_dropped;  /* adds beyond cap */
};
struct samrt_latency_summary {
    size_t n;
    double mean, p50, p95, p99, max;
};
enum samrt_status samrt_latency_rec_init(struct samrt_latency_rec *rec, size_t cap);
void samrt_latency_rec_free(struct samrt_latency_rec *rec);
void samrt_latency_rec_reset(struct samrt_latency_rec *rec);
/* Records one latency. When full the value is dropped and counted, and
 * SAMRT_E_INVALID_ARG is returned. */
enum samrt_status samrt_latency_rec_add(struct samrt_latency_rec *rec, double ms);
/* SAMRT_E_INVALID_ARG when nothing was recorded. */
enum samrt_status samrt_latency_rec_summary(struct samrt_latency_rec *rec,
                                            struct samrt_latency_summary *out);
/* Sets latency_ms (the mean) and latency_p50/p95/p99_ms; leaves them absent when empty. */
void samrt_latency_rec_fill_row(struct samrt_latency_rec *rec, struct samrt_profile_row *row);
/* Sets ms_per_frame_p50/p95/p99 (nearest rank); leaves them absent when empty. */
void samrt_latency_rec_fill_nearest(struct samrt_latency_rec *rec, struct samrt_profile_row *row);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_LATENCY_REC_H */
