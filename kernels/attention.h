/* attention.h - fused scaled-dot-product attention (flash style: online softmax, nothing of
 * size Lq x Lk is ever stored) for every attention of SAM 2.1 and EdgeTAM, with optional
 * RoPE, Hiera window mapping and split-K (flash-decoding).
 *
 *   o[b,h,i,:] = sum_j softmax_j(scale * q[b,h,i,:] . k[b,h,j,:]) v[b,h,j,:]
 *
 * Tensors are read and written through strides in elements (batch, head, token; the channel
 * stride is 1), so head splits and the [q | k | v] interleave of a fused qkv projection are
 * views, never copies. f16 / bf16 run on tensor cores with fp32 accumulation, P rounded to the
 * input dtype before P.V as FlashAttention does: mma.sync m16n8k16 on sm_80 and later
 * (attention.cu), wgmma on sm_90a (attention_sm90.cu, chosen at init when the device and the
 * binary have it); f32 runs a plain fp32 FMA kernel (no TF32) for parity runs.
 *
 * Usage (setup, then per run):
 *
 *   struct samrt_attention_params p = {0};
 *   p.dtype = SAMRT_DTYPE_BF16; p.n_batch = 1; p.n_head = 1; p.n_q = 4096; p.n_k = L;
 *   p.d_qk = p.d_v = 256;                 // scale 0 = 1/sqrt(d_qk)
 *   p.q = q; p.s_q_b = 4096*256; p.s_q_h = 256; p.s_q_t = 256;   ... k, v, o alike
 *   p.rope.q = tab64; p.rope.k = tab64; p.rope.k_period = 4096; p.rope.n_k = L - n_ptr;
 *   p.sm_count = sm_count;                                       // for the wide tile (sm_90a)
 *   p.n_split = samrt_attention_split_count(&p, sm_count);      // setup: pure arithmetic
 *   size_t ws = samrt_attention_workspace_size(&p);              // plan this in the arena
 *   samrt_attention_init_cuda();                                 // once: smem attributes
 *   p.workspace = arena_slot; p.workspace_bytes = ws;
 *   samrt_attention_cuda(&p, stream);                            // run: no allocation
 *
 * RoPE (see rope.h for the exact semantics): rope.q rotates query row i with table row i;
 * rope.k rotates key j with the periodic layout (period, skip, n_k) of rope.h, so one
 * table serves the repeated memory frames and the object-pointer keys stay unrotated. The
 * rotation happens once, in a pre-pass into the workspace (fp32 maths, stored in the dtype
 * as PyTorch does); the attention kernels read plain q and k.
 *
 * Hiera windows (win.size_q > 0). The official block pads the NORMED map with zeros to a
 * multiple of the window, then runs the qkv Linear on the padded windows, so a padded
 * token's k and v are exactly the qkv bias, and those tokens are attended to (not masked).
 * Here the caller runs the qkv GEMM on the unpadded (H, W) map only and passes the k and v
 * parts of the bias as win.pad_k / win.pad_v; the kernel maps window w, row r to map token
 * (wy*ws + r/ws, wx*ws + r%ws) and substitutes the bias rows for tokens outside the map.
 * Output rows of padded query tokens are never written (window_unpartition crops them), so
 * o is the unpadded map: no partition or unpartition copies exist. In window mode the token
 * stride addresses the map, token index y*W + x; n_batch counts images, and the kernel runs
 * n_batch * n_windows * n_head attention problems.
 * Q-pool blocks: max-pool q over the whole (H, W) map to (H/2, W/2) first (a separate op;
 * with even H, W and even windows every 2x2 cell lies in one window, so this equals the
 * official per-window pool), then pass size_q = ws/2 over the pooled map and size_k = ws
 * over the full map. The window grids must agree (checked).
 *
 * Split-K (n_split > 1): the keys are cut into n_split ranges of whole tiles; each CTA writes
 * its partial (max, sum, unnormalised accumulator) in fp32 to the workspace and a second
 * kernel combines them. Use it when n_batch * n_head * ceil(n_q / block_q) CTAs cannot fill
 * the GPU (memory attention: 32 query tiles for 132 SMs).
 */
#ifndef SAMRT_KERNELS_ATTENTION_H
#define SAMRT_KERNELS_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

#include "rope.h"
#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_ATTENTION_MAX_DIM 256  /* d_qk and d_v */

struct samrt_attention_rope {
    const float *q;   /* (n_q, d_qk/2, 2) cos, sin per pair; NULL = queries not rotated */
    const float *k;   /* (k_period - k_skip, d_qk/2, 2); NULL = keys not rotated */
    int k_period;     /* keys per memory frame: the k table repeats every k_period keys */
    int k_skip;       /* leading keys of each period left unrotated (EdgeTAM 1-D latents) */
    int64_t n_k;      /* keys [0, n_k) follow the table; keys from n_k on are not rotated */
};

struct samrt_attention_window {
    int size_q, size_k;   /* window side for q/o and for k/v tokens; size_q 0 = no windows */
    int q_h, q_w;         /* unpadded q/o map; q token index = y*q_w + x */
    int k_h, k_w;         /* unpadded k/v map */
    const void *pad_k;    /* (n_head, d_qk) at s_pad_h: k of a padded token (the k bias); NULL = 0 */
    const void *pad_v;    /* (n_head, d_v) at s_pad_h: v of a padded token (the v bias); NULL = 0 */
    int64_t s_pad_h;      /* head stride of pad_k and pad_v, elements */
};

struct samrt_attention_params {
    enum samrt_dtype dtype;        /* F32, F16 or BF16 for q, k, v, o and the pad rows */
    int n_batch, n_head;           /* B, H */
    int n_q, n_k;                  /* Lq, Lk (per window in window mode: size^2) */
    int d_qk, d_v;                 /* head dims of q/k and of v/o, 1..256 */
    float scale;                   /* softmax scale; 0 = 1/sqrt(d_qk) */
    const void *q;                 /* (B, H, Lq, d_qk) */
    int64_t s_q_b, s_q_h, s_q_t;
    const void *k;                 /* (B, H, Lk, d_qk) */
    int64_t s_k_b, s_k_h, s_k_t;
    const void *v;                 /* (B, H, Lk, d_v) */
    int64_t s_v_b, s_v_h, s_v_t;
    void *o;                       /* (B, H, Lq, d_v); must not overlap q, k, v */
    int64_t s_o_b, s_o_h, s_o_t;
    struct samrt_attention_rope rope;
    struct samrt_attention_window win;
    int n_split;                   /* key ranges per problem; 0 or 1 = one pass */
    void *workspace;               /* samrt_attention_workspace_size bytes, 256-aligned */
    size_t workspace_bytes;
    int block_q, block_k;          /* f16 / bf16 tile override (benchmarks, tests): 64 or 128
                                    * query rows / keys per tile, or block_q 256: the wide tile
                                    * wherever samrt_attention_wide_tiles allows one (else 128);
                                    * 0 = the planner's choice */
    int sm_count;                  /* SMs of the GPU the plan is for (setup: what
                                    * samrt_attention_split_count got); 0 = no wide tiles */
};

/* Window mode: row r of window problem bw (= image * n_win + window) -> image *b and map
 * token *tok; returns 0 when the token lies in the zero padding. Windows are row-major over
 * a grid n_win_x wide; inside a window, rows are row-major too (window_partition order). */
static inline SAMRT_HOST_DEVICE int samrt_attention_map_row(int bw, int r, int size, int map_h,
                                                          int map_w, int n_win, int n_win_x,
                                                          int *b, int64_t *tok) {
    const int img = bw / n_win, w = bw - img * n_win;
    const int y = (w / n_win_x) * size + r / size, x = (w % n_win_x) * size + r % size;
    *b = img;
    *tok = (int64_t)y * map_w + x;
    return y < map_h && x < map_w;
}

/* The tile shape the CUDA path uses for p (pure; also what the planner assumes). block_q and
 * block_k hold for both tensor-core kernels; n_threads and smem_bytes describe the portable
 * one (the sm_90a kernel adds a producer warp and double-buffers K and V). */
struct samrt_attention_config {
    int d_pad;          /* head dim held in shared memory (multiple of 16; f32: max(d_qk, d_v)) */
    int block_q;        /* query rows per CTA */
    int block_k;        /* keys per tile of the split ranges (split ranges are whole tiles) */
    int n_threads;      /* threads per CTA */
    int ctas_per_sm;    /* resident CTAs per SM assumed by the split heuristic */
    size_t smem_bytes;  /* dynamic shared memory per CTA */
};

/* Validates shapes, pointers, RoPE and window settings (no logging, also run-time safe):
 * SAMRT_E_INVALID_ARG for inconsistent input, SAMRT_E_UNSUPPORTED for valid input this op
 * does not handle (head dim > 256, RoPE combined with windows, other dtypes). */
enum samrt_status samrt_attention_check(const struct samrt_attention_params *p);

/* Windows per image (1 without windows); 0 when the window settings are invalid. */
int samrt_attention_n_windows(const struct samrt_attention_params *p);

enum samrt_status samrt_attention_configure(const struct samrt_attention_params *p,
                                         struct samrt_attention_config *out);

/* Split count that fills sm_count SMs (pure): 1 when the query tiles already do, else the
 * count with the fewest waves per unit of work (each split lowering it by 10% or more, which
 * pays for the combine pass), capped so that each range keeps at least 4 key tiles; 1 as
 * well when the split would save a CTA fewer than 8 key tiles (a small problem: the combine
 * launch costs more). */
int samrt_attention_split_count(const struct samrt_attention_params *p, int sm_count);

/* Key ranges actually launched for p->n_split (ranges are whole tiles; never empty). */
int samrt_attention_n_split_effective(const struct samrt_attention_params *p);

/* The sm_90a kernel's wide tile (pure; the launcher uses it on sm_90a only): 256 query rows
 * with four consumer warpgroups and 64-key tiles, for f16 / bf16 at head dims 33..64 without
 * windows or split-K. At these head dims the exponentials cost as much as the products, and
 * four warpgroups per SM overlap them better than two; a 256-row tile takes ~1.78x a 128-row
 * one, so it pays where it saves a wave (base_plus global attention on 132 SMs: 128 tiles in
 * one wave instead of 256 in two). Returns the wide tile count when p->sm_count > 0 and the
 * waves predict a shorter run (or block_q is 256), else 0. */
int samrt_attention_wide_tiles(const struct samrt_attention_params *p);

/* Workspace bytes for p as given (RoPE copies of q and k, split partials); 0 if none is
 * needed or p is invalid. */
size_t samrt_attention_workspace_size(const struct samrt_attention_params *p);

/* Plain C reference: two-pass softmax in fp32 (max, then exp-sum with the weighted values),
 * the same RoPE (rotated rows rounded to the dtype) and window semantics, output stored in
 * the dtype. Ignores n_split and the workspace. */
enum samrt_status samrt_attention_ref(const struct samrt_attention_params *p);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* Once per device at setup: raises the dynamic shared-memory limit of every kernel instance
 * (portable: up to 135 KB, fits sm_87's 163 KB; sm_90a: up to 226 KB) and picks the kernel:
 * the wgmma one on an sm_90 device when this binary carries sm_90a code, unless the
 * environment sets SAMRT_ATTENTION_PORTABLE=1 (to test the portable kernel on an H100). */
enum samrt_status samrt_attention_init_cuda(void);
/* Runs the RoPE pre-pass, the attention kernel and the split combine on stream. Allocates
 * nothing, logs nothing; safe inside graph capture. */
enum samrt_status samrt_attention_cuda(const struct samrt_attention_params *p, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_ATTENTION_H */
