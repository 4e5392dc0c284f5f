/* ops_pointwise.c - the ops of ops.h that need no library plan: LayerNorm (tokens and NCHW),
 * pointwise (unary, scaled add, per-channel affine), the 1-D sine position encoding, pooling
 * (max 2x2, channel mean) and copies. Each validates in PLAN mode, then in RUN mode launches
 * the CUDA kernel or runs the C reference of kernels/ (the pattern of ops.c). */
#include "ops_impl.h"

#include "copy.h"
#include "layernorm.h"
#include "pool.h"
#include "sine_pe.h"

/* ---- norms ------------------------------------------------------------------------------------- */

static enum samrt_status layernorm_impl(struct samrt_op_ctx *c, const struct samrt_tensor *x,
                                        const struct samrt_tensor *w, const struct samrt_tensor *b,
                                        const struct samrt_tensor *r, float eps, const struct samrt_tensor *y,
                                        const struct samrt_tensor *sum) {
    use(c, x, w, b, r);
    use(c, y, sum, NULL, NULL);
    SAMRT_TRY(c->ex->status);
    const int64_t n_cols = x->ne[x->n_dims - 1];
    if (planning(c)) {
        SAMRT_TRY(check_contig(x, "layernorm input"));
        SAMRT_CHECK(!w || samrt_tensor_nelements(w) == n_cols, SAMRT_E_INVALID_ARG, "layernorm: weight length");
        SAMRT_CHECK(!b || samrt_tensor_nelements(b) == n_cols, SAMRT_E_INVALID_ARG, "layernorm: bias length");
        if (r) SAMRT_TRY(check_contig(r, "layernorm residual"));
        SAMRT_CHECK(!r || samrt_tensor_nelements(r) == samrt_tensor_nelements(x), SAMRT_E_INVALID_ARG,
                    "layernorm: residual shape");
    }
    struct samrt_layernorm_args a = {.dtype = x->dtype, .n_rows = samrt_tensor_nelements(x) / n_cols,
                                     .n_cols = (int32_t)n_cols, .eps = eps, .x = x->data,
                                     .residual = r ? r->data : NULL, .weight = w ? w->data : NULL,
                                     .bias = b ? b->data : NULL, .out = y->data, .sum_out = sum ? sum->data : NULL};
    cost_add(c, 1, 8.0 * (double)samrt_tensor_nelements(x),
             tbytes(x) + tbytes(r) + tbytes(w) + tbytes(b) + tbytes(y) + tbytes(sum));
    if (!samrt_exec_running(c->ex)) return SAMRT_OK;
    return OPS_PICK(c->backend, samrt_layernorm_cuda(&a, c->stream), samrt_layernorm_ref(&a));
}

struct samrt_tensor samrt_op_layernorm(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                       const struct samrt_tensor *w, const struct samrt_tensor *b,
                                       const struct samrt_tensor *residual, float eps,
                                       struct samrt_tensor *sum_out) {
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, x->n_dims, x->ne);
    if (sum_out) *sum_out = samrt_op_new(c, name, x->dtype, x->n_dims, x->ne);
    finish(c, layernorm_impl(c, x, w, b, residual, eps, &y, sum_out));
    return y;
}

static enum samrt_status layernorm2d_impl(struct samrt_op_ctx *c, const struct samrt_tensor *x,
                                          const struct samrt_tensor *w, const struct samrt_tensor *b,
                                          const struct samrt_tensor *r, float eps, enum samrt_act act,
                                          const struct samrt_tensor *y) {
    use(c, x, w, b, r);
    samrt_exec_use(c->ex, y);
    SAMRT_TRY(c->ex->status);
    if (planning(c)) {
        SAMRT_CHECK(x->n_dims == 4, SAMRT_E_INVALID_ARG, "layernorm2d: x must be (N, C, H, W)");
        SAMRT_TRY(check_contig(x, "layernorm2d input"));
        if (r) SAMRT_TRY(check_contig(r, "layernorm2d residual"));
    }
    struct samrt_layernorm2d_args a = {.dtype = x->dtype, .n_batch = x->ne[0], .n_channels = (int32_t)x->ne[1],
                                       .n_pixels = x->ne[2] * x->ne[3], .eps = eps, .act = act, .x = x->data,
                                       .residual = r ? r->data : NULL, .weight = w ? w->data : NULL,
                                       .bias = b ? b->data : NULL, .out = y->data};
    cost_add(c, 1, 8.0 * (double)samrt_tensor_nelements(x), tbytes(x) + tbytes(r) + tbytes(w) + tbytes(b) + tbytes(y));
    if (!samrt_exec_running(c->ex)) return SAMRT_OK;
    return OPS_PICK(c->backend, samrt_layernorm2d_cuda(&a, c->stream), samrt_layernorm2d_ref(&a));
}

struct samrt_tensor samrt_op_layernorm2d(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                         const struct samrt_tensor *w, const struct samrt_tensor *b,
                                         const struct samrt_tensor *residual, float eps, enum samrt_act act) {
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, x->n_dims, x->ne);
    finish(c, layernorm2d_impl(c, x, w, b, residual, eps, act, &y));
    return y;
}

/* ---- pointwise --------------------------------------------------------------------------------- */

static enum samrt_status unary_impl(struct samrt_op_ctx *c, const struct samrt_tensor *x, enum samrt_act act,
                                    float alpha, float beta, const struct samrt_tensor *y) {
    use(c, x, y, NULL, NULL);
    SAMRT_TRY(c->ex->status);
    if (planning(c)) SAMRT_TRY(check_contig(x, "unary input"));
    struct samrt_unary_args a = {x->dtype, act, samrt_tensor_nelements(x), alpha, beta, x->data, y->data};
    if (planning(c)) SAMRT_CHECK(a.n < ((int64_t)1 << 31), SAMRT_E_UNSUPPORTED, "unary: too many elements");
    cost_add(c, 1, 4.0 * (double)a.n, tbytes(x) + tbytes(y));
    if (!samrt_exec_running(c->ex)) return SAMRT_OK;
    return OPS_PICK(c->backend, samrt_unary_cuda(&a, c->stream), samrt_unary_ref(&a));
}

struct samrt_tensor samrt_op_unary(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                   enum samrt_act act, float alpha, float beta) {
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, x->n_dims, x->ne);
    finish(c, unary_impl(c, x, act, alpha, beta, &y));
    return y;
}

static enum samrt_status add_impl(struct samrt_op_ctx *c, const struct samrt_tensor *x,
                                  const struct samrt_tensor *y, float fa, float fb, const struct samrt_tensor *out) {
    use(c, x, y, out, NULL);
    SAMRT_TRY(c->ex->status);
    if (planning(c)) {
        SAMRT_TRY(check_contig(x, "add input"));
        SAMRT_TRY(check_contig(y, "add input"));
        SAMRT_CHECK(samrt_tensor_nelements(x) == samrt_tensor_nelements(y) && x->dtype == y->dtype,
                    SAMRT_E_INVALID_ARG, "add: shapes or dtypes differ");
    }
    struct samrt_add_scaled_args a = {x->dtype, samrt_tensor_nelements(x), fa, fb, x->data, y->data, out->data};
    cost_add(c, 1, 3.0 * (double)a.n, tbytes(x) + tbytes(y) + tbytes(out));
    if (!samrt_exec_running(c->ex)) return SAMRT_OK;
    return OPS_PICK(c->backend, samrt_add_scaled_cuda(&a, c->stream), samrt_add_scaled_ref(&a));
}

struct samrt_tensor samrt_op_add_scaled(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                        const struct samrt_tensor *y, float a, float b) {
    struct samrt_tensor out = samrt_op_new(c, name, x->dtype, x->n_dims, x->ne);
    finish(c, add_impl(c, x, y, a, b, &out));
    return out;
}

struct samrt_tensor samrt_op_add(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                 const struct samrt_tensor *y) {
    return samrt_op_add_scaled(c, name, x, y, 1.0f, 1.0f);
}

static enum samrt_status affine_impl(struct samrt_op_ctx *c, const struct samrt_tensor *x,
                                     const struct samrt_tensor *s, const struct samrt_tensor *b,
                                     const struct samrt_tensor *r, int channels_last, enum samrt_act act,
                                     const struct samrt_tensor *y) {
    use(c, x, s, b, r);
    samrt_exec_use(c->ex, y);
    SAMRT_TRY(c->ex->status);
    const int64_t n_ch = channels_last ? x->ne[x->n_dims - 1] : x->ne[1];
    const int64_t inner = channels_last ? 1 : samrt_tensor_nelements(x) / (x->ne[0] * x->ne[1]);
    if (planning(c)) {
        SAMRT_TRY(check_contig(x, "channel_affine input"));
        SAMRT_CHECK(channels_last || x->n_dims >= 2, SAMRT_E_INVALID_ARG, "channel_affine: NCHW needs 2+ dims");
        SAMRT_CHECK((!s || samrt_tensor_nelements(s) == n_ch) && (!b || samrt_tensor_nelements(b) == n_ch),
                    SAMRT_E_INVALID_ARG, "channel_affine: scale / bias length");
        if (r) SAMRT_CHECK(samrt_tensor_is_contiguous(r) && samrt_tensor_nelements(r) == samrt_tensor_nelements(x),
                           SAMRT_E_INVALID_ARG, "channel_affine: residual shape");
    }
    /* scale and bias: both of x's dtype, or both f32 (a BatchNorm after a 16-bit conv) */
    const enum samrt_dtype pt = s ? s->dtype : b ? b->dtype : x->dtype;
    if (planning(c))
        SAMRT_CHECK((pt == x->dtype || pt == SAMRT_DTYPE_F32) && (!s || !b || s->dtype == b->dtype) &&
                        (!r || r->dtype == x->dtype),
                    SAMRT_E_INVALID_ARG, "channel_affine: scale / bias must be %s or f32, the residual %s",
                    samrt_dtype_name(x->dtype), samrt_dtype_name(x->dtype));
    struct samrt_channel_affine_args a = {x->dtype,     samrt_tensor_nelements(x), (int32_t)n_ch,
                                          inner,        x->data,                   s ? s->data : NULL,
                                          b ? b->data : NULL, r ? r->data : NULL,  y->data,
                                          pt != x->dtype, act};
    cost_add(c, 1, 2.0 * (double)a.n, tbytes(x) + tbytes(s) + tbytes(b) + tbytes(r) + tbytes(y));
    if (!samrt_exec_running(c->ex)) return SAMRT_OK;
    return OPS_PICK(c->backend, samrt_channel_affine_cuda(&a, c->stream), samrt_channel_affine_ref(&a));
}

struct samrt_tensor samrt_op_channel_affine(struct samrt_op_ctx *c, const char *name,
                                            const struct samrt_tensor *x, const struct samrt_tensor *scale,
                                            const struct samrt_tensor *bias, const struct samrt_tensor *residual,
                                            int channels_last) {
    return samrt_op_channel_affine_act(c, name, x, scale, bias, residual, channels_last, SAMRT_ACT_NONE);
}

struct samrt_tensor samrt_op_channel_affine_act(struct samrt_op_ctx *c, const char *name,
                                                const struct samrt_tensor *x, const struct samrt_tensor *scale,
                                                const struct samrt_tensor *bias, const struct samrt_tensor *residual,
                                                int channels_last, enum samrt_act act) {
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, x->n_dims, x->ne);
    finish(c, affine_impl(c, x, scale, bias, residual, channels_last, act, &y));
    return y;
}

/* ---- position encodings ------------------------------------------------------------------------ */

struct samrt_tensor samrt_op_sine_pe_1d(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *pos,
                                        int n_pos, int dim) {
    struct samrt_tensor y = samrt_op_new(c, name, c->dtype, 2, SAMRT_SHAPE(n_pos, dim));
    use(c, pos, &y, NULL, NULL);
    struct samrt_sine_pe_1d_args a = {c->dtype, n_pos, dim, (const float *)pos->data, y.data};
    enum samrt_status st = c->ex->status;
    cost_add(c, 1, 4.0 * n_pos * dim, tbytes(pos) + tbytes(&y));
    if (st == SAMRT_OK && samrt_exec_running(c->ex))
        st = OPS_PICK(c->backend, samrt_sine_pe_1d_cuda(&a, c->stream), samrt_sine_pe_1d_ref(&a));
    finish(c, st);
    return y;
}

/* ---- pooling and copies ------------------------------------------------------------------------ */

struct samrt_tensor samrt_op_maxpool2x2(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x) {
    const int64_t ne[4] = {x->ne[0], x->ne[1] / 2, x->ne[2] / 2, x->ne[3]};
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, 4, ne);
    use(c, x, &y, NULL, NULL);
    enum samrt_status st = c->ex->status;
    if (st == SAMRT_OK && planning(c) &&
        (x->n_dims != 4 || x->s[3] != 1 || x->s[1] != x->ne[2] * x->s[2] || x->s[0] != x->ne[1] * x->s[1])) {
        SAMRT_LOG_ERROR("maxpool2x2 %s: x must be (B, H, W, C) with contiguous channels and packed tokens",
                        name ? name : "?");
        st = SAMRT_E_INVALID_ARG;
    }
    struct samrt_pool_args a = {x->dtype, x->ne[0], (int32_t)x->ne[1], (int32_t)x->ne[2], (int32_t)x->ne[3],
                                x->s[2], 0, x->data, y.data};
    if (st == SAMRT_OK) cost_add(c, 1, 3.0 * (double)samrt_tensor_nelements(&y), tbytes(x) + tbytes(&y));
    if (st == SAMRT_OK && samrt_exec_running(c->ex)) {
        st = OPS_PICK(c->backend, samrt_pool_max2x2_cuda(&a, c->stream), samrt_pool_max2x2_ref(&a));
    }
    finish(c, st);
    return y;
}

struct samrt_tensor samrt_op_channel_mean(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x) {
    const int64_t ne[2] = {x->ne[0], x->ne[x->n_dims - 1]};
    const int64_t n_tok = samrt_tensor_nelements(x) / SAMRT_MAX(ne[0] * ne[1], 1);
    const int32_t split = samrt_pool_mean_splits(n_tok);
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, 2, ne);
    /* f32 partial sums of the token ranges (pool.h), planned on every backend alike */
    struct samrt_tensor part = split > 1 ? samrt_op_new(c, "channel_mean.partial", SAMRT_DTYPE_F32, 3,
                                                        SAMRT_SHAPE(ne[0], split, ne[1]))
                                         : (struct samrt_tensor){0};
    use(c, x, &y, split > 1 ? &part : NULL, NULL);
    enum samrt_status st = c->ex->status;
    if (st == SAMRT_OK && planning(c)) st = check_contig(x, "channel_mean input");
    if (st == SAMRT_OK && planning(c) && x->n_dims < 2) st = SAMRT_E_INVALID_ARG;
    struct samrt_pool_mean_args a = {x->dtype, ne[0], n_tok, (int32_t)ne[1], x->data, y.data, split,
                                     split > 1 ? part.data : NULL};
    if (st == SAMRT_OK)  /* pool.cu: the split partial sums, then their finish */
        cost_add(c, 1 + (split > 1), (double)samrt_tensor_nelements(x), tbytes(x) + tbytes(&y) + 2.0 * tbytes(&part));
    if (st == SAMRT_OK && samrt_exec_running(c->ex)) {
        st = OPS_PICK(c->backend, samrt_pool_mean_cuda(&a, c->stream), samrt_pool_mean_ref(&a));
    }
    finish(c, st);
    return y;
}

static enum samrt_status copy_impl(struct samrt_op_ctx *c, const struct samrt_tensor *x,
                                   const struct samrt_tensor *add, const struct samrt_tensor *y) {
    use(c, x, add, y, NULL);
    SAMRT_TRY(c->ex->status);
    struct samrt_copy_args a = {.src_dtype = x->dtype, .dst_dtype = y->dtype, .x = x->data,
                                .add = add ? add->data : NULL, .out = y->data};
    const int pad = SAMRT_MAX_DIMS - x->n_dims;
    for (int d = 0; d < SAMRT_MAX_DIMS; d++) {
        a.ne[d] = d < pad ? 1 : x->ne[d - pad];
        a.s[d] = d < pad ? 0 : x->s[d - pad];
    }
    if (planning(c)) {
        SAMRT_TRY(check_contig(y, "copy output"));
        SAMRT_CHECK(samrt_tensor_nelements(y) == samrt_tensor_nelements(x), SAMRT_E_INVALID_ARG,
                    "copy: element counts differ");
        if (add) {
            SAMRT_TRY(check_contig(add, "copy add"));
            SAMRT_TRY(check_dtype(add, y->dtype, "copy add"));
            SAMRT_CHECK(samrt_tensor_nelements(add) == samrt_tensor_nelements(y), SAMRT_E_INVALID_ARG,
                        "copy: add shape");
        }
    }
    cost_add(c, 1, add ? (double)samrt_tensor_nelements(y) : 0.0,
             (double)samrt_tensor_nelements(x) * (double)samrt_dtype_size(x->dtype) + tbytes(add) + tbytes(y));
    if (!samrt_exec_running(c->ex)) return SAMRT_OK;
    return OPS_PICK(c->backend, samrt_copy_cuda(&a, c->stream), samrt_copy_ref(&a));
}

struct samrt_tensor samrt_op_copy(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                  enum samrt_dtype out_dtype, const struct samrt_tensor *add) {
    struct samrt_tensor y = samrt_op_new(c, name, out_dtype, x->n_dims, x->ne);
    finish(c, copy_impl(c, x, add, &y));
    return y;
}

void samrt_op_copy_into(struct samrt_op_ctx *c, const struct samrt_tensor *x, const struct samrt_tensor *add,
                        const struct samrt_tensor *out) {
    finish(c, copy_impl(c, x, add, out));
}
