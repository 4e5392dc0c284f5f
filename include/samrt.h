/* samrt.h - the public C API of samrt, a static runtime for SAM 2.1 and EdgeTAM video
 * object segmentation. This is the only public header; it compiles as plain C11 and as C++.
 *
 * Every tensor lives in one arena that is planned at init and committed once; nothing is
 * allocated after samrt_engine_init returns. Every call that can fail returns an
 * enum samrt_status; results come back through out-parameters.
 *
 * Basic usage:
 *
 *   struct samrt_engine_params p = samrt_engine_default_params();
 *   p.platform  = "h100-80gb";            // a platform profile, see samrt_platform_profile_list
 *   p.precision = SAMRT_DTYPE_BF16;
 *   samrt_engine_t eng = NULL;
 *   enum samrt_status st = samrt_engine_init("sam2.1_hiera_tiny.pt", &p, &eng);
 *   if (st != SAMRT_OK) { fprintf(stderr, "%s\n", samrt_status_str(st)); return 1; }
 *   struct samrt_memory_report mem;
 *   samrt_engine_memory(eng, &mem);       // exact arena plan, by region
 *   ... per-frame calls ...
 *   samrt_engine_free(eng);
 *
 * Statuses and exit codes are listed in docs/errors.md.
 */
#ifndef SAMRT_H
#define SAMRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_VERSION_MAJOR 0
#define SAMRT_VERSION_MINOR 1
#define SAMRT_VERSION_PATCH 0

/* ---- status ---------------------------------------------------------------------------- */

enum samrt_status {
    SAMRT_OK = 0,
    SAMRT_E_INVALID_ARG,      /* a parameter is out of range or NULL */
    SAMRT_E_IO,               /* a file could not be opened, read or written */
    SAMRT_E_FORMAT,           /* a file is malformed (zip, pickle, safetensors, JPEG, PNG) */
    SAMRT_E_FORBIDDEN,        /* a checkpoint pickle uses an opcode or global we refuse */
    SAMRT_E_KEYS,             /* checkpoint keys missing, unexpected or mis-shaped */
    SAMRT_E_MODEL_MISMATCH,   /* the checkpoint is for a different model than requested */
    SAMRT_E_UNSUPPORTED,      /* valid input we do not handle (dtype, option, platform) */
    SAMRT_E_ARENA_TOO_SMALL,  /* the plan does not fit the pool; the log names both sizes */
    SAMRT_E_NO_DEVICE,        /* a GPU is needed and none is present */
    SAMRT_E_CUDA,             /* a CUDA, cuBLASLt or cuDNN call failed; the log names it */
    SAMRT_E_HOST_MEMORY,      /* a host allocation at setup failed */
    SAMRT_E_BAD_STATE,        /* the engine refused work after an earlier failure */
    SAMRT_E_NOT_IMPLEMENTED,  /* the requested path does not exist yet in this build */
    SAMRT_E_NUMERIC,          /* a frame's results are not finite (fp16 overflow: use bf16); the log names them */
    SAMRT_STATUS_COUNT
};

/* A short constant string for a status, e.g. "arena too small". Never NULL. */
const char *samrt_status_str(enum samrt_status status);

/* ---- data types --------------------------------------------------------------------- */

enum samrt_dtype {
    SAMRT_DTYPE_F32 = 0,
    SAMRT_DTYPE_F16,
    SAMRT_DTYPE_BF16,
    SAMRT_DTYPE_U8,
    SAMRT_DTYPE_I32,
    SAMRT_DTYPE_I64,  /* only as a checkpoint storage type (BatchNorm num_batches_tracked) */
    SAMRT_DTYPE_COUNT
};

const char *samrt_dtype_name(enum samrt_dtype dtype);          /* "f32", "f16", ... */
size_t samrt_dtype_size(enum samrt_dtype dtype);               /* bytes per element */
/* Parses "fp32"/"f32", "fp16"/"f16", "bf16"; returns SAMRT_E_INVALID_ARG otherwise. */
enum samrt_status samrt_dtype_parse(const char *s, enum samrt_dtype *out);

/* ---- memory kinds --------------------------------------------------------------------- */

enum samrt_mem_kind {
    SAMRT_MEM_AUTO = 0,  /* unified on integrated GPUs, device memory on discrete, host without CUDA */
    SAMRT_MEM_DEVICE,    /* cudaMalloc */
    SAMRT_MEM_UNIFIED,   /* cudaMallocManaged (Jetson: CPU and GPU share DRAM) */
    SAMRT_MEM_HOST       /* host memory (CPU builds and tests) */
};
const char *samrt_mem_kind_name(enum samrt_mem_kind kind);

/* ---- models ----------------------------------------------------------------------------- */

/* The model table: X(ID, name, official checkpoint file, tracks) per model; tracks is 1 where
 * video tracking is planned (SAM 2.0 checkpoints segment single frames only). EfficientTAM's
 * Ti rows share one key layout, and so do its S rows: the variant of such a checkpoint comes
 * from the requested model or the official file name. Adding a model
 * of an existing family is one row here, its config row and its key table (docs/design.md). */
#define SAMRT_MODEL_TABLE(X)                                                  \
    X(SAM2_1_TINY, "sam2.1_tiny", "sam2.1_hiera_tiny.pt", 1)                  \
    X(SAM2_1_SMALL, "sam2.1_small", "sam2.1_hiera_small.pt", 1)               \
    X(SAM2_1_BASE_PLUS, "sam2.1_base_plus", "sam2.1_hiera_base_plus.pt", 1)   \
    X(SAM2_1_LARGE, "sam2.1_large", "sam2.1_hiera_large.pt", 1)               \
    X(EDGETAM, "edgetam", "edgetam.pt", 1)                                    \
    X(SAM2_TINY, "sam2_tiny", "sam2_hiera_tiny.pt", 0)                        \
    X(SAM2_SMALL, "sam2_small", "sam2_hiera_small.pt", 0)                     \
    X(SAM2_BASE_PLUS, "sam2_base_plus", "sam2_hiera_base_plus.pt", 0)         \
    X(SAM2_LARGE, "sam2_large", "sam2_hiera_large.pt", 0)                    \
    X(EFFICIENTTAM_TI, "efficienttam_ti", "efficienttam_ti.pt", 1)            \
    X(EFFICIENTTAM_TI_1, "efficienttam_ti_1", "efficienttam_ti_1.pt", 1)      \
    X(EFFICIENTTAM_TI_2, "efficienttam_ti_2", "efficienttam_ti_2.pt", 1)      \
    X(EFFICIENTTAM_TI_512, "efficienttam_ti_512x512", "efficienttam_ti_512x512.pt", 1) \
    X(EFFICIENTTAM_S, "efficienttam_s", "efficienttam_s.pt", 1)               \
    X(EFFICIENTTAM_S_1, "efficienttam_s_1", "efficienttam_s_1.pt", 1)         \
    X(EFFICIENTTAM_S_2, "efficienttam_s_2", "efficienttam_s_2.pt", 1)         \
    X(EFFICIENTTAM_S_512, "efficienttam_s_512x512", "efficienttam_s_512x512.pt", 1)

enum samrt_model_id {
    SAMRT_MODEL_UNKNOWN = 0,
#define SAMRT_MODEL_ENUM_(id, name, ckpt, tracks) SAMRT_MODEL_##id,
    SAMRT_MODEL_TABLE(SAMRT_MODEL_ENUM_)
#undef SAMRT_MODEL_ENUM_
    SAMRT_MODEL_COUNT
};
/* "sam2.1_tiny", "edgetam", ...; "unknown" for SAMRT_MODEL_UNKNOWN. */
const char *samrt_model_name(enum samrt_model_id id);
/* The official checkpoint's file name ("sam2.1_hiera_tiny.pt"); NULL for SAMRT_MODEL_UNKNOWN. */
const char *samrt_model_checkpoint_name(enum samrt_model_id id);
/* 1 when engines of this model track video (samrt_engine_track_*), 0 when they segment only. */
int samrt_model_tracks(enum samrt_model_id id);
/* Accepts the names above; returns SAMRT_E_INVALID_ARG for anything else. */
enum samrt_status samrt_model_parse(const char *s, enum samrt_model_id *out);

/* ---- system: build, devices, libraries, platform profiles ---------------------------------- */
/* What this build of the library is and what it finds on the machine. None of these calls
 * needs an engine, and each answers on a machine without a GPU too. */

/* 1 when the library was built with CUDA (SAMRT_CUDA=ON: CUDA kernels, cuBLASLt, cuDNN), 0
 * for a CPU-only build (the C reference kernels on host memory). */
int samrt_has_cuda(void);

struct samrt_device_info {
    char name[256];                /* e.g. "NVIDIA H100 80GB HBM3", "Orin" */
    int ordinal;                   /* the CUDA device ordinal queried */
    int sm_count;                  /* streaming multiprocessors */
    int cc_major, cc_minor;        /* compute capability, e.g. 9, 0 */
    int integrated;                /* 1 on Jetson: CPU and GPU share DRAM */
    uint64_t total_bytes, free_bytes;  /* device memory, free at the time of the query */
    int l2_bytes;                  /* L2 cache size */
    int driver_version;            /* CUDA driver, e.g. 13000 = 13.0 */
    int runtime_version;           /* CUDA runtime the library was built with */
};

/* Number of CUDA devices visible to the process; 0 with SAMRT_OK in a CPU-only build and on a
 * machine without a GPU or driver (not an error). SAMRT_E_INVALID_ARG when n is NULL. */
enum samrt_status samrt_device_count(int *n);
/* Properties and memory of device `ordinal` (it becomes the calling thread's current CUDA
 * device). SAMRT_E_NO_DEVICE when no device is visible, always so in a CPU-only build (*out
 * is then zeroed); SAMRT_E_INVALID_ARG for an ordinal out of range or a NULL out;
 * SAMRT_E_CUDA when the driver fails the query (the log names the call). */
enum samrt_status samrt_device_query(int ordinal, struct samrt_device_info *out);

/* Versions of the libraries the build links, 0 where a library is absent (every field in a
 * CPU-only build; the driver also without one). The image libraries are not libsamrt's. */
struct samrt_lib_versions {
    int cuda_driver, cuda_runtime;   /* 13000 = 13.0 */
    int cudnn;                       /* 91900 = 9.19.0 (cudnnGetVersion) */
    int cublaslt;                    /* cublasLtGetVersion */
};
/* Fills *out with this build's versions; nothing when out is NULL. */
void samrt_library_versions(struct samrt_lib_versions *out);

/* A platform profile: the memory and workspace budget an engine plans for. Engines select
 * one by name (samrt_engine_params.platform) or detect it from the device. */
struct samrt_platform_profile {
    const char *name;                 /* "orin-nano-8gb", "h100-80gb", ... */
    const char *description;
    uint64_t device_bytes;            /* physical memory the GPU sees (shared on Jetson) */
    uint64_t pool_bytes;              /* the most the arena may take */
    uint64_t reserve_bytes;           /* headroom kept for CUDA context, handles, OS, host side */
    uint64_t cublaslt_ws_bytes;       /* cuBLASLt workspace cap (algorithm choice fits inside) */
    uint64_t cudnn_ws_bytes;          /* cuDNN workspace cap */
    enum samrt_dtype precision;       /* default run precision */
    enum samrt_mem_kind mem_kind;     /* pool kind on this platform */
    int cc_major, cc_minor;           /* expected compute capability (0 for cpu) */
    int sm_count;                     /* SMs the plan assumes (attention split-K); 0 for cpu */
    /* published peaks, for projections only (samrt budget's projected frame time; platform/common.c
     * cites each source); 0 for cpu */
    int clock_mhz;                    /* GPU boost clock */
    double fp16_tflops;               /* dense fp16 tensor-core FLOP/s, f32 accumulation, 1e12 */
    double dram_gbps;                 /* DRAM bandwidth, 1e9 bytes/s */
    double launch_us;                 /* time a kernel of a graph costs beyond its roofline (fitted) */
};

/* The built-in profiles, a static table of *n entries (n may be NULL); "cpu" is one of them. */
const struct samrt_platform_profile *samrt_platform_profile_list(int *n);
/* The profile of that name; NULL when the name is unknown (or NULL). */
const struct samrt_platform_profile *samrt_platform_profile_by_name(const char *name);
/* The profile samrt_engine_init picks when params.platform is NULL: the best match for the
 * device (integrated flag, memory, compute capability); "cpu" when device is NULL. Never NULL. */
const struct samrt_platform_profile *samrt_platform_profile_for_device(const struct samrt_device_info *device);

/* ---- engine ------------------------------------------------------------------------------ */

typedef struct samrt_engine *samrt_engine_t;

/* Memory-selection policies of the tracker (docs/tracking.md), per object. SAM2: the last six
 * frames and the best predicted IoU (the official predictor). SAMURAI: a constant-velocity
 * Kalman filter over each object's box picks among the three candidate masks and only
 * confident frames enter the memory (github.com/yangchris11/samurai). DAM4SAM: the memory is
 * split into a distractor-resolving part (the prompt frame and up to three frames whose
 * alternative masks revealed a distractor) and a recent-appearance part (t - 1 and every 5th
 * frame where the object is visible) (github.com/jovanavidenovic/DAM4SAM). */
enum samrt_memory_policy {
    SAMRT_MEMORY_SAM2 = 0,
    SAMRT_MEMORY_SAMURAI,
    SAMRT_MEMORY_DAM4SAM,
    SAMRT_MEMORY_POLICY_COUNT
};

struct samrt_engine_params {
    const char *platform;            /* platform profile name; NULL = detect from the device */
    enum samrt_dtype precision;      /* F32 (parity), BF16 or F16; default: the profile's */
    enum samrt_mem_kind mem_kind;    /* where the arena lives; default AUTO */
    enum samrt_model_id expect_model;/* UNKNOWN = accept what the checkpoint holds */
    int imgsz;                       /* model input side, default 1024 */
    int max_objects;                 /* objects tracked at once; enters the plan. default 1 */
    int device;                      /* CUDA device ordinal, default 0 */
    int max_frame_width;             /* largest frame a call accepts; sizes the frame staging */
    int max_frame_height;            /* slots in the arena. default 3840 x 2160 */
    int verbose;                     /* log the arena plan at init */
    int sm_limit;                    /* 0 = the whole GPU (default); N > 0: the engine's work runs in
                                        a CUDA green context of N SMs (an Orin-sized share of a large
                                        GPU: 8 ~ Orin Nano / NX, 16 ~ AGX Orin). The driver rounds N
                                        up to its SM granularity (multiples of 8 on Hopper); init logs
                                        the count granted. Nothing on the device changes (no clocks,
                                        MIG or MPS). Sessions share their model engine's green context
                                        and must ask for the same N. SAMRT_E_UNSUPPORTED where green
                                        contexts are unavailable (a CPU build or a host engine, CUDA or
                                        a driver before 12.4) or N exceeds the device's SMs; plan-only
                                        engines ignore it. */
    enum samrt_memory_policy memory; /* which frames enter each object's memory and which of the
                                        three candidate masks a tracked frame keeps; default
                                        SAMRT_MEMORY_SAM2 (samrt_memory_policy_parse) */
    double memory_kf_weight;         /* SAMURAI's alpha in [0, 1]; 0 = the model's (0.25, large 0.15) */
};

struct samrt_engine_params samrt_engine_default_params(void);

/* Loads the checkpoint (official .pt zip or safetensors), plans the arena, commits it from
 * the platform, and converts the weights into it. On failure *out is NULL. */
enum samrt_status samrt_engine_init(const char *checkpoint_path,
                                    const struct samrt_engine_params *params,
                                    samrt_engine_t *out);
void samrt_engine_free(samrt_engine_t engine);

/* A session: another engine that tracks its own video on the weights of `model` (an engine
 * from samrt_engine_init, or another session of it). It has its own state, workspace,
 * staging and scratch (its own pool, planned exactly as `model`'s minus the weights) and,
 * on a GPU, its own CUDA stream and library handles, so sessions run from different threads
 * without waiting for each other; one engine (model or session) is used by one thread at a
 * time. params NULL: the model's parameters; otherwise precision, imgsz, platform, memory kind
 * and device must resolve to the model's (SAMRT_E_INVALID_ARG names the one that differs),
 * and max_objects and the frame size may differ; expect_model SAMRT_MODEL_UNKNOWN means the
 * model's model (an EfficientTAM variant chosen by request stays chosen). Setup reads the model's checkpoint again
 * (its derived constants) but uploads no weights. Freeing `model` while sessions live is
 * allowed: the weights stay until the last session is freed. samrt_engine_memory() of a
 * session reports its own arena, the weights it reads as weights_shared_bytes. K videos on
 * one copy of the weights take weights + K x (the rest): `samrt budget --streams K`. */
enum samrt_status samrt_engine_init_session(samrt_engine_t model, const struct samrt_engine_params *params,
                                            samrt_engine_t *out);

/* The arena plan of a model on a platform profile (params->platform is required), without a
 * checkpoint and without a GPU: the same planning code samrt_engine_init runs, so
 * samrt_engine_memory() on the result reports exactly what init would commit. The engine
 * can only be queried and freed. */
enum samrt_status samrt_engine_init_plan_only(enum samrt_model_id model, const struct samrt_engine_params *params,
                                              samrt_engine_t *out);

/* What the arena holds, by region. Every number is exact: it is the committed plan. */
struct samrt_memory_report {
    uint64_t weights_bytes;        /* persistent: model weights at run precision */
    uint64_t state_bytes;          /* persistent: per-object state (memory bank, pointers) */
    uint64_t workspace_bytes;      /* the workspace cuBLASLt and cuDNN share (larger cap) */
    uint64_t scratch_bytes;        /* activations, lifetime-packed */
    uint64_t staging_bytes;        /* frame upload / mask download buffers */
    uint64_t arena_bytes;          /* the single pool: sum of the above plus alignment */
    uint64_t pool_capacity_bytes;  /* the profile's pool size (what the arena must fit in) */
    enum samrt_mem_kind mem_kind;  /* the kind actually committed */
    uint64_t weights_shared_bytes; /* a session: the model engine's weights it reads (not in
                                      arena_bytes; weights_bytes is then 0); 0 otherwise */
};
enum samrt_status samrt_engine_memory(samrt_engine_t engine, struct samrt_memory_report *out);

/* How frames came in since the engine was made: a frame in host memory costs one host-to-
 * device copy on a GPU engine (none on a CPU engine), a frame already in device memory
 * (frame_on_device) one device-to-device copy into the arena's staging slot and no host copy.
 * The byte counts are the frame's bytes as staged: 3 per pixel for RGB8, the luma and chroma
 * planes (w * h + 2 * ceil(w / 2) * ceil(h / 2)) for NV12 (samrt_engine_track_push_nv12).
 * frame_bytes_d2h counts frame bytes brought to the host: 0 on every path of this version. */
struct samrt_io_counters {
    uint64_t frames_host;          /* frames read from host memory */
    uint64_t frames_device;        /* frames read from device memory */
    uint64_t frame_bytes_h2d;      /* frame bytes copied host -> device */
    uint64_t frame_bytes_d2d;      /* frame bytes copied device -> device */
    uint64_t frame_bytes_d2h;      /* frame bytes copied device -> host */
};
enum samrt_status samrt_engine_io_counters(samrt_engine_t engine, struct samrt_io_counters *out);

/* The model the checkpoint was recognised as, and its parameter count. */
enum samrt_status samrt_engine_model(samrt_engine_t engine, enum samrt_model_id *id,
                                     uint64_t *n_params);

/* ---- single-frame segmentation ------------------------------------------------------------ */
/* One image, one or more objects, each prompted by clicks and/or a box. This is what the
 * official VIDEO predictor computes on its prompt frame (init_state + add_new_points_or_box):
 * the image is stretched to the model size with Pillow's bicubic filter, the frame's features
 * get no_mem_embed, and the object-score gate blanks the mask of an absent object. It is NOT
 * SAM2ImagePredictor, which resizes with torchvision bilinear and has no gate.
 *
 *   struct samrt_object_prompt obj = {0};
 *   obj.n_clicks = 1;
 *   obj.clicks[0] = (struct samrt_click){ .x = 210, .y = 350, .label = 1 };
 *   struct samrt_image img = { rgb, width, height, 3 * width };
 *   struct samrt_mask_result res = { .mask = malloc(width * height) };
 *   st = samrt_engine_segment(eng, &img, &obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &res);
 */

#define SAMRT_MAX_CLICKS 16

struct samrt_image {
    const uint8_t *rgb;            /* RGB8, row-major, `stride` bytes per row */
    int width, height;
    int stride;                    /* >= 3 * width */
};

struct samrt_click {
    float x, y;                    /* image pixels (column, row); [0, width) x [0, height) */
    int label;                     /* 1 = on the object, 0 = background */
};

struct samrt_object_prompt {
    int n_clicks;                  /* 0 .. SAMRT_MAX_CLICKS */
    struct samrt_click clicks[SAMRT_MAX_CLICKS];
    int has_box;                   /* at least one click or a box */
    float box[4];                  /* x0, y0, x1, y1 in image pixels, within [0, width] x [0, height] */
};

/* Post-processing profiles of the official scripts (model-spec 1.2). NOTEBOOK
 * (build_sam2_video_predictor's default) replaces an unstable single mask by the best of the
 * three candidates; in video tracking it also fills holes of <= 8 low-res pixels and binarises
 * the memories of prompted frames (docs/tracking.md). VOS_INFERENCE (the benchmark script)
 * does none of these. */
enum samrt_postproc { SAMRT_POSTPROC_VOS_INFERENCE = 0, SAMRT_POSTPROC_NOTEBOOK };

struct samrt_mask_result {
    uint8_t *mask;                 /* caller buffer, width * height bytes: 1 object, 0 background */
    float *logits;                 /* optional caller buffer, width * height mask logits; NULL = none */
    float object_score;            /* object-score logit; <= 0 means absent (the mask is then empty) */
    float iou;                     /* predicted IoU of the returned mask */
    int area;                      /* pixels set in mask */
    int box[4];                    /* x0, y0, x1, y1 inclusive; (width, height, -1, -1) when empty */
};

/* Segments n_objects objects (1 .. the engine's max_objects) on one image; out has
 * n_objects entries. The image may have any size; prompts are in its pixels. */
enum samrt_status samrt_engine_segment(samrt_engine_t engine, const struct samrt_image *image,
                                       const struct samrt_object_prompt *prompts, int n_objects,
                                       enum samrt_postproc postproc, struct samrt_mask_result *out);

/* ---- video tracking (streaming) ------------------------------------------------------------ */
/* Frames are pushed one at a time, in order, as RGB8 in host or device memory; each push
 * returns every tracked object's mask and score for that frame. Per-object state (the memory
 * bank ring of num_maskmem memories, conditioning memories, object pointers, frame
 * bookkeeping) lives in the arena, sized at init by params.max_objects: nothing grows with
 * the video's length. Objects are prompted on the frame they first appear (points, a box or
 * a mask) before that frame is pushed; a streaming tracker tracks them forward from there
 * (the official predictor would also re-run earlier frames). A prompt for an object that is
 * already tracked is a correction: it conditions the object from that frame on.
 *
 *   samrt_engine_track_begin(eng, width, height);              // a new video
 *   samrt_engine_track_prompt(eng, 1, &obj_prompt);            // object id 1, applies to the next push
 *   for each frame: samrt_engine_track_push(eng, &img, results, max_results, &n);
 *   samrt_engine_track_remove(eng, 1);                         // object 1 leaves; its slot is free
 */

struct samrt_track_result {
    int obj_id;
    uint8_t *mask;                 /* caller buffer, width * height bytes (may be NULL: no mask copy) */
    float object_score;            /* object-score logit; <= 0: absent on this frame */
    int area;
    int box[4];                    /* x0, y0, x1, y1 inclusive; (width, height, -1, -1) when empty */
};

/* Starts a video of width x height frames; forgets every object. */
enum samrt_status samrt_engine_track_begin(samrt_engine_t engine, int width, int height);
/* Prompts object obj_id (>= 0) on the next pushed frame with clicks and/or a box. */
enum samrt_status samrt_engine_track_prompt(samrt_engine_t engine, int obj_id, const struct samrt_object_prompt *prompt);
/* Prompts object obj_id on the next pushed frame with a mask (width * height bytes, nonzero = object). */
enum samrt_status samrt_engine_track_prompt_mask(samrt_engine_t engine, int obj_id, const uint8_t *mask);
/* Stops tracking object obj_id: its memories and pointers are dropped, the objects after it
 * keep their order, and its slot is free for a new object. SAMRT_E_INVALID_ARG when obj_id is
 * not tracked in this video. */
enum samrt_status samrt_engine_track_remove(samrt_engine_t engine, int obj_id);
/* Runs one frame. `frame->rgb` may be host or device memory (frame_on_device). results[i].mask
 * buffers are the caller's; *n_results gets the number of tracked objects (<= max_results). */
enum samrt_status samrt_engine_track_push(samrt_engine_t engine, const struct samrt_image *frame, int frame_on_device,
                                          struct samrt_track_result *results, int max_results, int *n_results);

/* A decoded frame in NV12 (8-bit YUV 4:2:0 as NVDEC and most decoders give it): a luma plane
 * and an interleaved U, V plane at half resolution (ceil(height / 2) rows), both in host memory
 * or both in device memory. With FFmpeg: y / y_stride = data[0] / linesize[0], uv / uv_stride
 * = data[1] / linesize[1]. The colour fields say how to convert to RGB, as libswscale's default
 * YUV 4:2:0 -> RGB24 does it (kernels/nv12_rgb.h), so a frame gives the pixels FFmpeg's
 * software path would: yuv_coefs = sws_getCoefficients(colorspace) ({crv, cbu, cgu, cgv}; all
 * zero: BT.601, swscale's default), yuv_full_range 1 for JPEG levels (AVCOL_RANGE_JPEG),
 * yuv_x86 1 for the rounding of swscale's x86 SIMD converter (FFmpeg on x86 with SSSE3 or
 * MMXEXT), 0 for its C tables (e.g. aarch64). */
struct samrt_image_nv12 {
    const uint8_t *y;              /* luma, `y_stride` >= width bytes per row */
    const uint8_t *uv;             /* chroma, `uv_stride` >= 2 * ceil(width / 2) bytes per row */
    int y_stride, uv_stride;
    int width, height;
    int yuv_coefs[4];
    int yuv_full_range;
    int yuv_x86;
};

/* samrt_engine_track_push for an NV12 frame. Its masks are those of the same frame converted
 * to RGB8 with the swscale arithmetic above and pushed with samrt_engine_track_push, bit for
 * bit: the resize kernel converts each sample as it reads it, so the frame never exists as
 * RGB8 in memory. On a GPU engine its two planes (1.5 bytes per pixel) are copied into the
 * engine's frame slot (device to device when frame_on_device, e.g. NVDEC's surface, else host
 * to device) and the caller's buffers are free again when the call returns; a CPU engine
 * reads a host frame in place (a device frame needs a GPU engine, SAMRT_E_INVALID_ARG). */
enum samrt_status samrt_engine_track_push_nv12(samrt_engine_t engine, const struct samrt_image_nv12 *frame,
                                               int frame_on_device, struct samrt_track_result *results,
                                               int max_results, int *n_results);

/* Per-stage device time of the last frame (CUDA events), in ms; a stage the model did not
 * run on that frame is negative (-1), never 0. */
struct samrt_stage_times {
    float preprocess_ms, h2d_ms, image_encoder_ms, memory_attention_ms, prompt_and_mask_decoder_ms,
        memory_encoder_ms, postprocess_ms, d2h_ms;
};
enum samrt_status samrt_engine_stage_times(samrt_engine_t engine, struct samrt_stage_times *out);

/* ---- logging ---------------------------------------------------------------------------- */

enum samrt_log_level { SAMRT_LOG_ERROR = 0, SAMRT_LOG_WARN, SAMRT_LOG_INFO, SAMRT_LOG_DEBUG };
typedef void (*samrt_log_fn)(enum samrt_log_level level, const char *msg, void *user);
/* Replaces the log sink (default: stderr, level <= INFO). fn NULL restores the default. */
void samrt_log_set(samrt_log_fn fn, void *user, enum samrt_log_level max_level);

/* ---- single-frame segmentation with mask prompts ----------------------------------------------- */
/* samrt_engine_segment where objects may also carry a mask prompt, SAM2ImagePredictor.predict's
 * mask_input: mask_inputs[i] (NULL: object i has none; mask_inputs NULL: no object has one)
 * points to side x side float mask LOGITS, row-major, side = samrt_engine_mask_input_side
 * (imgsz / 4: 256 at the default 1024), e.g. the low-res logits of an earlier prediction. They
 * go unchanged (no clamp, no resize) through the prompt encoder's mask_downscaling, whose output
 * replaces no_mask_embed as that object's dense prompt; the image, the clicks / box, the
 * selection and the gate are those of samrt_engine_segment. An object with a mask needs a
 * click or a box too (a mask alone is SAMRT_E_INVALID_ARG), and its logits must be finite.
 *
 *   float lg[256 * 256];
 *   samrt_engine_mask_prompt_logits(eng, mask_u8, width, height, lg);   // or an earlier output
 *   const float *mi[1] = {lg};
 *   st = samrt_engine_segment_masked(eng, &img, &obj, mi, 1, SAMRT_POSTPROC_VOS_INFERENCE, &res);
 */
enum samrt_status samrt_engine_segment_masked(samrt_engine_t engine, const struct samrt_image *image,
                                              const struct samrt_object_prompt *prompts,
                                              const float *const *mask_inputs, int n_objects,
                                              enum samrt_postproc postproc, struct samrt_mask_result *out);
/* The side of samrt_engine_segment_masked's mask inputs: imgsz / 4. */
enum samrt_status samrt_engine_mask_input_side(samrt_engine_t engine, int *side);
/* A binary mask at image size (width * height bytes, nonzero = object) as mask-input logits
 * (side * side floats): the low-res logits the tracker keeps for the same mask given to
 * samrt_engine_track_prompt_mask: bilinear antialiased resize to imgsz x imgsz, >= 0.5,
 * logits +10 / -10, bilinear antialiased downsample to side x side. Allocates host
 * temporaries: call it when the prompt is made, not per frame. */
enum samrt_status samrt_engine_mask_prompt_logits(samrt_engine_t engine, const uint8_t *mask, int width, int height,
                                                  float *logits);

/* ---- memory-selection policies ---------------------------------------------------------- */

/* "sam2", "samurai" or "dam4sam" -> *out; SAMRT_E_INVALID_ARG (nothing logged) for any other
 * name. */
enum samrt_status samrt_memory_policy_parse(const char *name, enum samrt_memory_policy *out);
/* The policy's name ("sam2", "samurai", "dam4sam"); "?" out of range. */
const char *samrt_memory_policy_name(enum samrt_memory_policy policy);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_H */
