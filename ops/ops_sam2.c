/* ops_sam2.c - the op entries of ops_sam2.h: SAM 2's own kernels (mask selection, pointer
 * gate, memory mask input, memory store, hole filling) behind the op layer, so that the
 * networks and the tracker call them as they call a Linear. The in-pass ops follow ops.c's
 * pattern; their PLAN checks are the ones the networks made before these moved here.
 * Tests: tests/test_ops_sam2.c (each entry against its kernel's C reference),
 * tests/test_sam2_decoder*.c, tests/test_sam2_memory*.c, tests/test_sam2_track.c. */
#include "ops_sam2.h"

#include <string.h>

#include "fill_holes.h"
#include "mask_decode.h"
#include "mem_store.h"
#include "ops_impl.h"

void samrt_op_sam2_select(struct samrt_op_ctx *c, const struct samrt_tensor *masks, const struct samrt_tensor *iou,
                          const struct samrt_tensor *score, const struct samrt_tensor *mask_tokens,
                          const uint8_t *mode, const struct samrt_tensor *low_res, const struct samrt_tensor *result,
                          const struct samrt_tensor *token_out) {
    use(c, masks, iou, score, mask_tokens);
    samrt_exec_use(c->ex, token_out);
    enum samrt_status st = c->ex->status;
    cost_add(c, 1, 4.0 * (double)samrt_tensor_nelements(masks),
             tbytes(masks) + tbytes(iou) + tbytes(score) + tbytes(mask_tokens) + tbytes(low_res) + tbytes(result) +
                 tbytes(token_out));
    if (st == SAMRT_OK && samrt_exec_running(c->ex)) {
        struct samrt_sam2_select_args a;
        memset(&a, 0, sizeof a);
        a.dtype = c->dtype;
        a.n_obj = (int)masks->ne[0];
        a.n_pix = masks->ne[2];
        a.dim = (int)mask_tokens->ne[2];
        a.masks = masks->data;
        a.iou = iou->data;
        a.score = score->data;
        a.tokens = mask_tokens->data;
        a.s_tok_b = mask_tokens->s[0];
        a.delta = SAMRT_SAM2_STABILITY_DELTA;
        a.thresh = SAMRT_SAM2_STABILITY_THRESH;
        a.no_obj_score = SAMRT_SAM2_NO_OBJ_SCORE;
        if (a.n_obj > 0 && a.n_obj <= SAMRT_SAM2_MAX_OBJ) memcpy(a.mode, mode, (size_t)a.n_obj);  /* else rejected */
        a.low_res = low_res->data;
        a.result = result->data;
        a.token_out = token_out->data;
        st = OPS_PICK(c->backend, samrt_sam2_select_cuda(&a, c->stream), samrt_sam2_select_ref(&a));
    }
    finish(c, st);
}

void samrt_op_sam2_ptr_gate(struct samrt_op_ctx *c, const struct samrt_tensor *ptr,
                            const struct samrt_tensor *no_obj_ptr, const struct samrt_tensor *result,
                            const struct samrt_tensor *out) {
    samrt_exec_use(c->ex, ptr);
    enum samrt_status st = c->ex->status;
    cost_add(c, 1, 2.0 * (double)samrt_tensor_nelements(out), tbytes(ptr) + tbytes(no_obj_ptr) + tbytes(out));
    if (st == SAMRT_OK && samrt_exec_running(c->ex)) {
        const struct samrt_sam2_ptr_gate_args a = {c->dtype, (int)out->ne[0], (int)out->ne[1], ptr->data,
                                                   no_obj_ptr->data, result->data, out->data};
        st = OPS_PICK(c->backend, samrt_sam2_ptr_gate_cuda(&a, c->stream), samrt_sam2_ptr_gate_ref(&a));
    }
    finish(c, st);
}

struct samrt_tensor samrt_op_sam2_mem_input(struct samrt_op_ctx *c, const char *name,
                                            const struct samrt_tensor *low_res, int n_obj, int low, int side,
                                            int binarize, float scale, float bias) {
    struct samrt_tensor m = samrt_op_new(c, name, c->dtype, 4, SAMRT_SHAPE(n_obj, 1, side, side));
    samrt_exec_use(c->ex, low_res);
    samrt_exec_use(c->ex, &m);
    const struct samrt_mask_mem_desc d = {n_obj, low, low, side, side, binarize != 0,
                                          scale, bias, SAMRT_DTYPE_F32, c->dtype};
    enum samrt_status st = c->ex->status;
    if (st == SAMRT_OK && planning(c)) {
        const int ok = low_res->dtype == SAMRT_DTYPE_F32 && samrt_tensor_is_contiguous(low_res) &&
                       samrt_tensor_nelements(low_res) == (int64_t)n_obj * low * low;
        if (!ok || samrt_mask_decode_mem_check(&d) != SAMRT_OK) {
            SAMRT_LOG_ERROR("%s: low_res must be contiguous f32 (%d, 1, %d, %d)", name ? name : "mem_input", n_obj,
                            low, low);
            st = SAMRT_E_INVALID_ARG;
        }
    }
    cost_add(c, 1, 16.0 * (double)samrt_tensor_nelements(&m), tbytes(low_res) + tbytes(&m));
    if (st == SAMRT_OK && samrt_exec_running(c->ex))
        st = OPS_PICK(c->backend, samrt_mask_decode_mem_input_cuda(&d, low_res->data, m.data, c->stream),
                      samrt_mask_decode_mem_input_ref(&d, low_res->data, m.data));
    finish(c, st);
    return m;
}

void samrt_op_sam2_mem_store(struct samrt_op_ctx *c, const struct samrt_tensor *x, const struct samrt_tensor *score,
                             const struct samrt_tensor *no_obj, const struct samrt_tensor *out) {
    use(c, x, score, out, NULL);
    const int64_t B = x->ne[0], n = x->ne[1], dim = x->ne[2];
    enum samrt_status st = c->ex->status;
    if (st == SAMRT_OK && planning(c)) {
        const int ok = x->n_dims == 3 && out->dtype == SAMRT_DTYPE_BF16 && samrt_tensor_is_contiguous(out) &&
                       samrt_tensor_nelements(out) == B * n * dim && score->dtype == SAMRT_DTYPE_F32 &&
                       samrt_tensor_is_contiguous(score) && samrt_tensor_nelements(score) == B;
        if (!ok) {
            SAMRT_LOG_ERROR("mem_store: out must be contiguous bf16 (%lld, %lld, %lld), score f32 (%lld, 1)",
                            (long long)B, (long long)n, (long long)dim, (long long)B);
            st = SAMRT_E_INVALID_ARG;
        }
    }
    const struct samrt_sam2_mem_store_args a = {c->dtype, (int)B, n, (int)dim, x->data, (const float *)score->data,
                                                no_obj ? no_obj->data : NULL, (uint16_t *)out->data};
    cost_add(c, 1, 2.0 * (double)(B * n * dim), tbytes(x) + tbytes(score) + tbytes(no_obj) + tbytes(out));
    if (st == SAMRT_OK && samrt_exec_running(c->ex))
        st = OPS_PICK(c->backend, samrt_sam2_mem_store_cuda(&a, c->stream), samrt_sam2_mem_store_ref(&a));
    finish(c, st);
}

enum samrt_status samrt_op_fill_holes(const struct samrt_op_ctx *c, const struct samrt_tensor *x, int max_area,
                                       const struct samrt_tensor *out, const struct samrt_tensor *ws) {
    const struct samrt_fill_holes_args a = {(int32_t)x->ne[0], (int32_t)x->ne[2], (int32_t)x->ne[3], max_area,
                                            (const float *)x->data, (float *)out->data, (int32_t *)ws->data};
    return OPS_PICK(c->backend, samrt_fill_holes_cuda(&a, c->stream), samrt_fill_holes_ref(&a));
}
