/* bench.h - `samrt bench`: tracks SA-V videos with one or more models and writes the
 * profiling outputs (harness/profile.h: profile_summary.csv, profile_stats.json,
 * experiment_config.txt), the predicted masks in the SA-V layout
 * (<out_dir>/<model>/<video>/<obj>/<frame>.png, scored by `samrt eval`) and J, F, J&F per
 * (video, object) computed in-process. With --video it tracks one video file or camera
 * instead, from prompts given on the command line (no ground truth, no J&F; bench_video.c).
 * With --objects it runs the object sweep instead (bench_sweep.c): per configuration (objects
 * tracked at once) one row of ms/frame percentiles, object-frames/s, GPU busy and the arena.
 * --streams adds the streams dimension (bench_streams.c): K engines on one copy of the weights
 * (the model engine and K-1 sessions), each tracking the clip from its own thread, with the
 * per-stream and aggregate frame rates and all K arenas on the row.
 * docs/profiling.md ("samrt bench", "Objects sweep") is the manual.
 *
 * Design choices:
 * - The bench only knows the tracker interface (bench_tracker.h); the backend is a parameter, so
 *   the tests drive the whole bench (options, rows, files) with a scripted test double.
 * - Timing covers only the tracking loop: from the first frame being ready to the last
 *   frame's masks on the host. Writing mask PNGs and scoring them (timed run 0 only) pause
 *   the loop clock, and warm-up passes produce rows flagged warmup that never reach a file.
 * - The CSV and JSON are rewritten (atomically) after every video, so an error or a kill
 *   leaves complete files holding every finished video, never a truncated one.
 * - Decoding runs ahead on the frame streamer's thread; the time the tracker waited for
 *   frames is summed per model and the bench says "decode-bound" when it is more than 5% of
 *   the loop (docs/video.md).
 *
 *   struct samrt_bench_opts o;
 *   int rc = samrt_bench_parse(argc, argv, samrt_tracker_backend(), &o);   // -1: run
 *   if (rc < 0) rc = samrt_bench_run(&o, samrt_tracker_backend());
 */
#ifndef SAMRT_HARNESS_BENCH_H
#define SAMRT_HARNESS_BENCH_H

#include "bench_tracker.h"
#include "prompts.h"
#include "samrt.h"
#include "sav.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_BENCH_MAX_MODELS 32
#define SAMRT_BENCH_MAX_OBJECTS 64   /* --video: objects prompted on the command line */
#define SAMRT_BENCH_MAX_SWEEP 64     /* --objects: configurations */
#define SAMRT_BENCH_SWEEP_MAX_OBJ 256 /* --objects: objects of one configuration (max_objects) */
#define SAMRT_BENCH_MAX_STREAMS 16   /* --streams: streams of one configuration, and list items */

/* One entry of --models: a model and the prompt it is given on frame 0. */
struct samrt_bench_model {
    char tag[64];                  /* canonical "<model>_<prompt>", e.g. "sam2.1_tiny_bbox" */
    enum samrt_model_id model;
    enum samrt_prompt_kind prompt;
};

enum samrt_bench_save { SAMRT_BENCH_SAVE_ANNOTATED = 0, SAMRT_BENCH_SAVE_ALL, SAMRT_BENCH_SAVE_NONE };

struct samrt_bench_opts {
    const char *split_dir;         /* SA-V split (required) */
    const char *weights_dir;       /* checkpoints, default "checkpoints" */
    const char *out_dir;           /* run folder (required) */
    const char *videos;            /* comma-separated names, NULL = all */
    const char *platform;          /* platform profile, NULL = detect */
    const char *nsight_report;     /* value of the nsight_report column, NULL = empty */
    struct samrt_bench_model models[SAMRT_BENCH_MAX_MODELS];
    int n_models;
    int limit_videos, limit_objects; /* 0 = all */
    int shard_k, shard_n;          /* shard_n 0 = no sharding */
    int warmup;                    /* untimed passes before the timed ones, per tracking unit */
    int warmup_frames;             /* frames per warm-up pass, 0 = the whole video */
    int runs;                      /* timed passes per tracking unit */
    int imgsz;
    int prefetch;                  /* decoded frames kept ahead (frame streamer depth) */
    enum samrt_dtype precision;
    int precision_set;             /* 0: the platform profile's default */
    int per_obj;                   /* one tracking pass per object instead of per video */
    enum samrt_bench_save save_masks;
    const char *video;             /* a video file, camera or JPEG folder instead of split_dir */
    int start, max_frames;         /* --video: frames skipped first; at most this many (0 = all) */
    int n_prompts;                 /* --video: objects 1..n_prompts, prompted on the first frame */
    struct samrt_prompt prompts[SAMRT_BENCH_MAX_OBJECTS];
    int n_sweep;                   /* --objects: 0 = no sweep (one row per object and run) */
    int sweep[SAMRT_BENCH_MAX_SWEEP]; /* objects tracked at once, per configuration, as given */
    int n_streams;                 /* --streams: 0 = one stream (and n_sweep 1 with 1 object when
                                      --objects is absent) */
    int streams[SAMRT_BENCH_MAX_STREAMS]; /* videos tracked at once, one engine and thread each */
    int sm_limit;                  /* --sm-limit: SMs of the engines' green context; 0 = the whole GPU */
    int decode_threads;            /* --decode-threads: a JPEG folder's decode threads; 0 = default */
    int gpu_decode;                /* --gpu-decode: nvJPEG / NVDEC into device frames where they can */
    enum samrt_memory_policy memory; /* --memory: the first policy of the list */
    int n_memory;                  /* --memory: policies in the list, 1 by default */
    enum samrt_memory_policy memories[SAMRT_MEMORY_POLICY_COUNT]; /* each model runs once per policy,
                                      in this order (the memory column) */
};

/* Parses `bench` arguments (argv[0] is the subcommand name). Returns -1 when the bench
 * should run, else the exit code to return (0 after --help); errors are printed. Models
 * the backend cannot track are refused here with its reason (exit 4). */
int samrt_bench_parse(int argc, char **argv, const struct samrt_tracker_backend *backend,
                      struct samrt_bench_opts *out);

/* Runs the bench; returns the exit code (util.h). */
int samrt_bench_run(const struct samrt_bench_opts *opts, const struct samrt_tracker_backend *backend);

/* parse + run: the body of `samrt bench` for any backend. */
int samrt_bench_main(int argc, char **argv, const struct samrt_tracker_backend *backend);

/* The one-video split of --video: the source's frames (named by index) and the objects of
 * o->prompts (named 001, 002, ...) without annotations. A camera needs --max-frames. */
enum samrt_status samrt_bench_video_split(const struct samrt_bench_opts *o, struct samrt_sav_split *out);

/* Parses an --objects list: comma-separated whole numbers in [1, SAMRT_BENCH_SWEEP_MAX_OBJ],
 * at most SAMRT_BENCH_MAX_SWEEP of them, no empty item, no duplicate, kept in the given
 * order. Returns 0, or -1 with the reason in why (a sentence naming the bad item). */
int samrt_bench_parse_objects(const char *list, int *out, int *n_out, char *why, size_t why_len);

/* Parses a --streams list: the rules and messages of samrt_bench_parse_objects, with whole
 * numbers in [1, SAMRT_BENCH_MAX_STREAMS]. */
int samrt_bench_parse_streams(const char *list, int *out, int *n_out, char *why, size_t why_len);

/* Parses a --memory list: comma-separated policy names (sam2, samurai, dam4sam), no empty item,
 * no duplicate, kept in the given order. Returns 0, or -1 with the reason in why. */
int samrt_bench_parse_memory(const char *list, enum samrt_memory_policy *out, int *n_out, char *why, size_t why_len);

/* The sweep's prompt of extra object j of n_extra (the objects beyond the clip's prompts) on a
 * width x height frame: one positive click at the centre of cell j of a grid of
 * ceil(sqrt(n_extra)) columns and ceil(n_extra / columns) rows, filled row by row. */
void samrt_bench_grid_prompt(int j, int n_extra, int width, int height, struct samrt_prompt *out);

/* Parses one --models entry ("sam2.1_tiny_points", "sam2.1_base_plus_bbox", "edgetam_mask";
 * a bare model name means the mask prompt). SAMRT_E_INVALID_ARG for an unknown name. */
enum samrt_status samrt_bench_parse_model(const char *s, struct samrt_bench_model *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_BENCH_H */
