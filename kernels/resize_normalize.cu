/* resize_normalize.cu - CUDA launcher for kernels/resize_normalize.h: Pillow-exact BICUBIC
 * resize of an RGB8 frame + /255 + (x - mean) / std, NCHW f32/f16/bf16 out, one kernel.
 *
 * One 256-thread block per output tile (tile_w x tile_h, chosen by the plan):
 *  1. stage: the input rows the tile's vertical taps need (its "band") are copied from
 *     global memory into shared memory as 32-bit words, RGB interleaved, starting at the
 *     aligned word below the first needed byte (its offset inside the word is the row's
 *     "phase"). The frame is read about once in total: column tiles overlap by the filter's
 *     halo only, row tiles by the vertical taps.
 *  2. horizontal pass: a thread owns one output column (its K fixed-point weights stay in
 *     registers; K is a template parameter = the plan's padded tap count) and walks the band
 *     rows. It realigns the row bytes it needs with funnel shifts so every byte position is
 *     a compile-time constant, accumulates the three channels in int32 exactly as Pillow
 *     does, and stores the clipped uint8 results as three planes in shared memory.
 *  3. vertical pass: a thread owns four adjacent output pixels of one row and channel (one
 *     32-bit word of a plane per tap), sums the taps, clips, maps u8 -> output dtype with a
 *     3x256 table in shared memory (host-computed in the plan, so the float math is the
 *     reference's), and writes four values with one vector store.
 * Integer math makes the result bit-identical to samrt_resize_normalize_ref.
 * Tested by tests/test_resize_normalize_cuda.c (--bench reports GB/s vs a device copy). */
#include <cstdint>

#include "common.cuh"
#include "resize_normalize.h"
#include "vec4.cuh"

namespace {

constexpr int kThreads = SAMRT_RESIZE_THREADS;
constexpr int kHalf = 1 << (SAMRT_RESIZE_PRECISION_BITS - 1);

struct Args {
    const int32_t *xb, *xw, *yb, *yw;  // plan tables (device)
    const float *norm;                 // (3, 256)
    const uint8_t *src;
    size_t nb_row;                     // bytes per frame row
    size_t src_bytes;                  // (in_h - 1) * nb_row + 3 * in_w: the last readable byte + 1
    int out_w, out_h, ky;
    int tw_log2, th_log2;              // tile_w, tile_h (powers of two)
    int band_rows, row_bytes;          // shared-memory layout, from the plan
    bool vec;                          // 4-wide vector stores allowed
};

__device__ __forceinline__ int clip8(int acc) {
    return min(max(acc >> SAMRT_RESIZE_PRECISION_BITS, 0), 255);
}

/* Offset of the band row's first needed byte inside its first staged word. */
__device__ __forceinline__ int row_phase(const Args &a, int y, int x_lo) {
    return (int)(((uintptr_t)a.src + (size_t)y * a.nb_row + 3u * (unsigned)x_lo) & 3u);
}

template <int K, typename T>
__global__ void __launch_bounds__(kThreads) resize_normalize_kernel(const Args a, T *__restrict__ dst) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int tw = 1 << a.tw_log2, th = 1 << a.th_log2;
    uint8_t *stage = smem;                                     // band_rows x row_bytes
    uint8_t *inter = smem + (size_t)a.band_rows * a.row_bytes;  // 3 planes x band_rows x tw
    T *tab = reinterpret_cast<T *>(inter + 3 * a.band_rows * tw);  // 3 x 256

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int c0 = blockIdx.x << a.tw_log2, y0 = blockIdx.y << a.th_log2;
    const int c_last = min(c0 + tw, a.out_w) - 1, y_last = min(y0 + th, a.out_h) - 1;
    const int x_lo = a.xb[2 * c0], x_hi = a.xb[2 * c_last] + a.xb[2 * c_last + 1];
    const int y_lo = a.yb[2 * y0], n_rows = a.yb[2 * y_last] + a.yb[2 * y_last + 1] - y_lo;

    for (int i = tid; i < 3 * 256; i += kThreads) tab[i] = samrt::from_f32<T>(a.norm[i]);

    // 1. stage the band: whole aligned words; the words past what the tile needs are zeroed
    const int row_words = a.row_bytes >> 2;
    for (int r = warp; r < n_rows; r += kThreads / 32) {
        const uint8_t *p = a.src + (size_t)(y_lo + r) * a.nb_row + 3 * x_lo;
        const int phase = (int)((uintptr_t)p & 3u);
        const uint8_t *pa = p - phase;  // >= src: src is 4-byte aligned
        const size_t base = (size_t)(pa - a.src);
        const int need = (phase + 3 * (x_hi - x_lo) + 3) >> 2;
        uint32_t *row = reinterpret_cast<uint32_t *>(stage + r * a.row_bytes);
        for (int j = lane; j < row_words; j += 32) {
            uint32_t v = 0;
            if (j < need) {
                const size_t at = base + 4 * (size_t)j;
                if (at + 4 <= a.src_bytes) {
                    v = __ldg(reinterpret_cast<const unsigned *>(pa) + j);
                } else {
                    for (int b = 0; b < 4 && at + b < a.src_bytes; b++) v |= (uint32_t)pa[4 * j + b] << (8 * b);
                }
            }
            row[j] = v;
        }
    }
    __syncthreads();

    // 2. horizontal pass: column c0 + cc, band rows r = tid / tw, + kThreads / tw, ...
    {
        const int cc = tid & (tw - 1), c = c0 + cc;
        if (c < a.out_w) {
            int w[K];
            const int4 *wp = reinterpret_cast<const int4 *>(a.xw + (size_t)c * K);
#pragma unroll
            for (int q = 0; q < K / 4; q++) {
                const int4 t = __ldg(wp + q);
                w[4 * q] = t.x; w[4 * q + 1] = t.y; w[4 * q + 2] = t.z; w[4 * q + 3] = t.w;
            }
            const int ob = 3 * (a.xb[2 * c] - x_lo);
            constexpr int kWords = 3 * K / 4;  // the K RGB taps, realigned
            for (int r = tid >> a.tw_log2; r < n_rows; r += kThreads >> a.tw_log2) {
                const int o = ob + row_phase(a, y_lo + r, x_lo);
                const uint32_t *sp = reinterpret_cast<const uint32_t *>(stage + r * a.row_bytes) + (o >> 2);
                const unsigned sh = 8u * (o & 3);
                uint32_t al[kWords];
                uint32_t prev = sp[0];
#pragma unroll
                for (int i = 0; i < kWords; i++) {
                    const uint32_t next = sp[i + 1];
                    al[i] = __funnelshift_r(prev, next, sh);
                    prev = next;
                }
                int acc[3] = {kHalf, kHalf, kHalf};
#pragma unroll
                for (int k = 0; k < K; k++)
#pragma unroll
                    for (int ch = 0; ch < 3; ch++) {
                        const int b = 3 * k + ch;
                        acc[ch] += (int)((al[b >> 2] >> (8 * (b & 3))) & 0xffu) * w[k];
                    }
#pragma unroll
                for (int ch = 0; ch < 3; ch++) inter[(ch * a.band_rows + r) * tw + cc] = (uint8_t)clip8(acc[ch]);
            }
        }
    }
    __syncthreads();

    // 3. vertical pass: four pixels x..x+3 of row y, channel ch
    const int qpr_log2 = a.tw_log2 - 2, q = tid & ((1 << qpr_log2) - 1), x = c0 + 4 * q;
    if (x >= a.out_w) return;
    for (int rc = tid >> qpr_log2; rc < 3 * th; rc += kThreads >> qpr_log2) {
        const int ch = rc >> a.th_log2, y = y0 + (rc & (th - 1));
        if (y >= a.out_h) continue;
        const int ys = a.yb[2 * y] - y_lo, cnt = a.yb[2 * y + 1];
        const int32_t *wy = a.yw + (size_t)y * a.ky;
        const uint32_t *col = reinterpret_cast<const uint32_t *>(inter + (ch * a.band_rows + ys) * tw) + q;
        int acc[4] = {kHalf, kHalf, kHalf, kHalf};
        for (int k = 0; k < cnt; k++) {
            const int wk = __ldg(wy + k);
            const uint32_t v = col[k << qpr_log2];
#pragma unroll
            for (int j = 0; j < 4; j++) acc[j] += (int)((v >> (8 * j)) & 0xffu) * wk;
        }
        T vals[4];
#pragma unroll
        for (int j = 0; j < 4; j++) vals[j] = tab[ch * 256 + clip8(acc[j])];
        T *o = dst + ((size_t)ch * a.out_h + y) * a.out_w + x;
        if (a.vec && x + 3 < a.out_w) {
            samrt::store4v(o, vals);
        } else {
            for (int j = 0; j < 4 && x + j < a.out_w; j++) o[j] = vals[j];
        }
    }
}

int log2i(int v) {
    int l = 0;
    while ((1 << l) < v) l++;
    return l;
}

template <typename T>
enum samrt_status launch(const struct samrt_resize_plan *p, const Args &a, void *dst, cudaStream_t stream) {
    const dim3 grid(samrt::ceil_div(p->out_w, p->tile_w), samrt::ceil_div(p->out_h, p->tile_h));
    T *out = (T *)dst;
    switch (p->kx) {
#define SAMRT_RESIZE_CASE(K)                                                                      \
    case K: resize_normalize_kernel<K, T><<<grid, kThreads, p->smem_bytes, stream>>>(a, out); break;
        SAMRT_RESIZE_CASE(4) SAMRT_RESIZE_CASE(8) SAMRT_RESIZE_CASE(12) SAMRT_RESIZE_CASE(16)
        SAMRT_RESIZE_CASE(20) SAMRT_RESIZE_CASE(24) SAMRT_RESIZE_CASE(28) SAMRT_RESIZE_CASE(32)
#undef SAMRT_RESIZE_CASE
    default: return SAMRT_E_UNSUPPORTED;
    }
    return SAMRT_OK;
}

}  // namespace

extern "C" enum samrt_status samrt_resize_normalize_cuda(const struct samrt_resize_plan *plan,
                                                         const void *tables, const uint8_t *src,
                                                         size_t nb_row, void *dst, enum samrt_dtype dtype,
                                                         cudaStream_t stream) {
    if (plan == NULL || tables == NULL || src == NULL || dst == NULL) return SAMRT_E_INVALID_ARG;
    if (plan->in_w < 1 || plan->in_h < 1 || plan->out_w < 1 || plan->out_h < 1) return SAMRT_E_INVALID_ARG;
    if (plan->tile_w == 0) return SAMRT_E_UNSUPPORTED;
    if (((uintptr_t)src & 3u) != 0 || ((uintptr_t)tables & 15u) != 0) return SAMRT_E_INVALID_ARG;
    if (nb_row < (size_t)3 * plan->in_w) return SAMRT_E_INVALID_ARG;
    const char *t = (const char *)tables;
    Args a;
    a.xb = (const int32_t *)(t + plan->off_xb);
    a.xw = (const int32_t *)(t + plan->off_xw);
    a.yb = (const int32_t *)(t + plan->off_yb);
    a.yw = (const int32_t *)(t + plan->off_yw);
    a.norm = (const float *)(t + plan->off_norm);
    a.src = src;
    a.nb_row = nb_row;
    a.src_bytes = (size_t)(plan->in_h - 1) * nb_row + 3 * (size_t)plan->in_w;
    a.out_w = plan->out_w;
    a.out_h = plan->out_h;
    a.ky = plan->ky;
    a.tw_log2 = log2i(plan->tile_w);
    a.th_log2 = log2i(plan->tile_h);
    a.band_rows = plan->band_rows;
    a.row_bytes = plan->stage_row_bytes;
    enum samrt_status st;
    switch (dtype) {
    case SAMRT_DTYPE_F32:
        a.vec = plan->out_w % 4 == 0 && samrt::vec4_aligned<float>(dst);
        st = launch<float>(plan, a, dst, stream);
        break;
    case SAMRT_DTYPE_F16:
        a.vec = plan->out_w % 4 == 0 && samrt::vec4_aligned<__half>(dst);
        st = launch<__half>(plan, a, dst, stream);
        break;
    case SAMRT_DTYPE_BF16:
        a.vec = plan->out_w % 4 == 0 && samrt::vec4_aligned<__nv_bfloat16>(dst);
        st = launch<__nv_bfloat16>(plan, a, dst, stream);
        break;
    default: return SAMRT_E_UNSUPPORTED;
    }
    if (st != SAMRT_OK) return st;
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
