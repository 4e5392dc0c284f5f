/* sam2.h - the SAM 2 / 2.1 model inside an engine: its parts (image encoder; the prompt
 * encoder and mask decoder join here), one op context per separately run pass, and the
 * internal entry points the engine's run calls use.
 *
 * Each part has its own executor and op context, so it can run on its own (the image
 * encoder once per frame, the decoder once per prompt); the parts' PLAN passes are numbered
 * one after another (step_base), so their scratch slots share bytes. What one part hands to
 * the next (feat_s0, feat_s1, vision features) sits in persistent slots.
 *
 *   samrt_sam2_encode_image(e, stream);   // e->..->enc.input -> enc.feat_s0 / feat_s1 / vision
 */
#ifndef SAMRT_SAM2_H
#define SAMRT_SAM2_H

#include "image_encoder.h"
#include "segment.h"
#include "stage_clock.h"
#include "staging.h"
#include "track_state.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_sam2 {
    struct samrt_sam2_encoder enc;
    struct samrt_exec ex_enc;          /* the image encoder's pass */
    struct samrt_op_ctx ctx_enc;
    int enc_ready;                     /* planned and prepared */
    struct samrt_staging stage;        /* frame in, results out: the slots both passes use (staging.h) */
    struct samrt_sam2_segment seg;     /* prompt encoder + mask decoder pass (segment.h) */
    struct samrt_sam2_tracker trk;     /* video tracking state (tracker.h) */
    struct samrt_stage_clock clock;    /* stage marks of the running call (stage_clock.h) */
    struct samrt_stage_times times;    /* of the last tracked frame or timed segmentation call */
    int step_base;                     /* PLAN step counter shared by the parts */
};

/* The engine's SAM 2 state, or NULL (another model family, or not planned). */
struct samrt_sam2 *samrt_sam2_of(const struct samrt_engine *e);

/* Sets up an op context for one of the model's passes on e (backend, precision, workspace
 * caps, the shared PLAN step counter). */
enum samrt_status samrt_sam2_ctx_init(struct samrt_engine *e, struct samrt_op_ctx *c, struct samrt_exec *ex);
/* Points a pass's context at the engine's workspace slot (after commit; nothing without one). */
void samrt_sam2_ctx_workspace(const struct samrt_engine *e, struct samrt_op_ctx *c);

/* Runs the image encoder on the preprocessed input slot (enc.input, NCHW run dtype).
 * stream: a samrt_stream (platform/stream.h; on CUDA builds any cudaStream_t) on device
 * engines (may be captured into a graph), NULL on host engines. Taps set on ctx_enc are honoured (never while capturing). Allocates nothing. */
enum samrt_status samrt_sam2_encode_image(struct samrt_engine *e, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_H */
