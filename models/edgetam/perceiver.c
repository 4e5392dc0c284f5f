/* perceiver.c - EdgeTAM's spatial perceiver over the op layer (perceiver.h): binding by
 * official name, the constant position slot (and the f32 weight copies of bf16 runs), the
 * global and window passes.
 *
 * Choices that are not obvious:
 *   - pos is stored twice per pixel, [pe | pe] (g*g, 128), so that one copy of the fused
 *     [k | v] projection adds it to both halves (convert, then add, rounded once: PyTorch's
 *     k + pos and v + pos); k and v are then strided views of that copy. One copy per object
 *     slot, so that the constant pos is stored once.
 *   - With one object slot the latents are read in place (no broadcast copy), and each pass's
 *     last Linear writes its half of the concatenation directly.
 *   - GELU follows a bias-free Linear: the Linear epilogue applies activations with a bias only,
 *     so that Linear gets a constant zero bias and the GELU as its epilogue: acc + 0 = acc, so
 *     the values are PyTorch's (and the host's bits those of the Linear-then-GELU ops).
 *   - The two passes write into one (B, 512, 64) tensor and share one final LayerNorm call
 *     (the norm is per token, so this is concat(norm(a), norm(b))).
 * Tests: tests/test_edgetam_memory.c, tests/test_edgetam_memory_parity.c. */
#include "perceiver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_env.h"
#include "ops_sam2.h"  /* SAMRT_SAM2_MAX_OBJ, the engine's object limit */

#define D SAMRT_EDGETAM_PERC_DIM
#define FF SAMRT_EDGETAM_PERC_FF
#define NLAT SAMRT_EDGETAM_LATENTS
#define NWIN SAMRT_EDGETAM_WINDOWS
#define LN_EPS 1e-5f

/* ---- binding and constants ------------------------------------------------------------------- */

/* Every bound weight pointer of p, in a fixed order (SAMRT_EDGETAM_PERC_TENSORS of them). */
static int fields(struct samrt_edgetam_perceiver *p, const struct samrt_tensor **f[SAMRT_EDGETAM_PERC_TENSORS]) {
    int n = 0;
    for (int l = 0; l < SAMRT_EDGETAM_PERC_DEPTH; l++) {
        struct samrt_edgetam_perc_layer *L = &p->layer[l];
        const struct samrt_tensor **lf[20] = {&L->nx_w, &L->nx_b, &L->nl_w,  &L->nl_b,  &L->q,    &L->kv,   &L->out,
                                             &L->ff_w, &L->ff_b, &L->ff1,   &L->ff2,   &L->sn_w, &L->sn_b, &L->sq,
                                             &L->skv,  &L->sout, &L->sff_w, &L->sff_b, &L->sff1, &L->sff2};
        for (int i = 0; i < 20; i++) f[n++] = lf[i];
    }
    f[n++] = &p->latents;
    f[n++] = &p->latents_2d;
    f[n++] = &p->norm_w;
    f[n++] = &p->norm_b;
    return n;
}

/* The keys of one layer's tensors (after "spatial_perceiver.layers.<l>."), in the order of
 * fields(), with their shapes (index into the shapes of the bind below). */
enum { SH_D, SH_DD, SH_KV, SH_UP, SH_DOWN };
static const struct {
    const char *key;
    int shape;
} k_layer_keys[20] = {
    {"attn.norm_x.weight", SH_D},      {"attn.norm_x.bias", SH_D},       {"attn.norm_latents.weight", SH_D},
    {"attn.norm_latents.bias", SH_D},  {"attn.to_q.weight", SH_DD},      {"attn.to_kv.weight", SH_KV},
    {"attn.to_out.weight", SH_DD},     {"ff.0.weight", SH_D},            {"ff.0.bias", SH_D},
    {"ff.1.weight", SH_UP},            {"ff.3.weight", SH_DOWN},         {"self_attn.norm.weight", SH_D},
    {"self_attn.norm.bias", SH_D},     {"self_attn.to_q.weight", SH_DD}, {"self_attn.to_kv.weight", SH_KV},
    {"self_attn.to_out.weight", SH_DD}, {"self_ff.0.weight", SH_D},     {"self_ff.0.bias", SH_D},
    {"self_ff.1.weight", SH_UP},       {"self_ff.3.weight", SH_DOWN}};

enum samrt_status samrt_edgetam_perceiver_bind(struct samrt_edgetam_perceiver *p,
                                               const struct samrt_edgetam_perceiver_config *cfg,
                                               const struct samrt_model_env *env) {
    SAMRT_CHECK(p && cfg && env, SAMRT_E_INVALID_ARG, "perceiver: NULL argument");
    memset(p, 0, sizeof *p);
    /* the memory map (side / 16) is cut into 16 x 16 windows */
    SAMRT_TRY(samrt_model_check_config("perceiver", cfg->model_side, 16 * NWIN, 16 * NWIN, cfg->b_max,
                                       SAMRT_SAM2_MAX_OBJ, cfg->dtype));
    p->cfg = *cfg;
    p->grid = cfg->model_side / 16;
    p->win = p->grid / NWIN;
    p->slot_pos = -1;
    p->slot_zero = -1;
    p->pdt = cfg->dtype == SAMRT_DTYPE_BF16 ? SAMRT_DTYPE_F32 : cfg->dtype;
    struct samrt_model_binder b = {env, NULL, SAMRT_OK};
    static const int64_t shapes[5][2] = {{D, 1}, {D, D}, {2 * D, D}, {FF, D}, {D, FF}};
    const struct samrt_tensor **f[SAMRT_EDGETAM_PERC_TENSORS];
    int n = fields(p, f), i = 0;
    for (int l = 0; l < SAMRT_EDGETAM_PERC_DEPTH; l++)
        for (int k = 0; k < 20; k++) {
            const int sh = k_layer_keys[k].shape;
            *f[i++] = samrt_model_bindw(&b, sh == SH_D ? 1 : 2, shapes[sh], "spatial_perceiver.layers.%d.%s", l,
                                        k_layer_keys[k].key);
        }
    *f[i++] = samrt_model_bindw(&b, 2, SAMRT_SHAPE(NLAT, D), "spatial_perceiver.latents");
    *f[i++] = samrt_model_bindw(&b, 2, SAMRT_SHAPE(NWIN * NWIN, D), "spatial_perceiver.latents_2d");
    *f[i++] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(D), "spatial_perceiver.norm.weight");
    *f[i++] = samrt_model_bindw(&b, 1, SAMRT_SHAPE(D), "spatial_perceiver.norm.bias");
    SAMRT_DASSERT(i == n);
    (void)n;
    return b.st;
}

enum samrt_status samrt_edgetam_perceiver_plan(struct samrt_edgetam_perceiver *p, struct samrt_op_ctx *c) {
    SAMRT_CHECK(c->dtype == p->cfg.dtype, SAMRT_E_INVALID_ARG, "perceiver: context dtype %s, module %s",
                samrt_dtype_name(c->dtype), samrt_dtype_name(p->cfg.dtype));
    SAMRT_CHECK(!p->own32, SAMRT_E_BAD_STATE, "perceiver: planned twice (bind again first)");
    const int64_t n = (int64_t)p->grid * p->grid;
    SAMRT_TRY(samrt_ctx_persistent(c, "edgetam.perceiver.pos", SAMRT_REGION_WEIGHTS, p->pdt, 3,
                                   SAMRT_SHAPE(1, n, 2 * D), &p->pos, &p->slot_pos));
    SAMRT_TRY(samrt_ctx_persistent(c, "edgetam.perceiver.zero_bias", SAMRT_REGION_WEIGHTS, p->pdt, 1, SAMRT_SHAPE(FF),
                                   &p->zero_bias, &p->slot_zero));
    if (p->pdt == p->cfg.dtype) return SAMRT_OK;
    const struct samrt_tensor **f[SAMRT_EDGETAM_PERC_TENSORS];
    const int nf = fields(p, f);
    for (int i = 0; i < nf; i++) {
        p->w_run[i] = *f[i];
        SAMRT_TRY(samrt_ctx_persistent(c, "edgetam.perceiver.f32", SAMRT_REGION_WEIGHTS, p->pdt, p->w_run[i]->n_dims,
                                       p->w_run[i]->ne, &p->w32[i], &p->slot_w32[i]));
        *f[i] = &p->w32[i];
    }
    p->own32 = 1;
    return SAMRT_OK;
}

enum samrt_status samrt_edgetam_perceiver_prepare(struct samrt_edgetam_perceiver *p, const struct samrt_model_env *env,
                                                  const struct samrt_ckpt *ck) {
    SAMRT_CHECK(p && env && p->slot_pos >= 0 && p->slot_zero >= 0, SAMRT_E_BAD_STATE, "perceiver: not planned");
    p->pos.data = samrt_model_slot(env, p->slot_pos);
    p->zero_bias.data = samrt_model_slot(env, p->slot_zero);
    const size_t row = D * samrt_dtype_size(p->pos.dtype);
    const int64_t n = (int64_t)p->grid * p->grid;
    void *img = malloc(samrt_tensor_nbytes(&p->pos));  /* setup only: [pe | pe] per pixel */
    void *pe = malloc((size_t)n * row);
    void *zero = calloc(1, samrt_tensor_nbytes(&p->zero_bias));
    enum samrt_status st = img && pe && zero ? SAMRT_OK : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) st = samrt_model_upload(env, p->zero_bias.data, zero, samrt_tensor_nbytes(&p->zero_bias));
    /* f32 values stored once at pdt, as the other sine PE tables */
    if (st == SAMRT_OK) st = samrt_op_host_sine_pe(p->pos.dtype, D, p->grid, p->grid, pe);
    for (int64_t i = 0; st == SAMRT_OK && i < n; i++)
        for (int h = 0; h < 2; h++) memcpy((char *)img + (2 * i + h) * row, (const char *)pe + i * row, row);
    if (st == SAMRT_OK) st = samrt_model_upload(env, p->pos.data, img, samrt_tensor_nbytes(&p->pos));
    free(zero);
    free(pe);
    free(img);
    if (st == SAMRT_E_HOST_MEMORY) SAMRT_LOG_ERROR("perceiver: out of host memory");
    if (st == SAMRT_OK && p->own32) {  /* the f32 copies, from the checkpoint values of w_run */
        for (int i = 0; i < SAMRT_EDGETAM_PERC_TENSORS; i++) p->w32[i].data = samrt_model_slot(env, p->slot_w32[i]);
        st = samrt_model_weights_f32_copy(env, ck, SAMRT_EDGETAM_PERC_TENSORS, p->w_run, p->w32);
    }
    return st;
}

/* ---- the layer ------------------------------------------------------------------------------- */

static struct samrt_tensor view3(const struct samrt_tensor *t, int64_t off, int64_t b, int64_t n, int64_t ch,
                                 int64_t s_b, int64_t s_t) {
    return samrt_tensor_view(t, off, 3, SAMRT_SHAPE(b, n, ch), SAMRT_SHAPE(s_b, s_t, 1));
}

static struct samrt_op_attn_args attn_args(void) {
    struct samrt_op_attn_args a;
    memset(&a, 0, sizeof a);
    a.n_head = 1;
    a.d_qk = a.d_v = D;
    return a;
}

/* lat + Linear(GELU(Linear(LN lat))), both Linear without bias (the first given the zero bias
 * zb for its GELU epilogue); written into *out where given (contiguous, lat's shape). */
static struct samrt_tensor feed_forward(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *lat,
                                        const struct samrt_tensor *nw, const struct samrt_tensor *nb,
                                        const struct samrt_tensor *w1, const struct samrt_tensor *w2,
                                        const struct samrt_tensor *zb, const struct samrt_tensor *out) {
    struct samrt_tensor t = samrt_op_layernorm(c, name, lat, nw, nb, NULL, LN_EPS, NULL);
    struct samrt_tensor h = samrt_op_linear(c, name, &t, w1, zb, SAMRT_ACT_GELU, NULL);
    if (!out) return samrt_op_linear(c, name, &h, w2, NULL, SAMRT_ACT_NONE, lat);
    samrt_op_linear_into(c, &h, w2, NULL, SAMRT_ACT_NONE, lat, out);
    return *out;
}

/* The fused kv (nb, nx, 128) + pos [pe | pe] (1, nx, 128) per object, as a new tensor. */
static struct samrt_tensor kv_add_pos(struct samrt_op_ctx *c, const char *name, const struct samrt_tensor *kv,
                                      int64_t nb, int64_t nx, const struct samrt_tensor *pos) {
    struct samrt_tensor out = samrt_op_new(c, name, kv->dtype, 3, SAMRT_SHAPE(nb, nx, 2 * D));
    for (int64_t b = 0; b < nb; b++) {
        struct samrt_tensor src = view3(kv, b * nx * 2 * D, 1, nx, 2 * D, nx * 2 * D, 2 * D);
        struct samrt_tensor dst = view3(&out, b * nx * 2 * D, 1, nx, 2 * D, nx * 2 * D, 2 * D);
        samrt_op_copy_into(c, &src, pos, &dst);
    }
    return out;
}

/* One PerceiverEncoderLayer: lat (Bq, nq, 64) attends to x (Bq, nx, 64) (pos (1, nx, 128) or
 * NULL); the result into *out where given. nq = 1 takes the exact single-token form of the
 * self-attention block. */
static struct samrt_tensor layer(struct samrt_op_ctx *c, const struct samrt_edgetam_perceiver *p, int l,
                                 const char *tag, struct samrt_tensor lat, const struct samrt_tensor *x,
                                 const struct samrt_tensor *pos, const struct samrt_tensor *out) {
    const struct samrt_edgetam_perc_layer *L = &p->layer[l];
    char name[48];
    const int64_t Bq = lat.ne[0], nq = lat.ne[1], nx = x->ne[1];
    const struct samrt_op_attn_args aa = attn_args();
    snprintf(name, sizeof name, "perceiver.%s.attn", tag);
    struct samrt_tensor ql = samrt_op_layernorm(c, name, &lat, L->nl_w, L->nl_b, NULL, LN_EPS, NULL);
    struct samrt_tensor q = samrt_op_linear(c, name, &ql, L->q, NULL, SAMRT_ACT_NONE, NULL);
    struct samrt_tensor xn = samrt_op_layernorm(c, name, x, L->nx_w, L->nx_b, NULL, LN_EPS, NULL);
    struct samrt_tensor kv = samrt_op_linear(c, name, &xn, L->kv, NULL, SAMRT_ACT_NONE, NULL);
    if (pos) kv = kv_add_pos(c, "perceiver.kv_pos", &kv, Bq, nx, pos);
    struct samrt_tensor k = view3(&kv, 0, Bq, nx, D, nx * 2 * D, 2 * D);
    struct samrt_tensor v = view3(&kv, D, Bq, nx, D, nx * 2 * D, 2 * D);
    struct samrt_tensor a = samrt_op_attention(c, name, &q, &k, &v, &aa);
    lat = samrt_op_linear(c, name, &a, L->out, NULL, SAMRT_ACT_NONE, &lat);
    snprintf(name, sizeof name, "perceiver.%s.ff", tag);
    lat = feed_forward(c, name, &lat, L->ff_w, L->ff_b, L->ff1, L->ff2, &p->zero_bias, NULL);
    snprintf(name, sizeof name, "perceiver.%s.self", tag);
    struct samrt_tensor n = samrt_op_layernorm(c, name, &lat, L->sn_w, L->sn_b, NULL, LN_EPS, NULL);
    struct samrt_tensor skv = samrt_op_linear(c, name, &n, L->skv, NULL, SAMRT_ACT_NONE, NULL);
    struct samrt_tensor sv = view3(&skv, D, Bq, nq, D, nq * 2 * D, 2 * D);
    struct samrt_tensor sa = sv;  /* one token: softmax = 1, the output is v */
    if (nq > 1) {
        struct samrt_tensor sq = samrt_op_linear(c, name, &n, L->sq, NULL, SAMRT_ACT_NONE, NULL);
        struct samrt_tensor sk = view3(&skv, 0, Bq, nq, D, nq * 2 * D, 2 * D);
        sa = samrt_op_attention(c, name, &sq, &sk, &sv, &aa);
    }
    lat = samrt_op_linear(c, name, &sa, L->sout, NULL, SAMRT_ACT_NONE, &lat);
    snprintf(name, sizeof name, "perceiver.%s.self_ff", tag);
    return feed_forward(c, name, &lat, L->sff_w, L->sff_b, L->sff1, L->sff2, &p->zero_bias, out);
}

/* ---- forward --------------------------------------------------------------------------------- */

struct samrt_tensor samrt_edgetam_perceiver_forward(struct samrt_edgetam_perceiver *p, struct samrt_op_ctx *c,
                                                    const struct samrt_tensor *x) {
    const int64_t B = p->cfg.b_max, g = p->grid, n = g * g, ws = p->win;
    if (c->ex->mode == SAMRT_EXEC_PLAN && samrt_ctx_ok(c) &&
        (x->n_dims != 3 || x->ne[0] != B || x->ne[1] != n || x->ne[2] != D || !samrt_tensor_is_contiguous(x) ||
         x->dtype != c->dtype)) {
        SAMRT_LOG_ERROR("perceiver: x must be contiguous (%lld, %lld, %d) %s", (long long)B, (long long)n, D,
                        samrt_dtype_name(c->dtype));
        samrt_ctx_fail(c, SAMRT_E_INVALID_ARG);
    }
    /* bf16 runs: the whole perceiver in f32 (pdt), from one conversion of x */
    const enum samrt_dtype dt = p->pdt;
    const struct samrt_tensor x32 = dt == x->dtype ? *x : samrt_op_copy(c, "perceiver.x_f32", x, dt, NULL);
    x = &x32;
    /* the concatenation both passes end in: with one object slot their last Linears write
     * their halves in place, else each half is copied per object (then a contiguous block) */
    struct samrt_tensor cat = samrt_op_new(c, "perceiver.cat", dt, 3, SAMRT_SHAPE(B, SAMRT_EDGETAM_MEM_TOKENS, D));
    const int64_t sb = (int64_t)SAMRT_EDGETAM_MEM_TOKENS * D, nw = NWIN * NWIN;
    const int one = B == 1;
    const struct samrt_tensor d1 = view3(&cat, 0, 1, NLAT, D, sb, D), d2 = view3(&cat, NLAT * D, nw, 1, D, D, D);

    /* global pass: the latents, broadcast over the object slots */
    struct samrt_tensor lat = samrt_tensor_view(p->latents, 0, 3, SAMRT_SHAPE(B, NLAT, D),
                                                 SAMRT_SHAPE(one ? NLAT * D : 0, D, 1));
    if (!one || p->latents->dtype != dt) lat = samrt_op_copy(c, "perceiver.latents", &lat, dt, NULL);
    for (int l = 0; l < SAMRT_EDGETAM_PERC_DEPTH; l++)
        lat = layer(c, p, l, l ? "g1" : "g0", lat, x, &p->pos,
                    one && l == SAMRT_EDGETAM_PERC_DEPTH - 1 ? &d1 : NULL);
    samrt_op_tap(c, "tap.perceiver.global", &lat);

    /* window pass: window w = (wr, wc) holds pixels (ws wr + dy, ws wc + dx), dy-major. The
     * (batch, wr) pair is one stride (g*g = NWIN * ws*g), and (dx, channel) is contiguous. */
    struct samrt_tensor wv = samrt_tensor_view(x, 0, 4, SAMRT_SHAPE(B * NWIN, NWIN, ws, ws * D),
                                               SAMRT_SHAPE(ws * g * D, ws * D, g * D, 1));
    struct samrt_tensor xw = samrt_op_copy(c, "perceiver.windows", &wv, dt, NULL);
    xw = samrt_tensor_view(&xw, 0, 3, SAMRT_SHAPE(B * nw, ws * ws, D), SAMRT_SHAPE(ws * ws * D, D, 1));
    struct samrt_tensor lat2 = samrt_tensor_view(p->latents_2d, 0, 3, SAMRT_SHAPE(B * nw, 1, D), SAMRT_SHAPE(D, D, 1));
    if (!one || p->latents_2d->dtype != dt) {
        struct samrt_tensor bc2 =
            samrt_tensor_view(p->latents_2d, 0, 4, SAMRT_SHAPE(B, nw, 1, D), SAMRT_SHAPE(0, D, D, 1));
        lat2 = samrt_op_copy(c, "perceiver.latents_2d", &bc2, dt, NULL);
        lat2 = samrt_tensor_view(&lat2, 0, 3, SAMRT_SHAPE(B * nw, 1, D), SAMRT_SHAPE(D, D, 1));
    }
    for (int l = 0; l < SAMRT_EDGETAM_PERC_DEPTH; l++)
        lat2 = layer(c, p, l, l ? "w1" : "w0", lat2, &xw, NULL,
                     one && l == SAMRT_EDGETAM_PERC_DEPTH - 1 ? &d2 : NULL);
    struct samrt_tensor lat2b = view3(&lat2, 0, B, nw, D, nw * D, D);
    samrt_op_tap(c, "tap.perceiver.window", &lat2b);

    for (int64_t b = 0; b < B && !one; b++) {  /* per object: each half is then a contiguous block */
        struct samrt_tensor s1 = view3(&lat, b * NLAT * D, 1, NLAT, D, NLAT * D, D);
        struct samrt_tensor s2 = view3(&lat2b, b * nw * D, 1, nw, D, nw * D, D);
        struct samrt_tensor c1 = view3(&cat, b * sb, 1, NLAT, D, sb, D);
        struct samrt_tensor c2 = view3(&cat, b * sb + NLAT * D, 1, nw, D, sb, D);
        samrt_op_copy_into(c, &s1, NULL, &c1);
        samrt_op_copy_into(c, &s2, NULL, &c2);
    }
    struct samrt_tensor out = samrt_op_layernorm(c, "perceiver.norm", &cat, p->norm_w, p->norm_b, NULL, LN_EPS, NULL);
    samrt_op_tap(c, "tap.perceiver.out", &out);
    return out;
}
