/* ops_host.c - the host tables of ops.h: position encodings and resizes that a network computes
 * once at prepare (or for a parity tap after a pass), on the host with the C references of
 * kernels/ whatever the context's backend. Here rather than in the networks so that the op
 * layer stays the one place above kernels/ that picks an implementation; the values are the
 * references', so a constant is the same bytes on every backend. */
#include "ops.h"

#include "fourier_pe.h"
#include "interp.h"
#include "sine_pe.h"

enum samrt_status samrt_op_host_sine_pe(enum samrt_dtype dtype, int n_feats, int h, int w, void *out) {
    const struct samrt_sine_pe_args a = {dtype, n_feats, h, w, 1, out};
    return samrt_sine_pe_ref(&a);
}

enum samrt_status samrt_op_host_fourier_pe_dense(int n_feats, const float *gauss, int h, int w, float *out) {
    const struct samrt_fourier_pe_dense_args a = {SAMRT_DTYPE_F32, n_feats, gauss, h, w, 1, out};
    return samrt_fourier_pe_dense_ref(&a);
}

enum samrt_status samrt_op_host_fourier_pe_points(int n_feats, const float *gauss, int n_points, const float *coords,
                                                   float offset, float img_w, float img_h, float *out) {
    const struct samrt_fourier_pe_points_args a = {SAMRT_DTYPE_F32, n_feats, gauss, n_points, coords,
                                                   offset, img_w, img_h, out};
    return samrt_fourier_pe_points_ref(&a);
}

enum samrt_status samrt_op_host_interp(int mode, int n_planes, int h_in, int w_in, int h_out, int w_out,
                                        const float *x, float *y) {
    const struct samrt_interp_desc d = {(enum samrt_interp_mode)mode, n_planes, h_in, w_in, h_out, w_out,
                                        SAMRT_DTYPE_F32, SAMRT_DTYPE_F32};
    return samrt_interp_ref(&d, x, y);
}
