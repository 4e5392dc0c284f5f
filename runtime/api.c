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

enum samrt_status samrt_engine_stage_times(samrt_engine_t e, struct samrt_stage_times *out) {
    SAMRT_FAMILY_FORWARD(e, "stage_times: engine and out are required", stage_times, out);
}
