/* pool.cu - CUDA launchers for pool.h.
 * Max pool: one thread per output token and pack of V channels (16 bytes when C, both token
 * strides and the pointers allow it); the four input tokens are read as packs, so a warp
 * reads whole 32*V-channel runs of each token. Pure data movement: the max is taken in fp32,
 * which is exact for f16/bf16 values.
 * Mean: a block of 32 x MEAN_ROWS threads per (32-channel group, batch); lane x reads channel
 * x of every MEAN_ROWS-th token (a warp reads 32 consecutive channels), keeps an fp32 sum,
 * and the rows are summed in shared memory in a fixed order, so results are deterministic.
 * Tests: the op table (tests/ops_table_*.c, test_ops_table_cuda) (add --bench for timings). */
#include "elementwise.cuh"
#include "pool.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int POOL_THREADS = 256;
constexpr unsigned POOL_MAX_BLOCKS = 65535;

template <typename T, int V>
__global__ void pool_max2x2_kernel(const T *x, T *out, int64_t n_out_tok, int h, int w, int n_packs,
                                   int64_t s_in, int64_t s_out) {
    const int ho = h / 2, wo = w / 2;
    const int64_t total = n_out_tok * n_packs;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int c = (int)(t % n_packs) * V;
        const int64_t tok = t / n_packs;  /* output token (b, y, x) */
        const int xo = (int)(tok % wo), yo = (int)((tok / wo) % ho);
        const int64_t b = tok / ((int64_t)wo * ho);
        const int64_t in0 = ((b * h + 2 * yo) * w + 2 * xo) * s_in + c;
        float m[V];
#pragma unroll
        for (int k = 0; k < V; k++) m[k] = -INFINITY;
#pragma unroll
        for (int d = 0; d < 4; d++) {
            const pack<T, V> v = load_pack<V>(x + in0 + ((d >> 1) * (int64_t)w + (d & 1)) * s_in);
#pragma unroll
            for (int k = 0; k < V; k++) {
                const float f = to_f32(v.v[k]);
                if (f > m[k] || f != f) m[k] = f;
            }
        }
        pack<T, V> o;
#pragma unroll
        for (int k = 0; k < V; k++) o.v[k] = from_f32<T>(m[k]);
        store_pack<V>(out + tok * s_out + c, o);
    }
}

template <typename T, int V>
void pool_launch(const struct samrt_pool_args *a, int64_t s_in, int64_t s_out, cudaStream_t stream) {
    const int64_t n_out_tok = a->n_batch * (a->h / 2) * (a->w / 2);
    const int n_packs = a->n_channels / V;
    unsigned blocks = ceil_div(SAMRT_MIN(n_out_tok * n_packs, (int64_t)POOL_MAX_BLOCKS * POOL_THREADS),
                               POOL_THREADS);
    pool_max2x2_kernel<T, V><<<blocks, POOL_THREADS, 0, stream>>>((const T *)a->x, (T *)a->out, n_out_tok,
                                                                  a->h, a->w, n_packs, s_in, s_out);
}

int64_t gcd(int64_t a, int64_t b) { return b == 0 ? a : gcd(b, a % b); }

template <typename T> void pool_run(const struct samrt_pool_args *a, cudaStream_t stream) {
    const int64_t s_in = a->s_in_tok ? a->s_in_tok : a->n_channels;
    const int64_t s_out = a->s_out_tok ? a->s_out_tok : a->n_channels;
    /* A pack must tile C and keep its alignment from token to token. */
    const int64_t g = gcd(gcd(a->n_channels, s_in), s_out);
    const void *ptrs[] = {a->x, a->out};
    const int v = pack_width(sizeof(T), g, ptrs, 2);
    SAMRT_DISPATCH_PACK(T, v, pool_launch, a, s_in, s_out, stream);
}

constexpr int MEAN_ROWS = 16;

/* Sums tokens [t0, t1) of split blockIdx.y for 32 channels; writes the mean (no split) or the
 * f32 partial sum of the range. */
template <typename T>
__global__ void pool_mean_kernel(const T *x, T *out, float *partial, int64_t n_tokens, int n_channels, int n_split,
                                 float inv_n) {
    __shared__ float part[MEAN_ROWS][33];
    const int c = blockIdx.x * 32 + threadIdx.x;
    const int64_t b = blockIdx.z;
    const int64_t per = (n_tokens + n_split - 1) / n_split;
    const int64_t t0 = blockIdx.y * per, t1 = t0 + per < n_tokens ? t0 + per : n_tokens;
    float s = 0.0f;
    if (c < n_channels) {
        const T *p = x + b * n_tokens * n_channels + c;
        for (int64_t t = t0 + threadIdx.y; t < t1; t += MEAN_ROWS) s += to_f32(p[t * n_channels]);
    }
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    for (int half = MEAN_ROWS / 2; half > 0; half /= 2) {
        if (threadIdx.y < half) part[threadIdx.y][threadIdx.x] += part[threadIdx.y + half][threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.y != 0 || c >= n_channels) return;
    if (n_split == 1) out[b * n_channels + c] = from_f32<T>(part[0][threadIdx.x] * inv_n);
    else partial[(b * n_split + blockIdx.y) * n_channels + c] = part[0][threadIdx.x];
}

/* Adds the n_split partial sums of each channel in split order. */
template <typename T>
__global__ void pool_mean_finish_kernel(const float *partial, T *out, int n_channels, int n_split, float inv_n) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t b = blockIdx.y;
    if (c >= n_channels) return;
    float s = 0.0f;
    for (int k = 0; k < n_split; k++) s += partial[(b * n_split + k) * n_channels + c];
    out[b * n_channels + c] = from_f32<T>(s * inv_n);
}

template <typename T> void pool_mean_run(const struct samrt_pool_mean_args *a, cudaStream_t stream) {
    const int n_split = a->n_split > 1 && a->partial ? a->n_split : 1;
    const float inv_n = 1.0f / (float)a->n_tokens;
    const dim3 grid(ceil_div(a->n_channels, 32), (unsigned)n_split, (unsigned)a->n_batch), block(32, MEAN_ROWS);
    pool_mean_kernel<T><<<grid, block, 0, stream>>>((const T *)a->x, (T *)a->out, a->partial, a->n_tokens,
                                                    a->n_channels, n_split, inv_n);
    if (n_split > 1)
        pool_mean_finish_kernel<T><<<dim3(ceil_div(a->n_channels, 128), (unsigned)a->n_batch), 128, 0, stream>>>(
            a->partial, (T *)a->out, a->n_channels, n_split, inv_n);
}

}  // namespace

extern "C" enum samrt_status samrt_pool_mean_cuda(const struct samrt_pool_mean_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_pool_mean_check(a));
    if (a->n_batch > 65535) return SAMRT_E_UNSUPPORTED;  /* grid.y */
    SAMRT_DISPATCH_FLOAT(a->dtype, pool_mean_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_pool_max2x2_cuda(const struct samrt_pool_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_pool_check(a));
    if (a->h < 2 || a->w < 2) return SAMRT_OK;  /* floor mode: empty output */
    SAMRT_DISPATCH_FLOAT(a->dtype, pool_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
