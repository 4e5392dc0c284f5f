/* bench_run.h - the state of a `samrt bench` run shared by its two drivers: the per-object
 * run (bench_run.c: one row per object and timed pass) and the sweep (bench_sweep.c: one row
 * per configuration of --objects x --streams; the streams' threads are bench_streams.c).
 * Internal to the bench; users call bench.h.
 *
 * Both drivers go through the same pieces, so a sweep row is measured exactly as any other
 * row: the tracker is opened by samrt_bench_open_model, a video's prompts and buffers come
 * from samrt_bench_video_prepare, a pass over the frames is samrt_bench_run_pass (the loop
 * clock, per-frame latency and stage times) and a row's common columns are filled by
 * samrt_bench_fill_row. */
#ifndef SAMRT_HARNESS_BENCH_RUN_H
#define SAMRT_HARNESS_BENCH_RUN_H

#include "bench.h"
#include "eval.h"
#include "image_io.h"
#include "latency_rec.h"
#include "profile.h"
#include "sav.h"

#define SAMRT_BENCH_N_STAGES 8

/* Everything measured or known once per process. */
struct bench {
    const struct samrt_bench_opts *o;
    const struct samrt_tracker_backend *b;
    struct samrt_sav_split split;
    struct samrt_profile_row *rows;
    size_t n_rows, cap_rows;
    char platform[64], hostname[256], device[256], driver[32], precision[16];
    enum samrt_dtype dtype;
    uint64_t t_start;               /* process start, monotonic */
    double common_setup_ms;         /* process start -> the first model's setup begins */
    int have_device;
    int sm_count;                   /* --sm-limit: the SMs each engine's green context gets; 0 = all */
    uint64_t free0, rss0;           /* device free memory and VmRSS before any engine */
    int rss_reset_warned;           /* the peak-RSS reset was refused and said so */
    int progress;                   /* stderr is a terminal */
    uint64_t t_progress;
    uint8_t palette[256 * 3];
    enum samrt_memory_policy memory; /* the policy of the model being run (--memory's list) */
    char label[96];                 /* its name in lines and mask folders: the model's tag, and
                                       "<tag>@<policy>" when --memory lists several */
};

/* Per model (per configuration in a sweep): the tracker and its memory measurements. */
struct model_run {
    const struct samrt_bench_model *m;
    int index;
    struct samrt_tracker tr;
    int have_mem;
    struct samrt_memory_report mem;
    double setup_ms;                /* absent until the first frame is ready */
    uint64_t t_setup0;
    double max_drop;                /* largest device-memory drop seen, bytes */
    int stream;                     /* --streams: this stream's index; only stream 0 draws progress */
    int frames;                     /* timed frames, for the decode summary */
    double decode_sum, wait_sum, loop_s;
};

/* Per video: prompts, result buffers, ground-truth lookups and scores. */
struct video_run {
    const struct samrt_sav_video *v;
    int w, h, n_obj;
    size_t npx;
    uint8_t *first_masks;           /* (n_obj, h, w) frame-0 ground truth */
    struct samrt_prompt *prompts;   /* (n_obj) */
    uint8_t *res_masks;             /* (n_obj, h, w) */
    struct samrt_track_result *res; /* (n_obj) */
    int *ann_of;                    /* (n_obj, n_frames): annotation index of a frame, -1 none */
    struct samrt_eval_frame *ev;    /* (n_obj, max_anns) per-frame scores of timed run 0 */
    int max_anns;
    double *jo, *fo;                /* (n_obj) object scores, NaN when not scored */
    uint8_t *gt;                    /* scratch for one ground-truth mask */
    size_t gt_cap;
    void *ev_scratch;
    size_t ev_scratch_bytes;
    struct samrt_mask_reader mr;
    struct samrt_latency_rec lat;
};

/* What one pass measured (or, summed with samrt_bench_pass_add, several passes). */
struct pass_stats {
    int frames;
    double loop_s;                  /* the loop clock, pauses excluded */
    double stage_sum[SAMRT_BENCH_N_STAGES];
    int stage_n[SAMRT_BENCH_N_STAGES];
    double decode_sum, wait_sum;    /* decode thread; tracker waiting for frames (first excluded) */
    double reserved_mib, rss_mib;   /* memory measured at the end of the pass */
    char ts[32];                    /* UTC start of the (first) pass */
};

/* Opens the model's tracker for max_objects objects, with the setup clock started and the
 * peak RSS reset; prints why on failure. */
enum samrt_status samrt_bench_open_model(struct bench *B, struct model_run *mr, int max_objects);

/* One video of the split (its index vi) with the open tracker: passes and rows. */
typedef enum samrt_status (*samrt_bench_video_fn)(struct bench *B, struct model_run *mr, int vi, void *ctx);
/* Every video of the split through fn: a failed video says so and leaves no rows, and the
 * files are rewritten after each finished one. Closes the tracker at the end. */
enum samrt_status samrt_bench_each_video(struct bench *B, struct model_run *mr, samrt_bench_video_fn fn, void *ctx);

/* Loads the frame-0 masks (or takes --video's prompts), derives the prompts of objects
 * [0, n_clip) and places objects [n_clip, n_objects) on the sweep's grid
 * (samrt_bench_grid_prompt), and allocates every per-video buffer. */
enum samrt_status samrt_bench_video_prepare(const struct bench *B, const struct samrt_bench_model *m,
                                            const struct samrt_sav_video *v, int n_clip, struct video_run *vr);
void samrt_bench_video_free(struct video_run *vr);

/* One pass over a video: objects [k0, k0 + n_obj) tracked together; *ps receives what it
 * measured, vr->lat its per-frame latencies. Timed run 0 of the per-object run also writes
 * and scores the masks. */
enum samrt_status samrt_bench_run_pass(struct bench *B, struct model_run *mr, struct video_run *vr, int vi, int k0,
                                       int n_obj, int pass, struct pass_stats *ps);
/* acc += ps: frames, loop time, stage and decode sums; the memory and timestamp of the first
 * pass added are kept, the memory of later ones replaces it (both only grow). */
void samrt_bench_pass_add(struct pass_stats *acc, const struct pass_stats *ps);

/* The columns a row shares with every row of its pass(es): names, sizes, fps and latency
 * (from lat), stages, memory and arena; object, run and scores are the caller's. */
void samrt_bench_fill_row(const struct bench *B, const struct model_run *mr, const struct video_run *vr,
                          const struct pass_stats *ps, struct samrt_latency_rec *lat, struct samrt_profile_row *row);
enum samrt_status samrt_bench_push_row(struct bench *B, const struct samrt_profile_row *row);
/* profile_summary.csv and profile_stats.json of the rows so far. */
enum samrt_status samrt_bench_write_outputs(struct bench *B);

/* One configuration of the sweep: n_obj objects on n_streams streams, the model's tracker
 * (stream 0) and n_streams - 1 sessions of it. */
struct samrt_bench_sweep_config {
    int n_obj, n_streams;
    struct samrt_tracker sessions[SAMRT_BENCH_MAX_STREAMS]; /* [1, n_streams) */
    int n_open;                     /* 1 + the sessions open */
    double sessions_arena;          /* their arenas summed, bytes; absent when one is unknown */
};
/* Opens the configuration's sessions on mr's tracker (says why on failure; the ones opened
 * stay for samrt_bench_sessions_close). */
enum samrt_status samrt_bench_sessions_open(struct model_run *mr, struct samrt_bench_sweep_config *cfg);
void samrt_bench_sessions_close(struct samrt_bench_sweep_config *cfg);

/* What the streams of a configuration measured on one video (bench_streams.c). */
struct samrt_bench_streams {
    int n_streams;
    struct pass_stats acc;          /* every stream's timed passes; memory: the largest */
    struct samrt_latency_rec lat;   /* every timed frame of every stream (free it) */
    double stream_fps[SAMRT_BENCH_MAX_STREAMS]; /* frames / loop seconds of each stream */
    double slowest_s;               /* the longest loop time of one stream */
};
/* The configuration's streams on video v (objects as samrt_bench_video_prepare with n_clip):
 * stream 0 with mr and vr (prepared by the caller) on this thread, the sessions each with
 * their own buffers on threads of their own; --warmup passes, then the timed passes started
 * together. The streams' loop and decode sums are added to mr. */
enum samrt_status samrt_bench_streams_run(struct bench *B, struct model_run *mr, struct video_run *vr,
                                          const struct samrt_sav_video *v, int n_clip, int vi,
                                          const struct samrt_bench_sweep_config *cfg,
                                          struct samrt_bench_streams *out);

/* The sweep of one model: every configuration of --objects x --streams over every video
 * (bench_sweep.c). */
enum samrt_status samrt_bench_sweep_model(struct bench *B, const struct samrt_bench_model *m, int index);

#endif /* SAMRT_HARNESS_BENCH_RUN_H */
