/* backend.h - the runtime's one seam to the CUDA backend. Streams, events, graphs and copies
 * come from platform/stream.h and name no backend; what is left is here, in one file, until
 * the op layer (ops/, the place the architecture gives every backend choice above kernels/
 * and platform/) offers it:
 *   - the engine's GPU context (cuBLASLt / cuDNN handles) and its stream;
 *   - a pass's op context: its backend, its GPU handles, the stream it runs on;
 *   - the three kernels the runtime launches outside any op: the resize / normalise of a
 *     staged frame, the mask decode, the tracker's table-driven row gathers.
 * Every launcher takes the stream and is safe inside graph capture; nothing allocates. In
 * host builds the device entries return SAMRT_E_UNSUPPORTED (host engines never reach them). */
#ifndef SAMRT_RUNTIME_BACKEND_H
#define SAMRT_RUNTIME_BACKEND_H

#include "mask_decode.h"
#include "ops.h"
#include "resize_normalize.h"
#include "stream.h"
#include "track_rows.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;

/* Device engines that run (a GPU-visible pool, not a plan-only budget): the GPU context and
 * its stream, on params.device. Nothing for other engines. */
enum samrt_status samrt_backend_open(struct samrt_engine *e);
/* After every pass that borrowed the context is freed; safe on an engine never opened. */
void samrt_backend_close(struct samrt_engine *e);
/* The engine's stream; NULL on host engines (and plan-only ones). */
samrt_stream *samrt_backend_stream(const struct samrt_engine *e);

/* An op context for one of e's passes: the CUDA backend on device engines (with the GPU
 * handles unless plan-only), the CPU reference backend on host engines; e's precision and plan. */
enum samrt_status samrt_backend_ctx_init(struct samrt_engine *e, struct samrt_model_ctx *c, struct samrt_exec *ex);
/* The stream c's passes run on (ignored on the CPU backend). */
void samrt_backend_set_stream(struct samrt_model_ctx *c, samrt_stream *s);

/* mask_decode.h / resize_normalize.h launchers (device pointers). */
enum samrt_status samrt_backend_resize_normalize(const struct samrt_resize_plan *plan, const void *tables,
                                                 const uint8_t *src, size_t nb_row, void *dst, enum samrt_dtype dtype,
                                                 samrt_stream *s);
enum samrt_status samrt_backend_mask_decode(const struct samrt_mask_decode_desc *d, const void *logits, uint8_t *mask,
                                            struct samrt_mask_stats *stats, float *logits_out, samrt_stream *s);
enum samrt_status samrt_backend_mask_decode_non_overlap(const struct samrt_mask_decode_desc *d, const void *logits,
                                                        uint8_t *mask, struct samrt_mask_stats *stats,
                                                        samrt_stream *s);
/* track_rows.h: the kernel on s for device engines (device 1), the C reference otherwise. */
enum samrt_status samrt_backend_track_rows(int device, const struct samrt_track_rows_args *a, samrt_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_RUNTIME_BACKEND_H */
