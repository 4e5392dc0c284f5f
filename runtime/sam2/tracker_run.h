/* tracker_run.h - the model work of one tracked frame (tracker_run.c): the tracking passes'
 * plan, prepare and free, and the frame step the tracker's push runs. */
#ifndef SAMRT_SAM2_TRACKER_RUN_H
#define SAMRT_SAM2_TRACKER_RUN_H

#include "samrt_internal.h"
#include "track_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tracker_run.c: plans the tracking passes / resolves them, and runs the frame's model work for
 * the objects: prompted[] (n_prompted, point / box prompts pending, which the segmentation
 * heads run on inside the frame) and every other started object (tracked). img: the frame (the
 * step preprocesses and encodes it; img_on_device: it is in this GPU engine's memory). Leaves the frame's scores in score_host and either
 * (dev_decoded: CUDA engines without a tap observer or a forced host decode) the frame-size
 * masks and stats of the t->n_obj objects in masks_host / stats_host, or the low-res logits in
 * low_host, rows by object, for the caller's host decode; the device-time stages in m->times
 * (the engine's stage clock; the caller adds its host post-processing). CUDA engines replay one
 * graph per frame key unless samrt_sam2_segment_configure turned graphs off (then every frame
 * runs eagerly). */
enum samrt_status samrt_sam2_tracker_plan_passes(struct samrt_engine *e, struct samrt_sam2 *m);
enum samrt_status samrt_sam2_tracker_prepare_passes(struct samrt_engine *e, struct samrt_sam2 *m,
                                                    const struct samrt_ckpt *ck);
void samrt_sam2_tracker_free_passes(struct samrt_sam2_tracker *t);
/* track_cost.c: the family's frame_cost and track_graph_nodes (samrt_internal.h). */
enum samrt_status samrt_sam2_frame_cost(struct samrt_engine *e, int objects, int width, int height,
                                        struct samrt_internal_frame_cost *out);
enum samrt_status samrt_sam2_track_graph_nodes(struct samrt_engine *e, int *kernels, int *copies, int *captures);
enum samrt_status samrt_sam2_tracker_step(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_image *img,
                                          int img_on_device, const int *prompted, int n_prompted);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACKER_RUN_H */
