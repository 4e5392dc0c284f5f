/* mask_decoder.h - SAM 2.1's SAM heads: the mask decoder (model-spec 3.9: two-way transformer,
 * output upscaling with the high-resolution features, hypernetwork MLPs, IoU and object-score
 * heads) and the post-processing of sam2_base.py::_forward_sam_heads (3.10: selection, the
 * object-score gate, the object pointer), over the op layer (ops/ops.h), batched over the
 * objects of one frame.
 *
 * Batching. The frame's features are shared: image embeddings (1, N, 256), feat_s0 and
 * feat_s1 are broadcast to the B = b_max object slots (stride-0 views), so B objects cost one
 * pass. Each object has its own prompt and hence its own number of sparse tokens. Shapes are
 * fixed at plan time (GEMM plans, arena slots), so every object carries t_max tokens:
 * [6 output tokens | its sparse rows | filler]. Padding would change the results wherever
 * prompt tokens act as KEYS (the token self-attention and the image-to-token attention), so
 * those two attentions run per object over its first 6 + n_sparse[b] tokens only (a local
 * helper over kernels/attention.h). Elsewhere tokens are queries or per-token rows (Linear,
 * LayerNorm, MLP, token-to-image attention), which padding cannot reach. The result for each
 * object is therefore exactly that of a batch-1 run with its own prompt, as the official
 * SAM 2.1 predictor runs objects one by one.
 *
 * Layout: channels-last tokens (ops.h). The upscaling runs NHWC ((B, 2g, 2g, 64), then
 * (B, 4g, 4g, 32)); the final mask product writes (B, 4, 4g*4g) directly, NCHW as the
 * official code returns it, as one small GEMM per object (hypernetwork rows x the object's
 * upscaled map).
 *
 * Lifecycle (mirrors the image encoder's, models/sam2/image_encoder.h):
 *   samrt_sam2_heads_bind      weights by official name, shapes checked
 *   samrt_sam2_heads_plan      persistent slots + the PLAN pass
 *   ... arena commit, weights loaded ...
 *   samrt_sam2_heads_prepare   views of the slots; host tables, dense PE and packed
 *                              transposed-conv weights from the checkpoint in fp32
 *   per frame:
 *     samrt_sam2_heads_set_prompts   host -> query tokens (upload), per-object modes
 *     samrt_sam2_heads_forward       the RUN pass (no host round trip)
 *     results in h->low_res, h->result, h->obj_ptr (after a stream sync)
 *
 * Taps (ops.h), RUN mode, of object 0 (parity runs prompt one object), under the names of
 * tests/parity/dump_taps.py: tap.prompt.sparse, tap.prompt.dense (and tap.prompt.mask_input),
 * tap.decoder.image_embed, tap.decoder.image_pe, tap.decoder.hs, tap.decoder.src,
 * tap.decoder.upscaled, tap.decoder.all_masks, tap.decoder.all_iou, tap.decoder.all_tokens,
 * tap.decoder.object_score_logits and tap.decoder.sam_tokens (its token choice is known
 * before the pass, unlike the dynamic mask choice: see samrt_sam2_heads_taps). They are
 * strided views; 4-D maps are passed channels-last (N, H, W, C) like the encoder's, and the
 * dump writer turns them into the official NCHW.
 */
#ifndef SAMRT_SAM2_MASK_DECODER_H
#define SAMRT_SAM2_MASK_DECODER_H

#include "model_env.h"
#include "ops.h"
#include "ops_sam2.h"
#include "prompt_encoder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One Attention module of the two-way transformer: q/k/v (c, 256), out (256, c). */
struct samrt_sam2_attn_weights {
    const struct samrt_tensor *q_w, *q_b, *k_w, *k_b, *v_w, *v_b, *o_w, *o_b;
};

/* SAM's MLP with 3 Linear layers (ReLU between): layers.{0,1,2}. */
struct samrt_sam2_mlp3_weights {
    const struct samrt_tensor *w[3], *b[3];
};

struct samrt_sam2_twoway_layer_weights {
    struct samrt_sam2_attn_weights self_attn;           /* c = 256, 8 heads of 32 */
    struct samrt_sam2_attn_weights t2i;                 /* cross_attn_token_to_image, c = 128 */
    struct samrt_sam2_attn_weights i2t;                 /* cross_attn_image_to_token, c = 128 */
    const struct samrt_tensor *mlp_w[2], *mlp_b[2];     /* (2048, 256), (256, 2048) */
    const struct samrt_tensor *norm_w[4], *norm_b[4];   /* norm1..norm4 (256) */
};

struct samrt_sam2_decoder_weights {
    struct samrt_sam2_twoway_layer_weights layer[2];
    struct samrt_sam2_attn_weights final_attn;          /* final_attn_token_to_image, c = 128 */
    const struct samrt_tensor *norm_final_w, *norm_final_b;
    const struct samrt_tensor *up_ln_w, *up_ln_b;       /* output_upscaling.1 (LN2d 64) */
    struct samrt_sam2_mlp3_weights hyper[SAMRT_SAM2_N_MASK_TOKENS]; /* 256 -> 256 -> 256 -> 32 */
    struct samrt_sam2_mlp3_weights iou_head;            /* 256 -> 256 -> 256 -> 4, sigmoid */
    struct samrt_sam2_mlp3_weights obj_head;            /* pred_obj_score_head: -> 1 */
    struct samrt_sam2_mlp3_weights obj_ptr_proj;        /* 256 -> 256 -> 256 -> 256 */
    const struct samrt_tensor *no_obj_ptr;              /* (1, 256) */
    const struct samrt_tensor *no_mem_embed;            /* (1, 1, 256) */
};

struct samrt_sam2_heads_config {
    int model_side;              /* S, the model input side (1024) */
    int b_max;                   /* object slots per pass, 1 .. SAMRT_SAM2_MAX_OBJ */
    int max_points;              /* prompt points per object (box corners count), 1 .. SAMRT_SAM2_MAX_POINTS */
    int mask_input;              /* 1: plan the mask-prompt branch (dense from mask_downscaling) */
    enum samrt_dtype dtype;      /* run precision */
    const struct samrt_sam2_heads *share_tr; /* NULL, or planned heads of the same engine whose f32
                                                transformer weights these heads read (no copy) */
};

/* Tensors of the two-way transformer (its layers, final attention and norm: 82), the
 * upscaling LayerNorm2d (2), the hypernetworks (24), the IoU and object-score heads (6 + 6),
 * plus no_mask_embed: what runs at the decoder's own dtype (samrt_sam2_heads.tr_dtype). */
#define SAMRT_SAM2_TR_TENSORS 121

struct samrt_sam2_heads {
    struct samrt_sam2_heads_config cfg;
    int grid;                    /* S / 16: the image embedding side g */
    int low;                     /* 4g: low-res mask side */
    int t_max;                   /* 6 + max_points + 1 */
    struct samrt_sam2_prompt_weights pw;
    struct samrt_sam2_decoder_weights dw;
    struct samrt_sam2_prompt_tables tables;  /* host fp32 (prepare) */

    /* The decoder (two-way transformer, upscaling, hypernetworks, IoU and object-score heads)
     * runs at tr_dtype: f32 in bf16 runs, the run dtype otherwise. Under autocast the
     * transformer's token and key streams are fp32 (post-norm: LayerNorm returns fp32), and
     * only an f32 decoder keeps bf16 masks as close to fp32 as the official run's on every
     * frame (docs/numerics.md, "Mask decoder"). tw is dw with those tensors at tr_dtype: dw's
     * own when tr_dtype is the run dtype, else the f32 copies tr_f32 (weights region, read from
     * the checkpoint at prepare). The query tokens, the dense PE and the packed transposed
     * convolutions are at tr_dtype too; obj_ptr_proj stays at the run dtype. */
    enum samrt_dtype tr_dtype;
    struct samrt_sam2_decoder_weights tw;
    const struct samrt_tensor *no_mask_embed_tr;          /* (1, 256) at tr_dtype */
    struct samrt_tensor tr_f32[SAMRT_SAM2_TR_TENSORS];
    int slot_tr[SAMRT_SAM2_TR_TENSORS];
    int own_tr;                                           /* 1: tr_f32 are this heads' slots */

    /* Arena slots owned by the heads (NULL data before prepare). */
    struct samrt_tensor image_pe;   /* (1, g*g, 256) [weights] at tr_dtype: dense PE, channels-last */
    struct samrt_tensor up0_w, up0_b, up1_w, up1_b; /* [weights] packed ConvTranspose 2x2 (conv.h), tr_dtype */
    struct samrt_tensor tokens;     /* (B, t_max, 256) [staging] at tr_dtype: query tokens (set_prompts) */
    struct samrt_tensor mask_in;    /* (B, 1, 4g, 4g) [staging]: mask prompts (mask_input only) */
    struct samrt_tensor all_masks;  /* (B, 4, 4g*4g) f32 [state]: the decoder's four mask logits */
    struct samrt_tensor all_iou;    /* (B, 4) f32 [state]: the four IoU predictions (sigmoid) */
    struct samrt_tensor score;      /* (B, 1) f32 [state]: object-score logits */
    struct samrt_tensor low_res;    /* (B, 1, 4g, 4g) f32 [state]: selected, gated mask logits */
    struct samrt_tensor result;     /* (B, SAMRT_SAM2_RES_COLS) f32 [state] */
    struct samrt_tensor obj_ptr;    /* (B, 256) f32 [state]: gated object pointers */
    int slot_image_pe, slot_up[4], slot_tokens, slot_mask_in;
    int slot_all_masks, slot_all_iou, slot_score, slot_low_res, slot_result, slot_obj_ptr;

    /* Per call (set_prompts). */
    int n_obj;
    int32_t n_sparse[SAMRT_SAM2_MAX_OBJ];
    uint8_t mode[SAMRT_SAM2_MAX_OBJ];   /* enum samrt_sam2_mask_mode */
    void *tokens_host;                   /* B * t_max * 256 elements of tr_dtype (host heap, prepare) */
};

/* Checks the config and binds the prompt encoder's and decoder's weights (and obj_ptr_proj,
 * no_obj_ptr, no_mem_embed) by official name. */
enum samrt_status samrt_sam2_heads_bind(struct samrt_sam2_heads *h, const struct samrt_sam2_heads_config *cfg,
                                        const struct samrt_model_env *env);
/* Adds the persistent slots to c->plan. The PLAN pass itself is samrt_sam2_heads_forward on a
 * PLAN-mode context (driven by the caller together with the encoder's). */
enum samrt_status samrt_sam2_heads_plan(struct samrt_sam2_heads *h, struct samrt_op_ctx *c);
/* After commit and weight loading: resolves the slot views from e's arena and writes the
 * constants. Allocates the host token buffer (setup only). */
enum samrt_status samrt_sam2_heads_prepare(struct samrt_sam2_heads *h, const struct samrt_model_env *env,
                                           const struct samrt_ckpt *ck);
void samrt_sam2_heads_free(struct samrt_sam2_heads *h);

/* Builds the query tokens of n_obj objects (pts[b]) on the host and copies them into
 * h->tokens on c's stream (samrt_ctx_memcpy: on the CUDA backend an asynchronous copy from the
 * host buffer, which must not change until the stream reaches the copy: the next set_prompts
 * call syncs first). Object
 * slots n_obj .. B-1 get the no-prompt tokens. dynamic: 1 for the notebook settings
 * (single-mask prompts use the stability fallback). */
enum samrt_status samrt_sam2_heads_set_prompts(struct samrt_sam2_heads *h, struct samrt_op_ctx *c,
                                               const struct samrt_sam2_points *pts, int n_obj, int dynamic);

/* The SAM heads forward over the op layer: image (Bi, g*g, 256) with Bi = 1 (broadcast) or B,
 * the pixel features AFTER any no_mem_embed / memory conditioning; feat_s0 (Bf, 4g*4g, 32) and
 * feat_s1 (Bf, 2g*2g, 64) channels-last, Bf = 1 or B, or both empty (n_dims 0: a model without
 * high-resolution features, EfficientTAM, whose upscaling adds none). Writes h->low_res, h->result,
 * h->obj_ptr (and h->all_masks, h->all_iou, h->score). */
void samrt_sam2_heads_forward(struct samrt_sam2_heads *h, struct samrt_op_ctx *c, const struct samrt_tensor *image,
                              const struct samrt_tensor *feat_s0, const struct samrt_tensor *feat_s1);

/* After a RUN pass (stream synchronised): the taps of the selection stage, from the
 * persistent results, for object 0: tap.decoder.masks, tap.decoder.iou (the official
 * MaskDecoder outputs: masks 1..3, mask 0, or the dynamic choice), tap.heads.ious,
 * tap.heads.low_res_masks, tap.heads.obj_ptr, tap.heads.object_score_logits. Host copies are
 * passed to c->tap as host tensors. */
enum samrt_status samrt_sam2_heads_taps(struct samrt_sam2_heads *h, struct samrt_op_ctx *c);

/* Taps host f32 data (a 4-D array in NCHW order is passed channels-last, as every 4-D tap). */
void samrt_sam2_tap_host(struct samrt_op_ctx *c, const char *name, float *data, int n_dims, const int64_t *ne);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_MASK_DECODER_H */
