/* resize_normalize_ref.c - the plan (coefficient tables, CUDA tiling) and the C11 reference
 * for kernels/resize_normalize.h: Pillow's BICUBIC resize, then /255 and (x - mean) / std.
 *
 * The coefficients follow libImaging/Resample.c (precompute_coeffs, normalize_coeffs_8bpc,
 * Pillow >= 12.3, which multiplies by 1/filterscale) step by step in double. Every product
 * that Pillow's x86-64 build rounds on its own goes through mul_d(): GCC contracts a*b+c
 * into an FMA on targets that have one (its GNU C default), which would move a weight by one
 * fixed-point unit now and then.
 *
 * The reference evaluates each output as the two nested passes: for each of the row's
 * vertical taps, the horizontal pass of that input row (clipped to uint8), then the vertical
 * sum. That is the same arithmetic as Pillow's two full passes, without a scratch image.
 * Tested against Pillow's own output by tests/test_resize_normalize.c. */
#include "resize_normalize.h"

#include <math.h>
#include <string.h>

#include "ref_util.h"
#include "samrt_impl.h"

const float samrt_sam_mean[3] = {0.485f, 0.456f, 0.406f};
const float samrt_sam_std[3] = {0.229f, 0.224f, 0.225f};

/* ---- Pillow's coefficients ------------------------------------------------------------------ */

static double mul_d(double a, double b) {
    volatile double p = a * b;
    return p;
}

/* Keys cubic with a = -0.5, Pillow's bicubic_filter. */
static double bicubic(double x) {
    const double a = -0.5;
    if (x < 0.0) x = -x;
    if (x < 1.0) return mul_d(mul_d(mul_d(a + 2.0, x) - (a + 3.0), x), x) + 1;
    if (x < 2.0) return mul_d(mul_d(mul_d(x - 5, x) + 8, x) - 4, a);
    return 0.0;
}

struct axis {
    double scale, support, inv_filterscale;
};

static struct axis axis_make(int n, int out) {
    struct axis a;
    a.scale = (double)(float)n / out;  /* Pillow: (double)(in1 - in0) / outSize, box in float */
    double filterscale = a.scale < 1.0 ? 1.0 : a.scale;
    a.support = 2.0 * filterscale;
    a.inv_filterscale = 1.0 / filterscale;
    return a;
}

/* Taps of output index xx: first input index and count; *center for the weights. */
static void axis_bounds(const struct axis *a, int n, int xx, int *first, int *count, double *center) {
    double c = mul_d(xx + 0.5, a->scale);
    int lo = (int)(c - a->support + 0.5), hi = (int)(c + a->support + 0.5);
    if (lo < 0) lo = 0;
    if (hi > n) hi = n;
    *first = lo;
    *count = hi - lo;
    if (center) *center = c;
}

/* Filter value of tap x (0-based from the first tap) around center. */
static double tap(const struct axis *a, int first, double center, int x) {
    return bicubic(mul_d(x + first - center + 0.5, a->inv_filterscale));
}

/* Sum of the filter over the count taps: the normaliser. */
static double tap_sum(const struct axis *a, int first, int count, double center) {
    double ww = 0.0;
    for (int x = 0; x < count; x++) ww += tap(a, first, center, x);
    return ww;
}

/* Fixed-point weight of tap x (Pillow's normalize_coeffs_8bpc rounding). The filter is
 * evaluated twice per tap (sum, then value) instead of being buffered: same doubles. */
static int32_t fixed_weight(const struct axis *a, int first, double center, double ww, int x) {
    double v = tap(a, first, center, x);
    if (ww != 0.0) v /= ww;
    double f = v * (1 << SAMRT_RESIZE_PRECISION_BITS);  /* power of two: exact */
    return (int32_t)(v < 0 ? -0.5 + f : 0.5 + f);
}

/* Fixed-point weights of output index xx into w[0..k) (zero past the count). */
static void axis_weights(const struct axis *a, int n, int xx, int k, int32_t *bounds, int32_t *w) {
    int first, count;
    double center;
    axis_bounds(a, n, xx, &first, &count, &center);
    const double ww = tap_sum(a, first, count, center);
    for (int x = 0; x < k; x++) w[x] = x < count ? fixed_weight(a, first, center, ww, x) : 0;
    bounds[0] = first;
    bounds[1] = count;
}

/* Whether the CUDA kernel's integer shortcuts hold on this axis: every weight fits 24 bits
 * signed (the horizontal pass splits weights into bytes, the top one signed), and with
 * check_sums every pass sum over uint8 inputs, (sum(u8 * w) + 2^21) >> 22, lies in
 * [SAMRT_RESIZE_NORM_LO, SAMRT_RESIZE_NORM_LO + SAMRT_RESIZE_NORM_N), the range of the
 * vertical pass's clip + normalise table. The extreme sums take 255 on the taps of one sign. */
static int axis_fits_kernel(int n, int out, int check_sums) {
    struct axis a = axis_make(n, out);
    const int64_t one = (int64_t)1 << SAMRT_RESIZE_PRECISION_BITS, half = one / 2;
    const int64_t lo = SAMRT_RESIZE_NORM_LO * one, hi = (SAMRT_RESIZE_NORM_LO + SAMRT_RESIZE_NORM_N) * one;
    for (int i = 0; i < out; i++) {
        int first, count;
        double center;
        axis_bounds(&a, n, i, &first, &count, &center);
        const double ww = tap_sum(&a, first, count, center);
        int64_t neg = 0, pos = 0;
        for (int x = 0; x < count; x++) {
            const int32_t w = fixed_weight(&a, first, center, ww, x);
            if (w < -(1 << 23) || w >= (1 << 23)) return 0;
            if (w < 0) neg += w; else pos += w;
        }
        if (check_sums && (half + 255 * neg < lo || half + 255 * pos >= hi)) return 0;
    }
    return 1;
}

static int max_count(int n, int out) {
    struct axis a = axis_make(n, out);
    int m = 0;
    for (int i = 0; i < out; i++) {
        int first, count;
        axis_bounds(&a, n, i, &first, &count, NULL);
        m = SAMRT_MAX(m, count);
    }
    return m;
}

/* Largest input span (end of last tile index's taps - first of the first) over tiles of t. */
static int max_span(int n, int out, int t) {
    struct axis a = axis_make(n, out);
    int m = 0;
    for (int i0 = 0; i0 < out; i0 += t) {
        int f0, c0, f1, c1, i1 = SAMRT_MIN(i0 + t, out) - 1;
        axis_bounds(&a, n, i0, &f0, &c0, NULL);
        axis_bounds(&a, n, i1, &f1, &c1, NULL);
        m = SAMRT_MAX(m, f1 + c1 - f0);
    }
    return m;
}

/* ---- plan ----------------------------------------------------------------------------------- */

/* Output tiles the CUDA kernel may use, best first. A taller tile recomputes fewer halo rows
 * in the horizontal pass (the costly one); a narrower one only re-reads a few halo columns
 * (from L2) and gives more blocks. The vertical pass needs tile_w >= 8. */
static const int tile_candidates[][2] = {
    {64, 32}, {32, 64}, {32, 32}, {64, 16}, {32, 16}, {16, 32}, {16, 16},
    {8, 32}, {8, 16}, {8, 8}, {8, 4}, {8, 2}, {8, 1},
};

static void plan_tiling(struct samrt_resize_plan *p) {
    p->tile_w = p->tile_h = p->band_rows = p->stage_row_bytes = p->smem_bytes = 0;
    if (p->kx > SAMRT_RESIZE_MAX_TAPS_X || !axis_fits_kernel(p->in_w, p->out_w, 0) ||
        !axis_fits_kernel(p->in_h, p->out_h, 1))
        return;
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(tile_candidates); i++) {
        const int tw = tile_candidates[i][0], th = tile_candidates[i][1];
        const long band = max_span(p->in_h, p->out_h, th);
        const long span = max_span(p->in_w, p->out_w, tw);
        /* staged bytes: up to 15 (phase) + 3 * span, and the last column's K-tap window
         * (3 * kx bytes from its first tap, read as whole words) past them */
        const long row_bytes = SAMRT_PAD(3 * span + 3 * p->kx + 19, 16);
        const long smem = SAMRT_RESIZE_TABS_OFF(band, row_bytes, tw) +
                          4L * (tw * p->kx + ((2 * tw + 3) & ~3) + th * p->ky + 2 * th);
        if (smem <= SAMRT_RESIZE_SMEM_MAX) {
            p->tile_w = tw;
            p->tile_h = th;
            p->band_rows = (int)band;
            p->stage_row_bytes = (int)row_bytes;
            p->smem_bytes = (int)smem;
            return;
        }
    }
}

enum samrt_status samrt_resize_plan_init(int in_w, int in_h, int out_w, int out_h,
                                         struct samrt_resize_plan *plan) {
    SAMRT_CHECK(plan != NULL, SAMRT_E_INVALID_ARG, "resize: NULL plan");
    memset(plan, 0, sizeof *plan);
    SAMRT_CHECK(in_w >= 1 && in_h >= 1 && out_w >= 1 && out_h >= 1 && in_w <= SAMRT_RESIZE_MAX_SIDE &&
                    in_h <= SAMRT_RESIZE_MAX_SIDE && out_w <= SAMRT_RESIZE_MAX_SIDE &&
                    out_h <= SAMRT_RESIZE_MAX_SIDE,
                SAMRT_E_INVALID_ARG, "resize: sizes %dx%d -> %dx%d outside [1, %d]", in_w, in_h, out_w,
                out_h, SAMRT_RESIZE_MAX_SIDE);
    plan->in_w = in_w;
    plan->in_h = in_h;
    plan->out_w = out_w;
    plan->out_h = out_h;
    plan->kx = SAMRT_PAD(max_count(in_w, out_w), 4);
    plan->ky = SAMRT_PAD(max_count(in_h, out_h), 4);
    size_t off = 0;
    plan->off_xb = off; off += SAMRT_PAD((size_t)out_w * 2 * 4, 16);
    plan->off_xw = off; off += SAMRT_PAD((size_t)out_w * plan->kx * 4, 16);
    plan->off_yb = off; off += SAMRT_PAD((size_t)out_h * 2 * 4, 16);
    plan->off_yw = off; off += SAMRT_PAD((size_t)out_h * plan->ky * 4, 16);
    plan->off_norm = off; off += 3 * 256 * 4;
    plan->table_bytes = off;
    plan_tiling(plan);
    return SAMRT_OK;
}

static int plan_ok(const struct samrt_resize_plan *p) {
    return p != NULL && p->in_w >= 1 && p->in_h >= 1 && p->out_w >= 1 && p->out_h >= 1 && p->kx >= 4 &&
           p->ky >= 4 && p->table_bytes > 0;
}

/* (u8 / 255 in double, rounded to f32 - mean) / std, all in f32 as torch does it. */
static float normalize(int v, float mean, float std) {
    float x = (float)(v / 255.0);
    return (x - mean) / std;
}

enum samrt_status samrt_resize_plan_fill(const struct samrt_resize_plan *plan, const float mean[3],
                                         const float std[3], void *tables, size_t bytes) {
    SAMRT_CHECK(plan_ok(plan), SAMRT_E_INVALID_ARG, "resize: plan not initialised");
    SAMRT_CHECK(tables != NULL && ((uintptr_t)tables % 16) == 0, SAMRT_E_INVALID_ARG,
                "resize: tables must be 16-byte aligned");
    SAMRT_CHECK(bytes >= plan->table_bytes, SAMRT_E_ARENA_TOO_SMALL, "resize: tables need %zu bytes, got %zu",
                plan->table_bytes, bytes);
    SAMRT_CHECK(mean != NULL && std != NULL, SAMRT_E_INVALID_ARG, "resize: NULL mean/std");
    for (int c = 0; c < 3; c++)
        SAMRT_CHECK(isfinite(mean[c]) && isfinite(std[c]) && std[c] != 0.0f, SAMRT_E_INVALID_ARG,
                    "resize: bad mean/std for channel %d", c);
    char *t = (char *)tables;
    memset(t, 0, plan->table_bytes);
    struct axis ax = axis_make(plan->in_w, plan->out_w), ay = axis_make(plan->in_h, plan->out_h);
    for (int i = 0; i < plan->out_w; i++)
        axis_weights(&ax, plan->in_w, i, plan->kx, (int32_t *)(t + plan->off_xb) + 2 * i,
                     (int32_t *)(t + plan->off_xw) + (size_t)i * plan->kx);
    for (int i = 0; i < plan->out_h; i++)
        axis_weights(&ay, plan->in_h, i, plan->ky, (int32_t *)(t + plan->off_yb) + 2 * i,
                     (int32_t *)(t + plan->off_yw) + (size_t)i * plan->ky);
    float *norm = (float *)(t + plan->off_norm);
    for (int c = 0; c < 3; c++)
        for (int v = 0; v < 256; v++) norm[c * 256 + v] = normalize(v, mean[c], std[c]);
    return SAMRT_OK;
}

/* ---- reference ------------------------------------------------------------------------------ */

static int clip8(int64_t acc) { /* Pillow's clip8: (acc >> 22) clamped to [0, 255] */
    if (acc < 0) return 0;
    acc >>= SAMRT_RESIZE_PRECISION_BITS;
    return acc > 255 ? 255 : (int)acc;
}

/* The three RGB8 samples of input pixel (x, y) of an RGB8 frame (src: struct rgb_src). */
struct rgb_src {
    const uint8_t *rgb;
    size_t nb_row;
};
static void rgb_sample(const void *src, int x, int y, uint8_t out[3]) {
    const struct rgb_src *s = (const struct rgb_src *)src;
    const uint8_t *p = s->rgb + (size_t)y * s->nb_row + 3 * (size_t)x;
    out[0] = p[0], out[1] = p[1], out[2] = p[2];
}

/* Output pixel (x, y), all three channels, from whatever frame sample() reads. */
static void resize_px(const struct samrt_resize_plan *p, const char *t, samrt_resize_sample_fn sample,
                      const void *src, int x, int y, uint8_t out[3]) {
    const int32_t *xb = (const int32_t *)(t + p->off_xb) + 2 * x;
    const int32_t *xw = (const int32_t *)(t + p->off_xw) + (size_t)x * p->kx;
    const int32_t *yb = (const int32_t *)(t + p->off_yb) + 2 * y;
    const int32_t *yw = (const int32_t *)(t + p->off_yw) + (size_t)y * p->ky;
    const int64_t half = 1 << (SAMRT_RESIZE_PRECISION_BITS - 1);
    int64_t acc_v[3] = {half, half, half};
    for (int k = 0; k < yb[1]; k++) {
        int64_t acc_h[3] = {half, half, half};
        for (int j = 0; j < xb[1]; j++) {
            uint8_t v[3];
            sample(src, xb[0] + j, yb[0] + k, v);
            for (int c = 0; c < 3; c++) acc_h[c] += (int64_t)v[c] * xw[j];
        }
        for (int c = 0; c < 3; c++) acc_v[c] += (int64_t)clip8(acc_h[c]) * yw[k];  /* stored as uint8 */
    }
    for (int c = 0; c < 3; c++) out[c] = (uint8_t)clip8(acc_v[c]);
}

static enum samrt_status ref_args(const struct samrt_resize_plan *plan, const void *tables,
                                  const uint8_t *src, size_t nb_row, const void *dst) {
    if (!plan_ok(plan) || tables == NULL || src == NULL || dst == NULL) return SAMRT_E_INVALID_ARG;
    if (nb_row < (size_t)3 * plan->in_w) return SAMRT_E_INVALID_ARG;
    return SAMRT_OK;
}

enum samrt_status samrt_resize_u8_ref(const struct samrt_resize_plan *plan, const void *tables,
                                      const uint8_t *src, size_t nb_row, uint8_t *dst) {
    SAMRT_TRY(ref_args(plan, tables, src, nb_row, dst));
    const struct rgb_src s = {src, nb_row};
    for (int y = 0; y < plan->out_h; y++)
        for (int x = 0; x < plan->out_w; x++)
            resize_px(plan, tables, rgb_sample, &s, x, y, dst + ((size_t)y * plan->out_w + x) * 3);
    return SAMRT_OK;
}

enum samrt_status samrt_resize_normalize_sampled_ref(const struct samrt_resize_plan *plan, const void *tables,
                                                     samrt_resize_sample_fn sample, const void *src,
                                                     const float mean[3], const float std[3], void *dst,
                                                     enum samrt_dtype dtype) {
    if (!plan_ok(plan) || tables == NULL || sample == NULL || src == NULL || dst == NULL || mean == NULL ||
        std == NULL)
        return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(dtype)) return SAMRT_E_UNSUPPORTED;
    const long hw = (long)plan->out_h * plan->out_w;
    for (int y = 0; y < plan->out_h; y++)
        for (int x = 0; x < plan->out_w; x++) {
            uint8_t v[3];
            resize_px(plan, tables, sample, src, x, y, v);
            for (int c = 0; c < 3; c++)
                ref_store(dtype, dst, c * hw + (long)y * plan->out_w + x, normalize(v[c], mean[c], std[c]));
        }
    return SAMRT_OK;
}

enum samrt_status samrt_resize_normalize_ref(const struct samrt_resize_plan *plan, const void *tables,
                                             const uint8_t *src, size_t nb_row, const float mean[3],
                                             const float std[3], void *dst, enum samrt_dtype dtype) {
    SAMRT_TRY(ref_args(plan, tables, src, nb_row, dst));
    const struct rgb_src s = {src, nb_row};
    return samrt_resize_normalize_sampled_ref(plan, tables, rgb_sample, &s, mean, std, dst, dtype);
}
