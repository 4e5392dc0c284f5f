/* track_out.h - a tracked frame's results for the caller (track_out.c). */
#ifndef SAMRT_SAM2_TRACK_OUT_H
#define SAMRT_SAM2_TRACK_OUT_H

#include "track_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The results of the frame just run (masks, areas, boxes, scores of every started
 * object, in the order they were added) into results[0 .. max_results), *n_results of them;
 * decodes on the host unless the step decoded on the device. */
enum samrt_status samrt_sam2_track_outputs(struct samrt_sam2 *m, struct samrt_track_result *results, int max_results,
                                           int *n_results);
/* Per pixel, object k keeps logit > 0 only where it has the highest logit of the n objects
 * (first on ties), as _apply_non_overlapping_constraints then `> 0`: masks[k] = 1 there.
 * logits (n, n_pix) f32; masks (n, n_pix). */
void samrt_sam2_track_non_overlap_host(const float *logits, int n, int64_t n_pix, uint8_t *const *masks);


#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_OUT_H */
