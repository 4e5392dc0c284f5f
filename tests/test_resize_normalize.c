/* test_resize_normalize.c - the resize plan and reference (kernels/resize_normalize_ref.c)
 * against Pillow itself: golden uint8 outputs of PIL.Image.resize (BICUBIC) made by
 * tests/data/resize/make_golden.py from frames this test regenerates with the same integer
 * formulas, compared bit for bit; the normalisation against numpy's float32 table (norm.bin);
 * plus hand-worked coefficients, identity sizes, row padding and argument errors.
 * Needs SAMRT_TEST_DATA (set by ctest). Run: ctest -R test_resize_normalize */
#include "resize_normalize.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "samrt_impl.h"
#include "test_util.h"

/* ---- frames: the same formulas as make_golden.py ----------------------------------------- */

static unsigned noise(uint64_t seed, uint64_t idx) {
    uint64_t z = (seed << 32) + idx + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (unsigned)(z >> 56);
}

static void make_frame(uint8_t *f, size_t nb_row, int w, int h, int pattern, uint64_t seed) {
    for (long y = 0; y < h; y++)
        for (long x = 0; x < w; x++)
            for (long c = 0; c < 3; c++) {
                uint64_t idx = (uint64_t)((y * w + x) * 3 + c);
                long v;
                if (pattern == 0) {
                    v = noise(seed, idx);
                } else if (pattern == 1) {
                    v = (x * 5 + y * 3 + c * 85 + ((x * y) >> 5)) & 255;
                } else {
                    long g = (x * 255 / (w > 1 ? w - 1 : 1) + y * 255 / (h > 1 ? h - 1 : 1) + c * 40) / 2;
                    v = g + (long)(noise(seed, idx) & 31) - 16;
                    v = v < 0 ? 0 : (v > 255 ? 255 : v);
                }
                f[y * nb_row + x * 3 + c] = (uint8_t)v;
            }
}

static uint64_t fnv1a64(const uint8_t *p, size_t n) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

/* ---- golden files -------------------------------------------------------------------------- */

static void *read_file(const char *name, size_t *len) {
    const char *dir = getenv("SAMRT_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/resize/%s", dir ? dir : "tests/data", name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static int32_t rd_i32(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }

static void *tables_for(const struct samrt_resize_plan *p) {
    void *t = aligned_alloc(16, SAMRT_PAD(p->table_bytes, 16));
    CHECK_STATUS(samrt_resize_plan_fill(p, samrt_sam_mean, samrt_sam_std, t, p->table_bytes), SAMRT_OK);
    return t;
}

static float g_norm[3 * 256];  /* numpy's table */

static void check_golden(const char *name) {
    size_t len = 0;
    uint8_t *g = read_file(name, &len);
    CHECK_MSG(g != NULL && len >= 40 && memcmp(g, "RSZ1", 4) == 0, "cannot read golden %s", name);
    if (!g || len < 40) { free(g); return; }
    const int iw = rd_i32(g + 4), ih = rd_i32(g + 8), ow = rd_i32(g + 12), oh = rd_i32(g + 16);
    const int pattern = rd_i32(g + 20), seed = rd_i32(g + 24), n_rows = rd_i32(g + 28);
    uint64_t hash;
    memcpy(&hash, g + 32, 8);
    CHECK_MSG(len == 40 + 4 * (size_t)n_rows + (size_t)n_rows * ow * 3, "%s: bad size", name);
    const uint8_t *rows = g + 40, *data = rows + 4 * n_rows;

    uint8_t *frame = malloc((size_t)iw * ih * 3), *out = malloc((size_t)ow * oh * 3);
    make_frame(frame, (size_t)iw * 3, iw, ih, pattern, (uint64_t)seed);
    struct samrt_resize_plan plan;
    CHECK_STATUS(samrt_resize_plan_init(iw, ih, ow, oh, &plan), SAMRT_OK);
    void *tab = tables_for(&plan);
    CHECK_STATUS(samrt_resize_u8_ref(&plan, tab, frame, (size_t)iw * 3, out), SAMRT_OK);
    int bad_rows = 0;
    for (int i = 0; i < n_rows; i++) {
        int r = rd_i32(rows + 4 * i);
        bad_rows += memcmp(out + (size_t)r * ow * 3, data + (size_t)i * ow * 3, (size_t)ow * 3) != 0;
    }
    CHECK_MSG(bad_rows == 0, "%s: %d of %d rows differ from Pillow", name, bad_rows, n_rows);
    CHECK_MSG(fnv1a64(out, (size_t)ow * oh * 3) == hash, "%s: output hash differs from Pillow", name);

    /* normalised f32 output = numpy's table at Pillow's bytes, bit for bit */
    float *nrm = malloc((size_t)ow * oh * 3 * sizeof(float));
    CHECK_STATUS(samrt_resize_normalize_ref(&plan, tab, frame, (size_t)iw * 3, samrt_sam_mean,
                                            samrt_sam_std, nrm, SAMRT_DTYPE_F32), SAMRT_OK);
    long bad = 0;
    for (int c = 0; c < 3; c++)
        for (long i = 0; i < (long)ow * oh; i++)
            bad += memcmp(&nrm[c * (long)ow * oh + i], &g_norm[c * 256 + out[i * 3 + c]], 4) != 0;
    CHECK_MSG(bad == 0, "%s: %ld normalised values differ", name, bad);
    printf("  %-28s %4dx%-4d -> %4dx%-4d taps %d/%d tile %dx%d smem %d: %s\n", name, iw, ih, ow, oh,
           plan.kx, plan.ky, plan.tile_w, plan.tile_h, plan.smem_bytes, bad_rows || bad ? "FAIL" : "ok");
    free(g); free(frame); free(out); free(tab); free(nrm);
}

static void check_norm_table(void) {
    size_t len = 0;
    uint8_t *g = read_file("norm.bin", &len);
    CHECK_MSG(g != NULL && len == 4 + 24 + 768 * 4 && memcmp(g, "NRM1", 4) == 0, "cannot read norm.bin");
    if (!g || len != 4 + 24 + 768 * 4) { free(g); return; }
    float mean[3], std[3];
    memcpy(mean, g + 4, 12);
    memcpy(std, g + 16, 12);
    CHECK(memcmp(mean, samrt_sam_mean, 12) == 0 && memcmp(std, samrt_sam_std, 12) == 0);
    memcpy(g_norm, g + 28, sizeof g_norm);
    struct samrt_resize_plan plan;
    CHECK_STATUS(samrt_resize_plan_init(4, 4, 4, 4, &plan), SAMRT_OK);
    uint8_t *tab = tables_for(&plan);
    CHECK(memcmp(tab + plan.off_norm, g_norm, sizeof g_norm) == 0);  /* what the GPU looks up */
    CHECK(g_norm[0] == (0.0f - 0.485f) / 0.229f && g_norm[2 * 256 + 255] == (1.0f - 0.406f) / 0.225f);
    free(g);
    free(tab);
}

/* ---- hand-checked ---------------------------------------------------------------------------- */

static void test_hand(void) {
    /* 4 -> 8 columns: scale 0.5, support 2, output 0 has center 0.25, taps x = 0, 1 with
     * K(0.25) = 0.8671875, K(1.25) = -0.0703125, sum 0.796875 -> fixed 4564390, -370086 */
    struct samrt_resize_plan plan;
    CHECK_STATUS(samrt_resize_plan_init(4, 3, 8, 3, &plan), SAMRT_OK);
    uint8_t *tab = tables_for(&plan);
    const int32_t *xb = (const int32_t *)(tab + plan.off_xb), *xw = (const int32_t *)(tab + plan.off_xw);
    CHECK(xb[0] == 0 && xb[1] == 2 && xw[0] == 4564390 && xw[1] == -370086 && xw[2] == 0);
    CHECK_EQ_INT(plan.kx, 4);
    /* same size in y: one tap of weight 1.0 (2^22); 4 taps in total, 3 of them zero */
    const int32_t *yb = (const int32_t *)(tab + plan.off_yb), *yw = (const int32_t *)(tab + plan.off_yw);
    for (int y = 0; y < 3; y++) {
        int32_t s = 0, one = 0;
        for (int k = 0; k < yb[2 * y + 1]; k++) {
            s += yw[y * plan.ky + k];
            one += yw[y * plan.ky + k] == (1 << 22);
        }
        CHECK(s == (1 << 22) && one == 1 && yb[2 * y] == (y > 0 ? y - 1 : 0));
    }
    /* every column's weights sum to 2^22 within the rounding of each weight */
    for (int x = 0; x < 8; x++) {
        int32_t s = 0;
        for (int k = 0; k < plan.kx; k++) s += xw[x * plan.kx + k];
        CHECK(abs(s - (1 << 22)) <= xb[2 * x + 1]);
    }
    free(tab);

    /* identity size: output bytes = input bytes (Pillow skips the resize) */
    enum { W = 13, H = 7 };
    uint8_t in[W * H * 3], out[W * H * 3];
    make_frame(in, W * 3, W, H, 0, 9);
    CHECK_STATUS(samrt_resize_plan_init(W, H, W, H, &plan), SAMRT_OK);
    tab = tables_for(&plan);
    CHECK_STATUS(samrt_resize_u8_ref(&plan, tab, in, W * 3, out), SAMRT_OK);
    CHECK(memcmp(in, out, sizeof in) == 0);
    free(tab);

    /* a constant frame stays constant, and a padded row pitch changes nothing */
    enum { IW = 50, IH = 31, PITCH = 3 * IW + 13, OW = 19, OH = 40 };
    static uint8_t pad[IH * PITCH], packed[IH * IW * 3];
    uint8_t o1[OW * OH * 3], o2[OW * OH * 3];
    make_frame(packed, IW * 3, IW, IH, 1, 0);
    memset(pad, 0xee, sizeof pad);
    for (int y = 0; y < IH; y++) memcpy(pad + y * PITCH, packed + y * IW * 3, IW * 3);
    CHECK_STATUS(samrt_resize_plan_init(IW, IH, OW, OH, &plan), SAMRT_OK);
    tab = tables_for(&plan);
    CHECK_STATUS(samrt_resize_u8_ref(&plan, tab, packed, IW * 3, o1), SAMRT_OK);
    CHECK_STATUS(samrt_resize_u8_ref(&plan, tab, pad, PITCH, o2), SAMRT_OK);
    CHECK(memcmp(o1, o2, sizeof o1) == 0);
    memset(packed, 77, sizeof packed);
    CHECK_STATUS(samrt_resize_u8_ref(&plan, tab, packed, IW * 3, o1), SAMRT_OK);
    int flat = 1;
    for (size_t i = 0; i < sizeof o1; i++) flat &= o1[i] == 77;
    CHECK(flat);

    /* bf16 / f16 outputs are the f32 result rounded once */
    static float f32o[3 * OW * OH], got[3 * OW * OH];
    static uint16_t h16[3 * OW * OH];
    CHECK_STATUS(samrt_resize_normalize_ref(&plan, tab, pad, PITCH, samrt_sam_mean, samrt_sam_std, f32o,
                                            SAMRT_DTYPE_F32), SAMRT_OK);
    const enum samrt_dtype dts[2] = {SAMRT_DTYPE_BF16, SAMRT_DTYPE_F16};
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(samrt_resize_normalize_ref(&plan, tab, pad, PITCH, samrt_sam_mean, samrt_sam_std, h16,
                                                dts[i]), SAMRT_OK);
        for (int j = 0; j < 3 * OW * OH; j++)  /* 16-bit storage only (tu_load's f32 branch would read past h16) */
            got[j] = dts[i] == SAMRT_DTYPE_F16 ? samrt_f16_to_f32(h16[j]) : samrt_bf16_to_f32(h16[j]);
        float want[3 * OW * OH];
        memcpy(want, f32o, sizeof want);
        tu_round(dts[i], want, 3 * OW * OH);
        CHECK(memcmp(got, want, sizeof got) == 0);
    }
    free(tab);
}

static void test_plan_and_errors(void) {
    struct samrt_resize_plan plan;
    CHECK_STATUS(samrt_resize_plan_init(0, 10, 10, 10, &plan), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_plan_init(10, 10, SAMRT_RESIZE_MAX_SIDE + 1, 10, &plan), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_plan_init(10, 10, 10, 10, NULL), SAMRT_E_INVALID_ARG);
    /* production: 1920x1080 -> 1024 tiles 64x32 within the shared-memory budget */
    CHECK_STATUS(samrt_resize_plan_init(1920, 1080, 1024, 1024, &plan), SAMRT_OK);
    CHECK(plan.kx == 8 && plan.ky == 8 && plan.tile_w == 64 && plan.tile_h == 32);
    CHECK(plan.smem_bytes > 0 && plan.smem_bytes <= SAMRT_RESIZE_SMEM_MAX);
    CHECK(plan.off_norm % 16 == 0 && plan.off_xw % 16 == 0 && plan.off_yw % 16 == 0);
    /* a 30x shrink needs 120 horizontal taps: too many for the CUDA kernel, fine for the ref */
    CHECK_STATUS(samrt_resize_plan_init(1920, 1080, 64, 48, &plan), SAMRT_OK);
    CHECK(plan.tile_w == 0 && plan.kx == 120);
    /* 8K -> 1024 still fits (31 taps) */
    CHECK_STATUS(samrt_resize_plan_init(7680, 4320, 1024, 1024, &plan), SAMRT_OK);
    CHECK(plan.tile_w > 0 && plan.kx == 32 && plan.smem_bytes <= SAMRT_RESIZE_SMEM_MAX);

    CHECK_STATUS(samrt_resize_plan_init(20, 10, 8, 8, &plan), SAMRT_OK);
    void *tab = aligned_alloc(16, SAMRT_PAD(plan.table_bytes, 16));
    float zero_std[3] = {1, 0, 1};
    CHECK_STATUS(samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, tab, plan.table_bytes - 1),
                 SAMRT_E_ARENA_TOO_SMALL);
    CHECK_STATUS(samrt_resize_plan_fill(&plan, samrt_sam_mean, zero_std, tab, plan.table_bytes),
                 SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, (char *)tab + 4, plan.table_bytes),
                 SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, tab, plan.table_bytes), SAMRT_OK);
    uint8_t src[20 * 10 * 3] = {0}, dst[8 * 8 * 3];
    CHECK_STATUS(samrt_resize_u8_ref(&plan, tab, src, 59, dst), SAMRT_E_INVALID_ARG);  /* pitch < 3w */
    CHECK_STATUS(samrt_resize_u8_ref(&plan, tab, NULL, 60, dst), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_resize_normalize_ref(&plan, tab, src, 60, samrt_sam_mean, samrt_sam_std, dst,
                                            SAMRT_DTYPE_U8), SAMRT_E_UNSUPPORTED);
    free(tab);
}

int main(void) {
    test_hand();
    test_plan_and_errors();
    check_norm_table();
    const char *cases[] = {"down_1920x1080_64x48.bin", "up_30x20_64x64.bin",      "odd_37x23_101x67.bin",
                           "mixed_333x101_50x160.bin", "prod_960x540_1024.bin",   "prod_1920x1080_1024.bin",
                           "prod_854x480_1024.bin"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_golden(cases[i]);
    return check_report("test_resize_normalize");
}
