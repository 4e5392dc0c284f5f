/* ops_table_video.c - the op table's rows for a decoded video frame's way in:
 *   nv12_rgb (kernels/nv12_rgb.h): NVDEC's NV12 surface (pitched luma, interleaved chroma)
 *     into RGB8 with swscale's arithmetic, bit for bit: 1080p / 720p production frames with
 *     NVDEC-like pitches, BT.601 / BT.709, limited / full range, swscale's C-table and x86
 *     forms, odd sides (a last column and row without a chroma partner), padded output rows,
 *     one pixel.
 * The check recomputes each pixel from its definition (samrt_yuv_pixel), so the reference is
 * tested too. test_video_nv12.c compares the reference with swscale on decoded frames;
 * ops_table.h says how a row is run. */
#include <stdlib.h>
#include <string.h>

#include "nv12_rgb.h"
#include "ops_table.h"
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

#define B OT_BENCH
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
};
const int ot_n_rows_video = (int)(sizeof ot_rows_video / sizeof ot_rows_video[0]);
