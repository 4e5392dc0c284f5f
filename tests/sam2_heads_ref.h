/* sam2_heads_ref.h - a naive double-precision model of SAM 2.1's SAM heads for ONE object,
 * written from the official modules (sam/prompt_encoder.py, sam/mask_decoder.py,
 * sam/transformer.py, sam2_base.py::_forward_sam_heads) as plain loops over the weights of
 * tests/sam2_heads_util.h, with no padding, no batching and no channels-last tricks: the
 * oracle the decoder tests compare the op-layer implementation with. Header-only.
 *
 * Inputs are channels-last tokens like the implementation's (image (g*g, 256), feat_s0
 * (16*g*g, 32), feat_s1 (4*g*g, 64)); the arithmetic is the official NCHW one. */
#ifndef SAMRT_TEST_SAM2_HEADS_REF_H
#define SAMRT_TEST_SAM2_HEADS_REF_H

#include "sam2_heads_util.h"

#define HR_DIM 256
#define HR_PI 3.14159265358979323846

struct hr_out {
    double masks[4][64 * 64 * 16];   /* all four low-res logits (side 4g <= 256) */
    double iou[4], score;
    int index, token, is_obj;        /* selection */
    double stability;
    double low_res[64 * 64 * 16];    /* selected and gated */
    double ptr[HR_DIM];
};

static double *hr_alloc(size_t n) { return calloc(n, sizeof(double)); }

/* y (m, n) = x (m, k) W^T + b, optional ReLU; W, b by tensor name prefix. */
static void hr_linear(struct hu_weights *w, const double *x, int m, int k, const char *prefix, int relu, double *y) {
    const struct hu_tensor *W = hu_find(w, "%s.weight", prefix), *B = hu_find(w, "%s.bias", prefix);
    const int n = (int)W->ne[0];
    for (int i = 0; i < m; i++)
        for (int o = 0; o < n; o++) {
            double s = B->v[o];
            for (int j = 0; j < k; j++) s += x[(size_t)i * k + j] * W->v[(size_t)o * k + j];
            y[(size_t)i * n + o] = relu && s < 0 ? 0 : s;
        }
}

static void hr_layernorm(struct hu_weights *w, double *x, int m, int c, const char *prefix, double eps) {
    const struct hu_tensor *W = hu_find(w, "%s.weight", prefix), *B = hu_find(w, "%s.bias", prefix);
    for (int i = 0; i < m; i++) {
        double *r = x + (size_t)i * c, mu = 0, var = 0;
        for (int j = 0; j < c; j++) mu += r[j];
        mu /= c;
        for (int j = 0; j < c; j++) var += (r[j] - mu) * (r[j] - mu);
        var /= c;
        for (int j = 0; j < c; j++) r[j] = (r[j] - mu) / sqrt(var + eps) * W->v[j] + B->v[j];
    }
}

/* SAM's 3-layer MLP (ReLU between) on one row: prefix.layers.{0,1,2}. */
static void hr_mlp3(struct hu_weights *w, const char *prefix, const double *x, double *out) {
    double h1[HR_DIM], h2[HR_DIM];
    char p[160];
    snprintf(p, sizeof p, "%s.layers.0", prefix);
    hr_linear(w, x, 1, HR_DIM, p, 1, h1);
    snprintf(p, sizeof p, "%s.layers.1", prefix);
    hr_linear(w, h1, 1, HR_DIM, p, 1, h2);
    snprintf(p, sizeof p, "%s.layers.2", prefix);
    hr_linear(w, h2, 1, HR_DIM, p, 0, out);
}

static double hr_gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }

/* Attention module: q_in (mq, 256), k_in / v_in (mk, 256) -> out (mq, 256). */
static void hr_attention(struct hu_weights *w, const char *prefix, const double *q_in, int mq, const double *k_in,
                         const double *v_in, int mk, double *out) {
    char p[160];
    snprintf(p, sizeof p, "%s.q_proj", prefix);
    const int c = (int)hu_find(w, "%s.weight", p)->ne[0], d = c / 8;
    double *q = hr_alloc((size_t)mq * c), *k = hr_alloc((size_t)mk * c), *v = hr_alloc((size_t)mk * c);
    double *o = hr_alloc((size_t)mq * c), *s = hr_alloc((size_t)mk);
    hr_linear(w, q_in, mq, HR_DIM, p, 0, q);
    snprintf(p, sizeof p, "%s.k_proj", prefix);
    hr_linear(w, k_in, mk, HR_DIM, p, 0, k);
    snprintf(p, sizeof p, "%s.v_proj", prefix);
    hr_linear(w, v_in, mk, HR_DIM, p, 0, v);
    for (int h = 0; h < 8; h++)
        for (int i = 0; i < mq; i++) {
            double mx = -1e300, sum = 0;
            for (int j = 0; j < mk; j++) {
                double t = 0;
                for (int e = 0; e < d; e++) t += q[(size_t)i * c + h * d + e] * k[(size_t)j * c + h * d + e];
                s[j] = t / sqrt((double)d);
                if (s[j] > mx) mx = s[j];
            }
            for (int j = 0; j < mk; j++) sum += (s[j] = exp(s[j] - mx));
            for (int e = 0; e < d; e++) {
                double acc = 0;
                for (int j = 0; j < mk; j++) acc += s[j] * v[(size_t)j * c + h * d + e];
                o[(size_t)i * c + h * d + e] = acc / sum;
            }
        }
    snprintf(p, sizeof p, "%s.out_proj", prefix);
    hr_linear(w, o, mq, c, p, 0, out);
    free(q), free(k), free(v), free(o), free(s);
}

/* Fourier PE of a normalised (u, v) into out[256]. */
static void hr_pe(struct hu_weights *w, double u, double v, double *out) {
    const float *G = hu_find(w, "sam_prompt_encoder.pe_layer.positional_encoding_gaussian_matrix")->v;
    const double cx = 2 * u - 1, cy = 2 * v - 1;
    for (int k = 0; k < 128; k++) {
        const double h = 2 * HR_PI * (cx * G[k] + cy * G[128 + k]);
        out[k] = sin(h);
        out[128 + k] = cos(h);
    }
}

/* 2x2 stride-2 transposed convolution on channels-last (h, w, ci) -> (2h, 2w, co), PyTorch
 * weight (ci, co, 2, 2). */
static void hr_convt(struct hu_weights *w, const char *prefix, const double *x, int hh, int ww, int ci, double *y) {
    const struct hu_tensor *W = hu_find(w, "%s.weight", prefix), *B = hu_find(w, "%s.bias", prefix);
    const int co = (int)W->ne[1];
    for (int yy = 0; yy < hh; yy++)
        for (int xx = 0; xx < ww; xx++)
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++)
                    for (int o = 0; o < co; o++) {
                        double s = B->v[o];
                        for (int i = 0; i < ci; i++)
                            s += x[((size_t)yy * ww + xx) * ci + i] * W->v[(((size_t)i * co + o) * 2 + dy) * 2 + dx];
                        y[((size_t)(2 * yy + dy) * 2 * ww + 2 * xx + dx) * co + o] = s;
                    }
}

/* mask_downscaling of one (4g, 4g) mask -> dense (g*g, 256) channels-last. */
static void hr_mask_embed(struct hu_weights *w, const float *mask, int g, double *dense) {
    const char *p = "sam_prompt_encoder.mask_downscaling";
    const int L = 4 * g, h1 = 2 * g;
    double *a = hr_alloc((size_t)h1 * h1 * 4), *b = hr_alloc((size_t)g * g * 16);
    const struct hu_tensor *W0 = hu_find(w, "%s.0.weight", p), *B0 = hu_find(w, "%s.0.bias", p);
    for (int y = 0; y < h1; y++)
        for (int x = 0; x < h1; x++)
            for (int o = 0; o < 4; o++) {
                double s = B0->v[o];
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++)
                        s += mask[(2 * y + dy) * L + 2 * x + dx] * W0->v[o * 4 + dy * 2 + dx];
                a[((size_t)y * h1 + x) * 4 + o] = s;
            }
    char q[128];
    snprintf(q, sizeof q, "%s.1", p);
    hr_layernorm(w, a, h1 * h1, 4, q, 1e-6);
    for (size_t i = 0; i < (size_t)h1 * h1 * 4; i++) a[i] = hr_gelu(a[i]);
    const struct hu_tensor *W1 = hu_find(w, "%s.3.weight", p), *B1 = hu_find(w, "%s.3.bias", p);
    for (int y = 0; y < g; y++)
        for (int x = 0; x < g; x++)
            for (int o = 0; o < 16; o++) {
                double s = B1->v[o];
                for (int i = 0; i < 4; i++)
                    for (int dy = 0; dy < 2; dy++)
                        for (int dx = 0; dx < 2; dx++)
                            s += a[((size_t)(2 * y + dy) * h1 + 2 * x + dx) * 4 + i] *
                                 W1->v[((o * 4 + i) * 2 + dy) * 2 + dx];
                b[((size_t)y * g + x) * 16 + o] = s;
            }
    snprintf(q, sizeof q, "%s.4", p);
    hr_layernorm(w, b, g * g, 16, q, 1e-6);
    for (size_t i = 0; i < (size_t)g * g * 16; i++) b[i] = hr_gelu(b[i]);
    snprintf(q, sizeof q, "%s.6", p);
    const struct hu_tensor *W2 = hu_find(w, "%s.weight", q), *B2 = hu_find(w, "%s.bias", q);
    for (int i = 0; i < g * g; i++)
        for (int o = 0; o < HR_DIM; o++) {
            double s = B2->v[o];
            for (int j = 0; j < 16; j++) s += b[(size_t)i * 16 + j] * W2->v[o * 16 + j];
            dense[(size_t)i * HR_DIM + o] = s;
        }
    free(a), free(b);
}

/* One object: points (xy in the model frame, labels) -> everything _forward_sam_heads returns.
 * mode: 0 multimask, 1 single, 2 single with the stability fallback. mask: NULL or (4g, 4g). */
static void hr_heads(struct hu_weights *w, int side, const float *image, const float *feat_s0, const float *feat_s1,
                     int n_pts, const float (*xy)[2], const int32_t *labels, int mode, const float *mask,
                     struct hr_out *r) {
    const int g = side / 16, n = g * g, L = 4 * g, P = L * L, ns = n_pts + 1, T = 6 + ns;
    double *tok = hr_alloc((size_t)T * HR_DIM), *qry = hr_alloc((size_t)T * HR_DIM);
    double *keys = hr_alloc((size_t)n * HR_DIM);
    double *kpe = hr_alloc((size_t)n * HR_DIM), *pe = hr_alloc((size_t)n * HR_DIM), *qq = hr_alloc((size_t)T * HR_DIM);
    double *a = hr_alloc((size_t)n * HR_DIM), *mlp = hr_alloc((size_t)T * 2048);
    /* tokens: obj score, iou, mask tokens, then the sparse prompt rows */
    const float *rows[6] = {hu_find(w, "sam_mask_decoder.obj_score_token.weight")->v,
                            hu_find(w, "sam_mask_decoder.iou_token.weight")->v};
    for (int k = 0; k < 4; k++) rows[2 + k] = hu_find(w, "sam_mask_decoder.mask_tokens.weight")->v + k * HR_DIM;
    for (int t = 0; t < 6; t++)
        for (int c = 0; c < HR_DIM; c++) tok[t * HR_DIM + c] = rows[t][c];
    for (int i = 0; i < ns; i++) {
        double *row = tok + (size_t)(6 + i) * HR_DIM;
        const int lab = i < n_pts ? labels[i] : -1;
        if (lab == -1) {
            const float *nap = hu_find(w, "sam_prompt_encoder.not_a_point_embed.weight")->v;
            for (int c = 0; c < HR_DIM; c++) row[c] = nap[c];
            continue;
        }
        hr_pe(w, (xy[i][0] + 0.5) / side, (xy[i][1] + 0.5) / side, row);
        const float *emb = hu_find(w, "sam_prompt_encoder.point_embeddings.%d.weight", lab)->v;
        for (int c = 0; c < HR_DIM; c++) row[c] += emb[c];
    }
    /* src = image + dense; key PE = dense Fourier PE of the grid */
    double *dense = hr_alloc((size_t)n * HR_DIM);
    if (mask) {
        hr_mask_embed(w, mask, g, dense);
    } else {
        const float *nm = hu_find(w, "sam_prompt_encoder.no_mask_embed.weight")->v;
        for (int i = 0; i < n; i++)
            for (int c = 0; c < HR_DIM; c++) dense[(size_t)i * HR_DIM + c] = nm[c];
    }
    for (int i = 0; i < n * HR_DIM; i++) keys[i] = image[i] + dense[i];
    for (int y = 0; y < g; y++)
        for (int x = 0; x < g; x++) hr_pe(w, (x + 0.5) / g, (y + 0.5) / g, pe + ((size_t)y * g + x) * HR_DIM);
    memcpy(qry, tok, sizeof(double) * (size_t)T * HR_DIM);
    char p[160], q[160];
    const char *tr = "sam_mask_decoder.transformer";
    for (int l = 0; l < 2; l++) {
        snprintf(p, sizeof p, "%s.layers.%d.self_attn", tr, l);
        if (l == 0) {
            hr_attention(w, p, qry, T, qry, qry, T, a);
            memcpy(qry, a, sizeof(double) * (size_t)T * HR_DIM);
        } else {
            for (int i = 0; i < T * HR_DIM; i++) qq[i] = qry[i] + tok[i];
            hr_attention(w, p, qq, T, qq, qry, T, a);
            for (int i = 0; i < T * HR_DIM; i++) qry[i] += a[i];
        }
        snprintf(q, sizeof q, "%s.layers.%d.norm1", tr, l);
        hr_layernorm(w, qry, T, HR_DIM, q, 1e-5);
        for (int i = 0; i < T * HR_DIM; i++) qq[i] = qry[i] + tok[i];
        for (int i = 0; i < n * HR_DIM; i++) kpe[i] = keys[i] + pe[i];
        snprintf(p, sizeof p, "%s.layers.%d.cross_attn_token_to_image", tr, l);
        hr_attention(w, p, qq, T, kpe, keys, n, a);
        for (int i = 0; i < T * HR_DIM; i++) qry[i] += a[i];
        snprintf(q, sizeof q, "%s.layers.%d.norm2", tr, l);
        hr_layernorm(w, qry, T, HR_DIM, q, 1e-5);
        snprintf(q, sizeof q, "%s.layers.%d.mlp.layers.0", tr, l);
        hr_linear(w, qry, T, HR_DIM, q, 1, mlp);
        snprintf(q, sizeof q, "%s.layers.%d.mlp.layers.1", tr, l);
        hr_linear(w, mlp, T, 2048, q, 0, a);
        for (int i = 0; i < T * HR_DIM; i++) qry[i] += a[i];
        snprintf(q, sizeof q, "%s.layers.%d.norm3", tr, l);
        hr_layernorm(w, qry, T, HR_DIM, q, 1e-5);
        for (int i = 0; i < T * HR_DIM; i++) qq[i] = qry[i] + tok[i];
        for (int i = 0; i < n * HR_DIM; i++) kpe[i] = keys[i] + pe[i];
        snprintf(p, sizeof p, "%s.layers.%d.cross_attn_image_to_token", tr, l);
        hr_attention(w, p, kpe, n, qq, qry, T, a);
        for (int i = 0; i < n * HR_DIM; i++) keys[i] += a[i];
        snprintf(q, sizeof q, "%s.layers.%d.norm4", tr, l);
        hr_layernorm(w, keys, n, HR_DIM, q, 1e-5);
    }
    for (int i = 0; i < T * HR_DIM; i++) qq[i] = qry[i] + tok[i];
    for (int i = 0; i < n * HR_DIM; i++) kpe[i] = keys[i] + pe[i];
    snprintf(p, sizeof p, "%s.final_attn_token_to_image", tr);
    hr_attention(w, p, qq, T, kpe, keys, n, a);
    for (int i = 0; i < T * HR_DIM; i++) qry[i] += a[i];
    snprintf(q, sizeof q, "%s.norm_final_attn", tr);
    hr_layernorm(w, qry, T, HR_DIM, q, 1e-5);

    /* upscaling with the high-resolution features */
    double *u1 = hr_alloc((size_t)4 * n * 64), *u2 = hr_alloc((size_t)P * 32);
    hr_convt(w, "sam_mask_decoder.output_upscaling.0", keys, g, g, HR_DIM, u1);
    for (int i = 0; i < 4 * n * 64; i++) u1[i] += feat_s1[i];
    hr_layernorm(w, u1, 4 * n, 64, "sam_mask_decoder.output_upscaling.1", 1e-6);
    for (int i = 0; i < 4 * n * 64; i++) u1[i] = hr_gelu(u1[i]);
    hr_convt(w, "sam_mask_decoder.output_upscaling.3", u1, 2 * g, 2 * g, 64, u2);
    for (int i = 0; i < P * 32; i++) u2[i] = hr_gelu(u2[i] + feat_s0[i]);
    double hk[HR_DIM];
    for (int k = 0; k < 4; k++) {
        snprintf(p, sizeof p, "sam_mask_decoder.output_hypernetworks_mlps.%d", k);
        hr_mlp3(w, p, qry + (size_t)(2 + k) * HR_DIM, hk);
        for (int i = 0; i < P; i++) {
            double s = 0;
            for (int c = 0; c < 32; c++) s += hk[c] * u2[(size_t)i * 32 + c];
            r->masks[k][i] = s;
        }
    }
    double o4[4], o1[1];
    hr_mlp3(w, "sam_mask_decoder.iou_prediction_head", qry + HR_DIM, o4);
    for (int k = 0; k < 4; k++) r->iou[k] = 1.0 / (1.0 + exp(-o4[k]));
    hr_mlp3(w, "sam_mask_decoder.pred_obj_score_head", qry, o1);
    r->score = o1[0];

    /* MaskDecoder.forward selection, then _forward_sam_heads */
    int best = 1;
    for (int k = 2; k < 4; k++)
        if (r->iou[k] > r->iou[best]) best = k;
    int area_i = 0, area_u = 0;
    for (int i = 0; i < P; i++) {
        area_i += r->masks[0][i] > 0.05;
        area_u += r->masks[0][i] > -0.05;
    }
    r->stability = mode == 2 ? (area_u ? (double)area_i / area_u : 1.0) : 1.0;
    r->index = mode == 0 ? best : mode == 2 && r->stability < 0.98 ? best : 0;
    r->token = mode == 0 ? best : 0;
    r->is_obj = r->score > 0;
    for (int i = 0; i < P; i++) r->low_res[i] = r->is_obj ? r->masks[r->index][i] : -1024.0;
    hr_mlp3(w, "obj_ptr_proj", qry + (size_t)(2 + r->token) * HR_DIM, r->ptr);
    if (!r->is_obj) {
        const float *no = hu_find(w, "no_obj_ptr")->v;
        for (int c = 0; c < HR_DIM; c++) r->ptr[c] = no[c];
    }
    free(tok), free(qry), free(keys), free(kpe), free(pe), free(qq), free(a), free(mlp), free(dense);
    free(u1), free(u2);
}

#endif /* SAMRT_TEST_SAM2_HEADS_REF_H */
