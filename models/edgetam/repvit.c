/* repvit.c - RepViT-M1 trunk of EdgeTAM (repvit.h): layer table and weight binding, the
 * load-time BatchNorm / RepVggDw folding, and the forward pass over the op layer.
 *
 * Choices that are not obvious:
 *   - Folded weights keep the checkpoint's byte order: a depthwise (C, 1, 3, 3) weight is
 *     already the NHWC-packed (C, 3, 3, 1) of conv.h, a 1x1 (out, in, 1, 1) weight is the
 *     Linear (out, in), and the stem convs run NCHW on (out, in, 3, 3). So folding never
 *     repacks, and every tensor starts at a 64-element boundary of the slot (256-byte
 *     aligned for f32), the alignment the GEMM plans assume for weights.
 *   - The stem runs NCHW (its input has 3 channels) and its 48-channel output at S/4 is
 *     copied to tokens once, the smaller of the two stem maps.
 *   - Squeeze-excite: channel mean -> Linear + ReLU -> Linear -> sigmoid -> per-channel
 *     scale, each one op, as timm evaluates them (x * sigmoid(fc2(relu(fc1(mean x))))).
 *   - The residual adds of the MLPs are fused into the second Linear's epilogue (bf16 runs:
 *     into the BatchNorm's f32 affine, which then rounds conv -> BN -> + x once, not twice).
 *   - bf16 runs apply each BatchNorm after its conv (bn_apart): with folded bf16 weights the
 *     official EdgeTAM's own bf16 masks lose 0.0065 mean IoU against fp32 over the bedroom clip
 *     (tests/parity/bf16_storage_probe.sh "fold"), which is the bulk of what samrt lost.
 * Tests: tests/test_repvit.c (CPU backend against an unfolded naive model). */
#include "repvit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt.h"
#include "model_env.h"
#include "ops.h"

#define BODY "image_encoder.trunk.body."
#define FOLD_ALIGN 64   /* elements between folded tensors' starts */

int samrt_repvit_se_dim(int channels) {
    /* timm make_divisible(v, 8, round_limit 0): max(8, int(v + 4) // 8 * 8) */
    const int v = channels / 4;
    const int r = (v + 4) / 8 * 8;
    return r < 8 ? 8 : r;
}

/* ---- layer table and binding ------------------------------------------------------------------- */

static void conv_init(struct samrt_repvit_conv *cv, int64_t *off, int c_out, int c_in, int k, int stride, int groups,
                      int dw_rep, const char *fmt, ...) SAMRT_PRINTF(9, 10);
static void conv_init(struct samrt_repvit_conv *cv, int64_t *off, int c_out, int c_in, int k, int stride, int groups,
                      int dw_rep, const char *fmt, ...) {
    memset(cv, 0, sizeof *cv);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cv->key, sizeof cv->key, fmt, ap);
    va_end(ap);
    cv->dw_rep = dw_rep;
    cv->c_out = c_out;
    cv->c_in = c_in;
    cv->k = k;
    cv->stride = stride;
    cv->groups = groups;
    cv->off_w = *off;
    *off += SAMRT_PAD((int64_t)c_out * (c_in / groups) * k * k, FOLD_ALIGN);
    cv->off_b = *off;
    *off += SAMRT_PAD((int64_t)c_out, FOLD_ALIGN);
}

/* The keys of one ConvNorm at prefix p: c.weight and the four BatchNorm tensors. */
static void bind_convnorm(struct samrt_model_binder *b, const char *p, int c_out, int cpg, int k) {
    samrt_model_bindw(b, 4, SAMRT_SHAPE(c_out, cpg, k, k), "%s.c.weight", p);
    static const char *bn[] = {"weight", "bias", "running_mean", "running_var"};
    for (int i = 0; i < 4; i++) samrt_model_bindw(b, 1, SAMRT_SHAPE(c_out), "%s.bn.%s", p, bn[i]);
}

static void bind_conv(struct samrt_model_binder *b, const struct samrt_repvit_conv *cv) {
    char p[SAMRT_REPVIT_KEY_MAX + 8];
    if (cv->dw_rep) {
        snprintf(p, sizeof p, "%s.conv", cv->key);
        bind_convnorm(b, p, cv->c_out, 1, 3);
        snprintf(p, sizeof p, "%s.conv1", cv->key);
        bind_convnorm(b, p, cv->c_out, 1, 1);
    } else {
        bind_convnorm(b, cv->key, cv->c_out, cv->c_in / cv->groups, cv->k);
    }
}

/* A RepViTBlock of width C at prefix p. */
static void block_init(struct samrt_repvit *rv, struct samrt_repvit_block *blk, int64_t *off, int C, int stage,
                       int se, const char *p, struct samrt_model_binder *b) {
    memset(blk, 0, sizeof *blk);
    blk->dim = C;
    blk->stage = stage;
    const int hid = C * rv->cfg->mlp_ratio;
    conv_init(&blk->mixer, off, C, C, 3, 1, C, 1, "%s.token_mixer", p);
    conv_init(&blk->mlp1, off, hid, C, 1, 1, 1, 0, "%s.channel_mixer.conv1", p);
    conv_init(&blk->mlp2, off, C, hid, 1, 1, 1, 0, "%s.channel_mixer.conv2", p);
    bind_conv(b, &blk->mixer);
    if (se) {
        const int r = samrt_repvit_se_dim(C);
        blk->se_w1 = samrt_model_bindw(b, 4, SAMRT_SHAPE(r, C, 1, 1), "%s.se.fc1.weight", p);
        blk->se_b1 = samrt_model_bindw(b, 1, SAMRT_SHAPE(r), "%s.se.fc1.bias", p);
        blk->se_w2 = samrt_model_bindw(b, 4, SAMRT_SHAPE(C, r, 1, 1), "%s.se.fc2.weight", p);
        blk->se_b2 = samrt_model_bindw(b, 1, SAMRT_SHAPE(C), "%s.se.fc2.bias", p);
    }
    bind_conv(b, &blk->mlp1);
    bind_conv(b, &blk->mlp2);
}

enum samrt_status samrt_repvit_bind(struct samrt_repvit *rv, const struct samrt_repvit_config *cfg, int imgsz,
                                    struct samrt_model_binder *b) {
    memset(rv, 0, sizeof *rv);
    SAMRT_CHECK(cfg && b, SAMRT_E_INVALID_ARG, "repvit: NULL argument");
    rv->cfg = cfg;
    rv->imgsz = imgsz;
    rv->slot_folded = -1;
    rv->slot_bn = -1;
    int n = 0;
    for (int s = 0; s < SAMRT_REPVIT_N_STAGES; s++) n += cfg->depth[s];
    SAMRT_CHECK(n <= SAMRT_REPVIT_MAX_BLOCKS && cfg->mlp_ratio > 0, SAMRT_E_INVALID_ARG,
                "repvit: %d blocks (at most %d), mlp ratio %d", n, SAMRT_REPVIT_MAX_BLOCKS, cfg->mlp_ratio);
    for (int s = 0; s < SAMRT_REPVIT_N_STAGES; s++)
        SAMRT_CHECK(cfg->dims[s] > 0 && cfg->dims[s] % 2 == 0 && cfg->depth[s] >= 0, SAMRT_E_INVALID_ARG,
                    "repvit: stage %d width %d depth %d", s, cfg->dims[s], cfg->depth[s]);
    int64_t off = 0;
    char p[SAMRT_REPVIT_KEY_MAX];
    const int d0 = cfg->dims[0];
    conv_init(&rv->stem1, &off, d0 / 2, 3, 3, 2, 1, 0, BODY "stem.conv1");
    conv_init(&rv->stem2, &off, d0, d0 / 2, 3, 2, 1, 0, BODY "stem.conv2");
    bind_conv(b, &rv->stem1);
    bind_conv(b, &rv->stem2);
    for (int s = 0; s < SAMRT_REPVIT_N_STAGES; s++) {
        const int C = cfg->dims[s];
        if (s > 0) {
            const int a = cfg->dims[s - 1];
            struct samrt_repvit_down *d = &rv->down[s - 1];
            snprintf(p, sizeof p, BODY "stages_%d.downsample.pre_block", s);
            block_init(rv, &d->pre, &off, a, s, 0, p, b);
            conv_init(&d->spatial, &off, a, a, 3, 2, a, 0, BODY "stages_%d.downsample.spatial_downsample", s);
            conv_init(&d->channel, &off, C, a, 1, 1, 1, 0, BODY "stages_%d.downsample.channel_downsample", s);
            conv_init(&d->ffn1, &off, C * cfg->mlp_ratio, C, 1, 1, 1, 0, BODY "stages_%d.downsample.ffn.conv1", s);
            conv_init(&d->ffn2, &off, C, C * cfg->mlp_ratio, 1, 1, 1, 0, BODY "stages_%d.downsample.ffn.conv2", s);
            bind_conv(b, &d->spatial);
            bind_conv(b, &d->channel);
            bind_conv(b, &d->ffn1);
            bind_conv(b, &d->ffn2);
        }
        for (int i = 0; i < cfg->depth[s]; i++) {
            snprintf(p, sizeof p, BODY "stages_%d.blocks.%d", s, i);
            block_init(rv, &rv->blk[rv->n_blk++], &off, C, s, i % 2 == 0, p, b);  /* SE on 0, 2, 4, ... */
        }
    }
    rv->folded_elems = off;
    return b->st;
}

/* ---- planning and folding ---------------------------------------------------------------------- */

/* Every folded conv of the trunk, in layer order. */
static int all_convs(struct samrt_repvit *rv, struct samrt_repvit_conv **out) {
    int n = 0;
    out[n++] = &rv->stem1;
    out[n++] = &rv->stem2;
    for (int s = 1; s < SAMRT_REPVIT_N_STAGES; s++) {
        struct samrt_repvit_down *d = &rv->down[s - 1];
        out[n++] = &d->pre.mixer;
        out[n++] = &d->pre.mlp1;
        out[n++] = &d->pre.mlp2;
        out[n++] = &d->spatial;
        out[n++] = &d->channel;
        out[n++] = &d->ffn1;
        out[n++] = &d->ffn2;
    }
    for (int i = 0; i < rv->n_blk; i++) {
        out[n++] = &rv->blk[i].mixer;
        out[n++] = &rv->blk[i].mlp1;
        out[n++] = &rv->blk[i].mlp2;
    }
    return n;
}

#define MAX_CONVS (2 + 7 * (SAMRT_REPVIT_N_STAGES - 1) + 3 * SAMRT_REPVIT_MAX_BLOCKS)

/* The views of a conv inside the folded tensor (data NULL until the slot is resolved). */
static void conv_views(struct samrt_repvit_conv *cv, const struct samrt_tensor *folded) {
    const enum samrt_dtype dt = folded->dtype;
    const int64_t co = cv->c_out;
    if (cv->k == 1)
        cv->w = samrt_tensor_make(NULL, dt, 2, SAMRT_SHAPE(co, cv->c_in));
    else if (cv->groups == 1)
        cv->w = samrt_tensor_make(NULL, dt, 4, SAMRT_SHAPE(co, cv->c_in, cv->k, cv->k));
    else
        cv->w = samrt_tensor_make(NULL, dt, 4, SAMRT_SHAPE(co, cv->k, cv->k, cv->c_in / cv->groups));
    cv->b = samrt_tensor_make(NULL, dt, 1, SAMRT_SHAPE(co));
    if (folded->data) {
        const size_t es = samrt_dtype_size(dt);
        cv->w.data = (char *)folded->data + (size_t)cv->off_w * es;
        cv->b.data = (char *)folded->data + (size_t)cv->off_b * es;
    }
}

/* bn_apart: the f32 scale / shift views of a conv (4 x c_out values from off_bn). */
static void bn_views(struct samrt_repvit_conv *cv, const struct samrt_tensor *bn) {
    struct samrt_tensor *v[4] = {&cv->s, &cv->sh, &cv->s1, &cv->sh1};
    for (int i = 0; i < 4; i++) {
        *v[i] = samrt_tensor_make(NULL, SAMRT_DTYPE_F32, 1, SAMRT_SHAPE(cv->c_out));
        if (bn->data) v[i]->data = (float *)bn->data + cv->off_bn + (int64_t)i * cv->c_out;
    }
}

static void all_views(struct samrt_repvit *rv) {
    struct samrt_repvit_conv *cv[MAX_CONVS];
    const int n = all_convs(rv, cv);
    for (int i = 0; i < n; i++) {
        conv_views(cv[i], &rv->folded);
        if (rv->bn_apart) bn_views(cv[i], &rv->bn);
    }
}

enum samrt_status samrt_repvit_plan(struct samrt_repvit *rv, struct samrt_op_ctx *c) {
    rv->bn_apart = rv->bn_mode == SAMRT_REPVIT_BN_APART ||
                   (rv->bn_mode == SAMRT_REPVIT_BN_AUTO && c->dtype == SAMRT_DTYPE_BF16);
    SAMRT_TRY(samrt_ctx_persistent(c, "edgetam.trunk.folded", SAMRT_REGION_WEIGHTS, c->dtype, 1,
                                   SAMRT_SHAPE(rv->folded_elems), &rv->folded, &rv->slot_folded));
    if (rv->bn_apart) {
        struct samrt_repvit_conv *cv[MAX_CONVS];
        const int n = all_convs(rv, cv);
        rv->bn_elems = 0;
        for (int i = 0; i < n; i++) {
            cv[i]->off_bn = rv->bn_elems;
            rv->bn_elems += SAMRT_PAD((int64_t)4 * cv[i]->c_out, FOLD_ALIGN);
        }
        SAMRT_TRY(samrt_ctx_persistent(c, "edgetam.trunk.batchnorm", SAMRT_REGION_WEIGHTS, SAMRT_DTYPE_F32, 1,
                                       SAMRT_SHAPE(rv->bn_elems), &rv->bn, &rv->slot_bn));
    }
    all_views(rv);
    return SAMRT_OK;
}

/* The checkpoint values of one ConvNorm at prefix p: its conv weight (c_out x per) into w, its
 * BatchNorm weight, bias, running mean and var (c_out each) into bn. */
static enum samrt_status read_convnorm(samrt_repvit_get_fn get, void *user, const char *p, int64_t c_out,
                                       int64_t per, float *w, float *bn) {
    static const char *names[] = {"weight", "bias", "running_mean", "running_var"};
    char key[SAMRT_REPVIT_KEY_MAX + 24];
    snprintf(key, sizeof key, "%s.c.weight", p);
    enum samrt_status st = get(user, key, c_out * per, w);
    for (int i = 0; i < 4 && st == SAMRT_OK; i++) {
        snprintf(key, sizeof key, "%s.bn.%s", p, names[i]);
        st = get(user, key, c_out, bn + i * c_out);
    }
    return st;
}

/* Folds one ConvNorm at prefix p (c_out x per weights) into w_out, b_out. */
static enum samrt_status fold_convnorm(samrt_repvit_get_fn get, void *user, const char *p, int64_t c_out,
                                       int64_t per, float *w_out, float *b_out) {
    float *buf = malloc(sizeof(float) * (size_t)(c_out * per + 4 * c_out));  /* setup only */
    SAMRT_CHECK(buf != NULL, SAMRT_E_HOST_MEMORY, "repvit: out of host memory");
    float *w = buf, *bn = buf + c_out * per;
    enum samrt_status st = read_convnorm(get, user, p, c_out, per, w, bn);
    if (st == SAMRT_OK)
        st = samrt_op_host_bn_fold_conv(c_out, per, w, NULL, bn, bn + c_out, bn + 2 * c_out, bn + 3 * c_out, SAMRT_BN_EPS,
                                w_out, b_out);
    free(buf);
    return st;
}

/* bn_apart: one ConvNorm at prefix p as its raw weight (c_out x per, into w_out) and its
 * BatchNorm as scale / shift (c_out each): bn_fold.h on a unit weight gives exactly those. */
static enum samrt_status apart_convnorm(samrt_repvit_get_fn get, void *user, const char *p, int64_t c_out,
                                        int64_t per, float *w_out, float *s_out, float *sh_out) {
    float *buf = malloc(sizeof(float) * (size_t)(5 * c_out));  /* setup only */
    SAMRT_CHECK(buf != NULL, SAMRT_E_HOST_MEMORY, "repvit: out of host memory");
    float *bn = buf, *one = buf + 4 * c_out;
    enum samrt_status st = read_convnorm(get, user, p, c_out, per, w_out, bn);
    for (int64_t o = 0; o < c_out; o++) one[o] = 1.0f;
    if (st == SAMRT_OK)
        st = samrt_op_host_bn_fold_conv(c_out, 1, one, NULL, bn, bn + c_out, bn + 2 * c_out, bn + 3 * c_out, SAMRT_BN_EPS,
                                s_out, sh_out);
    free(buf);
    return st;
}

/* bn_apart: raw weights into `raw` (the folded slot's layout: the 3x3 at off_w, a RepVggDw's
 * 1x1 at off_b), scales and shifts into `bn` at off_bn (s, sh, s1, sh1). */
static enum samrt_status apart_conv(const struct samrt_repvit_conv *cv, samrt_repvit_get_fn get, void *user,
                                    float *raw, float *bn) {
    const int64_t co = cv->c_out;
    float *s = bn + cv->off_bn;
    if (!cv->dw_rep)
        return apart_convnorm(get, user, cv->key, co, (int64_t)(cv->c_in / cv->groups) * cv->k * cv->k,
                              raw + cv->off_w, s, s + co);
    char p[SAMRT_REPVIT_KEY_MAX + 8];
    snprintf(p, sizeof p, "%s.conv", cv->key);
    SAMRT_TRY(apart_convnorm(get, user, p, co, 9, raw + cv->off_w, s, s + co));
    snprintf(p, sizeof p, "%s.conv1", cv->key);
    return apart_convnorm(get, user, p, co, 1, raw + cv->off_b, s + 2 * co, s + 3 * co);
}

static enum samrt_status fold_conv(const struct samrt_repvit_conv *cv, samrt_repvit_get_fn get, void *user,
                                   float *folded) {
    float *w_out = folded + cv->off_w, *b_out = folded + cv->off_b;
    const int64_t co = cv->c_out;
    if (!cv->dw_rep)
        return fold_convnorm(get, user, cv->key, co, (int64_t)(cv->c_in / cv->groups) * cv->k * cv->k, w_out, b_out);
    char p[SAMRT_REPVIT_KEY_MAX + 8];
    float *buf = malloc(sizeof(float) * (size_t)(12 * co));  /* setup only: w3 (9C) b3 w1 b1 */
    SAMRT_CHECK(buf != NULL, SAMRT_E_HOST_MEMORY, "repvit: out of host memory");
    float *w3 = buf, *b3 = w3 + 9 * co, *w1 = b3 + co, *b1 = w1 + co;
    snprintf(p, sizeof p, "%s.conv", cv->key);
    enum samrt_status st = fold_convnorm(get, user, p, co, 9, w3, b3);
    snprintf(p, sizeof p, "%s.conv1", cv->key);
    if (st == SAMRT_OK) st = fold_convnorm(get, user, p, co, 1, w1, b1);
    if (st == SAMRT_OK) samrt_op_host_bn_fold_repvgg_dw(co, w3, b3, w1, b1, w_out, b_out);
    free(buf);
    return st;
}

/* Every folded tensor into the host f32 buffer `folded` (rv->folded_elems; gaps zeroed); with
 * bn_apart the raw weights there and the BatchNorms into `bn` (rv->bn_elems). */
static enum samrt_status fold_all(struct samrt_repvit *rv, samrt_repvit_get_fn get, void *user, float *folded,
                                  float *bn) {
    memset(folded, 0, sizeof(float) * (size_t)rv->folded_elems);
    if (bn) memset(bn, 0, sizeof(float) * (size_t)rv->bn_elems);
    struct samrt_repvit_conv *cv[MAX_CONVS];
    const int n = all_convs(rv, cv);
    for (int i = 0; i < n; i++)
        SAMRT_TRY(bn ? apart_conv(cv[i], get, user, folded, bn) : fold_conv(cv[i], get, user, folded));
    return SAMRT_OK;
}

static enum samrt_status ckpt_get(void *user, const char *key, int64_t n, float *out) {
    const struct samrt_ckpt *ck = user;
    const struct samrt_ckpt_tensor *t = samrt_ckpt_find(ck, key);
    SAMRT_CHECK(t && t->nelements == n, SAMRT_E_KEYS, "repvit: %s missing from the checkpoint or not %lld values",
                key, (long long)n);
    return samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, out, sizeof(float) * (uint64_t)n);
}

enum samrt_status samrt_repvit_prepare_with(struct samrt_repvit *rv, const struct samrt_model_env *env,
                                            samrt_repvit_get_fn get, void *user) {
    SAMRT_CHECK(rv && env && get && rv->slot_folded >= 0, SAMRT_E_BAD_STATE, "repvit: not planned");
    SAMRT_CHECK(!rv->bn_apart || rv->slot_bn >= 0, SAMRT_E_BAD_STATE, "repvit: not planned");
    rv->folded.data = samrt_model_slot(env, rv->slot_folded);
    if (rv->bn_apart) rv->bn.data = samrt_model_slot(env, rv->slot_bn);
    all_views(rv);
    const int64_t n = rv->folded_elems;
    const enum samrt_dtype dt = rv->folded.dtype;
    float *f = malloc(sizeof(float) * (size_t)n);  /* setup only */
    float *bn = rv->bn_apart ? malloc(sizeof(float) * (size_t)rv->bn_elems) : NULL;
    void *host = dt == SAMRT_DTYPE_F32 ? (void *)f : malloc(samrt_tensor_nbytes(&rv->folded));
    enum samrt_status st = f && host && (bn || !rv->bn_apart) ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) st = fold_all(rv, get, user, f, bn);
    if (st == SAMRT_OK && host != f)
        for (int64_t i = 0; i < n; i++) samrt_op_host_store(dt, host, i, f[i]);  /* rounded once */
    if (st == SAMRT_OK)
        st = samrt_model_upload(env, rv->folded.data, host, samrt_tensor_nbytes(&rv->folded));
    if (st == SAMRT_OK && bn)
        st = samrt_model_upload(env, rv->bn.data, bn, samrt_tensor_nbytes(&rv->bn));
    if (host != f) free(host);
    free(f);
    free(bn);
    return st;
}

enum samrt_status samrt_repvit_prepare(struct samrt_repvit *rv, const struct samrt_model_env *env,
                                       const struct samrt_ckpt *ck) {
    SAMRT_CHECK(ck != NULL, SAMRT_E_INVALID_ARG, "repvit: no checkpoint");
    return samrt_repvit_prepare_with(rv, env, ckpt_get, (void *)ck);
}

/* ---- forward ----------------------------------------------------------------------------------- */

/* A folded conv on the channels-last map x (1, H, W, C): Linear for 1x1, NHWC conv else.
 * bn_apart: the raw conv (output rounded), then BatchNorm + act (+ res) as one f32 affine; a
 * RepVggDw as timm computes it: bn3(dw3x3(x)) + bn1(dw1x1(x)) + x, left to right. The
 * depthwise ones run as samrt_op_dwconv_bn: one kernel with the same roundings. */
static struct samrt_tensor conv(struct samrt_op_ctx *c, const char *name, const struct samrt_repvit *rv,
                                const struct samrt_repvit_conv *cv, const struct samrt_tensor *x, enum samrt_act act,
                                const struct samrt_tensor *res) {
    const int lin = cv->k == 1 && cv->stride == 1 && cv->groups == 1;
    if (!rv->bn_apart) {
        if (lin) return samrt_op_linear(c, name, x, &cv->w, &cv->b, act, res);
        return samrt_op_conv2d(c, name, x, &cv->w, &cv->b, cv->stride, cv->k / 2, cv->groups, SAMRT_CONV_NHWC, act);
    }
    if (cv->groups == cv->c_in && cv->groups > 1) {  /* depthwise: RepVggDw mixers, spatial downsample */
        const int rep = cv->dw_rep;
        const struct samrt_op_dwconv_bn_args a = {.stride = cv->stride,
                                                  .pad = cv->k / 2,
                                                  .s = &cv->s,
                                                  .sh = &cv->sh,
                                                  .w1 = rep ? &cv->b : NULL,
                                                  .s1 = rep ? &cv->s1 : NULL,
                                                  .sh1 = rep ? &cv->sh1 : NULL,
                                                  .residual = res,
                                                  .act = act,
                                                  .unfused = rv->bn_unfused};
        return samrt_op_dwconv_bn(c, name, x, &cv->w, &a);
    }
    struct samrt_tensor t = lin ? samrt_op_linear(c, name, x, &cv->w, NULL, SAMRT_ACT_NONE, NULL)
                                : samrt_op_conv2d(c, name, x, &cv->w, NULL, cv->stride, cv->k / 2, cv->groups,
                                                  SAMRT_CONV_NHWC, SAMRT_ACT_NONE);
    return samrt_op_channel_affine_act(c, name, &t, &cv->s, &cv->sh, res, 1, act);
}

/* x + mlp2(GELU(mlp1(x))) (RepVitMlp with its residual). */
static struct samrt_tensor mlp(struct samrt_op_ctx *c, const struct samrt_repvit *rv,
                               const struct samrt_repvit_conv *c1, const struct samrt_repvit_conv *c2,
                               const struct samrt_tensor *x) {
    struct samrt_tensor h = conv(c, "repvit.mlp1", rv, c1, x, SAMRT_ACT_GELU, NULL);
    return conv(c, "repvit.mlp2", rv, c2, &h, SAMRT_ACT_NONE, x);
}

static struct samrt_tensor block(struct samrt_op_ctx *c, const struct samrt_repvit *rv,
                                 const struct samrt_repvit_block *b, const struct samrt_tensor *x) {
    struct samrt_tensor t = conv(c, "repvit.mixer", rv, &b->mixer, x, SAMRT_ACT_NONE, NULL);
    if (b->se_w1) {
        struct samrt_tensor m = samrt_op_channel_mean(c, "repvit.se_mean", &t);
        struct samrt_tensor s1 = samrt_op_linear(c, "repvit.se_fc1", &m, b->se_w1, b->se_b1, SAMRT_ACT_RELU, NULL);
        struct samrt_tensor s2 = samrt_op_linear(c, "repvit.se_fc2", &s1, b->se_w2, b->se_b2, SAMRT_ACT_NONE, NULL);
        struct samrt_tensor g = samrt_op_unary(c, "repvit.se_gate", &s2, SAMRT_ACT_SIGMOID, 1.0f, 0.0f);
        t = samrt_op_channel_affine(c, "repvit.se_scale", &t, &g, NULL, NULL, 1);
    }
    return mlp(c, rv, &b->mlp1, &b->mlp2, &t);
}

/* A stem conv (3x3 stride 2, NCHW), folded or with its BatchNorm apart. */
static struct samrt_tensor stem_conv(struct samrt_op_ctx *c, const char *name, const struct samrt_repvit *rv,
                                     const struct samrt_repvit_conv *cv, const struct samrt_tensor *x,
                                     enum samrt_act act) {
    if (!rv->bn_apart) return samrt_op_conv2d(c, name, x, &cv->w, &cv->b, 2, 1, 1, SAMRT_CONV_NCHW, act);
    struct samrt_tensor t = samrt_op_conv2d(c, name, x, &cv->w, NULL, 2, 1, 1, SAMRT_CONV_NCHW, SAMRT_ACT_NONE);
    return samrt_op_channel_affine_act(c, name, &t, &cv->s, &cv->sh, NULL, 0, act);
}

void samrt_repvit_forward(struct samrt_repvit *rv, struct samrt_op_ctx *c, const struct samrt_tensor *x,
                          samrt_repvit_stage_fn stage_end, void *user) {
    struct samrt_tensor s1 = stem_conv(c, "repvit.stem1", rv, &rv->stem1, x, SAMRT_ACT_GELU);
    struct samrt_tensor s2 = stem_conv(c, "repvit.stem2", rv, &rv->stem2, &s1, SAMRT_ACT_NONE);
    static const int to_nhwc[4] = {0, 2, 3, 1};
    struct samrt_tensor s2_nhwc;
    samrt_ctx_fail(c, samrt_tensor_permute(&s2, to_nhwc, &s2_nhwc));
    struct samrt_tensor h = samrt_op_copy(c, "repvit.stem_tokens", &s2_nhwc, c->dtype, NULL);
    samrt_op_tap(c, "tap.trunk.stem", &h);
    int side = rv->imgsz / 4, i_blk = 0;
    char name[32];
    for (int s = 0; s < SAMRT_REPVIT_N_STAGES && samrt_ctx_ok(c); s++) {
        if (s > 0) {
            const struct samrt_repvit_down *d = &rv->down[s - 1];
            struct samrt_tensor p = block(c, rv, &d->pre, &h);
            struct samrt_tensor sp = conv(c, "repvit.down_spatial", rv, &d->spatial, &p, SAMRT_ACT_NONE, NULL);
            struct samrt_tensor ch = conv(c, "repvit.down_channel", rv, &d->channel, &sp, SAMRT_ACT_NONE, NULL);
            h = mlp(c, rv, &d->ffn1, &d->ffn2, &ch);
            side /= 2;
        }
        for (int i = 0; i < rv->cfg->depth[s]; i++) h = block(c, rv, &rv->blk[i_blk++], &h);
        snprintf(name, sizeof name, "tap.trunk.stage.%d", s);
        samrt_op_tap(c, name, &h);
        if (stage_end) stage_end(user, c, s, &h, side, side);
    }
}
