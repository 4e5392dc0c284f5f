/* test_sam2_encoder.c - the SAM 2 image encoder on the CPU reference backend, on a small
 * synthetic Hiera (width 8, 8 blocks, 64x64 input), against a naive reimplementation written
 * here from model-spec 3.1-3.4 the way the official code reads: zero padding of the normed
 * map, explicit window partition, qkv per window, q max-pooled inside each window, plain
 * softmax attention, un-partition and crop; then the FPN laterals, nearest x2 top-down into
 * level 2, conv_s0 / conv_s1. The encoder instead maps windows inside the attention kernel
 * and pools q on the full map, so agreement checks those shortcuts. The configuration
 * exercises every block kind: windows without padding, q-pool with and without padding,
 * a global block, windows larger than the map (padding 2 of 6, 1 of 3), a 1x1 q window.
 * Every tap (patch embed, embed, each block, the stage outputs, neck levels, fpn) is
 * compared, f32 both sides. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine_impl.h"
#include "enc_weights_util.h"
#include "image_encoder.h"
#include "test_util.h"

#define TOL_REL 2e-5f   /* of the tap's max |value|: f32 with different summation orders */

static const struct samrt_sam2_config g_cfg = {
    SAMRT_MODEL_UNKNOWN, "synthetic", {8, 1, {1, 2, 3, 2}, {4, -1, -1, -1}, {4, 2, 6, 3}, 3, 3}, 256, 3, SAMRT_TRUNK_HIERA, {{0}, {0}, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, SAMRT_KV_FULL, 0, 0};
enum { IMGSZ = 64 };

/* ---- weights ---------------------------------------------------------------------------------- */

static struct ew_table g_t;

static const float *W(const char *name) {
    const float *v = ew_find(&g_t, name);
    if (v) return v;
    fprintf(stderr, "no weight %s\n", name);
    exit(1);
}

static const float *Wf(const char *fmt, int i) {
    char name[128];
    snprintf(name, sizeof name, fmt, i);
    return W(name);
}

static float weight_value(const char *name, int64_t fan_in, float u) {
    if (strstr(name, "pos_embed")) return 0.5f * u;
    if (strstr(name, "norm") && ew_ends_with(name, ".weight")) return 1.0f + 0.2f * u;
    if (ew_ends_with(name, ".bias")) return 0.1f * u;
    return u * (float)(1.7 / sqrt((double)fan_in));
}

/* ---- naive reference ------------------------------------------------------------------------- */

/* y (n, out) = x (n, in) W^T + b */
static float *lin(const float *x, int n, int in, const float *w, const float *b, int out) {
    float *y = malloc(sizeof(float) * (size_t)n * out);
    for (int r = 0; r < n; r++)
        for (int o = 0; o < out; o++) {
            double acc = b ? b[o] : 0.0;
            for (int i = 0; i < in; i++) acc += (double)x[(size_t)r * in + i] * w[(size_t)o * in + i];
            y[(size_t)r * out + o] = (float)acc;
        }
    return y;
}

static float *layer_norm(const float *x, int n, int c, const float *w, const float *b) {
    float *y = malloc(sizeof(float) * (size_t)n * c);
    for (int r = 0; r < n; r++) {
        double m = 0, v = 0;
        for (int i = 0; i < c; i++) m += x[(size_t)r * c + i];
        m /= c;
        for (int i = 0; i < c; i++) v += (x[(size_t)r * c + i] - m) * (x[(size_t)r * c + i] - m);
        v /= c;
        for (int i = 0; i < c; i++)
            y[(size_t)r * c + i] = (float)((x[(size_t)r * c + i] - m) / sqrt(v + 1e-6) * w[i] + b[i]);
    }
    return y;
}

/* (h, w, c) -> (h/2, w/2, c) */
static float *pool2(const float *x, int h, int w, int c) {
    float *y = malloc(sizeof(float) * (size_t)(h / 2) * (w / 2) * c);
    for (int yy = 0; yy < h / 2; yy++)
        for (int xx = 0; xx < w / 2; xx++)
            for (int ch = 0; ch < c; ch++) {
                float m = -INFINITY;
                for (int d = 0; d < 4; d++) {
                    float v = x[((size_t)(2 * yy + d / 2) * w + 2 * xx + d % 2) * c + ch];
                    if (v > m) m = v;
                }
                y[((size_t)yy * (w / 2) + xx) * c + ch] = m;
            }
    return y;
}

static double cubic(double x) {  /* PyTorch's A = -0.75 kernel */
    const double a = -0.75;
    x = fabs(x);
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

/* (E, s, s) -> (side*side, E) tokens: bicubic (align_corners False) + window tile. */
static float *pos_embed_ref(int E, int s, const float *pe, int w0, const float *win, int side) {
    float *out = malloc(sizeof(float) * (size_t)side * side * E);
    const double scale = (double)s / side;
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++) {
            double sy = (y + 0.5) * scale - 0.5, sx = (x + 0.5) * scale - 0.5;
            int iy = (int)floor(sy), ix = (int)floor(sx);
            double ty = sy - iy, tx = sx - ix;
            for (int c = 0; c < E; c++) {
                double acc = 0;
                for (int a = -1; a <= 2; a++)
                    for (int b = -1; b <= 2; b++) {
                        int yy = iy + a < 0 ? 0 : iy + a >= s ? s - 1 : iy + a;
                        int xx = ix + b < 0 ? 0 : ix + b >= s ? s - 1 : ix + b;
                        acc += cubic(ty - a) * cubic(tx - b) * pe[((size_t)c * s + yy) * s + xx];
                    }
                out[((size_t)y * side + x) * E + c] =
                    (float)acc + win[((size_t)c * w0 + y % w0) * w0 + x % w0];
            }
        }
    return out;
}

/* One MultiScaleBlock exactly as hieradet.py writes it. x (H, W, dim) -> (H', W', dim_out). */
static float *block_ref(int i, const struct samrt_hiera_block *b, const float *x, int *ph, int *pw) {
    const int H = *ph, Wd = *pw, dim = b->dim, o = b->dim_out, nh = b->heads, hd = o / nh;
    char p[96];
    snprintf(p, sizeof p, "image_encoder.trunk.blocks.%d.", i);
#define BW(s) W(strcat(strcpy((char[160]){0}, p), s))
    float *xn = layer_norm(x, H * Wd, dim, BW("norm1.weight"), BW("norm1.bias"));
    float *sc;
    int Ho = H, Wo = Wd;
    if (dim != o) {
        float *pr = lin(xn, H * Wd, dim, BW("proj.weight"), BW("proj.bias"), o);
        if (b->q_pool) {
            sc = pool2(pr, H, Wd, o);
            free(pr);
        } else {
            sc = pr;
        }
    } else {
        sc = malloc(sizeof(float) * (size_t)H * Wd * o);
        memcpy(sc, x, sizeof(float) * (size_t)H * Wd * o);
    }
    if (b->q_pool) { Ho = H / 2; Wo = Wd / 2; }
    /* window partition of the zero-padded normed map (global: one window of the whole map) */
    const int ws_h = b->window ? b->window : H, ws_w = b->window ? b->window : Wd;
    const int Hp = (H + ws_h - 1) / ws_h * ws_h, Wp = (Wd + ws_w - 1) / ws_w * ws_w;
    const int nwy = Hp / ws_h, nwx = Wp / ws_w, T = ws_h * ws_w;
    const int qh = b->q_pool ? ws_h / 2 : ws_h, qw = b->q_pool ? ws_w / 2 : ws_w, Tq = qh * qw;
    const int Hqp = nwy * qh, Wqp = nwx * qw;  /* padded output grid before the crop */
    float *outp = calloc((size_t)Hqp * Wqp * o, sizeof(float));
    float *win = malloc(sizeof(float) * (size_t)T * dim);
    for (int wy = 0; wy < nwy; wy++)
        for (int wx = 0; wx < nwx; wx++) {
            for (int r = 0; r < T; r++) {
                const int y = wy * ws_h + r / ws_w, xx = wx * ws_w + r % ws_w;
                for (int c = 0; c < dim; c++)
                    win[(size_t)r * dim + c] = y < H && xx < Wd ? xn[((size_t)y * Wd + xx) * dim + c] : 0.0f;
            }
            float *qkv = lin(win, T, dim, BW("attn.qkv.weight"), BW("attn.qkv.bias"), 3 * o);
            float *q = malloc(sizeof(float) * (size_t)T * o), *qq;
            for (int r = 0; r < T; r++) memcpy(q + (size_t)r * o, qkv + (size_t)r * 3 * o, sizeof(float) * o);
            if (b->q_pool) {
                qq = pool2(q, ws_h, ws_w, o);
                free(q);
            } else {
                qq = q;
            }
            float *att = malloc(sizeof(float) * (size_t)Tq * o);
            double *s = malloc(sizeof(double) * (size_t)T);
            for (int h = 0; h < nh; h++)
                for (int r = 0; r < Tq; r++) {
                    double mx = -1e300, sum = 0;
                    for (int j = 0; j < T; j++) {
                        double d = 0;
                        for (int c = 0; c < hd; c++)
                            d += (double)qq[(size_t)r * o + h * hd + c] * qkv[(size_t)j * 3 * o + o + h * hd + c];
                        s[j] = d / sqrt((double)hd);
                        if (s[j] > mx) mx = s[j];
                    }
                    for (int j = 0; j < T; j++) sum += (s[j] = exp(s[j] - mx));
                    for (int c = 0; c < hd; c++) {
                        double acc = 0;
                        for (int j = 0; j < T; j++) acc += s[j] * qkv[(size_t)j * 3 * o + 2 * o + h * hd + c];
                        att[(size_t)r * o + h * hd + c] = (float)(acc / sum);
                    }
                }
            float *pj = lin(att, Tq, o, BW("attn.proj.weight"), BW("attn.proj.bias"), o);
            for (int r = 0; r < Tq; r++) {
                const int y = wy * qh + r / qw, xx = wx * qw + r % qw;
                memcpy(outp + ((size_t)y * Wqp + xx) * o, pj + (size_t)r * o, sizeof(float) * o);
            }
            free(qkv); free(qq); free(att); free(s); free(pj);
        }
    float *x1 = malloc(sizeof(float) * (size_t)Ho * Wo * o);
    for (int y = 0; y < Ho; y++)  /* crop, residual */
        for (int xx = 0; xx < Wo; xx++)
            for (int c = 0; c < o; c++)
                x1[((size_t)y * Wo + xx) * o + c] = sc[((size_t)y * Wo + xx) * o + c] + outp[((size_t)y * Wqp + xx) * o + c];
    float *h2 = layer_norm(x1, Ho * Wo, o, BW("norm2.weight"), BW("norm2.bias"));
    float *m = lin(h2, Ho * Wo, o, BW("mlp.layers.0.weight"), BW("mlp.layers.0.bias"), 4 * o);
    for (size_t j = 0; j < (size_t)Ho * Wo * 4 * o; j++) m[j] = (float)(0.5 * m[j] * (1.0 + erf(m[j] / sqrt(2.0))));
    float *y2 = lin(m, Ho * Wo, 4 * o, BW("mlp.layers.1.weight"), BW("mlp.layers.1.bias"), o);
    for (size_t j = 0; j < (size_t)Ho * Wo * o; j++) y2[j] += x1[j];
#undef BW
    free(xn); free(sc); free(outp); free(win); free(x1); free(h2); free(m);
    *ph = Ho;
    *pw = Wo;
    return y2;
}

/* ---- taps ------------------------------------------------------------------------------------- */

#define MAX_TAPS 64
static struct { char name[48]; float *v; int64_t n; } g_taps[MAX_TAPS];
static int g_n_taps;

/* Copies any strided view into logical (row-major) order. */
static enum samrt_status collect(void *user, const char *name, const struct samrt_tensor *t) {
    (void)user;
    if (g_n_taps >= MAX_TAPS) return SAMRT_E_INVALID_ARG;
    const int64_t n = samrt_tensor_nelements(t);
    float *v = malloc(sizeof(float) * (size_t)n);
    int64_t idx[4] = {0}, k = 0;
    const int pad = 4 - t->n_dims;
    int64_t ne[4], s[4];
    for (int d = 0; d < 4; d++) {
        ne[d] = d < pad ? 1 : t->ne[d - pad];
        s[d] = d < pad ? 0 : t->s[d - pad];
    }
    for (idx[0] = 0; idx[0] < ne[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < ne[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < ne[2]; idx[2]++)
                for (idx[3] = 0; idx[3] < ne[3]; idx[3]++)
                    v[k++] = ((const float *)t->data)[idx[0] * s[0] + idx[1] * s[1] + idx[2] * s[2] + idx[3] * s[3]];
    snprintf(g_taps[g_n_taps].name, sizeof g_taps[0].name, "%s", name);
    g_taps[g_n_taps].v = v;
    g_taps[g_n_taps].n = n;
    g_n_taps++;
    return SAMRT_OK;
}

static void compare(const char *name, const float *ref, int64_t n) {
    for (int i = 0; i < g_n_taps; i++) {
        if (strcmp(g_taps[i].name, name)) continue;
        CHECK_MSG(g_taps[i].n == n, "%s: %lld values, want %lld", name, (long long)g_taps[i].n, (long long)n);
        if (g_taps[i].n != n) return;
        float mx = 0;
        for (int64_t j = 0; j < n; j++) mx = fmaxf(mx, fabsf(ref[j]));
        char what[64];
        snprintf(what, sizeof what, "%s (max %.3g)", name, mx);
        check_close_f32(what, g_taps[i].v, ref, (long)n, TOL_REL * mx, 0.0f);
        return;
    }
    CHECK_MSG(0, "tap %s missing", name);
}

/* ---- main ------------------------------------------------------------------------------------- */

int main(void) {
    static struct samrt_sam2_encoder enc;
    static struct samrt_exec ex;
    static struct samrt_arena_slot slots[2048];
    CHECK_EQ_INT(samrt_sam2_encoder_bind(&enc, &g_cfg, IMGSZ, NULL, &g_t.keys), SAMRT_OK);
    ew_fill(&g_t, 12345, weight_value);
    struct samrt_engine e;
    ew_engine_init(&e, &g_t, slots, (int)SAMRT_ARRAY_LEN(slots));
    struct samrt_op_ctx c;
    CHECK_EQ_INT(samrt_ctx_init_backend(&c, SAMRT_BACKEND_CPU, SAMRT_DTYPE_F32, NULL, &ex, &e.plan), SAMRT_OK);
    CHECK_EQ_INT(samrt_sam2_encoder_bind(&enc, &g_cfg, IMGSZ, samrt_engine_env(&e), NULL), SAMRT_OK);
    CHECK_EQ_INT(samrt_sam2_encoder_plan(&enc, &c), SAMRT_OK);
    CHECK_EQ_INT(samrt_plan_finalize(&e.plan), SAMRT_OK);
    /* lifetimes let scratch slots share bytes */
    CHECK(e.plan.region_bytes[SAMRT_REGION_SCRATCH] < samrt_plan_requested_bytes(&e.plan, SAMRT_REGION_SCRATCH));
    void *pool = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(e.plan.total_bytes, SAMRT_ALIGN));
    CHECK_EQ_INT(samrt_arena_commit(&e.arena, &e.plan, pool, e.plan.total_bytes), SAMRT_OK);
    const float *pe = W("image_encoder.trunk.pos_embed"), *pw = W("image_encoder.trunk.pos_embed_window");
    CHECK_EQ_INT(samrt_sam2_encoder_prepare(&enc, samrt_engine_env(&e), pe, pw), SAMRT_OK);
    const int64_t n_in = 3 * IMGSZ * IMGSZ;
    /* the input is a scratch slot that the pass's later tensors reuse: the reference keeps a copy */
    float *in = malloc(sizeof(float) * (size_t)n_in);
    tu_fill_uniform(in, (long)n_in, 7, -2.1f, 2.6f);
    memcpy(enc.input.data, in, sizeof(float) * (size_t)n_in);
    c.tap = collect;
    samrt_ctx_begin(&c, SAMRT_EXEC_RUN, &e.arena);
    samrt_sam2_encoder_forward(&enc, &c);
    CHECK_EQ_INT(samrt_ctx_end(&c), SAMRT_OK);

    /* the reference, tap by tap */
    const int E = g_cfg.hiera.embed_dim, S0 = IMGSZ / 4;
    float *patch = malloc(sizeof(float) * (size_t)S0 * S0 * E);
    const float *cw = W("image_encoder.trunk.patch_embed.proj.weight"), *cb = W("image_encoder.trunk.patch_embed.proj.bias");
    for (int y = 0; y < S0; y++)
        for (int x = 0; x < S0; x++)
            for (int o = 0; o < E; o++) {
                double acc = cb[o];
                for (int ci = 0; ci < 3; ci++)
                    for (int r = 0; r < 7; r++)
                        for (int s = 0; s < 7; s++) {
                            int iy = 4 * y - 3 + r, ix = 4 * x - 3 + s;
                            if (iy < 0 || ix < 0 || iy >= IMGSZ || ix >= IMGSZ) continue;
                            acc += (double)in[((size_t)ci * IMGSZ + iy) * IMGSZ + ix] * cw[((o * 3 + ci) * 7 + r) * 7 + s];
                        }
                patch[((size_t)y * S0 + x) * E + o] = (float)acc;
            }
    compare("tap.input", in, n_in);
    compare("tap.trunk.patch_embed", patch, (int64_t)S0 * S0 * E);
    float *pos = pos_embed_ref(E, g_cfg.hiera.bkg, pe, g_cfg.hiera.window_spec[0], pw, S0);
    float *x = patch;
    for (int64_t j = 0; j < (int64_t)S0 * S0 * E; j++) x[j] += pos[j];
    compare("tap.trunk.embed", x, (int64_t)S0 * S0 * E);
    int h = S0, w = S0;
    float *lat[4] = {0};
    int lat_side[4] = {0};
    char name[64];
    for (int i = 0; i < enc.n_blocks; i++) {
        float *nx = block_ref(i, &enc.blk[i], x, &h, &w);
        free(x);
        x = nx;
        const int o = enc.blk[i].dim_out;
        snprintf(name, sizeof name, "tap.trunk.block.%d", i);
        compare(name, x, (int64_t)h * w * o);
        if (!enc.blk[i].stage_end) continue;
        const int s = enc.blk[i].stage;
        snprintf(name, sizeof name, "tap.trunk.out.%d", s);
        compare(name, x, (int64_t)h * w * o);
        lat[s] = lin(x, h * w, o, Wf("image_encoder.neck.convs.%d.conv.weight", 3 - s),
                     Wf("image_encoder.neck.convs.%d.conv.bias", 3 - s), 256);
        lat_side[s] = h;
    }
    free(x);
    /* top-down: level 2 += nearest x2 of level 3 */
    const int s2 = lat_side[2], s3 = lat_side[3];
    for (int y = 0; y < s2; y++)
        for (int xx = 0; xx < s2; xx++)
            for (int ch = 0; ch < 256; ch++)
                lat[2][((size_t)y * s2 + xx) * 256 + ch] += lat[3][((size_t)(y / 2) * s3 + xx / 2) * 256 + ch];
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "tap.neck.feat.%d", k);
        compare(name, lat[k], (int64_t)lat_side[k] * lat_side[k] * 256);
    }
    float *f0 = lin(lat[0], lat_side[0] * lat_side[0], 256, W("sam_mask_decoder.conv_s0.weight"),
                    W("sam_mask_decoder.conv_s0.bias"), 32);
    float *f1 = lin(lat[1], lat_side[1] * lat_side[1], 256, W("sam_mask_decoder.conv_s1.weight"),
                    W("sam_mask_decoder.conv_s1.bias"), 64);
    compare("tap.fpn.0", f0, (int64_t)lat_side[0] * lat_side[0] * 32);
    compare("tap.fpn.1", f1, (int64_t)lat_side[1] * lat_side[1] * 64);
    compare("tap.fpn.2", lat[2], (int64_t)s2 * s2 * 256);
    /* the persistent outputs hold the same values */
    check_close_f32("feat_s0", enc.feat_s0.data, f0, (long)lat_side[0] * lat_side[0] * 32, 1e-4f, 0.0f);
    check_close_f32("vision", enc.vision.data, lat[2], (long)s2 * s2 * 256, 1e-4f, 1e-4f);
    /* sine PE of level 2 (y channels first): pixel (0,0) channel 0 = sin(2pi/(H+1e-6)) */
    CHECK_NEAR(((const float *)enc.vision_pos.data)[0], (float)sin(2 * M_PI / (s2 + 1e-6)), 1e-6);
    CHECK_NEAR(((const float *)enc.vision_pos.data)[1], (float)cos(2 * M_PI / (s2 + 1e-6)), 1e-6);

    for (int k = 0; k < 4; k++) free(lat[k]);
    free(f0); free(f1); free(pos); free(in);
    for (int i = 0; i < g_n_taps; i++) free(g_taps[i].v);
    ew_free(&g_t);
    samrt_ctx_free(&c);
    free(pool);
    return check_report("test_sam2_encoder");
}
