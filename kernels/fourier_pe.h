/* fourier_pe.h - the prompt encoder's random Fourier positional encoding
 * (position_encoding.py PositionEmbeddingRandom), F = n_feats frequencies, 2F channels:
 *   c = (2u - 1, 2v - 1) for a normalised coordinate (u, v) in [0, 1]
 *   h_k = 2pi * (c_x * G[0,k] + c_y * G[1,k]),   k = 0 .. F-1
 *   pe = [sin(h_0 .. h_{F-1}), cos(h_0 .. h_{F-1})]   (a sin block then a cos block)
 * G is the checkpoint buffer `pe_layer.positional_encoding_gaussian_matrix` (2, F), F = 128,
 * kept in fp32 whatever the run precision (1 KiB; its products feed sin/cos of arguments
 * up to ~40 rad, where bf16 weights would shift the phase visibly).
 *
 * Dense grid (get_dense_pe, the mask decoder's image PE): cell (row i, col j) of H x W has
 * u = (j + 0.5) / W, v = (i + 0.5) / H. A constant of the weights: computed ONCE at init.
 * Points (_embed_points): u = (x + offset) / img_w, v = (y + offset) / img_h with the point
 * in model-input pixels (1024 frame) and offset 0.5 (pixel centre). The prompt encoder
 * appends its padding point (0, 0) AFTER the shift and replaces its encoding by
 * not_a_point_embed, so that point's value here does not matter. Runs per prompt.
 *
 * Evaluation order (both paths, fp32): u, then 2u - 1, then fma(c_y, G1, c_x * G0), then
 * times fp32(2pi), then sinf / cosf.
 *
 * Usage (device pointers):
 *   struct samrt_fourier_pe_dense_args a = {SAMRT_DTYPE_F32, 128, gauss, 64, 64, 1, image_pe};
 *   SAMRT_TRY(samrt_fourier_pe_dense_cuda(&a, stream));      // (4096, 256) tokens
 */
#ifndef SAMRT_KERNELS_FOURIER_PE_H
#define SAMRT_KERNELS_FOURIER_PE_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_fourier_pe_dense_args {
    enum samrt_dtype dtype;  /* of out */
    int32_t n_feats;         /* F; out has 2F channels */
    const float *gauss;      /* (2, F) fp32 */
    int32_t h, w;
    int channels_last;       /* 0: out is (2F, H, W) as get_dense_pe returns it; 1: (H*W, 2F) */
    void *out;
};

struct samrt_fourier_pe_points_args {
    enum samrt_dtype dtype;  /* of out */
    int32_t n_feats;         /* F; out has 2F channels */
    const float *gauss;      /* (2, F) fp32 */
    int32_t n_points;
    const float *coords;     /* (n_points, 2) as (x, y) in input-image pixels */
    float offset;            /* added to x and y before normalising: 0.5 in SAM */
    float img_w, img_h;      /* the input image size (1024, 1024) */
    void *out;               /* (n_points, 2F) */
};

/* SAMRT_E_INVALID_ARG for NULL pointers, non-positive sizes or image size;
 * SAMRT_E_UNSUPPORTED for a dtype other than f32/f16/bf16. */
enum samrt_status samrt_fourier_pe_dense_check(const struct samrt_fourier_pe_dense_args *a);
enum samrt_status samrt_fourier_pe_points_check(const struct samrt_fourier_pe_points_args *a);

enum samrt_status samrt_fourier_pe_dense_ref(const struct samrt_fourier_pe_dense_args *a);
enum samrt_status samrt_fourier_pe_points_ref(const struct samrt_fourier_pe_points_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_fourier_pe_dense_cuda(const struct samrt_fourier_pe_dense_args *a, cudaStream_t stream);
enum samrt_status samrt_fourier_pe_points_cuda(const struct samrt_fourier_pe_points_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_FOURIER_PE_H */
