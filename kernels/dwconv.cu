/* dwconv.cu - the NHWC depthwise convolution of dwconv.h with its epilogue fused.
 *
 * Mapping: a block is 8 channel vectors x 32 output pixels (256 threads). A channel vector is
 * 16 bytes (8 f16/bf16 or 4 f32 channels), so a block covers a chunk of 64 (or 32) channels;
 * grid.y walks the chunks, grid.x the output pixels (N*Ho*Wo, flattened). The chunk's k*k
 * weights and its bias are staged in shared memory as f32 once per block. Each thread reads
 * its k*k input vectors with 16-byte loads (neighbouring pixels' windows overlap, so the
 * reuse is served by L1), accumulates in f32 in the tap order of the reference, then adds
 * bias and residual, applies the activation and rounds once on a 16-byte store.
 *
 * The bn forms (dwconv.h) stage the f32 BatchNorm parameters (and RepVggDw's 1x1 weight) in
 * shared memory beside the bias, round the sum to T, and then run the chain's arithmetic per
 * element: __fmul_rn / __fadd_rn in channel_affine's order (nvcc never contracts them), the
 * activation through elementwise.cuh's act_apply, each stored tensor of the chain a round_to<T>.
 * RepVggDw's identity and 1x1 branch read the centre input pixel again (an L1 hit). */
#include "dwconv.h"
#include "elementwise.cuh"

namespace {

constexpr int kVecThreads = 8;    /* channel vectors per block */
constexpr int kPixThreads = 32;   /* output pixels per block */

template <typename T> struct Vec {
    static constexpr int N = 16 / sizeof(T);
};

template <typename T> __device__ __forceinline__ void unpack(const uint4 &u, float *f) {
    const T *t = reinterpret_cast<const T *>(&u);
#pragma unroll
    for (int i = 0; i < Vec<T>::N; i++) f[i] = samrt::to_f32(t[i]);
}

template <typename T> __device__ __forceinline__ uint4 pack(const float *f) {
    uint4 u;
    T *t = reinterpret_cast<T *>(&u);
#pragma unroll
    for (int i = 0; i < Vec<T>::N; i++) t[i] = samrt::from_f32<T>(f[i]);
    return u;
}

template <int ACT> __device__ __forceinline__ float act_fn(float v) {
    if (ACT == SAMRT_EPILOGUE_ACT_GELU) return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    if (ACT == SAMRT_EPILOGUE_ACT_RELU) return v < 0.0f ? 0.0f : v;  /* NaN passes through, as torch */
    return v;
}

struct Args {
    int n, h, w, c, k, stride, pad, ho, wo;
    int has_bias, residual;
    const float *s, *sh, *s1, *sh1;   /* bn forms */
    const void *w1;                   /* REPVGG, of T */
};

/* The enum samrt_act that channel_affine applies for an epilogue activation. */
constexpr samrt_act affine_act(int act) {
    return act == SAMRT_EPILOGUE_ACT_GELU ? SAMRT_ACT_GELU
         : act == SAMRT_EPILOGUE_ACT_RELU ? SAMRT_ACT_RELU : SAMRT_ACT_NONE;
}

/* The bn forms' tail of element i of a thread's vector: t is the conv sum plus bias, xc the
 * centre input (REPVGG), r the residual (AFFINE); p the channel's staged s, sh, w1, s1, sh1. */
template <typename T, int ACT, int BN>
__device__ __forceinline__ float bn_tail(float t, float xc, float r, int residual, const float *p) {
    using samrt::round_to;
    t = round_to<T>(t);
    float v = __fadd_rn(__fmul_rn(t, p[0]), p[1]);
    if constexpr (BN == SAMRT_DWCONV_BN_REPVGG) {
        const float av = round_to<T>(v);
        const float u = round_to<T>(__fmul_rn(xc, p[2]));
        const float ab = round_to<T>(__fadd_rn(av, __fadd_rn(__fmul_rn(u, p[3]), p[4])));
        return __fadd_rn(ab, xc);
    }
    if (ACT != SAMRT_EPILOGUE_ACT_NONE) v = samrt::act_apply(affine_act(ACT), v);
    return residual ? __fadd_rn(r, v) : v;
}

template <typename T, int ACT, int K, int BN>
__global__ void __launch_bounds__(kVecThreads *kPixThreads)
    dwconv_kernel(const T *__restrict__ x, const T *__restrict__ wt, const T *__restrict__ bias,
                  const T *__restrict__ res, T *__restrict__ y, Args a) {
    constexpr int V = Vec<T>::N, CH = kVecThreads * V;
    constexpr int NP = BN == SAMRT_DWCONV_BN_NONE ? 1 : 5;   /* staged BatchNorm values per channel */
    const int k = K > 0 ? K : a.k;
    __shared__ float w_s[SAMRT_DWCONV_MAX_K * SAMRT_DWCONV_MAX_K][CH];
    __shared__ float b_s[CH];
    __shared__ float p_s[CH][NP];
    const int c_base = blockIdx.y * CH;
    const int tid = threadIdx.y * kVecThreads + threadIdx.x;
    for (int i = tid; i < k * k * CH; i += kVecThreads * kPixThreads) {
        const int cc = i % CH, tap = i / CH, c = c_base + cc;
        w_s[tap][cc] = c < a.c ? samrt::to_f32(wt[(size_t)c * k * k + tap]) : 0.0f;
    }
    if (tid < CH) b_s[tid] = a.has_bias && c_base + tid < a.c ? samrt::to_f32(bias[c_base + tid]) : 0.0f;
    if constexpr (BN != SAMRT_DWCONV_BN_NONE) if (tid < CH) {
        const int c = c_base + tid, in = c < a.c, rep = BN == SAMRT_DWCONV_BN_REPVGG;
        p_s[tid][0] = in ? a.s[c] : 0.0f;
        p_s[tid][1] = in ? a.sh[c] : 0.0f;
        p_s[tid][2] = in && rep ? samrt::to_f32(static_cast<const T *>(a.w1)[c]) : 0.0f;
        p_s[tid][3] = in && rep ? a.s1[c] : 0.0f;
        p_s[tid][4] = in && rep ? a.sh1[c] : 0.0f;
    }
    __syncthreads();

    const int c0 = c_base + threadIdx.x * V;
    const int pix = blockIdx.x * kPixThreads + threadIdx.y;
    if (c0 >= a.c || pix >= a.n * a.ho * a.wo) return;
    const int ox = pix % a.wo, t = pix / a.wo, oy = t % a.ho, n = t / a.ho;
    const int iy0 = oy * a.stride - a.pad, ix0 = ox * a.stride - a.pad;
    float acc[V];
#pragma unroll
    for (int i = 0; i < V; i++) acc[i] = 0.0f;
    const T *xn = x + (size_t)n * a.h * a.w * a.c + c0;
#pragma unroll(K > 0 ? K : 1)
    for (int ky = 0; ky < k; ky++) {
        const int iy = iy0 + ky;
        if (iy < 0 || iy >= a.h) continue;
#pragma unroll(K > 0 ? K : 1)
        for (int kx = 0; kx < k; kx++) {
            const int ix = ix0 + kx;
            if (ix < 0 || ix >= a.w) continue;
            const uint4 u = __ldg(reinterpret_cast<const uint4 *>(xn + ((size_t)iy * a.w + ix) * a.c));
            float xv[V];
            unpack<T>(u, xv);
            const float *wr = &w_s[ky * k + kx][threadIdx.x * V];
#pragma unroll
            for (int i = 0; i < V; i++) acc[i] = fmaf(xv[i], wr[i], acc[i]);
        }
    }
    const size_t o = (size_t)pix * a.c + c0;
    float rv[V], xc[V];
    if (a.residual) unpack<T>(__ldg(reinterpret_cast<const uint4 *>(res + o)), rv);
    if constexpr (BN == SAMRT_DWCONV_BN_REPVGG)   /* stride 1, same size: the input pixel of this output */
        unpack<T>(__ldg(reinterpret_cast<const uint4 *>(xn + ((size_t)oy * a.w + ox) * a.c)), xc);
#pragma unroll
    for (int i = 0; i < V; i++) {
        float v = acc[i] + b_s[threadIdx.x * V + i];
        if constexpr (BN != SAMRT_DWCONV_BN_NONE) {
            acc[i] = bn_tail<T, ACT, BN>(v, BN == SAMRT_DWCONV_BN_REPVGG ? xc[i] : 0.0f, a.residual ? rv[i] : 0.0f,
                                         a.residual, p_s[threadIdx.x * V + i]);
            continue;
        }
        if (a.residual) v += rv[i];
        acc[i] = act_fn<ACT>(v);
    }
    *reinterpret_cast<uint4 *>(y + o) = pack<T>(acc);
}

template <typename T, int ACT, int BN>
void launch_k(const Args &a, const T *x, const T *w, const T *b, const T *r, T *y, cudaStream_t s) {
    constexpr int CH = kVecThreads * Vec<T>::N;
    const dim3 block(kVecThreads, kPixThreads);
    const dim3 grid(samrt::ceil_div((long long)a.n * a.ho * a.wo, kPixThreads), samrt::ceil_div(a.c, CH));
    if (a.k == 3) dwconv_kernel<T, ACT, 3, BN><<<grid, block, 0, s>>>(x, w, b, r, y, a);
    else if (a.k == 7) dwconv_kernel<T, ACT, 7, BN><<<grid, block, 0, s>>>(x, w, b, r, y, a);
    else dwconv_kernel<T, ACT, 0, BN><<<grid, block, 0, s>>>(x, w, b, r, y, a);
}

template <typename T, int BN>
void launch_act(const struct samrt_dwconv_desc *d, const Args &a, const T *x, const T *w, const T *b, const T *r,
                T *y, cudaStream_t s) {
    if constexpr (BN == SAMRT_DWCONV_BN_REPVGG) launch_k<T, SAMRT_EPILOGUE_ACT_NONE, BN>(a, x, w, b, r, y, s);  /* no act */
    else if (d->act == SAMRT_EPILOGUE_ACT_GELU) launch_k<T, SAMRT_EPILOGUE_ACT_GELU, BN>(a, x, w, b, r, y, s);
    else if (d->act == SAMRT_EPILOGUE_ACT_RELU) launch_k<T, SAMRT_EPILOGUE_ACT_RELU, BN>(a, x, w, b, r, y, s);
    else launch_k<T, SAMRT_EPILOGUE_ACT_NONE, BN>(a, x, w, b, r, y, s);
}

template <typename T>
void launch(const struct samrt_dwconv_desc *d, const void *x, const void *w, const void *b,
            const struct samrt_dwconv_bn_params *bn, const void *r, void *y, cudaStream_t s) {
    Args a = {};
    a.n = d->n, a.h = d->h, a.w = d->w, a.c = d->c, a.k = d->k, a.stride = d->stride, a.pad = d->pad;
    samrt_dwconv_out_hw(d, &a.ho, &a.wo);
    a.has_bias = d->has_bias, a.residual = d->residual;
    if (bn) a.s = bn->s, a.sh = bn->sh, a.w1 = bn->w1, a.s1 = bn->s1, a.sh1 = bn->sh1;
    const T *xt = (const T *)x, *wt = (const T *)w, *bt = (const T *)b, *rt = (const T *)r;
    T *yt = (T *)y;
    const int mode = bn ? bn->mode : SAMRT_DWCONV_BN_NONE;
    if (mode == SAMRT_DWCONV_BN_AFFINE) launch_act<T, SAMRT_DWCONV_BN_AFFINE>(d, a, xt, wt, bt, rt, yt, s);
    else if (mode == SAMRT_DWCONV_BN_REPVGG) launch_act<T, SAMRT_DWCONV_BN_REPVGG>(d, a, xt, wt, bt, rt, yt, s);
    else launch_act<T, SAMRT_DWCONV_BN_NONE>(d, a, xt, wt, bt, rt, yt, s);
}

}  // namespace

extern "C" enum samrt_status samrt_dwconv_cuda(const struct samrt_dwconv_desc *d, const void *x, const void *w,
                                               const void *bias, const void *residual, void *y,
                                               cudaStream_t stream) {
    SAMRT_DASSERT(samrt_dwconv_supported(d, x, w, bias, residual, y));
    if (!x || !w || !y || (d->has_bias && !bias) || (d->residual && !residual)) return SAMRT_E_INVALID_ARG;
    SAMRT_DISPATCH_FLOAT(d->dtype, launch, d, x, w, bias, (const struct samrt_dwconv_bn_params *)NULL, residual, y,
                         stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_dwconv_bn_cuda(const struct samrt_dwconv_desc *d, const void *x, const void *w,
                                                  const void *bias, const struct samrt_dwconv_bn_params *bn,
                                                  const void *residual, void *y, cudaStream_t stream) {
    SAMRT_DASSERT(samrt_dwconv_supported(d, x, w, bias, residual, y));
    if (!x || !w || !y || !bn || !samrt_dwconv_bn_shape_ok(d, bn->mode) || !bn->s || !bn->sh ||
        (d->has_bias && !bias) || (d->residual && !residual))
        return SAMRT_E_INVALID_ARG;
    if (bn->mode == SAMRT_DWCONV_BN_REPVGG && (!bn->w1 || !bn->s1 || !bn->sh1)) return SAMRT_E_INVALID_ARG;
    SAMRT_DISPATCH_FLOAT(d->dtype, launch, d, x, w, bias, bn, residual, y, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
