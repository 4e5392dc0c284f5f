/* backend.h - the runtime's seam to the op layer's backend entries (ops/ops_runtime.h), in the
 * engine's terms: the engine's GPU context and its stream, a pass's op context and stream.
 * Streams, events, graphs and copies come from platform/stream.h; the kernels the runtime
 * launches outside a forward pass (frame resize, mask decode, row gathers) are ops_runtime.h
 * entries. No runtime file names a backend. */
#ifndef SAMRT_RUNTIME_BACKEND_H
#define SAMRT_RUNTIME_BACKEND_H

#include "ops_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;

/* Device engines that run (a GPU-visible pool, not a plan-only budget): the GPU context and
 * its stream, on params.device; with params.sm_limit > 0 both inside a green context of that
 * many SMs (e->sm_share: opened here, or the model engine's for a session), so every kernel,
 * cuBLASLt and cuDNN call of the engine runs on those SMs. Nothing for other engines. */
enum samrt_status samrt_backend_open(struct samrt_engine *e);
/* An SM share of n SMs: the engine plans for them (attention's split-K) and projects its frame
 * at their part of the compute peak (the DRAM stays the whole device's): e->profile becomes a
 * scaled copy. Nothing when n is 0 or the whole GPU. */
void samrt_backend_share_profile(struct samrt_engine *e, int n);
/* After every pass that borrowed the context is freed; safe on an engine never opened. */
void samrt_backend_close(struct samrt_engine *e);
/* A setup window inside e's SM share (nothing without one): the events, graphs and streams
 * made between enter and leave belong to its green context; enter also waits for the pool's
 * zeroing and the weight uploads, which its streams are not ordered after (platform.h). */
enum samrt_status samrt_backend_enter(struct samrt_engine *e);
enum samrt_status samrt_backend_leave(struct samrt_engine *e);
/* The engine's stream; NULL on host engines (and plan-only ones). */
samrt_stream *samrt_backend_stream(const struct samrt_engine *e);

/* An op context for one of e's passes: the CUDA backend on device engines (with the GPU
 * handles unless plan-only), the CPU reference backend on host engines; e's precision and plan. */
enum samrt_status samrt_backend_ctx_init(struct samrt_engine *e, struct samrt_op_ctx *c, struct samrt_exec *ex);
/* The stream c's passes run on (ignored on the CPU backend). */
void samrt_backend_set_stream(struct samrt_op_ctx *c, samrt_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_RUNTIME_BACKEND_H */
