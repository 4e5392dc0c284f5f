/* ops_runtime.h - the op layer's entries for the runtime (runtime/): what a pass needs around
 * the networks that picks a backend. The engine's GPU context (cuBLASLt / cuDNN handles and
 * its work stream, opaque above ops/), the backend that serves a memory kind, the stream of an
 * op context, and the kernels the runtime launches outside any forward pass: the resize /
 * normalise of a staged frame, the mask decode, the tracker's table-driven row gathers, the
 * non-finite check of a frame's outputs.
 * With these the runtime names no backend; each entry picks the CUDA launcher or the C
 * reference of kernels/ as ops.c does for the networks' ops.
 *
 * Every launcher takes the stream, only enqueues (safe inside graph capture) and allocates
 * nothing. Device entries of a host build return SAMRT_E_UNSUPPORTED. */
#ifndef SAMRT_OPS_RUNTIME_H
#define SAMRT_OPS_RUNTIME_H

#include "finite.h"
#include "mask_decode.h"
#include "ops.h"
#include "resize_normalize.h"
#include "stream.h"
#include "track_rows.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_gpu_ctx;  /* kernels/gpu_ctx.h; opaque above ops/ */

/* The backend whose kernels read memory of this kind: CUDA for device and unified pools,
 * the CPU references for host pools. */
enum samrt_backend samrt_ctx_backend_for(enum samrt_mem_kind kind);

/* The GPU context of one engine on CUDA ordinal `device` (setup; host heap). Host builds:
 * SAMRT_E_UNSUPPORTED. *out is NULL on failure. */
enum samrt_status samrt_ctx_gpu_open(int device, struct samrt_gpu_ctx **out);
void samrt_ctx_gpu_close(struct samrt_gpu_ctx *g);  /* NULL is fine */
/* The context's work stream (NULL for a NULL context). */
samrt_stream *samrt_ctx_gpu_stream(const struct samrt_gpu_ctx *g);
/* An op context for a pass: backend by memory kind, the GPU context (NULL: host engines,
 * and plan-only device engines, which size the same plan without a GPU). */
enum samrt_status samrt_ctx_init(struct samrt_op_ctx *c, enum samrt_mem_kind kind, enum samrt_dtype dtype,
                                     const struct samrt_gpu_ctx *g, struct samrt_exec *ex, struct samrt_plan *plan);
/* The stream c's later work is enqueued on (ignored on the CPU backend). */
void samrt_ctx_set_stream(struct samrt_op_ctx *c, samrt_stream *s);

/* resize_normalize.h on the device (tables, src and dst device pointers), into dtype. */
enum samrt_status samrt_op_resize_normalize(const struct samrt_resize_plan *plan, const void *tables,
                                             const uint8_t *src, size_t nb_row, void *dst, enum samrt_dtype dtype,
                                             samrt_stream *s);
/* The same on the host into f32 (the C reference, mean/std evaluated directly). */
enum samrt_status samrt_op_resize_normalize_host(const struct samrt_resize_plan *plan, const void *tables,
                                                  const uint8_t *src, size_t nb_row, float *dst);
/* mask_decode.h launchers on the device. */
enum samrt_status samrt_op_mask_decode(const struct samrt_mask_decode_desc *d, const void *logits, uint8_t *mask,
                                        struct samrt_mask_stats *stats, float *logits_out, samrt_stream *s);
/* The same on the host (the C reference): the decode of host engines' low-res logits. */
enum samrt_status samrt_op_mask_decode_host(const struct samrt_mask_decode_desc *d, const void *logits,
                                             uint8_t *mask, struct samrt_mask_stats *stats, float *logits_out);
enum samrt_status samrt_op_mask_decode_non_overlap(const struct samrt_mask_decode_desc *d, const void *logits,
                                                    uint8_t *mask, struct samrt_mask_stats *stats, samrt_stream *s);
/* track_rows.h: the kernel on s for device memory (device 1), the C reference otherwise. */
enum samrt_status samrt_op_track_rows(int device, const struct samrt_track_rows_args *a, samrt_stream *s);
/* finite.h: the kernels on s for device memory (device 1), the C reference otherwise. */
enum samrt_status samrt_op_finite(int device, const struct samrt_finite_args *a, samrt_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_OPS_RUNTIME_H */
