/* mask_decode.cu - CUDA launchers for kernels/sam2/mask_decode.h.
 *
 * Both kernels tile the output as 128 x 32 pixels per 256-thread block: a lane owns four
 * adjacent pixels of a row (one 4-byte mask store, one float4 / 8-byte value store), a warp a
 * row, and each warp walks four rows. The 256x256 source plane (256 KB in f32) is read through
 * L1/L2, so the kernels are bound by their output writes. The mask kernel also reduces area
 * and box per block (warp reductions, then shared memory) and merges them with five atomics
 * per block, skipped when the block saw no foreground. A tiny first launch resets the stats,
 * which keeps both launches capturable in a CUDA graph. The non-overlap variant keeps the tile
 * but covers all objects per thread (it needs every object's logit of a pixel): the source
 * reads grow with n_obj, the output writes stay those of the plain kernel.
 * Tested by tests/test_mask_decode_cuda.c (--bench times it). */
#include <climits>

#include "common.cuh"
#include "interp.h"
#include "mask_decode.h"
#include "vec4.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kTileW = 128;  // 32 lanes x 4 pixels
constexpr int kPasses = 4;   // rows per warp
constexpr int kTileH = (kThreads / 32) * kPasses;

/* Column taps of a lane's four pixels (clamped to the last column past the edge). */
struct Cols {
    int x0[4], x1[4];
    float w0[4], w1[4];
};

__device__ __forceinline__ Cols col_taps(float sw, int wi, int wo, int xb) {
    Cols c;
#pragma unroll
    for (int j = 0; j < 4; j++)
        samrt_linear_coef(sw, min(xb + j, wo - 1), wi, &c.x0[j], &c.x1[j], &c.w0[j], &c.w1[j]);
    return c;
}

/* The lane's four bilinear values on output row y. */
template <typename T>
__device__ __forceinline__ void row4(const T *__restrict__ plane, int hi, int wi, float sh, int y,
                                     const Cols &c, float v[4]) {
    int y0, y1;
    float h0, h1;
    samrt_linear_coef(sh, y, hi, &y0, &y1, &h0, &h1);
    const T *r0 = plane + (long)y0 * wi, *r1 = plane + (long)y1 * wi;
#pragma unroll
    for (int j = 0; j < 4; j++)
        v[j] = samrt_bilerp(h0, h1, c.w0[j], c.w1[j], samrt::to_f32(r0[c.x0[j]]),
                            samrt::to_f32(r0[c.x1[j]]), samrt::to_f32(r1[c.x0[j]]),
                            samrt::to_f32(r1[c.x1[j]]));
}

/* A row's four mask bytes (byte j = pixel xb + j): one 4-byte store, or n_valid bytes. */
__device__ __forceinline__ void store_bits(uint8_t *m, unsigned bits, bool vec, int n_valid) {
    if (vec) {
        *reinterpret_cast<unsigned *>(m) = bits;
    } else {
        for (int j = 0; j < 4 && j < n_valid; j++) m[j] = (uint8_t)((bits >> (8 * j)) & 1u);
    }
}

/* A thread's area and box so far. */
struct Acc {
    int area = 0, x0 = INT_MAX, y0 = INT_MAX, x1 = -1, y1 = -1;
    /* Adds the pixels on[j] (xb + j, y) and returns their mask bits, byte j = pixel xb + j. */
    __device__ __forceinline__ unsigned add(const bool on[4], int xb, int y) {
        unsigned bits = 0;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            bits |= (unsigned)on[j] << (8 * j);
            if (on[j]) {
                area++;
                x0 = min(x0, xb + j);
                x1 = max(x1, xb + j);
                y0 = min(y0, y);
                y1 = max(y1, y);
            }
        }
        return bits;
    }
};

/* Merges every thread's area and box into *s: warp reductions, shared memory, then five
 * atomics from thread 0, skipped when the block saw no foreground. All threads call it. */
__device__ __forceinline__ void block_stats(const Acc &a, int (*red)[kThreads / 32], struct samrt_mask_stats *s) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int area = a.area, x0 = a.x0, y0 = a.y0, x1 = a.x1, y1 = a.y1;
    area = __reduce_add_sync(0xffffffffu, area);
    x0 = __reduce_min_sync(0xffffffffu, x0);
    y0 = __reduce_min_sync(0xffffffffu, y0);
    x1 = __reduce_max_sync(0xffffffffu, x1);
    y1 = __reduce_max_sync(0xffffffffu, y1);
    if (lane == 0) {
        red[0][warp] = area; red[1][warp] = x0; red[2][warp] = y0; red[3][warp] = x1; red[4][warp] = y1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kThreads / 32; w++) {
            area += red[0][w];
            x0 = min(x0, red[1][w]); y0 = min(y0, red[2][w]);
            x1 = max(x1, red[3][w]); y1 = max(y1, red[4][w]);
        }
        if (area > 0) {
            atomicAdd(&s->area, area);
            atomicMin(&s->x0, x0); atomicMin(&s->y0, y0);
            atomicMax(&s->x1, x1); atomicMax(&s->y1, y1);
        }
    }
}

__global__ void stats_init_kernel(int n_obj, int ho, int wo, struct samrt_mask_stats *stats) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_obj) stats[i] = samrt_mask_stats{0, wo, ho, -1, -1};
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    mask_decode_kernel(int hi, int wi, int ho, int wo, float sh, float sw, const T *__restrict__ logits,
                       uint8_t *__restrict__ mask, struct samrt_mask_stats *stats,
                       float *__restrict__ logits_out, bool vec) {
    __shared__ int red[5][kThreads / 32];
    const int n = blockIdx.z, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int xb = blockIdx.x * kTileW + lane * 4;
    const T *plane = logits + (long)n * hi * wi;
    const Cols c = col_taps(sw, wi, wo, xb);
    Acc acc;
#pragma unroll
    for (int p = 0; p < kPasses; p++) {
        const int y = blockIdx.y * kTileH + p * (kThreads / 32) + warp;
        if (y >= ho || xb >= wo) break;
        float v[4];
        row4(plane, hi, wi, sh, y, c, v);
        bool on[4];
#pragma unroll
        for (int j = 0; j < 4; j++) on[j] = v[j] > 0.0f && xb + j < wo;
        const unsigned bits = acc.add(on, xb, y);
        const long o = ((long)n * ho + y) * wo + xb;
        const bool v4 = vec && xb + 3 < wo;
        store_bits(mask + o, bits, v4, wo - xb);
        if (logits_out == nullptr) continue;
        if (v4) {
            samrt::store4(logits_out + o, v);
        } else {
            for (int j = 0; j < 4 && xb + j < wo; j++) logits_out[o + j] = v[j];
        }
    }
    if (stats != nullptr) block_stats(acc, red, stats + n);  // uniform across the block
}

/* Non-overlap mode (grid.z 1): a lane's four pixels of kPasses rows, for every object. The
 * first loop samples all objects and keeps, per pixel, the winner if its logit is > 0
 * (sel = object index, -1 = background for all); the second writes each object's mask rows
 * from sel and reduces that object's statistics. */
template <typename T>
__global__ void __launch_bounds__(kThreads)
    mask_decode_non_overlap_kernel(int n_obj, int hi, int wi, int ho, int wo, float sh, float sw,
                                   const T *__restrict__ logits, uint8_t *__restrict__ mask,
                                   struct samrt_mask_stats *stats, bool vec) {
    __shared__ int red[5][kThreads / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int xb = blockIdx.x * kTileW + lane * 4;
    const long plane = (long)hi * wi;
    const Cols c = col_taps(sw, wi, wo, xb);
    int sel[kPasses][4];
#pragma unroll
    for (int p = 0; p < kPasses; p++) {
        const int y = blockIdx.y * kTileH + p * (kThreads / 32) + warp;
#pragma unroll
        for (int j = 0; j < 4; j++) sel[p][j] = -1;
        if (y >= ho || xb >= wo) continue;
        float best[4], v[4];
        int arg[4] = {0, 0, 0, 0};
        row4(logits, hi, wi, sh, y, c, best);
        for (int k = 1; k < n_obj; k++) {
            row4(logits + k * plane, hi, wi, sh, y, c, v);
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (v[j] > best[j]) {  // strict: the first object keeps ties, NaN never wins
                    best[j] = v[j];
                    arg[j] = k;
                }
        }
#pragma unroll
        for (int j = 0; j < 4; j++) sel[p][j] = best[j] > 0.0f && xb + j < wo ? arg[j] : -1;
    }
    for (int k = 0; k < n_obj; k++) {
        Acc acc;
#pragma unroll
        for (int p = 0; p < kPasses; p++) {
            const int y = blockIdx.y * kTileH + p * (kThreads / 32) + warp;
            if (y >= ho || xb >= wo) break;
            bool on[4];
#pragma unroll
            for (int j = 0; j < 4; j++) on[j] = sel[p][j] == k;
            const unsigned bits = acc.add(on, xb, y);
            store_bits(mask + ((long)k * ho + y) * wo + xb, bits, vec && xb + 3 < wo, wo - xb);
        }
        if (stats == nullptr) continue;  // uniform across the block
        block_stats(acc, red, stats + k);
        __syncthreads();  // red is reused by the next object
    }
}

template <typename Tin, typename Tout>
__global__ void __launch_bounds__(kThreads)
    mem_input_kernel(int hi, int wi, int ho, int wo, float sh, float sw, int binarize, float scale,
                     float bias, const Tin *__restrict__ logits, Tout *__restrict__ out, bool vec) {
    const int n = blockIdx.z, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int xb = blockIdx.x * kTileW + lane * 4;
    if (xb >= wo) return;
    const Tin *plane = logits + (long)n * hi * wi;
    const Cols c = col_taps(sw, wi, wo, xb);
#pragma unroll
    for (int p = 0; p < kPasses; p++) {
        const int y = blockIdx.y * kTileH + p * (kThreads / 32) + warp;
        if (y >= ho) return;
        float v[4];
        row4(plane, hi, wi, sh, y, c, v);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            // official order: binarize or sigmoid, then * scale, then + bias, each rounded
            const float m = binarize ? (v[j] > 0.0f ? 1.0f : 0.0f) : 1.0f / (1.0f + expf(-v[j]));
            v[j] = __fadd_rn(__fmul_rn(m, scale), bias);
        }
        Tout *o = out + ((long)n * ho + y) * wo + xb;
        if (vec && xb + 3 < wo) {
            samrt::store4(o, v);
        } else {
            for (int j = 0; j < 4 && xb + j < wo; j++) o[j] = samrt::from_f32<Tout>(v[j]);
        }
    }
}

dim3 grid_for(int ho, int wo, int n) {
    return dim3(samrt::ceil_div(wo, kTileW), samrt::ceil_div(ho, kTileH), (unsigned)n);
}

template <typename T>
void launch_decode(const struct samrt_mask_decode_desc *d, const void *logits, uint8_t *mask,
                   struct samrt_mask_stats *stats, float *logits_out, cudaStream_t stream) {
    const bool vec = d->w_out % 4 == 0 && ((unsigned long long)mask % 4) == 0 &&
                     (logits_out == nullptr || samrt::vec4_aligned<float>(logits_out));
    mask_decode_kernel<T><<<grid_for(d->h_out, d->w_out, d->n_obj), kThreads, 0, stream>>>(
        d->h_in, d->w_in, d->h_out, d->w_out, samrt_interp_scale(d->h_in, d->h_out),
        samrt_interp_scale(d->w_in, d->w_out), (const T *)logits, mask, stats, logits_out, vec);
}

template <typename T>
void launch_non_overlap(const struct samrt_mask_decode_desc *d, const void *logits, uint8_t *mask,
                        struct samrt_mask_stats *stats, cudaStream_t stream) {
    const bool vec = d->w_out % 4 == 0 && ((unsigned long long)mask % 4) == 0;
    mask_decode_non_overlap_kernel<T><<<grid_for(d->h_out, d->w_out, 1), kThreads, 0, stream>>>(
        d->n_obj, d->h_in, d->w_in, d->h_out, d->w_out, samrt_interp_scale(d->h_in, d->h_out),
        samrt_interp_scale(d->w_in, d->w_out), (const T *)logits, mask, stats, vec);
}

enum samrt_status reset_stats(const struct samrt_mask_decode_desc *d, struct samrt_mask_stats *stats,
                              cudaStream_t stream) {
    if (stats == nullptr) return SAMRT_OK;
    stats_init_kernel<<<samrt::ceil_div(d->n_obj, 128), 128, 0, stream>>>(d->n_obj, d->h_out, d->w_out, stats);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

template <typename Tin, typename Tout>
void launch_mem(const struct samrt_mask_mem_desc *d, const void *logits, void *out, cudaStream_t stream) {
    const bool vec = d->w_out % 4 == 0 && samrt::vec4_aligned<Tout>(out);
    mem_input_kernel<Tin, Tout><<<grid_for(d->h_out, d->w_out, d->n_obj), kThreads, 0, stream>>>(
        d->h_in, d->w_in, d->h_out, d->w_out, samrt_interp_scale(d->h_in, d->h_out),
        samrt_interp_scale(d->w_in, d->w_out), d->binarize, d->scale, d->bias,
        (const Tin *)logits, (Tout *)out, vec);
}

template <typename Tin>
enum samrt_status launch_mem_out(const struct samrt_mask_mem_desc *d, const void *logits, void *out,
                                 cudaStream_t stream) {
    switch (d->dst_dtype) {
    case SAMRT_DTYPE_F32: launch_mem<Tin, float>(d, logits, out, stream); return SAMRT_OK;
    case SAMRT_DTYPE_F16: launch_mem<Tin, __half>(d, logits, out, stream); return SAMRT_OK;
    case SAMRT_DTYPE_BF16: launch_mem<Tin, __nv_bfloat16>(d, logits, out, stream); return SAMRT_OK;
    default: return SAMRT_E_UNSUPPORTED;
    }
}

}  // namespace

extern "C" enum samrt_status samrt_mask_decode_cuda(const struct samrt_mask_decode_desc *d,
                                                    const void *logits, uint8_t *mask,
                                                    struct samrt_mask_stats *stats,
                                                    float *logits_out, cudaStream_t stream) {
    enum samrt_status st = samrt_mask_decode_check(d);
    if (st != SAMRT_OK) return st;
    if (logits == NULL || mask == NULL) return SAMRT_E_INVALID_ARG;
    st = reset_stats(d, stats, stream);
    if (st != SAMRT_OK) return st;
    SAMRT_DISPATCH_FLOAT(d->src_dtype, launch_decode, d, logits, mask, stats, logits_out, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_mask_decode_non_overlap_cuda(const struct samrt_mask_decode_desc *d,
                                                                const void *logits, uint8_t *mask,
                                                                struct samrt_mask_stats *stats,
                                                                cudaStream_t stream) {
    enum samrt_status st = samrt_mask_decode_check(d);
    if (st != SAMRT_OK) return st;
    if (logits == NULL || mask == NULL) return SAMRT_E_INVALID_ARG;
    st = reset_stats(d, stats, stream);
    if (st != SAMRT_OK) return st;
    SAMRT_DISPATCH_FLOAT(d->src_dtype, launch_non_overlap, d, logits, mask, stats, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_mask_decode_mem_input_cuda(const struct samrt_mask_mem_desc *d,
                                                              const void *logits, void *out,
                                                              cudaStream_t stream) {
    enum samrt_status st = samrt_mask_decode_mem_check(d);
    if (st != SAMRT_OK) return st;
    if (logits == NULL || out == NULL) return SAMRT_E_INVALID_ARG;
    switch (d->src_dtype) {
    case SAMRT_DTYPE_F32: st = launch_mem_out<float>(d, logits, out, stream); break;
    case SAMRT_DTYPE_F16: st = launch_mem_out<__half>(d, logits, out, stream); break;
    case SAMRT_DTYPE_BF16: st = launch_mem_out<__nv_bfloat16>(d, logits, out, stream); break;
    default: return SAMRT_E_UNSUPPORTED;
    }
    if (st != SAMRT_OK) return st;
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
