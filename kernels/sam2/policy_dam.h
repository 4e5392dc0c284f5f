/* policy_dam.h - the per-object decisions of DAM4SAM's distractor-aware memory
 * (github.com/jovanavidenovic/DAM4SAM, dam4sam_tracker.py DAM4SAMTracker.track and
 * utils/utils.py keep_largest_component), as device kernels so that a tracked frame never
 * returns to the host for them (and stays capturable in a CUDA graph). Per object and tracked
 * frame, on the low-res logits (L x L) of the decoder's multimask candidates (masks 1..3):
 *
 *  1. gate (one thread): the chosen mask is the best predicted IoU of masks 1..3 (the first
 *     maximum, as the heads choose), gated at object score > 0 (pred_obj_scores: NO_OBJ_SCORE
 *     otherwise); its area n = #(logit > 0) is appended to the object's sizes; the frame may
 *     enter the distractor-resolving memory (DRM) when
 *       predIoU > 0.8 (in f32, as numpy compares the f32 IoU), n >= 1, at least the second
 *       tracked frame, 0.8 <= n / median <= 1.2 (fp64; median of the last 10 non-zero sizes
 *       among the last 300, the current one included), and no DRM addition yet or more than
 *       5 tracked frames since the last one;
 *  2. distractor test (the block, only when the gate passed): for each alternative (the two
 *     other candidates) a = (alt > 0) AND NOT (chosen > 0); when a is not empty, its largest
 *     8-connected component (cv2.connectedComponentsWithStats; ties: the first in raster
 *     order) joined with the chosen mask gives a box; IoU(chosen box, that box) as vot's
 *     calculate_overlaps of two rectangles (pixel counts, inclusive corners; 0 when the
 *     joint box is one pixel wide or high);
 *  3. the frame is added when some alternative was tested and the least IoU is <= 0.7.
 * The official code runs 1-3 on the masks upsampled to the video resolution; here they run on
 * the low-res logits (docs/tracking.md: memory policies). The connected components are a
 * union-find over the pixel indices (root = the smallest index of a component, so the
 * tie-break is the raster order on both sides); the CPU reference labels sequentially, the
 * kernel with atomicMin unions: both find the same partition, the decisions are identical.
 *
 * State per object: SAMRT_POLICY_STATE doubles (the samurai row's size), layout SAMRT_DAM_*.
 * Decisions per object: SAMRT_POLICY_DEC_COLS floats, columns SAMRT_DAM_DEC_*.
 * Tests: tests/test_sam2_policy_dam.c (by hand); the CUDA build's op table (kernel = reference). */
#ifndef SAMRT_SAM2_POLICY_DAM_H
#define SAMRT_SAM2_POLICY_DAM_H

#include "policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The official DAM4SAM constants (dam4sam_tracker.py, sam2/sam21pp_hiera_*.yaml). */
#define SAMRT_DAM4SAM_ADD_IOU 0.8        /* m_iou > 0.8 */
#define SAMRT_DAM4SAM_AREA_LO 0.8        /* obj_sizes_ratio >= 0.8 */
#define SAMRT_DAM4SAM_AREA_HI 1.2        /* obj_sizes_ratio <= 1.2 */
#define SAMRT_DAM4SAM_AREA_N 10          /* median of the last 10 non-empty sizes */
#define SAMRT_DAM4SAM_AREA_WINDOW 300    /* ... among the last 300 */
#define SAMRT_DAM4SAM_GAP 5              /* frame_index - last_added > 5 */
#define SAMRT_DAM4SAM_BOX_IOU 0.7        /* np.min(ious) <= 0.7 */
#define SAMRT_DAM4SAM_MAX_DRM 4          /* max_cond_frames_in_attn: DRM memories attended to */
#define SAMRT_DAM4SAM_STRIDE 5           /* memory_temporal_stride_for_eval: the RAM's stride */

/* state layout (doubles): tracked-frame count (the official frame_index), the count at the
 * last DRM addition (0: none), the non-empty sizes pushed, the ring of the last 10 non-empty
 * sizes and the count at which each was pushed */
enum { SAMRT_DAM_N = 0, SAMRT_DAM_LAST = 1, SAMRT_DAM_NZ = 2, SAMRT_DAM_AREA = 3, SAMRT_DAM_AT = 13 };

/* Decision columns (f32); INDEX, IOU, SCORE and ADD sit where samurai's INDEX, IOU, SCORE and
 * ADMIT do, so the dump and the tracker read them alike. */
enum {
    SAMRT_DAM_DEC_INDEX = SAMRT_POLICY_DEC_INDEX,  /* chosen mask, 1..3 */
    SAMRT_DAM_DEC_IOU = SAMRT_POLICY_DEC_IOU,      /* its predicted IoU */
    SAMRT_DAM_DEC_SCORE = SAMRT_POLICY_DEC_SCORE,  /* the object-score logit */
    SAMRT_DAM_DEC_BOX_IOU = 3,                     /* least box IoU of the tested alternatives, else -1 */
    SAMRT_DAM_DEC_ADD = SAMRT_POLICY_DEC_ADMIT,    /* 1: the frame enters the DRM */
    SAMRT_DAM_DEC_AREA = 5,                        /* n: the chosen mask's positive logits */
    SAMRT_DAM_DEC_RATIO = 6,                       /* n / median, -1 when not computed */
    SAMRT_DAM_DEC_TESTED = 7                       /* alternatives tested (0 .. 2) */
};

struct samrt_policy_dam_args {
    int n_obj;                           /* rows, 1 .. SAMRT_POLICY_MAX_OBJ */
    int low;                             /* L: low-res side */
    const float *masks;                  /* (n_obj, 4, L*L) f32: the decoder's four mask logits */
    const float *iou;                    /* (n_obj, 4) f32 */
    const float *score;                  /* (n_obj, 1) f32 */
    uint8_t code[SAMRT_POLICY_MAX_OBJ];  /* SAMRT_POLICY_SKIP / RUN / RESTART per row */
    double *state;                       /* (n_obj, SAMRT_POLICY_STATE) */
    int32_t *labels;                     /* (n_obj, 2, L*L) scratch: component labels, sizes */
    float *dec;                          /* (n_obj, SAMRT_POLICY_DEC_COLS) */
};

/* The first maximum of the predicted IoUs of masks 1..3. */
SAMRT_POLICY_HD int samrt_dam_best(const float *iou) {
    int best = 1;
    for (int i = 2; i < 4; i++)
        if (iou[i] > iou[best]) best = i;
    return best;
}

/* Step 1: appends the area and returns 1 when the frame passes the gate; *ratio gets
 * n / median (-1 when the official code does not compute it). */
SAMRT_POLICY_HD int samrt_dam_gate(double *st, float best_iou, int area, double *ratio) {
    const double n = st[SAMRT_DAM_N] + 1.0;
    st[SAMRT_DAM_N] = n;
    if (area >= 1) {
        const int slot = (int)st[SAMRT_DAM_NZ] % SAMRT_DAM4SAM_AREA_N;
        st[SAMRT_DAM_AREA + slot] = (double)area;
        st[SAMRT_DAM_AT + slot] = n;
        st[SAMRT_DAM_NZ] += 1.0;
    }
    *ratio = -1.0;
    if (n > 1.0 && area >= 1) {
        double v[SAMRT_DAM4SAM_AREA_N];
        int c = 0;
        const int held = st[SAMRT_DAM_NZ] < SAMRT_DAM4SAM_AREA_N ? (int)st[SAMRT_DAM_NZ] : SAMRT_DAM4SAM_AREA_N;
        for (int i = 0; i < held; i++) {
            if (!(st[SAMRT_DAM_AT + i] > n - SAMRT_DAM4SAM_AREA_WINDOW)) continue;  /* object_sizes[-300:] */
            double x = st[SAMRT_DAM_AREA + i];
            int j = c++;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
            v[j] = x;
        }
        const double med = c % 2 ? v[c / 2] : (v[c / 2 - 1] + v[c / 2]) / 2.0;  /* np.median */
        *ratio = (double)area / med;
    }
    const double last = st[SAMRT_DAM_LAST];
    return best_iou > (float)SAMRT_DAM4SAM_ADD_IOU && *ratio >= SAMRT_DAM4SAM_AREA_LO &&
           *ratio <= SAMRT_DAM4SAM_AREA_HI && area >= 1 && (last == 0.0 || n - last > SAMRT_DAM4SAM_GAP);
}

/* vot calculate_overlaps of two rectangles given as inclusive pixel boxes (x0, y0, x1, y1):
 * both rasterized over their joint bounds, 0 when those are one pixel wide or high. */
SAMRT_POLICY_HD double samrt_dam_box_iou(const int32_t *a, const int32_t *b) {
    const int32_t ux0 = a[0] < b[0] ? a[0] : b[0], uy0 = a[1] < b[1] ? a[1] : b[1];
    const int32_t ux1 = a[2] > b[2] ? a[2] : b[2], uy1 = a[3] > b[3] ? a[3] : b[3];
    if (ux0 >= ux1 || uy0 >= uy1) return 0.0;
    const int32_t ix0 = a[0] > b[0] ? a[0] : b[0], iy0 = a[1] > b[1] ? a[1] : b[1];
    const int32_t ix1 = a[2] < b[2] ? a[2] : b[2], iy1 = a[3] < b[3] ? a[3] : b[3];
    const double iw = ix1 >= ix0 ? (double)(ix1 - ix0 + 1) : 0.0, ih = iy1 >= iy0 ? (double)(iy1 - iy0 + 1) : 0.0;
    const double inter = iw * ih;
    const double aa = (double)(a[2] - a[0] + 1) * (double)(a[3] - a[1] + 1);
    const double ab = (double)(b[2] - b[0] + 1) * (double)(b[3] - b[1] + 1);
    const double uni = aa + ab - inter;
    return uni > 0.0 ? inter / uni : 0.0;
}

/* Step 3: the decision row; a DRM addition records the tracked-frame count. */
SAMRT_POLICY_HD void samrt_dam_finish(double *st, int best, const float *iou, float score, int area, double ratio,
                                      int gate, int tested, double min_iou, float *dec) {
    const int add = gate && tested > 0 && min_iou <= SAMRT_DAM4SAM_BOX_IOU;
    if (add) st[SAMRT_DAM_LAST] = st[SAMRT_DAM_N];
    for (int c = 0; c < SAMRT_POLICY_DEC_COLS; c++) dec[c] = 0.0f;
    dec[SAMRT_DAM_DEC_INDEX] = (float)best;
    dec[SAMRT_DAM_DEC_IOU] = iou[best];
    dec[SAMRT_DAM_DEC_SCORE] = score;
    dec[SAMRT_DAM_DEC_BOX_IOU] = tested > 0 ? (float)min_iou : -1.0f;
    dec[SAMRT_DAM_DEC_ADD] = add ? 1.0f : 0.0f;
    dec[SAMRT_DAM_DEC_AREA] = (float)area;
    dec[SAMRT_DAM_DEC_RATIO] = (float)ratio;
    dec[SAMRT_DAM_DEC_TESTED] = (float)tested;
}

/* The work of samrt_policy_dam4sam_cuda over n_obj objects (`samrt budget`'s frame cost): one
 * launch; per object, where the gate opens, the chosen and the two other candidates' L x L
 * planes read and, per alternative, the component labels and sizes written and read (the
 * compulsory bytes when every object's gate opens: the frame's worst case). */
static inline void samrt_policy_dam4sam_cost(int n_obj, int low, int64_t *launches, double *flops, double *bytes) {
    const double plane = 4.0 * low * low;
    *launches = 1;
    *flops = 30.0 * n_obj * (double)low * low;
    *bytes = n_obj * (3.0 + 2.0 * 4.0) * plane;
}

/* SAMRT_E_INVALID_ARG for NULL pointers or sizes out of range. No logging. */
enum samrt_status samrt_policy_dam_check(const struct samrt_policy_dam_args *a);
/* Step 2 for one alternative on the CPU: the box (x0, y0, x1, y1) of the largest 8-connected
 * component of (alt > 0) AND NOT (chosen > 0) joined with the chosen mask's box `cbox`;
 * returns 0 when that difference is empty. labels: 2 * L*L scratch. */
int samrt_policy_dam_alt_box_ref(const float *chosen, const float *alt, int low, const int32_t *cbox,
                                 int32_t *labels, int32_t *box);
/* Steps 1-3 for every row whose code is not SKIP. */
enum samrt_status samrt_policy_dam4sam_ref(const struct samrt_policy_dam_args *a);
#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* One block per object on `stream`: allocates nothing, safe inside graph capture. */
enum samrt_status samrt_policy_dam4sam_cuda(const struct samrt_policy_dam_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_POLICY_DAM_H */
