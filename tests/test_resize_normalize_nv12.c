/* test_resize_normalize_nv12.c - the fused NV12 reference (kernels/resize_normalize_nv12_ref.c)
 * equals its definition, nv12_rgb_ref followed by resize_normalize_ref, bit for bit: random
 * NV12 frames (noise, which reaches every clip of both conversions) with padded and odd
 * pitches, odd sides (a last column / row without a chroma partner), down- and upscales,
 * BT.601 / BT.709, limited / full range, swscale's C and x86 forms, f32 / f16 / bf16 outputs;
 * the packed-frame layout helpers; argument errors.
 * Run: ctest -R test_resize_normalize_nv12 */
#include "resize_normalize_nv12.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "samrt_impl.h"
#include "test_util.h"

static const int INV_601[4] = {104597, 132201, 25675, 53279};
static const int INV_709[4] = {117489, 138438, 13975, 34925};

struct shape {
    int w, h, ow, oh, y_pad, uv_pad;
};

/* One shape under one colour setting and dtype: fused == composed, byte for byte. */
static void check_case(const struct shape *s, int bt709, int full, int mode, enum samrt_dtype dt, uint64_t seed) {
    const size_t yp = (size_t)s->w + (size_t)s->y_pad, cp = samrt_nv12_packed_uv_pitch(s->w) + (size_t)s->uv_pad;
    const size_t ch = (size_t)(s->h + 1) / 2, rp = 3 * (size_t)s->w + 5, n_out = 3 * (size_t)s->ow * s->oh;
    const size_t es = samrt_dtype_size(dt);
    uint8_t *y = malloc(yp * s->h), *uv = malloc(cp * ch), *rgb = malloc(rp * s->h);
    void *tab = aligned_alloc(16, 1 << 22), *want = malloc(n_out * es), *got = malloc(n_out * es);
    struct samrt_resize_plan plan;
    CHECK_STATUS(samrt_resize_plan_init(s->w, s->h, s->ow, s->oh, &plan), SAMRT_OK);
    if (!y || !uv || !rgb || !tab || !want || !got || plan.table_bytes > (1 << 22)) {
        CHECK_MSG(0, "%dx%d: out of memory", s->w, s->h);
        goto done;
    }
    uint64_t r = seed;
    for (size_t i = 0; i < yp * s->h; i++) y[i] = (uint8_t)(tu_rand_u32(&r) >> 24);
    for (size_t i = 0; i < cp * ch; i++) uv[i] = (uint8_t)(tu_rand_u32(&r) >> 24);
    struct samrt_yuv_coefs k;
    samrt_yuv_coefs_init(bt709 ? INV_709 : INV_601, full, mode, &k);
    CHECK_STATUS(samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, tab, plan.table_bytes), SAMRT_OK);
    CHECK_STATUS(samrt_nv12_rgb_ref(&k, y, yp, uv, cp, s->w, s->h, rgb, rp), SAMRT_OK);
    CHECK_STATUS(samrt_resize_normalize_ref(&plan, tab, rgb, rp, samrt_sam_mean, samrt_sam_std, want, dt), SAMRT_OK);
    memset(got, 0xcd, n_out * es);
    CHECK_STATUS(samrt_resize_normalize_nv12_ref(&plan, tab, &k, y, yp, uv, cp, samrt_sam_mean, samrt_sam_std, got, dt),
                 SAMRT_OK);
    CHECK_MSG(!memcmp(want, got, n_out * es), "%dx%d -> %dx%d (pads %d/%d) %s %s %s %s: fused != nv12_rgb + resize",
              s->w, s->h, s->ow, s->oh, s->y_pad, s->uv_pad, bt709 ? "709" : "601", full ? "full" : "limited",
              mode == SAMRT_YUV_SWS_X86 ? "x86" : "c", samrt_dtype_name(dt));
done:
    free(y), free(uv), free(rgb), free(tab), free(want), free(got);
}

static void test_fused_equals_composed(void) {
    static const struct shape shapes[] = {
        {17, 13, 16, 16, 3, 1},     /* odd sides, odd pitches, upscale */
        {17, 13, 7, 5, 0, 0},       /* odd sides, downscale */
        {1, 1, 4, 4, 0, 0},         /* one pixel */
        {37, 23, 101, 67, 5, 7},
        {333, 101, 50, 160, 3, 1},
        {101, 333, 160, 50, 1, 3},
        {160, 90, 64, 64, 64, 32},  /* an NVDEC-like pitch */
    };
    int n = 0;
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(shapes); i++)
        for (int c = 0; c < 8; c++) {
            const enum samrt_dtype dt = c == 0 ? SAMRT_DTYPE_BF16 : c == 1 ? SAMRT_DTYPE_F16 : SAMRT_DTYPE_F32;
            check_case(&shapes[i], c & 1, (c >> 1) & 1, (c >> 2) & 1, dt, 0x1234 + 31 * i + c);
            n++;
        }
    printf("  fused == nv12_rgb_ref + resize_normalize_ref: %d cases\n", n);
}

/* A production frame: 1280x720 BT.709 limited x86 -> 1024, f32. */
static void test_720p(void) {
    const struct shape s = {1280, 720, 1024, 1024, 256, 256};
    check_case(&s, 1, 0, SAMRT_YUV_SWS_X86, SAMRT_DTYPE_F32, 77);
}

static void test_packed_layout(void) {
    CHECK_EQ_INT(samrt_nv12_packed_uv_pitch(17), 18);
    CHECK_EQ_INT(samrt_nv12_packed_uv_offset(17, 13), 224);                /* 221 -> 16-aligned */
    CHECK_EQ_INT(samrt_nv12_packed_bytes(17, 13), 224 + 18 * 7);
    CHECK_EQ_INT(samrt_nv12_packed_bytes(1920, 1080), 1920 * 1080 * 3 / 2);
    CHECK_EQ_INT(samrt_nv12_packed_bytes(1, 1), 18);                        /* more than RGB8's 3 */
}

static void test_bad_args(void) {
    struct samrt_resize_plan plan;
    CHECK_STATUS(samrt_resize_plan_init(17, 13, 16, 16, &plan), SAMRT_OK);
    struct samrt_yuv_coefs k;
    samrt_yuv_coefs_init(INV_601, 0, SAMRT_YUV_SWS_C, &k);
    static uint8_t y[17 * 13], uv[18 * 7];
    static float out[3 * 16 * 16];
    void *tab = aligned_alloc(16, plan.table_bytes);
    CHECK(tab != NULL);
    if (!tab) return;
    CHECK_STATUS(samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, tab, plan.table_bytes), SAMRT_OK);
    const float *m = samrt_sam_mean, *sd = samrt_sam_std;
    const enum samrt_dtype f = SAMRT_DTYPE_F32;
    CHECK_STATUS(samrt_resize_normalize_nv12_ref(&plan, tab, &k, y, 16, uv, 18, m, sd, out, f), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_normalize_nv12_ref(&plan, tab, &k, y, 17, uv, 17, m, sd, out, f), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_normalize_nv12_ref(&plan, tab, NULL, y, 17, uv, 18, m, sd, out, f), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_normalize_nv12_ref(&plan, tab, &k, y, 17, NULL, 18, m, sd, out, f), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_normalize_nv12_ref(&plan, tab, &k, y, 17, uv, 18, m, sd, out, SAMRT_DTYPE_U8),
                 SAMRT_E_UNSUPPORTED);
    CHECK_STATUS(samrt_resize_normalize_nv12_ref(&plan, tab, &k, y, 17, uv, 18, m, sd, out, f), SAMRT_OK);
    free(tab);
}

int main(void) {
    test_packed_layout();
    test_bad_args();
    test_fused_equals_composed();
    test_720p();
    return check_report("test_resize_normalize_nv12");
}
