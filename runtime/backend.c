/* backend.c - the runtime's seam to the op layer's backend entries (backend.h): the engine's
 * GPU context and stream (inside its SM share, platform.h, when params.sm_limit asks for one),
 * a pass's op context and stream. Engine-shaped forwards to ops/ops_runtime.h, which makes
 * every backend choice; nothing here names a backend. */
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
    if (e->params.sm_limit > 0 && !e->sm_share)  /* a session holds its model engine's (engine.c) */
        SAMRT_TRY(samrt_platform_sm_share_open(e->params.device, e->params.sm_limit, &e->sm_share));
    SAMRT_TRY(samrt_backend_enter(e));  /* the handles and the stream are made in the share */
    const enum samrt_status st = samrt_ctx_gpu_open(e->params.device, &e->gpu);
    const enum samrt_status left = samrt_backend_leave(e);
    if (st == SAMRT_OK && e->sm_share) samrt_backend_share_profile(e, samrt_platform_sm_share_sms(e->sm_share));
    return st != SAMRT_OK ? st : left;
}

void samrt_backend_share_profile(struct samrt_engine *e, int n) {
    if (n <= 0 || n >= e->profile->sm_count) return;
    e->profile_share = *e->profile;
    e->profile_share.fp16_tflops *= (double)n / e->profile->sm_count;
    e->profile_share.sm_count = n;
    e->profile = &e->profile_share;
}

void samrt_backend_close(struct samrt_engine *e) {
    /* the share's handles and stream are destroyed inside it, before the share itself */
    const int inside = e->gpu && samrt_backend_enter(e) == SAMRT_OK;
    samrt_ctx_gpu_close(e->gpu);
    e->gpu = NULL;
    if (inside) (void)samrt_backend_leave(e);
    samrt_platform_sm_share_release(e->sm_share);
    e->sm_share = NULL;
}

enum samrt_status samrt_backend_enter(struct samrt_engine *e) { return samrt_platform_sm_share_enter(e->sm_share); }

enum samrt_status samrt_backend_leave(struct samrt_engine *e) { return samrt_platform_sm_share_leave(e->sm_share); }

samrt_stream *samrt_backend_stream(const struct samrt_engine *e) {
    return e->mem_kind == SAMRT_MEM_HOST ? NULL : samrt_ctx_gpu_stream(e->gpu);
}

void samrt_backend_set_stream(struct samrt_op_ctx *c, samrt_stream *s) { samrt_ctx_set_stream(c, s); }
