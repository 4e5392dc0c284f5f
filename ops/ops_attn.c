/* ops_attn.c - the attention, RoPE and interp ops of ops.h (kernels/attention.h,
 * kernels/rope.h, kernels/interp.h).
 *
 * Attention needs a workspace whose size depends on the parameters (RoPE copies of q and k,
 * split-K partials); the op plans it as a scratch tensor of its own step, so it is reused
 * like any activation. The split count is a pure function of the shapes and the SM count,
 * so the PLAN and RUN passes agree on it, and with it on the workspace size. The key-prefix
 * attention (the SAM heads' prompt-token keys) runs one batch-1 launch per batch item.
 * Tests: tests/test_sam2_encoder.c (CPU backend, windowed and global attention with padding
 * and q-pool), tests/test_sam2_encoder_cuda.c (CUDA against the CPU backend),
 * tests/test_sam2_decoder*.c (key-prefix attention). */
#include <string.h>

#include "attention.h"
#include "interp.h"
#include "ops_impl.h"
#include "rope.h"

/* Any non-NULL address for the pure planning helpers, which reject NULL tensors; PLAN-mode
 * weights have no data yet. */
#define PLAN_PTR(p) ((p) ? (p) : (void *)(uintptr_t)SAMRT_ALIGN)

/* q/k/v/o as (B, L, H*d) with channel stride 1: batch and token strides. */
static enum samrt_status rows3(const struct samrt_tensor *t, int64_t hd, const char *what, int64_t *s_b,
                               int64_t *s_t, int64_t *len) {
    SAMRT_CHECK(t->n_dims == 3 && t->s[2] == 1 && t->ne[2] == hd, SAMRT_E_INVALID_ARG,
                "attention: %s must be (B, L, %lld) with contiguous channels", what, (long long)hd);
    *s_b = t->s[0];
    *s_t = t->s[1];
    *len = t->ne[1];
    return SAMRT_OK;
}

static enum samrt_status fill_params(struct samrt_op_ctx *c, const struct samrt_tensor *q,
                                     const struct samrt_tensor *k, const struct samrt_tensor *v,
                                     const struct samrt_tensor *o, const struct samrt_op_attn_args *a,
                                     struct samrt_attention_params *p) {
    memset(p, 0, sizeof *p);
    int64_t lq, lk, lv, lo;
    SAMRT_CHECK(a->n_head > 0 && a->d_qk > 0 && a->d_v > 0, SAMRT_E_INVALID_ARG, "attention: heads and dims");
    SAMRT_TRY(rows3(q, (int64_t)a->n_head * a->d_qk, "q", &p->s_q_b, &p->s_q_t, &lq));
    SAMRT_TRY(rows3(k, (int64_t)a->n_head * a->d_qk, "k", &p->s_k_b, &p->s_k_t, &lk));
    SAMRT_TRY(rows3(v, (int64_t)a->n_head * a->d_v, "v", &p->s_v_b, &p->s_v_t, &lv));
    SAMRT_TRY(rows3(o, (int64_t)a->n_head * a->d_v, "o", &p->s_o_b, &p->s_o_t, &lo));
    SAMRT_CHECK(lk == lv && lq == lo && k->ne[0] == q->ne[0] && v->ne[0] == q->ne[0], SAMRT_E_INVALID_ARG,
                "attention: q/o and k/v lengths or batches differ");
    SAMRT_CHECK(q->dtype == k->dtype && q->dtype == v->dtype && q->dtype == o->dtype, SAMRT_E_INVALID_ARG,
                "attention: q, k, v, o dtypes differ");
    p->dtype = q->dtype;
    p->n_batch = (int)q->ne[0];
    p->n_head = a->n_head;
    p->d_qk = a->d_qk;
    p->d_v = a->d_v;
    p->scale = a->scale;
    p->s_q_h = p->s_k_h = a->d_qk;
    p->s_v_h = p->s_o_h = a->d_v;
    p->q = q->data;
    p->k = k->data;
    p->v = v->data;
    p->o = o->data;
    if (a->win_q > 0) {
        SAMRT_CHECK(lq == (int64_t)a->q_h * a->q_w && lk == (int64_t)a->k_h * a->k_w, SAMRT_E_INVALID_ARG,
                    "attention: window maps %dx%d / %dx%d do not match %lld / %lld tokens", a->q_h, a->q_w,
                    a->k_h, a->k_w, (long long)lq, (long long)lk);
        p->n_q = a->win_q * a->win_q;
        p->n_k = a->win_k * a->win_k;
        p->win = (struct samrt_attention_window){a->win_q, a->win_k, a->q_h, a->q_w, a->k_h, a->k_w,
                                                 a->pad_k ? a->pad_k->data : NULL, a->pad_v ? a->pad_v->data : NULL,
                                                 a->d_qk};
        SAMRT_CHECK(!a->pad_k || (a->pad_k->dtype == p->dtype && samrt_tensor_nelements(a->pad_k) ==
                                                                      (int64_t)a->n_head * a->d_qk),
                    SAMRT_E_INVALID_ARG, "attention: pad_k must be (n_head * d_qk) of the run dtype");
        SAMRT_CHECK(!a->pad_v || (a->pad_v->dtype == p->dtype && samrt_tensor_nelements(a->pad_v) ==
                                                                      (int64_t)a->n_head * a->d_v),
                    SAMRT_E_INVALID_ARG, "attention: pad_v must be (n_head * d_v) of the run dtype");
        SAMRT_CHECK(a->d_qk == a->d_v || (!a->pad_k && !a->pad_v), SAMRT_E_UNSUPPORTED,
                    "attention: pad rows share one head stride (d_qk == d_v)");
    } else {
        p->n_q = (int)lq;
        p->n_k = (int)lk;
    }
    if (a->rope_q || a->rope_k) {
        p->rope.q = a->rope_q ? (const float *)a->rope_q->data : NULL;
        p->rope.k = a->rope_k ? (const float *)a->rope_k->data : NULL;
        p->rope.k_period = a->rope_k_period;
        p->rope.k_skip = a->rope_k_skip;
        p->rope.n_k = a->rope_n_k;
    }
    if (planning(c)) {
        /* the planning helpers reject NULL; weights and tables have no data yet */
        p->q = PLAN_PTR(p->q);
        p->k = PLAN_PTR(p->k);
        p->v = PLAN_PTR(p->v);
        p->o = PLAN_PTR(p->o);
        if (a->rope_q) p->rope.q = PLAN_PTR(p->rope.q);
        if (a->rope_k) p->rope.k = PLAN_PTR(p->rope.k);
        if (a->pad_k) p->win.pad_k = PLAN_PTR(p->win.pad_k);
        if (a->pad_v) p->win.pad_v = PLAN_PTR(p->win.pad_v);
    }
    p->n_split = 1;
    if (c->backend == SAMRT_BACKEND_CUDA) {  /* in every build: a CPU build plans GPU budgets */
        int sm = c->sm_count;
#ifdef SAMRT_HAVE_CUDA
        if (sm <= 0 && c->gpu) sm = c->gpu->sm_count;
        if (planning(c) && !c->attn_ready && c->gpu) {  /* shared-memory attributes: setup, not capture */
            SAMRT_TRY(samrt_attention_init_cuda());
            c->attn_ready = 1;
        }
#endif
        p->sm_count = sm;
        if (sm > 0) p->n_split = samrt_attention_split_count(p, sm);
    }
    enum samrt_status st = samrt_attention_check(p);
    SAMRT_CHECK(st == SAMRT_OK, st, "attention: parameters rejected (%s)", samrt_status_str(st));
    return SAMRT_OK;
}

/* The attention's cost (ops.h): the RoPE pre-passes (a rotated copy of q and of k in the
 * workspace), the kernel, and the combine of a split-K launch; every query row against its
 * p->n_k keys (windows: the window's keys). */
static void attention_cost(struct samrt_op_ctx *c, const struct samrt_attention_params *p,
                           const struct samrt_tensor *q, const struct samrt_tensor *k, const struct samrt_tensor *v,
                           const struct samrt_tensor *o) {
    const int split = samrt_attention_n_split_effective(p) > 1;
    const double rows = (double)q->ne[0] * (double)q->ne[1], hd = (double)p->n_head * (p->d_qk + p->d_v);
    double bytes = tbytes(q) + tbytes(k) + tbytes(v) + tbytes(o);
    if (p->rope.q) bytes += 3.0 * tbytes(q);  /* read, write the copy, the kernel reads the copy */
    if (p->rope.k) bytes += 3.0 * tbytes(k);
    if (split) bytes += 2.0 * p->n_split * rows * p->n_head * (p->d_v + 2) * 4.0;  /* f32 partials */
    cost_add(c, 1 + (p->rope.q != NULL) + (p->rope.k != NULL) + split, 2.0 * rows * (double)p->n_k * hd, bytes);
}

struct samrt_tensor samrt_op_attention(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *q,
                                       const struct samrt_tensor *k, const struct samrt_tensor *v,
                                       const struct samrt_op_attn_args *a) {
    const int64_t ne[3] = {q->ne[0], q->ne[1], (int64_t)a->n_head * a->d_v};
    struct samrt_tensor o = samrt_op_new(c, name, q->dtype, 3, ne);
    struct samrt_attention_params p;
    enum samrt_status st = c->ex->status;
    if (st == SAMRT_OK) st = fill_params(c, q, k, v, &o, a, &p);
    /* The workspace is a tensor of this step whatever happens, so both passes make the same
     * number of tensors. */
    size_t ws = st == SAMRT_OK ? samrt_attention_workspace_size(&p) : 0;
    const int64_t ne_ws[1] = {(int64_t)SAMRT_MAX(ws, (size_t)1)};
    struct samrt_tensor w = samrt_op_new(c, name, SAMRT_DTYPE_U8, 1, ne_ws);
    samrt_exec_use(c->ex, q);
    samrt_exec_use(c->ex, k);
    samrt_exec_use(c->ex, v);
    samrt_exec_use(c->ex, &o);
    samrt_exec_use(c->ex, &w);
    samrt_exec_use(c->ex, a->pad_k);
    samrt_exec_use(c->ex, a->pad_v);
    samrt_exec_use(c->ex, a->rope_q);
    samrt_exec_use(c->ex, a->rope_k);
    if (st == SAMRT_OK) attention_cost(c, &p, q, k, v, &o);
    if (st == SAMRT_OK && samrt_exec_running(c->ex)) {
        p.workspace = ws ? w.data : NULL;
        p.workspace_bytes = ws;
        st = OPS_PICK(c->backend, samrt_attention_cuda(&p, c->stream), samrt_attention_ref(&p));
    }
    samrt_ctx_fail(c, st);
    samrt_exec_step(c->ex);
    return o;
}

struct samrt_tensor samrt_op_interp(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                    int mode, int h_out, int w_out, enum samrt_dtype out_dtype) {
    const int64_t ne[4] = {x->ne[0], x->ne[1], h_out, w_out};
    struct samrt_tensor y = samrt_op_new(c, name, out_dtype, 4, ne);
    samrt_exec_use(c->ex, x);
    samrt_exec_use(c->ex, &y);
    const struct samrt_interp_desc d = {(enum samrt_interp_mode)mode, (int)(x->ne[0] * x->ne[1]), (int)x->ne[2],
                                        (int)x->ne[3], h_out, w_out, x->dtype, out_dtype};
    enum samrt_status st = c->ex->status;
    if (st == SAMRT_OK && planning(c)) {
        if (x->n_dims != 4 || !samrt_tensor_is_contiguous(x) || samrt_interp_check(&d) != SAMRT_OK) {
            SAMRT_LOG_ERROR("interp %s: x must be contiguous (N, C, H, W); mode %d, %dx%d -> %dx%d", name ? name : "?",
                            mode, d.h_in, d.w_in, h_out, w_out);
            st = SAMRT_E_INVALID_ARG;
        }
    }
    if (st == SAMRT_OK) cost_add(c, 1, 8.0 * (double)samrt_tensor_nelements(&y), tbytes(x) + tbytes(&y));
    if (st == SAMRT_OK && samrt_exec_running(c->ex)) {
        st = OPS_PICK(c->backend, samrt_interp_cuda(&d, x->data, y.data, c->stream),
                      samrt_interp_ref(&d, x->data, y.data));
    }
    samrt_ctx_fail(c, st);
    samrt_exec_step(c->ex);
    return y;
}

struct samrt_tensor samrt_op_attention_key_prefix(struct samrt_op_ctx *c, const char *name,
                                                  const struct samrt_tensor *q, const struct samrt_tensor *k,
                                                  const struct samrt_tensor *v, int n_head, int d,
                                                  const int32_t *n_keys) {
    const int64_t B = q->ne[0];
    const int64_t ne[3] = {B, q->ne[1], (int64_t)n_head * d};
    struct samrt_tensor o = samrt_op_new(c, name, q->dtype, 3, ne);
    use(c, q, k, v, &o);
    enum samrt_status st = c->ex->status;
    const int plan = planning(c);
    const size_t es = samrt_dtype_size(q->dtype);
    for (int64_t b = 0; st == SAMRT_OK && b < B; b++) {
        struct samrt_attention_params p;
        memset(&p, 0, sizeof p);
        p.dtype = q->dtype;
        p.n_batch = 1;
        p.n_head = n_head;
        p.n_q = (int)q->ne[1];
        p.n_k = plan ? (int)k->ne[1] : n_keys[b];
        if (p.n_k < 1 || p.n_k > k->ne[1]) st = SAMRT_E_INVALID_ARG;
        p.d_qk = p.d_v = d;
        p.q = (const void *)((uintptr_t)q->data + (uintptr_t)(b * q->s[0]) * es);
        p.k = (const void *)((uintptr_t)k->data + (uintptr_t)(b * k->s[0]) * es);
        p.v = (const void *)((uintptr_t)v->data + (uintptr_t)(b * v->s[0]) * es);
        p.o = (void *)((uintptr_t)o.data + (uintptr_t)(b * o.s[0]) * es);
        p.s_q_b = q->s[0], p.s_q_h = d, p.s_q_t = q->s[1];
        p.s_k_b = k->s[0], p.s_k_h = d, p.s_k_t = k->s[1];
        p.s_v_b = v->s[0], p.s_v_h = d, p.s_v_t = v->s[1];
        p.s_o_b = o.s[0], p.s_o_h = d, p.s_o_t = o.s[1];
        p.n_split = 1;
        if (st != SAMRT_OK) break;
        if (plan) {  /* one check: every batch item has the same parameters but n_k */
            if (b > 0) break;
            st = samrt_attention_check(&p);
            if (st == SAMRT_OK)  /* one launch per batch item, all keys at most */
                cost_add(c, B, 4.0 * (double)B * p.n_q * p.n_k * n_head * d,
                         (tbytes(q) + tbytes(k) + tbytes(v) + tbytes(&o)));
            if (st != SAMRT_OK) SAMRT_LOG_ERROR("attention %s: key-prefix parameters rejected", name ? name : "?");
#ifdef SAMRT_HAVE_CUDA
            if (st == SAMRT_OK && cuda(c) && !c->attn_ready && c->gpu) {
                st = samrt_attention_init_cuda();
                c->attn_ready = st == SAMRT_OK;
            }
#endif
            continue;
        }
        if (!samrt_exec_running(c->ex)) break;
        st = OPS_PICK(c->backend, samrt_attention_cuda(&p, c->stream), samrt_attention_ref(&p));
    }
    finish(c, st);
    return o;
}

struct samrt_tensor samrt_op_rope(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x, int n_head,
                                  const struct samrt_tensor *table, int period, int skip, int64_t n_rope,
                                  const struct samrt_tensor *out) {
    struct samrt_tensor y = out ? *out : samrt_op_new(c, name, x->dtype, 3, SAMRT_SHAPE(x->ne[0], x->ne[1], x->ne[2]));
    use(c, x, &y, table, NULL);
    enum samrt_status st = c->ex->status;
    const int d = n_head > 0 ? (int)(x->ne[2] / n_head) : 0;
    const struct samrt_rope_params p = {x->dtype,  (int)x->ne[0], n_head,     (int)x->ne[1], d,
                                        PLAN_PTR(x->data), x->s[0], d, x->s[1], PLAN_PTR(y.data),
                                        y.s[0],    d,        y.s[1],     PLAN_PTR(table ? table->data : NULL),
                                        period,    skip,     n_rope};
    if (st == SAMRT_OK && planning(c)) {
        if (x->n_dims != 3 || x->s[2] != 1 || n_head <= 0 || x->ne[2] % n_head || !table ||
            (out && (out->n_dims != 3 || out->dtype != x->dtype || !samrt_tensor_is_contiguous(out) ||
                     memcmp(out->ne, x->ne, sizeof x->ne))) ||
            table->dtype != SAMRT_DTYPE_F32 || samrt_rope_check(&p) != SAMRT_OK) {
            SAMRT_LOG_ERROR("rope %s: x must be (B, L, n_head*d) with contiguous channels, an f32 table and a layout "
                            "(period %d, skip %d, n_rope %lld) that fits", name ? name : "?", period, skip,
                            (long long)n_rope);
            st = SAMRT_E_INVALID_ARG;
        }
    }
    if (st == SAMRT_OK) cost_add(c, 1, 6.0 * (double)samrt_tensor_nelements(&y), tbytes(x) + tbytes(&y));
    if (st == SAMRT_OK && samrt_exec_running(c->ex))
        st = OPS_PICK(c->backend, samrt_rope_apply_cuda(&p, c->stream), samrt_rope_apply_ref(&p));
    finish(c, st);
    return y;
}

struct samrt_tensor samrt_op_rope_pool(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                       const struct samrt_tensor *table, int n_mem, int grid, int64_t n_tail,
                                       float bias, int rep) {
    const int64_t B = x->ne[0], D = x->ne[2], h = grid / 2;
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, 3, SAMRT_SHAPE(B, rep * n_mem * h * h + n_tail, D));
    use(c, x, &y, table, NULL);
    enum samrt_status st = c->ex->status;
    const struct samrt_rope_pool_params p = {x->dtype, (int)B, n_mem, grid, (int)D, n_tail, PLAN_PTR(x->data),
                                             x->s[0], x->s[1], PLAN_PTR(y.data), y.s[0], y.s[1],
                                             table ? (const float *)PLAN_PTR(table->data) : NULL, bias, rep};
    if (st == SAMRT_OK && planning(c) &&
        (x->n_dims != 3 || x->s[2] != 1 || x->ne[1] != (int64_t)n_mem * grid * grid + n_tail ||
         (table && (table->dtype != SAMRT_DTYPE_F32 ||
                    samrt_tensor_nelements(table) < (int64_t)grid * grid * D)) ||
         samrt_rope_pool_check(&p) != SAMRT_OK)) {
        SAMRT_LOG_ERROR("rope_pool %s: x must be (B, %d * %d^2 + %lld, D) with contiguous channels, grid even, an f32 "
                        "(grid^2, D/2, 2) table or none", name ? name : "?", n_mem, grid, (long long)n_tail);
        st = SAMRT_E_INVALID_ARG;
    }
    if (st == SAMRT_OK)
        cost_add(c, 1, (table ? 6.0 * 4 + 2.0 : 2.0) * (double)B * n_mem * h * h * D, tbytes(x) + tbytes(&y));
    if (st == SAMRT_OK && samrt_exec_running(c->ex))
        st = OPS_PICK(c->backend, samrt_rope_pool_cuda(&p, c->stream), samrt_rope_pool_ref(&p));
    finish(c, st);
    return y;
}
