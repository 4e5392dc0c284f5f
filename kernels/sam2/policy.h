/* policy.h - the per-object decisions of SAMURAI's motion-aware memory selection
 * (github.com/yangchris11/samurai, sam2/modeling/sam2_base.py _forward_sam_heads and
 * utils/kalman_filter.py), as device kernels so that a tracked frame never returns to the host
 * for them (and stays capturable in a CUDA graph):
 *
 *  1. boxes: for each object and each of the three multimask candidates (masks 1..3 of the
 *     decoder's four), the box of the bilinear upsample of the gated low-res logits to the
 *     model side S (F.interpolate, align_corners False) > 0, as the official
 *     argwhere(high_res > 0).min/max: (x_min, y_min, x_max, y_max) inclusive, [0, 0, 0, 0] when
 *     empty. The gate is SAMURAI's min_obj_score_logits: score > -1 keeps the logits, otherwise
 *     every logit is NO_OBJ_SCORE (no pixel).
 *  2. decide (one thread per object, fp64 as numpy): the Kalman filter over (cx, cy, w/h, h)
 *     with constant velocity (std weights 1/20 and 1/160), then
 *       no filter yet or stable == 0: best predicted IoU; initiate from its box; stable += 1
 *       stable < stable_frames (15): predict; best predicted IoU; IoU > 0.3: update, stable += 1,
 *                                    else stable = 0
 *       otherwise: predict; w_i = alpha * IoU(KF box, box_i) + (1 - alpha) * predIoU_i (the
 *                  second term in fp32, as the official f32 tensor times a Python float), the
 *                  first maximum wins; predIoU < 0.3: stable = 0, else update with its box.
 *     Memory admission (the official memory_bank_* rule): predIoU > 0.5 and object score > 0.
 *     (The official kf_score test reads a key its tracker never writes, so it never applies.)
 *  3. the chosen candidate's gated logits replace the object's low-res mask.
 * The same functions (SAMRT_POLICY_HD) run in the reference and the kernel: the decisions are
 * identical, not just close.
 *
 * State per object: SAMRT_POLICY_STATE doubles (mean 8, covariance 8x8, stable count, the
 * filter's started flag). Decisions per object: SAMRT_POLICY_DEC_COLS floats.
 * Tests: tests/test_sam2_policy.c (filter, IoU, scores, boxes by hand; kernel form in the
 * CUDA build's table). */
#ifndef SAMRT_SAM2_POLICY_H
#define SAMRT_SAM2_POLICY_H

#include <math.h>
#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_POLICY_MAX_OBJ 256
#define SAMRT_POLICY_STATE 80            /* doubles per object */
#define SAMRT_POLICY_NO_OBJ_SCORE (-1024.0f)

/* The official SAMURAI constants (configs/samurai/sam2.1_hiera_*.yaml, sam2_base.py). */
#define SAMRT_SAMURAI_ALPHA 0.25         /* kf_score_weight: t, s, b+ */
#define SAMRT_SAMURAI_ALPHA_LARGE 0.15   /* l */
#define SAMRT_SAMURAI_STABLE_FRAMES 15
#define SAMRT_SAMURAI_STABLE_IOU 0.3f
#define SAMRT_SAMURAI_MIN_OBJ_SCORE (-1.0f)
#define SAMRT_SAMURAI_MEM_IOU 0.5f
#define SAMRT_SAMURAI_MEM_SCORE 0.0f

/* state layout (doubles) */
enum { SAMRT_KF_MEAN = 0, SAMRT_KF_COV = 8, SAMRT_KF_STABLE = 72, SAMRT_KF_STARTED = 73 };

/* Decision columns (f32). */
enum {
    SAMRT_POLICY_DEC_INDEX = 0,          /* chosen mask, 1..3 of the decoder's four */
    SAMRT_POLICY_DEC_IOU,                /* its predicted IoU */
    SAMRT_POLICY_DEC_SCORE,              /* the object-score logit */
    SAMRT_POLICY_DEC_KF_IOU,             /* IoU(KF box, its box) in the weighted branch, else -1 */
    SAMRT_POLICY_DEC_ADMIT,              /* 1: the frame may enter the memory */
    SAMRT_POLICY_DEC_STABLE,             /* stable-frame count after the frame */
    SAMRT_POLICY_DEC_COLS = 8
};

/* Per-object codes of a launch. */
enum { SAMRT_POLICY_SKIP = 0, SAMRT_POLICY_RUN = 1, SAMRT_POLICY_RESTART = 2 /* forget the filter first */ };

struct samrt_samurai_params {
    double alpha;                        /* kf_score_weight */
    int stable_frames;
    float stable_iou, min_obj_score, mem_iou, mem_score;
};

struct samrt_policy_args {
    int n_obj;                           /* rows, 1 .. SAMRT_POLICY_MAX_OBJ */
    int low;                             /* L: low-res side */
    int side;                            /* S: model side (the high-res masks) */
    const float *masks;                  /* (n_obj, 4, L*L) f32: the decoder's four mask logits */
    const float *iou;                    /* (n_obj, 4) f32 */
    const float *score;                  /* (n_obj, 1) f32 */
    uint8_t code[SAMRT_POLICY_MAX_OBJ];  /* SAMRT_POLICY_SKIP / RUN / RESTART per row */
    struct samrt_samurai_params p;
    double *state;                       /* (n_obj, SAMRT_POLICY_STATE) */
    int32_t *boxes;                      /* (n_obj, 3, 4) scratch */
    float *low_out;                      /* (n_obj, L*L): the chosen gated logits */
    float *dec;                          /* (n_obj, SAMRT_POLICY_DEC_COLS) */
};

#ifdef __CUDACC__
#define SAMRT_POLICY_HD static inline __host__ __device__
#else
#define SAMRT_POLICY_HD static inline
#endif

/* ---- the Kalman filter (kalman_filter.py), fp64 ---- */
#define SAMRT_KF_WP (1.0 / 20.0)
#define SAMRT_KF_WV (1.0 / 160.0)

/* xyxy_to_xyah of an integer box (h 0 -> 1). */
SAMRT_POLICY_HD void samrt_kf_xyah(const int32_t *b, double *z) {
    const double w = (double)(b[2] - b[0]);
    double h = (double)(b[3] - b[1]);
    z[0] = (double)(b[0] + b[2]) / 2.0;
    z[1] = (double)(b[1] + b[3]) / 2.0;
    if (h == 0.0) h = 1.0;
    z[2] = w / h;
    z[3] = h;
}

SAMRT_POLICY_HD void samrt_kf_initiate(double *st, const double *z) {
    double sd[8] = {2 * SAMRT_KF_WP * z[3], 2 * SAMRT_KF_WP * z[3], 1e-2, 2 * SAMRT_KF_WP * z[3],
                    10 * SAMRT_KF_WV * z[3], 10 * SAMRT_KF_WV * z[3], 1e-5, 10 * SAMRT_KF_WV * z[3]};
    for (int i = 0; i < 8; i++) st[SAMRT_KF_MEAN + i] = i < 4 ? z[i] : 0.0;
    for (int i = 0; i < 64; i++) st[SAMRT_KF_COV + i] = 0.0;
    for (int i = 0; i < 8; i++) st[SAMRT_KF_COV + 9 * i] = sd[i] * sd[i];
}

SAMRT_POLICY_HD void samrt_kf_predict(double *st) {
    double *m = st + SAMRT_KF_MEAN, *c = st + SAMRT_KF_COV;
    const double h = m[3];
    double sd[8] = {SAMRT_KF_WP * h, SAMRT_KF_WP * h, 1e-2, SAMRT_KF_WP * h,
                    SAMRT_KF_WV * h, SAMRT_KF_WV * h, 1e-5, SAMRT_KF_WV * h};
    for (int i = 0; i < 4; i++) m[i] = m[i] + m[i + 4];
    double fc[64];  /* F C: row i (< 4) gets row i + 4 added */
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) fc[i * 8 + j] = i < 4 ? c[i * 8 + j] + c[(i + 4) * 8 + j] : c[i * 8 + j];
    for (int i = 0; i < 8; i++)  /* (F C) F^T: column j (< 4) gets column j + 4 added */
        for (int j = 0; j < 8; j++) c[i * 8 + j] = j < 4 ? fc[i * 8 + j] + fc[i * 8 + j + 4] : fc[i * 8 + j];
    for (int i = 0; i < 8; i++) c[i * 9] += sd[i] * sd[i];
}

SAMRT_POLICY_HD void samrt_kf_update(double *st, const double *z) {
    double *m = st + SAMRT_KF_MEAN, *c = st + SAMRT_KF_COV;
    const double h = m[3];
    const double sd[4] = {SAMRT_KF_WP * h, SAMRT_KF_WP * h, 1e-1, SAMRT_KF_WP * h};
    double s[16], l[16] = {0}, kt[32], k[32];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) s[i * 4 + j] = c[i * 8 + j] + (i == j ? sd[i] * sd[i] : 0.0);
    for (int j = 0; j < 4; j++) {  /* Cholesky S = L L^T */
        double d = s[j * 4 + j];
        for (int q = 0; q < j; q++) d -= l[j * 4 + q] * l[j * 4 + q];
        l[j * 4 + j] = sqrt(d);
        for (int i = j + 1; i < 4; i++) {
            double v = s[i * 4 + j];
            for (int q = 0; q < j; q++) v -= l[i * 4 + q] * l[j * 4 + q];
            l[i * 4 + j] = v / l[j * 4 + j];
        }
    }
    for (int col = 0; col < 8; col++) {  /* K^T = S^-1 (C H^T)^T, column by column */
        double y[4];
        for (int i = 0; i < 4; i++) {
            double v = c[i * 8 + col];
            for (int q = 0; q < i; q++) v -= l[i * 4 + q] * y[q];
            y[i] = v / l[i * 4 + i];
        }
        for (int i = 3; i >= 0; i--) {
            double v = y[i];
            for (int q = i + 1; q < 4; q++) v -= l[q * 4 + i] * kt[q * 8 + col];
            kt[i * 8 + col] = v / l[i * 4 + i];
        }
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) k[i * 4 + j] = kt[j * 8 + i];
    double inn[4];
    for (int j = 0; j < 4; j++) inn[j] = z[j] - m[j];
    for (int i = 0; i < 8; i++) {
        double v = 0.0;
        for (int j = 0; j < 4; j++) v += inn[j] * k[i * 4 + j];
        m[i] += v;
    }
    double ks[32];  /* K S */
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) {
            double v = 0.0;
            for (int q = 0; q < 4; q++) v += k[i * 4 + q] * s[q * 4 + j];
            ks[i * 4 + j] = v;
        }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double v = 0.0;
            for (int q = 0; q < 4; q++) v += ks[i * 4 + q] * k[j * 4 + q];
            c[i * 8 + j] -= v;
        }
}

/* compute_iou of the filter's box (xyah_to_xyxy of mean[:4]) and an integer box; 0 for the
 * empty box [0, 0, 0, 0] and for a zero union. */
SAMRT_POLICY_HD double samrt_kf_box_iou(const double *mean, const int32_t *b) {
    if (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0) return 0.0;
    const double x1 = mean[0] - mean[2] * mean[3] / 2, y1 = mean[1] - mean[3] / 2;
    const double x2 = mean[0] + mean[2] * mean[3] / 2, y2 = mean[1] + mean[3] / 2;
    const double bx1 = b[0], by1 = b[1], bx2 = b[2], by2 = b[3];
    const double iw = fmax(0.0, fmin(x2, bx2) - fmax(x1, bx1)), ih = fmax(0.0, fmin(y2, by2) - fmax(y1, by1));
    const double inter = iw * ih;
    const double uni = (x2 - x1) * (y2 - y1) + (bx2 - bx1) * (by2 - by1) - inter;
    return uni != 0.0 ? inter / uni : 0.0;
}

/* The decision of one object (step 2): st its state, iou[4] the predicted IoUs, score the
 * object score, box[3][4] the candidates' boxes (masks 1..3). Returns the chosen mask (1..3)
 * and fills dec[SAMRT_POLICY_DEC_COLS]. */
SAMRT_POLICY_HD int samrt_samurai_decide(const struct samrt_samurai_params *p, double *st, const float *iou,
                                         float score, const int32_t *box, float *dec) {
    int best = 1;  /* first maximum of masks 1..3 */
    for (int i = 2; i < 4; i++)
        if (iou[i] > iou[best]) best = i;
    int idx = best;
    double kf_iou = -1.0, z[4];
    int stable = (int)st[SAMRT_KF_STABLE];
    if (st[SAMRT_KF_STARTED] == 0.0 || stable == 0) {
        samrt_kf_xyah(box + 4 * (best - 1), z);
        samrt_kf_initiate(st, z);
        st[SAMRT_KF_STARTED] = 1.0;
        stable++;
    } else if (stable < p->stable_frames) {
        samrt_kf_predict(st);
        if (iou[best] > p->stable_iou) {
            samrt_kf_xyah(box + 4 * (best - 1), z);
            samrt_kf_update(st, z);
            stable++;
        } else {
            stable = 0;
        }
    } else {
        samrt_kf_predict(st);
        double wbest = 0.0, kbest = 0.0;
        const float one_minus = (float)(1.0 - p->alpha);
        for (int i = 1; i < 4; i++) {
            const double k = samrt_kf_box_iou(st + SAMRT_KF_MEAN, box + 4 * (i - 1));
            const float t2 = one_minus * iou[i];
            const double w = p->alpha * k + (double)t2;
            if (i == 1 || w > wbest) idx = i, wbest = w, kbest = k;
        }
        kf_iou = kbest;
        if (iou[idx] < p->stable_iou) {
            stable = 0;
        } else {
            samrt_kf_xyah(box + 4 * (idx - 1), z);
            samrt_kf_update(st, z);
        }
    }
    st[SAMRT_KF_STABLE] = (double)stable;
    for (int c = 0; c < SAMRT_POLICY_DEC_COLS; c++) dec[c] = 0.0f;
    dec[SAMRT_POLICY_DEC_INDEX] = (float)idx;
    dec[SAMRT_POLICY_DEC_IOU] = iou[idx];
    dec[SAMRT_POLICY_DEC_SCORE] = score;
    dec[SAMRT_POLICY_DEC_KF_IOU] = (float)kf_iou;
    dec[SAMRT_POLICY_DEC_ADMIT] = iou[idx] > p->mem_iou && score > p->mem_score ? 1.0f : 0.0f;
    dec[SAMRT_POLICY_DEC_STABLE] = (float)stable;
    return idx;
}

/* Forgets the filter (a new object). */
SAMRT_POLICY_HD void samrt_samurai_restart(double *st) {
    for (int i = 0; i < SAMRT_POLICY_STATE; i++) st[i] = 0.0;
}

/* The work of samrt_policy_samurai_cuda over n_obj objects (`samrt budget`'s frame cost):
 * three launches (box init, boxes, decisions); per object the three candidates' L x L planes
 * read for the boxes (each bilinear sample of the S x S upsample about 10 flops), the chosen
 * plane read and the gated logits written. The state and box rows are noise beside them. */
static inline void samrt_policy_samurai_cost(int n_obj, int low, int side, int64_t *launches, double *flops,
                                             double *bytes) {
    const double plane = 4.0 * low * low;
    *launches = 3;
    *flops = 30.0 * n_obj * (double)side * side;
    *bytes = n_obj * 5.0 * plane;
}

/* SAMRT_E_INVALID_ARG for NULL pointers or sizes out of range. No logging. */
enum samrt_status samrt_policy_check(const struct samrt_policy_args *a);
/* Step 1 for one plane (L x L f32 logits) at model side S: box[4] as above. */
void samrt_policy_box_ref(const float *plane, int low, int side, int32_t *box);
/* Steps 1-3 for every row whose code is not SKIP. */
enum samrt_status samrt_policy_samurai_ref(const struct samrt_policy_args *a);
#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* The kernels on `stream`: allocate nothing, safe inside graph capture. */
enum samrt_status samrt_policy_samurai_cuda(const struct samrt_policy_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_POLICY_H */
