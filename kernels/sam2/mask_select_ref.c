/* mask_select_ref.c - plain C references of mask_select.h: multimask selection, the dynamic
 * stability fallback, the object-score gate and the pointer gate, one object at a time.
 * Tests: tests/test_sam2_select.c (hand cases), tests/test_sam2_select_cuda.c (vs kernel). */
#include "mask_select.h"

#include "ref_util.h"

enum samrt_status samrt_sam2_select_check(const struct samrt_sam2_select_args *a) {
    if (!a || !a->masks || !a->iou || !a->score || !a->tokens || !a->low_res || !a->result || !a->token_out)
        return SAMRT_E_INVALID_ARG;
    if (a->n_obj < 1 || a->n_obj > SAMRT_SAM2_MAX_OBJ || a->n_pix < 1 || a->n_pix > ((int64_t)1 << 30) ||
        a->dim < 1 || a->s_tok_b < 4 * (int64_t)a->dim)
        return SAMRT_E_INVALID_ARG;
    for (int b = 0; b < a->n_obj; b++)
        if (a->mode[b] > SAMRT_SAM2_MODE_SINGLE_DYNAMIC) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_ptr_gate_check(const struct samrt_sam2_ptr_gate_args *a) {
    if (!a || !a->ptr || !a->no_obj_ptr || !a->result || !a->out) return SAMRT_E_INVALID_ARG;
    if (a->n_obj < 1 || a->n_obj > SAMRT_SAM2_MAX_OBJ || a->dim < 1) return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(a->dtype)) return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

float samrt_sam2_stability_ref(const float *logits, int64_t n, float delta) {
    int64_t area_i = 0, area_u = 0;
    for (int64_t i = 0; i < n; i++) {
        area_i += logits[i] > delta;
        area_u += logits[i] > -delta;
    }
    return area_u > 0 ? (float)area_i / (float)area_u : 1.0f;
}

enum samrt_status samrt_sam2_select_ref(const struct samrt_sam2_select_args *a) {
    enum samrt_status st = samrt_sam2_select_check(a);
    if (st != SAMRT_OK) return st;
    for (int b = 0; b < a->n_obj; b++) {
        const float *m = a->masks + (int64_t)b * 4 * a->n_pix;
        float iou[4], *res = a->result + (int64_t)b * SAMRT_SAM2_RES_COLS;
        for (int k = 0; k < 4; k++) iou[k] = a->iou[(int64_t)b * 4 + k];
        const float score = a->score[b];
        const float stab =
            a->mode[b] == SAMRT_SAM2_MODE_SINGLE_DYNAMIC ? samrt_sam2_stability_ref(m, a->n_pix, a->delta) : 1.0f;
        for (int c = 0; c < SAMRT_SAM2_RES_COLS; c++) res[c] = 0.0f;
        samrt_sam2_select_decide(a->mode[b], iou, score, stab, a->thresh, res);
        res[SAMRT_SAM2_RES_STABILITY] = stab;
        const int idx = (int)res[SAMRT_SAM2_RES_INDEX], tok = (int)res[SAMRT_SAM2_RES_TOKEN];
        const int keep = res[SAMRT_SAM2_RES_IS_OBJ] > 0.0f;
        float *out = a->low_res + (int64_t)b * a->n_pix;
        for (int64_t i = 0; i < a->n_pix; i++) out[i] = keep ? m[(int64_t)idx * a->n_pix + i] : a->no_obj_score;
        for (int c = 0; c < a->dim; c++)
            ref_store(a->dtype, a->token_out, (int64_t)b * a->dim + c,
                      ref_load(a->dtype, a->tokens, (int64_t)b * a->s_tok_b + (int64_t)tok * a->dim + c));
    }
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_ptr_gate_ref(const struct samrt_sam2_ptr_gate_args *a) {
    enum samrt_status st = samrt_sam2_ptr_gate_check(a);
    if (st != SAMRT_OK) return st;
    for (int b = 0; b < a->n_obj; b++) {
        const int keep = a->result[(int64_t)b * SAMRT_SAM2_RES_COLS + SAMRT_SAM2_RES_IS_OBJ] > 0.0f;
        for (int c = 0; c < a->dim; c++)
            a->out[(int64_t)b * a->dim + c] =
                keep ? ref_load(a->dtype, a->ptr, (int64_t)b * a->dim + c) : ref_load(a->dtype, a->no_obj_ptr, c);
    }
    return SAMRT_OK;
}
