/* ops_runtime.c - the bodies of ops_runtime.h: the runtime's backend choices, made here in the
 * op layer so that runtime/ names no backend. The GPU context exists in CUDA builds only; each
 * kernel entry picks its form with OPS_PICK (ops_impl.h): the CUDA launcher of kernels/ on the
 * given stream, or the C reference for host memory. A device-only entry of a host build
 * returns SAMRT_E_UNSUPPORTED; a _host entry is the C reference whatever the build. */
#include "ops_runtime.h"

#include <stdlib.h>

#include "gpu_ctx.h"
#include "ops_impl.h"
#include "samrt_impl.h"

enum samrt_backend samrt_ctx_backend_for(enum samrt_mem_kind kind) {
    return kind != SAMRT_MEM_HOST ? SAMRT_BACKEND_CUDA : SAMRT_BACKEND_CPU;
}

enum samrt_status samrt_ctx_init(struct samrt_op_ctx *c, enum samrt_mem_kind kind, enum samrt_dtype dtype,
                                     const struct samrt_gpu_ctx *g, struct samrt_exec *ex, struct samrt_plan *plan) {
    return samrt_ctx_init_backend(c, samrt_ctx_backend_for(kind), dtype, g, ex, plan);
}

#ifdef SAMRT_HAVE_CUDA

enum samrt_status samrt_ctx_gpu_open(int device, struct samrt_gpu_ctx **out) {
    *out = NULL;
    struct samrt_gpu_ctx *g = calloc(1, sizeof *g);  /* setup only */
    SAMRT_CHECK(g != NULL, SAMRT_E_HOST_MEMORY, "gpu: out of host memory");
    const enum samrt_status st = samrt_gpu_ctx_init(device, g);
    if (st != SAMRT_OK) {
        free(g);
        return st;
    }
    *out = g;
    return SAMRT_OK;
}

void samrt_ctx_gpu_close(struct samrt_gpu_ctx *g) {
    if (!g) return;
    samrt_gpu_ctx_free(g);
    free(g);
}

samrt_stream *samrt_ctx_gpu_stream(const struct samrt_gpu_ctx *g) { return g ? (samrt_stream *)g->stream : NULL; }

void samrt_ctx_set_stream(struct samrt_op_ctx *c, samrt_stream *s) { c->stream = (cudaStream_t)s; }

#else /* host builds: no device memory exists */

enum samrt_status samrt_ctx_gpu_open(int device, struct samrt_gpu_ctx **out) {
    (void)device;
    *out = NULL;
    SAMRT_CHECK(0, SAMRT_E_UNSUPPORTED, "gpu: this build has no CUDA backend");
}

void samrt_ctx_gpu_close(struct samrt_gpu_ctx *g) { (void)g; }

samrt_stream *samrt_ctx_gpu_stream(const struct samrt_gpu_ctx *g) {
    (void)g;
    return NULL;
}

void samrt_ctx_set_stream(struct samrt_op_ctx *c, samrt_stream *s) { (void)c, (void)s; }

#endif

/* ---- the kernels the runtime launches ------------------------------------------------------------ */

/* The backend of a runtime entry's memory: device (1) or host (0) pointers. */
static enum samrt_backend backend_of(int device) { return device ? SAMRT_BACKEND_CUDA : SAMRT_BACKEND_CPU; }

enum samrt_status samrt_op_resize_normalize(const struct samrt_resize_plan *plan, const void *tables,
                                             const uint8_t *src, size_t nb_row, void *dst, enum samrt_dtype dtype,
                                             samrt_stream *s) {
    (void)plan, (void)tables, (void)src, (void)nb_row, (void)dst, (void)dtype, (void)s;  /* host builds: no device */
    return OPS_PICK(SAMRT_BACKEND_CUDA,
                    samrt_resize_normalize_cuda(plan, tables, src, nb_row, dst, dtype, (cudaStream_t)s),
                    SAMRT_E_UNSUPPORTED);
}

enum samrt_status samrt_op_resize_normalize_host(const struct samrt_resize_plan *plan, const void *tables,
                                                  const uint8_t *src, size_t nb_row, float *dst) {
    return samrt_resize_normalize_ref(plan, tables, src, nb_row, samrt_sam_mean, samrt_sam_std, dst, SAMRT_DTYPE_F32);
}

enum samrt_status samrt_op_mask_decode(const struct samrt_mask_decode_desc *d, const void *logits, uint8_t *mask,
                                        struct samrt_mask_stats *stats, float *logits_out, samrt_stream *s) {
    (void)d, (void)logits, (void)mask, (void)stats, (void)logits_out, (void)s;  /* host builds: no device */
    return OPS_PICK(SAMRT_BACKEND_CUDA, samrt_mask_decode_cuda(d, logits, mask, stats, logits_out, (cudaStream_t)s),
                    SAMRT_E_UNSUPPORTED);
}

enum samrt_status samrt_op_mask_decode_host(const struct samrt_mask_decode_desc *d, const void *logits,
                                             uint8_t *mask, struct samrt_mask_stats *stats, float *logits_out) {
    return samrt_mask_decode_ref(d, logits, mask, stats, logits_out);
}

enum samrt_status samrt_op_mask_decode_non_overlap(const struct samrt_mask_decode_desc *d, const void *logits,
                                                    uint8_t *mask, struct samrt_mask_stats *stats, samrt_stream *s) {
    (void)d, (void)logits, (void)mask, (void)stats, (void)s;  /* host builds: no device */
    return OPS_PICK(SAMRT_BACKEND_CUDA, samrt_mask_decode_non_overlap_cuda(d, logits, mask, stats, (cudaStream_t)s),
                    SAMRT_E_UNSUPPORTED);
}

enum samrt_status samrt_op_track_rows(int device, const struct samrt_track_rows_args *a, samrt_stream *s) {
    (void)s;  /* the host form runs at once */
    return OPS_PICK(backend_of(device), samrt_track_rows_cuda(a, (cudaStream_t)s), samrt_track_rows_ref(a));
}

enum samrt_status samrt_op_finite(int device, const struct samrt_finite_args *a, samrt_stream *s) {
    (void)s;  /* the host form runs at once */
    return OPS_PICK(backend_of(device), samrt_finite_cuda(a, (cudaStream_t)s), samrt_finite_ref(a));
}
