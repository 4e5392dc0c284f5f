/* policy.cu - CUDA launchers of SAMURAI's per-object decisions (policy.h): the candidates'
 * boxes (one block per 16 rows of the S x S upsample, per candidate and object: a block
 * reduction, then one atomic min / max per block), then one block per object: thread 0 runs
 * the Kalman decision in fp64 (policy.h's functions; this file is built with --fmad=false so
 * the fp64 arithmetic rounds as the reference's), the block copies the chosen gated logits.
 * Tests: tests/test_sam2_policy.c (reference), the CUDA build's op table (kernel = reference). */
#include "common.cuh"
#include "interp.h"
#include "policy.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int BOX_THREADS = 256;
constexpr int BOX_ROWS = 16;

struct codes {
    uint8_t code[SAMRT_POLICY_MAX_OBJ];
};

__global__ void box_init_kernel(int32_t *boxes, int n, int side) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int32_t *b = boxes + 4 * i;
    b[0] = side, b[1] = side, b[2] = -1, b[3] = -1;
}

__global__ void box_kernel(const float *masks, const float *score, codes c, float min_obj, int low, int side,
                           int32_t *boxes) {
    const int b = blockIdx.z, cand = blockIdx.y;
    if (c.code[b] == SAMRT_POLICY_SKIP || !(score[b] > min_obj)) return;
    __shared__ int s[4];
    if (threadIdx.x == 0) s[0] = side, s[1] = side, s[2] = -1, s[3] = -1;
    __syncthreads();
    const int64_t plane = (int64_t)low * low;
    const float *p = masks + ((int64_t)b * 4 + 1 + cand) * plane;
    const float sc = samrt_interp_scale(low, side);
    int x0 = side, y0 = side, x1 = -1, y1 = -1;
    const int yb = blockIdx.x * BOX_ROWS;
    for (int i = threadIdx.x; i < BOX_ROWS * side; i += blockDim.x) {
        const int y = yb + i / side, x = i % side;
        if (y >= side) break;
        int r0, r1, c0, c1;
        float h0, h1, w0, w1;
        samrt_linear_coef(sc, y, low, &r0, &r1, &h0, &h1);
        samrt_linear_coef(sc, x, low, &c0, &c1, &w0, &w1);
        const float v = samrt_bilerp(h0, h1, w0, w1, p[r0 * low + c0], p[r0 * low + c1], p[r1 * low + c0],
                                     p[r1 * low + c1]);
        if (!(v > 0.0f)) continue;
        x0 = min(x0, x), x1 = max(x1, x), y0 = min(y0, y), y1 = max(y1, y);
    }
    if (x1 >= 0) {
        atomicMin(&s[0], x0), atomicMin(&s[1], y0), atomicMax(&s[2], x1), atomicMax(&s[3], y1);
    }
    __syncthreads();
    if (threadIdx.x == 0 && s[2] >= 0) {
        int32_t *o = boxes + ((int64_t)b * 3 + cand) * 4;
        atomicMin(&o[0], s[0]), atomicMin(&o[1], s[1]), atomicMax(&o[2], s[2]), atomicMax(&o[3], s[3]);
    }
}

__global__ void decide_kernel(struct samrt_policy_args a, codes c) {
    const int b = blockIdx.x;
    if (c.code[b] == SAMRT_POLICY_SKIP) return;
    __shared__ int idx;
    const float score = a.score[b];
    const int is_obj = score > a.p.min_obj_score;
    if (threadIdx.x == 0) {
        double *st = a.state + (int64_t)b * SAMRT_POLICY_STATE;
        if (c.code[b] == SAMRT_POLICY_RESTART) samrt_samurai_restart(st);
        int32_t *box = a.boxes + (int64_t)b * 12;
        for (int i = 0; i < 3; i++)
            if (!is_obj || box[4 * i + 2] < 0) box[4 * i] = box[4 * i + 1] = box[4 * i + 2] = box[4 * i + 3] = 0;
        idx = samrt_samurai_decide(&a.p, st, a.iou + 4 * b, score, box, a.dec + (int64_t)b * SAMRT_POLICY_DEC_COLS);
    }
    __syncthreads();
    const int64_t plane = (int64_t)a.low * a.low;
    const float *src = a.masks + ((int64_t)b * 4 + idx) * plane;
    float *dst = a.low_out + (int64_t)b * plane;
    for (int64_t i = threadIdx.x; i < plane; i += blockDim.x) dst[i] = is_obj ? src[i] : SAMRT_POLICY_NO_OBJ_SCORE;
}

}  // namespace

extern "C" enum samrt_status samrt_policy_samurai_cuda(const struct samrt_policy_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_policy_check(a));
    codes c;
    memcpy(c.code, a->code, sizeof c.code);
    const int n_box = a->n_obj * 3;
    box_init_kernel<<<ceil_div(n_box, BOX_THREADS), BOX_THREADS, 0, stream>>>(a->boxes, n_box, a->side);
    const dim3 grid((unsigned)ceil_div(a->side, BOX_ROWS), 3, (unsigned)a->n_obj);
    box_kernel<<<grid, BOX_THREADS, 0, stream>>>(a->masks, a->score, c, a->p.min_obj_score, a->low, a->side, a->boxes);
    decide_kernel<<<a->n_obj, BOX_THREADS, 0, stream>>>(*a, c);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
