/* fourier_pe.cu - CUDA launchers for fourier_pe.h: one thread per (position, frequency k)
 * writes channel k (sin) and channel F + k (cos). Same fp32 order as the reference, with
 * __fmul_rn / __fmaf_rn spelling out which products are rounded. Runs once at init (dense
 * grid) or per prompt (a handful of points), so plainness wins over speed.
 * Tests: the op table (tests/ops_table_*.c, test_ops_table_cuda). */
#include "common.cuh"
#include "fourier_pe.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr float TWO_PI = 6.28318530717958647692f;
constexpr int PE_THREADS = 256;

/* Channels k and F + k of point (u, v): out[o] = sin, out[o + f * s_c] = cos. */
template <typename T>
__device__ __forceinline__ void encode(const float *g, int f, int k, float u, float v, T *out, int64_t o,
                                       int64_t s_c) {
    const float cx = __fsub_rn(__fmul_rn(2.0f, u), 1.0f), cy = __fsub_rn(__fmul_rn(2.0f, v), 1.0f);
    const float h = __fmul_rn(TWO_PI, __fmaf_rn(cy, g[f + k], __fmul_rn(cx, g[k])));
    out[o] = from_f32<T>(sinf(h));
    out[o + f * s_c] = from_f32<T>(cosf(h));
}

template <typename T>
__global__ void fourier_pe_dense_kernel(T *out, const float *g, int f, int h, int w, int channels_last) {
    const int64_t hw = (int64_t)h * w;
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= hw * f) return;
    const int k = (int)(idx % f);
    const int64_t pix = idx / f;
    const float u = __fdiv_rn((float)(pix % w) + 0.5f, (float)w);
    const float v = __fdiv_rn((float)(pix / w) + 0.5f, (float)h);
    if (channels_last) encode<T>(g, f, k, u, v, out, pix * 2 * f + k, 1);
    else encode<T>(g, f, k, u, v, out, k * hw + pix, hw);
}

template <typename T>
__global__ void fourier_pe_points_kernel(T *out, const float *g, int f, const float *coords, int n_points,
                                         float offset, float img_w, float img_h) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (int64_t)n_points * f) return;
    const int k = (int)(idx % f);
    const int64_t n = idx / f;
    const float u = __fdiv_rn(__fadd_rn(coords[2 * n], offset), img_w);
    const float v = __fdiv_rn(__fadd_rn(coords[2 * n + 1], offset), img_h);
    encode<T>(g, f, k, u, v, out, n * 2 * f + k, 1);
}

template <typename T> void dense_run(const struct samrt_fourier_pe_dense_args *a, cudaStream_t stream) {
    const int64_t n = (int64_t)a->h * a->w * a->n_feats;
    fourier_pe_dense_kernel<T><<<ceil_div(n, PE_THREADS), PE_THREADS, 0, stream>>>(
        (T *)a->out, a->gauss, a->n_feats, a->h, a->w, a->channels_last);
}

template <typename T> void points_run(const struct samrt_fourier_pe_points_args *a, cudaStream_t stream) {
    const int64_t n = (int64_t)a->n_points * a->n_feats;
    fourier_pe_points_kernel<T><<<ceil_div(n, PE_THREADS), PE_THREADS, 0, stream>>>(
        (T *)a->out, a->gauss, a->n_feats, a->coords, a->n_points, a->offset, a->img_w, a->img_h);
}

}  // namespace

extern "C" enum samrt_status samrt_fourier_pe_dense_cuda(const struct samrt_fourier_pe_dense_args *a,
                                                         cudaStream_t stream) {
    SAMRT_TRY(samrt_fourier_pe_dense_check(a));
    if ((int64_t)a->h * a->w * a->n_feats > 0x7fffffffll * PE_THREADS) return SAMRT_E_UNSUPPORTED;
    SAMRT_DISPATCH_FLOAT(a->dtype, dense_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_fourier_pe_points_cuda(const struct samrt_fourier_pe_points_args *a,
                                                          cudaStream_t stream) {
    SAMRT_TRY(samrt_fourier_pe_points_check(a));
    if ((int64_t)a->n_points * a->n_feats > 0x7fffffffll * PE_THREADS) return SAMRT_E_UNSUPPORTED;
    SAMRT_DISPATCH_FLOAT(a->dtype, points_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
