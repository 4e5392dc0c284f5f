/* memory_attention.h - SAM 2.1's memory attention (model-spec 3.6, memory_attention.py and
 * sam/transformer.py::RoPEAttention), EdgeTAM's variant of it (3.7, RoPEAttentionv2: see the
 * config's variant fields), and the memory / object-pointer token construction of
 * sam2_base.py::_prepare_memory_conditioned_features (4.3, 4.4), over the op layer (ops.h).
 *
 *   x = curr + 0.1 * curr_pos                               (pos_enc_at_input, once)
 *   4 x [ x += SelfAttn(LN1 x)         RoPE on q and k, no additive pos
 *         x += CrossAttn(LN2 x, k = mem + mem_pos, v = mem)   RoPE on q and the spatial keys
 *         x += Linear(ReLU(Linear(LN3 x))) ]                   FFN 2048
 *   out = LN(x)
 * One head of 256, scale 1/16; k_proj / v_proj of the cross-attention are Linear(64, 256).
 *
 * Memory tokens (L = S * g*g + 4 * P keys, S spatial memories, P object pointers):
 *   - memory j: its stored bf16 features (g*g, 64) (memory_encoder.h) promoted to the run dtype;
 *     its position: maskmem_pos_enc (constant) + maskmem_tpos_enc[tpos_idx[j]], where
 *     tpos_idx = 6 for conditioning frames and 6 - t_pos (0 for the previous frame) otherwise
 *     (spec 4.3, trap 16). Spatial keys get RoPE with the g x g table repeated per memory
 *     (kernels/rope.h: period g*g, skip 0, n_rope = S * g*g);
 *   - pointer i (a (256) obj_ptr of the heads, already gated with no_obj_ptr): 4 tokens of 64
 *     channels (0-63, 64-127, 128-191, 192-255), all with position
 *     obj_ptr_tpos_proj(sine1d(d_i / (max_ptr - 1), 256)) (sin block, cos block), d_i the signed
 *     frame distance and max_ptr = min(num_frames, 16); no RoPE.
 * EdgeTAM (config n_layers 2, mem_latents 256, mem_grid 16, no_ptr_tpos 1, as
 * samrt_sam2_memattn_config_edgetam fills it): 2 layers; a memory is the perceiver's 512
 * tokens (models/edgetam/perceiver.h): 256 global latents with position 0 and no RoPE, then
 * 256 window latents with the 16x16 sine PE, rotated with the 16x16 table (kernels/rope.h:
 * period 512, skip 256) while the queries keep the g x g table; pointer positions are zero
 * (no obj_ptr_tpos_proj). Everything else (tpos rows, token order, the per-count passes) is
 * shared.
 * EfficientTAM (config kv_pool 1 or 2, no_ptr_tpos 1): SAM 2.1's 4 layers over pixel memories;
 * with two or more memories the cross-attention's memory keys are rotated, then 2x2 pooled
 * per memory (models/efficienttam/pooled_kv.h), and the attention rotates q only.
 * Softmax attention does not depend on the order of its keys (only the summation order, i.e.
 * rounding, changes), and every memory frame uses the same RoPE rows; so memories and pointers
 * may be passed in any order (ring order) as long as tpos_idx / ptr_dist follow the same order.
 *
 * Variable counts: PER-COUNT PLANS. The pass for (S, P) has fixed shapes; the tracker plans one
 * PLAN pass (its own exec + op context, sharing this struct's persistent slots) per count it
 * meets, and may capture each as a CUDA graph. Why not one padded max-shape pass: the attention
 * has no key mask, and padded keys would take softmax mass (not exact); the key count is a launch
 * parameter and GEMM plans are made per shape. With one conditioning frame the counts met are
 * (k, k) for k = 1..7, then (7, 8..16): 16 passes; every count up to the configured maxima is
 * allowed.
 *
 * Per-frame inputs that change with the frame (which tpos row each memory takes, pointer
 * distances) are device data in staging slots, written by samrt_sam2_memattn_set_frame before
 * the pass, so a captured graph stays valid from frame to frame. set_frame copies from pageable
 * host memory: call it outside stream capture, before launching the pass or its graph.
 *
 * The output is a scratch tensor of the pass: run the SAM heads in the same pass (the natural
 * per-count graph: memory attention + heads + memory encoder), or copy it into a persistent
 * slot (samrt_op_copy_into) before the pass ends.
 *
 *   samrt_sam2_memattn_bind / _plan / (commit) / _prepare
 *   per frame: samrt_sam2_memattn_set_frame(...); samrt_sam2_memattn_forward(...) (RUN pass)
 */
#ifndef SAMRT_SAM2_MEMORY_ATTENTION_H
#define SAMRT_SAM2_MEMORY_ATTENTION_H

#include "memory_encoder.h"
#include "model_env.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_ckpt;

#define SAMRT_SAM2_MA_LAYERS 4        /* memory_attention.layers (SAM 2.1; the most of any variant) */
#define SAMRT_SAM2_MA_FFN 2048
#define SAMRT_SAM2_NUM_MASKMEM 7      /* maskmem_tpos_enc rows */
#define SAMRT_SAM2_MAX_MEM 16         /* spatial memories per pass (conditioning frames + 6) */
#define SAMRT_SAM2_MAX_PTR 32         /* pointers per pass (conditioning frames + 15) */
#define SAMRT_SAM2_PTR_TOKENS 4       /* 256 / 64 tokens per pointer */
#define SAMRT_EDGETAM_MA_LAYERS 2     /* EdgeTAM's memory_attention.num_layers */

struct samrt_sam2_ma_layer_weights {
    const struct samrt_tensor *sa_w[4], *sa_b[4];   /* self_attn q, k, v, out_proj (256,256) */
    const struct samrt_tensor *ca_w[4], *ca_b[4];   /* cross_attn_image q (256,256), k, v (256,64), out */
    const struct samrt_tensor *l1_w, *l1_b;         /* linear1 (2048,256) */
    const struct samrt_tensor *l2_w, *l2_b;         /* linear2 (256,2048) */
    const struct samrt_tensor *norm_w[3], *norm_b[3];
};

struct samrt_sam2_ma_weights {
    struct samrt_sam2_ma_layer_weights layer[SAMRT_SAM2_MA_LAYERS];
    const struct samrt_tensor *norm_w, *norm_b;     /* memory_attention.norm */
    const struct samrt_tensor *tpos_w, *tpos_b;     /* obj_ptr_tpos_proj (64,256), (64) */
};

struct samrt_sam2_memattn_config {
    int model_side;              /* S (1024); g = S / 16 */
    int b_max;                   /* object slots per pass */
    int max_mem, max_ptr;        /* largest counts any pass will use (<= SAMRT_SAM2_MAX_MEM / _PTR) */
    enum samrt_dtype dtype;      /* run precision */
    /* the variant; all 0 = SAM 2.1 */
    int n_layers;                /* layers (0: 4; EdgeTAM 2) */
    int mem_latents;             /* leading tokens of a memory with position 0 and no RoPE (EdgeTAM 256) */
    int mem_grid;                /* side of the grid of the remaining tokens (0: g, pixel memories; EdgeTAM 16) */
    int no_ptr_tpos;             /* 1: pointer positions are 0 (no obj_ptr_tpos_proj: EdgeTAM, EfficientTAM) */
    int kv_pool;                 /* EfficientTAM's cross-attention over 2+ memories (models/efficienttam/
                                    pooled_kv.h): 0 all keys, 1 EfficientRoPEAttention1, 2 ...2 */
};

/* The config of EdgeTAM's variant (2 layers; memories of the spatial perceiver's 512 tokens,
 * models/edgetam/perceiver.h: 256 latents, then a 16 x 16 grid; no pointer tpos) for the
 * given sizes. Zeroing the variant fields gives SAM 2.1's. */
struct samrt_sam2_memattn_config samrt_sam2_memattn_config_edgetam(int model_side, int b_max, int max_mem,
                                                                   int max_ptr, enum samrt_dtype dtype);

struct samrt_sam2_memattn {
    struct samrt_sam2_memattn_config cfg;
    int grid;                    /* g */
    int64_t n_tok;               /* g*g: query tokens */
    int n_layers;                /* layers of the variant */
    int mem_grid;                /* side of a memory's rotated grid (g or 16) */
    int64_t n_mem_tok;           /* tokens per memory: mem_latents + mem_grid^2 (g*g or 512) */
    struct samrt_sam2_ma_weights w;
    float maskmem_tpos[SAMRT_SAM2_NUM_MASKMEM][SAMRT_SAM2_MEM_DIM]; /* host copy (prepare) */

    /* Arena slots (NULL data before prepare). */
    struct samrt_tensor rope;    /* (g*g, 128, 2) f32 [weights]: RoPE table of the g x g grid */
    struct samrt_tensor rope_k;  /* (mem_grid^2, 128, 2) f32 [weights]: key table when mem_grid != g */
    struct samrt_tensor mem_pos; /* (1, n_mem_tok, 64) run dtype [weights]: maskmem_pos_enc */
    struct samrt_tensor tpos;    /* (max_mem, 64) run dtype [staging]: tpos row of memory j */
    struct samrt_tensor ptr_p;   /* (max_ptr) f32 [staging]: d_i / (max_ptr - 1) */
    struct samrt_tensor pool_w;  /* (256, 2, 2, 1) run dtype [weights]: the 2x2 average (kv_pool only) */
    struct samrt_tensor pool_b;  /* (256) run dtype [weights]: 2 ln 2 (kv_pool only) */
    int slot_rope, slot_rope_k, slot_mem_pos, slot_tpos, slot_ptr_p, slot_pool_w, slot_pool_b;
    void *stage_host;            /* host image of the staging slots (prepare) */
};

/* Checks the config and binds memory_attention.* and (SAM 2.1) obj_ptr_tpos_proj by official name;
 * maskmem_tpos_enc is read at prepare. */
enum samrt_status samrt_sam2_memattn_bind(struct samrt_sam2_memattn *ma, const struct samrt_sam2_memattn_config *cfg,
                                          const struct samrt_model_env *env);
/* Adds the persistent slots to c->plan (once; every per-count pass shares them). */
enum samrt_status samrt_sam2_memattn_plan(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c);
/* After commit and weight loading: slot views, RoPE table, memory pos-enc, the host table
 * maskmem_tpos_enc (from the checkpoint in f32). */
enum samrt_status samrt_sam2_memattn_prepare(struct samrt_sam2_memattn *ma, const struct samrt_model_env *env,
                                             const struct samrt_ckpt *ck);
void samrt_sam2_memattn_free(struct samrt_sam2_memattn *ma);

/* Writes this frame's staging rows on c's stream (from pageable host memory, like the heads'
 * prompts): memory j takes maskmem_tpos_enc[tpos_idx[j]] (0..6), pointer i the distance
 * ptr_dist[i] (signed frames) normalised by max_ptr - 1 (max_ptr = min(num_frames, 16) >= 2).
 * n_mem <= max_mem, n_ptr <= max_ptr. */
enum samrt_status samrt_sam2_memattn_set_frame(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c, int n_mem,
                                               const int *tpos_idx, int n_ptr, const int *ptr_dist, int max_ptr);

/* The same rows as a host image, without uploading: dst (samrt_sam2_memattn_frame_bytes) gets the
 * bytes of the staging slots tpos and ptr_p one after another. A caller that runs
 * several frames' or objects' passes from one captured graph stages these images itself and
 * copies them into the slots inside the graph (the tracker, tracker_run.c). */
size_t samrt_sam2_memattn_frame_bytes(const struct samrt_sam2_memattn *ma);
enum samrt_status samrt_sam2_memattn_fill_frame(const struct samrt_sam2_memattn *ma, int n_mem, const int *tpos_idx,
                                                int n_ptr, const int *ptr_dist, int max_ptr, void *dst);

/* The memory attention pass for n_mem spatial memories and n_ptr pointers (PLAN or RUN).
 *   curr      (Bc, g*g, 256) run dtype: raw vision features, Bc = 1 (shared) or b_max;
 *   curr_pos  (1, g*g, 256) run dtype: the neck's level-2 sine PE;
 *   mem[j]    (b_max, n_mem_tok, 64) bf16: stored memories (any slots; strides of a contiguous tensor);
 *   ptr       (b_max, n_ptr, 256) f32 with contiguous rows (any batch / row stride): pointers,
 *             NULL when n_ptr = 0.
 * Returns pix_feat_with_mem (b_max, g*g, 256) run dtype, channels-last (a scratch tensor of the
 * pass; the heads read it as their image embedding). Tap: tap.memattn.out. */
struct samrt_tensor samrt_sam2_memattn_forward(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c,
                                               const struct samrt_tensor *curr, const struct samrt_tensor *curr_pos,
                                               int n_mem, const struct samrt_tensor *const *mem, int n_ptr,
                                               const struct samrt_tensor *ptr);

/* The pointer tokens' positions: (n_ptr, 64) run dtype = obj_ptr_tpos_proj(sine1d(ptr_p)) (a new
 * tensor of the pass). Used by the forward pass; exposed for tests. */
struct samrt_tensor samrt_sam2_memattn_ptr_pos(struct samrt_sam2_memattn *ma, struct samrt_op_ctx *c, int n_ptr);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_MEMORY_ATTENTION_H */
