/* conv_direct.cu - the direct convolution of conv_direct.h. A block is 128 output pixels
 * (flattened over N, Ho, Wo) x 8 output channels (grid.y walks the channel groups); the
 * group's weights (8 x C_in*k*k) and biases are staged in shared memory as f32. Each thread
 * reads its input taps from the NCHW map (neighbouring threads read neighbouring columns;
 * the other channel groups' blocks find them in L2), accumulates its 8 outputs with fmaf in
 * the reference's order (input channel, row, column), adds the bias, applies the activation
 * and stores each output once, NCHW (coalesced over the pixels) or NHWC (8 consecutive
 * channels per thread). */
#include "conv_direct.h"
#include "elementwise.cuh"

namespace {

constexpr int kPix = 128;   /* output pixels per block (threads) */
constexpr int kOut = 8;     /* output channels per thread */

struct Args {
    int n, c_in, h, w, c_out, k, stride, pad, ho, wo, has_bias;
};

template <int ACT> __device__ __forceinline__ float act_fn(float v) {
    if (ACT == SAMRT_EPILOGUE_ACT_GELU) return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    if (ACT == SAMRT_EPILOGUE_ACT_RELU) return v < 0.0f ? 0.0f : v;  /* NaN passes through */
    return v;
}

template <typename T, int ACT, bool NHWC>
__global__ void __launch_bounds__(kPix) conv_direct_kernel(const T *__restrict__ x, const T *__restrict__ wt,
                                                           const T *__restrict__ bias, T *__restrict__ y, Args a) {
    __shared__ float w_s[kOut][SAMRT_CONV_DIRECT_MAX_TAPS];
    __shared__ float b_s[kOut];
    const int taps = a.c_in * a.k * a.k, o0 = blockIdx.y * kOut;
    for (int i = threadIdx.x; i < kOut * taps; i += kPix) {
        const int j = i / taps, t = i % taps;
        w_s[j][t] = o0 + j < a.c_out ? samrt::to_f32(wt[(size_t)(o0 + j) * taps + t]) : 0.0f;
    }
    if (threadIdx.x < kOut)
        b_s[threadIdx.x] = a.has_bias && o0 + threadIdx.x < a.c_out ? samrt::to_f32(bias[o0 + threadIdx.x]) : 0.0f;
    __syncthreads();
    const int pix = blockIdx.x * kPix + threadIdx.x;
    if (pix >= a.n * a.ho * a.wo) return;
    const int ox = pix % a.wo, t = pix / a.wo, oy = t % a.ho, n = t / a.ho;
    const int iy0 = oy * a.stride - a.pad, ix0 = ox * a.stride - a.pad;
    float acc[kOut];
#pragma unroll
    for (int j = 0; j < kOut; j++) acc[j] = 0.0f;
    const T *xn = x + (size_t)n * a.c_in * a.h * a.w;
    for (int ci = 0; ci < a.c_in; ci++) {
        const T *xc = xn + (size_t)ci * a.h * a.w;
        for (int r = 0; r < a.k; r++) {
            const int iy = iy0 + r;
            if (iy < 0 || iy >= a.h) continue;
            for (int s = 0; s < a.k; s++) {
                const int ix = ix0 + s;
                if (ix < 0 || ix >= a.w) continue;
                const float xv = samrt::to_f32(__ldg(xc + (size_t)iy * a.w + ix));
                const int tap = (ci * a.k + r) * a.k + s;
#pragma unroll
                for (int j = 0; j < kOut; j++) acc[j] = fmaf(xv, w_s[j][tap], acc[j]);
            }
        }
    }
#pragma unroll
    for (int j = 0; j < kOut; j++) {
        const int o = o0 + j;
        if (o >= a.c_out) break;
        const T v = samrt::from_f32<T>(act_fn<ACT>(acc[j] + b_s[j]));
        if (NHWC) y[(size_t)pix * a.c_out + o] = v;
        else y[((size_t)n * a.c_out + o) * a.ho * a.wo + (size_t)oy * a.wo + ox] = v;
    }
}

template <typename T, int ACT>
void launch_act(const Args &a, int nhwc, const void *x, const void *w, const void *b, void *y, cudaStream_t s) {
    const dim3 grid(samrt::ceil_div((long long)a.n * a.ho * a.wo, kPix), samrt::ceil_div(a.c_out, kOut));
    const T *xt = (const T *)x, *wt = (const T *)w, *bt = (const T *)b;
    if (nhwc) conv_direct_kernel<T, ACT, true><<<grid, kPix, 0, s>>>(xt, wt, bt, (T *)y, a);
    else conv_direct_kernel<T, ACT, false><<<grid, kPix, 0, s>>>(xt, wt, bt, (T *)y, a);
}

template <typename T>
void launch(const struct samrt_conv_direct_desc *d, const void *x, const void *w, const void *b, void *y,
            cudaStream_t s) {
    Args a = {d->n, d->c_in, d->h, d->w, d->c_out, d->k, d->stride, d->pad, 0, 0, d->has_bias};
    samrt_conv_direct_out_hw(d, &a.ho, &a.wo);
    if (d->act == SAMRT_EPILOGUE_ACT_GELU) launch_act<T, SAMRT_EPILOGUE_ACT_GELU>(a, d->out_nhwc, x, w, b, y, s);
    else if (d->act == SAMRT_EPILOGUE_ACT_RELU) launch_act<T, SAMRT_EPILOGUE_ACT_RELU>(a, d->out_nhwc, x, w, b, y, s);
    else launch_act<T, SAMRT_EPILOGUE_ACT_NONE>(a, d->out_nhwc, x, w, b, y, s);
}

}  // namespace

extern "C" enum samrt_status samrt_conv_direct_cuda(const struct samrt_conv_direct_desc *d, const void *x,
                                                    const void *w, const void *bias, void *y, cudaStream_t stream) {
    if (!d || !samrt_conv_direct_ok(d) || !x || !w || !y || (d->has_bias && !bias)) return SAMRT_E_INVALID_ARG;
    SAMRT_DISPATCH_FLOAT(d->dtype, launch, d, x, w, bias, y, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
