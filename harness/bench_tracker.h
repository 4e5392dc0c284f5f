/* bench_tracker.h - the video tracker interface `samrt bench` drives: one struct of function
 * pointers (begin a video, prompt an object with points, a box or a mask, push a frame and
 * get masks plus per-stage times, end the video), so that each model plugs in the same way.
 *
 * Design choices:
 * - The interface takes the prompt derived from the ground truth (harness/prompts.h) as is;
 *   each implementation converts it to what its model takes.
 * - Stage times come back as struct samrt_stage_times, a negative value meaning "this stage
 *   did not run / is not timed"; the bench turns those into empty cells, never 0.
 * - Which models this build can track is answered by the backend (available()) before any
 *   work starts, so an unsupported model fails in milliseconds with a clear message and exit
 *   code 4 instead of after the split has been read.
 * - The SAM 2.1 / EdgeTAM implementation (bench_tracker.c) sits on the public streaming API
 *   (samrt_engine_track_*). It is compiled in unless the build is configured with
 *   -DSAMRT_BENCH_TRACKING=OFF; then available() says "video tracking is not in this
 *   build". Nothing else stands in.
 *
 *   const struct samrt_tracker_backend *b = samrt_tracker_backend();
 *   struct samrt_tracker t;
 *   SAMRT_TRY(b->open(&cfg, &t));
 *   t.ops->begin(t.self, w, h);  t.ops->prompt(t.self, 1, &prompt);
 *   for each frame: t.ops->push(t.self, &img, 0, results, n_obj, &n, &times);
 *   t.ops->end(t.self);  t.ops->close(t.self);
 *   struct samrt_tracker s2;                 // another video on the same weights, another thread
 *   SAMRT_TRY(t.ops->session(t.self, &s2));  ... s2.ops->close(s2.self);
 */
#ifndef SAMRT_HARNESS_BENCH_TRACKER_H
#define SAMRT_HARNESS_BENCH_TRACKER_H

#include "prompts.h"
#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a tracker is built for: one model, one checkpoint, one engine configuration. */
struct samrt_tracker_config {
    enum samrt_model_id model;
    const char *checkpoint;        /* path of the weights file */
    const char *platform;          /* platform profile name; NULL = detect */
    enum samrt_dtype precision;
    int imgsz;                     /* model input side */
    int max_objects;               /* objects tracked at once (enters the arena plan) */
    int sm_limit;                  /* samrt_engine_params.sm_limit: 0 = the whole GPU */
    enum samrt_memory_policy memory; /* samrt_engine_params.memory */
};

struct samrt_tracker;

struct samrt_tracker_ops {
    /* Starts a video of width x height frames; forgets every object. */
    enum samrt_status (*begin)(void *self, int width, int height);
    /* Prompts object obj_id on the next pushed frame (points, box or mask, prompts.h). */
    enum samrt_status (*prompt)(void *self, int obj_id, const struct samrt_prompt *prompt);
    /* Tracks one RGB8 frame, in host memory or (frame_on_device, frame_stream.h's device
     * frames) in device memory: results[i].mask are caller buffers (width x height);
     * *n_results receives the number of tracked objects; *times the frame's stage times
     * (negative = not run or not timed). */
    enum samrt_status (*push)(void *self, const struct samrt_image *frame, int frame_on_device,
                              struct samrt_track_result *results, int max_results, int *n_results,
                              struct samrt_stage_times *times);
    /* Ends the video (may be NULL). */
    void (*end)(void *self);
    /* The arena plan, exact by region (may be NULL: memory columns stay empty). */
    enum samrt_status (*memory)(void *self, struct samrt_memory_report *out);
    /* Bytes of the tracker's pool resident in this process's RSS (unified or host pools;
     * 0 for device memory). May be NULL (counted as 0). */
    uint64_t (*host_resident_bytes)(void *self);
    /* Frees everything. */
    void (*close)(void *self);
    /* Opens another tracker on this one's weights with its configuration (a session,
     * samrt_engine_init_session): its own state and buffers, usable from another thread at
     * the same time. May be NULL: the tracker cannot share its weights (`--streams` then
     * fails with SAMRT_E_NOT_IMPLEMENTED). */
    enum samrt_status (*session)(void *self, struct samrt_tracker *out);
};

struct samrt_tracker {
    const struct samrt_tracker_ops *ops;
    void *self;
};

/* Which trackers a build has, and how to make one. */
struct samrt_tracker_backend {
    /* SAMRT_OK when `model` can be tracked; else a status (SAMRT_E_NOT_IMPLEMENTED) and a
     * one-line reason in *why, e.g. "EdgeTAM is not in this build". */
    enum samrt_status (*available)(enum samrt_model_id model, const char **why);
    enum samrt_status (*open)(const struct samrt_tracker_config *cfg, struct samrt_tracker *out);
};

/* The trackers compiled into this build (SAM 2.1 through samrt_engine_track_*). */
const struct samrt_tracker_backend *samrt_tracker_backend(void);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_BENCH_TRACKER_H */
