/* conv.h - 2-D convolution (cuDNN; depthwise NHWC ones by dwconv.h's own fused kernel) and
 * the 2x2 stride-2 transposed convolution (cuBLASLt), both followed by the epilogue of
 * epilogue.h: y = act(conv(x) + b + R).
 *
 * Layout. Both NCHW and NHWC are supported for the forward convolution; the weight follows
 * the activation layout: NCHW uses PyTorch's (out, in/groups, kh, kw), NHWC uses
 * (out, kh, kw, in/groups) (samrt_conv_pack_nhwc converts at load; for a depthwise conv the
 * two are the same bytes). NHWC is the layout the models should use: the Hiera trunk, the
 * neck's tokens, the fuser's per-pixel Linear and LayerNorm2d all read channels-last, and
 * cuDNN's f16/bf16 tensor-core kernels are native NHWC (an NCHW call transposes internally).
 * NCHW stays for parity tests against PyTorch dumps. A 1x1 stride-1 conv in NHWC is a Linear:
 * samrt_gemm on (N*H*W, C_in) is the same arithmetic with fused epilogues.
 *
 * Algorithm choice at setup: cudnnFindConvolutionForwardAlgorithmEx (timed, when the caller
 * lends buffers) or cudnnGetConvolutionForwardAlgorithm_v7 (heuristic), keeping only
 * algorithms whose workspace fits the cap; when the search fails (Jetson under memory
 * pressure) or nothing fits, a zero-workspace algorithm is taken. Math: f16/bf16 use
 * CUDNN_TENSOR_OP_MATH with f32 accumulation; f32 uses CUDNN_FMA_MATH, because
 * CUDNN_DEFAULT_MATH lets cuDNN 8+ pick TF32 kernels for f32 data on Ampere and later.
 *
 * cuDNN API: the legacy cudnnConvolution* calls (cudnn_cnn.h) are deprecated in cuDNN 9 but
 * present in every 9.x (9.3 on JetPack 6 included). They are declared with CUDNN_DEPRECATED,
 * which expands to an attribute only when CUDNN_WARN_DEPRECATED is defined, so they build
 * without warnings; conv.c never defines it.
 *
 * Transposed 2x2 stride 2 (mask decoder upscaling, NHWC only): out[2y+dy, 2x+dx, o] =
 * b[o] + sum_i in[y, x, i] W[i, o, dy, dx]. For fixed dy, the output pixels (2y+dy, 2x+dx)
 * of one input row y form a row-major (W_in, 2*C_out) matrix with rows 2*C_out apart, and
 * those matrices sit 4*W_in*C_out apart for consecutive y. So the op is two strided-batch
 * GEMMs (dy = 0, 1; batch = N*H_in; X rows are the input pixels) writing straight into the
 * final layout: exact, no scratch, no pixel-shuffle kernel, and cuBLASLt's epilogues apply.
 * samrt_conv_pack_transpose2x2 rearranges the weight to (2, 2*C_out, C_in) and the bias to
 * (2*C_out) at load.
 *
 *   struct samrt_conv_desc d = samrt_conv_desc_make(1, 256, 64, 64, 256, 7, 1, 3, 256,
 *                                                   SAMRT_CONV_NHWC, SAMRT_DTYPE_BF16,
 *                                                   SAMRT_EPILOGUE_BIAS);
 *   struct samrt_conv_plan p;
 *   SAMRT_TRY(samrt_conv_plan_init(&ctx, &d, ws_cap, NULL, &p));          // init
 *   SAMRT_TRY(samrt_conv_cuda(&p, x, w, b, NULL, y, ws, ws_cap, stream));   // every frame
 *   samrt_conv_plan_free(&p);
 */
#ifndef SAMRT_KERNELS_CONV_H
#define SAMRT_KERNELS_CONV_H

#include "dwconv.h"
#include "gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum samrt_conv_layout { SAMRT_CONV_NCHW = 0, SAMRT_CONV_NHWC };

struct samrt_conv_desc {
    int n, c_in, h, w;          /* input (N, C_in, H, W) in `layout` */
    int c_out, kh, kw;
    int stride_h, stride_w;
    int pad_h, pad_w;           /* zero padding on each side */
    int groups;                 /* 1; c_in = c_out = groups is depthwise */
    enum samrt_conv_layout layout;   /* of x, y, R and the weight */
    enum samrt_dtype dtype;     /* x, w, y, bias and R: f32, f16 or bf16 */
    enum samrt_epilogue epilogue;
    int residual;               /* 1: R (y's shape) is added before the activation */
    int allow_tf32;             /* TEST ONLY: f32 through TF32 (proves the guard can fail) */
    int force_library;          /* BENCH/TEST: cuDNN even where dwconv.h's own kernel applies */
};

/* Square kernel, stride and padding; no residual. */
struct samrt_conv_desc samrt_conv_desc_make(int n, int c_in, int h, int w, int c_out, int k, int stride,
                                            int pad, int groups, enum samrt_conv_layout layout,
                                            enum samrt_dtype dtype, enum samrt_epilogue ep);
enum samrt_status samrt_conv_desc_check(const struct samrt_conv_desc *d);
/* Output height and width (PyTorch's floor rule). */
void samrt_conv_out_hw(const struct samrt_conv_desc *d, int *ho, int *wo);
/* Element counts of x, w, y. */
int64_t samrt_conv_x_elems(const struct samrt_conv_desc *d);
int64_t samrt_conv_w_elems(const struct samrt_conv_desc *d);
int64_t samrt_conv_y_elems(const struct samrt_conv_desc *d);
double samrt_conv_flops(const struct samrt_conv_desc *d);   /* 2 * MACs */
/* The epilogue's view of y: NCHW rows are (n, channel) planes with a per-row bias, NHWC rows
 * are pixels with a per-column bias. */
struct samrt_epilogue_shape samrt_conv_epilogue_shape(const struct samrt_conv_desc *d);

/* Reference on f32 data in d->layout (weight layout as above); bias / residual NULL when
 * the desc has none. */
void samrt_conv_ref(const struct samrt_conv_desc *d, const float *x, const float *w, const float *bias,
                    const float *residual, float *y);

/* 1 when d is a depthwise NHWC conv that dwconv.h describes (square kernel, stride and
 * padding; force_library unset), with *out filled; else 0. */
int samrt_conv_as_dwconv(const struct samrt_conv_desc *d, struct samrt_dwconv_desc *out);

/* Weight (c_out, cpg, kh, kw) -> (c_out, kh, kw, cpg), cpg = c_in/groups (load time). */
void samrt_conv_pack_nhwc(int c_out, int cpg, int kh, int kw, const float *w, float *out);

/* ---- transposed 2x2 stride 2 (NHWC) -------------------------------------------------- */

struct samrt_convt2x2_desc {
    int n, c_in, h, w;          /* input (N, H, W, C_in); output (N, 2H, 2W, C_out) */
    int c_out;
    enum samrt_dtype dtype;     /* x, packed w, y, packed bias and R */
    enum samrt_epilogue epilogue;
    int residual;
};

/* PyTorch weight (c_in, c_out, 2, 2) -> packed (2, 2*c_out, c_in) with row dx*c_out + o of
 * block dy holding W[:, o, dy, dx]; bias (c_out) -> (2*c_out) = [b, b]. bias may be NULL. */
void samrt_conv_pack_transpose2x2(int c_in, int c_out, const float *w, const float *bias, float *w_out,
                                  float *bias_out);
/* The two GEMMs' common desc (see the comment at the top). */
struct samrt_gemm_desc samrt_convt2x2_gemm_desc(const struct samrt_convt2x2_desc *d);
/* Reference on f32 data with the PyTorch weight (c_in, c_out, 2, 2) and bias (c_out). */
void samrt_convt2x2_ref(const struct samrt_convt2x2_desc *d, const float *x, const float *w,
                        const float *bias, const float *residual, float *y);

#ifdef SAMRT_HAVE_CUDA
/* Optional buffers lent to the planner for timed algorithm search (FindEx): x, w, y of the
 * conv's sizes and ws of the cap. Their contents are overwritten. */
struct samrt_conv_tune {
    void *x, *w, *y, *ws;
};

struct samrt_conv_plan {
    struct samrt_conv_desc d;
    cudnnHandle_t dnn;                        /* borrowed from the gpu ctx */
    cudnnTensorDescriptor_t x_desc, y_desc;   /* owned */
    cudnnFilterDescriptor_t w_desc;           /* owned */
    cudnnConvolutionDescriptor_t conv_desc;   /* owned */
    cudnnConvolutionFwdAlgo_t algo;
    cudnnMathType_t math;                     /* the math type the algorithm runs with */
    size_t ws_bytes;                          /* workspace the algorithm needs (<= cap) */
    int ho, wo;
    int own_dw;                               /* 1: dwconv.h's kernel runs it when the pointers
                                                 are aligned; cuDNN stays planned for the rest */
    struct samrt_dwconv_desc dw;
    struct samrt_epilogue_shape pass_shape;   /* bias/residual/activation after cuDNN */
    int n_kernels;                            /* kernels one samrt_conv_cuda call launches with
                                                 aligned pointers (cuDNN's layout transforms
                                                 and our pass included; counted by capture) */
};

/* Describes the conv to cuDNN and chooses the algorithm (workspace <= ws_cap). tune may be
 * NULL (heuristic choice). On failure nothing stays allocated. */
enum samrt_status samrt_conv_plan_init(const struct samrt_gpu_ctx *ctx, const struct samrt_conv_desc *d,
                                       size_t ws_cap, const struct samrt_conv_tune *tune,
                                       struct samrt_conv_plan *out);
void samrt_conv_plan_free(struct samrt_conv_plan *p);
/* Runs cuDNN then the epilogue pass on `stream`, or for a depthwise NHWC conv the fused
 * kernel of dwconv.h (one launch, no workspace). Allocates nothing, logs nothing. */
enum samrt_status samrt_conv_cuda(const struct samrt_conv_plan *p, const void *x, const void *w,
                                  const void *bias, const void *residual, void *y, void *workspace,
                                  size_t ws_bytes, cudaStream_t stream);

struct samrt_convt2x2_plan {
    struct samrt_convt2x2_desc d;
    struct samrt_gemm_plan gemm;   /* run twice: dy = 0 and dy = 1 */
};
enum samrt_status samrt_convt2x2_plan_init(const struct samrt_gpu_ctx *ctx,
                                           const struct samrt_convt2x2_desc *d, size_t ws_cap,
                                           struct samrt_convt2x2_plan *out);
void samrt_convt2x2_plan_free(struct samrt_convt2x2_plan *p);
/* w and bias are the packed forms (samrt_conv_pack_transpose2x2). */
enum samrt_status samrt_convt2x2_cuda(const struct samrt_convt2x2_plan *p, const void *x, const void *w,
                                      const void *bias, const void *residual, void *y, void *workspace,
                                      size_t ws_bytes, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_CONV_H */
