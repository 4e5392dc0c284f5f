/* ops_table_sam2.c - the op table's rows for the frame's way in and the masks' way out:
 *   resize_normalize (kernels/resize_normalize.h): Pillow's bicubic + ImageNet normalisation,
 *     bit for bit, 480p .. 4K frames into 1024x1024, up / down per axis, one-pixel sides,
 *     padded pitch, frames 4 but not 16 bytes aligned, misaligned outputs;
 *   mask_decode* / mask_mem_input (kernels/sam2/mask_decode.h): video-size masks with their
 *     statistics, the non-overlap rule across objects, the memory encoder's mask input;
 *   fill_holes (kernels/sam2/fill_holes.h): tracking maps of 1 .. 16 objects, one-row and
 *     one-column maps, in place;
 *   sam2_select / sam2_ptr_gate (kernels/sam2/mask_select.h): the decoder's data-dependent
 *     tail, every mask mode, present and absent objects, the pointer gate;
 *   policy_samurai (kernels/sam2/policy.h): SAMURAI's boxes, Kalman decisions and chosen
 *     masks in every branch, restarted, skipped and absent objects, bit for bit;
 *   policy_dam4sam (kernels/sam2/policy_dam.h): DAM4SAM's gate and distractor test (union-find
 *     components of speckled masks, many ties) for passing, failing, restarted, skipped and
 *     absent objects, decisions and state bit for bit.
 * Shapes and tolerances follow test_resize_normalize_cuda.c, test_mask_decode_cuda.c,
 * test_fill_holes_cuda.c and test_sam2_select_cuda.c, which also check what a table row
 * cannot (bad arguments, runs without the optional outputs, graph replay). ops_table.h says
 * how a row is run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill_holes.h"
#include "mask_decode.h"
#include "mask_select.h"
#include "ops_table.h"
#include "policy.h"
#include "policy_dam.h"
#include "resize_normalize.h"
#include "test_util.h"

static void ot_sam2_fail(const struct ot_case *c, const char *what) {
    fprintf(stderr, "%s/%s: %s\n", c->row->op->name, c->row->shape, what);
    exit(1);
}

/* ---- resize_normalize: p = {in w, in h, out w, out h, pitch pad bytes, frame 4 bytes past a
 *      16-byte start, misaligned output, smooth frame (else noise)}; bit for bit ---- */
static void resize_plan(const struct ot_case *c, struct samrt_resize_plan *plan) {
    const long *p = c->row->p;
    if (samrt_resize_plan_init((int)p[0], (int)p[1], (int)p[2], (int)p[3], plan) != SAMRT_OK)
        ot_sam2_fail(c, "no plan");
}

static void resize_setup(struct ot_case *c) {
    const long *p = c->row->p, nb_row = 3 * p[0] + p[4], words = (nb_row * p[1] + 3) / 4;
    struct samrt_resize_plan plan;
    resize_plan(c, &plan);
    void *tab = calloc(1, plan.table_bytes + 16);
    uint8_t *frame = (uint8_t *)calloc((size_t)words, 4);
    if (!tab || !frame || samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, tab, plan.table_bytes) !=
                              SAMRT_OK)
        ot_sam2_fail(c, "no tables");
    ot_buf_copy(c, SAMRT_DTYPE_U8, (long)plan.table_bytes, tab);
    uint64_t s = c->seed * 0x9E3779B97F4A7C15ull + 1;
    for (long y = 0; y < p[1]; y++)
        for (long x = 0; x < 3 * p[0]; x++)
            frame[y * nb_row + x] = p[7] ? (uint8_t)((x / 3 * 7 + y * 3 + (x % 3) * 85 + ((x * y) >> 6)) & 255)
                                         : (uint8_t)(tu_rand_u32(&s) >> 24);
    const int f = ot_buf_copy(c, SAMRT_DTYPE_I32, words, frame);  /* words: misalign moves 4 bytes */
    c->b[f].misalign = (int)p[5];
    const int o = ot_buf_add(c, c->dt, 3 * p[2] * p[3], OT_OUT);
    c->b[o].misalign = (int)p[6];
    c->moved = (double)(3 * p[0] * p[1]) + 3.0 * p[2] * p[3] * samrt_dtype_size(c->dt);
    free(tab);
    free(frame);
}

static enum samrt_status resize_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const size_t nb_row = (size_t)(3 * c->row->p[0] + c->row->p[4]);
    struct samrt_resize_plan plan;
    resize_plan(c, &plan);
    (void)stream;
    return gpu ? OT_GPU(samrt_resize_normalize_cuda(&plan, p[0], (const uint8_t *)p[1], nb_row, p[2], c->dt,
                                                    (cudaStream_t)stream))
               : samrt_resize_normalize_ref(&plan, p[0], (const uint8_t *)p[1], nb_row, samrt_sam_mean,
                                            samrt_sam_std, p[2], c->dt);
}

/* f32: each value is ((float)(u8 / 255.0) - mean[c]) / std[c] of Pillow's resized byte */
static long resize_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const long *q = c->row->p, hw = q[2] * q[3];
    struct samrt_resize_plan plan;
    resize_plan(c, &plan);
    uint8_t *u = (uint8_t *)malloc((size_t)(3 * hw));
    if (!u || samrt_resize_u8_ref(&plan, p[0], (const uint8_t *)p[1], (size_t)(3 * q[0] + q[4]), u) != SAMRT_OK)
        ot_sam2_fail(c, "no u8 resize");
    const float *y = (const float *)p[2];
    long bad = 0;
    for (long i = 0; i < hw; i++)
        for (int ch = 0; ch < 3; ch++) {
            const float x = (float)(u[3 * i + ch] / 255.0), v = (x - samrt_sam_mean[ch]) / samrt_sam_std[ch];
            bad += y[ch * hw + i] != v;
        }
    free(u);
    return bad;
}

static const struct ot_op OP_RESIZE = {"resize_normalize", resize_setup, resize_call, resize_check, NULL, NULL, 0};

/* ---- mask_decode / mask_decode_non_overlap: p = {objects, h in, w in, h out, w out,
 *      misaligned outputs}; logits uniform in [-3, 2) with exact zeros, the last of >= 3
 *      objects a copy of the first (a tie at every pixel) ---- */
#define TOL_LOGIT 1e-6  /* f32 video-size logits, atol and rtol */
static const struct ot_tol TOL_DECODE = {"logit_1e-6", {TOL_LOGIT, TOL_LOGIT, TOL_LOGIT},
                                         {TOL_LOGIT, TOL_LOGIT, TOL_LOGIT}, 0, 0};

static void decode_input(struct ot_case *c, int tie) {
    const long *p = c->row->p, plane = p[1] * p[2], n = p[0] * plane;
    float *v = (float *)malloc(sizeof(float) * (size_t)n);
    void *s = malloc((size_t)n * samrt_dtype_size(c->dt));
    if (!v || !s) ot_sam2_fail(c, "no memory");
    tu_fill_uniform(v, n, c->seed, -3.0f, 2.0f);
    for (long i = 0; i < n; i += 97) v[i] = 0.0f;
    if (tie && p[0] >= 3) memcpy(v + (p[0] - 1) * plane, v, sizeof(float) * (size_t)plane);
    tu_store(c->dt, s, v, n);
    ot_buf_copy(c, c->dt, n, s);
    free(v);
    free(s);
}

/* buffers: logits, mask (u8), stats (5 i32 per object), video-size logits (f32). A mask pixel
 * whose logit is within an ulp of 0 may threshold either way (test_mask_decode_cuda.c), so the
 * plain decode compares the f32 logits; the host check ties the mask and statistics to them. */
static void decode_setup(struct ot_case *c) {
    const long *p = c->row->p, no = p[0] * p[3] * p[4];
    decode_input(c, 0);
    const int m = ot_buf_add(c, SAMRT_DTYPE_U8, no, OT_SCRATCH);
    ot_buf_add(c, SAMRT_DTYPE_I32, 5 * p[0], OT_SCRATCH);
    const int lo = ot_buf_add(c, SAMRT_DTYPE_F32, no, OT_OUT);
    c->b[m].misalign = c->b[lo].misalign = (int)p[5];
    c->moved = (double)p[0] * p[1] * p[2] * samrt_dtype_size(c->dt) + 5.0 * no;
}

static enum samrt_status decode_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    const struct samrt_mask_decode_desc d = {(int)q[0], (int)q[1], (int)q[2], (int)q[3], (int)q[4], c->dt};
    uint8_t *m = (uint8_t *)p[1];
    struct samrt_mask_stats *st = (struct samrt_mask_stats *)p[2];
    (void)stream;
    return gpu ? OT_GPU(samrt_mask_decode_cuda(&d, p[0], m, st, (float *)p[3], (cudaStream_t)stream))
               : samrt_mask_decode_ref(&d, p[0], m, st, (float *)p[3]);
}

/* each object's area and inclusive box (empty: (W, H, -1, -1)) against its mask */
static long decode_stats_check(const struct ot_case *c, const uint8_t *m, const int32_t *st) {
    const long *q = c->row->p, h = q[3], w = q[4];
    long bad = 0;
    for (long k = 0; k < q[0]; k++) {
        int32_t s[5] = {0, (int32_t)w, (int32_t)h, -1, -1};
        for (long y = 0; y < h; y++)
            for (long x = 0; x < w; x++)
                if (m[(k * h + y) * w + x]) {
                    s[0]++;
                    if (x < s[1]) s[1] = (int32_t)x;
                    if (y < s[2]) s[2] = (int32_t)y;
                    if (x > s[3]) s[3] = (int32_t)x;
                    if (y > s[4]) s[4] = (int32_t)y;
                }
        bad += memcmp(s, st + 5 * k, sizeof s) != 0;
    }
    return bad;
}

/* mask = logit > 0, statistics of the mask */
static long decode_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p, no = q[0] * q[3] * q[4];
    const uint8_t *m = (const uint8_t *)p[1];
    const float *lo = (const float *)p[3];
    long bad = 0;
    for (long i = 0; i < no; i++) bad += m[i] != (lo[i] > 0.0f);
    return bad + decode_stats_check(c, m, (const int32_t *)p[2]);
}

static const struct ot_op OP_DECODE = {"mask_decode", decode_setup, decode_call, decode_check, NULL, NULL, 0};

/* non-overlap: masks and statistics bit for bit (the same logits, the same object order) */
static void nonov_setup(struct ot_case *c) {
    const long *p = c->row->p, no = p[0] * p[3] * p[4];
    decode_input(c, 1);
    const int m = ot_buf_add(c, SAMRT_DTYPE_U8, no, OT_OUT);
    const int st = ot_buf_add(c, SAMRT_DTYPE_I32, 5 * p[0], OT_OUT);
    c->b[m].misalign = (int)p[5];
    c->b[m].exact = c->b[st].exact = 1;
    c->moved = (double)p[0] * p[1] * p[2] * samrt_dtype_size(c->dt) + (double)no;
}

static enum samrt_status nonov_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    const struct samrt_mask_decode_desc d = {(int)q[0], (int)q[1], (int)q[2], (int)q[3], (int)q[4], c->dt};
    uint8_t *m = (uint8_t *)p[1];
    struct samrt_mask_stats *st = (struct samrt_mask_stats *)p[2];
    (void)stream;
    return gpu ? OT_GPU(samrt_mask_decode_non_overlap_cuda(&d, p[0], m, st, (cudaStream_t)stream))
               : samrt_mask_decode_non_overlap_ref(&d, p[0], m, st);
}

/* masks of 0/1, at most one object per pixel, the last of >= 3 objects (a tie with the
 * first) empty, statistics of the masks */
static long nonov_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p, hw = q[3] * q[4];
    const uint8_t *m = (const uint8_t *)p[1];
    long bad = 0;
    for (long i = 0; i < hw; i++) {
        int on = 0;
        for (long k = 0; k < q[0]; k++) {
            bad += m[k * hw + i] > 1;
            on += m[k * hw + i] == 1;
        }
        bad += on > 1 || (q[0] >= 3 && m[(q[0] - 1) * hw + i]);
    }
    return bad + decode_stats_check(c, m, (const int32_t *)p[2]);
}

static const struct ot_op OP_NONOV = {"mask_decode_non_overlap", nonov_setup, nonov_call, nonov_check, NULL, NULL, 0};

/* ---- mask_mem_input: p = {objects, h in, w in, h out, w out, binarize, misaligned out};
 *      scale 20, bias -10; logits uniform in [-12, 12) with exact zeros ---- */
/* 20*sigmoid-10: device expf is within 2 ulp; one f16 / bf16 ulp at |x| in [8, 16) */
static const struct ot_tol TOL_MEM = {"mem_sigmoid", {4e-6, 1e-2, 7e-2}, {0, 0, 0}, 0, 0};

static void mem_setup(struct ot_case *c) {
    const long *p = c->row->p, ni = p[0] * p[1] * p[2], no = p[0] * p[3] * p[4];
    float *v = (float *)malloc(sizeof(float) * (size_t)ni);
    void *s = malloc((size_t)ni * samrt_dtype_size(c->src));
    if (!v || !s) ot_sam2_fail(c, "no memory");
    tu_fill_uniform(v, ni, c->seed, -12.0f, 12.0f);
    for (long i = 0; i < ni; i += 89) v[i] = 0.0f;
    tu_store(c->src, s, v, ni);
    ot_buf_copy(c, c->src, ni, s);
    free(v);
    free(s);
    const int o = ot_buf_add(c, c->dt, no, OT_OUT);
    c->b[o].misalign = (int)p[6];
    c->b[o].exact = (int)p[5];  /* binarized: only the exact bilinear logit's sign matters */
    c->moved = (double)ni * samrt_dtype_size(c->src) + (double)no * samrt_dtype_size(c->dt);
}

static enum samrt_status mem_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    const struct samrt_mask_mem_desc d = {(int)q[0], (int)q[1], (int)q[2], (int)q[3], (int)q[4], (int)q[5],
                                          20.0f, -10.0f, c->src, c->dt};
    (void)stream;
    return gpu ? OT_GPU(samrt_mask_decode_mem_input_cuda(&d, p[0], p[1], (cudaStream_t)stream))
               : samrt_mask_decode_mem_input_ref(&d, p[0], p[1]);
}

/* binarized: every value -10 or +10; sigmoid: every value in [-10, 10] */
static long mem_check(const struct ot_case *c, void *const *p) {
    float *v = ot_load(c, 1, p[1]);
    long bad = 0;
    for (long i = 0; i < c->b[1].n; i++)
        bad += c->row->p[5] ? (v[i] != -10.0f && v[i] != 10.0f) : !(v[i] >= -10.0f && v[i] <= 10.0f);
    free(v);
    return bad;
}

static const struct ot_op OP_MEM = {"mask_mem_input", mem_setup, mem_call, mem_check, NULL, NULL, 0};

/* ---- fill_holes: p = {maps, h, w, max area, salt every n-th pixel (0 none), in place};
 *      f = {offset: larger, more background}; bit for bit ---- */
static void holes_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0] * p[1] * p[2];
    float *x = (float *)malloc(sizeof(float) * (size_t)n);
    if (!x) ot_sam2_fail(c, "no memory");
    uint64_t st = c->seed * 0x9E3779B97F4A7C15ull + 1;
    for (long b = 0; b < p[0]; b++) {  /* a few Gaussian bumps, minus offset, salt; exact zeros */
        float cx[6], cy[6], r[6];
        for (int i = 0; i < 6; i++) {
            cx[i] = tu_rand_uniform(&st, 0, (float)p[2]);
            cy[i] = tu_rand_uniform(&st, 0, (float)p[1]);
            r[i] = tu_rand_uniform(&st, 2, 0.3f * (float)(p[1] > p[2] ? p[1] : p[2]) + 2);
        }
        for (long y = 0; y < p[1]; y++)
            for (long xx = 0; xx < p[2]; xx++) {
                float v = -c->row->f[0];
                for (int i = 0; i < 6; i++) {
                    const float dx = ((float)xx - cx[i]) / r[i], dy = ((float)y - cy[i]) / r[i];
                    v += expf(-(dx * dx + dy * dy));
                }
                if (p[4] && tu_rand_u32(&st) % (uint32_t)p[4] == 0) v = -v;
                if (tu_rand_u32(&st) % 97 == 0) v = 0.0f;
                x[(b * p[1] + y) * p[2] + xx] = v;
            }
    }
    const int i = ot_buf_copy(c, SAMRT_DTYPE_F32, n, x);
    free(x);
    if (p[5]) {
        c->b[i].role = OT_INOUT;
        ot_buf_alias(c, i);
    } else {
        ot_buf_add(c, SAMRT_DTYPE_F32, n, OT_OUT);
    }
    ot_buf_add(c, SAMRT_DTYPE_I32, 2 * n, OT_SCRATCH);
    c->moved = 8.0 * n + 16.0 * n;
}

static enum samrt_status holes_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    const struct samrt_fill_holes_args a = {(int32_t)q[0], (int32_t)q[1], (int32_t)q[2], (int32_t)q[3],
                                            (const float *)p[0], (float *)p[1], (int32_t *)p[2]};
    (void)stream;
    return gpu ? OT_GPU(samrt_fill_holes_cuda(&a, (cudaStream_t)stream)) : samrt_fill_holes_ref(&a);
}

/* every pixel keeps its logit or is background (<= 0) turned into the fill value; a map
 * whose background is one component of at most max area pixels is all filled */
static long holes_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p, hw = q[1] * q[2];
    const float *x = (const float *)c->b[0].init, *y = (const float *)p[1];
    long bad = 0;
    for (long b = 0; b < q[0]; b++) {
        long bg = 0, filled = 0;
        for (long i = b * hw; i < (b + 1) * hw; i++) {
            bg += x[i] <= 0.0f;
            filled += y[i] != x[i];
            bad += !(y[i] == x[i] || (x[i] <= 0.0f && y[i] == SAMRT_FILL_HOLES_VALUE));
        }
        if (bg == hw && hw <= q[3]) bad += filled != hw;
    }
    return bad;
}

static const struct ot_op OP_HOLES = {"fill_holes", holes_setup, holes_call, holes_check, NULL, NULL, 0};

/* ---- sam2_select: p = {objects, pixels, token width}; mode of object b is b % 3, object
 *      b % 6 == 5 has a stable mask 0 (all 1), object 1 an IoU tie, scores of objects 0..2
 *      -0.5, 0.5, 0 (absent, present, absent); bit for bit ---- */
static void select_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0], nm = 4 * n * p[1];
    float *m = (float *)malloc(sizeof(float) * (size_t)nm), iou[4 * 64], score[64];
    if (!m || n > 64) ot_sam2_fail(c, "no memory");
    tu_fill_uniform(m, nm, c->seed, -0.3f, 0.3f);
    tu_fill_uniform(iou, 4 * n, c->seed + 1, 0.0f, 1.0f);
    tu_fill_uniform(score, n, c->seed + 2, -1.0f, 1.0f);
    for (long b = 0; b < n; b++) {
        if (b % 6 == 5)
            for (long i = 0; i < p[1]; i++) m[b * 4 * p[1] + i] = 1.0f;
        if (b == 1) iou[4 * b + 3] = iou[4 * b + 2];
        if (b < 3) score[b] = b == 0 ? -0.5f : b == 1 ? 0.5f : 0.0f;
    }
    ot_buf_copy(c, SAMRT_DTYPE_F32, nm, m);
    ot_buf_copy(c, SAMRT_DTYPE_F32, 4 * n, iou);
    ot_buf_copy(c, SAMRT_DTYPE_F32, n, score);
    ot_buf_random(c, c->dt, n * 6 * p[2], -2.0f, 2.0f);  /* tokens: 6 per object, the mask tokens from 2 */
    ot_buf_add(c, SAMRT_DTYPE_F32, n * p[1], OT_OUT);
    ot_buf_add(c, SAMRT_DTYPE_F32, n * SAMRT_SAM2_RES_COLS, OT_OUT);
    ot_buf_add(c, c->dt, n * p[2], OT_OUT);
    free(m);
    c->moved = 4.0 * nm + 4.0 * n * p[1];
}

static enum samrt_status select_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_sam2_select_args a;
    memset(&a, 0, sizeof a);
    a.dtype = c->dt;
    a.n_obj = (int)q[0];
    a.n_pix = q[1];
    a.dim = (int)q[2];
    a.masks = (const float *)p[0];
    a.iou = (const float *)p[1];
    a.score = (const float *)p[2];
    a.tokens = (const char *)p[3] + 2 * q[2] * (long)samrt_dtype_size(c->dt);
    a.s_tok_b = 6 * q[2];
    a.delta = SAMRT_SAM2_STABILITY_DELTA;
    a.thresh = SAMRT_SAM2_STABILITY_THRESH;
    a.no_obj_score = SAMRT_SAM2_NO_OBJ_SCORE;
    for (long b = 0; b < q[0]; b++) a.mode[b] = (uint8_t)(b % 3);
    a.low_res = (float *)p[4];
    a.result = (float *)p[5];
    a.token_out = p[6];
    (void)stream;
    return gpu ? OT_GPU(samrt_sam2_select_cuda(&a, (cudaStream_t)stream)) : samrt_sam2_select_ref(&a);
}

/* per object: MULTI picks the first best IoU of masks 1..3, SINGLE mask 0; the logits are the
 * picked mask's (or all NO_OBJ_SCORE when score <= 0), the token the picked token's bytes */
static long select_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p, np = q[1], D = q[2];
    const size_t es = samrt_dtype_size(c->dt);
    const float *m = (const float *)c->b[0].init, *iou = (const float *)c->b[1].init;
    const float *score = (const float *)c->b[2].init, *low = (const float *)p[4], *res = (const float *)p[5];
    long bad = 0;
    for (long b = 0; b < q[0]; b++) {
        const float *r = res + b * SAMRT_SAM2_RES_COLS;
        const int idx = (int)r[SAMRT_SAM2_RES_INDEX], tok = (int)r[SAMRT_SAM2_RES_TOKEN];
        int best = 1;
        for (int k = 2; k < 4; k++) best = iou[4 * b + k] > iou[4 * b + best] ? k : best;
        if (b % 3 == SAMRT_SAM2_MODE_MULTI) bad += idx != best || tok != best;
        else bad += tok != 0 || (b % 3 == SAMRT_SAM2_MODE_SINGLE ? idx != 0 : idx != 0 && idx != best);
        if (idx < 0 || idx > 3 || tok < 0 || tok > 3) return bad + 1;
        bad += r[SAMRT_SAM2_RES_IOU] != iou[4 * b + idx] || r[SAMRT_SAM2_RES_IS_OBJ] != (score[b] > 0.0f);
        for (long i = 0; i < np; i++)
            bad += low[b * np + i] != (score[b] > 0.0f ? m[(b * 4 + idx) * np + i] : SAMRT_SAM2_NO_OBJ_SCORE);
        bad += memcmp((const char *)p[6] + (size_t)(b * D) * es,
                      (const char *)c->b[3].init + (size_t)((b * 6 + 2 + tok) * D) * es, (size_t)D * es) != 0;
    }
    return bad;
}

static const struct ot_op OP_SELECT = {"sam2_select", select_setup, select_call, select_check, NULL, NULL, 0};

/* ---- sam2_ptr_gate: p = {objects, width}; object b present when b % 3 != 0; bit for bit ---- */
static void gate_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0];
    float res[64 * SAMRT_SAM2_RES_COLS];
    if (n > 64) ot_sam2_fail(c, "too many objects");
    memset(res, 0, sizeof res);
    for (long b = 0; b < n; b++) res[b * SAMRT_SAM2_RES_COLS + SAMRT_SAM2_RES_IS_OBJ] = b % 3 != 0;
    ot_buf_random(c, c->dt, n * p[1], -2.0f, 2.0f);
    ot_buf_random(c, c->dt, p[1], -2.0f, 2.0f);
    ot_buf_copy(c, SAMRT_DTYPE_F32, n * SAMRT_SAM2_RES_COLS, res);
    ot_buf_add(c, SAMRT_DTYPE_F32, n * p[1], OT_OUT);
    c->moved = (double)n * p[1] * (samrt_dtype_size(c->dt) + 4);
}

static enum samrt_status gate_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const struct samrt_sam2_ptr_gate_args a = {c->dt, (int)c->row->p[0], (int)c->row->p[1], p[0], p[1],
                                               (const float *)p[2], (float *)p[3]};
    (void)stream;
    return gpu ? OT_GPU(samrt_sam2_ptr_gate_cuda(&a, (cudaStream_t)stream)) : samrt_sam2_ptr_gate_ref(&a);
}

/* present: the pointer, absent: the no-object pointer, widened to f32 */
static long gate_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p;
    float *ptr = ot_load(c, 0, c->b[0].init), *no = ot_load(c, 1, c->b[1].init);
    const float *out = (const float *)p[3];
    long bad = 0;
    for (long b = 0; b < q[0]; b++)
        for (long k = 0; k < q[1]; k++) bad += out[b * q[1] + k] != (b % 3 ? ptr[b * q[1] + k] : no[k]);
    free(ptr);
    free(no);
    return bad;
}

static const struct ot_op OP_GATE = {"sam2_ptr_gate", gate_setup, gate_call, gate_check, NULL, NULL, 0};

#define F OT_FLOATS
#define B OT_BENCH
#define X &ot_tol_exact

/* ---- policy_samurai: p = {objects, low side, model side}; object b: b % 3 == 0 restarted
 *      (a new filter), 1 in the weighted branch (stable 15), 2 in the counting branch (stable
 *      5); the last object of three or more skipped, object 2 absent (score -2); bit for bit ---- */
static const struct samrt_samurai_params k_samurai = {SAMRT_SAMURAI_ALPHA, SAMRT_SAMURAI_STABLE_FRAMES,
                                                      SAMRT_SAMURAI_STABLE_IOU, SAMRT_SAMURAI_MIN_OBJ_SCORE,
                                                      SAMRT_SAMURAI_MEM_IOU, SAMRT_SAMURAI_MEM_SCORE};

static void policy_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0], np = p[1] * p[1];
    double *st = (double *)calloc((size_t)(n * SAMRT_POLICY_STATE), sizeof(double));
    float score[64];
    if (!st || n > 64) ot_sam2_fail(c, "no memory");
    tu_fill_uniform(score, n, c->seed + 2, 0.1f, 2.0f);
    if (n > 2) score[2] = -2.0f;
    for (long b = 0; b < n; b++) {
        if (b % 3 == 0) continue;
        const double z[4] = {p[2] * 0.5, p[2] * 0.4, 1.2, p[2] * 0.3};
        samrt_kf_initiate(st + b * SAMRT_POLICY_STATE, z);
        st[b * SAMRT_POLICY_STATE + SAMRT_KF_STARTED] = 1.0;
        st[b * SAMRT_POLICY_STATE + SAMRT_KF_STABLE] = b % 3 == 1 ? 15.0 : 5.0;
    }
    ot_buf_random(c, SAMRT_DTYPE_F32, 4 * n * np, -1.0f, 0.6f);
    ot_buf_random(c, SAMRT_DTYPE_F32, 4 * n, 0.0f, 1.0f);
    ot_buf_copy(c, SAMRT_DTYPE_F32, n, score);
    ot_buf_copy(c, SAMRT_DTYPE_U8, n * SAMRT_POLICY_STATE * (long)sizeof(double), st);
    c->b[c->nb - 1].role = OT_INOUT;
    ot_buf_add(c, SAMRT_DTYPE_I32, n * 12, OT_SCRATCH);
    /* the outputs are written in place: a skipped object's rows keep what they held */
    float *zero = (float *)calloc((size_t)(n * np), sizeof(float));
    if (!zero) ot_sam2_fail(c, "no memory");
    ot_buf_copy(c, SAMRT_DTYPE_F32, n * np, zero);
    c->b[c->nb - 1].role = OT_INOUT;
    ot_buf_copy(c, SAMRT_DTYPE_F32, n * SAMRT_POLICY_DEC_COLS, zero);
    c->b[c->nb - 1].role = OT_INOUT;
    free(zero);
    free(st);
    c->moved = 4.0 * 4 * n * np;
}

static enum samrt_status policy_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_policy_args a;
    memset(&a, 0, sizeof a);
    a.n_obj = (int)q[0];
    a.low = (int)q[1];
    a.side = (int)q[2];
    a.masks = (const float *)p[0];
    a.iou = (const float *)p[1];
    a.score = (const float *)p[2];
    for (long b = 0; b < q[0]; b++)
        a.code[b] = b == q[0] - 1 && q[0] > 2 ? SAMRT_POLICY_SKIP : b % 3 == 0 ? SAMRT_POLICY_RESTART : SAMRT_POLICY_RUN;
    a.p = k_samurai;
    a.state = (double *)p[3];
    a.boxes = (int32_t *)p[4];
    a.low_out = (float *)p[5];
    a.dec = (float *)p[6];
    (void)stream;
    return gpu ? OT_GPU(samrt_policy_samurai_cuda(&a, (cudaStream_t)stream)) : samrt_policy_samurai_ref(&a);
}

/* every run object keeps one of masks 1..3 (or all NO_OBJ_SCORE when absent) */
static long policy_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p, np = q[1] * q[1];
    const float *m = (const float *)c->b[0].init, *score = (const float *)c->b[2].init;
    const float *low = (const float *)p[5], *dec = (const float *)p[6];
    long bad = 0;
    for (long b = 0; b < q[0] - (q[0] > 2); b++) {
        const int idx = (int)dec[b * SAMRT_POLICY_DEC_COLS + SAMRT_POLICY_DEC_INDEX];
        if (idx < 1 || idx > 3) return bad + 1;
        for (long i = 0; i < np; i++)
            bad += low[b * np + i] != (score[b] > -1.0f ? m[(b * 4 + idx) * np + i] : SAMRT_POLICY_NO_OBJ_SCORE);
    }
    return bad;
}

static const struct ot_op OP_POLICY = {"policy_samurai", policy_setup, policy_call, policy_check, NULL, NULL, 0};

/* ---- policy_dam4sam: p = {objects, low side}; object b: mask 1 + b % 3 the best (IoU 0.9),
 *      its area already in the state (the gate passes), b % 4 == 2 a tripled past area (the
 *      gate fails), b % 4 == 3 absent (score -2), b % 5 == 4 restarted, the last of three or
 *      more skipped; speckled masks (many components, many ties); bit for bit ---- */
static uint8_t dam_code(long b, long n) {
    return b == n - 1 && n > 2 ? SAMRT_POLICY_SKIP : b % 5 == 4 ? SAMRT_POLICY_RESTART : SAMRT_POLICY_RUN;
}

static void dam_setup(struct ot_case *c) {
    const long *p = c->row->p, n = p[0], np = p[1] * p[1];
    double *st = (double *)calloc((size_t)(n * SAMRT_POLICY_STATE), sizeof(double));
    float *m = (float *)malloc(sizeof(float) * (size_t)(4 * n * np)), iou[4 * 64], score[64];
    if (!st || !m || n > 64) ot_sam2_fail(c, "no memory");
    tu_fill_uniform(m, 4 * n * np, c->seed + 1, -1.0f, 0.6f);
    tu_fill_uniform(iou, 4 * n, c->seed + 3, 0.0f, 0.8f);
    for (long b = 0; b < n; b++) {
        const long best = 1 + b % 3;
        long area = 0;
        iou[4 * b + best] = 0.9f;
        score[b] = b % 4 == 3 ? -2.0f : 1.5f;
        for (long i = 0; i < np; i++) area += m[(b * 4 + best) * np + i] > 0.0f;
        double *s = st + b * SAMRT_POLICY_STATE;
        s[SAMRT_DAM_N] = 5, s[SAMRT_DAM_NZ] = 1, s[SAMRT_DAM_AT] = 5;
        s[SAMRT_DAM_AREA] = (double)(b % 4 == 2 ? 3 * area : area);
    }
    ot_buf_copy(c, SAMRT_DTYPE_F32, 4 * n * np, m);
    ot_buf_copy(c, SAMRT_DTYPE_F32, 4 * n, iou);
    ot_buf_copy(c, SAMRT_DTYPE_F32, n, score);
    ot_buf_copy(c, SAMRT_DTYPE_U8, n * SAMRT_POLICY_STATE * (long)sizeof(double), st);
    c->b[c->nb - 1].role = OT_INOUT;
    ot_buf_add(c, SAMRT_DTYPE_I32, 2 * n * np, OT_SCRATCH);
    memset(m, 0, sizeof(float) * (size_t)(n * SAMRT_POLICY_DEC_COLS));
    ot_buf_copy(c, SAMRT_DTYPE_F32, n * SAMRT_POLICY_DEC_COLS, m);
    c->b[c->nb - 1].role = OT_INOUT;
    free(m);
    free(st);
    c->moved = 4.0 * 4 * n * np;
}

static enum samrt_status dam_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    struct samrt_policy_dam_args a;
    memset(&a, 0, sizeof a);
    a.n_obj = (int)q[0];
    a.low = (int)q[1];
    a.masks = (const float *)p[0];
    a.iou = (const float *)p[1];
    a.score = (const float *)p[2];
    for (long b = 0; b < q[0]; b++) a.code[b] = dam_code(b, q[0]);
    a.state = (double *)p[3];
    a.labels = (int32_t *)p[4];
    a.dec = (float *)p[5];
    (void)stream;
    return gpu ? OT_GPU(samrt_policy_dam4sam_cuda(&a, (cudaStream_t)stream)) : samrt_policy_dam4sam_ref(&a);
}

/* the best mask chosen; the passing objects tested both alternatives, the others none */
static long dam_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p;
    const float *dec = (const float *)p[5];
    long bad = 0;
    for (long b = 0; b < q[0]; b++) {
        const float *d = dec + b * SAMRT_POLICY_DEC_COLS;
        if (dam_code(b, q[0]) == SAMRT_POLICY_SKIP) continue;
        const int pass = dam_code(b, q[0]) == SAMRT_POLICY_RUN && b % 4 < 2;
        bad += d[SAMRT_DAM_DEC_INDEX] != (float)(1 + b % 3) || (pass && d[SAMRT_DAM_DEC_TESTED] != 2.0f) ||
               (!pass && d[SAMRT_DAM_DEC_TESTED] != 0.0f);
    }
    return bad;
}

static const struct ot_op OP_DAM = {"policy_dam4sam", dam_setup, dam_call, dam_check, NULL, NULL, 0};

const struct ot_row ot_rows_sam2[] = {
    /* resize_normalize: in w, h, out w, h, pitch pad, frame +4 bytes, out +1 element, smooth */
    {&OP_RESIZE, "1080p_to_1024", F, 0, X, B, {1920, 1080, 1024, 1024, 0, 0, 0, 0}, {0}},
    {&OP_RESIZE, "540p_to_1024_smooth", F, 0, X, B, {960, 540, 1024, 1024, 0, 0, 0, 1}, {0}},
    {&OP_RESIZE, "480p_to_1024", F, 0, X, B, {854, 480, 1024, 1024, 0, 0, 0, 0}, {0}},  /* every row phase */
    {&OP_RESIZE, "720p_to_1024", F, 0, X, B, {1280, 720, 1024, 1024, 0, 0, 0, 0}, {0}},
    {&OP_RESIZE, "4k_to_1024", F, 0, X, B, {3840, 2160, 1024, 1024, 0, 0, 0, 0}, {0}},   /* 16 taps */
    {&OP_RESIZE, "4000x3000_to_517x1024", F, 0, X, 0, {4000, 3000, 517, 1024, 0, 0, 0, 0}, {0}},  /* 32 taps */
    {&OP_RESIZE, "1080p_to_320x180", F, 0, X, 0, {1920, 1080, 320, 180, 0, 0, 0, 0}, {0}},
    {&OP_RESIZE, "1080p_pitch8_out_unaligned", F, 0, X, 0, {1920, 1080, 1024, 1024, 8, 0, 1, 0}, {0}},
    {&OP_RESIZE, "1080p_frame_unaligned16", F, 0, X, 0, {1920, 1080, 1024, 1024, 0, 1, 0, 0}, {0}},
    {&OP_RESIZE, "up_37x23_to_101x67", F, 0, X, 0, {37, 23, 101, 67, 0, 1, 0, 0}, {0}},
    {&OP_RESIZE, "333x101_to_50x160_pitch3", F, 0, X, 0, {333, 101, 50, 160, 3, 0, 0, 1}, {0}},
    {&OP_RESIZE, "101x333_to_160x50_pitch1", F, 0, X, 0, {101, 333, 160, 50, 1, 1, 1, 0}, {0}},
    {&OP_RESIZE, "one_pixel_to_5x3", F, 0, X, 0, {1, 1, 5, 3, 0, 1, 0, 0}, {0}},
    {&OP_RESIZE, "7x1_to_one_pixel", F, 0, X, 0, {7, 1, 1, 1, 0, 0, 0, 0}, {0}},
    {&OP_RESIZE, "identity_64x48", F, 0, X, 0, {64, 48, 64, 48, 0, 0, 0, 0}, {0}},
    {&OP_RESIZE, "700_to_1024_out_unaligned", F, 0, X, 0, {700, 700, 1024, 1024, 0, 0, 1, 0}, {0}},
    /* mask_decode: objects, low-res h, w, video h, w, misaligned outputs; f32 logits 1e-6 */
    {&OP_DECODE, "540p_1obj", OT_F32, 0, &TOL_DECODE, B, {1, 256, 256, 540, 960, 0}, {0}},
    {&OP_DECODE, "1080p_3obj", OT_F32, 0, &TOL_DECODE, B, {3, 256, 256, 1080, 1920, 0}, {0}},
    {&OP_DECODE, "1024_2obj", OT_BF16, 0, &TOL_DECODE, 0, {2, 256, 256, 1024, 1024, 0}, {0}},
    {&OP_DECODE, "w517_scalar_stores", F, 0, &TOL_DECODE, 0, {2, 256, 256, 333, 517, 0}, {0}},
    {&OP_DECODE, "540p_unaligned", F, 0, &TOL_DECODE, 0, {1, 256, 256, 540, 960, 1}, {0}},
    {&OP_DECODE, "down_13x7_to_5x3", F, 0, &TOL_DECODE, 0, {1, 13, 7, 5, 3, 0}, {0}},
    {&OP_DECODE, "up_3x2_to_129x131", F, 0, &TOL_DECODE, 0, {1, 3, 2, 129, 131, 0}, {0}},
    /* mask_decode_non_overlap: the same parameters; masks and statistics bit for bit */
    {&OP_NONOV, "540p_1obj", OT_F32, 0, X, 0, {1, 256, 256, 540, 960, 0}, {0}},
    {&OP_NONOV, "540p_2obj", OT_F32, 0, X, 0, {2, 256, 256, 540, 960, 0}, {0}},
    {&OP_NONOV, "540p_3obj_tie", OT_F32, 0, X, B, {3, 256, 256, 540, 960, 0}, {0}},
    {&OP_NONOV, "540p_4obj_tie", OT_F32, 0, X, B, {4, 256, 256, 540, 960, 0}, {0}},
    {&OP_NONOV, "1080p_3obj_tie", OT_F32, 0, X, 0, {3, 256, 256, 1080, 1920, 0}, {0}},
    {&OP_NONOV, "w517_3obj", F, 0, X, 0, {3, 256, 256, 333, 517, 0}, {0}},
    {&OP_NONOV, "540p_2obj_unaligned", F, 0, X, 0, {2, 256, 256, 540, 960, 1}, {0}},
    {&OP_NONOV, "down_13x7_4obj", F, 0, X, 0, {4, 13, 7, 5, 3, 0}, {0}},
    {&OP_NONOV, "up_3x2_3obj", F, 0, X, 0, {3, 3, 2, 129, 131, 0}, {0}},
    /* mask_mem_input: objects, low-res h, w, model h, w, binarize, misaligned out; 20x - 10 */
    {&OP_MEM, "1024_sigmoid", F, F, &TOL_MEM, B, {1, 256, 256, 1024, 1024, 0, 0}, {0}},
    {&OP_MEM, "1024_binarize", F, F, &TOL_MEM, 0, {1, 256, 256, 1024, 1024, 1, 0}, {0}},
    {&OP_MEM, "2obj_130x67_sigmoid_unaligned", F, F, &TOL_MEM, 0, {2, 256, 256, 130, 67, 0, 1}, {0}},
    {&OP_MEM, "2obj_130x67_binarize_unaligned", F, F, &TOL_MEM, 0, {2, 256, 256, 130, 67, 1, 1}, {0}},
    /* fill_holes: maps, h, w, max area, salt every, in place; offset; bit for bit */
    {&OP_HOLES, "track_k1", OT_F32, 0, X, B, {1, 256, 256, 8, 13, 0}, {0.3f}},
    {&OP_HOLES, "track_k4", OT_F32, 0, X, B, {4, 256, 256, 8, 7, 0}, {0.5f}},
    {&OP_HOLES, "track_k16_in_place", OT_F32, 0, X, B, {16, 256, 256, 8, 29, 1}, {0.2f}},
    {&OP_HOLES, "odd_prime", OT_F32, 0, X, 0, {3, 97, 131, 8, 5, 0}, {0.4f}},
    {&OP_HOLES, "odd_prime_in_place", OT_F32, 0, X, 0, {3, 97, 131, 8, 5, 1}, {0.4f}},
    {&OP_HOLES, "row", OT_F32, 0, X, 0, {2, 1, 257, 3, 3, 0}, {0.5f}},
    {&OP_HOLES, "column", OT_F32, 0, X, 0, {2, 263, 1, 3, 3, 0}, {0.5f}},
    {&OP_HOLES, "many_small", OT_F32, 0, X, 0, {200, 7, 5, 4, 3, 0}, {0.5f}},
    {&OP_HOLES, "area1", OT_F32, 0, X, 0, {2, 64, 64, 1, 2, 0}, {0.5f}},
    {&OP_HOLES, "area_big", OT_F32, 0, X, 0, {2, 64, 64, 500, 11, 0}, {0.6f}},
    {&OP_HOLES, "all_background", OT_F32, 0, X, 0, {2, 33, 17, 8, 0, 0}, {1e9f}},
    {&OP_HOLES, "all_background_fill", OT_F32, 0, X, 0, {1, 3, 3, 9, 0, 1}, {1e9f}},
    /* sam2_select: objects, pixels, token width; sam2_ptr_gate: objects, width; bit for bit */
    {&OP_SELECT, "7obj_256x256", F, 0, X, B, {7, 256 * 256, 256}, {0}},
    {&OP_SELECT, "11obj_1000px_w37", F, 0, X, 0, {11, 1000, 37}, {0}},
    {&OP_SELECT, "3obj_1px_w1", F, 0, X, 0, {3, 1, 1}, {0}},
    {&OP_GATE, "7obj_256", F, 0, X, 0, {7, 256}, {0}},
    {&OP_GATE, "11obj_w37", F, 0, X, 0, {11, 37}, {0}},
    /* policy_samurai: objects, low side, model side; bit for bit */
    {&OP_POLICY, "16obj_256_1024", OT_F32, 0, X, B | OT_GPU_ONLY, {16, 256, 1024}, {0}},
    {&OP_POLICY, "1obj_256_1024", OT_F32, 0, X, B | OT_GPU_ONLY, {1, 256, 1024}, {0}},
    {&OP_POLICY, "4obj_64_256", OT_F32, 0, X, 0, {4, 64, 256}, {0}},
    {&OP_POLICY, "2obj_16_64", OT_F32, 0, X, 0, {2, 16, 64}, {0}},
    {&OP_POLICY, "7obj_9_37", OT_F32, 0, X, 0, {7, 9, 37}, {0}},
    /* policy_dam4sam: objects, low side; bit for bit */
    {&OP_DAM, "16obj_256", OT_F32, 0, X, B | OT_GPU_ONLY, {16, 256}, {0}},
    {&OP_DAM, "1obj_256", OT_F32, 0, X, B | OT_GPU_ONLY, {1, 256}, {0}},
    {&OP_DAM, "6obj_64", OT_F32, 0, X, 0, {6, 64}, {0}},
    {&OP_DAM, "2obj_16", OT_F32, 0, X, 0, {2, 16}, {0}},
    {&OP_DAM, "11obj_9", OT_F32, 0, X, 0, {11, 9}, {0}},
};
const int ot_n_rows_sam2 = (int)(sizeof ot_rows_sam2 / sizeof ot_rows_sam2[0]);
