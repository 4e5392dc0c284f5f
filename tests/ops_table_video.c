/* ops_table_video.c - the op table's rows for a decoded video frame's way in:
 *   nv12_rgb (kernels/nv12_rgb.h): NVDEC's NV12 surface (pitched luma, interleaved chroma)
 *     into RGB8 with swscale's arithmetic, bit for bit: 1080p / 720p production frames with
 *     NVDEC-like pitches, BT.601 / BT.709, limited / full range, swscale's C-table and x86
 *     forms, odd sides (a last column and row without a chroma partner), padded output rows,
 *     one pixel.
 *   resize_normalize_nv12 (kernels/resize_normalize_nv12.h): the model input straight from
 *     NV12 (the conversion fused into the resize), bit for bit: 1080p / 720p -> 1024 with NVDEC
 *     pitches, odd sides and pitches, unaligned planes, up- and downscales.
 * The nv12_rgb check recomputes each pixel from its definition (samrt_yuv_pixel), so the
 * reference is tested too; the resize_normalize_nv12 check (f32) composes the two unfused
 * references, nv12_rgb_ref then resize_normalize_ref. test_video_nv12.c compares the
 * reference with swscale on decoded frames; ops_table.h says how a row is run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv12_rgb.h"
#include "ops_table.h"
#include "resize_normalize_nv12.h"
#include "samrt_impl.h"
#include "test_util.h"

/* swscale's sws_getCoefficients for BT.601 (SWS_CS_ITU601) and BT.709 (SWS_CS_ITU709) */
static const int INV_601[4] = {104597, 132201, 25675, 53279};
static const int INV_709[4] = {117489, 138438, 13975, 34925};

/* p = {w, h, luma pitch pad, chroma pitch pad, rgb pitch pad, BT.709, full range, x86 form} */
static void nv12_sizes(const long *p, long *yp, long *cp, long *rp, long *ch) {
    *yp = p[0] + p[2];
    *cp = 2 * ((p[0] + 1) / 2) + p[3];
    *rp = 3 * p[0] + p[4];
    *ch = (p[1] + 1) / 2;
}

static void nv12_coefs(const struct ot_case *c, struct samrt_yuv_coefs *k) {
    samrt_yuv_coefs_init(c->row->p[5] ? INV_709 : INV_601, (int)c->row->p[6], (int)c->row->p[7], k);
}

static void nv12_setup(struct ot_case *c) {
    const long *p = c->row->p;
    long yp, cp, rp, ch;
    nv12_sizes(p, &yp, &cp, &rp, &ch);
    const long ny = yp * p[1], nc = cp * ch;
    uint8_t *v = (uint8_t *)malloc((size_t)(ny > nc ? ny : nc));
    uint64_t s = c->seed * 0x9E3779B97F4A7C15ull + 1;
    for (long i = 0; v && i < ny; i++) v[i] = (uint8_t)(tu_rand_u32(&s) >> 24);
    ot_buf_copy(c, SAMRT_DTYPE_U8, ny, v);
    for (long i = 0; v && i < nc; i++) v[i] = (uint8_t)(tu_rand_u32(&s) >> 24);
    ot_buf_copy(c, SAMRT_DTYPE_U8, nc, v);
    free(v);
    const int o = ot_buf_add(c, SAMRT_DTYPE_U8, rp * p[1], OT_OUT);
    if (p[4]) c->b[o].cmp = rp * (p[1] - 1) + 3 * p[0];  /* the padding after the last row is never written */
    c->moved = 1.5 * (double)(p[0] * p[1]) + 3.0 * (double)(p[0] * p[1]);
}

static enum samrt_status nv12_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    const long *q = c->row->p;
    long yp, cp, rp, ch;
    nv12_sizes(q, &yp, &cp, &rp, &ch);
    struct samrt_yuv_coefs k;
    nv12_coefs(c, &k);
    (void)stream;
    return gpu ? OT_GPU(samrt_nv12_rgb_cuda(&k, (const uint8_t *)p[0], (size_t)yp, (const uint8_t *)p[1], (size_t)cp,
                                            (int)q[0], (int)q[1], (uint8_t *)p[2], (size_t)rp, (cudaStream_t)stream))
               : samrt_nv12_rgb_ref(&k, (const uint8_t *)p[0], (size_t)yp, (const uint8_t *)p[1], (size_t)cp, (int)q[0],
                                    (int)q[1], (uint8_t *)p[2], (size_t)rp);
}

/* every pixel is samrt_yuv_pixel of its luma and its 2x2 block's chroma */
static long nv12_check(const struct ot_case *c, void *const *p) {
    const long *q = c->row->p;
    long yp, cp, rp, ch;
    nv12_sizes(q, &yp, &cp, &rp, &ch);
    struct samrt_yuv_coefs k;
    nv12_coefs(c, &k);
    const uint8_t *y = (const uint8_t *)c->b[0].init, *uv = (const uint8_t *)c->b[1].init, *out = (const uint8_t *)p[2];
    long bad = 0;
    for (long r = 0; r < q[1]; r++)
        for (long x = 0; x < q[0]; x++) {
            uint8_t want[3];
            const uint8_t *cc = uv + (r / 2) * cp + 2 * (x / 2);
            samrt_yuv_pixel(&k, y[r * yp + x], cc[0], cc[1], want);
            bad += memcmp(want, out + r * rp + 3 * x, 3) != 0;
        }
    return bad;
}

static const struct ot_op OP_NV12 = {"nv12_rgb", nv12_setup, nv12_call, nv12_check, NULL, NULL, 0};

/* ---- resize_normalize_nv12: p = {in w, in h, out w, out h, luma pitch pad, chroma pitch pad,
 *      BT.709, full range, x86 form, planes one byte past an aligned start} ---- */
static void rn12_plan(const struct ot_case *c, struct samrt_resize_plan *plan, struct samrt_yuv_coefs *k, long *yp,
                      long *cp) {
    const long *p = c->row->p;
    if (samrt_resize_plan_init((int)p[0], (int)p[1], (int)p[2], (int)p[3], plan) != SAMRT_OK) {
        fprintf(stderr, "%s: no plan\n", c->row->shape);
        exit(1);
    }
    samrt_yuv_coefs_init(p[6] ? INV_709 : INV_601, (int)p[7], (int)p[8], k);
    *yp = p[0] + p[4];
    *cp = 2 * ((p[0] + 1) / 2) + p[5];
}

static void rn12_setup(struct ot_case *c) {
    const long *p = c->row->p;
    struct samrt_resize_plan plan;
    struct samrt_yuv_coefs k;
    long yp, cp;
    rn12_plan(c, &plan, &k, &yp, &cp);
    const long ny = yp * p[1], nc = cp * ((p[1] + 1) / 2);
    void *tab = aligned_alloc(16, SAMRT_PAD(plan.table_bytes, 16));
    uint8_t *v = (uint8_t *)malloc((size_t)(ny > nc ? ny : nc));
    if (!tab || !v || samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, tab, plan.table_bytes) != SAMRT_OK) {
        fprintf(stderr, "%s: no tables\n", c->row->shape);
        exit(1);
    }
    ot_buf_copy(c, SAMRT_DTYPE_U8, (long)plan.table_bytes, tab);
    uint64_t s = c->seed * 0x9E3779B97F4A7C15ull + 7;
    for (long i = 0; i < ny; i++) v[i] = (uint8_t)(tu_rand_u32(&s) >> 24);
    c->b[ot_buf_copy(c, SAMRT_DTYPE_U8, ny, v)].misalign = (int)p[9];
    for (long i = 0; i < nc; i++) v[i] = (uint8_t)(tu_rand_u32(&s) >> 24);
    c->b[ot_buf_copy(c, SAMRT_DTYPE_U8, nc, v)].misalign = (int)p[9];
    ot_buf_add(c, c->dt, 3 * p[2] * p[3], OT_OUT);
    c->moved = 1.5 * (double)(p[0] * p[1]) + 3.0 * p[2] * p[3] * samrt_dtype_size(c->dt);
    free(tab);
    free(v);
}

static enum samrt_status rn12_call(const struct ot_case *c, void *const *p, int gpu, void *stream) {
    struct samrt_resize_plan plan;
    struct samrt_yuv_coefs k;
    long yp, cp;
    rn12_plan(c, &plan, &k, &yp, &cp);
    (void)stream;
    return gpu ? OT_GPU(samrt_resize_normalize_nv12_cuda(&plan, p[0], &k, (const uint8_t *)p[1], (size_t)yp,
                                                         (const uint8_t *)p[2], (size_t)cp, p[3], c->dt,
                                                         (cudaStream_t)stream))
               : samrt_resize_normalize_nv12_ref(&plan, p[0], &k, (const uint8_t *)p[1], (size_t)yp,
                                                 (const uint8_t *)p[2], (size_t)cp, samrt_sam_mean, samrt_sam_std, p[3],
                                                 c->dt);
}

/* f32: the output is nv12_rgb_ref's frame through resize_normalize_ref, bit for bit */
static long rn12_check(const struct ot_case *c, void *const *p) {
    if (c->dt != SAMRT_DTYPE_F32) return 0;
    const long *q = c->row->p, n = 3 * q[2] * q[3];
    struct samrt_resize_plan plan;
    struct samrt_yuv_coefs k;
    long yp, cp;
    rn12_plan(c, &plan, &k, &yp, &cp);
    uint8_t *rgb = (uint8_t *)malloc((size_t)(3 * q[0] * q[1]));
    float *want = (float *)malloc(sizeof(float) * (size_t)n);
    if (!rgb || !want ||
        samrt_nv12_rgb_ref(&k, (const uint8_t *)c->b[1].init, (size_t)yp, (const uint8_t *)c->b[2].init, (size_t)cp,
                           (int)q[0], (int)q[1], rgb, 3 * (size_t)q[0]) != SAMRT_OK ||
        samrt_resize_normalize_ref(&plan, p[0], rgb, 3 * (size_t)q[0], samrt_sam_mean, samrt_sam_std, want,
                                   SAMRT_DTYPE_F32) != SAMRT_OK) {
        fprintf(stderr, "%s: no composed reference\n", c->row->shape);
        exit(1);
    }
    long bad = 0;
    for (long i = 0; i < n; i++) bad += memcmp(&want[i], (const float *)p[3] + i, sizeof(float)) != 0;
    free(rgb);
    free(want);
    return bad;
}

static const struct ot_op OP_RN12 = {"resize_normalize_nv12", rn12_setup, rn12_call, rn12_check, NULL, NULL, 0};

#define B OT_BENCH
#define F OT_FLOATS
#define X &ot_tol_exact

const struct ot_row ot_rows_video[] = {
    /* nv12_rgb: w, h, luma pitch pad, chroma pitch pad, rgb pad, BT.709, full range, x86 form;
     * bit for bit */
    {&OP_NV12, "1080p_709_nvdec_pitch_x86", OT_U8, 0, X, B, {1920, 1080, 128, 128, 0, 1, 0, 1}, {0}},
    {&OP_NV12, "1080p_709_nvdec_pitch_c", OT_U8, 0, X, 0, {1920, 1080, 128, 128, 0, 1, 0, 0}, {0}},
    {&OP_NV12, "720p_601_nvdec_pitch_x86", OT_U8, 0, X, B, {1280, 720, 256, 256, 0, 0, 0, 1}, {0}},
    {&OP_NV12, "720p_709_full_c", OT_U8, 0, X, 0, {1280, 720, 0, 0, 0, 1, 1, 0}, {0}},
    {&OP_NV12, "480p_601_full_x86", OT_U8, 0, X, 0, {854, 480, 42, 10, 0, 0, 1, 1}, {0}},
    {&OP_NV12, "odd_37x23_padded_c", OT_U8, 0, X, 0, {37, 23, 3, 5, 7, 1, 0, 0}, {0}},
    {&OP_NV12, "odd_37x23_padded_x86", OT_U8, 0, X, 0, {37, 23, 3, 5, 7, 0, 1, 1}, {0}},
    {&OP_NV12, "odd_1x1", OT_U8, 0, X, 0, {1, 1, 0, 0, 0, 0, 0, 0}, {0}},
    {&OP_NV12, "one_row_101", OT_U8, 0, X, 0, {101, 1, 0, 1, 0, 1, 1, 1}, {0}},
    /* resize_normalize_nv12: in w, h, out w, h, luma pad, chroma pad, BT.709, full range, x86
     * form, unaligned planes; bit for bit */
    {&OP_RN12, "1080p_to_1024_709_nvdec_pitch", F, 0, X, B, {1920, 1080, 1024, 1024, 128, 128, 1, 0, 1, 0}, {0}},
    {&OP_RN12, "720p_to_1024_601_nvdec_pitch", F, 0, X, B, {1280, 720, 1024, 1024, 256, 256, 0, 0, 0, 0}, {0}},
    {&OP_RN12, "480p_to_1024_709_full", F, 0, X, 0, {854, 480, 1024, 1024, 0, 0, 1, 1, 1, 0}, {0}},
    {&OP_RN12, "odd_17x13_to_16_pitch3_1", F, 0, X, 0, {17, 13, 16, 16, 3, 1, 0, 0, 0, 1}, {0}},
    {&OP_RN12, "odd_17x13_to_7x5", F, 0, X, 0, {17, 13, 7, 5, 0, 0, 1, 0, 1, 0}, {0}},
    {&OP_RN12, "up_37x23_to_101x67_unaligned", F, 0, X, 0, {37, 23, 101, 67, 5, 7, 1, 1, 0, 1}, {0}},
    {&OP_RN12, "333x101_to_50x160_pitch3", F, 0, X, 0, {333, 101, 50, 160, 3, 1, 0, 1, 1, 1}, {0}},
    {&OP_RN12, "1x1_to_8", F, 0, X, 0, {1, 1, 8, 8, 0, 0, 0, 0, 0, 0}, {0}},
};
const int ot_n_rows_video = (int)(sizeof ot_rows_video / sizeof ot_rows_video[0]);
