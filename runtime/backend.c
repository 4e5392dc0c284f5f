/* backend.c - the runtime's one seam to the CUDA backend (backend.h): the engine's GPU
 * context and stream, a pass's backend and stream, and the resize / mask decode / row gather
 * launchers the runtime calls outside any op. The only runtime file that names the backend;
 * its entries move to ops/ once the op layer offers them. */
#include "backend.h"

#include <stdlib.h>

#include "engine_impl.h"
#include "gpu_ctx.h"

enum samrt_status samrt_backend_ctx_init(struct samrt_engine *e, struct samrt_model_ctx *c, struct samrt_exec *ex) {
    const enum samrt_backend b = e->mem_kind != SAMRT_MEM_HOST ? SAMRT_BACKEND_CUDA : SAMRT_BACKEND_CPU;
    /* e->gpu: NULL on host engines, and on plan-only ones, which size the same plan without
     * touching a GPU */
    return samrt_model_ctx_init(c, b, e->precision, e->gpu, ex, &e->plan);
}

#ifdef SAMRT_HAVE_CUDA

enum samrt_status samrt_backend_open(struct samrt_engine *e) {
    if (e->mem_kind == SAMRT_MEM_HOST || e->plan_only) return SAMRT_OK;
    e->gpu = calloc(1, sizeof *e->gpu);  /* setup only */
    SAMRT_CHECK(e->gpu != NULL, SAMRT_E_HOST_MEMORY, "engine: out of host memory");
    return samrt_gpu_ctx_init(e->params.device, e->gpu);
}

void samrt_backend_close(struct samrt_engine *e) {
    if (!e->gpu) return;
    samrt_gpu_ctx_free(e->gpu);
    free(e->gpu);
    e->gpu = NULL;
}

samrt_stream *samrt_backend_stream(const struct samrt_engine *e) {
    return e->mem_kind == SAMRT_MEM_HOST || !e->gpu ? NULL : (samrt_stream *)e->gpu->stream;
}

void samrt_backend_set_stream(struct samrt_model_ctx *c, samrt_stream *s) { c->stream = (cudaStream_t)s; }

enum samrt_status samrt_backend_resize_normalize(const struct samrt_resize_plan *plan, const void *tables,
                                                 const uint8_t *src, size_t nb_row, void *dst, enum samrt_dtype dtype,
                                                 samrt_stream *s) {
    return samrt_resize_normalize_cuda(plan, tables, src, nb_row, dst, dtype, (cudaStream_t)s);
}

enum samrt_status samrt_backend_mask_decode(const struct samrt_mask_decode_desc *d, const void *logits, uint8_t *mask,
                                            struct samrt_mask_stats *stats, float *logits_out, samrt_stream *s) {
    return samrt_mask_decode_cuda(d, logits, mask, stats, logits_out, (cudaStream_t)s);
}

enum samrt_status samrt_backend_mask_decode_non_overlap(const struct samrt_mask_decode_desc *d, const void *logits,
                                                        uint8_t *mask, struct samrt_mask_stats *stats,
                                                        samrt_stream *s) {
    return samrt_mask_decode_non_overlap_cuda(d, logits, mask, stats, (cudaStream_t)s);
}

enum samrt_status samrt_backend_track_rows(int device, const struct samrt_track_rows_args *a, samrt_stream *s) {
    return device ? samrt_track_rows_cuda(a, (cudaStream_t)s) : samrt_track_rows_ref(a);
}

#else /* host builds: no device engine exists */

enum samrt_status samrt_backend_open(struct samrt_engine *e) {
    (void)e;
    return SAMRT_OK;
}

void samrt_backend_close(struct samrt_engine *e) { (void)e; }

samrt_stream *samrt_backend_stream(const struct samrt_engine *e) {
    (void)e;
    return NULL;
}

void samrt_backend_set_stream(struct samrt_model_ctx *c, samrt_stream *s) { (void)c, (void)s; }

enum samrt_status samrt_backend_resize_normalize(const struct samrt_resize_plan *plan, const void *tables,
                                                 const uint8_t *src, size_t nb_row, void *dst, enum samrt_dtype dtype,
                                                 samrt_stream *s) {
    (void)plan, (void)tables, (void)src, (void)nb_row, (void)dst, (void)dtype, (void)s;
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_backend_mask_decode(const struct samrt_mask_decode_desc *d, const void *logits, uint8_t *mask,
                                            struct samrt_mask_stats *stats, float *logits_out, samrt_stream *s) {
    (void)d, (void)logits, (void)mask, (void)stats, (void)logits_out, (void)s;
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_backend_mask_decode_non_overlap(const struct samrt_mask_decode_desc *d, const void *logits,
                                                        uint8_t *mask, struct samrt_mask_stats *stats,
                                                        samrt_stream *s) {
    (void)d, (void)logits, (void)mask, (void)stats, (void)s;
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_backend_track_rows(int device, const struct samrt_track_rows_args *a, samrt_stream *s) {
    (void)s;
    return device ? SAMRT_E_UNSUPPORTED : samrt_track_rows_ref(a);
}

#endif
