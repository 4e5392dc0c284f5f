/* sine_pe.h - sine positional encodings of SAM 2.1 / EdgeTAM (position_encoding.py
 * PositionEmbeddingSine with normalize=True, scale 2*pi, temperature 10000; and
 * sam2_utils.get_1d_sine_pe for object-pointer distances).
 *
 * 2-D, D = n_feats output channels, F = D/2 per axis, map H x W, row i, col j (0-based),
 * all fp32 in the order PyTorch evaluates it:
 *   y = (i+1) / (H + 1e-6) * 2pi        x = (j+1) / (W + 1e-6) * 2pi
 *   t_k = 10000 ^ (2*floor(k/2) / F),   k = 0 .. F-1
 *   channel k      (k < F): sin(y / t_k) for even k, cos(y / t_k) for odd k  (y first)
 *   channel F + k:          the same with x
 * D must be a multiple of 4 (the official module splits each axis into sin/cos pairs).
 * 1-D, dim channels, F = dim/2: e = [sin(p / t_0 .. p / t_{F-1}), cos(p / t_0 ..)] with the
 * same t_k: a sin block then a cos block, NOT interleaved.
 *
 * Where it runs: every 2-D map is a constant of (D, H, W): the neck's 256-channel 64x64
 * map (memory attention query PE), the memory encoder's 64-channel 64x64 map
 * (maskmem_pos_enc) and EdgeTAM's 64-channel 16x16 perceiver map are computed ONCE at
 * engine init into the persistent region and never per frame. The 1-D encoding depends on
 * the pointer distances, so it runs per tracked frame (at most 16 x 256 values).
 *
 * Usage (device pointers):
 *   struct samrt_sine_pe_args a = {SAMRT_DTYPE_F32, 256, 64, 64, 1, pos2};   // (4096, 256)
 *   SAMRT_TRY(samrt_sine_pe_cuda(&a, stream));
 */
#ifndef SAMRT_KERNELS_SINE_PE_H
#define SAMRT_KERNELS_SINE_PE_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_sine_pe_args {
    enum samrt_dtype dtype;  /* of out */
    int32_t n_feats;         /* D, total channels (num_pos_feats of the module), multiple of 4 */
    int32_t h, w;
    int channels_last;       /* 0: out is (D, H, W) as PyTorch returns it; 1: (H*W, D) tokens */
    void *out;
};

struct samrt_sine_pe_1d_args {
    enum samrt_dtype dtype;  /* of out */
    int32_t n_pos;
    int32_t dim;             /* channels per position, even */
    const float *pos;        /* (n_pos) positions, e.g. d / (max_ptr - 1) */
    void *out;               /* (n_pos, dim) */
};

/* SAMRT_E_INVALID_ARG for NULL pointers or sizes out of range (n_feats % 4, dim % 2,
 * non-positive counts), SAMRT_E_UNSUPPORTED for a dtype other than f32/f16/bf16. */
enum samrt_status samrt_sine_pe_check(const struct samrt_sine_pe_args *a);
enum samrt_status samrt_sine_pe_1d_check(const struct samrt_sine_pe_1d_args *a);

enum samrt_status samrt_sine_pe_ref(const struct samrt_sine_pe_args *a);
enum samrt_status samrt_sine_pe_1d_ref(const struct samrt_sine_pe_1d_args *a);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_sine_pe_cuda(const struct samrt_sine_pe_args *a, cudaStream_t stream);
enum samrt_status samrt_sine_pe_1d_cuda(const struct samrt_sine_pe_1d_args *a, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_SINE_PE_H */
