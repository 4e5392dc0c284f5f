/* ops_impl.h - helpers shared by the files of the op layer (ops.c, ops_pointwise.c,
 * ops_attn.c, ops_sam2.c, conv.c, ops_runtime.c): the pass mode, the backend choice
 * (OPS_PICK), the uses of an op's tensors and the end of an op. Internal to ops/: the
 * networks call the entries of ops.h and ops_sam2.h, never these. */
#ifndef SAMRT_OPS_IMPL_H
#define SAMRT_OPS_IMPL_H

#include "ops.h"

static inline int planning(const struct samrt_op_ctx *c) { return c->ex->mode == SAMRT_EXEC_PLAN; }
#ifdef SAMRT_HAVE_CUDA
static inline int cuda(const struct samrt_op_ctx *c) { return c->backend == SAMRT_BACKEND_CUDA; }
#endif

/* The one backend choice of the op layer: the CUDA form when `backend` is SAMRT_BACKEND_CUDA,
 * the host form (the C reference of kernels/) otherwise. Both forms are expressions of type
 * enum samrt_status; a reference that returns nothing is written `(fn_ref(...), SAMRT_OK)`.
 * Host builds compile the host form only (the CUDA launchers are not declared there), so an
 * entry is written once for both builds. Every entry of ops/ that picks an implementation
 * picks it here:
 *     return OPS_PICK(c->backend, samrt_layernorm_cuda(&a, c->stream), samrt_layernorm_ref(&a)); */
#ifdef SAMRT_HAVE_CUDA
#define OPS_PICK(backend, cuda_form, host_form) ((backend) == SAMRT_BACKEND_CUDA ? (cuda_form) : (host_form))
#else
#define OPS_PICK(backend, cuda_form, host_form) ((void)(backend), (host_form))
#endif

/* Adds one op's work to the pass's cost (ops.h: struct samrt_op_cost): in a PLAN pass of the
 * CUDA backend that has not failed; bytes and flops are the op's whole, launches its kernels. */
void samrt_ops_cost_trace(const char *op, int64_t launches, double flops, double bytes);  /* SAMRT_COST_TRACE=1 */
static inline void cost_add_at(struct samrt_op_ctx *c, int64_t launches, double flops, double bytes, const char *op) {
    if (!planning(c) || c->backend != SAMRT_BACKEND_CUDA || c->ex->status != SAMRT_OK) return;
    samrt_ops_cost_trace(op, launches, flops, bytes);
    c->cost.launches += launches;
    c->cost.flops += flops;
    c->cost.bytes += bytes;
    c->cost.roof_s += samrt_op_roof_s(flops, bytes, launches, c->peak_flops, c->peak_bytes_s, c->launch_s);
}

#define cost_add(c, launches, flops, bytes) cost_add_at((c), (launches), (flops), (bytes), __func__)

/* Bytes of a tensor (0 for NULL): a launch that reads or writes it whole moves this. */
static inline double tbytes(const struct samrt_tensor *t) { return t ? (double)samrt_tensor_nbytes(t) : 0.0; }

/* Marks tensors (NULLs skipped) as used by the current step. */
static inline void use(struct samrt_op_ctx *c, const struct samrt_tensor *a, const struct samrt_tensor *b,
                       const struct samrt_tensor *d, const struct samrt_tensor *e) {
    samrt_exec_use(c->ex, a);
    samrt_exec_use(c->ex, b);
    samrt_exec_use(c->ex, d);
    samrt_exec_use(c->ex, e);
}

/* Wraps an op body: a failure sticks in the exec; the step advances either way. */
static inline void finish(struct samrt_op_ctx *c, enum samrt_status st) {
    samrt_ctx_fail(c, st);
    samrt_exec_step(c->ex);
}

static inline enum samrt_status check_contig(const struct samrt_tensor *t, const char *what) {
    SAMRT_CHECK(samrt_tensor_is_contiguous(t), SAMRT_E_INVALID_ARG, "ops: %s must be contiguous", what);
    return SAMRT_OK;
}

static inline enum samrt_status check_dtype(const struct samrt_tensor *t, enum samrt_dtype dt, const char *what) {
    SAMRT_CHECK(t->dtype == dt, SAMRT_E_INVALID_ARG, "ops: %s is %s, expected %s", what, samrt_dtype_name(t->dtype),
                samrt_dtype_name(dt));
    return SAMRT_OK;
}

#endif /* SAMRT_OPS_IMPL_H */
