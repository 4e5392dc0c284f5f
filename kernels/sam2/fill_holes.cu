/* fill_holes.cu - CUDA launcher for fill_holes.h: connected components of the background by
 * union-find on a label plane, in 4 fixed launches (no host round trip, no data-dependent
 * iteration count, so the sequence can be captured into a CUDA graph).
 *
 * Labels are global pixel indices over the whole batch (a map's pixels never link to another
 * map's). Linking is done with atomicMin on the larger root, so every link points to a smaller
 * index and a component's root ends up its smallest pixel: the labelling does not depend on
 * thread scheduling, and neither do the areas (integer atomics). The union loop is the
 * lock-free one of label-equivalence union-find: when atomicMin finds the root already
 * relinked by another thread, it continues from the value it found. Label reads go through
 * volatile loads so a find sees other blocks' links (L1 is not coherent).
 * Tests: tests/test_fill_holes_cuda.c. */
#include "common.cuh"
#include "fill_holes.h"
#include "samrt_impl.h"

namespace {

constexpr int FH_THREADS = 256;
constexpr unsigned FH_MAX_BLOCKS = 4096;

__device__ __forceinline__ int fh_find(const volatile int32_t *lab, int32_t a) {
    int32_t p = lab[a];
    while (p != a) {
        a = p;
        p = lab[a];
    }
    return a;
}

__device__ __forceinline__ void fh_unite(int32_t *lab, int32_t a, int32_t b) {
    for (;;) {
        a = fh_find(lab, a);
        b = fh_find(lab, b);
        if (a == b) return;
        if (a < b) {
            const int32_t old = atomicMin(&lab[b], a);
            if (old == b) return;
            b = old;
        } else {
            const int32_t old = atomicMin(&lab[a], b);
            if (old == a) return;
            a = old;
        }
    }
}

__global__ void fill_holes_init_kernel(const float *x, int32_t *lab, int32_t *area, int32_t n) {
    for (int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
        lab[p] = x[p] <= 0.0f ? p : -1;
        area[p] = 0;
    }
}

/* Each background pixel links to its background neighbours left, up-left, up, up-right: with
 * the symmetric links of the other pixels that covers all 8 directions. */
__global__ void fill_holes_merge_kernel(int32_t *lab, int32_t n, int h, int w) {
    for (int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
        if (lab[p] < 0) continue;
        const int xx = p % w, y = (p / w) % h;
        if (xx > 0 && lab[p - 1] >= 0) fh_unite(lab, p, p - 1);
        if (y > 0) {
            const int32_t up = p - w;
            if (xx > 0 && lab[up - 1] >= 0) fh_unite(lab, p, up - 1);
            if (lab[up] >= 0) fh_unite(lab, p, up);
            if (xx + 1 < w && lab[up + 1] >= 0) fh_unite(lab, p, up + 1);
        }
    }
}

/* Roots are final here; writing a root over a pixel's parent keeps every chain valid. */
__global__ void fill_holes_count_kernel(int32_t *lab, int32_t *area, int32_t n) {
    for (int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
        if (lab[p] < 0) continue;
        const int32_t r = fh_find(lab, p);
        lab[p] = r;
        atomicAdd(&area[r], 1);
    }
}

__global__ void fill_holes_fill_kernel(const float *x, float *out, const int32_t *lab, const int32_t *area,
                                       int32_t n, int32_t max_area) {
    for (int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
        const int32_t r = lab[p];
        out[p] = (r >= 0 && area[r] <= max_area) ? SAMRT_FILL_HOLES_VALUE : x[p];
    }
}

}  // namespace

extern "C" enum samrt_status samrt_fill_holes_cuda(const struct samrt_fill_holes_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_fill_holes_check(a));
    const int32_t n = a->n_batch * a->h * a->w;
    int32_t *lab = a->ws, *area = a->ws + n;
    const unsigned blocks = (unsigned)SAMRT_MIN((int64_t)FH_MAX_BLOCKS, ((int64_t)n + FH_THREADS - 1) / FH_THREADS);
    fill_holes_init_kernel<<<blocks, FH_THREADS, 0, stream>>>(a->x, lab, area, n);
    fill_holes_merge_kernel<<<blocks, FH_THREADS, 0, stream>>>(lab, n, a->h, a->w);
    fill_holes_count_kernel<<<blocks, FH_THREADS, 0, stream>>>(lab, area, n);
    fill_holes_fill_kernel<<<blocks, FH_THREADS, 0, stream>>>(a->x, a->out, lab, area, n, a->max_area);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
