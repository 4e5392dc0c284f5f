/* interp_ref.c - C11 reference for kernels/interp.h: NCHW nearest / bilinear / bicubic
 * resampling with PyTorch F.interpolate semantics (align_corners=False, no antialias).
 * One plain loop nest per mode, f32 math through the shared coefficient helpers so that the
 * CUDA kernel can be compared bit for bit. Tested by tests/test_interp.c. */
#include "interp.h"

#include "ref_util.h"
#include "samrt_impl.h"

enum samrt_status samrt_interp_check(const struct samrt_interp_desc *d) {
    if (d == NULL || d->mode < 0 || d->mode >= SAMRT_INTERP_MODE_COUNT) return SAMRT_E_INVALID_ARG;
    if (d->n_planes < 1 || d->h_in < 1 || d->w_in < 1 || d->h_out < 1 || d->w_out < 1)
        return SAMRT_E_INVALID_ARG;
    if (d->h_in > SAMRT_INTERP_MAX_SIDE || d->w_in > SAMRT_INTERP_MAX_SIDE ||
        d->h_out > SAMRT_INTERP_MAX_SIDE || d->w_out > SAMRT_INTERP_MAX_SIDE)
        return SAMRT_E_INVALID_ARG;
    if (!ref_dtype_ok(d->src_dtype) || !ref_dtype_ok(d->dst_dtype))
        return SAMRT_E_UNSUPPORTED;
    return SAMRT_OK;
}

float samrt_interp_bilinear_ref(enum samrt_dtype dt, const void *src, long plane, int hi, int wi,
                                float sh, float sw, int y, int x) {
    int y0, y1, x0, x1;
    float h0, h1, w0, w1;
    samrt_linear_coef(sh, y, hi, &y0, &y1, &h0, &h1);
    samrt_linear_coef(sw, x, wi, &x0, &x1, &w0, &w1);
    const long r0 = plane + (long)y0 * wi, r1 = plane + (long)y1 * wi;
    return samrt_bilerp(h0, h1, w0, w1, ref_load(dt, src, r0 + x0), ref_load(dt, src, r0 + x1),
                        ref_load(dt, src, r1 + x0), ref_load(dt, src, r1 + x1));
}

/* One output value of plane p at (y, x). */
static float interp_at(const struct samrt_interp_desc *d, const void *src, long plane, float sh,
                       float sw, int y, int x) {
    const enum samrt_dtype dt = d->src_dtype;
    const int hi = d->h_in, wi = d->w_in;
    if (d->mode == SAMRT_INTERP_NEAREST) {
        int iy = samrt_nearest_src(sh, y, hi), ix = samrt_nearest_src(sw, x, wi);
        return ref_load(dt, src, plane + (long)iy * wi + ix);
    }
    if (d->mode == SAMRT_INTERP_BILINEAR)
        return samrt_interp_bilinear_ref(dt, src, plane, hi, wi, sh, sw, y, x);
    /* bicubic: a horizontal cubic on each of the 4 rows, then a vertical one (PyTorch order) */
    int iy, ix;
    float cy[4], cx[4], rows[4];
    samrt_cubic_axis(sh, y, &iy, cy);
    samrt_cubic_axis(sw, x, &ix, cx);
    for (int k = 0; k < 4; k++) {
        long row = plane + (long)samrt_clampi(iy - 1 + k, 0, hi - 1) * wi;
        float v[4];
        for (int j = 0; j < 4; j++) v[j] = ref_load(dt, src, row + samrt_clampi(ix - 1 + j, 0, wi - 1));
        rows[k] = samrt_dot4(v[0], v[1], v[2], v[3], cx);
    }
    return samrt_dot4(rows[0], rows[1], rows[2], rows[3], cy);
}

enum samrt_status samrt_interp_ref(const struct samrt_interp_desc *d, const void *src, void *dst) {
    SAMRT_TRY(samrt_interp_check(d));
    if (src == NULL || dst == NULL) return SAMRT_E_INVALID_ARG;
    const float sh = samrt_interp_scale(d->h_in, d->h_out), sw = samrt_interp_scale(d->w_in, d->w_out);
    const long in_plane = (long)d->h_in * d->w_in, out_plane = (long)d->h_out * d->w_out;
    for (long p = 0; p < d->n_planes; p++)
        for (int y = 0; y < d->h_out; y++)
            for (int x = 0; x < d->w_out; x++)
                ref_store(d->dst_dtype, dst, p * out_plane + (long)y * d->w_out + x,
                          interp_at(d, src, p * in_plane, sh, sw, y, x));
    return SAMRT_OK;
}
