/* sine_pe.cu - CUDA launchers for sine_pe.h: one thread per output element, the same fp32
 * operation order as the reference (IEEE division and powf/sinf/cosf at full precision,
 * no fast-math). These run once at init (2-D maps) or on a few hundred values per frame
 * (1-D pointer encoding), so the kernels favour plainness over speed.
 * Tests: the op table (tests/ops_table_*.c, test_ops_table_cuda). */
#include "common.cuh"
#include "samrt_impl.h"
#include "sine_pe.h"

using namespace samrt;

namespace {

constexpr float SCALE = 6.28318530717958647692f;  /* 2*pi in fp32 */
constexpr float EPS = 1e-6f;
constexpr float TEMPERATURE = 10000.0f;
constexpr int PE_THREADS = 256;

__device__ __forceinline__ float dim_t(int k, int f) {
    return powf(TEMPERATURE, (float)(2 * (k / 2)) / (float)f);
}

template <typename T>
__global__ void sine_pe_kernel(T *out, int n_feats, int h, int w, int channels_last) {
    const int64_t hw = (int64_t)h * w;
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= hw * n_feats) return;
    const int c = channels_last ? (int)(idx % n_feats) : (int)(idx / hw);
    const int64_t pix = channels_last ? idx / n_feats : idx % hw;
    const int f = n_feats / 2;
    const bool is_y = c < f;
    const int k = is_y ? c : c - f;
    const float pos = is_y ? (float)(pix / w + 1) / ((float)h + EPS) * SCALE
                           : (float)(pix % w + 1) / ((float)w + EPS) * SCALE;
    const float v = pos / dim_t(k, f);
    out[idx] = from_f32<T>(k & 1 ? cosf(v) : sinf(v));
}

template <typename T>
__global__ void sine_pe_1d_kernel(T *out, const float *pos, int n_pos, int dim) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (int64_t)n_pos * dim) return;
    const int f = dim / 2, c = (int)(idx % dim);
    const int k = c < f ? c : c - f;
    const float v = pos[idx / dim] / dim_t(k, f);
    out[idx] = from_f32<T>(c < f ? sinf(v) : cosf(v));
}

template <typename T> void sine_pe_run(const struct samrt_sine_pe_args *a, cudaStream_t stream) {
    const int64_t n = (int64_t)a->h * a->w * a->n_feats;
    sine_pe_kernel<T><<<ceil_div(n, PE_THREADS), PE_THREADS, 0, stream>>>((T *)a->out, a->n_feats, a->h, a->w,
                                                                           a->channels_last);
}

template <typename T> void sine_pe_1d_run(const struct samrt_sine_pe_1d_args *a, cudaStream_t stream) {
    const int64_t n = (int64_t)a->n_pos * a->dim;
    sine_pe_1d_kernel<T><<<ceil_div(n, PE_THREADS), PE_THREADS, 0, stream>>>((T *)a->out, a->pos, a->n_pos,
                                                                              a->dim);
}

}  // namespace

extern "C" enum samrt_status samrt_sine_pe_cuda(const struct samrt_sine_pe_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_sine_pe_check(a));
    if ((int64_t)a->h * a->w * a->n_feats > 0x7fffffffll * PE_THREADS) return SAMRT_E_UNSUPPORTED;
    SAMRT_DISPATCH_FLOAT(a->dtype, sine_pe_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_sine_pe_1d_cuda(const struct samrt_sine_pe_1d_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_sine_pe_1d_check(a));
    if ((int64_t)a->n_pos * a->dim > 0x7fffffffll * PE_THREADS) return SAMRT_E_UNSUPPORTED;
    SAMRT_DISPATCH_FLOAT(a->dtype, sine_pe_1d_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
