/* track_rows.cu - CUDA launcher of the tracker's table-driven row copies (track_rows.h).
 * grid.y is the pair, grid.x strides over the row in 16-byte words; the table entry is one
 * broadcast load per thread. Rows are 1 KiB (a pointer) to K * 512 KiB (a frame's memories
 * at side 1024): bandwidth-bound, a few microseconds.
 * Tests: tests/test_sam2_track_graph_cuda.c. */
#include "common.cuh"
#include "samrt_impl.h"
#include "track_rows.h"

using namespace samrt;

namespace {

constexpr int ROWS_THREADS = 256;
constexpr int64_t ROWS_MAX_BLOCKS = 1024;

__global__ void rows_kernel(uint4 *dst, const uint4 *src, int64_t words, int64_t n_dst, int64_t n_src,
                            const int32_t *pairs) {
    const int64_t d = pairs[2 * blockIdx.y], s = pairs[2 * blockIdx.y + 1];
    if (d < 0 || d >= n_dst || s < 0 || s >= n_src) return;
    uint4 *o = dst + d * words;
    const uint4 *in = src + s * words;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (int64_t)gridDim.x * blockDim.x)
        o[i] = in[i];
}

}  // namespace

extern "C" enum samrt_status samrt_track_rows_cuda(const struct samrt_track_rows_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_track_rows_check(a));
    if (a->n == 0) return SAMRT_OK;
    const int64_t words = (int64_t)(a->row_bytes / 16);
    const int64_t bx = ceil_div(words, (int64_t)ROWS_THREADS);
    const dim3 grid((unsigned)(bx < ROWS_MAX_BLOCKS ? bx : ROWS_MAX_BLOCKS), (unsigned)a->n);
    rows_kernel<<<grid, ROWS_THREADS, 0, stream>>>((uint4 *)a->dst, (const uint4 *)a->src, words, a->n_dst, a->n_src,
                                                   a->pairs);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
