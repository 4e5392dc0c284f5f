/* policy_dam.cu - CUDA launcher of DAM4SAM's per-object DRM decision (policy_dam.h): one block
 * per object. The block sums the chosen mask's area and box, thread 0 runs the gate (the
 * shared fp64 functions; built with --fmad=false like policy.cu), and only when it passes the
 * block labels each alternative's pixels outside the chosen mask by union-find (atomicMin
 * unions over the four earlier 8-neighbours, as Playne and Hawick's algorithm: a root is the
 * smallest pixel index of its component, the reference's tie-break), counts the component
 * sizes, takes the largest (ties: the smallest root) and its box. The work is bounded by the
 * L x L plane; the labels live in the planned scratch (no allocation, graph-capturable).
 * Tests: the CUDA build's op table (policy_dam4sam rows, kernel = reference). */
#include <limits.h>

#include "common.cuh"
#include "policy_dam.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int DAM_THREADS = 512;

struct codes {
    uint8_t code[SAMRT_POLICY_MAX_OBJ];
};

__device__ int32_t find_root(volatile int32_t *l, int32_t x) {
    int32_t y;
    while ((y = l[x]) != x) x = y;
    return x;
}

/* Playne and Hawick's union: links the larger root under the smaller, retrying when another
 * thread moved it first. */
__device__ void join(int32_t *l, int32_t a, int32_t b) {
    for (;;) {
        a = find_root(l, a), b = find_root(l, b);
        if (a == b) return;
        if (a > b) {
            const int32_t t = a;
            a = b, b = t;
        }
        const int32_t old = atomicMin(&l[b], a);
        if (old == b) return;
        b = old;
    }
}

/* The block's box of the pixels p with take(p), folded into s_box (shared, atomics). */
template <typename F> __device__ void block_box(int32_t plane, int low, F take, int *s_box) {
    int x0 = INT_MAX, y0 = INT_MAX, x1 = -1, y1 = -1;
    for (int32_t p = threadIdx.x; p < plane; p += blockDim.x) {
        if (!take(p)) continue;
        const int x = p % low, y = p / low;
        x0 = min(x0, x), y0 = min(y0, y), x1 = max(x1, x), y1 = max(y1, y);
    }
    if (x1 >= 0) atomicMin(&s_box[0], x0), atomicMin(&s_box[1], y0), atomicMax(&s_box[2], x1), atomicMax(&s_box[3], y1);
}

/* Step 2 for one alternative: returns (through s_*) whether the difference had a pixel and the
 * joint box; every thread of the block calls it. */
__device__ void alt_box(const float *chosen, const float *alt, int low, int32_t *lab, int32_t *size, const int *cbox,
                        int *s_ubox, unsigned long long *s_key) {
    const int32_t plane = low * low;
    if (threadIdx.x == 0) {
        *s_key = 0ull;
        for (int i = 0; i < 4; i++) s_ubox[i] = cbox[i];
    }
    for (int32_t p = threadIdx.x; p < plane; p += blockDim.x) {
        lab[p] = alt[p] > 0.0f && !(chosen[p] > 0.0f) ? p : -1;
        size[p] = 0;
    }
    __syncthreads();
    for (int32_t p = threadIdx.x; p < plane; p += blockDim.x) {
        if (lab[p] < 0) continue;  /* a foreground label never becomes negative */
        const int x = p % low, y = p / low;
        if (x > 0 && lab[p - 1] >= 0) join(lab, p, p - 1);
        if (y > 0 && lab[p - low] >= 0) join(lab, p, p - low);
        if (x > 0 && y > 0 && lab[p - low - 1] >= 0) join(lab, p, p - low - 1);
        if (x < low - 1 && y > 0 && lab[p - low + 1] >= 0) join(lab, p, p - low + 1);
    }
    __syncthreads();
    for (int32_t p = threadIdx.x; p < plane; p += blockDim.x) {
        if (lab[p] < 0) continue;
        const int32_t r = find_root(lab, p);
        atomicAdd(&size[r], 1);
    }
    __syncthreads();
    unsigned long long key = 0ull;  /* (size, INT_MAX - root): the largest, then the smallest root */
    for (int32_t p = threadIdx.x; p < plane; p += blockDim.x) {
        if (lab[p] != p) continue;
        const unsigned long long k = ((unsigned long long)(uint32_t)size[p] << 32) | (uint32_t)(INT_MAX - p);
        key = k > key ? k : key;
    }
    if (key) atomicMax(s_key, key);
    __syncthreads();
    const unsigned long long best = *s_key;
    if (best) {
        const int32_t root = INT_MAX - (int32_t)(uint32_t)(best & 0xffffffffull);
        block_box(plane, low, [&](int32_t p) { return lab[p] >= 0 && find_root(lab, p) == root; }, s_ubox);
    }
    __syncthreads();
}

__global__ void __launch_bounds__(DAM_THREADS) dam_kernel(struct samrt_policy_dam_args a, codes c) {
    const int b = blockIdx.x;
    if (c.code[b] == SAMRT_POLICY_SKIP) return;
    __shared__ int s_area, s_gate, s_tested;
    __shared__ int s_cbox[4], s_ubox[4];
    __shared__ double s_ratio, s_min;
    __shared__ unsigned long long s_key;
    const int low = a.low;
    const int32_t plane = low * low;
    const float *iou = a.iou + 4 * b, score = a.score[b];
    const int best = samrt_dam_best(iou);
    const float *chosen = a.masks + ((int64_t)b * 4 + best) * plane;
    double *st = a.state + (int64_t)b * SAMRT_POLICY_STATE;
    if (threadIdx.x == 0) {
        s_area = 0, s_tested = 0, s_min = 2.0;
        s_cbox[0] = low, s_cbox[1] = low, s_cbox[2] = -1, s_cbox[3] = -1;
    }
    __syncthreads();
    const int is_obj = score > 0.0f;
    int n = 0;
    for (int32_t p = threadIdx.x; is_obj && p < plane; p += blockDim.x) n += chosen[p] > 0.0f;
    if (n) atomicAdd(&s_area, n);
    block_box(plane, low, [&](int32_t p) { return is_obj && chosen[p] > 0.0f; }, s_cbox);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (c.code[b] == SAMRT_POLICY_RESTART) samrt_samurai_restart(st);
        double ratio;
        s_gate = samrt_dam_gate(st, iou[best], s_area, &ratio);
        s_ratio = ratio;
    }
    __syncthreads();
    int32_t *lab = a.labels + (int64_t)b * 2 * plane, *size = lab + plane;
    for (int i = 1; s_gate && i < 4; i++) {
        if (i == best) continue;
        alt_box(chosen, a.masks + ((int64_t)b * 4 + i) * plane, low, lab, size, s_cbox, s_ubox, &s_key);
        if (threadIdx.x == 0 && s_key) {
            int32_t cb[4], ub[4];
            for (int q = 0; q < 4; q++) cb[q] = s_cbox[q], ub[q] = s_ubox[q];
            const double v = samrt_dam_box_iou(cb, ub);
            s_min = v < s_min ? v : s_min;
            s_tested++;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        samrt_dam_finish(st, best, iou, score, s_area, s_ratio, s_gate, s_tested, s_min,
                         a.dec + (int64_t)b * SAMRT_POLICY_DEC_COLS);
}

}  // namespace

extern "C" enum samrt_status samrt_policy_dam4sam_cuda(const struct samrt_policy_dam_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_policy_dam_check(a));
    codes c;
    memcpy(c.code, a->code, sizeof c.code);
    dam_kernel<<<a->n_obj, DAM_THREADS, 0, stream>>>(*a, c);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
