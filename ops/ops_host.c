/* ops_host.c - the host tables and prepare-time math of ops.h: position encodings, RoPE tables
 * and resizes that a network computes once at prepare (or for a parity tap after a pass), and
 * the weight rewrites of prepare (BatchNorm folding, ConvTranspose packing), on the host with
 * the C code of kernels/ whatever the context's backend. Here rather than in the networks so
 * that the op layer stays the one place above kernels/ that picks an implementation; the
 * values are the references', so a constant is the same bytes on every backend. */
#include "ops.h"

#include "fourier_pe.h"
#include "rope.h"
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

size_t samrt_op_host_rope_table_floats(int dim, int end_x, int end_y) {
    return samrt_rope_table_floats(dim, end_x, end_y);
}

enum samrt_status samrt_op_host_rope_table(float *table, int dim, int end_x, int end_y, float theta) {
    return samrt_rope_table_fill(table, dim, end_x, end_y, theta);
}

enum samrt_status samrt_op_host_bn_fold_conv(int64_t c_out, int64_t per_out, const float *w, const float *b,
                                             const float *g, const float *beta, const float *mean, const float *var,
                                             float eps, float *w_out, float *b_out) {
    return samrt_bn_fold_conv(c_out, per_out, w, b, g, beta, mean, var, eps, w_out, b_out);
}

void samrt_op_host_bn_fold_repvgg_dw(int64_t c, const float *w3, const float *b3, const float *w1, const float *b1,
                                     float *w_out, float *b_out) {
    samrt_bn_fold_repvgg_dw(c, w3, b3, w1, b1, w_out, b_out);
}

void samrt_op_host_pack_convt2x2(int c_in, int c_out, const float *w, const float *bias, float *w_out,
                                 float *bias_out) {
    samrt_conv_pack_transpose2x2(c_in, c_out, w, bias, w_out, bias_out);
}
