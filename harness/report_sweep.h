/* report_sweep.h - the throughput-vs-latency chart of a sweep (`samrt bench --objects`,
 * `--streams`) for `samrt report`: it reads the sweep rows of a profile CSV (rows with an
 * `objects` value) and draws them with samrt_html_xy_chart (report_html.h).
 *
 * One point per configuration (model, platform, objects N, streams K) at the medians over its
 * rows (several videos): x object-frames per second (aggregate_object_frames_per_s, all K
 * streams together, when the file has a stream count above 1; object_frames_per_s otherwise),
 * y ms_per_frame_p50 with a whisker up to ms_per_frame_p95. A file without streams (or with
 * streams 1 only) gives exactly the object sweep's chart: one line per (model, platform), one
 * point per N labelled "N". With streams, one line per (model, platform, K) labelled "Nobj"
 * on its points, or, where a (model, platform) has a single N, one line across its K labelled
 * "Kx". docs/profiling.md ("HTML report") describes it.
 *
 *   struct samrt_csv t;  samrt_csv_read_table("profile_summary.csv", &t, err, sizeof err);
 *   samrt_report_sweep_chart(f, &t);    // nothing when t has no sweep row
 */
#ifndef SAMRT_HARNESS_REPORT_SWEEP_H
#define SAMRT_HARNESS_REPORT_SWEEP_H

#include <stdio.h>

#include "csv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the chart (one <figure>) of the sweep rows of t, whose row 0 is the header; nothing
 * when no row has an `objects` value. Series follow the first appearance of each (model,
 * platform) among all rows. Returns 0, or -1 when out of memory (nothing written). */
int samrt_report_sweep_chart(FILE *f, const struct samrt_csv *t);

struct samrt_profile_col;  /* profile.h */
/* The sweep's columns of the profile table (config ... total_arena_bytes), in CSV order; *n
 * their count, *n_required how many come before the streams group (streams ...
 * total_arena_bytes), which files written before `--streams` lack. Either pointer may be NULL. */
const struct samrt_profile_col *samrt_report_sweep_columns(size_t *n, size_t *n_required);
/* The check of a sweep CSV's header for `samrt merge` (all = 1), `compare` and `report`
 * (all = 0): the name of the first sweep column t lacks, NULL when none is missing. A file
 * with no sweep column in its header is not a sweep file (NULL). all = 1: every sweep column
 * (the streams group all or none); all = 0: the columns the sweep is read by (objects,
 * ms_per_frame_p50, ms_per_frame_p95, object_frames_per_s), when some row has an `objects`
 * value. */
const char *samrt_report_sweep_missing(const struct samrt_csv *t, int all);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_REPORT_SWEEP_H */
