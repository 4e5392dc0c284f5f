/* resize_normalize.h - frame preprocessing (spec section 2): an RGB8 HWC frame of any size ->
 * the model input (1, 3, out_h, out_w) NCHW in f32/f16/bf16, in one fused kernel:
 *
 *  1. Pillow's BICUBIC resize, bit-exact (libImaging/Resample.c, 8-bit path): a = -0.5,
 *     support widened by the scale when shrinking (antialias), separable with the HORIZONTAL
 *     pass first into a uint8 intermediate, weights normalised in double and converted to
 *     fixed point with 22 fraction bits, each pass = clip8((sum(u8 * w) + 2^21) >> 22).
 *  2. x = (float)(u8 / 255.0) (the division in double, one rounding to f32), then
 *     (x - mean[c]) / std[c] in f32 with true division (the torch preprocessing).
 *
 * Plan, then run. The coefficient tables depend only on the frame and model sizes, so they
 * are computed once on the host:
 *   struct samrt_resize_plan plan;
 *   samrt_resize_plan_init(1920, 1080, 1024, 1024, &plan);         // arithmetic only
 *   // plan.table_bytes: reserve that much (an arena slot), fill a host copy, upload it once
 *   samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, host_tables, plan.table_bytes);
 *   cudaMemcpy(dev_tables, host_tables, plan.table_bytes, cudaMemcpyHostToDevice);
 * Per frame:
 *   cudaMemcpyAsync(dev_rgb, pinned_rgb, 3 * w * h, cudaMemcpyHostToDevice, copy_stream);
 *   ... event: copy_stream -> stream ...
 *   samrt_resize_normalize_cuda(&plan, dev_tables, dev_rgb, 3 * w, dev_input, SAMRT_DTYPE_BF16, stream);
 * The launcher reads the frame from device memory only. The upload is the caller's: a
 * cudaMemcpyAsync from pinned host memory (cudaHostAlloc) on a copy stream, or, on Jetson,
 * the decoder writing straight into unified memory. With two frame buffers the upload of
 * frame t+1 overlaps the compute of frame t.
 *
 * The CUDA kernel works on output tiles of tile_w x tile_h: it stages the band of input rows
 * the tile needs in shared memory (16-byte asynchronous copies, one coalesced read of the frame
 * in total, plus a few halo rows), runs the horizontal pass into a shared uint8 band, then the
 * vertical pass, and writes the normalised values with one table lookup per value that also
 * does the final clip (SAMRT_RESIZE_NORM_LO/N below). The plan picks the tile so the shared
 * memory stays within SAMRT_RESIZE_SMEM_MAX; scales too extreme for that (or more than
 * SAMRT_RESIZE_MAX_TAPS_X horizontal taps, a downscale beyond about 7.75x) leave
 * tile_w = 0 and the launcher returns SAMRT_E_UNSUPPORTED. The reference handles any size.
 */
#ifndef SAMRT_KERNELS_RESIZE_NORMALIZE_H
#define SAMRT_KERNELS_RESIZE_NORMALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_RESIZE_PRECISION_BITS 22       /* Pillow's PRECISION_BITS = 32 - 8 - 2 */
#define SAMRT_RESIZE_MAX_SIDE 16384          /* input and output sides */
#define SAMRT_RESIZE_SMEM_MAX (48 * 1024)    /* per block, no opt-in attribute needed */
#define SAMRT_RESIZE_MAX_TAPS_X 32           /* horizontal taps the CUDA kernel unrolls */
#define SAMRT_RESIZE_THREADS 256
/* The CUDA kernel's vertical pass looks (acc >> 22) up in a table of NORM_N entries per
 * channel starting at NORM_LO: Pillow's clip8 folded into the normalisation table. The plan
 * checks that every vertical sum lands inside (bicubic overshoots by ~12%, far within). */
#define SAMRT_RESIZE_NORM_LO (-64)
#define SAMRT_RESIZE_NORM_N 384
/* The CUDA kernel's shared memory: the staged band (band_rows x stage_row_bytes), the uint8
 * planes (3 x band_rows x tile_w), the normalisation table (3 x NORM_N, 4 bytes reserved
 * each), then from this 16-byte aligned offset the tile's slices of the plan tables:
 * x weights (tile_w x kx), x bounds (2 x tile_w, padded to 4), y weights (tile_h x ky),
 * y bounds (2 x tile_h), 4 bytes each. */
#define SAMRT_RESIZE_TABS_OFF(band_rows, row_bytes, tile_w) \
    (((band_rows) * (row_bytes) + 3 * (band_rows) * (tile_w) + 3 * SAMRT_RESIZE_NORM_N * 4 + 15) & ~15)

/* ImageNet statistics used by SAM 2 (R, G, B). */
extern const float samrt_sam_mean[3];
extern const float samrt_sam_std[3];

struct samrt_resize_plan {
    int in_w, in_h;            /* frame size in pixels */
    int out_w, out_h;          /* model input size */
    int kx, ky;                /* weights stored per output column / row: max taps, padded to 4 */
    /* Byte offsets inside the table block (each 16-aligned):                                   */
    size_t off_xb;             /* (out_w, 2) i32: first input column, tap count                */
    size_t off_xw;             /* (out_w, kx) i32: fixed-point weights, zero past the count    */
    size_t off_yb;             /* (out_h, 2) i32: first input row, tap count                   */
    size_t off_yw;             /* (out_h, ky) i32                                              */
    size_t off_norm;           /* (3, 256) f32: (u8/255 - mean[c]) / std[c]                   */
    size_t table_bytes;        /* size of the whole block                                      */
    /* CUDA tiling: output tile tile_w x tile_h; band_rows input rows staged per tile at
     * stage_row_bytes each; smem_bytes dynamic shared memory. tile_w = 0: not supported. */
    int tile_w, tile_h;
    int band_rows, stage_row_bytes;
    int smem_bytes;
};

/* Sizes in [1, SAMRT_RESIZE_MAX_SIDE]; fills every field, writes no table. */
enum samrt_status samrt_resize_plan_init(int in_w, int in_h, int out_w, int out_h,
                                         struct samrt_resize_plan *plan);
/* Writes the tables into host memory `tables` (16-byte aligned, >= plan->table_bytes). std
 * entries must be non-zero. */
enum samrt_status samrt_resize_plan_fill(const struct samrt_resize_plan *plan, const float mean[3],
                                         const float std[3], void *tables, size_t bytes);

/* Pillow's resize alone: src (in_h rows of nb_row bytes, RGB8) -> dst (out_h, out_w, 3) u8.
 * tables: host copy filled by samrt_resize_plan_fill. */
enum samrt_status samrt_resize_u8_ref(const struct samrt_resize_plan *plan, const void *tables,
                                      const uint8_t *src, size_t nb_row, uint8_t *dst);
/* The reference over any frame layout: sample(src, x, y, rgb) gives the RGB8 value of input
 * pixel (x, y) (x < in_w, y < in_h); the resize and normalisation are those below. The NV12
 * form (resize_normalize_nv12.h) converts each sample as nv12_rgb does. */
typedef void (*samrt_resize_sample_fn)(const void *src, int x, int y, uint8_t rgb[3]);
enum samrt_status samrt_resize_normalize_sampled_ref(const struct samrt_resize_plan *plan, const void *tables,
                                                     samrt_resize_sample_fn sample, const void *src,
                                                     const float mean[3], const float std[3], void *dst,
                                                     enum samrt_dtype dtype);
/* The whole op: dst (3, out_h, out_w) in dtype (f32, f16, bf16). The normalisation is
 * evaluated from mean/std directly (not from the table), so comparing with the CUDA kernel
 * checks the table too. */
enum samrt_status samrt_resize_normalize_ref(const struct samrt_resize_plan *plan, const void *tables,
                                             const uint8_t *src, size_t nb_row, const float mean[3],
                                             const float std[3], void *dst, enum samrt_dtype dtype);

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* tables, src and dst are device pointers; src 4-byte aligned (any nb_row >= 3 * in_w);
 * dst contiguous (3, out_h, out_w). One launch, no allocation. */
enum samrt_status samrt_resize_normalize_cuda(const struct samrt_resize_plan *plan, const void *tables,
                                              const uint8_t *src, size_t nb_row, void *dst,
                                              enum samrt_dtype dtype, cudaStream_t stream);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KERNELS_RESIZE_NORMALIZE_H */
