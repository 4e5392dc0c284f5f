/* pooled_kv.h - the memory keys and values of EfficientTAM's efficient cross-attention
 * (sam/transformer.py EfficientRoPEAttention1 / EfficientRoPEAttention2, the /1 and /2
 * variants), over the op layer, for SAM 2's memory attention (models/sam2/memory_attention.c).
 *
 * The official forward, with nq = g*g query tokens, M spatial memories of nq tokens each and
 * P pointer tokens after them (num_k_exclude_rope), head dim 256:
 *   q, k[:M*nq] rotated by RoPE (k with the g x g table repeated per memory: rope_k_repeat);
 *   if M*nq <= nq (one memory): plain attention, no pooling;
 *   else each memory's rotated keys and its values, seen as a g x g map, are 2x2 average
 *   pooled (F.avg_pool2d(2, 2), row-major over the g/2 x g/2 map), then
 *     /2: k_pool + 2 ln 2 on every element, keys [k_pool; k_ptr], values [v_pool; v_ptr],
 *         scaled_dot_product_attention (scale 1/16);
 *     /1: logits q.k_pool / 16 + 2 ln 2 for the pooled keys, q.k_ptr / 16 for the pointers,
 *         one softmax over both, times [v_pool; v_ptr].
 * Here the keys are projected, then rotated and pooled in one pass (samrt_op_rope_pool: the
 * rotation rounded to the run dtype, the four averaged in fp32, the 2 ln 2 of /2 added, one
 * rounding); the values are pooled on their 64-channel inputs and then projected, since
 * pooling commutes with the linear projection (pooled_kv.c has the algebra). The /1 logit
 * offset is exact as four copies of each pooled key and value (exp(s + ln 4) = 4 exp(s)), so
 * /1 attends over as many keys as the plain variant while /2 attends over a quarter.
 */
#ifndef SAMRT_EFFICIENTTAM_POOLED_KV_H
#define SAMRT_EFFICIENTTAM_POOLED_KV_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

enum samrt_efftam_pool { SAMRT_EFFTAM_POOL_LOGIT = 1, SAMRT_EFFTAM_POOL_KEY = 2 };  /* /1, /2 */

struct samrt_efftam_pool_args {
    enum samrt_efftam_pool variant;
    int grid;                              /* g: each memory is a g x g map (g even) */
    int n_mem;                             /* M >= 2 */
    int64_t n_ptr_tok;                     /* P pointer tokens after the memory tokens */
    const struct samrt_tensor *rope;       /* (g*g, 128, 2) f32: the memory attention's table */
    const struct samrt_tensor *pool_w;     /* (256, 2, 2, 1) run dtype: 1/4 everywhere (not read) */
    const struct samrt_tensor *pool_b;     /* (256) run dtype: 2 ln 2 (not read: the op adds it) */
};

/* kin, vin (B, M*g*g + P, 64) contiguous: the key and value inputs (memories + position, raw
 * memories; pointer tokens last); k_w, k_b, v_w, v_b: cross_attn_image.k_proj / v_proj.
 * Writes *k_out, *v_out: (B, M*g*g/4 + P, 256) for /2, (B, M*g*g + P, 256) for /1 (each pooled
 * row four times), the keys rotated, the pointer rows as projected. The only full-length
 * (B, M*g*g + P, 256) tensor is the projected keys, dead once pooled. The caller attends with
 * RoPE on q only. */
void samrt_efftam_pool_kv(struct samrt_op_ctx *c, const struct samrt_efftam_pool_args *a,
                          const struct samrt_tensor *kin, const struct samrt_tensor *vin,
                          const struct samrt_tensor *k_w, const struct samrt_tensor *k_b,
                          const struct samrt_tensor *v_w, const struct samrt_tensor *v_b, struct samrt_tensor *k_out,
                          struct samrt_tensor *v_out);

/* The constants on the host: w (256 * 4 values) 1/4, b (256 values) 2 ln 2, as f32 (the
 * memory attention's pool_w / pool_b slots). */
void samrt_efftam_pool_fill(float *w, float *b);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_EFFICIENTTAM_POOLED_KV_H */
