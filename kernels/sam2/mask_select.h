/* mask_select.h - the data-dependent tail of SAM 2.1's mask decoder and SAM heads, as two
 * small device kernels so that a decoder pass never returns to the host (and stays
 * capturable in a CUDA graph):
 *
 *  samrt_sam2_select_*: per object, from the decoder's four mask logits, IoU predictions,
 *    object score and mask-token outputs (model-spec 3.9 "Selection", 3.10 steps 1-3):
 *      MULTI (one click, tracking frames): the best of masks 1..3 by predicted IoU, first
 *        maximum on ties; the object pointer token is that mask's token
 *        (use_multimask_token_for_obj_ptr).
 *      SINGLE (a box, two or more clicks; vos_inference settings): mask 0, token 0.
 *      SINGLE_DYNAMIC (same prompts, notebook settings; dynamic_multimask_via_stability):
 *        stability = #(logit > delta) / #(logit > -delta) of mask 0 (1 when the second count
 *        is 0), both counts converted to fp32 and divided in fp32; stability >= thresh keeps
 *        mask 0, otherwise the best of masks 1..3 by IoU replaces BOTH the mask and its IoU.
 *        The pointer token stays token 0 either way.
 *    Then the object-score gate: score > 0 keeps the selected logits, otherwise every logit
 *    becomes no_obj_score (NO_OBJ_SCORE = -1024). Outputs: the selected (gated) low-res
 *    logits, the pointer token, and a small result row per object (SAMRT_SAM2_RES_*).
 *
 *  samrt_sam2_ptr_gate_*: obj_ptr = is_obj ? obj_ptr_proj(token) : no_obj_ptr in fp32
 *    (fixed_no_obj_ptr with a hard gate: lam * p + (1 - lam) * no_obj_ptr is exactly p or
 *    no_obj_ptr for lam in {0, 1}).
 *
 * The reference and the kernel follow one rule per step (integer counts, one fp32 division,
 * strict comparisons in a fixed order), so their results are identical, not just close.
 *
 *   struct samrt_sam2_select_args a = {...};   // a.mode[b] per object
 *   SAMRT_TRY(samrt_sam2_select_cuda(&a, stream));
 * Tests: tests/test_sam2_select.c (hand cases), tests/test_sam2_select_cuda.c (kernel vs ref).
 */
#ifndef SAMRT_SAM2_MASK_SELECT_H
#define SAMRT_SAM2_MASK_SELECT_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_SAM2_MAX_OBJ 256           /* the engine's max_objects limit */
#define SAMRT_SAM2_NO_OBJ_SCORE (-1024.0f)
#define SAMRT_SAM2_STABILITY_DELTA 0.05f
#define SAMRT_SAM2_STABILITY_THRESH 0.98f

enum samrt_sam2_mask_mode {
    SAMRT_SAM2_MODE_MULTI = 0,
    SAMRT_SAM2_MODE_SINGLE = 1,
    SAMRT_SAM2_MODE_SINGLE_DYNAMIC = 2
};

/* Columns of the per-object result row (f32). */
enum {
    SAMRT_SAM2_RES_IOU = 0,      /* predicted IoU of the selected mask */
    SAMRT_SAM2_RES_SCORE,        /* object-score logit */
    SAMRT_SAM2_RES_INDEX,        /* selected mask, 0..3 (of all four) */
    SAMRT_SAM2_RES_IS_OBJ,       /* 1 when score > 0 */
    SAMRT_SAM2_RES_TOKEN,        /* mask token used for the pointer, 0..3 */
    SAMRT_SAM2_RES_STABILITY,    /* stability of mask 0 (SINGLE_DYNAMIC only; else 1) */
    SAMRT_SAM2_RES_COLS = 8
};

struct samrt_sam2_select_args {
    enum samrt_dtype dtype;      /* of tokens, token_out: f32, f16 or bf16 */
    int n_obj;                   /* 1 .. SAMRT_SAM2_MAX_OBJ */
    int64_t n_pix;               /* pixels of one low-res mask */
    int dim;                     /* token width (256) */
    const float *masks;          /* (n_obj, 4, n_pix) f32: all four mask logits */
    const float *iou;            /* (n_obj, 4) f32: sigmoid IoU predictions */
    const float *score;          /* (n_obj, 1) f32: object-score logits */
    const void *tokens;          /* mask token k of object b at element b * s_tok_b + k * dim */
    int64_t s_tok_b;
    float delta, thresh;         /* SAMRT_SAM2_STABILITY_DELTA / _THRESH */
    float no_obj_score;          /* SAMRT_SAM2_NO_OBJ_SCORE */
    uint8_t mode[SAMRT_SAM2_MAX_OBJ];  /* enum samrt_sam2_mask_mode per object */
    float *low_res;              /* (n_obj, n_pix) f32: selected and gated */
    float *result;               /* (n_obj, SAMRT_SAM2_RES_COLS) f32 */
    void *token_out;             /* (n_obj, dim): the pointer token */
};

struct samrt_sam2_ptr_gate_args {
    enum samrt_dtype dtype;      /* of ptr and no_obj_ptr */
    int n_obj;
    int dim;
    const void *ptr;             /* (n_obj, dim): obj_ptr_proj output */
    const void *no_obj_ptr;      /* (dim) */
    const float *result;         /* (n_obj, SAMRT_SAM2_RES_COLS): is_obj column */
    float *out;                  /* (n_obj, dim) f32 */
};

#ifdef __CUDACC__
#define SAMRT_SAM2_HD static inline __host__ __device__
#else
#define SAMRT_SAM2_HD static inline
#endif

/* The decision for one object, shared by the reference and the kernel: iou[4] and score as
 * read (fp32), stability of mask 0 (only read in SINGLE_DYNAMIC). Fills res[] except
 * SAMRT_SAM2_RES_STABILITY. */
SAMRT_SAM2_HD void samrt_sam2_select_decide(int mode, const float *iou, float score, float stability, float thresh,
                                            float *res) {
    int best = 1;  /* first maximum of masks 1..3 */
    for (int k = 2; k < 4; k++)
        if (iou[k] > iou[best]) best = k;
    int idx = 0, tok = 0;
    if (mode == SAMRT_SAM2_MODE_MULTI) {
        idx = best;
        tok = best;
    } else if (mode == SAMRT_SAM2_MODE_SINGLE_DYNAMIC && !(stability >= thresh)) {
        idx = best;
    }
    res[SAMRT_SAM2_RES_IOU] = iou[idx];
    res[SAMRT_SAM2_RES_SCORE] = score;
    res[SAMRT_SAM2_RES_INDEX] = (float)idx;
    res[SAMRT_SAM2_RES_IS_OBJ] = score > 0.0f ? 1.0f : 0.0f;
    res[SAMRT_SAM2_RES_TOKEN] = (float)tok;
}

/* SAMRT_E_INVALID_ARG for NULL pointers or sizes out of range, SAMRT_E_UNSUPPORTED for a
 * dtype other than f32/f16/bf16. No logging. */
enum samrt_status samrt_sam2_select_check(const struct samrt_sam2_select_args *a);
enum samrt_status samrt_sam2_ptr_gate_check(const struct samrt_sam2_ptr_gate_args *a);

/* Stability score of one mask's logits (the reference rule, also used by the kernel). */
float samrt_sam2_stability_ref(const float *logits, int64_t n, float delta);

enum samrt_status samrt_sam2_select_ref(const struct samrt_sam2_select_args *a);
enum samrt_status samrt_sam2_ptr_gate_ref(const struct samrt_sam2_ptr_gate_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_sam2_select_cuda(const struct samrt_sam2_select_args *a, cudaStream_t stream);
enum samrt_status samrt_sam2_ptr_gate_cuda(const struct samrt_sam2_ptr_gate_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_MASK_SELECT_H */
