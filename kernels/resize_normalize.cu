/* resize_normalize.cu - CUDA launcher for kernels/resize_normalize.h: Pillow-exact BICUBIC
 * resize of an RGB8 frame + /255 + (x - mean) / std, NCHW f32/f16/bf16 out, one kernel.
 *
 * One 256-thread block per output tile (tile_w x tile_h, chosen by the plan). The frame is
 * read once in total (column tiles overlap by the filter's halo only, row tiles by the
 * vertical taps), so the kernel should run near memory speed; what it must avoid is waiting
 * on memory with little in flight, and spending more integer issue slots than the bytes take
 * to arrive (integer ops issue at half the fp32 rate; extract + multiply per tap was the
 * old cost, see kernels/dev/resize_notes.md).
 *  1. stage: the input rows the tile's vertical taps need (its "band") go from global into
 *     shared memory as 16-byte cp.async copies, all in flight at once, RGB interleaved,
 *     starting at the 16-byte aligned address below the first needed byte (its offset inside
 *     that chunk is the row's "phase"). Chunks that would reach outside the frame are copied
 *     byte by byte. The tile's slices of the plan tables (bounds and weights of its columns
 *     and rows) come along in the same group, so neither pass waits on global memory after
 *     the one wait for the band. While they arrive, the clip + normalise table is built.
 *  2. horizontal pass: a thread owns one output column and walks the band rows. It realigns
 *     the row bytes it needs with funnel shifts, splits four pixels' RGB bytes into one word
 *     per channel (PRMT), and sums taps x weights as byte dot products (dp4a) over the three
 *     bytes of each fixed-point weight (see horizontal_row); the clipped uint8 results go to
 *     three planes in shared memory.
 *  3. vertical pass: a thread owns eight adjacent output pixels of one row, all three
 *     channels (one 8-byte word per plane and tap, each byte extracted by one instruction),
 *     and writes 8-value vectors. Clip and normalisation are one lookup: the accumulator
 *     starts biased by -SAMRT_RESIZE_NORM_LO << 22, so (acc >> 22) indexes a table of
 *     SAMRT_RESIZE_NORM_N entries per channel that already holds the clipped, normalised
 *     value (the plan checks that the weights keep every sum inside it).
 * Integer math makes the result bit-identical to samrt_resize_normalize_ref; the sums wrap
 * as uint32 (two's complement), which gives the exact int32 sum Pillow computes.
 * The NV12 form (resize_normalize_nv12.h) is the same kernel with kNv12: step 1 converts the
 * band's NV12 pixels (samrt_yuv_pixel, nv12_rgb's arithmetic) into the staged rows, at phase 0,
 * instead of copying RGB8 bytes; steps 2 and 3 are unchanged, so it is bit for bit
 * resize_normalize of nv12_rgb's output.
 * Tested by tests/test_resize_normalize_cuda.c (--bench reports GB/s vs a device copy) and the
 * op table (tests/ops_table_video.c: resize_normalize_nv12 against the two references). */
#include <cstdint>
#include <type_traits>

#include "common.cuh"
#include "resize_normalize.h"
#include "resize_normalize_nv12.h"
#include "samrt_impl.h"

namespace {

constexpr int kThreads = SAMRT_RESIZE_THREADS;
constexpr int kShift = SAMRT_RESIZE_PRECISION_BITS;
constexpr int kHalf = 1 << (kShift - 1);
constexpr int kNormLo = SAMRT_RESIZE_NORM_LO, kNormN = SAMRT_RESIZE_NORM_N;
constexpr int kPx = 8;  // output pixels per thread in the vertical pass

struct Args {
    const int32_t *xb, *xw, *yb, *yw;  // plan tables (device)
    const float *norm;                 // (3, 256)
    const uint8_t *src;                // RGB8 frame, or NV12: the luma plane
    size_t nb_row;                     // bytes per frame row (NV12: the luma pitch)
    const uint8_t *uv;                 // NV12: the chroma plane, uv_pitch bytes per row
    size_t uv_pitch;
    samrt_yuv_coefs yuv;               // NV12: the conversion's constants
    size_t src_bytes;                  // (in_h - 1) * nb_row + 3 * in_w: the last readable byte + 1
    int out_w, out_h, ky;
    int tw_log2, th_log2;              // tile_w, tile_h (powers of two)
    int band_rows, row_bytes;          // shared-memory layout, from the plan
    int tabs_off;                      // byte offset of the table slices in shared memory
    bool vec;                          // 8-wide vector stores allowed
};

__device__ __forceinline__ int clip8(int acc) { return min(max(acc >> kShift, 0), 255); }

/* N-byte asynchronous copy global -> shared, N = 4 or 16 (16-byte copies bypass L1). */
template <int N> __device__ __forceinline__ void cp_async(void *dst, const void *src) {
    static_assert(N == 4 || N == 16, "cp.async sizes used here");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    if constexpr (N == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d), "l"(src), "n"(N) : "memory");
#else
    using W = typename std::conditional<N == 16, uint4, uint32_t>::type;
    *reinterpret_cast<W *>(dst) = *reinterpret_cast<const W *>(src);
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* dot(4 unsigned bytes of a, 4 signed bytes of b) + c */
__device__ __forceinline__ int dp4a_us(uint32_t a, uint32_t b, int c) {
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* Byte j of v, zero-extended: one instruction each (PRMT for the middle bytes, where the
 * compiler would otherwise emit a shift and a mask). */
template <int J> __device__ __forceinline__ uint32_t byte_of(uint32_t v) {
    if (J == 0) return v & 0xffu;
    if (J == 3) return v >> 24;
    return __byte_perm(v, 0u, 0x4440u | J);
}

/* acc[j] += byte j of v * w, j < 4 */
__device__ __forceinline__ void mac4(uint32_t v, uint32_t w, uint32_t *acc) {
    acc[0] += byte_of<0>(v) * w;
    acc[1] += byte_of<1>(v) * w;
    acc[2] += byte_of<2>(v) * w;
    acc[3] += byte_of<3>(v) * w;
}

/* Copies the band: n_rows rows of `chunks` 16-byte chunks each. */
__device__ __forceinline__ void stage_band(const Args &a, uint8_t *stage, uintptr_t row0, int n_rows, int chunks) {
    const uintptr_t lo = (uintptr_t)a.src, hi = lo + a.src_bytes;
    const int n = n_rows * chunks;
    for (int i = threadIdx.x; i < n; i += kThreads) {
        const int r = i / chunks, j = i - r * chunks;
        const uintptr_t p = row0 + (uintptr_t)r * a.nb_row;
        const uintptr_t g = (p & ~(uintptr_t)15) + 16u * (unsigned)j;
        uint8_t *s = stage + r * a.row_bytes + 16 * j;
        if (g >= lo && g + 16 <= hi) {
            cp_async<16>(s, reinterpret_cast<const void *>(g));
        } else {  // the frame's first or last bytes: copy what exists, zero the rest
            uint32_t v[4] = {0, 0, 0, 0};
#pragma unroll
            for (int b = 0; b < 16; b++)
                if (g + b >= lo && g + b < hi)
                    v[b >> 2] |= (uint32_t)*reinterpret_cast<const uint8_t *>(g + b) << (8 * (b & 3));
            *reinterpret_cast<uint4 *>(s) = make_uint4(v[0], v[1], v[2], v[3]);
        }
    }
}

/* NV12: the band's pixels x_lo .. x_hi - 1 of rows y_lo .. y_lo + n_rows - 1 converted to RGB8
 * (nv12_rgb's samrt_yuv_pixel) into the staged rows at phase 0, four pixels (three words) per
 * item; the rest of each staged row is zero (the horizontal pass reads it with zero weights). */
__device__ __forceinline__ void stage_band_nv12(const Args &a, uint8_t *stage, int y_lo, int n_rows, int x_lo,
                                                int x_hi) {
    const int quads = a.row_bytes / 12, tail = a.row_bytes / 4 - 3 * quads;
    for (int i = threadIdx.x; i < n_rows * quads; i += kThreads) {
        const int r = i / quads, q = i - r * quads, y = y_lo + r;
        const uint8_t *yr = a.src + (size_t)y * a.nb_row, *cr = a.uv + (size_t)(y >> 1) * a.uv_pitch;
        uint8_t px[12];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int x = x_lo + 4 * q + j;
            if (x < x_hi) {
                samrt_yuv_pixel(&a.yuv, yr[x], cr[2 * (x >> 1)], cr[2 * (x >> 1) + 1], px + 3 * j);
            } else {
                px[3 * j] = px[3 * j + 1] = px[3 * j + 2] = 0;
            }
        }
        uint32_t *s = reinterpret_cast<uint32_t *>(stage + r * a.row_bytes + 12 * q);
#pragma unroll
        for (int wd = 0; wd < 3; wd++)
            s[wd] = px[4 * wd] | (uint32_t)px[4 * wd + 1] << 8 | (uint32_t)px[4 * wd + 2] << 16 |
                    (uint32_t)px[4 * wd + 3] << 24;
    }
    for (int i = threadIdx.x; i < n_rows * tail; i += kThreads) {
        const int r = i / tail, wd = 3 * quads + (i - r * tail);
        reinterpret_cast<uint32_t *>(stage + r * a.row_bytes)[wd] = 0;
    }
}

/* Queues copies of n 4-byte words; with vec16 (both pointers 16-byte aligned) all but the
 * last n % 4 go as 16-byte chunks. */
__device__ __forceinline__ void copy_words(int32_t *dst, const int32_t *src, int n, bool vec16) {
    if (vec16) {
        for (int i = threadIdx.x; i < n / 4; i += kThreads) cp_async<16>(dst + 4 * i, src + 4 * i);
        for (int i = (n & ~3) + threadIdx.x; i < n; i += kThreads) cp_async<4>(dst + i, src + i);
    } else {
        for (int i = threadIdx.x; i < n; i += kThreads) cp_async<4>(dst + i, src + i);
    }
}

/* The horizontal pass as byte dot products. A weight w (|w| < 2^23) is u0 + 2^8 u1 + 2^16 s2
 * with bytes u0, u1 in [0, 255] and s2 = w >> 16 in [-128, 127], so
 *   sum(x * w) = D0 + 2^8 D1 + 2^16 D2,   Dp = sum(x * byte p of w),
 * and each Dp over four taps is one dp4a once the four taps' bytes of one channel sit in one
 * word. The weight bytes are regrouped once per thread; the RGB bytes of four pixels (three
 * words) are split into three channel words with two PRMTs each. The int32 sum wraps exactly
 * as Pillow's (it fits int32). */
template <int K> struct XWeights {
    uint32_t p[3][K / 4];  // [byte plane][tap quad]: byte i = byte `plane` of tap 4 * quad + i
};

template <int K> __device__ __forceinline__ XWeights<K> load_x_weights(const int32_t *xw) {
    XWeights<K> w;
    const int4 *wp = reinterpret_cast<const int4 *>(xw);
#pragma unroll
    for (int q = 0; q < K / 4; q++) {
        const int4 t = wp[q];
#pragma unroll
        for (int b = 0; b < 3; b++) {
            const uint32_t lo = __byte_perm((uint32_t)t.x, (uint32_t)t.y, b | ((4 + b) << 4));
            const uint32_t hi = __byte_perm((uint32_t)t.z, (uint32_t)t.w, b | ((4 + b) << 4));
            w.p[b][q] = __byte_perm(lo, hi, 0x5410u);
        }
    }
    return w;
}

template <int K>
__device__ __forceinline__ void horizontal_row(const uint32_t *sp, unsigned sh, const XWeights<K> &w, int (&out)[3]) {
    constexpr int kWords = 3 * K / 4;  // the K RGB taps, realigned
    uint32_t al[kWords];
    uint32_t prev = sp[0];
#pragma unroll
    for (int i = 0; i < kWords; i++) {
        const uint32_t next = sp[i + 1];
        al[i] = __funnelshift_r(prev, next, sh);
        prev = next;
    }
    uint32_t d0[3] = {kHalf, kHalf, kHalf}, d1[3] = {0, 0, 0};
    int d2[3] = {0, 0, 0};
#pragma unroll
    for (int q = 0; q < K / 4; q++) {
        const uint32_t a0 = al[3 * q], a1 = al[3 * q + 1], a2 = al[3 * q + 2];
        uint32_t x[3];  // bytes of pixels 4q..4q+3: R at 0,3,6,9; G at 1,4,7,10; B at 2,5,8,11
        x[0] = __byte_perm(__byte_perm(a0, a1, 0x7630u), a2, 0x5210u);
        x[1] = __byte_perm(__byte_perm(a0, a1, 0x7741u), a2, 0x6210u);
        x[2] = __byte_perm(__byte_perm(a0, a1, 0x7752u), a2, 0x7410u);
#pragma unroll
        for (int ch = 0; ch < 3; ch++) {
            d0[ch] = __dp4a(x[ch], w.p[0][q], d0[ch]);
            d1[ch] = __dp4a(x[ch], w.p[1][q], d1[ch]);
            d2[ch] = dp4a_us(x[ch], w.p[2][q], d2[ch]);
        }
    }
#pragma unroll
    for (int ch = 0; ch < 3; ch++) out[ch] = (int)(d0[ch] + (d1[ch] << 8) + ((uint32_t)d2[ch] << 16));
}

__device__ __forceinline__ void store8(float *p, const float (&v)[kPx]) {
    reinterpret_cast<float4 *>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4 *>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
}
__device__ __forceinline__ unsigned bits16(__half h) { return __half_as_ushort(h); }
__device__ __forceinline__ unsigned bits16(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
template <typename T> __device__ __forceinline__ void store8(T *p, const T (&v)[kPx]) {
    uint4 u;
    u.x = bits16(v[0]) | (bits16(v[1]) << 16);
    u.y = bits16(v[2]) | (bits16(v[3]) << 16);
    u.z = bits16(v[4]) | (bits16(v[5]) << 16);
    u.w = bits16(v[6]) | (bits16(v[7]) << 16);
    *reinterpret_cast<uint4 *>(p) = u;
}

template <int K, typename T, bool kNv12>
__global__ void __launch_bounds__(kThreads) resize_normalize_kernel(const Args a, T *__restrict__ dst) {
    extern __shared__ __align__(16) unsigned char smem[];
    const int tw = 1 << a.tw_log2, th = 1 << a.th_log2;
    uint8_t *stage = smem;                                      // band_rows x row_bytes
    uint8_t *inter = smem + (size_t)a.band_rows * a.row_bytes;  // 3 planes x band_rows x tw
    T *tab = reinterpret_cast<T *>(inter + 3 * a.band_rows * tw);  // 3 x kNormN
    // the tile's slices of the plan tables, so no pass waits on global memory after the band
    int32_t *s_xw = reinterpret_cast<int32_t *>(smem + a.tabs_off);  // tw x K
    int32_t *s_xb = s_xw + tw * K;                                   // tw x 2
    int32_t *s_yw = s_xb + ((2 * tw + 3) & ~3);                      // th x ky
    int32_t *s_yb = s_yw + th * a.ky;                                // th x 2

    const int tid = threadIdx.x;
    const int c0 = blockIdx.x << a.tw_log2, y0 = blockIdx.y << a.th_log2;
    const int c_last = min(c0 + tw, a.out_w) - 1, y_last = min(y0 + th, a.out_h) - 1;
    const int x_lo = a.xb[2 * c0], x_hi = a.xb[2 * c_last] + a.xb[2 * c_last + 1];
    const int y_lo = a.yb[2 * y0], n_rows = a.yb[2 * y_last] + a.yb[2 * y_last + 1] - y_lo;

    // 1. stage the band (the chunk count covers any phase) and the table slices
    const uintptr_t row0 = kNv12 ? 0 : (uintptr_t)a.src + (size_t)y_lo * a.nb_row + 3 * (size_t)x_lo;
    if (kNv12)
        stage_band_nv12(a, stage, y_lo, n_rows, x_lo, x_hi);
    else
        stage_band(a, stage, row0, n_rows, (3 * (x_hi - x_lo) + 30) >> 4);
    copy_words(s_xw, a.xw + (size_t)c0 * K, (c_last - c0 + 1) * K, true);
    copy_words(s_xb, a.xb + 2 * c0, 2 * (c_last - c0 + 1), false);
    copy_words(s_yw, a.yw + (size_t)y0 * a.ky, (y_last - y0 + 1) * a.ky, true);
    copy_words(s_yb, a.yb + 2 * y0, 2 * (y_last - y0 + 1), false);
    cp_async_commit();

    // clip + normalise table (entry i: u8 value clamp(i + kNormLo, 0, 255)), while the band arrives
    for (int i = tid; i < 3 * kNormN; i += kThreads) {
        const int ch = i / kNormN, v = min(max(i - ch * kNormN + kNormLo, 0), 255);
        tab[i] = samrt::from_f32<T>(__ldg(a.norm + ch * 256 + v));
    }

    // 2. horizontal pass: column c0 + cc, band rows tid / tw, + kThreads / tw, ...
    cp_async_wait_all();
    __syncthreads();
    {
        const int cc = tid & (tw - 1), ci = min(cc, c_last - c0);  // past the edge: a duplicate, never stored
        const XWeights<K> w = load_x_weights<K>(s_xw + ci * K);
        const int ob = 3 * (s_xb[2 * ci] - x_lo);
        const uint32_t phase0 = (uint32_t)row0;  // only its low 4 bits matter
        for (int r = tid >> a.tw_log2; r < n_rows; r += kThreads >> a.tw_log2) {
            const int o = ob + (kNv12 ? 0 : (int)((phase0 + (uint32_t)r * (uint32_t)a.nb_row) & 15u));
            int acc[3];
            horizontal_row<K>(reinterpret_cast<const uint32_t *>(stage + r * a.row_bytes) + (o >> 2), 8u * (o & 3),
                              w, acc);
#pragma unroll
            for (int ch = 0; ch < 3; ch++) inter[(ch * a.band_rows + r) * tw + cc] = (uint8_t)clip8(acc[ch]);
        }
    }
    __syncthreads();

    // 3. vertical pass: pixels x..x+7 of row y, three channels
    const int opr_log2 = a.tw_log2 - 3;  // 8-pixel groups per tile row
    for (int i = tid; i < th << opr_log2; i += kThreads) {
        const int y = y0 + (i >> opr_log2), xo = kPx * (i & ((1 << opr_log2) - 1)), x = c0 + xo;
        if (y > y_last || x > c_last) continue;
        const int ys = s_yb[2 * (y - y0)] - y_lo, cnt = s_yb[2 * (y - y0) + 1];
        const int32_t *wy = s_yw + (y - y0) * a.ky;
        const uint8_t *col = inter + ys * tw + xo;
        constexpr uint32_t kBias = kHalf - (uint32_t)(kNormLo * (1 << kShift));
        uint32_t acc[3][kPx];
#pragma unroll
        for (int ch = 0; ch < 3; ch++)
#pragma unroll
            for (int j = 0; j < kPx; j++) acc[ch][j] = kBias;
        for (int k = 0; k < cnt; k++) {
            const uint32_t wk = (uint32_t)wy[k];
#pragma unroll
            for (int ch = 0; ch < 3; ch++) {
                const uint2 v = *reinterpret_cast<const uint2 *>(col + (ch * a.band_rows + k) * tw);
                mac4(v.x, wk, acc[ch]);
                mac4(v.y, wk, acc[ch] + 4);
            }
        }
#pragma unroll
        for (int ch = 0; ch < 3; ch++) {
            T vals[kPx];
#pragma unroll
            for (int j = 0; j < kPx; j++) vals[j] = tab[ch * kNormN + (acc[ch][j] >> kShift)];
            T *o = dst + ((size_t)ch * a.out_h + y) * a.out_w + x;
            if (a.vec && x + kPx - 1 <= c_last) {
                store8(o, vals);
            } else {
                for (int j = 0; j < kPx && x + j <= c_last; j++) o[j] = vals[j];
            }
        }
    }
}

int log2i(int v) {
    int l = 0;
    while ((1 << l) < v) l++;
    return l;
}

template <typename T, bool kNv12>
enum samrt_status launch(const struct samrt_resize_plan *p, const Args &a, void *dst, cudaStream_t stream) {
    const dim3 grid(samrt::ceil_div(p->out_w, p->tile_w), samrt::ceil_div(p->out_h, p->tile_h));
    T *out = (T *)dst;
    switch (p->kx) {
#define SAMRT_RESIZE_CASE(K)                                                                      \
    case K: resize_normalize_kernel<K, T, kNv12><<<grid, kThreads, p->smem_bytes, stream>>>(a, out); break;
        SAMRT_RESIZE_CASE(4) SAMRT_RESIZE_CASE(8) SAMRT_RESIZE_CASE(12) SAMRT_RESIZE_CASE(16)
        SAMRT_RESIZE_CASE(20) SAMRT_RESIZE_CASE(24) SAMRT_RESIZE_CASE(28) SAMRT_RESIZE_CASE(32)
#undef SAMRT_RESIZE_CASE
    default: return SAMRT_E_UNSUPPORTED;
    }
    return SAMRT_OK;
}

/* The plan's part of the arguments (tables, sizes, tiling); the caller sets the frame. */
Args plan_args(const struct samrt_resize_plan *plan, const void *tables, const void *dst) {
    const char *t = (const char *)tables;
    Args a = {};
    a.xb = (const int32_t *)(t + plan->off_xb);
    a.xw = (const int32_t *)(t + plan->off_xw);
    a.yb = (const int32_t *)(t + plan->off_yb);
    a.yw = (const int32_t *)(t + plan->off_yw);
    a.norm = (const float *)(t + plan->off_norm);
    a.out_w = plan->out_w;
    a.out_h = plan->out_h;
    a.ky = plan->ky;
    a.tw_log2 = log2i(plan->tile_w);
    a.th_log2 = log2i(plan->tile_h);
    a.band_rows = plan->band_rows;
    a.row_bytes = plan->stage_row_bytes;
    a.tabs_off = SAMRT_RESIZE_TABS_OFF(plan->band_rows, plan->stage_row_bytes, plan->tile_w);
    /* 8 values = 16 bytes (16-bit types) or two 16-byte halves (f32): 16-byte alignment */
    a.vec = plan->out_w % kPx == 0 && ((uintptr_t)dst & 15u) == 0;
    return a;
}

template <bool kNv12>
enum samrt_status dispatch(const struct samrt_resize_plan *plan, const Args &a, void *dst, enum samrt_dtype dtype,
                           cudaStream_t stream) {
    enum samrt_status st;
    switch (dtype) {
    case SAMRT_DTYPE_F32: st = launch<float, kNv12>(plan, a, dst, stream); break;
    case SAMRT_DTYPE_F16: st = launch<__half, kNv12>(plan, a, dst, stream); break;
    case SAMRT_DTYPE_BF16: st = launch<__nv_bfloat16, kNv12>(plan, a, dst, stream); break;
    default: return SAMRT_E_UNSUPPORTED;
    }
    if (st != SAMRT_OK) return st;
    SAMRT_LAUNCH_CHECK();
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
    Args a = plan_args(plan, tables, dst);
    a.src = src;
    a.nb_row = nb_row;
    a.src_bytes = (size_t)(plan->in_h - 1) * nb_row + 3 * (size_t)plan->in_w;
    return dispatch<false>(plan, a, dst, dtype, stream);
}

extern "C" enum samrt_status samrt_resize_normalize_nv12_cuda(const struct samrt_resize_plan *plan,
                                                              const void *tables, const struct samrt_yuv_coefs *k,
                                                              const uint8_t *y, size_t y_pitch, const uint8_t *uv,
                                                              size_t uv_pitch, void *dst, enum samrt_dtype dtype,
                                                              cudaStream_t stream) {
    SAMRT_TRY(samrt_resize_normalize_nv12_check(plan, tables, k, y, y_pitch, uv, uv_pitch, dst));
    if (plan->tile_w == 0) return SAMRT_E_UNSUPPORTED;
    if (((uintptr_t)tables & 15u) != 0) return SAMRT_E_INVALID_ARG;
    Args a = plan_args(plan, tables, dst);
    a.src = y;
    a.nb_row = y_pitch;
    a.uv = uv;
    a.uv_pitch = uv_pitch;
    a.yuv = *k;
    return dispatch<true>(plan, a, dst, dtype, stream);
}
