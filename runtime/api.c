/* api.c - the bodies of samrt.h's work calls (segmentation, streaming tracking, stage times):
 * each checks the engine handle and forwards to the engine's model family (family.h), whose
 * entry checks its own state and arguments. The engine struct and its lifecycle are
 * engine.c's; the system calls are system.c's. */
#include "engine_impl.h"
#include "family.h"

enum samrt_status samrt_engine_segment(samrt_engine_t e, const struct samrt_image *img,
                                       const struct samrt_object_prompt *prompts, int n, enum samrt_postproc pp,
                                       struct samrt_mask_result *out) {
    SAMRT_FAMILY_FORWARD(e, "segment: engine, image, prompts and out are required", segment, img, 0, prompts, n, pp,
                         out);
}

enum samrt_status samrt_engine_segment_masked(samrt_engine_t e, const struct samrt_image *img,
                                              const struct samrt_object_prompt *prompts, const float *const *masks,
                                              int n, enum samrt_postproc pp, struct samrt_mask_result *out) {
    SAMRT_FAMILY_FORWARD(e, "segment: engine, image, prompts and out are required", segment_masked, img, prompts,
                         masks, n, pp, out);
}

enum samrt_status samrt_engine_mask_input_side(samrt_engine_t e, int *side) {
    SAMRT_CHECK(side != NULL, SAMRT_E_INVALID_ARG, "mask_input_side: side is NULL");
    *side = 0;
    SAMRT_FAMILY_FORWARD(e, "mask_input_side: engine is NULL", mask_prompt, NULL, 0, 0, NULL, side);
}

enum samrt_status samrt_engine_mask_prompt_logits(samrt_engine_t e, const uint8_t *mask, int width, int height,
                                                  float *logits) {
    SAMRT_CHECK(mask && logits, SAMRT_E_INVALID_ARG, "mask_prompt_logits: mask and logits are required");
    SAMRT_FAMILY_FORWARD(e, "mask_prompt_logits: engine is NULL", mask_prompt, mask, width, height, logits, NULL);
}

enum samrt_status samrt_engine_track_begin(samrt_engine_t e, int width, int height) {
    SAMRT_FAMILY_FORWARD(e, "track: engine is NULL", track_begin, width, height);
}

enum samrt_status samrt_engine_track_prompt(samrt_engine_t e, int obj_id, const struct samrt_object_prompt *prompt) {
    SAMRT_FAMILY_FORWARD(e, "track: engine is NULL", track_prompt, obj_id, prompt);
}

enum samrt_status samrt_engine_track_prompt_mask(samrt_engine_t e, int obj_id, const uint8_t *mask) {
    SAMRT_FAMILY_FORWARD(e, "track: engine is NULL", track_prompt_mask, obj_id, mask);
}

enum samrt_status samrt_engine_track_remove(samrt_engine_t e, int obj_id) {
    SAMRT_FAMILY_FORWARD(e, "track: engine is NULL", track_remove, obj_id);
}

enum samrt_status samrt_engine_track_push(samrt_engine_t e, const struct samrt_image *frame, int frame_on_device,
                                          struct samrt_track_result *results, int max_results, int *n_results) {
    if (n_results) *n_results = 0;
    SAMRT_FAMILY_FORWARD(e, "track: engine is NULL", track_push, frame, frame_on_device, results, max_results,
                         n_results);
}

enum samrt_status samrt_engine_track_push_nv12(samrt_engine_t e, const struct samrt_image_nv12 *frame,
                                               int frame_on_device, struct samrt_track_result *results,
                                               int max_results, int *n_results) {
    if (n_results) *n_results = 0;
    SAMRT_CHECK(e != NULL, SAMRT_E_INVALID_ARG, "track: engine is NULL");
    SAMRT_CHECK(frame && frame->y && frame->uv && frame->width > 0 && frame->height > 0 &&
                    frame->y_stride >= frame->width && frame->uv_stride >= 2 * ((frame->width + 1) / 2),
                SAMRT_E_INVALID_ARG, "track_push_nv12: bad frame (%dx%d, strides %d / %d)", frame ? frame->width : 0,
                frame ? frame->height : 0, frame ? frame->y_stride : 0, frame ? frame->uv_stride : 0);
    /* The family's push sees the luma plane as the frame (size, pointer, memory); the NV12
     * description rides on the engine for this call (engine_impl.h: frame_nv12). */
    const struct samrt_image luma = {frame->y, frame->width, frame->height, frame->y_stride};
    e->frame_nv12 = frame;
    const enum samrt_status st = samrt_engine_track_push(e, &luma, frame_on_device, results, max_results, n_results);
    e->frame_nv12 = NULL;
    return st;
}

enum samrt_status samrt_engine_stage_times(samrt_engine_t e, struct samrt_stage_times *out) {
    SAMRT_FAMILY_FORWARD(e, "stage_times: engine and out are required", stage_times, out);
}
