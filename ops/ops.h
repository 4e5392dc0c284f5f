/* ops.h - the model-facing op layer: every layer of a forward pass is one call here. An op
 * takes the model context, input tensors (views) and weights, and returns its output as a
 * new tensor from the executor (ops/exec.h). The same forward function therefore runs
 * twice: in PLAN mode (at engine init) each op records its output slot and the lifetimes of
 * its inputs, and creates the cuBLASLt / cuDNN plans it will need; in RUN mode (per frame)
 * it gets the committed slot back and launches, either the CUDA launcher (backend CUDA) or
 * the plain `_ref` function of kernels/ (backend CPU, used by the CPU tests).
 *
 * Layout conventions (the whole model follows them):
 *   - Activations are channels-last tokens: a feature map (B, H, W, C) is the tensor
 *     (B, H*W, C) or (B, H, W, C), token index y*W + x, channels contiguous. Hiera works in
 *     this layout natively; a 1x1 convolution is then samrt_op_linear with the conv weight
 *     (out, in, 1, 1) read as (out, in), and SAM's LayerNorm2d is samrt_op_layernorm with
 *     eps 1e-6. The official NCHW layout appears only at the edges: the model input
 *     (1, 3, H, W) from the preprocessing, NCHW convolutions where the caller chooses them,
 *     interp (which resamples NCHW planes) and the parity dumps (samrt_op_copy converts).
 *   - Weights are used as the checkpoint stores them (PyTorch layouts) unless an op says it
 *     needs a packed form (NHWC convolutions with k > 1, transposed 2x2 convolutions).
 *   - Shapes are PyTorch order (ne[0] outermost); the last dim of every input is
 *     contiguous (stride 1). Row-shaped inputs ((..., K) for linear, attention q/k/v) may
 *     have a row stride larger than K, so slices of a fused projection ([q | k | v]) are
 *     views, never copies.
 *   - Every activation has the run precision ctx->dtype (f32, f16 or bf16) unless an op
 *     says otherwise; statistics and accumulation are fp32 inside every kernel. The CPU
 *     backend runs f32 only.
 *
 * Errors. Ops return tensors, not statuses, so a forward pass reads as a list of layers.
 * The first failure is stored in ctx->ex->status (exec.h); every later op is then a no-op,
 * and samrt_ctx_end() returns that status. PLAN mode validates every shape, dtype and
 * plan (logged with SAMRT_CHECK messages); RUN mode only returns launcher statuses.
 *
 *   struct samrt_op_ctx c;
 *   samrt_ctx_init_backend(&c, SAMRT_BACKEND_CUDA, SAMRT_DTYPE_BF16, &gpu, &exec, &plan);
 *   samrt_ctx_begin(&c, SAMRT_EXEC_PLAN, NULL);  forward(&c);  samrt_ctx_end(&c);  // init
 *   ... samrt_plan_finalize, samrt_arena_commit ...
 *   samrt_ctx_begin(&c, SAMRT_EXEC_RUN, &arena); forward(&c);  samrt_ctx_end(&c);  // frame
 *   samrt_ctx_free(&c);
 * and inside forward:
 *   struct samrt_tensor h = samrt_op_layernorm(c, "blk.norm1", &x, w1, b1, NULL, 1e-6f, NULL);
 *   struct samrt_tensor y = samrt_op_linear(c, "blk.fc1", &h, fc1_w, fc1_b, SAMRT_ACT_GELU, NULL);
 */
#ifndef SAMRT_OPS_H
#define SAMRT_OPS_H

#include "bn_fold.h"      /* SAMRT_BN_EPS, for the networks' samrt_op_host_bn_fold_* */
#include "conv.h"
#include "elementwise.h"
#include "exec.h"
#include "gemm.h"
#include "interp.h"       /* enum samrt_interp_mode, the mode of samrt_op_interp */
#include "ref_util.h"     /* the element access of samrt_op_host_store */

#ifdef __cplusplus
extern "C" {
#endif

enum samrt_backend { SAMRT_BACKEND_CPU = 0, SAMRT_BACKEND_CUDA };

#define SAMRT_OPS_MAX_PLANS 256   /* distinct GEMM / conv plans per context (shared by shape) */
#define SAMRT_OPS_MAX_CALLS 2048  /* plan-using op calls per forward pass */

/* Observer of intermediate tensors (parity dumps). Called in RUN mode right after the op
 * that produced `t` was enqueued; the callee may synchronise the stream and copy t out.
 * Never set while a CUDA graph is captured. */
typedef enum samrt_status (*samrt_tap_fn)(void *user, const char *name, const struct samrt_tensor *t);

/* One GEMM or convolution plan; kind says which member is live. */
enum samrt_ctx_plan_kind { SAMRT_OPS_PLAN_GEMM = 1, SAMRT_OPS_PLAN_CONV, SAMRT_OPS_PLAN_CONVT };
struct samrt_ctx_plan {
    enum samrt_ctx_plan_kind kind;
    struct samrt_gemm_desc gemm;       /* the descs the plan was made for (also the key) */
    struct samrt_conv_desc conv;
    struct samrt_convt2x2_desc convt;
#ifdef SAMRT_HAVE_CUDA
    struct samrt_gemm_plan g;          /* owned */
    struct samrt_conv_plan cv;         /* owned */
    struct samrt_convt2x2_plan ct;     /* owned */
#endif
};

/* The work a pass asks of its backend, summed over its ops by its PLAN pass (samrt budget's
 * frame): kernel launches of the CUDA backend (a cuBLASLt or cuDNN call counts as the one kernel
 * it runs, plus our epilogue pass where the library cannot fuse the epilogue; a split-K
 * attention counts its combine, a RoPE'd one its rotation pre-passes), floating-point
 * operations (a multiply-add is 2) and compulsory DRAM bytes (every tensor a launch reads or
 * writes, once per launch, weights included; no cache assumed). Recorded whatever the build,
 * so a CPU build plans a GPU frame exactly as a CUDA build does. */
struct samrt_op_cost {
    int64_t launches;
    double flops, bytes;
    double roof_s;    /* projected time: per op max(flops / peak, bytes / bandwidth) plus its launches
                         times the per-launch cost, at the context's peaks (0 without peaks) */
};

/* The projected time of work of `flops` and `bytes` in `launches` launches at the given rates
 * (runtime/projection.h gives a profile's): max(flops / flops_s, bytes / bytes_s) plus
 * launches x launch_s; 0 without rates. One rule for the ops and the runtime's own launches. */
static inline double samrt_op_roof_s(double flops, double bytes, int64_t launches, double flops_s, double bytes_s,
                                     double launch_s) {
    if (flops_s <= 0 || bytes_s <= 0) return 0.0;
    const double t_f = flops / flops_s, t_b = bytes / bytes_s;
    return (t_f > t_b ? t_f : t_b) + (double)launches * launch_s;
}

struct samrt_op_ctx {
    enum samrt_backend backend;
    enum samrt_dtype dtype;            /* run precision of activations and weights */
    struct samrt_exec *ex;             /* borrowed; this context's passes run on it */
    struct samrt_plan *plan;           /* borrowed; PLAN passes add their slots here */
    int *step_base;                    /* borrowed, may be NULL: where the next PLAN pass
                                          starts counting steps, so the scratch of two
                                          contexts planned one after the other can share */
#ifdef SAMRT_HAVE_CUDA
    const struct samrt_gpu_ctx *gpu;   /* borrowed; NULL on the CPU backend */
    cudaStream_t stream;
#endif
    void *ws_lt;                       /* cuBLASLt workspace (arena slot), RUN only */
    size_t ws_lt_bytes;
    void *ws_dnn;                      /* cuDNN workspace (arena slot), RUN only */
    size_t ws_dnn_bytes;
    samrt_tap_fn tap;                  /* NULL: no taps */
    void *tap_user;

    /* Plans, made in PLAN mode and reused by shape; calls[i] is the plan of the i-th
     * plan-using op of the pass, so RUN mode finds its plan by position. */
    struct samrt_ctx_plan *plans;      /* SAMRT_OPS_MAX_PLANS, host heap (setup only) */
    int n_plans;
    int calls[SAMRT_OPS_MAX_CALLS];
    int n_calls, i_call;
    int attn_ready;                    /* samrt_attention_init_cuda done */
    int sm_count;                      /* SMs the plan assumes (the platform profile's); 0 = the GPU's */
    struct samrt_op_cost cost;         /* of the last PLAN pass (CUDA backend; zero on the CPU one) */
    double peak_flops, peak_bytes_s;   /* the platform's published peaks (cost.roof_s); 0: none */
    double launch_s;                   /* a launch's cost beyond its roofline */
};

/* Sets up a context. gpu is required for the CUDA backend (pass NULL for CPU). The plan
 * table is allocated here (host, setup only). */
#ifdef SAMRT_HAVE_CUDA
enum samrt_status samrt_ctx_init_backend(struct samrt_op_ctx *c, enum samrt_backend backend,
                                       enum samrt_dtype dtype, const struct samrt_gpu_ctx *gpu,
                                       struct samrt_exec *ex, struct samrt_plan *plan);
#else
enum samrt_status samrt_ctx_init_backend(struct samrt_op_ctx *c, enum samrt_backend backend,
                                       enum samrt_dtype dtype, const void *gpu, struct samrt_exec *ex,
                                       struct samrt_plan *plan);
#endif
/* Frees the plans (cuBLASLt / cuDNN descriptors) and the table. */
void samrt_ctx_free(struct samrt_op_ctx *c);
/* Starts a pass; arena is the committed arena in RUN mode (NULL in PLAN mode). */
void samrt_ctx_begin(struct samrt_op_ctx *c, enum samrt_exec_mode mode, const struct samrt_arena *arena);
/* 1 when SAMRT_COST_TRACE=1: PLAN passes list their ops' launches on stderr ("plan pass <ctx>",
 * then "plan op <op>: <n> launches"), for matching a frame's plan with its graph. */
int samrt_ctx_cost_tracing(void);
/* Ends a pass: the first error of the pass, or a mismatch between the RUN and PLAN passes. */
enum samrt_status samrt_ctx_end(struct samrt_op_ctx *c);
/* Records a failure from model code (a shape check): logs nothing, later ops become no-ops. */
void samrt_ctx_fail(struct samrt_op_ctx *c, enum samrt_status st);
/* Copies bytes on the context's backend: cudaMemcpyAsync (cudaMemcpyDefault) on c's stream
 * for the CUDA backend -- from pageable host memory it returns once the source is staged, so
 * the host buffer is free again -- and memcpy for the CPU backend. */
enum samrt_status samrt_ctx_memcpy(const struct samrt_op_ctx *c, void *dst, const void *src, size_t bytes);
/* Copies arena bytes to host memory and returns once they are there: cudaMemcpy
 * (cudaMemcpyDefault, on the legacy stream, which orders after the engine's blocking work
 * stream) for the CUDA backend, memcpy for the CPU backend. For results read back after a
 * pass (host rows, taps). */
enum samrt_status samrt_ctx_fetch(const struct samrt_op_ctx *c, void *dst, const void *src, size_t bytes);
/* Waits until the work enqueued on c's stream is done (CUDA backend); returns at once on the
 * CPU backend, whose work is done when it returns. */
enum samrt_status samrt_ctx_sync(const struct samrt_op_ctx *c);
/* Points c's later work at the stream of its GPU context (the engine's work stream); no
 * stream on the CPU backend. */
void samrt_ctx_use_gpu_stream(struct samrt_op_ctx *c);
static inline int samrt_ctx_ok(const struct samrt_op_ctx *c) { return c->ex->status == SAMRT_OK; }
/* 1 in a RUN pass without error when a tap observer is set: the taps' views are worth making. */
static inline int samrt_ctx_tapping(const struct samrt_op_ctx *c) { return c->tap && samrt_exec_running(c->ex); }

/* A persistent tensor (weights-derived constants, state, staging) added straight to the plan
 * at setup, outside any pass: *t gets the shape with no data, *slot the slot to resolve with
 * samrt_arena_ptr after commit. Passes may read and write it; its bytes are never shared. */
enum samrt_status samrt_ctx_persistent(struct samrt_op_ctx *c, const char *name, enum samrt_region region,
                                       enum samrt_dtype dtype, int n_dims, const int64_t *ne,
                                       struct samrt_tensor *t, int *slot);
/* A new scratch tensor of `dtype`, for ops written in model code. */
struct samrt_tensor samrt_op_new(struct samrt_op_ctx *c, const char *name, enum samrt_dtype dtype,
                                 int n_dims, const int64_t *ne);
/* Passes t to the tap observer under `name` (RUN mode, when one is set). */
void samrt_op_tap(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *t);

/* ---- dense layers ------------------------------------------------------------------------ */

/* y = act(x W^T + b + residual): x (..., K) with contiguous rows (row stride may exceed K,
 * every leading dim collapses to rows at that stride), W (N, K) as nn.Linear stores it (or a
 * 1x1 conv weight (N, K, 1, 1)), b (N) or NULL, residual (..., N) contiguous or NULL. GELU is
 * the exact erf form. Output (..., N) contiguous. An activation needs a bias. */
struct samrt_tensor samrt_op_linear(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                    const struct samrt_tensor *w, const struct samrt_tensor *b,
                                    enum samrt_act act, const struct samrt_tensor *residual);
/* Same, written into an existing contiguous tensor `out` (persistent outputs); residual must
 * not alias out. */
void samrt_op_linear_into(struct samrt_op_ctx *c, const struct samrt_tensor *x, const struct samrt_tensor *w,
                          const struct samrt_tensor *b, enum samrt_act act, const struct samrt_tensor *residual,
                          const struct samrt_tensor *out);

/* LayerNorm over the last dim of a contiguous x (..., C). With a residual r:
 * s = x + r (rounded to the dtype) is normalised, and written to *sum_out (a new tensor)
 * when sum_out is not NULL. w, b may be NULL (identity). eps: 1e-6 Hiera / LN2d, 1e-5 else. */
struct samrt_tensor samrt_op_layernorm(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                       const struct samrt_tensor *w, const struct samrt_tensor *b,
                                       const struct samrt_tensor *residual, float eps,
                                       struct samrt_tensor *sum_out);
/* SAM's LayerNorm2d on an NCHW tensor (N, C, H, W), then act; optional residual before. */
struct samrt_tensor samrt_op_layernorm2d(struct samrt_op_ctx *c, const char *name,
                                         const struct samrt_tensor *x, const struct samrt_tensor *w,
                                         const struct samrt_tensor *b, const struct samrt_tensor *residual,
                                         float eps, enum samrt_act act);

/* ---- pointwise ---------------------------------------------------------------------------- */

/* out = alpha * act(x) + beta, x contiguous. */
struct samrt_tensor samrt_op_unary(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                   enum samrt_act act, float alpha, float beta);
/* out = a * x + b * y (x, y contiguous, same shape); samrt_op_add is a = b = 1. */
struct samrt_tensor samrt_op_add_scaled(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                        const struct samrt_tensor *y, float a, float b);
struct samrt_tensor samrt_op_add(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                 const struct samrt_tensor *y);
/* out = x * scale[ch] + bias[ch] + residual; the channel is the last dim (channels_last 1)
 * or dim 1 of (N, C, H, W) (channels_last 0). scale, bias, residual may be NULL. */
struct samrt_tensor samrt_op_channel_affine(struct samrt_op_ctx *c, const char *name,
                                            const struct samrt_tensor *x, const struct samrt_tensor *scale,
                                            const struct samrt_tensor *bias, const struct samrt_tensor *residual,
                                            int channels_last);
/* out = act(x * scale[ch] + bias[ch]) + residual. scale and bias may be f32 on a 16-bit x: an
 * eval BatchNorm applied after its conv in fp32 math, as autocast does (models/edgetam/repvit.c). */
struct samrt_tensor samrt_op_channel_affine_act(struct samrt_op_ctx *c, const char *name,
                                                const struct samrt_tensor *x, const struct samrt_tensor *scale,
                                                const struct samrt_tensor *bias, const struct samrt_tensor *residual,
                                                int channels_last, enum samrt_act act);

/* ---- convolutions ------------------------------------------------------------------------- */

/* 2-D convolution with bias and an optional activation (GELU / ReLU). layout NCHW: x is
 * (N, C, H, W) and w (out, in/groups, kh, kw) as the checkpoint stores it; layout NHWC: x is
 * (N, H, W, C), w packed (out, kh, kw, in/groups) (samrt_conv_pack_nhwc; the same bytes for
 * depthwise and 1x1). Output in x's layout. */
struct samrt_tensor samrt_op_conv2d(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                    const struct samrt_tensor *w, const struct samrt_tensor *b, int stride,
                                    int pad, int groups, enum samrt_conv_layout layout, enum samrt_act act);
/* A depthwise NHWC conv (no bias) with its eval BatchNorm applied after the output is
 * rounded, as bf16 autocast runs conv -> BN (models/edgetam/repvit.c, ops/conv.c): y =
 * act(conv(x) * s + sh) + residual, the conv output rounded first and the rest rounded once;
 * with w1, s1, sh1 a RepVggDw, BN(conv(x)) + BN1(x * w1) + x, rounded after each term as the
 * chain of ops stores them. x (N, H, W, C), w (C, k, k, 1) of x's dtype; one launch of
 * kernels/dwconv.h's bn form where it takes the tensors, else the unfused chain (conv2d,
 * channel_affine, add), which gives the same bits. */
struct samrt_op_dwconv_bn_args {
    int stride, pad;
    const struct samrt_tensor *s, *sh;        /* f32 (C): the BatchNorm after the k x k conv */
    const struct samrt_tensor *w1, *s1, *sh1; /* RepVggDw (stride 1, pad k/2): the 1x1 weight (C)
                                                 of x's dtype and its f32 BatchNorm; NULL else */
    const struct samrt_tensor *residual;      /* y's shape, or NULL; not with w1 */
    enum samrt_act act;                       /* NONE, GELU or RELU, before the residual; not with w1 */
    int unfused;                              /* TEST/BENCH: the chain of ops even where the
                                                 fused kernel applies */
};
struct samrt_tensor samrt_op_dwconv_bn(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                       const struct samrt_tensor *w, const struct samrt_op_dwconv_bn_args *a);
/* ConvTranspose2d(k 2, stride 2) on NHWC x (N, H, W, C_in) -> (N, 2H, 2W, C_out), with the
 * packed weight (2, 2*C_out, C_in) and bias (2*C_out) of samrt_conv_pack_transpose2x2. */
struct samrt_tensor samrt_op_convt2x2(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                      const struct samrt_tensor *w_packed, const struct samrt_tensor *b_packed,
                                      int c_out, enum samrt_act act);

/* ---- attention ---------------------------------------------------------------------------- */

/* Multi-head SDPA, heads contiguous inside a token: q (B, Lq, n_head*d_qk), k (B, Lk,
 * n_head*d_qk), v (B, Lk, n_head*d_v), each with contiguous channels and any token / batch
 * stride (slices of a fused qkv are fine). Output (B, Lq, n_head*d_v) contiguous.
 * Window mode (win_q > 0, Hiera): q/o tokens address the unpadded (q_h, q_w) map and k/v the
 * (k_h, k_w) map, windows of win_q / win_k; padded key tokens take pad_k / pad_v (the k and
 * v slices of the qkv bias, (n_head*d) vectors). RoPE (f32 tables of kernels/rope.h, as
 * tensors so that PLAN mode sees them before they hold data) and windows do not combine.
 * The split-K count comes from the GPU's SM count; its fp32 partials and the rotated q/k
 * copies live in a scratch workspace tensor planned with the op. */
struct samrt_op_attn_args {
    int n_head;
    int d_qk, d_v;                 /* per head */
    float scale;                   /* 0: 1/sqrt(d_qk) */
    int win_q, win_k;              /* 0: no windows */
    int q_h, q_w, k_h, k_w;
    const struct samrt_tensor *pad_k, *pad_v;
    const struct samrt_tensor *rope_q, *rope_k;  /* f32 tables (rope.h); NULL: no rotation */
    int rope_k_period, rope_k_skip;
    int64_t rope_n_k;
};
struct samrt_tensor samrt_op_attention(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *q,
                                       const struct samrt_tensor *k, const struct samrt_tensor *v,
                                       const struct samrt_op_attn_args *a);
/* Multi-head SDPA where batch item b attends over its first n_keys[b] keys only (the SAM
 * heads' prompt tokens: each object has its own count). q (B, Lq, n_head*d), k and v (B, T,
 * n_head*d) with contiguous channels and any token / batch stride; 1 <= n_keys[b] <= T, read
 * in RUN mode (PLAN mode checks the full length). One batch-1 launch per item, no split, no
 * workspace. Output (B, Lq, n_head*d) contiguous. */
struct samrt_tensor samrt_op_attention_key_prefix(struct samrt_op_ctx *c, const char *name,
                                                  const struct samrt_tensor *q, const struct samrt_tensor *k,
                                                  const struct samrt_tensor *v, int n_head, int d,
                                                  const int32_t *n_keys);

/* RoPE on the rows of x (B, L, n_head*d), contiguous channels, any token / batch stride: token t
 * turns by table row samrt_rope_row(t, period, skip, n_rope) (kernels/rope.h: the table repeats
 * every `period` tokens, the first `skip` of each period and tokens from n_rope on are copied),
 * in fp32, stored in x's dtype. Output: `out` (x's shape and dtype, contiguous; may be x
 * itself: in place) or, when out is NULL, a new contiguous tensor. For keys that are rotated
 * before anything else reads them (EfficientTAM's pooled memory keys); attention rotates its
 * own q and k (samrt_op_attn_args). */
struct samrt_tensor samrt_op_rope(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x, int n_head,
                                  const struct samrt_tensor *table, int period, int skip, int64_t n_rope,
                                  const struct samrt_tensor *out);

/* RoPE + 2x2 average pool in one pass (kernels/rope.h samrt_rope_pool_params): x (B, n_mem *
 * grid^2 + n_tail, D) with contiguous channels, n_mem maps of grid x grid tokens (grid even)
 * then n_tail rows -> a new contiguous (B, rep * n_mem * grid^2/4 + n_tail, D): each pooled row
 * rep times, then the tail rows as they are. Each token is rotated by table row token-in-map
 * (table (grid^2, D/2, 2) f32; NULL: no rotation) and rounded to x's dtype, four averaged in
 * fp32, bias added, rounded once: the numerics of samrt_op_rope followed by the 2x2 stride-2
 * depthwise conv (weights 1/4) with that bias. EfficientTAM's pooled memory keys and inputs. */
struct samrt_tensor samrt_op_rope_pool(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                       const struct samrt_tensor *table, int n_mem, int grid, int64_t n_tail,
                                       float bias, int rep);

/* ---- position encodings ------------------------------------------------------------------- */

/* The 1-D sine encoding of n_pos positions pos (f32, contiguous, >= n_pos values) -> (n_pos,
 * dim) in the run dtype (kernels/sine_pe.h, get_1d_sine_pe). */
struct samrt_tensor samrt_op_sine_pe_1d(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *pos,
                                        int n_pos, int dim);

/* ---- resampling and data movement --------------------------------------------------------- */

/* 2x2 stride-2 max pool of a channels-last map x (B, H, W, C) (channel stride 1, token
 * stride x->s[2] may exceed C) -> (B, H/2, W/2, C) contiguous. */
struct samrt_tensor samrt_op_maxpool2x2(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x);

/* Mean of every channel over the tokens of a contiguous channels-last x (B, ..., C)
 * (RepViT's squeeze: x.mean((2, 3)) of the NCHW map) -> (B, C). */
struct samrt_tensor samrt_op_channel_mean(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x);

/* F.interpolate on NCHW planes: x (N, C, H, W) contiguous -> (N, C, h_out, w_out) in
 * dtype `out_dtype` (nearest / bilinear / bicubic A=-0.75, align_corners False). */
struct samrt_tensor samrt_op_interp(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                    int mode /* enum samrt_interp_mode */, int h_out, int w_out,
                                    enum samrt_dtype out_dtype);

/* out = convert(x) (+ add): x any strided view of up to 4 dims, out a new contiguous tensor
 * of x's shape in `out_dtype`; `add` (out's shape, contiguous, out_dtype) may be NULL.
 * Permute first with samrt_tensor_permute to change the layout (NCHW <-> NHWC). */
struct samrt_tensor samrt_op_copy(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *x,
                                  enum samrt_dtype out_dtype, const struct samrt_tensor *add);
/* Same into an existing contiguous tensor out (out's shape equals x's). */
void samrt_op_copy_into(struct samrt_op_ctx *c, const struct samrt_tensor *x, const struct samrt_tensor *add,
                        const struct samrt_tensor *out);

/* ---- host tables and prepare-time math (ops_host.c) ---------------------------------------- */

/* Constants a network computes once at prepare (position encodings, resized embeddings,
 * folded or packed weights) and the host side of parity taps: computed on the host with the C references of kernels/
 * whatever the backend, so a table holds the same values on every backend. Outputs are
 * host buffers of f32 unless a dtype is given (then rounded once to it). */

/* The 2-D sine encoding of an (h, w) grid as channels-last tokens (h*w, n_feats) in dtype. */
enum samrt_status samrt_op_host_sine_pe(enum samrt_dtype dtype, int n_feats, int h, int w, void *out);
/* The random-Fourier encoding of an (h, w) grid (get_dense_pe) as tokens (h*w, 2*n_feats);
 * gauss (2, n_feats). */
enum samrt_status samrt_op_host_fourier_pe_dense(int n_feats, const float *gauss, int h, int w, float *out);
/* The random-Fourier encoding of n_points (x, y) coords (+ offset, normalised by img_w,
 * img_h) -> (n_points, 2*n_feats). */
enum samrt_status samrt_op_host_fourier_pe_points(int n_feats, const float *gauss, int n_points, const float *coords,
                                                   float offset, float img_w, float img_h, float *out);
/* F.interpolate of n_planes f32 planes (h_in, w_in) -> (h_out, w_out), as samrt_op_interp. */
enum samrt_status samrt_op_host_interp(int mode /* enum samrt_interp_mode */, int n_planes, int h_in, int w_in,
                                        int h_out, int w_out, const float *x, float *y);
/* The RoPE table of kernels/rope.h (the f32 cos / sin rows samrt_op_attention's rope_q /
 * rope_k read) for a dim-channel head over an end_x x end_y grid: its length in floats, and
 * the table itself. */
size_t samrt_op_host_rope_table_floats(int dim, int end_x, int end_y);
enum samrt_status samrt_op_host_rope_table(float *table, int dim, int end_x, int end_y, float theta);
/* Eval BatchNorm folded into the conv before it, and RepVggDw into one depthwise 3x3
 * (kernels/bn_fold.h, same arguments): prepare-time weight math, in double, rounded once. */
enum samrt_status samrt_op_host_bn_fold_conv(int64_t c_out, int64_t per_out, const float *w, const float *b,
                                             const float *g, const float *beta, const float *mean, const float *var,
                                             float eps, float *w_out, float *b_out);
void samrt_op_host_bn_fold_repvgg_dw(int64_t c, const float *w3, const float *b3, const float *w1, const float *b1,
                                     float *w_out, float *b_out);
/* A ConvTranspose2d(k 2, stride 2) weight (c_in, c_out, 2, 2) and bias (c_out, or NULL) in the
 * packed forms samrt_op_convt2x2 takes (kernels/conv.h). */
void samrt_op_host_pack_convt2x2(int c_in, int c_out, const float *w, const float *bias, float *w_out,
                                 float *bias_out);

/* 1 for the run precisions ops take as activations and weights (f32, f16, bf16). */
static inline int samrt_op_dtype_ok(enum samrt_dtype dt) { return ref_dtype_ok(dt); }
/* Element i of a host buffer of dtype dt set to v, rounded once (round to nearest even):
 * how prepare code writes f32 values into a run-precision upload. */
static inline void samrt_op_host_store(enum samrt_dtype dt, void *p, int64_t i, float v) { ref_store(dt, p, i, v); }

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_OPS_H */
