/* conv.c - the CUDA side of conv.h: cuDNN forward convolution plans (descriptors, math type,
 * algorithm choice within the workspace cap) followed by the epilogue pass, and the
 * transposed 2x2 stride-2 convolution as two strided-batch cuBLASLt GEMMs. Depthwise NHWC
 * convs run dwconv.h's fused kernel instead when the pointers allow (16-byte aligned).
 *
 * Math types, per the cuDNN 8/9 rules: CUDNN_FMA_MATH is the only one that keeps f32 data
 * off TF32 tensor cores (CUDNN_DEFAULT_MATH permits TF32 on sm_80+), so strict f32 plans
 * set it, skip any candidate that reports a tensor-op math type, and never copy the
 * candidate's math type back. f16/bf16 plans ask for CUDNN_TENSOR_OP_MATH and then adopt the
 * math type the chosen candidate reports (the pairing cuDNN measured).
 * Built only with SAMRT_CUDA. */
/* The legacy convolution API is deprecated in cuDNN 9 but present through 9.x; keep its
 * opt-in deprecation attributes off so a global -DCUDNN_WARN_DEPRECATED cannot turn this
 * file's intended use into -Werror failures. */
#undef CUDNN_WARN_DEPRECATED
#include "conv.h"

#include "stream.h"

#include <string.h>

#define DNN_TRY(call)                                                                      \
    do {                                                                                   \
        cudnnStatus_t dnn_st_ = (call);                                                    \
        if (dnn_st_ != CUDNN_STATUS_SUCCESS) {                                             \
            SAMRT_LOG_ERROR("%s:%d: %s failed: %s", __FILE__, __LINE__, #call,            \
                            cudnnGetErrorString(dnn_st_));                                 \
            return SAMRT_E_CUDA;                                                           \
        }                                                                                  \
    } while (0)

static cudnnDataType_t dnn_type(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F16    ? CUDNN_DATA_HALF
           : dt == SAMRT_DTYPE_BF16 ? CUDNN_DATA_BFLOAT16
                                    : CUDNN_DATA_FLOAT;
}

static int is_tensor_op(cudnnMathType_t m) {
    return m == CUDNN_TENSOR_OP_MATH || m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

/* Index of the candidate to use, or -1. Candidates come sorted fastest first. */
static int pick_candidate(const struct samrt_conv_desc *d, const cudnnConvolutionFwdAlgoPerf_t *perf, int n,
                          size_t ws_cap) {
    const int strict_f32 = d->dtype == SAMRT_DTYPE_F32 && !d->allow_tf32;
    int pick = -1;
    for (int i = 0; i < n; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > ws_cap) continue;
        if (strict_f32 && is_tensor_op(perf[i].mathType)) continue;
        if (pick < 0) pick = i;
        /* Test mode: the first TF32 candidate, so that the guard test sees reduced precision. */
        if (d->allow_tf32 && is_tensor_op(perf[i].mathType)) return i;
        if (!d->allow_tf32) break;
    }
    return pick;
}

/* Last resort when the search fails or nothing fits: the first algorithm that needs no more
 * workspace than the cap, trying the implicit-GEMM ones (zero workspace) first. */
static int zero_workspace_algo(struct samrt_conv_plan *p, size_t ws_cap) {
    static const cudnnConvolutionFwdAlgo_t order[] = {
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
        CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, CUDNN_CONVOLUTION_FWD_ALGO_GEMM};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(order); i++) {
        size_t need = 0;
        if (cudnnGetConvolutionForwardWorkspaceSize(p->dnn, p->x_desc, p->w_desc, p->conv_desc, p->y_desc,
                                                    order[i], &need) == CUDNN_STATUS_SUCCESS &&
            need <= ws_cap) {
            p->algo = order[i];
            p->ws_bytes = need;
            return 1;
        }
    }
    return 0;
}

static enum samrt_status choose_algo(struct samrt_conv_plan *p, size_t ws_cap,
                                     const struct samrt_conv_tune *tune) {
    const struct samrt_conv_desc *d = &p->d;
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int n = 0, pick = -1;
    cudnnStatus_t st;
    if (tune && tune->x && tune->w && tune->y) {
        st = cudnnFindConvolutionForwardAlgorithmEx(
            p->dnn, p->x_desc, tune->x, p->w_desc, tune->w, p->conv_desc, p->y_desc, tune->y,
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf, tune->ws, tune->ws ? ws_cap : 0);
        if (st == CUDNN_STATUS_SUCCESS) pick = pick_candidate(d, perf, n, ws_cap);
        else SAMRT_LOG_WARN("conv: timed algorithm search failed (%s); using the heuristic",
                            cudnnGetErrorString(st));
        (void)cudaGetLastError();  /* a failed trial must not poison later launch checks */
    }
    if (pick < 0) {
        st = cudnnGetConvolutionForwardAlgorithm_v7(p->dnn, p->x_desc, p->w_desc, p->conv_desc, p->y_desc,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf);
        if (st == CUDNN_STATUS_SUCCESS) pick = pick_candidate(d, perf, n, ws_cap);
        else SAMRT_LOG_WARN("conv: algorithm heuristic failed (%s)", cudnnGetErrorString(st));
    }
    if (pick >= 0) {
        p->algo = perf[pick].algo;
        if (d->dtype != SAMRT_DTYPE_F32 || d->allow_tf32) p->math = perf[pick].mathType;
    } else {
        SAMRT_LOG_WARN("conv: no searched algorithm fits %zu workspace bytes; trying zero-workspace ones",
                       ws_cap);
        SAMRT_CHECK(zero_workspace_algo(p, ws_cap), SAMRT_E_UNSUPPORTED,
                    "conv %dx%dx%dx%d -> %d k%dx%d s%d g%d %s: cuDNN offers no algorithm within %zu bytes",
                    d->n, d->c_in, d->h, d->w, d->c_out, d->kh, d->kw, d->stride_h, d->groups,
                    samrt_dtype_name(d->dtype), ws_cap);
    }
    DNN_TRY(cudnnSetConvolutionMathType(p->conv_desc, p->math));
    /* Confirms the (algorithm, math type) pair and its exact workspace. */
    DNN_TRY(cudnnGetConvolutionForwardWorkspaceSize(p->dnn, p->x_desc, p->w_desc, p->conv_desc, p->y_desc,
                                                    p->algo, &p->ws_bytes));
    SAMRT_CHECK(p->ws_bytes <= ws_cap, SAMRT_E_UNSUPPORTED,
                "conv: algorithm %d needs %zu > %zu workspace bytes", (int)p->algo, p->ws_bytes, ws_cap);
    return SAMRT_OK;
}

static enum samrt_status plan_build(struct samrt_conv_plan *p, size_t ws_cap,
                                    const struct samrt_conv_tune *tune) {
    const struct samrt_conv_desc *d = &p->d;
    const cudnnTensorFormat_t fmt = d->layout == SAMRT_CONV_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    const cudnnDataType_t dt = dnn_type(d->dtype);
    DNN_TRY(cudnnCreateTensorDescriptor(&p->x_desc));
    DNN_TRY(cudnnCreateTensorDescriptor(&p->y_desc));
    DNN_TRY(cudnnCreateFilterDescriptor(&p->w_desc));
    DNN_TRY(cudnnCreateConvolutionDescriptor(&p->conv_desc));
    DNN_TRY(cudnnSetTensor4dDescriptor(p->x_desc, fmt, dt, d->n, d->c_in, d->h, d->w));
    DNN_TRY(cudnnSetFilter4dDescriptor(p->w_desc, dt, fmt, d->c_out, d->c_in / d->groups, d->kh, d->kw));
    /* Compute type f32 for every dtype: f16/bf16 accumulate in f32 (PyTorch does the same). */
    DNN_TRY(cudnnSetConvolution2dDescriptor(p->conv_desc, d->pad_h, d->pad_w, d->stride_h, d->stride_w, 1, 1,
                                            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    DNN_TRY(cudnnSetConvolutionGroupCount(p->conv_desc, d->groups));
    p->math = d->dtype != SAMRT_DTYPE_F32 ? CUDNN_TENSOR_OP_MATH
            : d->allow_tf32             ? CUDNN_DEFAULT_MATH
                                        : CUDNN_FMA_MATH;
    DNN_TRY(cudnnSetConvolutionMathType(p->conv_desc, p->math));
    int on, oc, oh, ow;
    DNN_TRY(cudnnGetConvolution2dForwardOutputDim(p->conv_desc, p->x_desc, p->w_desc, &on, &oc, &oh, &ow));
    samrt_conv_out_hw(d, &p->ho, &p->wo);
    SAMRT_CHECK(on == d->n && oc == d->c_out && oh == p->ho && ow == p->wo, SAMRT_E_CUDA,
                "conv: cuDNN output %dx%dx%dx%d, expected %dx%dx%dx%d", on, oc, oh, ow, d->n, d->c_out, p->ho,
                p->wo);
    DNN_TRY(cudnnSetTensor4dDescriptor(p->y_desc, fmt, dt, d->n, d->c_out, p->ho, p->wo));
    p->pass_shape = samrt_conv_epilogue_shape(d);
    return choose_algo(p, ws_cap, tune);
}

void samrt_conv_plan_free(struct samrt_conv_plan *p) {
    if (p->conv_desc) cudnnDestroyConvolutionDescriptor(p->conv_desc);
    if (p->w_desc) cudnnDestroyFilterDescriptor(p->w_desc);
    if (p->y_desc) cudnnDestroyTensorDescriptor(p->y_desc);
    if (p->x_desc) cudnnDestroyTensorDescriptor(p->x_desc);
    memset(p, 0, sizeof *p);
}

/* One call of the plan on real buffers (cuDNN may load modules on a first call, which a
 * capture refuses): run once eagerly on zeros, then captured and counted (gpu_ctx.h). */
struct probe {
    const struct samrt_conv_plan *p;
    void *x, *w, *b, *r, *y, *ws;
};

static enum samrt_status probe_call(void *user, void *probe, cudaStream_t s) {
    (void)probe;
    const struct probe *q = user;
    return samrt_conv_cuda(q->p, q->x, q->w, q->b, q->r, q->y, q->ws, q->p->ws_bytes, s);
}

/* The kernels one call of p launches; -1 when they cannot be counted (setup-time buffers of
 * the call's size, freed before returning). */
static int count_kernels(const struct samrt_gpu_ctx *ctx, const struct samrt_conv_plan *p) {
    const struct samrt_conv_desc *d = &p->d;
    const size_t es = samrt_dtype_size(d->dtype), a = 256;
    const size_t bx = SAMRT_PAD((size_t)d->n * d->c_in * d->h * d->w * es, a);
    const size_t bw = SAMRT_PAD((size_t)d->c_out * (d->c_in / d->groups) * d->kh * d->kw * es, a);
    const size_t by = SAMRT_PAD((size_t)d->n * d->c_out * p->ho * p->wo * es, a);
    const size_t bb = SAMRT_PAD((size_t)d->c_out * es, a), bws = SAMRT_PAD(p->ws_bytes, a);
    uint8_t *base = NULL;
    if (!samrt_stream_counting()) return -1;
    if (cudaMalloc((void **)&base, bx + bw + 2 * by + bb + bws) != cudaSuccess) {  /* setup, when counting */
        (void)cudaGetLastError();
        return -1;
    }
    struct probe q = {p, base, base + bx, base + bx + bw, base + bx + bw + bb, base + bx + bw + bb + by,
                      p->ws_bytes ? base + bx + bw + bb + 2 * by : NULL};
    if (!samrt_epilogue_has_bias(d->epilogue)) q.b = NULL;
    if (!d->residual) q.r = NULL;
    int n = -1;
    if (cudaMemsetAsync(base, 0, bx + bw + 2 * by + bb + bws, ctx->stream) == cudaSuccess &&
        probe_call(&q, NULL, ctx->stream) == SAMRT_OK && cudaStreamSynchronize(ctx->stream) == cudaSuccess)
        n = samrt_gpu_count_kernels(ctx, probe_call, &q);
    (void)cudaGetLastError();
    cudaFree(base);
    return n;
}

enum samrt_status samrt_conv_plan_init(const struct samrt_gpu_ctx *ctx, const struct samrt_conv_desc *d,
                                       size_t ws_cap, const struct samrt_conv_tune *tune,
                                       struct samrt_conv_plan *out) {
    memset(out, 0, sizeof *out);
    SAMRT_TRY(samrt_conv_desc_check(d));
    SAMRT_CHECK(ctx && ctx->dnn, SAMRT_E_INVALID_ARG, "conv: no cuDNN handle");
    out->d = *d;
    out->dnn = ctx->dnn;
    if (samrt_conv_as_dwconv(d, &out->dw)) out->own_dw = samrt_dwconv_supported(&out->dw, NULL, NULL, NULL, NULL, NULL);
    const enum samrt_status st = plan_build(out, ws_cap, tune);
    if (st != SAMRT_OK) {
        samrt_conv_plan_free(out);
        return st;
    }
    /* what cuDNN's algorithm launches (layout transforms around NCHW tensors included) */
    const int n = count_kernels(ctx, out);
    const int pass = samrt_epilogue_has_bias(d->epilogue) || d->residual ||
                     samrt_epilogue_act(d->epilogue) != SAMRT_EPILOGUE_ACT_NONE;
    out->n_kernels = n > 0 ? n : out->own_dw ? 1 : 1 + pass;
    return SAMRT_OK;
}

enum samrt_status samrt_conv_cuda(const struct samrt_conv_plan *p, const void *x, const void *w,
                                  const void *bias, const void *residual, void *y, void *workspace,
                                  size_t ws_bytes, cudaStream_t stream) {
    const struct samrt_conv_desc *d = &p->d;
    SAMRT_DASSERT(p->conv_desc != NULL);
    const int has_bias = samrt_epilogue_has_bias(d->epilogue);
    if (!x || !w || !y || (has_bias && !bias) || (d->residual && !residual)) return SAMRT_E_INVALID_ARG;
    if (p->own_dw && samrt_dwconv_supported(&p->dw, x, w, bias, residual, y))
        return samrt_dwconv_cuda(&p->dw, x, w, bias, residual, y, stream);
    if (ws_bytes < p->ws_bytes || (p->ws_bytes && !workspace)) return SAMRT_E_INVALID_ARG;
    if (cudnnSetStream(p->dnn, stream) != CUDNN_STATUS_SUCCESS) return SAMRT_E_CUDA;
    const float one = 1.0f, zero = 0.0f;
    if (cudnnConvolutionForward(p->dnn, &one, p->x_desc, x, p->w_desc, w, p->conv_desc, p->algo, workspace,
                                p->ws_bytes, &zero, p->y_desc, y) != CUDNN_STATUS_SUCCESS)
        return SAMRT_E_CUDA;
    const enum samrt_epilogue_act act = samrt_epilogue_act(d->epilogue);
    if (!has_bias && !d->residual && act == SAMRT_EPILOGUE_ACT_NONE) return SAMRT_OK;
    return samrt_epilogue_cuda(d->dtype, act, &p->pass_shape, has_bias ? bias : NULL,
                               d->residual ? residual : NULL, y, stream);
}

/* ---- transposed 2x2 stride 2 ---------------------------------------------------------- */

enum samrt_status samrt_convt2x2_plan_init(const struct samrt_gpu_ctx *ctx,
                                           const struct samrt_convt2x2_desc *d, size_t ws_cap,
                                           struct samrt_convt2x2_plan *out) {
    memset(out, 0, sizeof *out);
    SAMRT_CHECK(d->n > 0 && d->c_in > 0 && d->h > 0 && d->w > 0 && d->c_out > 0, SAMRT_E_INVALID_ARG,
                "convt2x2: extents must be positive");
    out->d = *d;
    const struct samrt_gemm_desc g = samrt_convt2x2_gemm_desc(d);
    return samrt_gemm_plan_init(ctx, &g, ws_cap, &out->gemm);
}

void samrt_convt2x2_plan_free(struct samrt_convt2x2_plan *p) {
    samrt_gemm_plan_free(&p->gemm);
    memset(p, 0, sizeof *p);
}

enum samrt_status samrt_convt2x2_cuda(const struct samrt_convt2x2_plan *p, const void *x, const void *w,
                                      const void *bias, const void *residual, void *y, void *workspace,
                                      size_t ws_bytes, cudaStream_t stream) {
    const struct samrt_convt2x2_desc *d = &p->d;
    const size_t es = samrt_dtype_size(d->dtype);
    const size_t off_y = 2 * (size_t)d->w * d->c_out * es;     /* output row 2y+1 after row 2y */
    const size_t off_w = 2 * (size_t)d->c_out * d->c_in * es;  /* packed weight block dy = 1 */
    if (!w || !y || (d->residual && !residual)) return SAMRT_E_INVALID_ARG;
    for (int dy = 0; dy < 2; dy++) {
        const void *r = d->residual ? (const char *)residual + dy * off_y : NULL;
        SAMRT_TRY(samrt_gemm_cuda(&p->gemm, x, (const char *)w + dy * off_w, bias, r, (char *)y + dy * off_y,
                                  workspace, ws_bytes, stream));
    }
    return SAMRT_OK;
}
