/* samrt_internal.h - the one internal door of the samrt program (tools/) and of the bench
 * (harness/): the few things they need from inside the runtime that users of samrt.h should
 * not have. Everything else they do goes through samrt.h. The bodies (samrt_internal.c) sit on
 * the runtime's own headers, so the callers never see the engine struct, the arena or a model
 * header. Nothing here is a stable API: it follows the runtime.
 *
 *   parity taps       samrt_internal_segment_set_tap, samrt_internal_track_set_tap(_memattn)
 *                     (`samrt segment|track --dump-taps`; harness/taps.h collects the tensors)
 *   graphs, timing    samrt_internal_segment_configure (stage times: samrt_engine_stage_times)
 *                     (`samrt segment --bench`: graph replay vs eager with stage events)
 *   track options     samrt_internal_track_set_options (`samrt track --settings`, ...)
 *   prompt check      samrt_internal_check_prompt (a bad click fails before the weights load)
 *   budget tables     samrt_internal_budget, samrt_internal_budget_slot (`samrt budget`)
 *   pool residency    samrt_internal_pool_resident_bytes (`samrt bench`, cpu_peak_rss_MiB)
 *   SM shares         samrt_internal_sm_share_query, samrt_internal_engine_sm_count
 *                     (`samrt check`, the bench's sm_limit column; samrt_engine_params.sm_limit)
 */
#ifndef SAMRT_INTERNAL_H
#define SAMRT_INTERNAL_H

#include "platform.h" /* struct samrt_sm_share_info */
#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_tensor;            /* core/tensor.h */

/* ---- parity taps ----------------------------------------------------------------------- */

/* A tap observer: the function type of samrt_tap_fn (ops/ops.h); harness/taps.h's
 * samrt_taps_hook is one. It receives each tapped tensor under its official name. */
typedef enum samrt_status (*samrt_internal_tap_fn)(void *user, const char *name, const struct samrt_tensor *t);

/* samrt_engine_segment reports the image encoder's and the segmentation pass's taps to fn
 * (NULL clears it). SAMRT_E_UNSUPPORTED when the engine has no SAM 2.1 forward pass. */
enum samrt_status samrt_internal_segment_set_tap(samrt_engine_t e, samrt_internal_tap_fn fn, void *user);
/* samrt_engine_track_push reports every started object's per-frame taps to fn (NULL clears
 * it); with memattn on, also each tracked frame's memory attention output. */
enum samrt_status samrt_internal_track_set_tap(samrt_engine_t e, samrt_internal_tap_fn fn, void *user);
enum samrt_status samrt_internal_track_set_tap_memattn(samrt_engine_t e, int on);

/* ---- single-frame segmentation: graphs and stage events ----------------------------------- */

/* use_graph 0 runs every samrt_engine_segment call eagerly (default 1: capture once per key,
 * replay after); timed 1 runs eagerly with events between the stages, read back with the
 * public samrt_engine_stage_times (preprocess, image_encoder, prompt_and_mask_decoder,
 * postprocess; the other stages -1). Host engines ignore both. */
enum samrt_status samrt_internal_segment_configure(samrt_engine_t e, int use_graph, int timed);

/* ---- video tracking options ------------------------------------------------------------- */

struct samrt_internal_track_options {
    enum samrt_postproc postproc;  /* VOS_INFERENCE (default) or NOTEBOOK (docs/tracking.md) */
    int non_overlap;               /* 1: per pixel only the highest-logit object keeps it */
    int num_frames;                /* the video's length when known (pointer tpos), 0 = unknown */
    int fill_hole_area;            /* 0: the profile's (NOTEBOOK 8, VOS_INFERENCE off); > 0: this */
};
/* Options of the current video: after samrt_engine_track_begin, before the first push. */
enum samrt_status samrt_internal_track_set_options(samrt_engine_t e, const struct samrt_internal_track_options *opt);

/* ---- prompts ---------------------------------------------------------------------------- */

/* SAMRT_OK when samrt_engine_segment / samrt_engine_track_prompt would accept the prompt on a
 * width x height image at model side imgsz; else SAMRT_E_INVALID_ARG with the reason logged.
 * Needs no engine. */
enum samrt_status samrt_internal_check_prompt(const struct samrt_object_prompt *p, int width, int height, int imgsz);

/* ---- budget tables ---------------------------------------------------------------------- */

/* The arena's regions, in this order: weights, per-object state, the workspace, I/O staging,
 * scratch (peak activations). */
#define SAMRT_INTERNAL_REGIONS 5
#define SAMRT_INTERNAL_REGION_WORKSPACE 2
#define SAMRT_INTERNAL_REGION_STAGING 3

struct samrt_internal_budget {
    enum samrt_dtype precision;                     /* the run precision planned */
    const struct samrt_platform_profile *profile;   /* the profile planned for (samrt.h) */
    uint64_t region_bytes[SAMRT_INTERNAL_REGIONS];  /* padded bytes per region */
    uint64_t scratch_requested_bytes;               /* 0: no forward pass was planned */
    int n_slots;
    /* GPU engines: the frame slot (scratch, alive from a frame's upload to its resize), sized for
     * the largest accepted frame in either format, and what each format stages there: RGB8
     * 3 * w * h, NV12 the packed luma + chroma planes. 0 on host engines (no slot). */
    uint64_t frame_slot_bytes, frame_rgb8_bytes, frame_nv12_bytes;
};
struct samrt_internal_budget_slot {
    const char *name;              /* NULL when unnamed */
    const char *region;            /* "weights", "state", ... */
    uint64_t offset, nbytes;       /* from the pool base; requested size */
    int t_first, t_last;           /* scratch lifetime in plan steps */
};
/* The finalized arena plan of an engine (samrt_engine_init or samrt_engine_init_plan_only). */
enum samrt_status samrt_internal_budget(samrt_engine_t e, struct samrt_internal_budget *out);
/* Slot i of that plan, 0 <= i < n_slots. */
enum samrt_status samrt_internal_budget_slot(samrt_engine_t e, int i, struct samrt_internal_budget_slot *out);

/* ---- the work of a frame ------------------------------------------------------------------
 * One steady tracked frame as the engine's plan records it (samrt budget's "frame"): every
 * object tracked (none prompted on the frame), a full memory bank after one conditioning
 * frame, the default track options (the masks decoded on the device). Counted from the ops
 * the PLAN passes recorded (ops.h, struct samrt_op_cost) and the runtime's own launches
 * around them, stage by stage, on the CUDA backend whatever the build. */
enum { SAMRT_INTERNAL_STAGE_PRE, SAMRT_INTERNAL_STAGE_ENC, SAMRT_INTERNAL_STAGE_MA, SAMRT_INTERNAL_STAGE_HEADS,
       SAMRT_INTERNAL_STAGE_MEMENC, SAMRT_INTERNAL_STAGE_POST, SAMRT_INTERNAL_STAGES };
struct samrt_internal_cost {
    int64_t launches;    /* kernel launches (a library call counts as the kernel it runs) */
    int64_t copies;      /* device-to-device copies inside the frame (graph memcpy nodes) */
    double flops;        /* floating-point operations (a multiply-add is 2) */
    double bytes;        /* compulsory DRAM bytes: every launch's and copy's reads and writes */
    double projected_ms; /* the roofline of every launch at the profile's peaks, plus a per-launch
                            cost, summed (a projection: docs/jetson.md gives its measured error) */
};
struct samrt_internal_frame_cost {
    int objects, width, height;
    struct samrt_internal_cost stage[SAMRT_INTERNAL_STAGES];
    struct samrt_internal_cost total;   /* the stages summed */
    int64_t graph_launches;             /* of those, inside the frame's graph (the mask decode runs after it) */
    int64_t transfers;                  /* host <-> device copies around the frame (frame up, masks down) */
    double transfer_bytes;
};
/* "preprocess", "image_encoder", "memory_attention", "mask_decoder", "memory_encoder",
 * "postprocess" (the fields of struct samrt_stage_times); NULL out of range. */
const char *samrt_internal_stage_name(int stage);
/* The frame of `objects` tracked objects (1 .. max_objects) at width x height; works on a
 * plan-only engine (samrt_engine_init_plan_only) and on a GPU engine. */
enum samrt_status samrt_internal_frame_cost(samrt_engine_t e, int objects, int width, int height,
                                            struct samrt_internal_frame_cost *out);
/* The nodes of the graph the engine's last tracked frame ran: kernels and memcpy nodes (0, 0
 * when that frame ran eagerly, on a host engine, before any frame, or unless the process runs
 * with SAMRT_COUNT_KERNELS=1, which also makes the engine's plans count what cuBLASLt and
 * cuDNN launch). */
enum samrt_status samrt_internal_track_graph_nodes(samrt_engine_t e, int *kernels, int *copies);
/* How many graphs the engine's tracker has captured and instantiated since it was made: flat
 * once every frame key of a video is cached (a count that keeps rising means the bounded
 * cache is replacing graphs, each one driver memory outside the arena). */
enum samrt_status samrt_internal_track_graph_captures(samrt_engine_t e, int *captures);

/* ---- pool residency --------------------------------------------------------------------- */

/* Bytes of the engine's pool resident in this process's RSS (mincore over the pool): the
 * pages of a unified or host pool that VmRSS counts; 0 for a device pool or no pool. */
uint64_t samrt_internal_pool_resident_bytes(samrt_engine_t e);

/* ---- SM shares (samrt_engine_params.sm_limit) ------------------------------------------------ */

/* What device `device` offers for green contexts, and what a share of sm_limit SMs would get
 * (sm_limit 0: the device alone): platform.h's struct samrt_sm_share_info (available,
 * device_sms, min_sms, granularity, granted, why). Needs no engine and changes nothing on the
 * device. */
enum samrt_status samrt_internal_sm_share_query(int device, int sm_limit, struct samrt_sm_share_info *out);
/* The SMs of the green context e's work runs in; 0 when it has the whole GPU (or e is NULL). */
int samrt_internal_engine_sm_count(samrt_engine_t e);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_INTERNAL_H */
