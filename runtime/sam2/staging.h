/* staging.h - frame staging of a SAM 2 family engine: what carries a frame in and the
 * results out, shared by single-frame segmentation (segment.c) and the tracker
 * (tracker_run.c), owned by struct samrt_sam2 (sam2.h).
 *
 * Device engines (GPU-visible pools) get four arena slots, sized for the largest frame the
 * engine accepts (params max_frame_width x max_frame_height) and max_objects rows:
 *   rgb      the frame, uploaded on the stream: RGB8 (3 * w bytes per row, packed) or NV12
 *            (resize_normalize_nv12.h's packed planes, 1.5 bytes per pixel), sized for the
 *            larger of the two; an NV12 frame is resized by the fused kernel from there
 *   tables   the Pillow-exact resize tables (resize_normalize.h), refilled only when the frame
 *            size changes
 *   out      the output block [stats | result rows | u8 masks]: mask_decode.h's stats for
 *            b_max objects, then b_max rows of SAMRT_SAM2_RES_COLS f32 (at out_res), then the
 *            frame-size masks (at out_hdr); it comes back in ONE download
 *   logits   one f32 plane of the largest frame (segment.c's optional logits output, taps)
 * Only the tables live across calls (STAGING). The other three are SCRATCH slots with a
 * lifetime of their own, since each is alive only between passes, where no pass's scratch is:
 *   rgb      at the encoder pass's first step (t_frame), beside the preprocessed input
 *            (image_encoder.h): uploaded just before the resize, read only by it;
 *   out, logits  at one step after every pass (t_out, samrt_staging_plan_out): written once
 *            the frame's passes are done (the mask decode) and read by the downloads of the
 *            same call, before the next call's upload.
 * Nothing may run a pass between a frame's upload and its resize, nor between the passes' end
 * and the call's downloads (both hold in segment.c and tracker_run.c: set_prompts, the tables
 * and the token rows go to STAGING slots).
 * Host engines get no slots: they resize straight from the caller's frame with the host copy
 * of the tables (samrt_staging_preprocess_host), an NV12 frame with the fused reference.
 *
 * Why an NV12 device frame is copied, not read in place by the fused kernel: the resize is
 * part of the frame's captured graph, which replays with the addresses it was captured with;
 * reading the slot, not the caller's surface (a decoder pool's, a different one per frame),
 * keeps one graph per frame size and format, as for RGB8 device frames. The copy moves half
 * an RGB8 frame's bytes and replaces the separate NV12 -> RGB8 pass (3 bytes written and read
 * back per pixel).
 *
 * One engine, one stream: the users of the slots (a segmentation call, a tracked frame) are
 * ordered by the engine's stream, and each downloads what it needs from the output block
 * before it returns, so the next user may overwrite it. Allocates nothing after prepare.
 *
 * Lifecycle: samrt_staging_plan (from segment.c's plan), samrt_staging_plan_out (once every
 * pass is planned), samrt_staging_prepare after commit, samrt_staging_free. */
#ifndef SAMRT_RUNTIME_STAGING_H
#define SAMRT_RUNTIME_STAGING_H

#include "ops.h"
#include "ops_runtime.h"
#include "ops_video.h"
#include "stream.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_staging {
    int max_w, max_h;            /* largest accepted frame */
    int b_max;                   /* object rows of the output block */
    size_t tables_cap;           /* bytes of the largest frame's resize tables, 16-byte padded */
    size_t out_res;              /* offset of the result rows in the output block */
    size_t out_hdr;              /* bytes before the masks in the output block */
    struct samrt_tensor rgb, tables, out, logits;  /* device engines: the slots (views at prepare) */
    int slot_rgb, slot_tables, slot_out, slot_logits;  /* -1 on host engines */
    int device;                  /* 1: the slots above are planned (device engines) */
    void *tables_host;           /* resize tables, tables_cap bytes, 16-byte aligned (prepare) */
    void *out_host;              /* device engines: host copy of the output block (prepare) */
    int tables_w, tables_h;      /* the frame size the tables slot holds; 0 = none */
    int nv12;                    /* device engines: the staged frame is NV12 (yuv: its conversion) */
    struct samrt_yuv_coefs yuv;
    struct samrt_io_counters *io;/* the engine's frame counters (samrt_engine_io_counters); NULL: none */
};

/* Graph-key words of a frame's format: zero for RGB8 (nv12 NULL), else 1 and the NV12 colour
 * fields (the fused kernel's arguments, which a captured graph keeps). */
#define SAMRT_STAGING_FMT_KEY 7
void samrt_staging_fmt_key(const struct samrt_image_nv12 *nv12, int32_t key[SAMRT_STAGING_FMT_KEY]);

/* Checks the max frame (each side in [1, SAMRT_RESIZE_MAX_SIDE]) and, on device engines,
 * adds the tables ("seg.resize_tables", STAGING) and the frame ("seg.rgb", SCRATCH at step
 * t_frame: the first step of the encoder pass) to c's plan. side: the model side the frames
 * are resized to. */
enum samrt_status samrt_staging_plan(struct samrt_staging *st, struct samrt_op_ctx *c, int max_w, int max_h,
                                     int side, int b_max, int device, int t_frame);
/* Device engines: the output block ("seg.out") and the logits plane ("seg.logits"), SCRATCH
 * at step t_out, a step after every planned pass (no pass's scratch is alive there). */
enum samrt_status samrt_staging_plan_out(struct samrt_staging *st, struct samrt_op_ctx *c, int t_out);
/* After commit: the slots' views and the host buffers. */
enum samrt_status samrt_staging_prepare(struct samrt_staging *st, const struct samrt_arena *a);
void samrt_staging_free(struct samrt_staging *st);

/* Host engines: Pillow-exact resize of img to side x side and normalisation into input
 * (NCHW, input->dtype), with the host tables. nv12 (NULL: img is RGB8): img is its luma plane
 * and the fused reference reads both planes in place. */
enum samrt_status samrt_staging_preprocess_host(struct samrt_staging *st, const struct samrt_image *img,
                                                const struct samrt_image_nv12 *nv12, int side,
                                                const struct samrt_tensor *input);

/* Device engines: the resize plan of img into *rp, its tables into the tables slot (only when
 * the frame size changed) and the frame into the rgb slot on `stream` (the engine's; nv12 not
 * NULL: img is its luma plane, and both planes go to the slot, packed): from
 * host memory an upload (pageable: the call returns once the frame is staged), from device
 * memory (img_on_device: the caller's frame on this GPU, any row stride) one device-to-device
 * copy, so such a frame never comes to the host. The rgb slot, not the caller's pointer, is
 * what the resize kernel reads, so a captured frame graph replays for any caller buffer. */
enum samrt_status samrt_staging_upload(struct samrt_staging *st, const struct samrt_image *img,
                                       const struct samrt_image_nv12 *nv12, int img_on_device, int side,
                                       struct samrt_resize_plan *rp, samrt_stream *stream);
/* Device engines: the resize kernel from the rgb and tables slots into input, on `stream`
 * (safe inside graph capture). rp: from samrt_staging_upload. */
enum samrt_status samrt_staging_resize(const struct samrt_staging *st, const struct samrt_resize_plan *rp,
                                       const struct samrt_tensor *input, samrt_stream *stream);

/* The output block's parts (device pointers): n objects' stats, result rows, masks. */
static inline struct samrt_mask_stats *samrt_staging_stats(const struct samrt_staging *st) {
    return (struct samrt_mask_stats *)st->out.data;
}
static inline float *samrt_staging_results(const struct samrt_staging *st) {
    return (float *)(void *)((uint8_t *)st->out.data + st->out_res);
}
static inline uint8_t *samrt_staging_masks(const struct samrt_staging *st) {
    return (uint8_t *)st->out.data + st->out_hdr;
}
/* 1 when n masks of n_pix pixels fit the output block (a device engine's). */
int samrt_staging_out_fits(const struct samrt_staging *st, int n, size_t n_pix);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_RUNTIME_STAGING_H */
