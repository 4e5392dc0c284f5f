/* repvit.h - EdgeTAM's image trunk: timm's RepViT-M1 (repvit_m1, legacy, features_only;
 * model-spec 3.2) as a forward pass over the op layer (ops/ops.h), producing the four
 * stage maps that the SAM 2 FPN neck reads (models/sam2/image_encoder.c).
 *
 * Load-time folding (kernels/bn_fold.h). Every ConvNorm (conv without bias + eval
 * BatchNorm) becomes one conv with bias, and every RepVggDw token mixer (dw3x3 ConvNorm +
 * dw1x1 ConvNorm + identity) becomes ONE depthwise 3x3 conv with bias. The folded weights
 * are computed at prepare from the checkpoint's f32 values (in double, rounded once) and
 * stored in one weights-region slot of the run dtype; the checkpoint's own ConvNorm
 * tensors are bound only to check their shapes at init. The squeeze-excite convs carry
 * their own bias and are used straight from the checkpoint. bf16 runs keep the BatchNorms
 * apart instead (enum samrt_repvit_bn below): raw conv weights in that slot, f32 scales and
 * shifts in a second one.
 *
 * Layout. The stem runs NCHW on the NCHW model input (3 channels) and one copy turns its
 * output into channels-last tokens; from there every 1x1 conv is a Linear over tokens (GELU
 * and the residual fused into its epilogue) and every depthwise conv an NHWC conv.
 *
 * A building block below models/sam2 (which composes it into the SAM 2 image encoder): its
 * config row is defined here and it binds through the binder of model_env.h, so nothing here
 * includes models/sam2.
 *
 * Lifecycle (inside the SAM 2 encoder's, models/sam2/image_encoder.h):
 *   samrt_repvit_bind     checks every ConvNorm / SE key's shape, lays out the folded slot
 *   samrt_repvit_plan     adds the folded-weights slot (a persistent tensor)
 *   samrt_repvit_prepare  after commit: folds from the checkpoint and uploads (tests feed
 *                         their own values through samrt_repvit_prepare_with)
 *   samrt_repvit_forward  the PLAN / RUN pass; calls stage_end after each stage
 */
#ifndef SAMRT_EDGETAM_REPVIT_H
#define SAMRT_EDGETAM_REPVIT_H

#include "model_env.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_ckpt;

#define SAMRT_REPVIT_N_STAGES 4
#define SAMRT_REPVIT_MAX_BLOCKS 32
#define SAMRT_REPVIT_KEY_MAX 96

/* timm RepVit(embed_dim, depth, mlp_ratio, kernel_size 3, GELU, legacy True): the trunk row
 * of EdgeTAM's model configuration (models/sam2/config.h). */
struct samrt_repvit_config {
    int dims[SAMRT_REPVIT_N_STAGES];        /* stage widths: 48, 96, 192, 384 for M1 */
    int depth[SAMRT_REPVIT_N_STAGES];       /* RepViTBlocks per stage after its downsample */
    int mlp_ratio;                          /* 2 */
};

/* How the BatchNorms run. FOLD: folded into the convs at load (one conv per ConvNorm, one
 * depthwise conv per RepVggDw). APART: the conv with its raw weight, its output rounded to the
 * run dtype, then the BatchNorm as an f32 per-channel affine (and RepVggDw as its three
 * branches), which is autocast's arithmetic: bf16 weights folded with the BatchNorm scale
 * move the official EdgeTAM's own bf16 masks measurably further from fp32 (docs/numerics.md).
 * AUTO (0): APART in bf16 runs, FOLD otherwise (fp16 and f32 lose nothing by folding). */
enum samrt_repvit_bn { SAMRT_REPVIT_BN_AUTO = 0, SAMRT_REPVIT_BN_FOLD, SAMRT_REPVIT_BN_APART };
/* One conv with its BatchNorm folded in (or a whole RepVggDw when dw_rep is set). */
struct samrt_repvit_conv {
    char key[SAMRT_REPVIT_KEY_MAX];   /* ConvNorm prefix; the RepVggDw prefix when dw_rep */
    int dw_rep;                       /* 1: RepVggDw (key.conv 3x3 + key.conv1 1x1 + identity) */
    int c_out, c_in, k, stride, groups;
    int64_t off_w, off_b;             /* element offsets into the folded slot */
    int64_t off_bn;                   /* element offset into the BatchNorm slot (bn_apart) */
    struct samrt_tensor w, b;         /* views: w (out, in, k, k) stem, (out, k, k, 1) depthwise
                                         NHWC, (out, in) 1x1; b (out); data set at prepare.
                                         bn_apart: w the raw conv weight (dw_rep: the 3x3's),
                                         b the dw_rep 1x1's raw weight (unused otherwise) */
    struct samrt_tensor s, sh, s1, sh1; /* bn_apart: f32 BatchNorm scale / shift (out) of the
                                         conv (dw_rep: of its 3x3; s1, sh1 of its 1x1) */
};

/* RepViTBlock: x = mixer(x); x = se(x) if SE; x = x + mlp2(GELU(mlp1(x))). */
struct samrt_repvit_block {
    int dim, stage;
    struct samrt_repvit_conv mixer, mlp1, mlp2;
    const struct samrt_tensor *se_w1, *se_b1, *se_w2, *se_b2;  /* (r, C, 1, 1) (r) (C, r, 1, 1) (C); NULL: no SE */
};

/* RepVitDownsample a -> b: pre_block (RepViTBlock(a), no SE), dw 3x3 stride 2, 1x1 a -> b,
 * then x = x + ffn2(GELU(ffn1(x))). */
struct samrt_repvit_down {
    struct samrt_repvit_block pre;
    struct samrt_repvit_conv spatial, channel, ffn1, ffn2;
};

struct samrt_repvit {
    const struct samrt_repvit_config *cfg;
    int imgsz;
    struct samrt_repvit_conv stem1, stem2;
    struct samrt_repvit_down down[SAMRT_REPVIT_N_STAGES - 1];   /* stages 1..3 */
    struct samrt_repvit_block blk[SAMRT_REPVIT_MAX_BLOCKS];     /* every stage's blocks, in order */
    int n_blk;
    int64_t folded_elems;
    struct samrt_tensor folded;                                 /* (folded_elems) run dtype [weights] */
    int slot_folded;
    enum samrt_repvit_bn bn_mode;                               /* set before plan; default auto */
    int bn_apart;                                               /* resolved at plan */
    int bn_unfused;                                             /* TEST/BENCH: bn_apart's depthwise
                                                                   convs as the unfused chain of ops
                                                                   (samrt_op_dwconv_bn's unfused) */
    int64_t bn_elems;
    struct samrt_tensor bn;                                     /* (bn_elems) f32 [weights], bn_apart */
    int slot_bn;
};

/* Called after stage s (0..3) with its output x (1, h, w, C) channels-last, contiguous. */
typedef void (*samrt_repvit_stage_fn)(void *user, struct samrt_op_ctx *c, int stage,
                                      const struct samrt_tensor *x, int h, int w);

/* make_divisible(C / 4, 8) of timm's SqueezeExcite: 16, 24, 48, 96 for 48, 96, 192, 384. */
int samrt_repvit_se_dim(int channels);
/* Builds the layer table for cfg at imgsz and binds (shape-checks) every trunk weight under
 * image_encoder.trunk.body. through b (the binder of model_env.h). */
enum samrt_status samrt_repvit_bind(struct samrt_repvit *rv, const struct samrt_repvit_config *cfg, int imgsz,
                                    struct samrt_model_binder *b);
/* Resolves bn_mode for c->dtype and adds the weights slots to c->plan: the folded (or raw)
 * weights at c->dtype, and with bn_apart the f32 BatchNorm scales and shifts. */
enum samrt_status samrt_repvit_plan(struct samrt_repvit *rv, struct samrt_op_ctx *c);
/* Source of checkpoint values for the folding: writes the f32 values of key `key` (exactly n
 * elements) to out, or fails. */
typedef enum samrt_status (*samrt_repvit_get_fn)(void *user, const char *key, int64_t n, float *out);
/* After commit: resolves the slots in e's arena, folds every ConvNorm / RepVggDw from the f32
 * values get returns (in double, see bn_fold.h) and uploads them rounded once to the slot's
 * dtype; with bn_apart it uploads the raw conv weights and the BatchNorm scales / shifts. */
enum samrt_status samrt_repvit_prepare_with(struct samrt_repvit *rv, const struct samrt_model_env *env,
                                            samrt_repvit_get_fn get, void *user);
/* The same with the values of checkpoint ck. */
enum samrt_status samrt_repvit_prepare(struct samrt_repvit *rv, const struct samrt_model_env *env,
                                       const struct samrt_ckpt *ck);
/* The forward pass on the NCHW model input x (1, 3, S, S). Taps "tap.trunk.stem",
 * "tap.trunk.stage.<s>" as channels-last 4-D views. */
void samrt_repvit_forward(struct samrt_repvit *rv, struct samrt_op_ctx *c, const struct samrt_tensor *x,
                          samrt_repvit_stage_fn stage_end, void *user);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_EDGETAM_REPVIT_H */
