/* ops.c - the op layer of ops.h: context, plan table, and the ops that use cuBLASLt / cuDNN
 * plans: linear, conv2d, convt2x2 (norms, pointwise, pooling and copies are in
 * ops_pointwise.c, attention and interp in ops_attn.c, the SAM 2 ops in ops_sam2.c).
 *
 * Every op follows one pattern: validate shapes (logged, PLAN mode catches every problem at
 * init), obtain the output with samrt_exec_new, mark inputs and output as used by this step,
 * then in RUN mode dispatch to the CUDA launcher or the C reference, then advance the step.
 * GEMM and convolution plans are made in PLAN mode, shared by every call with the same
 * descriptor (the same Linear shape in many blocks), and found again in RUN mode by call
 * position: the k-th plan-using op of a RUN pass is the k-th of the PLAN pass, because the
 * sequence of ops never depends on data.
 *
 * Alignment promised to cuBLASLt is derived from the actual pointers and strides. It is the
 * same in both passes: PLAN-mode pointers are exec tags that keep every view offset, and
 * tags, like arena slots, are 256-byte aligned. */
#include "ops_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SAMRT_COST_TRACE=1: every op's planned launches to stderr as its PLAN pass records them
 * (ops_impl.h cost_add), to match a frame's plan with its graph (SAMRT_GRAPH_DOT, platform/host_cuda.c). */
int samrt_ctx_cost_tracing(void) {
    static int on = -1;
    if (on < 0) {
        const char *env = getenv("SAMRT_COST_TRACE");
        on = env && env[0] == '1';
    }
    return on;
}

void samrt_ops_cost_trace(const char *op, int64_t launches, double flops, double bytes) {
    if (samrt_ctx_cost_tracing())
        fprintf(stderr, "plan op %s: %lld launches %.0f flops %.0f bytes\n", op, (long long)launches, flops, bytes);
}

/* ---- context --------------------------------------------------------------------------------- */

#ifdef SAMRT_HAVE_CUDA
enum samrt_status samrt_ctx_init_backend(struct samrt_op_ctx *c, enum samrt_backend backend,
                                       enum samrt_dtype dtype, const struct samrt_gpu_ctx *gpu,
                                       struct samrt_exec *ex, struct samrt_plan *plan)
#else
enum samrt_status samrt_ctx_init_backend(struct samrt_op_ctx *c, enum samrt_backend backend,
                                       enum samrt_dtype dtype, const void *gpu, struct samrt_exec *ex,
                                       struct samrt_plan *plan)
#endif
{
    memset(c, 0, sizeof *c);
    SAMRT_CHECK(ex && plan, SAMRT_E_INVALID_ARG, "ops: exec and plan are required");
    SAMRT_CHECK(dtype == SAMRT_DTYPE_F32 || dtype == SAMRT_DTYPE_F16 || dtype == SAMRT_DTYPE_BF16,
                SAMRT_E_INVALID_ARG, "ops: run dtype %s", samrt_dtype_name(dtype));
    SAMRT_CHECK(backend != SAMRT_BACKEND_CPU || dtype == SAMRT_DTYPE_F32, SAMRT_E_UNSUPPORTED,
                "ops: the CPU backend runs f32 only (asked for %s)", samrt_dtype_name(dtype));
#ifdef SAMRT_HAVE_CUDA
    /* CUDA backend without a gpu ctx: plan only (a budget on a machine without a GPU); the
     * plan sizes are the same, no library plan is made and RUN passes are refused */
    c->gpu = gpu;
#else
    (void)gpu;  /* a CUDA-backend context in a CPU build can plan (samrt budget), never run */
#endif
    c->backend = backend;
    c->dtype = dtype;
    c->ex = ex;
    c->plan = plan;
    c->plans = calloc(SAMRT_OPS_MAX_PLANS, sizeof *c->plans);
    SAMRT_CHECK(c->plans != NULL, SAMRT_E_HOST_MEMORY, "ops: out of host memory");
    return SAMRT_OK;
}

void samrt_ctx_free(struct samrt_op_ctx *c) {
    if (!c) return;
#ifdef SAMRT_HAVE_CUDA
    for (int i = 0; c->plans && i < c->n_plans; i++) {
        struct samrt_ctx_plan *p = &c->plans[i];
        if (c->backend != SAMRT_BACKEND_CUDA) continue;
        if (p->kind == SAMRT_OPS_PLAN_GEMM) samrt_gemm_plan_free(&p->g);
        else if (p->kind == SAMRT_OPS_PLAN_CONV) samrt_conv_plan_free(&p->cv);
        else if (p->kind == SAMRT_OPS_PLAN_CONVT) samrt_convt2x2_plan_free(&p->ct);
    }
#endif
    free(c->plans);
    c->plans = NULL;
    c->n_plans = 0;
}

void samrt_ctx_begin(struct samrt_op_ctx *c, enum samrt_exec_mode mode, const struct samrt_arena *arena) {
    samrt_exec_begin(c->ex, mode, c->plan, arena);
#ifdef SAMRT_HAVE_CUDA
    const int runnable = c->backend == SAMRT_BACKEND_CPU || c->gpu != NULL;
#else
    const int runnable = c->backend == SAMRT_BACKEND_CPU;
#endif
    if (mode == SAMRT_EXEC_RUN && !runnable) {
        SAMRT_LOG_ERROR("ops: this context was planned without a GPU and cannot run");
        c->ex->status = SAMRT_E_BAD_STATE;
    }
    if (mode == SAMRT_EXEC_PLAN) {
        c->n_calls = 0;
        memset(&c->cost, 0, sizeof c->cost);
        if (samrt_ctx_cost_tracing()) fprintf(stderr, "plan pass %p\n", (void *)c);
        if (c->step_base) c->ex->step = *c->step_base;
    }
    c->i_call = 0;
}

enum samrt_status samrt_ctx_end(struct samrt_op_ctx *c) {
    enum samrt_status st = samrt_exec_end(c->ex);
    if (st != SAMRT_OK) return st;
    if (c->ex->mode == SAMRT_EXEC_PLAN) {
        if (c->step_base) *c->step_base = c->ex->step + 1;
        return SAMRT_OK;
    }
    SAMRT_CHECK(c->i_call == c->n_calls, SAMRT_E_BAD_STATE, "ops: run pass used %d plans, the plan pass %d",
                c->i_call, c->n_calls);
    return SAMRT_OK;
}

#ifdef SAMRT_HAVE_CUDA
/* The CUDA forms of copy_bytes and samrt_ctx_sync. */
static enum samrt_status copy_cuda(const struct samrt_op_ctx *c, void *dst, const void *src, size_t bytes, int async) {
    if (async) SAMRT_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, c->stream));
    else SAMRT_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
    return SAMRT_OK;
}

static enum samrt_status sync_cuda(const struct samrt_op_ctx *c) {
    SAMRT_CUDA_TRY(cudaStreamSynchronize(c->stream));
    return SAMRT_OK;
}
#endif

/* Bytes between host and arena on c's backend: for the CUDA backend cudaMemcpyAsync on c's
 * stream (async) or cudaMemcpy (on the legacy stream, returns when done); memcpy for the CPU. */
static enum samrt_status copy_bytes(const struct samrt_op_ctx *c, void *dst, const void *src, size_t bytes,
                                    int async) {
    (void)async;  /* the host form is done when it returns */
    return OPS_PICK(c->backend, copy_cuda(c, dst, src, bytes, async), (memcpy(dst, src, bytes), SAMRT_OK));
}

enum samrt_status samrt_ctx_memcpy(const struct samrt_op_ctx *c, void *dst, const void *src, size_t bytes) {
    return copy_bytes(c, dst, src, bytes, 1);
}

enum samrt_status samrt_ctx_fetch(const struct samrt_op_ctx *c, void *dst, const void *src, size_t bytes) {
    return copy_bytes(c, dst, src, bytes, 0);
}

enum samrt_status samrt_ctx_sync(const struct samrt_op_ctx *c) { return OPS_PICK(c->backend, sync_cuda(c), SAMRT_OK); }

void samrt_ctx_use_gpu_stream(struct samrt_op_ctx *c) {
#ifdef SAMRT_HAVE_CUDA
    c->stream = c->backend == SAMRT_BACKEND_CUDA && c->gpu ? c->gpu->stream : NULL;
#else
    (void)c;
#endif
}

void samrt_ctx_fail(struct samrt_op_ctx *c, enum samrt_status st) {
    if (c->ex->status == SAMRT_OK && st != SAMRT_OK) c->ex->status = st;
}

enum samrt_status samrt_ctx_persistent(struct samrt_op_ctx *c, const char *name, enum samrt_region region,
                                       enum samrt_dtype dtype, int n_dims, const int64_t *ne,
                                       struct samrt_tensor *t, int *slot) {
    SAMRT_CHECK(region != SAMRT_REGION_SCRATCH, SAMRT_E_INVALID_ARG, "ops: %s: scratch tensors come from passes",
                name ? name : "?");
    *t = samrt_tensor_make(NULL, dtype, n_dims, ne);
    return samrt_plan_add(c->plan, name, region, samrt_tensor_nbytes(t), 0, 0, slot);
}

struct samrt_tensor samrt_op_new(struct samrt_op_ctx *c, const char *name, enum samrt_dtype dtype, int n_dims,
                                 const int64_t *ne) {
    return samrt_exec_new(c->ex, name, SAMRT_REGION_SCRATCH, dtype, n_dims, ne);
}

void samrt_op_tap(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *t) {
    if (samrt_ctx_tapping(c)) samrt_ctx_fail(c, c->tap(c->tap_user, name, t));
}

/* ---- shape helpers --------------------------------------------------------------------------- */

/* x as rows: (m, k) with row stride *s_row; leading dims must collapse at that stride. */
static enum samrt_status as_rows(const struct samrt_tensor *x, int64_t *m, int64_t *k, int64_t *s_row) {
    SAMRT_CHECK(x->n_dims >= 1, SAMRT_E_INVALID_ARG, "ops: scalar where rows are expected");
    const int last = x->n_dims - 1;
    SAMRT_CHECK(x->s[last] == 1 || x->ne[last] == 1, SAMRT_E_INVALID_ARG, "ops: last dim is not contiguous");
    *k = x->ne[last];
    *s_row = x->n_dims >= 2 ? x->s[last - 1] : *k;
    *m = 1;
    for (int d = last - 1; d >= 0; d--) {
        if (d < last - 1 && x->ne[d] > 1)
            SAMRT_CHECK(x->s[d] == x->s[d + 1] * x->ne[d + 1], SAMRT_E_INVALID_ARG,
                        "ops: leading dims do not collapse into rows (dim %d)", d);
        *m *= x->ne[d];
    }
    if (*m == 1) *s_row = *k;
    return SAMRT_OK;
}

/* Largest power of two <= 16 dividing the address and every byte stride given. */
static unsigned align_of(const void *p, const int64_t *nb, int n) {
    unsigned a = 16;
    while (a > 1 && ((uintptr_t)p % a)) a /= 2;
    for (int i = 0; i < n; i++)
        while (a > 1 && (nb[i] % a)) a /= 2;
    return a;
}

static enum samrt_epilogue epilogue_of(enum samrt_act act, int has_bias) {
    if (!has_bias) return SAMRT_EPILOGUE_NONE;
    return act == SAMRT_ACT_GELU ? SAMRT_EPILOGUE_BIAS_GELU
         : act == SAMRT_ACT_RELU ? SAMRT_EPILOGUE_BIAS_RELU : SAMRT_EPILOGUE_BIAS;
}

/* ---- plan table ------------------------------------------------------------------------------- */

static int gemm_desc_eq(const struct samrt_gemm_desc *a, const struct samrt_gemm_desc *b) {
    return a->m == b->m && a->n == b->n && a->k == b->k && a->s_x == b->s_x && a->s_w == b->s_w &&
           a->s_y == b->s_y && a->n_batch == b->n_batch && a->sb_x == b->sb_x && a->sb_w == b->sb_w &&
           a->sb_y == b->sb_y && a->sb_b == b->sb_b && a->alpha == b->alpha && a->epilogue == b->epilogue &&
           a->residual == b->residual && a->dt_in == b->dt_in && a->dt_out == b->dt_out &&
           a->align_bytes == b->align_bytes && a->allow_tf32 == b->allow_tf32 &&
           a->force_library == b->force_library;
}

static int conv_desc_eq(const struct samrt_conv_desc *a, const struct samrt_conv_desc *b) {
    return a->n == b->n && a->c_in == b->c_in && a->h == b->h && a->w == b->w && a->c_out == b->c_out &&
           a->kh == b->kh && a->kw == b->kw && a->stride_h == b->stride_h && a->stride_w == b->stride_w &&
           a->pad_h == b->pad_h && a->pad_w == b->pad_w && a->groups == b->groups && a->layout == b->layout &&
           a->dtype == b->dtype && a->epilogue == b->epilogue && a->residual == b->residual &&
           a->allow_tf32 == b->allow_tf32 && a->force_library == b->force_library;
}

static int convt_desc_eq(const struct samrt_convt2x2_desc *a, const struct samrt_convt2x2_desc *b) {
    return a->n == b->n && a->c_in == b->c_in && a->h == b->h && a->w == b->w && a->c_out == b->c_out &&
           a->dtype == b->dtype && a->epilogue == b->epilogue && a->residual == b->residual;
}

static int plan_matches(const struct samrt_ctx_plan *p, const struct samrt_ctx_plan *want) {
    if (p->kind != want->kind) return 0;
    if (p->kind == SAMRT_OPS_PLAN_GEMM) return gemm_desc_eq(&p->gemm, &want->gemm);
    if (p->kind == SAMRT_OPS_PLAN_CONV) return conv_desc_eq(&p->conv, &want->conv);
    return convt_desc_eq(&p->convt, &want->convt);
}

/* PLAN: finds or creates the plan for `want` and records the call. RUN: the plan of the next
 * call, checked against `want`. *out is the table entry. */
static enum samrt_status plan_for(struct samrt_op_ctx *c, const struct samrt_ctx_plan *want,
                                  const struct samrt_ctx_plan **out) {
    if (!planning(c)) {
        if (c->i_call >= c->n_calls) return SAMRT_E_BAD_STATE;
        const struct samrt_ctx_plan *p = &c->plans[c->calls[c->i_call++]];
        if (!plan_matches(p, want)) return SAMRT_E_BAD_STATE;
        *out = p;
        return SAMRT_OK;
    }
    SAMRT_CHECK(c->n_calls < SAMRT_OPS_MAX_CALLS, SAMRT_E_UNSUPPORTED, "ops: more than %d planned calls",
                SAMRT_OPS_MAX_CALLS);
    int idx = -1;
    for (int i = 0; i < c->n_plans && idx < 0; i++)
        if (plan_matches(&c->plans[i], want)) idx = i;
    if (idx < 0) {
        SAMRT_CHECK(c->n_plans < SAMRT_OPS_MAX_PLANS, SAMRT_E_UNSUPPORTED, "ops: more than %d distinct plans",
                    SAMRT_OPS_MAX_PLANS);
        struct samrt_ctx_plan *p = &c->plans[c->n_plans];
        *p = *want;
        if (want->kind == SAMRT_OPS_PLAN_GEMM) SAMRT_TRY(samrt_gemm_desc_check(&want->gemm));
        else if (want->kind == SAMRT_OPS_PLAN_CONV) SAMRT_TRY(samrt_conv_desc_check(&want->conv));
#ifdef SAMRT_HAVE_CUDA
        if (cuda(c) && c->gpu) {
            if (want->kind == SAMRT_OPS_PLAN_GEMM)
                SAMRT_TRY(samrt_gemm_plan_init(c->gpu, &want->gemm, c->ws_lt_bytes, &p->g));
            else if (want->kind == SAMRT_OPS_PLAN_CONV)
                SAMRT_TRY(samrt_conv_plan_init(c->gpu, &want->conv, c->ws_dnn_bytes, NULL, &p->cv));
            else
                SAMRT_TRY(samrt_convt2x2_plan_init(c->gpu, &want->convt, c->ws_lt_bytes, &p->ct));
        }
#endif
        idx = c->n_plans++;
    }
    c->calls[c->n_calls++] = idx;
    *out = &c->plans[idx];
    return SAMRT_OK;
}

/* ---- linear ------------------------------------------------------------------------------------ */

/* SAMRT_GEMM_UNFUSED=1: every Linear on cuBLASLt and the GELU pass, even where the fused kernel
 * applies (gemm.h force_library), to time one against the other in a whole frame. */
static int gemm_unfused(void) {
    static int on = -1;
    if (on < 0) {
        const char *env = getenv("SAMRT_GEMM_UNFUSED");
        on = env && env[0] == '1';
    }
    return on;
}

static enum samrt_status linear_impl(struct samrt_op_ctx *c, const struct samrt_tensor *x,
                                     const struct samrt_tensor *w, const struct samrt_tensor *b, enum samrt_act act,
                                     const struct samrt_tensor *r, const struct samrt_tensor *y) {
    use(c, x, w, b, r);
    samrt_exec_use(c->ex, y);
    SAMRT_TRY(c->ex->status);
    int64_t m, k, s_x, m_y, n, s_y;
    SAMRT_TRY(as_rows(x, &m, &k, &s_x));
    SAMRT_TRY(as_rows(y, &m_y, &n, &s_y));
    SAMRT_CHECK(m_y == m && s_y == n, SAMRT_E_INVALID_ARG, "linear: output is not (%lld, %lld) contiguous",
                (long long)m, (long long)n);
    const int64_t k_w = w->n_dims == 4 ? w->ne[1] * w->ne[2] * w->ne[3] : w->ne[1];
    SAMRT_CHECK((w->n_dims == 2 || (w->n_dims == 4 && w->ne[2] == 1 && w->ne[3] == 1)) && w->ne[0] == n &&
                    k_w == k, SAMRT_E_INVALID_ARG, "linear: weight (%lld, %lld) for x (.., %lld) -> (.., %lld)",
                (long long)w->ne[0], (long long)k_w, (long long)k, (long long)n);
    SAMRT_CHECK(!b || samrt_tensor_nelements(b) == n, SAMRT_E_INVALID_ARG, "linear: bias length");
    SAMRT_CHECK(act == SAMRT_ACT_NONE || ((act == SAMRT_ACT_GELU || act == SAMRT_ACT_RELU) && b),
                SAMRT_E_UNSUPPORTED, "linear: activation %d needs a bias and must be GELU or ReLU", (int)act);
    SAMRT_CHECK(x->dtype == w->dtype && (y->dtype == x->dtype || y->dtype == SAMRT_DTYPE_F32), SAMRT_E_INVALID_ARG,
                "linear: dtypes x %s w %s y %s", samrt_dtype_name(x->dtype), samrt_dtype_name(w->dtype),
                samrt_dtype_name(y->dtype));
    if (b) SAMRT_TRY(check_dtype(b, y->dtype, "linear bias"));
    if (r) {
        SAMRT_TRY(check_contig(r, "linear residual"));
        SAMRT_TRY(check_dtype(r, y->dtype, "linear residual"));
        SAMRT_CHECK(samrt_tensor_nelements(r) == m * n && r->data != y->data, SAMRT_E_INVALID_ARG,
                    "linear: residual must have the output's shape and not alias it");
    }
    struct samrt_ctx_plan want;
    memset(&want, 0, sizeof want);
    want.kind = SAMRT_OPS_PLAN_GEMM;
    struct samrt_gemm_desc *d = &want.gemm;
    *d = samrt_gemm_desc_make(m, n, k, x->dtype, y->dtype, epilogue_of(act, b != NULL));
    d->s_x = s_x;
    d->residual = r != NULL;
    d->force_library = gemm_unfused();
    const size_t es = samrt_dtype_size(x->dtype), eo = samrt_dtype_size(y->dtype);
    const int64_t nb[3] = {s_x * (int64_t)es, k * (int64_t)es, n * (int64_t)eo};
    unsigned a = align_of(x->data, nb, 3);
    a = SAMRT_MIN(a, align_of(w->data, NULL, 0));
    a = SAMRT_MIN(a, align_of(y->data, NULL, 0));
    if (b) a = SAMRT_MIN(a, align_of(b->data, NULL, 0));
    if (r) a = SAMRT_MIN(a, align_of(r->data, NULL, 0));
    d->align_bytes = SAMRT_MAX(a, (unsigned)SAMRT_MAX(es, eo));
    const struct samrt_ctx_plan *p = NULL;
    SAMRT_TRY(plan_for(c, &want, &p));
    if (planning(c)) {  /* exact GELU: in the GEMM's epilogue (gemm.h), else our pass after cuBLASLt */
        int pass = act == SAMRT_ACT_GELU && !samrt_gemm_fuses_gelu(d);
        int kernels = 1 + pass;
#ifdef SAMRT_HAVE_CUDA
        if (cuda(c) && c->gpu) {  /* what the plan launches (the device may not take the fused kernel) */
            pass = act == SAMRT_ACT_GELU && !p->g.fused;
            kernels = p->g.n_kernels;
        }
#endif
        const double mn = (double)m * (double)n;
        const double gelu = act == SAMRT_ACT_GELU ? 8.0 * mn : 0;
        cost_add(c, kernels, 2.0 * mn * (double)k + (b ? mn : 0) + (r ? mn : 0) + gelu,
                 (double)m * (double)k * (double)es + tbytes(w) + mn * (double)eo * (1 + (r != NULL) + 2 * pass) +
                     tbytes(b));
    }
    if (!samrt_exec_running(c->ex)) return SAMRT_OK;
    const void *bd = b ? b->data : NULL, *rd = r ? r->data : NULL;
    return OPS_PICK(c->backend,
                    samrt_gemm_cuda(&p->g, x->data, w->data, bd, rd, y->data, c->ws_lt, c->ws_lt_bytes, c->stream),
                    (samrt_gemm_ref(d, x->data, w->data, bd, rd, y->data), SAMRT_OK));
}

static struct samrt_tensor new_like_rows(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                         int64_t last, enum samrt_dtype dt) {
    int64_t ne[SAMRT_MAX_DIMS];
    int nd = x->n_dims ? x->n_dims : 1;
    for (int i = 0; i < nd; i++) ne[i] = x->n_dims ? x->ne[i] : 1;
    ne[nd - 1] = last;
    return samrt_op_new(c, name, dt, nd, ne);
}

struct samrt_tensor samrt_op_linear(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                    const struct samrt_tensor *w, const struct samrt_tensor *b, enum samrt_act act,
                                    const struct samrt_tensor *residual) {
    struct samrt_tensor y = new_like_rows(c, name, x, w->ne[0], x->dtype);
    finish(c, linear_impl(c, x, w, b, act, residual, &y));
    return y;
}

void samrt_op_linear_into(struct samrt_op_ctx *c, const struct samrt_tensor *x, const struct samrt_tensor *w,
                          const struct samrt_tensor *b, enum samrt_act act, const struct samrt_tensor *residual,
                          const struct samrt_tensor *out) {
    finish(c, linear_impl(c, x, w, b, act, residual, out));
}

/* ---- convolutions ------------------------------------------------------------------------------ */

/* The host form of a planned conv: the depthwise reference where the desc is one, else the
 * direct reference. */
static enum samrt_status conv_host(const struct samrt_conv_desc *d, const float *x, const float *w, const float *b,
                                   float *y) {
    struct samrt_dwconv_desc dw;
    if (samrt_conv_as_dwconv(d, &dw)) samrt_dwconv_ref(&dw, x, w, b, NULL, y);
    else samrt_conv_ref(d, x, w, b, NULL, y);
    return SAMRT_OK;
}

/* A planned conv's cost: our depthwise kernel (epilogue fused) where the desc is one it takes
 * (samrt_conv_cuda's rule; the arena's 256-byte slots meet its alignment), else cuDNN's kernel
 * and, with a bias, activation or residual, our epilogue pass over the output. */
static void conv_cost(struct samrt_op_ctx *c, const struct samrt_ctx_plan *p, const struct samrt_tensor *x,
                      const struct samrt_tensor *w, const struct samrt_tensor *b, const struct samrt_tensor *y) {
    const struct samrt_conv_desc *d = &p->conv;
    int ho = 0, wo = 0;
    samrt_conv_out_hw(d, &ho, &wo);
    const double out = (double)d->n * ho * wo * d->c_out;
    const double flops = 2.0 * out * (double)(d->c_in / d->groups) * d->kh * d->kw + (b ? out : 0);
    struct samrt_dwconv_desc dw;
    if (samrt_conv_as_dwconv(d, &dw) && samrt_dwconv_supported(&dw, NULL, NULL, NULL, NULL, NULL)) {
        cost_add(c, 1, flops, tbytes(x) + tbytes(w) + tbytes(b) + tbytes(y));
        return;
    }
    const int pass = b || d->residual || samrt_epilogue_act(d->epilogue) != SAMRT_EPILOGUE_ACT_NONE;
    int kernels = 1 + pass;  /* a GPU engine knows what cuDNN's algorithm launches (layout transforms) */
#ifdef SAMRT_HAVE_CUDA
    if (cuda(c) && c->gpu) kernels = p->cv.n_kernels;
#endif
    cost_add(c, kernels, flops, tbytes(x) + tbytes(w) + tbytes(y) * (1 + 2 * pass) + tbytes(b));
}

static enum samrt_status conv_impl(struct samrt_op_ctx *c, const struct samrt_tensor *x,
                                   const struct samrt_tensor *w, const struct samrt_tensor *b,
                                   const struct samrt_ctx_plan *want, const struct samrt_tensor *y) {
    use(c, x, w, b, y);
    SAMRT_TRY(c->ex->status);
    const struct samrt_ctx_plan *p = NULL;
    SAMRT_TRY(plan_for(c, want, &p));
    if (planning(c)) conv_cost(c, p, x, w, b, y);
    if (!samrt_exec_running(c->ex)) return SAMRT_OK;
    const void *bd = b ? b->data : NULL;
    return OPS_PICK(c->backend,
                    samrt_conv_cuda(&p->cv, x->data, w->data, bd, NULL, y->data, c->ws_dnn, c->ws_dnn_bytes, c->stream),
                    conv_host(&p->conv, x->data, w->data, bd, y->data));
}

struct samrt_tensor samrt_op_conv2d(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                    const struct samrt_tensor *w, const struct samrt_tensor *b, int stride, int pad,
                                    int groups, enum samrt_conv_layout layout, enum samrt_act act) {
    const int nhwc = layout == SAMRT_CONV_NHWC;
    const int64_t n = x->ne[0], ci = nhwc ? x->ne[3] : x->ne[1], h = nhwc ? x->ne[1] : x->ne[2],
                  wd = nhwc ? x->ne[2] : x->ne[3];
    const int64_t k = nhwc ? w->ne[1] : w->ne[2], co = w->ne[0];
    struct samrt_ctx_plan want;
    memset(&want, 0, sizeof want);
    want.kind = SAMRT_OPS_PLAN_CONV;
    want.conv = samrt_conv_desc_make((int)n, (int)ci, (int)h, (int)wd, (int)co, (int)k, stride, pad, groups, layout,
                                     x->dtype, epilogue_of(act, b != NULL));
    int ho = 0, wo = 0;
    samrt_conv_out_hw(&want.conv, &ho, &wo);
    const int64_t ne[4] = {n, nhwc ? ho : co, nhwc ? wo : ho, nhwc ? co : wo};
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, 4, ne);
    enum samrt_status st = SAMRT_OK;
    if (planning(c) && samrt_ctx_ok(c)) {
        const int64_t cpg = groups > 0 ? ci / groups : 0;
        const int w_ok = w->n_dims == 4 && (nhwc ? (w->ne[1] == w->ne[2] && w->ne[3] == cpg)
                                                 : (w->ne[2] == w->ne[3] && w->ne[1] == cpg));
        if (x->n_dims != 4 || !samrt_tensor_is_contiguous(x) || !w_ok || (b && samrt_tensor_nelements(b) != co) ||
            (act != SAMRT_ACT_NONE && act != SAMRT_ACT_GELU && act != SAMRT_ACT_RELU) ||
            (act != SAMRT_ACT_NONE && !b)) {
            SAMRT_LOG_ERROR("conv2d %s: x must be contiguous 4-D, w (out, %s) with groups %d, bias (out) for an "
                            "activation", name ? name : "?", nhwc ? "k, k, in/g" : "in/g, k, k", groups);
            st = SAMRT_E_INVALID_ARG;
        }
    }
    finish(c, st != SAMRT_OK ? st : conv_impl(c, x, w, b, &want, &y));
    return y;
}

/* The host form of convt2x2: the same two GEMMs as the CUDA path (conv.h), on the reference. */
static enum samrt_status convt2x2_host(const struct samrt_convt2x2_desc *d, const float *x, const float *w_packed,
                                       const float *b_packed, float *y) {
    const struct samrt_gemm_desc g = samrt_convt2x2_gemm_desc(d);
    const int64_t off_y = 2 * (int64_t)d->w * d->c_out, off_w = 2 * (int64_t)d->c_out * d->c_in;
    for (int dy = 0; dy < 2; dy++) samrt_gemm_ref(&g, x, w_packed + dy * off_w, b_packed, NULL, y + dy * off_y);
    return SAMRT_OK;
}

struct samrt_tensor samrt_op_convt2x2(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                      const struct samrt_tensor *w_packed, const struct samrt_tensor *b_packed,
                                      int c_out, enum samrt_act act) {
    struct samrt_ctx_plan want;
    memset(&want, 0, sizeof want);
    want.kind = SAMRT_OPS_PLAN_CONVT;
    want.convt = (struct samrt_convt2x2_desc){(int)x->ne[0], (int)x->ne[3], (int)x->ne[1], (int)x->ne[2], c_out,
                                              x->dtype, epilogue_of(act, b_packed != NULL), 0};
    const int64_t ne[4] = {x->ne[0], 2 * x->ne[1], 2 * x->ne[2], c_out};
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, 4, ne);
    use(c, x, w_packed, b_packed, &y);
    enum samrt_status st = c->ex->status;
    if (st == SAMRT_OK && planning(c) &&
        (x->n_dims != 4 || !samrt_tensor_is_contiguous(x) ||
         samrt_tensor_nelements(w_packed) != 4 * (int64_t)c_out * x->ne[3] ||
         (b_packed && samrt_tensor_nelements(b_packed) != 2 * (int64_t)c_out))) {
        SAMRT_LOG_ERROR("convt2x2 %s: x (N, H, W, C) contiguous, packed w (2, 2*out, in), b (2*out)", name ? name : "?");
        st = SAMRT_E_INVALID_ARG;
    }
    const struct samrt_ctx_plan *p = NULL;
    if (st == SAMRT_OK) st = plan_for(c, &want, &p);
    if (st == SAMRT_OK && planning(c)) {  /* two GEMMs (conv.h), each with its GELU pass */
        const int pass = act == SAMRT_ACT_GELU;
        int kernels = 1 + pass;
#ifdef SAMRT_HAVE_CUDA
        if (cuda(c) && c->gpu) kernels = p->ct.gemm.n_kernels;
#endif
        const double rows = (double)x->ne[0] * x->ne[1] * x->ne[2];
        cost_add(c, 2 * kernels, 2.0 * rows * 4.0 * c_out * (double)x->ne[3],
                 2.0 * tbytes(x) + tbytes(w_packed) + 2.0 * tbytes(b_packed) + tbytes(&y) * (1 + 2 * pass));
    }
    if (st == SAMRT_OK && samrt_exec_running(c->ex)) {
        const void *bp = b_packed ? b_packed->data : NULL;
        st = OPS_PICK(c->backend,
                      samrt_convt2x2_cuda(&p->ct, x->data, w_packed->data, bp, NULL, y.data, c->ws_lt, c->ws_lt_bytes,
                                          c->stream),
                      convt2x2_host(&want.convt, x->data, w_packed->data, bp, y.data));
    }
    finish(c, st);
    return y;
}
