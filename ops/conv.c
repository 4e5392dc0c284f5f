/* conv.c - the op of ops.h that runs a depthwise NHWC conv with its eval BatchNorm applied
 * apart (EdgeTAM's bf16 trunk, models/edgetam/repvit.c): one launch of dwconv.h's bn form
 * where its kernel takes the tensors, else the chain of ops it replaces (conv2d, then
 * channel_affine, and for a RepVggDw the 1x1 branch and the identity add), which gives the
 * same bits. The choice depends only on shapes, dtypes and the alignment of the activations,
 * which PLAN-mode tags keep, so both passes take the same path and plan the same tensors. */
#include "ops_impl.h"

static enum samrt_epilogue_act epilogue_act_of(enum samrt_act act) {
    return act == SAMRT_ACT_GELU ? SAMRT_EPILOGUE_ACT_GELU
         : act == SAMRT_ACT_RELU ? SAMRT_EPILOGUE_ACT_RELU : SAMRT_EPILOGUE_ACT_NONE;
}

static int vec_of(const struct samrt_tensor *t, int64_t n, enum samrt_dtype dt) {
    return t && t->dtype == dt && samrt_tensor_nelements(t) == n && samrt_tensor_is_contiguous(t);
}

/* PLAN-mode checks: x (N, H, W, C) contiguous, w (C, k, k, 1), the BatchNorms f32 (C), w1 (C)
 * of x's dtype, the residual of y's shape; a RepVggDw takes no act and no residual. */
static enum samrt_status check_args(const struct samrt_tensor *x, const struct samrt_tensor *w,
                                    const struct samrt_op_dwconv_bn_args *a, const struct samrt_dwconv_desc *d,
                                    const struct samrt_tensor *y, const char *name) {
    const int64_t C = x->ne[3];
    const int rep = a->w1 != NULL;
    const int ok = x->n_dims == 4 && samrt_tensor_is_contiguous(x) && w->n_dims == 4 && w->dtype == x->dtype &&
                   w->ne[0] == C && w->ne[1] == w->ne[2] && w->ne[3] == 1 &&
                   samrt_dwconv_bn_shape_ok(d, rep ? SAMRT_DWCONV_BN_REPVGG : SAMRT_DWCONV_BN_AFFINE) &&
                   vec_of(a->s, C, SAMRT_DTYPE_F32) && vec_of(a->sh, C, SAMRT_DTYPE_F32) &&
                   (a->act == SAMRT_ACT_NONE || a->act == SAMRT_ACT_GELU || a->act == SAMRT_ACT_RELU) &&
                   (!rep || (vec_of(a->w1, C, x->dtype) && vec_of(a->s1, C, SAMRT_DTYPE_F32) &&
                             vec_of(a->sh1, C, SAMRT_DTYPE_F32))) &&
                   (!a->residual || (samrt_tensor_is_contiguous(a->residual) && a->residual->dtype == x->dtype &&
                                     samrt_tensor_nelements(a->residual) == samrt_tensor_nelements(y)));
    SAMRT_CHECK(ok, SAMRT_E_INVALID_ARG,
                "dwconv_bn %s: x (N, H, W, C) contiguous, w (C, k, k, 1) of x's dtype with k <= %d, s / sh f32 (C), "
                "a RepVggDw's w1 (C) and s1 / sh1 f32 (C) at stride 1, pad k/2 without act or residual",
                name ? name : "?", SAMRT_DWCONV_MAX_K);
    return SAMRT_OK;
}

/* The chain the fused op replaces, op by op (what bf16 runs did before it). */
static struct samrt_tensor chain(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                 const struct samrt_tensor *w, const struct samrt_op_dwconv_bn_args *a) {
    struct samrt_tensor t = samrt_op_conv2d(c, name, x, w, NULL, a->stride, a->pad, (int)x->ne[3], SAMRT_CONV_NHWC,
                                            SAMRT_ACT_NONE);
    if (!a->w1) return samrt_op_channel_affine_act(c, name, &t, a->s, a->sh, a->residual, 1, a->act);
    struct samrt_tensor bn3 = samrt_op_channel_affine(c, name, &t, a->s, a->sh, NULL, 1);
    struct samrt_tensor dw1 = samrt_op_channel_affine(c, name, x, a->w1, NULL, NULL, 1); /* dw 1x1: x * w1 */
    struct samrt_tensor sum = samrt_op_channel_affine(c, name, &dw1, a->s1, a->sh1, &bn3, 1);
    return samrt_op_add(c, name, &sum, x);
}

struct samrt_tensor samrt_op_dwconv_bn(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                       const struct samrt_tensor *w, const struct samrt_op_dwconv_bn_args *a) {
    const int k = w->n_dims >= 2 ? (int)w->ne[1] : 0;
    const struct samrt_dwconv_desc d = {(int)x->ne[0], (int)x->ne[1], (int)x->ne[2], (int)x->ne[3], k, a->stride,
                                        a->pad,        x->dtype,      epilogue_act_of(a->act), 0, a->residual != NULL};
    const enum samrt_dwconv_bn mode = a->w1 ? SAMRT_DWCONV_BN_REPVGG : SAMRT_DWCONV_BN_AFFINE;
    int fused = !a->unfused && samrt_dwconv_bn_shape_ok(&d, mode);
    /* the CUDA backend, in every build (a CPU build plans it for budgets): the kernel's rule. y
     * is a fresh slot (16-byte aligned in both passes); w and the BatchNorms are read by element */
    if (fused && c->backend == SAMRT_BACKEND_CUDA)
        fused = samrt_dwconv_supported(&d, x->data, NULL, NULL, a->residual ? a->residual->data : NULL, NULL);
    if (!fused) return chain(c, name, x, w, a);
    int ho = 0, wo = 0;
    samrt_dwconv_out_hw(&d, &ho, &wo);
    struct samrt_tensor y = samrt_op_new(c, name, x->dtype, 4, SAMRT_SHAPE(x->ne[0], ho, wo, x->ne[3]));
    use(c, x, w, a->s, a->sh);
    use(c, a->w1, a->s1, a->sh1, a->residual);
    samrt_exec_use(c->ex, &y);
    enum samrt_status st = c->ex->status;
    if (st == SAMRT_OK && planning(c)) st = check_args(x, w, a, &d, &y, name);
    if (st == SAMRT_OK)
        cost_add(c, 1, 2.0 * (double)samrt_tensor_nelements(&y) * (k * k + 3 + 3 * (a->w1 != NULL)),
                 tbytes(x) + tbytes(w) + tbytes(a->s) + tbytes(a->sh) + tbytes(a->w1) + tbytes(a->s1) +
                     tbytes(a->sh1) + tbytes(a->residual) + tbytes(&y));
    if (st == SAMRT_OK && samrt_exec_running(c->ex)) {
        const struct samrt_dwconv_bn_params bn = {mode, a->s->data, a->sh->data, a->w1 ? a->w1->data : NULL,
                                                  a->s1 ? a->s1->data : NULL, a->sh1 ? a->sh1->data : NULL};
        const void *r = a->residual ? a->residual->data : NULL;
        st = OPS_PICK(c->backend, samrt_dwconv_bn_cuda(&d, x->data, w->data, NULL, &bn, r, y.data, c->stream),
                      samrt_dwconv_bn_ref(&d, x->data, w->data, NULL, &bn, r, y.data));
    }
    finish(c, st);
    return y;
}
