/* test_repvit.c - EdgeTAM's RepViT-M1 trunk (models/edgetam/repvit.c) on the CPU backend at
 * a 64x64 input, against a naive NCHW model written from model-spec 3.2 that keeps every
 * BatchNorm separate (eval formula, eps 1e-5) and runs RepVggDw as its three branches
 * (dw3x3 + dw1x1 + identity). So the check covers the folding (BN into conv, RepVggDw into
 * one depthwise conv), the squeeze-excite placement (blocks 0, 2, 4, ... of each stage, none
 * in the downsample pre-blocks), the downsample blocks, the stage callback's sides and the
 * taps. Random weights with realistic BatchNorm statistics (var in [0.5, 1.5]). Both ways
 * of running the BatchNorms: folded, and apart (raw conv, then an f32 affine: bf16 runs), and
 * apart through the fused depthwise op (samrt_op_dwconv_bn) against the unfused chain of ops,
 * bit for bit at every tap.
 * Also: the SE widths, key count, a checkpoint with a non-positive running_var is refused.
 * Run: test_repvit */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "enc_weights_util.h"

#define IMGSZ 64
#define TOL_REL 2e-5f /* of a tap's max |value|: folding changes f32 rounding only */

static struct ew_table g_t;

static const float *W(const char *fmt, ...) SAMRT_PRINTF(1, 2);
static const float *W(const char *fmt, ...) {
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    const float *v = ew_find(&g_t, name);
    if (v) return v;
    fprintf(stderr, "no weight %s\n", name);
    exit(1);
}

/* BatchNorm statistics as trained nets have them; the residual branches' BatchNorm gains
 * small, as trained nets keep them, so that 20 residual blocks do not blow the scale up */
static float weight_value(const char *name, int64_t fan_in, float u) {
    if (ew_ends_with(name, "running_var")) return 1.0f + 0.5f * u;
    if (ew_ends_with(name, "running_mean")) return 0.3f * u;
    if (ew_ends_with(name, "bn.weight"))
        return (strstr(name, "token_mixer") || strstr(name, "conv2.bn") ? 0.3f : 1.0f) * (1.0f + 0.3f * u);
    if (ew_ends_with(name, "bias")) return 0.2f * u;
    return u * (float)(1.7 / sqrt((double)fan_in));
}

/* The checkpoint source of the folding: the generated values. */
static enum samrt_status get_weight(void *user, const char *key, int64_t n, float *out) {
    (void)user;
    for (int i = 0; i < g_t.keys.n; i++) {
        if (strcmp(g_t.keys.keys[i].name, key)) continue;
        if (ew_count(&g_t.keys.keys[i], NULL) != n) return SAMRT_E_KEYS;
        memcpy(out, g_t.data[i], sizeof(float) * (size_t)n);
        return SAMRT_OK;
    }
    return SAMRT_E_KEYS;
}

/* ---- naive NCHW model (batch 1) ------------------------------------------------------------- */

struct map {
    int c, h, w;
    float *v; /* (c, h, w) */
};

static struct map map_new(int c, int h, int w) {
    struct map m = {c, h, w, calloc((size_t)c * h * w, sizeof(float))};
    return m;
}

/* conv without bias, k x k, stride, pad k/2, groups */
static struct map conv(const struct map *x, const float *wt, int c_out, int k, int stride, int groups) {
    const int pad = k / 2, ho = (x->h + 2 * pad - k) / stride + 1, wo = (x->w + 2 * pad - k) / stride + 1;
    const int cpg = x->c / groups, opg = c_out / groups;
    struct map y = map_new(c_out, ho, wo);
    for (int o = 0; o < c_out; o++)
        for (int oy = 0; oy < ho; oy++)
            for (int ox = 0; ox < wo; ox++) {
                double acc = 0.0;
                for (int i = 0; i < cpg; i++) {
                    const int ci = (o / opg) * cpg + i;
                    for (int r = 0; r < k; r++)
                        for (int s = 0; s < k; s++) {
                            const int iy = oy * stride - pad + r, ix = ox * stride - pad + s;
                            if (iy < 0 || ix < 0 || iy >= x->h || ix >= x->w) continue;
                            acc += (double)x->v[((size_t)ci * x->h + iy) * x->w + ix] * wt[((o * cpg + i) * k + r) * k + s];
                        }
                }
                y.v[((size_t)o * ho + oy) * wo + ox] = (float)acc;
            }
    return y;
}

/* ConvNorm at prefix p: conv, then eval BatchNorm (y - mean) / sqrt(var + eps) * g + b */
static struct map convnorm(const struct map *x, const char *p, int c_out, int k, int stride, int groups) {
    struct map y = conv(x, W("%s.c.weight", p), c_out, k, stride, groups);
    const float *g = W("%s.bn.weight", p), *b = W("%s.bn.bias", p), *mu = W("%s.bn.running_mean", p),
                *var = W("%s.bn.running_var", p);
    for (int o = 0; o < c_out; o++)
        for (int j = 0; j < y.h * y.w; j++) {
            float *v = &y.v[(size_t)o * y.h * y.w + j];
            *v = (float)(((double)*v - mu[o]) / sqrt((double)var[o] + 1e-5) * g[o] + b[o]);
        }
    return y;
}

static void gelu(struct map *x) {
    for (size_t j = 0; j < (size_t)x->c * x->h * x->w; j++) x->v[j] = (float)(0.5 * x->v[j] * (1.0 + erf(x->v[j] / sqrt(2.0))));
}

/* a += b */
static void add(struct map *a, const struct map *b) {
    for (size_t j = 0; j < (size_t)a->c * a->h * a->w; j++) a->v[j] += b->v[j];
}

/* x + conv2(GELU(conv1(x))) */
static struct map mlp(struct map x, const char *p1, const char *p2, int ratio) {
    struct map h = convnorm(&x, p1, x.c * ratio, 1, 1, 1);
    gelu(&h);
    struct map y = convnorm(&h, p2, x.c, 1, 1, 1);
    add(&y, &x);
    free(h.v);
    free(x.v);
    return y;
}

static struct map block(struct map x, const char *p, int se, int ratio) {
    char a[160], b[160];
    snprintf(a, sizeof a, "%s.token_mixer.conv", p);
    struct map t = convnorm(&x, a, x.c, 3, 1, x.c);
    snprintf(a, sizeof a, "%s.token_mixer.conv1", p);
    struct map t1 = convnorm(&x, a, x.c, 1, 1, x.c);
    add(&t, &t1);
    add(&t, &x);
    free(t1.v);
    free(x.v);
    if (se) {
        const int C = t.c, r = samrt_repvit_se_dim(C), n = t.h * t.w;
        const float *w1 = W("%s.se.fc1.weight", p), *b1 = W("%s.se.fc1.bias", p), *w2 = W("%s.se.fc2.weight", p),
                    *b2 = W("%s.se.fc2.bias", p);
        double m[512], s1[128];
        for (int ch = 0; ch < C; ch++) {
            m[ch] = 0;
            for (int j = 0; j < n; j++) m[ch] += t.v[(size_t)ch * n + j];
            m[ch] /= n;
        }
        for (int o = 0; o < r; o++) {
            s1[o] = b1[o];
            for (int ch = 0; ch < C; ch++) s1[o] += w1[o * C + ch] * m[ch];
            s1[o] = s1[o] > 0 ? s1[o] : 0;
        }
        for (int ch = 0; ch < C; ch++) {
            double s2 = b2[ch];
            for (int o = 0; o < r; o++) s2 += w2[ch * r + o] * s1[o];
            const double gate = 1.0 / (1.0 + exp(-s2));
            for (int j = 0; j < n; j++) t.v[(size_t)ch * n + j] = (float)(t.v[(size_t)ch * n + j] * gate);
        }
    }
    snprintf(a, sizeof a, "%s.channel_mixer.conv1", p);
    snprintf(b, sizeof b, "%s.channel_mixer.conv2", p);
    return mlp(t, a, b, ratio);
}

/* ---- the run -------------------------------------------------------------------------------- */

struct run_taps {
    int n;
    char name[8][32];
    float *v[8];   /* NCHW copies */
    int64_t len[8];
    int stage_h[4], stage_w[4], stage_calls;
};
static struct run_taps g_taps;

static enum samrt_status collect(void *user, const char *name, const struct samrt_tensor *t) {
    (void)user;
    if (g_taps.n >= 8 || t->n_dims != 4) return SAMRT_OK;
    const int64_t H = t->ne[1], Wd = t->ne[2], C = t->ne[3];
    float *v = malloc(sizeof(float) * (size_t)(H * Wd * C));
    const float *src = t->data;
    for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < Wd; x++)
            for (int64_t ch = 0; ch < C; ch++) v[(ch * H + y) * Wd + x] = src[y * t->s[1] + x * t->s[2] + ch];
    snprintf(g_taps.name[g_taps.n], sizeof g_taps.name[0], "%s", name);
    g_taps.v[g_taps.n] = v;
    g_taps.len[g_taps.n++] = H * Wd * C;
    return SAMRT_OK;
}

static void on_stage(void *user, struct samrt_op_ctx *c, int stage, const struct samrt_tensor *x, int h, int w) {
    (void)user;
    if (!samrt_exec_running(c->ex)) return;
    g_taps.stage_calls++;
    g_taps.stage_h[stage] = h;
    g_taps.stage_w[stage] = w;
    CHECK(x->n_dims == 4 && x->ne[1] == h && x->ne[2] == w);
}

static void compare(const char *name, const struct map *ref) {
    for (int i = 0; i < g_taps.n; i++) {
        if (strcmp(g_taps.name[i], name)) continue;
        const int64_t n = (int64_t)ref->c * ref->h * ref->w;
        CHECK_MSG(g_taps.len[i] == n, "%s: %lld values, want %lld", name, (long long)g_taps.len[i], (long long)n);
        if (g_taps.len[i] != n) return;
        float mx = 0;
        for (int64_t j = 0; j < n; j++) mx = fmaxf(mx, fabsf(ref->v[j]));
        char what[64];
        snprintf(what, sizeof what, "%s (max %.3g)", name, mx);
        check_close_f32(what, g_taps.v[i], ref->v, (long)n, TOL_REL * mx, 0.0f);
        return;
    }
    CHECK_MSG(0, "tap %s missing", name);
}

/* One forward of the trunk on the CPU backend in f32 with the BatchNorms folded (FOLD) or
 * applied after each conv (APART, what bf16 runs use), against the naive model. */
static void run_mode(const struct samrt_repvit_config *rc, enum samrt_repvit_bn mode, int unfused) {
    static struct samrt_repvit rv;
    static struct samrt_exec ex;
    static struct samrt_arena_slot slots[2048];
    const char *mname = mode == SAMRT_REPVIT_BN_APART ? "apart" : "fold";
    for (int i = 0; i < g_taps.n; i++) free(g_taps.v[i]);
    memset(&g_taps, 0, sizeof g_taps);
    struct samrt_engine e;
    ew_engine_init(&e, &g_t, slots, (int)SAMRT_ARRAY_LEN(slots));
    struct samrt_op_ctx c;
    CHECK_EQ_INT(samrt_ctx_init_backend(&c, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, NULL, &ex, &e.plan), SAMRT_OK);
    struct samrt_model_binder binder = {samrt_engine_env(&e), NULL, SAMRT_OK};
    CHECK_EQ_INT(samrt_repvit_bind(&rv, rc, IMGSZ, &binder), SAMRT_OK);
    rv.bn_mode = mode;
    rv.bn_unfused = unfused;
    struct samrt_tensor input;
    int slot_input = -1;
    CHECK_EQ_INT(samrt_ctx_persistent(&c, "input", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 4,
                                      (const int64_t[]){1, 3, IMGSZ, IMGSZ}, &input, &slot_input),
                 SAMRT_OK);
    CHECK_EQ_INT(samrt_repvit_plan(&rv, &c), SAMRT_OK);
    CHECK_MSG(rv.bn_apart == (mode == SAMRT_REPVIT_BN_APART), "%s: bn_apart %d", mname, rv.bn_apart);
    samrt_ctx_begin(&c, SAMRT_EXEC_PLAN, NULL);
    samrt_repvit_forward(&rv, &c, &input, on_stage, NULL);
    CHECK_EQ_INT(samrt_ctx_end(&c), SAMRT_OK);
    CHECK_EQ_INT(samrt_plan_finalize(&e.plan), SAMRT_OK);
    void *pool = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(e.plan.total_bytes, SAMRT_ALIGN));
    CHECK_EQ_INT(samrt_arena_commit(&e.arena, &e.plan, pool, e.plan.total_bytes), SAMRT_OK);
    input.data = samrt_arena_ptr(&e.arena, slot_input);
    CHECK_EQ_INT(samrt_repvit_prepare_with(&rv, samrt_engine_env(&e), get_weight, NULL), SAMRT_OK);
    tu_fill_uniform(input.data, 3L * IMGSZ * IMGSZ, 11, -2.1f, 2.6f);
    c.tap = collect;
    samrt_ctx_begin(&c, SAMRT_EXEC_RUN, &e.arena);
    samrt_repvit_forward(&rv, &c, &input, on_stage, NULL);
    CHECK_EQ_INT(samrt_ctx_end(&c), SAMRT_OK);
    CHECK_EQ_INT(g_taps.stage_calls, 4);
    for (int s = 0; s < 4; s++) CHECK(g_taps.stage_h[s] == IMGSZ / (4 << s) && g_taps.stage_w[s] == IMGSZ / (4 << s));

    /* the naive model */
    const char *body = "image_encoder.trunk.body";
    char p[160], q[160];
    struct map x = map_new(3, IMGSZ, IMGSZ);
    memcpy(x.v, input.data, sizeof(float) * 3 * IMGSZ * IMGSZ);
    snprintf(p, sizeof p, "%s.stem.conv1", body);
    struct map s1 = convnorm(&x, p, rc->dims[0] / 2, 3, 2, 1);
    gelu(&s1);
    snprintf(p, sizeof p, "%s.stem.conv2", body);
    struct map h = convnorm(&s1, p, rc->dims[0], 3, 2, 1);
    free(s1.v);
    free(x.v);
    compare("tap.trunk.stem", &h);
    for (int s = 0; s < 4; s++) {
        if (s > 0) {
            snprintf(p, sizeof p, "%s.stages_%d.downsample.pre_block", body, s);
            h = block(h, p, 0, rc->mlp_ratio);
            snprintf(p, sizeof p, "%s.stages_%d.downsample.spatial_downsample", body, s);
            struct map sp = convnorm(&h, p, h.c, 3, 2, h.c);
            snprintf(p, sizeof p, "%s.stages_%d.downsample.channel_downsample", body, s);
            struct map ch = convnorm(&sp, p, rc->dims[s], 1, 1, 1);
            free(sp.v);
            free(h.v);
            snprintf(p, sizeof p, "%s.stages_%d.downsample.ffn.conv1", body, s);
            snprintf(q, sizeof q, "%s.stages_%d.downsample.ffn.conv2", body, s);
            h = mlp(ch, p, q, rc->mlp_ratio);
        }
        for (int i = 0; i < rc->depth[s]; i++) {
            snprintf(p, sizeof p, "%s.stages_%d.blocks.%d", body, s, i);
            h = block(h, p, i % 2 == 0, rc->mlp_ratio);
        }
        snprintf(p, sizeof p, "tap.trunk.stage.%d", s);
        compare(p, &h);
    }
    free(h.v);

    /* a corrupt BatchNorm (running_var + eps <= 0) is refused at prepare, either way */
    float *var = (float *)W("%s.stem.conv2.bn.running_var", body);
    const float keep = var[3];
    var[3] = -1.0f;
    CHECK_EQ_INT(samrt_repvit_prepare_with(&rv, samrt_engine_env(&e), get_weight, NULL), SAMRT_E_FORMAT);
    var[3] = keep;
    samrt_ctx_free(&c);
    free(pool);
}

int main(void) {
    const struct samrt_sam2_config *cfg = samrt_sam2_config_get(SAMRT_MODEL_EDGETAM);
    CHECK(cfg && cfg->trunk == SAMRT_TRUNK_REPVIT);
    if (!cfg) return check_report("test_repvit");
    const struct samrt_repvit_config *rc = &cfg->repvit;
    static struct samrt_repvit rv;
    struct samrt_model_binder lister = {NULL, &g_t.keys, SAMRT_OK};
    CHECK_EQ_INT(samrt_repvit_bind(&rv, rc, IMGSZ, &lister), SAMRT_OK);
    /* 106 ConvNorms x 5 keys (c.weight + 4 BatchNorm tensors) + 10 SE x 4 (model-spec 5.3) */
    CHECK_EQ_INT(g_t.keys.n, 106 * 5 + 10 * 4);
    ew_fill(&g_t, 4242, weight_value);
    run_mode(rc, SAMRT_REPVIT_BN_FOLD, 0);
    run_mode(rc, SAMRT_REPVIT_BN_APART, 0);
    /* the fused depthwise op against the chain it replaces: the same bits at every tap */
    static struct run_taps fused;
    fused = g_taps;
    memset(&g_taps, 0, sizeof g_taps);
    run_mode(rc, SAMRT_REPVIT_BN_APART, 1);
    CHECK_EQ_INT(fused.n, g_taps.n);
    for (int i = 0; i < fused.n && i < g_taps.n; i++)
        CHECK_MSG(fused.len[i] == g_taps.len[i] &&
                      !memcmp(fused.v[i], g_taps.v[i], sizeof(float) * (size_t)fused.len[i]),
                  "%s: the fused depthwise op differs from the unfused chain", fused.name[i]);
    for (int i = 0; i < fused.n; i++) free(fused.v[i]);
    for (int i = 0; i < g_taps.n; i++) free(g_taps.v[i]);
    ew_free(&g_t);
    return check_report("test_repvit");
}
