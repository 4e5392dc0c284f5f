/* epilogue.cu - y = act(y + bias + residual) on the GPU (see epilogue.h for why it exists).
 *
 * Mapping without per-element division: grid.y is the batch, and a block covers `rpb` rows
 * at a time with `tpr` threads per row (rpb * tpr <= 256), so short rows (96 channels of an
 * NHWC map) keep the whole block busy and long rows (an NCHW plane) loop over columns. The
 * launcher derives rpb and tpr once; the kernel only adds strides. Math is f32 whatever the
 * storage dtype, rounding once on the store, as PyTorch's opmath does.
 * Tested by tests/test_gemm_cuda.c and tests/test_conv_cuda.c. */
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

template <typename T>
void launch(enum samrt_epilogue_act act, const struct samrt_epilogue_shape *sh, const void *bias,
            const void *residual, void *y, cudaStream_t stream) {
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
