/* finite.cu - CUDA launcher of the non-finite check (finite.h). SAMRT_FINITE_BLOCKS blocks
 * stride over every segment in 16-byte words (scalar loads for a misaligned start and the
 * tail), test the exponent bits, and OR their bits into one partial word per block; a
 * one-block launch ORs the partials into flags[0]. A frame's checked tensors are ~3 MB at
 * 1024 (the image embedding dominates): a few microseconds, bandwidth-bound.
 * Tests: tests/test_finite.c. */
#include <cstring>

#include "common.cuh"
#include "finite.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int FIN_THREADS = 256;

/* The segments by value (kernel parameter space): the launch reads no host memory. */
struct fin_segs {
    const char *data[SAMRT_FINITE_MAX_SEGS];
    int64_t bytes[SAMRT_FINITE_MAX_SEGS];
    uint32_t mask[SAMRT_FINITE_MAX_SEGS];  /* exponent mask: f32 0x7f800000, f16 0x7c00, bf16 0x7f80 */
    int n_seg;
};

/* One 32-bit word: a f32 value, or two 16-bit values (mask < 0x10000). */
__device__ __forceinline__ bool bad_word(uint32_t u, uint32_t mask) {
    if (mask > 0xffffu) return (u & mask) == mask;
    return (u & mask) == mask || ((u >> 16) & mask) == mask;
}

__device__ __forceinline__ int32_t block_or(int32_t bits) {
    __shared__ int32_t red;
    if (threadIdx.x == 0) red = 0;
    __syncthreads();
    bits = (int32_t)__reduce_or_sync(0xffffffffu, (unsigned)bits);
    if ((threadIdx.x & 31) == 0 && bits) atomicOr(&red, bits);
    __syncthreads();
    return red;
}

__global__ void finite_kernel(fin_segs s, int32_t *flags) {
    int32_t bits = 0;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (int64_t)gridDim.x * blockDim.x;
    for (int i = 0; i < s.n_seg; i++) {
        const char *p = s.data[i];
        const int64_t nb = s.bytes[i];
        const uint32_t mask = s.mask[i];
        const int esz = mask > 0xffffu ? 4 : 2;
        /* scalar head up to 16-byte alignment, 16-byte words, scalar tail */
        const int64_t head = min(nb, (int64_t)((16 - ((uintptr_t)p & 15)) & 15));
        const int64_t words = (nb - head) / 16;
        bool bad = false;
        for (int64_t j = tid * esz; j < head; j += stride * esz)
            bad |= bad_word(esz == 4 ? *(const uint32_t *)(p + j) : *(const uint16_t *)(p + j), mask);
        const uint4 *w = (const uint4 *)(p + head);
        for (int64_t j = tid; j < words; j += stride) {
            const uint4 v = w[j];
            bad |= bad_word(v.x, mask) | bad_word(v.y, mask) | bad_word(v.z, mask) | bad_word(v.w, mask);
        }
        for (int64_t j = head + words * 16 + tid * esz; j < nb; j += stride * esz)
            bad |= bad_word(esz == 4 ? *(const uint32_t *)(p + j) : *(const uint16_t *)(p + j), mask);
        if (bad) bits |= 1 << i;
    }
    bits = block_or(bits);
    if (threadIdx.x == 0) flags[1 + blockIdx.x] = bits;
}

__global__ void finite_finish_kernel(int32_t *flags) {
    int32_t bits = 0;
    for (int i = threadIdx.x; i < SAMRT_FINITE_BLOCKS; i += blockDim.x) bits |= flags[1 + i];
    bits = block_or(bits);
    if (threadIdx.x == 0) flags[0] = bits;
}

}  // namespace

extern "C" enum samrt_status samrt_finite_cuda(const struct samrt_finite_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_finite_check(a));
    fin_segs s;
    memset(&s, 0, sizeof s);
    s.n_seg = a->n_seg;
    for (int i = 0; i < a->n_seg; i++) {
        const struct samrt_finite_seg *g = &a->seg[i];
        s.data[i] = (const char *)g->data;
        s.bytes[i] = g->n * (int64_t)samrt_dtype_size(g->dtype);
        s.mask[i] = g->dtype == SAMRT_DTYPE_F32 ? 0x7f800000u : g->dtype == SAMRT_DTYPE_F16 ? 0x7c00u : 0x7f80u;
    }
    finite_kernel<<<SAMRT_FINITE_BLOCKS, FIN_THREADS, 0, stream>>>(s, a->flags);
    SAMRT_LAUNCH_CHECK();
    finite_finish_kernel<<<1, 128, 0, stream>>>(a->flags);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
