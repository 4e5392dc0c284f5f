/* health.h - the non-finite check of a call's results (kernels/finite.h through the op
 * layer): a planned flag word per pass, the check enqueued at the end of the pass (inside
 * its CUDA graph), the word downloaded after it, and the verdict after the stream sync.
 *
 * Why: at fp16, the default precision, activations past 65504 overflow to infinity and then
 * to NaN; the masks that come out look like an object that vanished, and the memory bank
 * keeps the garbage. A call whose image embedding, logits, memories or pointers are not
 * finite fails with SAMRT_E_NUMERIC and a log line that names the tensors and, at fp16, says
 * to run with bf16 (whose range is f32's). The check reads ~3 MB per frame at 1024 (a few
 * microseconds on an H100) and adds a 4-byte download.
 * Tests: tests/test_numeric.c (a checkpoint scaled to overflow fp16, CPU backend). */
#ifndef SAMRT_HEALTH_H
#define SAMRT_HEALTH_H

#include "engine_impl.h"
#include "ops_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_health {
    struct samrt_tensor flags;   /* (SAMRT_FINITE_FLAG_WORDS) i32 [staging] */
    int slot;
    int32_t host;                /* flags[0] after samrt_health_download (and a sync) */
    int n_seg;
    const char *names[SAMRT_FINITE_MAX_SEGS];  /* what each bit means, for the log */
};

/* Adds the flag slot to the plan (setup). */
enum samrt_status samrt_health_plan(struct samrt_op_ctx *c, const char *slot_name, struct samrt_health *h);
/* Resolves the slot after commit. */
void samrt_health_prepare(struct samrt_health *h, const struct samrt_arena *a);
/* Enqueues the check of n tensors (contiguous f32 / f16 / bf16, n <= SAMRT_FINITE_MAX_SEGS; a
 * tensor with n_rows >= 0 is checked on its first n_rows rows of dim 0 only) on `stream`
 * (NULL: host engines, run at once). Graph-safe. */
struct samrt_health_seg {
    const char *name;
    const struct samrt_tensor *t;
    int64_t n_rows;              /* -1: the whole tensor */
};
enum samrt_status samrt_health_enqueue(const struct samrt_engine *e, struct samrt_health *h,
                                       const struct samrt_health_seg *segs, int n, samrt_stream *stream);
/* Enqueues the download of the result word (device engines); host engines read it here. */
enum samrt_status samrt_health_download(const struct samrt_engine *e, struct samrt_health *h, samrt_stream *stream);
/* After the stream sync: SAMRT_OK when every checked tensor was finite, else SAMRT_E_NUMERIC
 * with one log line: `what` (e.g. "track: frame 12"), the tensors and the advice. */
enum samrt_status samrt_health_verdict(const struct samrt_engine *e, const struct samrt_health *h, const char *what);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HEALTH_H */
