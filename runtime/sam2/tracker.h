/* tracker.h - SAM 2.1 and EdgeTAM streaming video tracking inside an engine (the family's
 * entries behind samrt.h's samrt_engine_track_* calls; model-spec section 4).
 *
 * EdgeTAM differs only in its memory path (model-spec 3.7, 3.13, 4.4): a stored memory is the
 * spatial perceiver's 512 tokens (models/edgetam/perceiver.h) instead of g*g pixels, memory
 * attention is the 2-layer variant (memory_attention.h config), and pointers get no temporal
 * position; selection, pointers and the passes are the same code, sized by mem_tok.
 *
 * State (arena, STATE region, planned at init from max_objects K and the model side; nothing
 * grows with the video's length):
 *   mem_bank  (MEM_SLOTS, K, T, 64) bf16     spatial memories (T = g*g, EdgeTAM 512), slot-major: ring slots 0..5
 *                                            (frame % 6), then SAMRT_TRACK_MAX_COND
 *                                            conditioning slots (track_bank.h)
 *   ptr_bank  (PTR_SLOTS, K, 256) f32        object pointers: ring of 16, then conditioning
 * Slot-major so that every object's memory of frame t lands in ONE contiguous (K, g*g, 64)
 * block (ring slot t % 6): the memory encoder of the frame writes all objects at once, and
 * only objects whose frame is a conditioning frame get a copy into their conditioning slot.
 * Writing ring slot t % 6 is always safe: it held frame t-6, which no later frame selects.
 * Host bookkeeping per object (track_bank.h) decides which slots a frame attends to.
 *
 * Per frame (samrt_engine_track_push):
 *   1. Pillow-exact resize + normalise (a kernel on CUDA engines, the C reference on host
 *      engines) -> image encoder pass (once for all objects);
 *   2. objects prompted on this frame (initial conditioning frames): the segmentation pass's
 *      heads (vision + no_mem_embed, prompt encoder, decoder; segment.h) inside the frame,
 *      their prompts in their object rows of the heads' token slot; mask prompts take their
 *      logits from the mask and the pointer from a mask-input heads pass (track_mask.h);
 *   3. tracked objects: memory attention over the selected memories and pointers, then the
 *      SAM heads with no prompt (multimask, best IoU);
 *   4. memory encoder on every object's selected low-res logits -> ring slot t % 6, and the
 *      pointers -> ring slot t % 16; conditioning copies for prompted objects;
 *      (notebook: hole filling and binarised prompted memories, track_post.h);
 *   5. bilinear to the frame size, optional non-overlap (highest logit per pixel), threshold
 *      > 0, area and box per object: on CUDA engines one kernel (mask_decode.h) on the stream
 *      after the frame's graph, into the staging output block (staging.h, planned for
 *      max_objects masks of the largest frame), then the masks and stats come to the host
 *      (one sync); on the host (C references) for CPU engines, tap dumps (they need the f32
 *      video-size logits) and when forced (samrt_sam2_track_set_host_decode,
 *      SAMRT_TRACK_HOST_DECODE=1).
 * Steps 1-4 of a frame run as ONE CUDA graph on the engine's stream (prompted and tracked
 * objects alike: one graph, one sync, one mask decode per frame), one graph per frame key
 * (tracker_run.c: the object roles, memory / pointer counts and prompt shapes; bank slots are
 * data in a staging table, track_rows.h). Only a frame with a mask prompt runs eagerly.
 *
 * Options outside samrt.h (the CLI sets them; defaults are the vos_inference profile):
 * samrt_sam2_track_set_options. Run: `samrt track --help`; tests:
 * tests/test_sam2_track_bank.c (selection rules), tests/test_sam2_track.c (API, state size),
 * tests/test_sam2_track_graph_cuda.c (graph replay = eager path, bit for bit).
 */
#ifndef SAMRT_SAM2_TRACKER_H
#define SAMRT_SAM2_TRACKER_H

#include "track_state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds the state slots to the plan (after the segmentation pass's plan). */
enum samrt_status samrt_sam2_tracker_plan(struct samrt_engine *e, struct samrt_sam2 *m);
/* After commit: slot views, host object table, the memory modules' constants. */
enum samrt_status samrt_sam2_tracker_prepare(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_ckpt *ck);
void samrt_sam2_tracker_free(struct samrt_sam2 *m);

/* The engine's tracker when it has one (SAM 2.1 / EdgeTAM planned and prepared, the engine
 * not failed); else the status the track calls return, with the reason logged. */
enum samrt_status samrt_sam2_tracker_of(struct samrt_engine *e, struct samrt_sam2_tracker **out);


/* The family's tracking entries (family.h), behind samrt.h's samrt_engine_track_* calls (same
 * contracts as there). */
enum samrt_status samrt_sam2_track_begin(struct samrt_engine *e, int width, int height);
enum samrt_status samrt_sam2_track_prompt(struct samrt_engine *e, int obj_id, const struct samrt_object_prompt *prompt);
enum samrt_status samrt_sam2_track_prompt_mask(struct samrt_engine *e, int obj_id, const uint8_t *mask);
enum samrt_status samrt_sam2_track_remove(struct samrt_engine *e, int obj_id);
enum samrt_status samrt_sam2_track_push(struct samrt_engine *e, const struct samrt_image *frame, int frame_on_device,
                                        struct samrt_track_result *results, int max_results, int *n_results);

/* Options of the current video (call after samrt_engine_track_begin, before the first push).
 * NOTEBOOK: hole filling, binarised prompted memories, single-mask fallback (track_post.h);
 * non_overlap is a separate switch under either profile. */
enum samrt_status samrt_sam2_track_set_options(struct samrt_engine *e, const struct samrt_sam2_track_options *opt);

/* on 1: every frame's masks are decoded on the host from the low-res logits (the CPU
 * engine's path), also on CUDA engines; 0 (default): CUDA engines decode on the device. The
 * environment variable SAMRT_TRACK_HOST_DECODE=1, read by samrt_engine_track_begin, forces it
 * too. Kept across videos. */
enum samrt_status samrt_sam2_track_set_host_decode(struct samrt_engine *e, int on);

/* Sets (fn non-NULL) or clears the per-frame tap observer. After every push it receives, for
 * every started object and under the names of tests/parity/dump_taps.py with the prefix
 * "frame.<t>." (the first-added object) or "obj<id>.frame.<t>." (the others): pred_masks
 * (1,1,4g,4g), object_score_logits (1,1), obj_ptr (1,256), maskmem_features (1,g,g,64
 * channels-last, bf16), video_res_masks (1,1,H,W, the object's own logits, before any
 * non-overlap); and once mem.pos_enc (1,g,g,64). */
enum samrt_status samrt_sam2_track_set_tap(struct samrt_engine *e, samrt_tap_fn fn, void *user);
/* on: the tap also receives each tracked frame's memory attention output per object,
 * "[obj<id>.]frame.<t>.memattn.out" (g*g, 1, 256) at the run dtype (frames with no prompt). */
enum samrt_status samrt_sam2_track_set_tap_memattn(struct samrt_engine *e, int on);

/* Bytes of the tracker's arena state (mem_bank + ptr_bank), for tests. */
uint64_t samrt_sam2_tracker_state_bytes(const struct samrt_engine *e);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACKER_H */
