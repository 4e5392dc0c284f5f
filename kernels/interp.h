/* interp.h - NCHW resampling with PyTorch F.interpolate semantics (align_corners=False,
 * antialias=False): nearest (the legacy 'nearest' rule), bilinear, and bicubic with A = -0.75.
 * Each plane (one n, c) is resampled on its own; f32/f16/bf16 in and out, f32 math.
 *
 * Uses in the model: Hiera's pos_embed (1,E,7,7) or (1,E,14,14) -> (1,E,256,256) bicubic
 * (spec 3.1), the FPN's 2x nearest upsampling, and low-res mask logits -> any size bilinear.
 *
 * The coefficient helpers below are shared by the C references and the CUDA kernels (they
 * compile as __host__ __device__ under nvcc). Every rounding step is written out: products
 * that PyTorch's CUDA build fuses are fmaf(), the others go through samrt_mul_rn(), so the
 * compiler's FMA contraction (on by default in nvcc, and in GCC on aarch64) cannot change
 * a result. That makes the C reference and the CUDA kernel agree bit for bit, which the GPU
 * tests rely on (a mask threshold at 0 must not flip between them).
 *
 * Usage:
 *   struct samrt_interp_desc d = { SAMRT_INTERP_BICUBIC, 96, 7, 7, 256, 256,
 *                                  SAMRT_DTYPE_F32, SAMRT_DTYPE_BF16 };
 *   samrt_interp_cuda(&d, pos_embed_7x7, pos_embed_256, stream);
 */
#ifndef SAMRT_KERNELS_INTERP_H
#define SAMRT_KERNELS_INTERP_H

#include <math.h>
#include <stdint.h>

#include "half.h"
#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

enum samrt_interp_mode {
    SAMRT_INTERP_NEAREST = 0,  /* src = min(floor(dst * (in/out)), in-1), scale in f32 */
    SAMRT_INTERP_BILINEAR,     /* src = (dst+0.5)*scale - 0.5 clamped to >= 0, 2 taps */
    SAMRT_INTERP_BICUBIC,      /* src not clamped, 4 taps with clamped indices, A = -0.75 */
    SAMRT_INTERP_MODE_COUNT
};

struct samrt_interp_desc {
    enum samrt_interp_mode mode;
    int n_planes;                 /* N*C planes, each (h, w) row-major and contiguous */
    int h_in, w_in;
    int h_out, w_out;
    enum samrt_dtype src_dtype;   /* f32, f16 or bf16 */
    enum samrt_dtype dst_dtype;   /* f32, f16 or bf16 */
};

/* SAMRT_E_INVALID_ARG for a bad mode, a size < 1, or sizes above SAMRT_INTERP_MAX_SIDE;
 * SAMRT_E_UNSUPPORTED for a dtype other than f32/f16/bf16. Logs nothing (launchers call it
 * too); setup code that wants a message logs the status itself. */
#define SAMRT_INTERP_MAX_SIDE 32768
enum samrt_status samrt_interp_check(const struct samrt_interp_desc *d);

/* src (n_planes, h_in, w_in) -> dst (n_planes, h_out, w_out). */
enum samrt_status samrt_interp_ref(const struct samrt_interp_desc *d, const void *src, void *dst);

/* One bilinear output value of the plane starting at element `plane` of src (h_in x w_in)
 * with scales sh, sw (samrt_interp_scale): the building block other references reuse. */
float samrt_interp_bilinear_ref(enum samrt_dtype dt, const void *src, long plane, int hi, int wi,
                                float sh, float sw, int y, int x);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_interp_cuda(const struct samrt_interp_desc *d, const void *src, void *dst,
                                    cudaStream_t stream);
#endif

/* ---- coefficient helpers, shared with the CUDA kernels ------------------------------------ */

#ifdef __CUDACC__
#define SAMRT_HD static inline __host__ __device__
#else
#define SAMRT_HD static inline
#endif

#define SAMRT_CUBIC_A (-0.75f)

/* a * b rounded once, never fused into a following add (the volatile stops GCC's
 * -ffp-contract=fast, the default for GNU C, from forming an FMA on targets that have one). */
SAMRT_HD float samrt_mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    volatile float p = a * b;
    return p;
#endif
}

/* PyTorch's scale for an explicit output size: float(in) / out, one f32 division. */
SAMRT_HD float samrt_interp_scale(int in, int out) { return (float)in / (float)out; }

SAMRT_HD int samrt_nearest_src(float scale, int d, int in) {
    int i = (int)floorf(samrt_mul_rn((float)d, scale));
    return i < in - 1 ? i : in - 1;
}

/* Source coordinate (d + 0.5) * scale - 0.5, fused as PyTorch's CUDA build computes it. */
SAMRT_HD float samrt_interp_src(float scale, int d) { return fmaf(scale, (float)d + 0.5f, -0.5f); }

/* Bilinear taps along one axis: i0, i1 = min(i0+1, in-1), weights l0 = 1 - l1 and l1. */
SAMRT_HD void samrt_linear_coef(float scale, int d, int in, int *i0, int *i1, float *l0, float *l1) {
    float s = samrt_interp_src(scale, d);
    if (s < 0.0f) s = 0.0f;
    int i = (int)s;
    *i0 = i;
    *i1 = i + (i < in - 1 ? 1 : 0);
    *l1 = s - (float)i;
    *l0 = 1.0f - *l1;
}

/* l0 * a + l1 * b, the product l1 * b fused (PyTorch's bilinear inner term). */
SAMRT_HD float samrt_lerp(float l0, float l1, float a, float b) {
    return fmaf(l1, b, samrt_mul_rn(l0, a));
}

/* The bilinear value from the four corners: rows first, then between the rows. */
SAMRT_HD float samrt_bilerp(float h0, float h1, float w0, float w1, float v00, float v01, float v10,
                            float v11) {
    return samrt_lerp(h0, h1, samrt_lerp(w0, w1, v00, v01), samrt_lerp(w0, w1, v10, v11));
}

/* Cubic taps along one axis: first tap index i (taps i-1 .. i+2, to be clamped) and t. */
SAMRT_HD void samrt_cubic_src(float scale, int d, int *i, float *t) {
    float s = samrt_interp_src(scale, d);
    float f = floorf(s);
    *i = (int)f;
    *t = s - f;
}

/* Keys cubic, A = -0.75: C1 for |x| <= 1, C2 for 1 < |x| < 2 (PyTorch's
 * cubic_convolution1/2), evaluated as fused Horner steps. */
SAMRT_HD float samrt_cubic_c1(float x) {
    const float a = SAMRT_CUBIC_A;
    return fmaf(samrt_mul_rn(fmaf(a + 2.0f, x, -(a + 3.0f)), x), x, 1.0f);
}
SAMRT_HD float samrt_cubic_c2(float x) {
    const float a = SAMRT_CUBIC_A;
    return fmaf(fmaf(fmaf(a, x, -5.0f * a), x, 8.0f * a), x, -4.0f * a);
}
SAMRT_HD void samrt_cubic_coefs(float t, float c[4]) {
    const float u = 1.0f - t;  /* PyTorch forms 2 - t as (1 - t) + 1 */
    c[0] = samrt_cubic_c2(t + 1.0f);
    c[1] = samrt_cubic_c1(t);
    c[2] = samrt_cubic_c1(u);
    c[3] = samrt_cubic_c2(u + 1.0f);
}
/* Both steps for one axis: first tap index i and the four weights. */
SAMRT_HD void samrt_cubic_axis(float scale, int d, int *i, float c[4]) {
    float t;
    samrt_cubic_src(scale, d, i, &t);
    samrt_cubic_coefs(t, c);
}
/* x0*c0 + x1*c1 + x2*c2 + x3*c3 as a left-to-right fused chain. */
SAMRT_HD float samrt_dot4(float x0, float x1, float x2, float x3, const float c[4]) {
    return fmaf(x3, c[3], fmaf(x2, c[2], fmaf(x1, c[1], samrt_mul_rn(x0, c[0]))));
}
SAMRT_HD int samrt_clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_INTERP_H */
