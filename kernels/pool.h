/* pool.h - pooling over channels-last token maps:
 *   samrt_pool_max2x2: 2x2 stride-2 max pool, Hiera's q-pool;
 *   samrt_pool_mean:   the mean of every channel over all tokens (global average pool),
 *                      the squeeze of RepViT's squeeze-excite (x.mean((2, 3)) on NCHW).
 *
 * Max pool: hieradet.py do_pool: nn.MaxPool2d(2, 2, ceil_mode=False) on the NCHW view of
 * (B, H, W, C). Output (B, H/2, W/2, C), rounded down: an odd last row or column is
 * dropped (floor mode). NaN propagates like PyTorch's max pool. Only channels-last is
 * provided: no model here max-pools an NCHW tensor.
 *
 * Tokens may sit at a stride larger than C, so the two uses read their input in place:
 *   - block shortcut: MaxPool(proj(norm1(x))) on the full map, s_in_tok = C;
 *   - attention q-pool: q is the first third of each token of the qkv buffer of a window
 *     batch (B = n_windows, H = W = window size), s_in_tok = 3 * C.
 * Pooling each even-sized window is the same as pooling the padded full map.
 *
 * Usage (device pointers; out must not overlap x):
 *   struct samrt_pool_args a = {SAMRT_DTYPE_BF16, n_win, ws, ws, 192, 3 * 192, 0, qkv, q};
 *   SAMRT_TRY(samrt_pool_max2x2_cuda(&a, stream));
 */
#ifndef SAMRT_KERNELS_POOL_H
#define SAMRT_KERNELS_POOL_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_pool_args {
    enum samrt_dtype dtype;  /* of x and out */
    int64_t n_batch;
    int32_t h, w;            /* input map; output is (h/2, w/2) */
    int32_t n_channels;
    int64_t s_in_tok;        /* elements from one input token to the next; 0 = n_channels */
    int64_t s_out_tok;       /* elements from one output token to the next; 0 = n_channels */
    const void *x;           /* (n_batch, h, w) tokens of n_channels values */
    void *out;               /* (n_batch, h/2, w/2) tokens */
};

/* SAMRT_E_INVALID_ARG for NULL tensors, non-positive sizes or strides below n_channels;
 * SAMRT_E_UNSUPPORTED for a dtype other than f32/f16/bf16. */
enum samrt_status samrt_pool_check(const struct samrt_pool_args *a);
enum samrt_status samrt_pool_max2x2_ref(const struct samrt_pool_args *a);

/* Mean over tokens: x (n_batch, n_tokens, n_channels) contiguous -> out (n_batch,
 * n_channels), both in dtype; the sum is accumulated in fp32 or wider and divided by n_tokens
 * once, then rounded to dtype. */
struct samrt_pool_mean_args {
    enum samrt_dtype dtype;  /* of x and out */
    int64_t n_batch;
    int64_t n_tokens;
    int32_t n_channels;
    const void *x;
    void *out;               /* must not overlap x */
    /* CUDA only: the token range is split over n_split blocks per channel group, each writing
     * f32 partial sums to partial (n_batch, n_split, n_channels), then one fixed-order pass
     * adds them (deterministic). n_split <= 1 (or partial NULL): one block reads every token. */
    int32_t n_split;
    float *partial;
};
/* The split the op layer plans for a map of n_tokens (about 512 tokens a block, at most
 * SAMRT_POOL_MEAN_MAX_SPLIT): the same on every backend and machine. */
#define SAMRT_POOL_MEAN_MAX_SPLIT 64
int32_t samrt_pool_mean_splits(int64_t n_tokens);
/* SAMRT_E_INVALID_ARG for NULL tensors or non-positive sizes (n_tokens * n_channels must fit
 * in 31 bits), SAMRT_E_UNSUPPORTED for a dtype other than f32/f16/bf16. */
enum samrt_status samrt_pool_mean_check(const struct samrt_pool_mean_args *a);
/* Accumulates in double (the reference is the more exact side). */
enum samrt_status samrt_pool_mean_ref(const struct samrt_pool_mean_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_pool_max2x2_cuda(const struct samrt_pool_args *a, cudaStream_t stream);
/* Blocks of (32 channels, a token range); fp32 partial sums per thread, a fixed-order tree
 * over the block, and with a split, a second launch adding the ranges in order
 * (deterministic). */
enum samrt_status samrt_pool_mean_cuda(const struct samrt_pool_mean_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_POOL_H */
