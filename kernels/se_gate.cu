/* se_gate.cu - the squeeze-excite gate of se_gate.h: one block of 256 threads per image.
 * The mean of channel c adds the image's partial rows in order (f32) and divides once; fc1
 * and fc2 accumulate with fmaf in the order of the inputs, add the bias, and round each
 * output to T as the chain's stores do; the sigmoid is elementwise.cuh's. Every value lives
 * in shared memory (C <= 2048, R <= 512). */
#include "elementwise.cuh"
#include "se_gate.h"

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads) se_gate_kernel(samrt_se_gate_args a) {
    using samrt::round_to;
    using samrt::to_f32;
    __shared__ float m_s[SAMRT_SE_GATE_MAX_C];
    __shared__ float h_s[SAMRT_SE_GATE_MAX_R];
    const int C = a.c, R = a.r;
    const int64_t b = blockIdx.x;
    const float *part = a.partial + b * a.n_rows * C;
    const T *w1 = static_cast<const T *>(a.w1), *b1 = static_cast<const T *>(a.b1);
    const T *w2 = static_cast<const T *>(a.w2), *b2 = static_cast<const T *>(a.b2);
    for (int c = threadIdx.x; c < C; c += kThreads) {
        float s = 0.0f;
        for (int64_t r = 0; r < a.n_rows; r++) s += part[r * C + c];
        m_s[c] = round_to<T>(s / (float)a.n_tokens);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < R; j += kThreads) {
        float acc = 0.0f;
        for (int k = 0; k < C; k++) acc = fmaf(m_s[k], to_f32(w1[(size_t)j * C + k]), acc);
        const float v = acc + to_f32(b1[j]);
        h_s[j] = round_to<T>(v > 0.0f ? v : (v != v ? v : 0.0f));
    }
    __syncthreads();
    T *gate = static_cast<T *>(a.gate) + b * C;
    for (int c = threadIdx.x; c < C; c += kThreads) {
        float acc = 0.0f;
        for (int k = 0; k < R; k++) acc = fmaf(h_s[k], to_f32(w2[(size_t)c * R + k]), acc);
        const float v = round_to<T>(acc + to_f32(b2[c]));
        gate[c] = samrt::from_f32<T>(samrt::act_apply(SAMRT_ACT_SIGMOID, v));
    }
}

template <typename T> void launch(const samrt_se_gate_args &a, cudaStream_t s) {
    se_gate_kernel<T><<<(unsigned)a.n_batch, kThreads, 0, s>>>(a);
}

}  // namespace

extern "C" enum samrt_status samrt_se_gate_cuda(const struct samrt_se_gate_args *a, cudaStream_t stream) {
    const enum samrt_status st = samrt_se_gate_check(a, 1);
    if (st != SAMRT_OK) return st;
    SAMRT_DISPATCH_FLOAT(a->dtype, launch, *a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
