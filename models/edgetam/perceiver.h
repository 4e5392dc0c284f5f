/* perceiver.h - EdgeTAM's spatial perceiver (model-spec 3.13, perceiver.py::PerceiverResampler)
 * over the op layer (ops/ops.h): it compresses the SAM 2 memory encoder's out_proj features
 * (g*g tokens of 64 channels per object) to 512 tokens. A building block that the SAM 2 family
 * composes, so nothing here includes models/sam2: EdgeTAM's memory encoding (memory encoder
 * steps 1-5 -> perceiver -> bf16 store) is samrt_sam2_memenc_forward_perceiver
 * (models/sam2/memory_encoder.h), its memory attention variant samrt_sam2_memattn_config_edgetam
 * (models/sam2/memory_attention.h).
 *
 * Layer (dim 64, one head of 64, scale 1/8, Linear without bias, LN eps 1e-5), shared by both
 * passes:
 *   q = to_q(LN_lat(lat)); [k | v] = to_kv(LN_x(x)); with pos: k += pos, v += pos (AFTER the
 *   projection, to k AND v); lat += to_out(SDPA(q, k, v)); lat += FF(lat);
 *   n = LN(lat); lat += to_out(SDPA(to_q n, [to_kv n])); lat += FF_self(lat)
 *   FF = LN -> Linear(64,256) -> GELU (erf) -> Linear(256,64).
 * Global pass: 256 latents attend to all g*g memory pixels with pos = maskmem_pos_enc (the
 * sine PE of the g x g map). Window pass: the map cut into 16 x 16 windows of (g/16)^2 pixels
 * (row-major windows, pixels dy-major inside), latents_2d[w] alone attends to window w, no pos;
 * its self-attention runs over one token, so softmax is exactly 1 and the block is
 * to_out(v part of to_kv(LN lat)): computed that way, exactly. Output: LN(concat(global,
 * window)) (B, 512, 64); its position (zeros for the 256 global latents, the 16x16 sine PE
 * for the window latents) is a constant that memory attention builds itself
 * (models/sam2/memory_attention.h, mem_latents / mem_grid).
 *
 * Why the windows are gathered into their own (B*256, ws*ws, 64) tensor first (one copy) and
 * LN + to_kv run again on it, rather than reusing the global pass's projection: the per-token
 * ops commute with the permutation, and a gather of the 64-channel input is one strided copy
 * while the 128-channel projection would need one per object; the extra work is a 64x128
 * GEMM over g*g tokens per layer.
 *
 * Precision: bf16 runs compute the perceiver in f32 (its own f32 copies of the perceiver's
 * weights, 0.8 MiB, read from the checkpoint at prepare; the input converted once, the output
 * rounded once into the bf16 bank). Under autocast its latent stream is fp32 (fp32 latents
 * plus bf16 block outputs) and the final LayerNorm returns fp32, so the official memories are
 * rounded once; a bf16 stream left samrt's memories 1.5x further from fp32 (docs/numerics.md).
 *
 * Lifecycle: _bind (weights by official name), _plan (the pos slot, the f32 copies), PLAN pass,
 * commit, weights loaded, _prepare (pos, the f32 copies), then RUN passes. Tests: tests/test_edgetam_memory.c (naive C
 * model), tests/test_edgetam_memory_parity.c (official modules, tests/parity/dump_edgetam_memory.py).
 */
#ifndef SAMRT_EDGETAM_PERCEIVER_H
#define SAMRT_EDGETAM_PERCEIVER_H

#include "model_env.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_ckpt;

#define SAMRT_EDGETAM_PERC_DIM 64        /* dim = dim_head (heads 1) */
#define SAMRT_EDGETAM_PERC_FF 256        /* ff_mult 4 */
#define SAMRT_EDGETAM_PERC_DEPTH 2
#define SAMRT_EDGETAM_LATENTS 256        /* num_latents (global) */
#define SAMRT_EDGETAM_WINDOWS 16         /* sqrt(num_latents_2d): windows per side */
#define SAMRT_EDGETAM_MEM_TOKENS (SAMRT_EDGETAM_LATENTS + SAMRT_EDGETAM_WINDOWS * SAMRT_EDGETAM_WINDOWS)
#define SAMRT_EDGETAM_PERC_TENSORS (SAMRT_EDGETAM_PERC_DEPTH * 20 + 4)  /* bound weight tensors */

struct samrt_edgetam_perc_layer {
    /* attn: norm_x, norm_latents, to_q (64,64), to_kv (128,64), to_out (64,64) */
    const struct samrt_tensor *nx_w, *nx_b, *nl_w, *nl_b, *q, *kv, *out;
    const struct samrt_tensor *ff_w, *ff_b, *ff1, *ff2;        /* ff.0 LN, ff.1 (256,64), ff.3 (64,256) */
    const struct samrt_tensor *sn_w, *sn_b, *sq, *skv, *sout;  /* self_attn */
    const struct samrt_tensor *sff_w, *sff_b, *sff1, *sff2;    /* self_ff */
};

struct samrt_edgetam_perceiver_config {
    int model_side;              /* S; g = S / 16 must be a multiple of 16 (S = 256, 512, 1024, ...) */
    int b_max;                   /* object slots per pass, 1 .. SAMRT_SAM2_MAX_OBJ (kernels/sam2/mask_select.h) */
    enum samrt_dtype dtype;      /* run precision */
};

struct samrt_edgetam_perceiver {
    struct samrt_edgetam_perceiver_config cfg;
    int grid;                    /* g */
    int win;                     /* window side g / 16 */
    struct samrt_edgetam_perc_layer layer[SAMRT_EDGETAM_PERC_DEPTH];
    const struct samrt_tensor *latents, *latents_2d;   /* (256, 64) each */
    const struct samrt_tensor *norm_w, *norm_b;
    struct samrt_tensor pos;     /* (1, g*g, 128) pdt [weights]: maskmem_pos_enc, channels-last,
                                    twice per pixel ([pe | pe], added to k and v by one copy) */
    int slot_pos;
    struct samrt_tensor zero_bias;   /* (256) pdt [weights]: zeros, the bias that lets the
                                        bias-free ff.1 Linear take its GELU as its epilogue */
    int slot_zero;
    enum samrt_dtype pdt;        /* compute dtype: f32 in bf16 runs, else the run dtype */
    int own32;                   /* the weight pointers above are the f32 copies w32 */
    const struct samrt_tensor *w_run[SAMRT_EDGETAM_PERC_TENSORS];  /* the engine weights they replace */
    struct samrt_tensor w32[SAMRT_EDGETAM_PERC_TENSORS];           /* [weights] f32 */
    int slot_w32[SAMRT_EDGETAM_PERC_TENSORS];
};

/* Checks the config and binds spatial_perceiver.* by official name (shapes checked). */
enum samrt_status samrt_edgetam_perceiver_bind(struct samrt_edgetam_perceiver *p,
                                               const struct samrt_edgetam_perceiver_config *cfg,
                                               const struct samrt_model_env *env);
/* Adds the pos and zero-bias slots to c->plan, and in bf16 runs the f32 weight copies. */
enum samrt_status samrt_edgetam_perceiver_plan(struct samrt_edgetam_perceiver *p, struct samrt_op_ctx *c);
/* After commit: writes pos (sine PE of the g x g map, rounded to pdt), the zero bias and, in bf16 runs, the f32
 * weight copies from ck (the checkpoint the engine's weights came from). */
enum samrt_status samrt_edgetam_perceiver_prepare(struct samrt_edgetam_perceiver *p, const struct samrt_model_env *env,
                                                  const struct samrt_ckpt *ck);

/* x (b_max, g*g, 64) run dtype, contiguous, channels-last (the memory encoder's features) ->
 * (b_max, 512, 64) pdt (a scratch tensor of the pass). Taps: tap.perceiver.global
 * (b_max, 256, 64) and tap.perceiver.window (b_max, 256, 64) before the final norm,
 * tap.perceiver.out. */
struct samrt_tensor samrt_edgetam_perceiver_forward(struct samrt_edgetam_perceiver *p, struct samrt_op_ctx *c,
                                                    const struct samrt_tensor *x);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_EDGETAM_PERCEIVER_H */
