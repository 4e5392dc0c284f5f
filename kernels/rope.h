/* rope.h - 2-D axial rotary position encoding (RoPE) as SAM 2 memory attention and
 * EdgeTAM's RoPEAttentionv2 use it: the cos/sin table, and a kernel that rotates the rows of
 * a strided (B, H, L, D) tensor.
 *
 * Semantics (sam2 position_encoding.py compute_axial_cis / apply_rotary_enc, EdgeTAM
 * apply_rotary_enc_v2):
 *   - a row of D channels is D/2 complex numbers z_p = (x[2p], x[2p+1]): adjacent pairs;
 *   - base frequencies f_j = 1 / theta^(4j/D), j < D/4;
 *   - grid token n of an end_x x end_y map has col = n % end_x, row = n / end_x;
 *     pairs p < D/4 turn by col * f_p, pairs p >= D/4 by row * f_{p-D/4};
 *   - z_p -> z_p * (cos a + i sin a), computed in fp32, stored back in the row's dtype
 *     (PyTorch rotates in float32 and casts back with type_as, even under bf16 autocast).
 *
 * The table is (rows, D/2, 2) floats: (cos, sin) per pair, row = grid token.
 *
 * Which table row a token uses (the repeated-memory layout of cross-attention keys):
 * tokens [0, n_rope) are cut into periods of `period` tokens (one memory frame each, the
 * table repeats per frame: rope_k_repeat); in each period the first `skip` tokens are not
 * rotated (EdgeTAM's 256 global perceiver latents) and token `skip + r` uses table row r,
 * so the table has period - skip rows. Tokens from n_rope on (object pointers) are not
 * rotated. Plain self-attention: period = n_rope = L, skip = 0.
 *
 *   SAM 2.1 cross-attn keys: period 4096, skip 0,   n_rope = L - P   (64x64 table)
 *   EdgeTAM cross-attn keys: period 512,  skip 256, n_rope = 512 * S (16x16 table)
 *
 * The fused rotate + 2x2 pool (samrt_rope_pool_*) makes EfficientTAM's pooled memory keys
 * (EfficientRoPEAttention1 / 2) in one pass over the projected keys, see below.
 */
#ifndef SAMRT_KERNELS_ROPE_H
#define SAMRT_KERNELS_ROPE_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define SAMRT_HOST_DEVICE __host__ __device__
#else
#define SAMRT_HOST_DEVICE
#endif

/* The table row used by token t, or -1 when t is not rotated (see the layout above). */
static inline SAMRT_HOST_DEVICE int samrt_rope_row(int64_t t, int period, int skip, int64_t n_rope) {
    if (t >= n_rope) return -1;
    int r = (int)(t % period);
    return r >= skip ? r - skip : -1;
}

/* Floats in the table of a dim-channel head over an end_x x end_y grid. */
size_t samrt_rope_table_floats(int dim, int end_x, int end_y);

/* Fills table (samrt_rope_table_floats floats) for grid end_x x end_y (sam2's feat_sizes
 * [w, h]; end_x = end_y = 64 at 1024 input), theta 10000 in every model. dim % 4 == 0.
 * Frequencies and angles are formed in float32 as PyTorch does (torch.outer of float32);
 * cos/sin are evaluated in double and rounded, so entries are within 1 ulp of torch.polar. */
enum samrt_status samrt_rope_table_fill(float *table, int dim, int end_x, int end_y, float theta);

struct samrt_rope_params {
    enum samrt_dtype dtype;               /* F32, F16 or BF16, src and dst alike */
    int n_batch, n_head, n_tok, dim;      /* B, H, L, D (D even) */
    const void *src;                      /* (B, H, L, D) at the strides below, channel stride 1 */
    int64_t s_src_b, s_src_h, s_src_t;
    void *dst;                            /* (B, H, L, D); may equal src (in place) */
    int64_t s_dst_b, s_dst_h, s_dst_t;
    const float *table;                   /* (period - skip, D/2, 2) cos, sin */
    int period, skip;                     /* token -> row layout, see above */
    int64_t n_rope;                       /* tokens [0, n_rope) follow the table, the rest are copied */
};

/* Validates p (no logging: also used on the run path). */
enum samrt_status samrt_rope_check(const struct samrt_rope_params *p);

/* Plain C reference: dst = rotate(src), rows without a table row copied unchanged. */
enum samrt_status samrt_rope_apply_ref(const struct samrt_rope_params *p);

/* Rotate + 2x2 average pool of M memories, each a g x g map of tokens (row-major), then the
 * rows after the memories (object pointers) copied as they are:
 *   src (B, M*g*g + n_tail, D) -> dst (B, rep*M*(g/2)^2 + n_tail, D);
 * pooled row r = (m*(g/2) + y)*(g/2) + x of memory m averages tokens (2y + dy)*g + 2x + dx,
 * dy, dx in {0, 1}, and lands in dst rows rep*r .. rep*r + rep - 1 (rep copies: EfficientTAM
 * /1's logit offset); tail row i lands in dst row rep*M*(g/2)^2 + i. Per element, exactly the
 * rounding of samrt_rope_apply (tables row = token within its memory) followed by the 2x2
 * stride-2 depthwise convolution with weights 1/4 and a bias it used before:
 *   v_t = dtype(rotate_fp32(x_t))              (no table: v_t = x_t)
 *   acc = 0; acc += v_t * 0.25 for t in (0,0), (0,1), (1,0), (1,1)   (fp32; x 0.25 is exact)
 *   out = dtype(acc + bias)                     (one rounding)
 * so it matches rope in place + conv pool + row copies bit for bit where the rotation rounds
 * alike (the CUDA kernel contracts x*cos - y*sin as rope.cu does). Reads src once, writes dst
 * once. */
struct samrt_rope_pool_params {
    enum samrt_dtype dtype;               /* F32, F16 or BF16, src and dst alike */
    int n_batch, n_mem, grid, dim;        /* B, M >= 1 memories of grid x grid tokens (grid even), D (even) */
    int64_t n_tail;                       /* rows after the memories, copied */
    const void *src;                      /* (B, M*g*g + n_tail, D) at these strides, channel stride 1 */
    int64_t s_src_b, s_src_t;
    void *dst;                            /* (B, rep*M*g*g/4 + n_tail, D), channel stride 1; not src */
    int64_t s_dst_b, s_dst_t;
    const float *table;                   /* (g*g, D/2, 2) cos, sin; NULL: no rotation (a plain pool) */
    float bias;                           /* added to every pooled element in fp32 (0: none) */
    int rep;                              /* copies of each pooled row, >= 1 */
};

/* Output rows per batch item: rep*M*(g/2)^2 + n_tail. */
int64_t samrt_rope_pool_rows(const struct samrt_rope_pool_params *p);

/* Validates p (no logging: also used on the run path). */
enum samrt_status samrt_rope_pool_check(const struct samrt_rope_pool_params *p);

/* Plain C reference. */
enum samrt_status samrt_rope_pool_ref(const struct samrt_rope_pool_params *p);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* Same on the GPU. Allocates nothing, logs nothing. */
enum samrt_status samrt_rope_apply_cuda(const struct samrt_rope_params *p, cudaStream_t stream);
enum samrt_status samrt_rope_pool_cuda(const struct samrt_rope_pool_params *p, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_ROPE_H */
