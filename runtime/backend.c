/* backend.c - the runtime's seam to the op layer's backend entries (backend.h): the engine's
 * GPU context and stream, a pass's op context and stream. Engine-shaped forwards to
 * ops/ops_runtime.h, which makes every backend choice; nothing here names a backend. */
#include "backend.h"

#include "engine_impl.h"
#include "ops_runtime.h"

enum samrt_status samrt_backend_ctx_init(struct samrt_engine *e, struct samrt_op_ctx *c, struct samrt_exec *ex) {
    /* e->gpu: NULL on host engines, and on plan-only ones, which size the same plan without
     * touching a GPU */
    return samrt_ctx_init(c, e->mem_kind, e->precision, e->gpu, ex, &e->plan);
}

enum samrt_status samrt_backend_open(struct samrt_engine *e) {
    if (e->mem_kind == SAMRT_MEM_HOST || e->plan_only) return SAMRT_OK;
    return samrt_ctx_gpu_open(e->params.device, &e->gpu);
}

void samrt_backend_close(struct samrt_engine *e) {
    samrt_ctx_gpu_close(e->gpu);
    e->gpu = NULL;
}

samrt_stream *samrt_backend_stream(const struct samrt_engine *e) {
    return e->mem_kind == SAMRT_MEM_HOST ? NULL : samrt_ctx_gpu_stream(e->gpu);
}

void samrt_backend_set_stream(struct samrt_op_ctx *c, samrt_stream *s) { samrt_ctx_set_stream(c, s); }
