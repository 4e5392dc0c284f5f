/* layernorm.cu - CUDA launchers for layernorm.h.
 *
 * layernorm_kernel: one warp per row, 8 rows per block. Lanes stride over the row in packs
 * of V elements (16 bytes when every pointer and C allow it), and the row is read three
 * times: sum, squared deviations, normalise. Re-reading instead of caching the row in
 * registers keeps one kernel for every C (96 ... 1152 and beyond) and costs no DRAM
 * traffic: a row is at most a few KiB and is still in L1 when it is read again.
 *
 * layernorm2d_kernel: NCHW has channels at stride H*W, so a block takes a tile of 32*V
 * consecutive pixels (warp-coalesced along W) and up to 16 channel phases; each thread
 * sums its channels for V pixels and the phases are combined through shared memory. The
 * tile (32*V*C elements, 64 KiB for C = 256 bf16 at V = 4; maps of these models are
 * 1-4 MiB in all) is re-read for the same three passes from L1/L2.
 *
 * Tests: the op table (tests/ops_table_*.c, test_ops_table_cuda) (add --bench for timings). */
#include "elementwise.cuh"
#include "layernorm.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int LN_WARPS = 8;    /* rows per block */
constexpr int LN2D_PX = 32;    /* pixel lanes per block (times V pixels each) */
constexpr int LN2D_PHASES = 16; /* channel phases per block, at most */
constexpr int LN2D_MIN_BLOCKS = 128; /* narrower packs until the grid has this many blocks */

/* V elements of the normalised input at i: round_T(x + r), or x when r is NULL. */
template <int V, typename T> __device__ __forceinline__ pack<T, V> load_input(const T *x, const T *r, int64_t i) {
    pack<T, V> v = load_pack<V>(x + i);
    if (r) {
        const pack<T, V> pr = load_pack<V>(r + i);
#pragma unroll
        for (int k = 0; k < V; k++) v.v[k] = from_f32<T>(to_f32(v.v[k]) + to_f32(pr.v[k]));
    }
    return v;
}

template <typename T, int V>
__global__ void layernorm_kernel(const T *x, const T *r, const T *w, const T *b, T *out, T *sum_out,
                                 int64_t n_rows, int n_cols, float eps) {
    const int lane = threadIdx.x & 31;
    const int64_t row = (int64_t)blockIdx.x * LN_WARPS + (threadIdx.x >> 5);
    if (row >= n_rows) return;  /* whole warps leave together, so warp_sum stays full */
    const int64_t base = row * n_cols;
    const int n_packs = n_cols / V;

    float s = 0.0f;
    for (int p = lane; p < n_packs; p += 32) {
        const pack<T, V> v = load_input<V>(x, r, base + (int64_t)p * V);
        if (sum_out) store_pack<V>(sum_out + base + (int64_t)p * V, v);
#pragma unroll
        for (int k = 0; k < V; k++) s += to_f32(v.v[k]);
    }
    const float mean = warp_sum(s) / (float)n_cols;

    /* After pass 1 the sum lives in sum_out (which may be x itself): read it from there. */
    const T *src = sum_out ? sum_out : x;
    const T *res = sum_out ? nullptr : r;
    float q = 0.0f;
    for (int p = lane; p < n_packs; p += 32) {
        const pack<T, V> v = load_input<V>(src, res, base + (int64_t)p * V);
#pragma unroll
        for (int k = 0; k < V; k++) {
            const float d = to_f32(v.v[k]) - mean;
            q += d * d;
        }
    }
    const float rstd = rsqrtf(warp_sum(q) / (float)n_cols + eps);

    for (int p = lane; p < n_packs; p += 32) {
        const pack<T, V> v = load_input<V>(src, res, base + (int64_t)p * V);
        pack<T, V> pw{}, pb{}, o;
        if (w) pw = load_pack<V>(w + p * V);
        if (b) pb = load_pack<V>(b + p * V);
#pragma unroll
        for (int k = 0; k < V; k++) {
            float y = (to_f32(v.v[k]) - mean) * rstd;
            if (w) y *= to_f32(pw.v[k]);
            if (b) y += to_f32(pb.v[k]);
            o.v[k] = from_f32<T>(y);
        }
        store_pack<V>(out + base + (int64_t)p * V, o);
    }
}

/* Sums each thread's V partials over the channel phases (threadIdx.y); every thread gets
 * the totals for its pixels. part: [LN2D_PHASES][LN2D_PX * V], tot: [LN2D_PX * V]. */
template <int V>
__device__ __forceinline__ void phase_sum(float (&acc)[V], float *part, float *tot) {
    const int col = threadIdx.x * V;
#pragma unroll
    for (int k = 0; k < V; k++) part[threadIdx.y * LN2D_PX * V + col + k] = acc[k];
    __syncthreads();
    if (threadIdx.y == 0) {
#pragma unroll
        for (int k = 0; k < V; k++) {
            float t = 0.0f;
            for (int ph = 0; ph < (int)blockDim.y; ph++) t += part[ph * LN2D_PX * V + col + k];
            tot[col + k] = t;
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < V; k++) acc[k] = tot[col + k];
    __syncthreads();  /* part/tot are reused by the next call */
}

template <typename T, int V>
__global__ void layernorm2d_kernel(const T *x, const T *r, const T *w, const T *b, T *out,
                                   int n_channels, int64_t n_pixels, float eps, enum samrt_act act) {
    __shared__ float part[LN2D_PHASES * LN2D_PX * V];
    __shared__ float tot[LN2D_PX * V];
    const int64_t p0 = ((int64_t)blockIdx.x * LN2D_PX + threadIdx.x) * V;
    const bool valid = p0 < n_pixels;  /* n_pixels % V == 0: a pack is all in or all out */
    const int64_t base = (int64_t)blockIdx.y * n_channels * n_pixels + p0;
    const float inv_c = 1.0f / (float)n_channels;

    float acc[V];
#pragma unroll
    for (int k = 0; k < V; k++) acc[k] = 0.0f;
    if (valid)
        for (int c = threadIdx.y; c < n_channels; c += blockDim.y) {
            const pack<T, V> v = load_input<V>(x, r, base + c * n_pixels);
#pragma unroll
            for (int k = 0; k < V; k++) acc[k] += to_f32(v.v[k]);
        }
    phase_sum<V>(acc, part, tot);
    float mean[V];
#pragma unroll
    for (int k = 0; k < V; k++) {
        mean[k] = acc[k] * inv_c;
        acc[k] = 0.0f;
    }
    if (valid)
        for (int c = threadIdx.y; c < n_channels; c += blockDim.y) {
            const pack<T, V> v = load_input<V>(x, r, base + c * n_pixels);
#pragma unroll
            for (int k = 0; k < V; k++) {
                const float d = to_f32(v.v[k]) - mean[k];
                acc[k] += d * d;
            }
        }
    phase_sum<V>(acc, part, tot);
    if (!valid) return;
    float rstd[V];
#pragma unroll
    for (int k = 0; k < V; k++) rstd[k] = rsqrtf(acc[k] * inv_c + eps);
    for (int c = threadIdx.y; c < n_channels; c += blockDim.y) {
        const int64_t i = base + c * n_pixels;
        const pack<T, V> v = load_input<V>(x, r, i);
        const float wc = w ? to_f32(w[c]) : 1.0f, bc = b ? to_f32(b[c]) : 0.0f;
        pack<T, V> o;
#pragma unroll
        for (int k = 0; k < V; k++) {
            float y = (to_f32(v.v[k]) - mean[k]) * rstd[k];
            if (w) y *= wc;
            if (b) y += bc;
            o.v[k] = from_f32<T>(act_apply(act, y));
        }
        store_pack<V>(out + i, o);
    }
}

template <typename T, int V>
void layernorm_launch(const struct samrt_layernorm_args *a, cudaStream_t stream) {
    const unsigned blocks = ceil_div(a->n_rows, LN_WARPS);
    layernorm_kernel<T, V><<<blocks, LN_WARPS * 32, 0, stream>>>(
        (const T *)a->x, (const T *)a->residual, (const T *)a->weight, (const T *)a->bias, (T *)a->out,
        (T *)a->sum_out, a->n_rows, a->n_cols, a->eps);
}

template <typename T> void layernorm_run(const struct samrt_layernorm_args *a, cudaStream_t stream) {
    const void *ptrs[] = {a->x, a->residual, a->weight, a->bias, a->out, a->sum_out};
    const int v = pack_width(sizeof(T), a->n_cols, ptrs, 6);
    SAMRT_DISPATCH_PACK(T, v, layernorm_launch, a, stream);
}

template <typename T, int V>
void layernorm2d_launch(const struct samrt_layernorm2d_args *a, cudaStream_t stream) {
    const dim3 grid(ceil_div(a->n_pixels, (int64_t)LN2D_PX * V), (unsigned)a->n_batch);
    const dim3 block(LN2D_PX, a->n_channels < LN2D_PHASES ? a->n_channels : LN2D_PHASES);
    layernorm2d_kernel<T, V><<<grid, block, 0, stream>>>(
        (const T *)a->x, (const T *)a->residual, (const T *)a->weight, (const T *)a->bias, (T *)a->out,
        a->n_channels, a->n_pixels, a->eps, a->act);
}

template <typename T> void layernorm2d_run(const struct samrt_layernorm2d_args *a, cudaStream_t stream) {
    const void *ptrs[] = {a->x, a->residual, a->out};
    int v = pack_width(sizeof(T), a->n_pixels, ptrs, 3);
    if (v > 4) v = 4;
    /* a 64x64 map is only 4096 pixels: keep at least ~one block per SM of a large GPU */
    while (v > 1 && ceil_div(a->n_pixels, (int64_t)LN2D_PX * v) * a->n_batch < LN2D_MIN_BLOCKS) v >>= 1;
    SAMRT_DISPATCH_PACK(T, v, layernorm2d_launch, a, stream);
}

}  // namespace

extern "C" enum samrt_status samrt_layernorm_cuda(const struct samrt_layernorm_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_layernorm_check(a));
    if (a->n_rows > 0x7fffffffll * LN_WARPS) return SAMRT_E_UNSUPPORTED;  /* grid.x limit */
    SAMRT_DISPATCH_FLOAT(a->dtype, layernorm_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_layernorm2d_cuda(const struct samrt_layernorm2d_args *a,
                                                    cudaStream_t stream) {
    SAMRT_TRY(samrt_layernorm2d_check(a));
    if (a->n_batch > 65535 || a->n_pixels > 0x7fffffffll * LN2D_PX) return SAMRT_E_UNSUPPORTED;
    SAMRT_DISPATCH_FLOAT(a->dtype, layernorm2d_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
