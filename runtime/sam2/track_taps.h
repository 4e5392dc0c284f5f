/* track_taps.h - the tracker's parity taps of a frame (track_taps.c). */
#ifndef SAMRT_SAM2_TRACK_TAPS_H
#define SAMRT_SAM2_TRACK_TAPS_H

#include "track_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every started object's taps of frame f (after the push's work); tracked: no
 * object was prompted on it. */
enum samrt_status samrt_sam2_track_frame_taps(struct samrt_sam2 *m, int f, int tracked);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_TAPS_H */
