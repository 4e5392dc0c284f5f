/* elementwise.cu - CUDA launchers for elementwise.h. One grid-stride kernel template runs
 * a small functor per element; each thread moves a 16-byte pack (8 x f16/bf16, 4 x f32)
 * when every pointer is 16-byte aligned, narrower packs otherwise, and the n % V tail is
 * done with single elements by the first threads. The multiply and the add are rounded
 * separately (__fmul_rn / __fadd_rn stop nvcc from contracting them into an FMA) so f32
 * results match the PyTorch expressions bit for bit where the activation allows.
 * Tests: the op table (tests/ops_table_*.c, test_ops_table_cuda) (add --bench for timings). */
#include "elementwise.cuh"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int EW_THREADS = 256;
constexpr unsigned EW_MAX_BLOCKS = 65535;

template <typename T> struct unary_op {
    const T *x;
    T *out;
    enum samrt_act act;
    float alpha, beta;
    template <int V> __device__ __forceinline__ void apply(unsigned i) const {
        pack<T, V> a = load_pack<V>(x + i), o;
#pragma unroll
        for (int k = 0; k < V; k++)
            o.v[k] = from_f32<T>(__fadd_rn(__fmul_rn(alpha, act_apply(act, to_f32(a.v[k]))), beta));
        store_pack<V>(out + i, o);
    }
};

template <typename T> struct add_scaled_op {
    const T *x, *y;
    T *out;
    float a, b;
    template <int V> __device__ __forceinline__ void apply(unsigned i) const {
        pack<T, V> px = load_pack<V>(x + i), py = load_pack<V>(y + i), o;
#pragma unroll
        for (int k = 0; k < V; k++)
            o.v[k] = from_f32<T>(__fadd_rn(__fmul_rn(a, to_f32(px.v[k])), __fmul_rn(b, to_f32(py.v[k]))));
        store_pack<V>(out + i, o);
    }
};

/* P: the dtype of scale and bias (T, or float for a BatchNorm after a 16-bit conv) */
template <typename T, typename P> struct channel_affine_op {
    const T *x;
    const P *scale, *bias;
    const T *residual;
    T *out;
    unsigned n_channels, inner;
    enum samrt_act act;
    template <int V> __device__ __forceinline__ void apply(unsigned i) const {
        pack<T, V> px = load_pack<V>(x + i), pr{}, o;
        if (residual) pr = load_pack<V>(residual + i);
#pragma unroll
        for (int k = 0; k < V; k++) {
            const unsigned c = ((i + k) / inner) % n_channels;
            float v = to_f32(px.v[k]);
            if (scale) v = __fmul_rn(v, to_f32(scale[c]));
            if (bias) v = __fadd_rn(v, to_f32(bias[c]));
            if (act != SAMRT_ACT_NONE) v = act_apply(act, v);
            if (residual) v = __fadd_rn(to_f32(pr.v[k]), v);
            o.v[k] = from_f32<T>(v);
        }
        store_pack<V>(out + i, o);
    }
};

template <typename T, int V, typename Op>
__global__ void pointwise_kernel(Op op, unsigned n) {
    const unsigned n_packs = n / V;
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned p = t; p < n_packs; p += gridDim.x * blockDim.x) op.template apply<V>(p * V);
    const unsigned tail = n_packs * V + t;
    if (tail < n) op.template apply<1>(tail);
}

template <typename T, int V, typename Op>
void launch_v(const Op &op, unsigned n, cudaStream_t stream) {
    unsigned blocks = ceil_div(n / V, EW_THREADS);
    blocks = blocks < 1 ? 1 : (blocks > EW_MAX_BLOCKS ? EW_MAX_BLOCKS : blocks);
    pointwise_kernel<T, V, Op><<<blocks, EW_THREADS, 0, stream>>>(op, n);
}

template <typename T, typename Op>
void launch(const Op &op, unsigned n, const void *const *ptrs, int n_ptrs, cudaStream_t stream) {
    const int v = pack_width(sizeof(T), 1, ptrs, n_ptrs);
    SAMRT_DISPATCH_PACK(T, v, launch_v, op, n, stream);
}

template <typename T> void unary_run(const struct samrt_unary_args *a, cudaStream_t stream) {
    unary_op<T> op{(const T *)a->x, (T *)a->out, a->act, a->alpha, a->beta};
    const void *ptrs[] = {a->x, a->out};
    launch<T>(op, (unsigned)a->n, ptrs, 2, stream);
}

template <typename T> void add_scaled_run(const struct samrt_add_scaled_args *a, cudaStream_t stream) {
    add_scaled_op<T> op{(const T *)a->x, (const T *)a->y, (T *)a->out, a->a, a->b};
    const void *ptrs[] = {a->x, a->y, a->out};
    launch<T>(op, (unsigned)a->n, ptrs, 3, stream);
}

template <typename T, typename P>
void channel_affine_run_p(const struct samrt_channel_affine_args *a, cudaStream_t stream) {
    channel_affine_op<T, P> op{(const T *)a->x,        (const P *)a->scale,      (const P *)a->bias,
                               (const T *)a->residual, (T *)a->out,              (unsigned)a->n_channels,
                               (unsigned)a->inner,     a->act};
    const void *ptrs[] = {a->x, a->residual, a->out};
    launch<T>(op, (unsigned)a->n, ptrs, 3, stream);
}

template <typename T>
void channel_affine_run(const struct samrt_channel_affine_args *a, cudaStream_t stream) {
    if (a->params_f32) channel_affine_run_p<T, float>(a, stream);
    else channel_affine_run_p<T, T>(a, stream);
}

}  // namespace

extern "C" enum samrt_status samrt_unary_cuda(const struct samrt_unary_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_unary_check(a));
    if (a->n == 0) return SAMRT_OK;
    SAMRT_DISPATCH_FLOAT(a->dtype, unary_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_add_scaled_cuda(const struct samrt_add_scaled_args *a,
                                                   cudaStream_t stream) {
    SAMRT_TRY(samrt_add_scaled_check(a));
    if (a->n == 0) return SAMRT_OK;
    SAMRT_DISPATCH_FLOAT(a->dtype, add_scaled_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_channel_affine_cuda(const struct samrt_channel_affine_args *a,
                                                       cudaStream_t stream) {
    SAMRT_TRY(samrt_channel_affine_check(a));
    if (a->n == 0) return SAMRT_OK;
    SAMRT_DISPATCH_FLOAT(a->dtype, channel_affine_run, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
