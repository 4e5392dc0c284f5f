/* taps.h - the samrt side of the parity dumps: collects the tensors a model pass reports
 * through its tap hook (ops/ops.h samrt_tap_fn) as float32 host arrays in the official
 * names and layouts, and writes them into one safetensors file that
 * tests/parity/compare_taps.py checks against tests/parity/dump_taps.py's.
 *
 * Layout rule (shared by every model part): 4-D taps arrive channels-last (N, H, W, C) and
 * are stored NCHW, as PyTorch holds them, except the Hiera trunk taps (tap.trunk.patch_embed,
 * tap.trunk.embed, tap.trunk.block.*), which the official hooks also see channels-last, and
 * tap.input, which arrives NCHW. Other ranks are stored as given. Views of any strides and of
 * f32/f16/bf16 are accepted, in device (or unified) memory or in host memory; the hook
 * synchronises the stream first, so a dump is a debugging run, not a timed one.
 *
 *   struct samrt_taps *ts;
 *   samrt_taps_init(mem.mem_kind, NULL, &ts);             // mem: samrt_engine_memory's report
 *   samrt_internal_segment_set_tap(eng, samrt_taps_hook, ts);   ... samrt_engine_segment ...
 *   samrt_taps_write(ts, "samrt_fp32.safetensors", "\"model\":\"sam2.1_tiny\"");
 *   samrt_taps_free(ts);
 */
#ifndef SAMRT_HARNESS_TAPS_H
#define SAMRT_HARNESS_TAPS_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_taps;

/* stream: the samrt_stream (platform/stream.h) the tapped passes run on (NULL: the legacy
 * default stream). */
enum samrt_status samrt_taps_init(enum samrt_mem_kind mem_kind, void *stream, struct samrt_taps **out);
void samrt_taps_free(struct samrt_taps *ts);
/* The hook (samrt_tap_fn): copies t out under `name` (a later tap of the same name replaces
 * it, as the official hooks keep the last call). */
enum samrt_status samrt_taps_hook(void *user, const char *name, const struct samrt_tensor *t);
/* A new tap of f32 values the caller fills (constants computed on the host); NULL when out of
 * memory. */
float *samrt_taps_alloc(struct samrt_taps *ts, const char *name, int n_dims, const int64_t *ne);
int samrt_taps_count(const struct samrt_taps *ts);
/* Writes every tap (F32) with __metadata__ {meta}: meta holds JSON members such as
 * "\"model\":\"sam2.1_tiny\",\"precision\":\"f32\"" (string values only). */
enum samrt_status samrt_taps_write(const struct samrt_taps *ts, const char *path, const char *meta);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_TAPS_H */
