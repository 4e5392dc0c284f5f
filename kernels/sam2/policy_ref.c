/* policy_ref.c - C11 reference of kernels/sam2/policy.h: SAMURAI's candidate boxes, Kalman
 * decision and chosen mask per object, with the interp.h bilinear taps and the shared decision
 * functions, so the kernel's results are the same bit for bit. The CPU backend runs it as is.
 * Tests: tests/test_sam2_policy.c. */
#include "policy.h"

#include <string.h>

#include "interp.h"
#include "samrt_impl.h"

enum samrt_status samrt_policy_check(const struct samrt_policy_args *a) {
    if (a == NULL || a->n_obj < 1 || a->n_obj > SAMRT_POLICY_MAX_OBJ || a->low < 1 || a->side < a->low ||
        a->side > SAMRT_INTERP_MAX_SIDE)
        return SAMRT_E_INVALID_ARG;
    if (!a->masks || !a->iou || !a->score || !a->state || !a->boxes || !a->low_out || !a->dec)
        return SAMRT_E_INVALID_ARG;
    if (!(a->p.alpha >= 0.0 && a->p.alpha <= 1.0) || a->p.stable_frames < 0) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

void samrt_policy_box_ref(const float *plane, int low, int side, int32_t *box) {
    const float sc = samrt_interp_scale(low, side);
    int x0 = side, y0 = side, x1 = -1, y1 = -1;
    for (int y = 0; y < side; y++) {
        int r0, r1;
        float h0, h1;
        samrt_linear_coef(sc, y, low, &r0, &r1, &h0, &h1);
        for (int x = 0; x < side; x++) {
            int c0, c1;
            float w0, w1;
            samrt_linear_coef(sc, x, low, &c0, &c1, &w0, &w1);
            const float v = samrt_bilerp(h0, h1, w0, w1, plane[r0 * low + c0], plane[r0 * low + c1],
                                         plane[r1 * low + c0], plane[r1 * low + c1]);
            if (!(v > 0.0f)) continue;
            x0 = x < x0 ? x : x0;
            x1 = x > x1 ? x : x1;
            y0 = y < y0 ? y : y0;
            y1 = y > y1 ? y : y1;
        }
    }
    if (x1 < 0) x0 = y0 = x1 = y1 = 0;  /* the official empty box */
    box[0] = x0, box[1] = y0, box[2] = x1, box[3] = y1;
}

enum samrt_status samrt_policy_samurai_ref(const struct samrt_policy_args *a) {
    SAMRT_TRY(samrt_policy_check(a));
    const long plane = (long)a->low * a->low;
    for (int b = 0; b < a->n_obj; b++) {
        if (a->code[b] == SAMRT_POLICY_SKIP) continue;
        double *st = a->state + (long)b * SAMRT_POLICY_STATE;
        if (a->code[b] == SAMRT_POLICY_RESTART) samrt_samurai_restart(st);
        const float score = a->score[b];
        const int is_obj = score > a->p.min_obj_score;
        int32_t *box = a->boxes + (long)b * 12;
        for (int i = 0; i < 3; i++) {
            if (is_obj) samrt_policy_box_ref(a->masks + ((long)b * 4 + 1 + i) * plane, a->low, a->side, box + 4 * i);
            else memset(box + 4 * i, 0, sizeof(int32_t) * 4);
        }
        const int idx = samrt_samurai_decide(&a->p, st, a->iou + 4 * b, score, box, a->dec + (long)b * SAMRT_POLICY_DEC_COLS);
        const float *src = a->masks + ((long)b * 4 + idx) * plane;
        float *dst = a->low_out + (long)b * plane;
        for (long i = 0; i < plane; i++) dst[i] = is_obj ? src[i] : SAMRT_POLICY_NO_OBJ_SCORE;
    }
    return SAMRT_OK;
}
