/* policy_dam_ref.c - C11 reference of kernels/sam2/policy_dam.h: DAM4SAM's gate, distractor
 * test (largest 8-connected component of each alternative outside the chosen mask, a
 * sequential union-find whose roots are the smallest pixel index of their component) and DRM
 * decision per object, with the shared decision functions, so the kernel's decisions are the
 * same. The CPU backend runs it as is. Tests: tests/test_sam2_policy_dam.c. */
#include "policy_dam.h"

#include <string.h>

#include "samrt_impl.h"

enum samrt_status samrt_policy_dam_check(const struct samrt_policy_dam_args *a) {
    if (a == NULL || a->n_obj < 1 || a->n_obj > SAMRT_POLICY_MAX_OBJ || a->low < 1 || a->low > 1024)
        return SAMRT_E_INVALID_ARG;
    if (!a->masks || !a->iou || !a->score || !a->state || !a->labels || !a->dec) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

static int32_t find_root(int32_t *l, int32_t x) {
    while (l[x] != x) {
        l[x] = l[l[x]];  /* path halving: a root stays the smallest index of its set */
        x = l[x];
    }
    return x;
}

static void join(int32_t *l, int32_t a, int32_t b) {
    a = find_root(l, a), b = find_root(l, b);
    if (a < b) l[b] = a;
    else if (b < a) l[a] = b;
}

int samrt_policy_dam_alt_box_ref(const float *chosen, const float *alt, int low, const int32_t *cbox,
                                 int32_t *labels, int32_t *box) {
    const int32_t plane = (int32_t)low * low;
    int32_t *lab = labels, *size = labels + plane;
    for (int32_t p = 0; p < plane; p++) {
        lab[p] = alt[p] > 0.0f && !(chosen[p] > 0.0f) ? p : -1;
        size[p] = 0;
    }
    for (int32_t p = 0; p < plane; p++) {  /* 8-connectivity: the four neighbours already seen */
        if (lab[p] < 0) continue;
        const int x = p % low, y = p / low;
        if (x > 0 && lab[p - 1] >= 0) join(lab, p, p - 1);
        if (y > 0 && lab[p - low] >= 0) join(lab, p, p - low);
        if (x > 0 && y > 0 && lab[p - low - 1] >= 0) join(lab, p, p - low - 1);
        if (x < low - 1 && y > 0 && lab[p - low + 1] >= 0) join(lab, p, p - low + 1);
    }
    int32_t best = -1;
    for (int32_t p = 0; p < plane; p++) {
        if (lab[p] < 0) continue;
        lab[p] = find_root(lab, p);
        size[lab[p]]++;
    }
    for (int32_t p = 0; p < plane; p++)  /* the largest; ties: the smallest root (raster order) */
        if (lab[p] == p && (best < 0 || size[p] > size[best])) best = p;
    if (best < 0) return 0;
    int32_t b[4] = {cbox[0], cbox[1], cbox[2], cbox[3]};
    for (int32_t p = 0; p < plane; p++) {
        if (lab[p] != best) continue;
        const int32_t x = p % low, y = p / low;
        b[0] = x < b[0] ? x : b[0], b[1] = y < b[1] ? y : b[1];
        b[2] = x > b[2] ? x : b[2], b[3] = y > b[3] ? y : b[3];
    }
    memcpy(box, b, sizeof b);
    return 1;
}

enum samrt_status samrt_policy_dam4sam_ref(const struct samrt_policy_dam_args *a) {
    SAMRT_TRY(samrt_policy_dam_check(a));
    const long plane = (long)a->low * a->low;
    for (int b = 0; b < a->n_obj; b++) {
        if (a->code[b] == SAMRT_POLICY_SKIP) continue;
        double *st = a->state + (long)b * SAMRT_POLICY_STATE;
        if (a->code[b] == SAMRT_POLICY_RESTART) samrt_samurai_restart(st);
        const float *iou = a->iou + 4 * b, score = a->score[b];
        const int best = samrt_dam_best(iou);
        const float *chosen = a->masks + ((long)b * 4 + best) * plane;
        int area = 0;
        int32_t cbox[4] = {a->low, a->low, -1, -1};
        for (long p = 0; score > 0.0f && p < plane; p++) {
            if (!(chosen[p] > 0.0f)) continue;
            const int32_t x = (int32_t)(p % a->low), y = (int32_t)(p / a->low);
            area++;
            cbox[0] = x < cbox[0] ? x : cbox[0], cbox[1] = y < cbox[1] ? y : cbox[1];
            cbox[2] = x > cbox[2] ? x : cbox[2], cbox[3] = y > cbox[3] ? y : cbox[3];
        }
        double ratio;
        const int gate = samrt_dam_gate(st, iou[best], area, &ratio);
        int tested = 0;
        double min_iou = 2.0;
        for (int i = 1; gate && i < 4; i++) {
            if (i == best) continue;
            int32_t ubox[4];
            if (!samrt_policy_dam_alt_box_ref(chosen, a->masks + ((long)b * 4 + i) * plane, a->low, cbox,
                                              a->labels + (long)b * 2 * plane, ubox))
                continue;
            const double v = samrt_dam_box_iou(cbox, ubox);
            min_iou = v < min_iou ? v : min_iou;
            tested++;
        }
        samrt_dam_finish(st, best, iou, score, area, ratio, gate, tested, min_iou,
                         a->dec + (long)b * SAMRT_POLICY_DEC_COLS);
    }
    return SAMRT_OK;
}
