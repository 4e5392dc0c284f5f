/* test_sam2_select.c - the selection references of mask_select.h on hand cases: stability
 * score (counts, the empty-union rule, exactly at the 0.98 threshold), multimask selection
 * (first maximum of masks 1..3), single mask, the dynamic fallback (mask and IoU swapped,
 * pointer token kept), the object-score gate (score 0 is absent) and the pointer gate.
 * Run: ctest -R test_sam2_select */
#include <string.h>

#include "check.h"
#include "mask_select.h"

#define NPIX 50

struct sel_case {
    float masks[4 * NPIX];
    float iou[4], score;
    float tokens[6 * 8];          /* 6 tokens of width 8, mask tokens from token 2 */
    float low[NPIX], res[SAMRT_SAM2_RES_COLS], tok[8];
};

static void fill(struct sel_case *c, float m0) {
    memset(c, 0, sizeof *c);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < NPIX; i++) c->masks[k * NPIX + i] = k == 0 ? m0 : (float)(10 * k + i);
    for (int t = 0; t < 6; t++)
        for (int d = 0; d < 8; d++) c->tokens[t * 8 + d] = (float)(100 * t + d);
    c->iou[0] = 0.9f, c->iou[1] = 0.2f, c->iou[2] = 0.7f, c->iou[3] = 0.7f;  /* a tie: 2 wins */
    c->score = 1.5f;
}

static enum samrt_status run(struct sel_case *c, int mode) {
    struct samrt_sam2_select_args a;
    memset(&a, 0, sizeof a);
    a.dtype = SAMRT_DTYPE_F32;
    a.n_obj = 1;
    a.n_pix = NPIX;
    a.dim = 8;
    a.masks = c->masks;
    a.iou = c->iou;
    a.score = &c->score;
    a.tokens = c->tokens + 2 * 8;
    a.s_tok_b = 6 * 8;
    a.delta = SAMRT_SAM2_STABILITY_DELTA;
    a.thresh = SAMRT_SAM2_STABILITY_THRESH;
    a.no_obj_score = SAMRT_SAM2_NO_OBJ_SCORE;
    a.mode[0] = (uint8_t)mode;
    a.low_res = c->low;
    a.result = c->res;
    a.token_out = c->tok;
    return samrt_sam2_select_ref(&a);
}

static int low_is_mask(const struct sel_case *c, int k) {
    return memcmp(c->low, c->masks + k * NPIX, sizeof c->low) == 0;
}

int main(void) {
    /* stability: #(> 0.05) / #(> -0.05) */
    const float l1[6] = {0.1f, 0.06f, 0.04f, -0.04f, -0.06f, -1.0f};
    CHECK(samrt_sam2_stability_ref(l1, 6, 0.05f) == 0.5f);
    const float l2[3] = {-0.5f, -0.06f, -1.0f};
    CHECK(samrt_sam2_stability_ref(l2, 3, 0.05f) == 1.0f);   /* empty union */
    const float l3[2] = {0.05f, -0.05f};                       /* both thresholds strict */
    CHECK(samrt_sam2_stability_ref(l3, 2, 0.05f) == 0.0f);

    struct sel_case c;
    /* multimask: best of 1..3, first maximum; the token follows the mask */
    fill(&c, 1.0f);
    CHECK_STATUS(run(&c, SAMRT_SAM2_MODE_MULTI), SAMRT_OK);
    CHECK(c.res[SAMRT_SAM2_RES_INDEX] == 2.0f && c.res[SAMRT_SAM2_RES_TOKEN] == 2.0f);
    CHECK(c.res[SAMRT_SAM2_RES_IOU] == 0.7f && c.res[SAMRT_SAM2_RES_SCORE] == 1.5f);
    CHECK(c.res[SAMRT_SAM2_RES_IS_OBJ] == 1.0f);
    CHECK(low_is_mask(&c, 2));
    CHECK(c.tok[3] == 403.0f);  /* mask token 2 = token 4 */
    /* single: mask 0, token 0, even though mask 0's IoU ... */
    CHECK_STATUS(run(&c, SAMRT_SAM2_MODE_SINGLE), SAMRT_OK);
    CHECK(c.res[SAMRT_SAM2_RES_INDEX] == 0.0f && c.res[SAMRT_SAM2_RES_IOU] == 0.9f && low_is_mask(&c, 0));
    CHECK(c.tok[5] == 205.0f);
    /* dynamic, stable mask 0 (all logits 1): kept */
    CHECK_STATUS(run(&c, SAMRT_SAM2_MODE_SINGLE_DYNAMIC), SAMRT_OK);
    CHECK(c.res[SAMRT_SAM2_RES_STABILITY] == 1.0f && c.res[SAMRT_SAM2_RES_INDEX] == 0.0f && low_is_mask(&c, 0));
    /* dynamic, unstable (half the logits at 0): best of 1..3 for mask AND IoU, token 0 kept */
    for (int i = 0; i < NPIX / 2; i++) c.masks[i] = 0.0f;
    CHECK_STATUS(run(&c, SAMRT_SAM2_MODE_SINGLE_DYNAMIC), SAMRT_OK);
    CHECK(c.res[SAMRT_SAM2_RES_STABILITY] == 0.5f);
    CHECK(c.res[SAMRT_SAM2_RES_INDEX] == 2.0f && c.res[SAMRT_SAM2_RES_IOU] == 0.7f && low_is_mask(&c, 2));
    CHECK(c.res[SAMRT_SAM2_RES_TOKEN] == 0.0f && c.tok[1] == 201.0f);
    /* exactly at the threshold: 49 / 50 = 0.98 in fp32 -> stable (>=) */
    fill(&c, 1.0f);
    c.masks[0] = 0.0f;
    CHECK_STATUS(run(&c, SAMRT_SAM2_MODE_SINGLE_DYNAMIC), SAMRT_OK);
    CHECK(c.res[SAMRT_SAM2_RES_STABILITY] == SAMRT_SAM2_STABILITY_THRESH);
    CHECK(c.res[SAMRT_SAM2_RES_INDEX] == 0.0f);
    /* one more unstable pixel: 48 / 50 < 0.98 -> fallback */
    c.masks[1] = 0.0f;
    CHECK_STATUS(run(&c, SAMRT_SAM2_MODE_SINGLE_DYNAMIC), SAMRT_OK);
    CHECK(c.res[SAMRT_SAM2_RES_INDEX] == 2.0f);

    /* the gate: score <= 0 blanks the mask with -1024; the choice is still reported */
    fill(&c, 1.0f);
    c.score = 0.0f;
    CHECK_STATUS(run(&c, SAMRT_SAM2_MODE_MULTI), SAMRT_OK);
    CHECK(c.res[SAMRT_SAM2_RES_IS_OBJ] == 0.0f && c.res[SAMRT_SAM2_RES_INDEX] == 2.0f);
    int blank = 1;
    for (int i = 0; i < NPIX; i++) blank &= c.low[i] == -1024.0f;
    CHECK(blank);
    CHECK(c.tok[0] == 400.0f);  /* the token is selected all the same (the pointer gate follows) */

    /* pointer gate */
    const float ptr[2 * 8] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const float no_obj[8] = {-1, -2, -3, -4, -5, -6, -7, -8};
    float res2[2 * SAMRT_SAM2_RES_COLS] = {0}, out[16];
    res2[SAMRT_SAM2_RES_IS_OBJ] = 1.0f;  /* object 0 present, object 1 absent */
    struct samrt_sam2_ptr_gate_args g = {SAMRT_DTYPE_F32, 2, 8, ptr, no_obj, res2, out};
    CHECK_STATUS(samrt_sam2_ptr_gate_ref(&g), SAMRT_OK);
    CHECK(memcmp(out, ptr, 8 * sizeof(float)) == 0 && memcmp(out + 8, no_obj, sizeof no_obj) == 0);

    /* argument checks */
    struct samrt_sam2_select_args bad;
    memset(&bad, 0, sizeof bad);
    CHECK_STATUS(samrt_sam2_select_check(&bad), SAMRT_E_INVALID_ARG);
    fill(&c, 1.0f);
    CHECK_STATUS(run(&c, 3), SAMRT_E_INVALID_ARG);
    g.dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_sam2_ptr_gate_check(&g), SAMRT_E_UNSUPPORTED);
    return check_report("test_sam2_select");
}
