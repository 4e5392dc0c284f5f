/* epilogue.cu - y = act(y + bias + residual) on the GPU (see epilogue.h for why it exists).
 *
 * Two mappings. The vector one (every row a whole number of 16-byte vectors, pointers
 * aligned: all production shapes) walks the tensor as a flat list of 16-byte vectors with a
 * grid-stride loop, so a few long NCHW planes (the mask downsampler's 4 x 512 x 512) and many
 * short NHWC rows alike keep every SM streaming at copy bandwidth. The scalar one covers the
 * rest: grid.y is the batch, and a block covers `rpb` rows at a time with `tpr` threads per
 * row (rpb * tpr <= 256). Math is f32 whatever the storage dtype, rounding once on the store,
 * as PyTorch's opmath does.
 * Tested by the op table (tests/ops_table_*.c, test_ops_table_cuda: its epilogue, gemm and conv rows). */
#include "common.cuh"
#include "epilogue.h"

namespace {

constexpr int kThreads = 256;

template <int ACT> __device__ __forceinline__ float apply_act(float v) {
    if (ACT == SAMRT_EPILOGUE_ACT_GELU) return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    if (ACT == SAMRT_EPILOGUE_ACT_RELU) return v < 0.0f ? 0.0f : v;  /* NaN passes through, as torch */
    return v;
}

template <typename T, int ACT>
__global__ void epilogue_kernel(T *__restrict__ y, const T *__restrict__ bias,
                                const T *__restrict__ residual, unsigned n_rows, unsigned n_cols,
                                unsigned s_batch, unsigned s_row, int bias_per_row, unsigned rpb,
                                unsigned tpr) {
    const unsigned lr = threadIdx.x / tpr, c0 = threadIdx.x - lr * tpr;
    if (lr >= rpb) return;
    const unsigned base = blockIdx.y * s_batch;
    for (unsigned r = blockIdx.x * rpb + lr; r < n_rows; r += gridDim.x * rpb) {
        const unsigned row = base + r * s_row;
        const float b_row = (bias && bias_per_row) ? samrt::to_f32(bias[r]) : 0.0f;
        for (unsigned c = c0; c < n_cols; c += tpr) {
            float v = samrt::to_f32(y[row + c]) + b_row;
            if (bias && !bias_per_row) v += samrt::to_f32(bias[c]);
            if (residual) v += samrt::to_f32(residual[row + c]);
            y[row + c] = samrt::from_f32<T>(apply_act<ACT>(v));
        }
    }
}

template <typename T> struct Vec {
    static constexpr int N = 16 / sizeof(T);
};

template <typename T, int ACT>
__global__ void epilogue_vec_kernel(T *__restrict__ y, const T *__restrict__ bias, const T *__restrict__ residual,
                                    unsigned n_vec, unsigned n_rows, unsigned ncv, unsigned s_batch, unsigned s_row,
                                    int bias_per_row) {
    constexpr int V = Vec<T>::N;
    for (unsigned v = blockIdx.x * blockDim.x + threadIdx.x; v < n_vec; v += gridDim.x * blockDim.x) {
        const unsigned cv = v % ncv, t = v / ncv, r = t % n_rows, bi = t / n_rows;
        const unsigned o = bi * s_batch + r * s_row + cv * V;
        uint4 u = *reinterpret_cast<const uint4 *>(y + o);
        T *yt = reinterpret_cast<T *>(&u);
        float add[V];
#pragma unroll
        for (int i = 0; i < V; i++) add[i] = 0.0f;
        if (bias && bias_per_row) {
            const float b = samrt::to_f32(bias[r]);
#pragma unroll
            for (int i = 0; i < V; i++) add[i] = b;
        } else if (bias) {
            const uint4 ub = __ldg(reinterpret_cast<const uint4 *>(bias + cv * V));
            const T *bt = reinterpret_cast<const T *>(&ub);
#pragma unroll
            for (int i = 0; i < V; i++) add[i] = samrt::to_f32(bt[i]);
        }
        if (residual) {
            const uint4 ur = __ldg(reinterpret_cast<const uint4 *>(residual + o));
            const T *rt = reinterpret_cast<const T *>(&ur);
#pragma unroll
            for (int i = 0; i < V; i++) add[i] += samrt::to_f32(rt[i]);
        }
#pragma unroll
        for (int i = 0; i < V; i++) yt[i] = samrt::from_f32<T>(apply_act<ACT>(samrt::to_f32(yt[i]) + add[i]));
        *reinterpret_cast<uint4 *>(y + o) = u;
    }
}

static bool aligned16(const void *p) { return ((unsigned long long)p % 16) == 0; }

/* The vector mapping, when the shape and pointers allow it; false otherwise. */
template <typename T>
bool launch_vec(enum samrt_epilogue_act act, const struct samrt_epilogue_shape *sh, const void *bias,
                const void *residual, void *y, cudaStream_t stream) {
    constexpr int V = Vec<T>::N;
    if (sh->n_cols % V || sh->s_row % V || (sh->n_batch > 1 && sh->s_batch % V)) return false;
    if (!aligned16(y) || (residual && !aligned16(residual)) || (bias && !sh->bias_per_row && !aligned16(bias)))
        return false;
    const unsigned ncv = (unsigned)(sh->n_cols / V), n_rows = (unsigned)sh->n_rows;
    const unsigned long long n_vec = (unsigned long long)sh->n_batch * n_rows * ncv;
    if (n_vec >= (1ull << 31)) return false;
    unsigned grid = samrt::ceil_div((long long)n_vec, kThreads);
    if (grid > 65535u) grid = 65535u;  /* the grid-stride loop covers the rest */
    T *yt = (T *)y;
    const T *bt = (const T *)bias, *rt = (const T *)residual;
    const unsigned s_batch = (unsigned)sh->s_batch, s_row = (unsigned)sh->s_row;
    if (act == SAMRT_EPILOGUE_ACT_GELU)
        epilogue_vec_kernel<T, SAMRT_EPILOGUE_ACT_GELU><<<grid, kThreads, 0, stream>>>(
            yt, bt, rt, (unsigned)n_vec, n_rows, ncv, s_batch, s_row, sh->bias_per_row);
    else if (act == SAMRT_EPILOGUE_ACT_RELU)
        epilogue_vec_kernel<T, SAMRT_EPILOGUE_ACT_RELU><<<grid, kThreads, 0, stream>>>(
            yt, bt, rt, (unsigned)n_vec, n_rows, ncv, s_batch, s_row, sh->bias_per_row);
    else
        epilogue_vec_kernel<T, SAMRT_EPILOGUE_ACT_NONE><<<grid, kThreads, 0, stream>>>(
            yt, bt, rt, (unsigned)n_vec, n_rows, ncv, s_batch, s_row, sh->bias_per_row);
    return true;
}

template <typename T>
void launch(enum samrt_epilogue_act act, const struct samrt_epilogue_shape *sh, const void *bias,
            const void *residual, void *y, cudaStream_t stream) {
    if (launch_vec<T>(act, sh, bias, residual, y, stream)) return;
    const unsigned n_cols = (unsigned)sh->n_cols, n_rows = (unsigned)sh->n_rows;
    const unsigned rpb = n_cols >= kThreads ? 1u : kThreads / n_cols;
    const unsigned tpr = kThreads / rpb;
    unsigned gx = samrt::ceil_div(n_rows, rpb);
    if (gx > 65535u) gx = 65535u;  /* the row loop strides over the rest */
    const dim3 grid(gx, (unsigned)sh->n_batch);
    T *yt = (T *)y;
    const T *bt = (const T *)bias, *rt = (const T *)residual;
    const unsigned s_batch = (unsigned)sh->s_batch, s_row = (unsigned)sh->s_row;
    if (act == SAMRT_EPILOGUE_ACT_GELU)
        epilogue_kernel<T, SAMRT_EPILOGUE_ACT_GELU><<<grid, kThreads, 0, stream>>>(
            yt, bt, rt, n_rows, n_cols, s_batch, s_row, sh->bias_per_row, rpb, tpr);
    else if (act == SAMRT_EPILOGUE_ACT_RELU)
        epilogue_kernel<T, SAMRT_EPILOGUE_ACT_RELU><<<grid, kThreads, 0, stream>>>(
            yt, bt, rt, n_rows, n_cols, s_batch, s_row, sh->bias_per_row, rpb, tpr);
    else
        epilogue_kernel<T, SAMRT_EPILOGUE_ACT_NONE><<<grid, kThreads, 0, stream>>>(
            yt, bt, rt, n_rows, n_cols, s_batch, s_row, sh->bias_per_row, rpb, tpr);
}

}  // namespace

extern "C" enum samrt_status samrt_epilogue_cuda(enum samrt_dtype dtype, enum samrt_epilogue_act act,
                                                 const struct samrt_epilogue_shape *sh,
                                                 const void *bias, const void *residual, void *y,
                                                 cudaStream_t stream) {
    SAMRT_DASSERT(samrt_epilogue_shape_check(sh) == SAMRT_OK);
    if (act == SAMRT_EPILOGUE_ACT_NONE && !bias && !residual) return SAMRT_OK;
    SAMRT_DISPATCH_FLOAT(dtype, launch, act, sh, bias, residual, y, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
