/* stage_clock.h - the runtime's one stage-timing system: marks recorded in stream order
 * between the stages of a call, read back as the public struct samrt_stage_times (samrt.h,
 * samrt_engine_stage_times). Segmentation (segment.c, its timed eager calls) and the tracker
 * (tracker_run.c, every frame) record into the one clock of their engine (the family's model state).
 *
 * Device engines record events on the engine's stream (platform/stream.h); inside a graph
 * capture a mark becomes an event record node of the graph, so a replayed graph records its
 * marks again without being split. Host engines read the monotonic clock at the same points.
 *
 *   samrt_stage_clock_reset(&k);
 *   samrt_stage_clock_mark(&k, SAMRT_STAGE_MK_START, stream);  ... stages, marks ...
 *   (sync the stream)  samrt_stage_clock_read(&k, &times);
 */
#ifndef SAMRT_RUNTIME_STAGE_CLOCK_H
#define SAMRT_RUNTIME_STAGE_CLOCK_H

#include "samrt_impl.h"
#include "stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The marks, in stream order. The stage a mark ends is the field of samrt_stage_times it fills:
 * H2D h2d_ms, PRE preprocess_ms, ENC image_encoder_ms, MA memory_attention_ms, HEADS
 * prompt_and_mask_decoder_ms, MEMENC memory_encoder_ms, POST postprocess_ms, D2H d2h_ms. */
enum { SAMRT_STAGE_MK_START, SAMRT_STAGE_MK_H2D, SAMRT_STAGE_MK_PRE, SAMRT_STAGE_MK_ENC, SAMRT_STAGE_MK_MA,
       SAMRT_STAGE_MK_HEADS, SAMRT_STAGE_MK_MEMENC, SAMRT_STAGE_MK_POST, SAMRT_STAGE_MK_D2H, SAMRT_STAGE_N_MARKS };

struct samrt_stage_clock {
    int device;                          /* 1: events on the stream; 0: host clocks */
    int capturing;                       /* 1 while the marks go into a graph being captured */
    unsigned marks;                      /* marks recorded for the current call (bit i) */
    uint64_t ns[SAMRT_STAGE_N_MARKS];    /* host clocks */
    samrt_event *ev[SAMRT_STAGE_N_MARKS];  /* device: the events (platform/stream.h) */
};

/* device 1: creates the events (setup). */
enum samrt_status samrt_stage_clock_init(struct samrt_stage_clock *k, int device);
/* Destroys the events; after every graph that records them. A zeroed clock is fine. */
void samrt_stage_clock_free(struct samrt_stage_clock *k);
/* Starts a call: no mark recorded. */
static inline void samrt_stage_clock_reset(struct samrt_stage_clock *k) { k->marks = 0; }
/* Records mark i on `stream` (device) or reads the clock (host). */
enum samrt_status samrt_stage_clock_mark(struct samrt_stage_clock *k, int i, samrt_stream *stream);
/* After the stream has synchronised: every stage whose mark was recorded is the time from the
 * previous recorded mark to its own; the other stages are -1 (also one a device cannot time). */
void samrt_stage_clock_read(const struct samrt_stage_clock *k, struct samrt_stage_times *out);
/* Every stage -1: nothing timed. */
void samrt_stage_times_none(struct samrt_stage_times *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_RUNTIME_STAGE_CLOCK_H */
