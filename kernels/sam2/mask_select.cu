/* mask_select.cu - CUDA launchers of mask_select.h. One block per object: the block counts
 * the two stability areas of mask 0 (integer block reduction, so the result equals the
 * reference's exactly), thread 0 applies samrt_sam2_select_decide, and the block then copies
 * the selected (or gated) logits and the pointer token. Per object that is 2 * n_pix floats
 * read and n_pix written (768 KB at 256x256): 1024 threads with 16-byte loads, several in
 * flight per thread, keep one SM's memory pipeline full. (256 threads with scalar loads took
 * ~0.1 ms, latency-bound, in a tracked frame.)
 * Tests: tests/test_sam2_select_cuda.c. */
#include "common.cuh"
#include "mask_select.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int SELECT_THREADS = 1024;  /* one block per object: the whole SM streams its maps */

/* The per-object modes travel by value (kernel parameter space), so the launch reads no
 * host memory and is capturable. */
struct select_modes {
    uint8_t mode[SAMRT_SAM2_MAX_OBJ];
};

__device__ __forceinline__ int block_sum_int(int v, int *shared) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    const int n_warps = blockDim.x >> 5;
    v = lane < n_warps ? shared[lane] : 0;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Counts of mask values above delta and above -delta over n values at m (16-byte words when
 * m is aligned and n a multiple of 4). */
__device__ __forceinline__ void stability_counts(const float *m, int64_t n, float delta, int *ai, int *au) {
    int a = 0, u = 0;
    if (((uintptr_t)m & 15) == 0 && (n & 3) == 0) {
        const float4 *m4 = (const float4 *)m;
#pragma unroll 4
        for (int64_t i = threadIdx.x; i < n / 4; i += blockDim.x) {
            const float4 v = m4[i];
            a += (v.x > delta) + (v.y > delta) + (v.z > delta) + (v.w > delta);
            u += (v.x > -delta) + (v.y > -delta) + (v.z > -delta) + (v.w > -delta);
        }
    } else {
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const float v = m[i];
            a += v > delta;
            u += v > -delta;
        }
    }
    *ai = a, *au = u;
}

/* dst[i] = keep ? src[i] : fill over n values (16-byte words when both are aligned). */
__device__ __forceinline__ void copy_or_fill(float *dst, const float *src, int64_t n, bool keep, float fill) {
    if ((((uintptr_t)dst | (uintptr_t)src) & 15) == 0 && (n & 3) == 0) {
        float4 *d4 = (float4 *)dst;
        const float4 *s4 = (const float4 *)src;
        const float4 f4 = make_float4(fill, fill, fill, fill);
#pragma unroll 4
        for (int64_t i = threadIdx.x; i < n / 4; i += blockDim.x) d4[i] = keep ? s4[i] : f4;
    } else {
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) dst[i] = keep ? src[i] : fill;
    }
}

template <typename T>
__global__ void __launch_bounds__(SELECT_THREADS) select_kernel(const float *masks, const float *iou,
                                                                const float *score, const T *tokens, int64_t s_tok_b,
                                                                int64_t n_pix, int dim, float delta, float thresh,
                                                                float no_obj_score, select_modes modes, float *low_res,
                                                                float *result, T *token_out) {
    __shared__ int red[32];
    __shared__ float res[SAMRT_SAM2_RES_COLS];
    const int b = blockIdx.x;
    const int mode = modes.mode[b];
    const float *m = masks + (int64_t)b * 4 * n_pix;
    float stab = 1.0f;
    if (mode == SAMRT_SAM2_MODE_SINGLE_DYNAMIC) {
        int ai = 0, au = 0;
        stability_counts(m, n_pix, delta, &ai, &au);
        ai = block_sum_int(ai, red);
        au = block_sum_int(au, red);
        stab = au > 0 ? __fdiv_rn((float)ai, (float)au) : 1.0f;
    }
    if (threadIdx.x == 0) {
        float v[4];
        for (int k = 0; k < 4; k++) v[k] = iou[(int64_t)b * 4 + k];
        for (int c = 0; c < SAMRT_SAM2_RES_COLS; c++) res[c] = 0.0f;
        samrt_sam2_select_decide(mode, v, score[b], stab, thresh, res);
        res[SAMRT_SAM2_RES_STABILITY] = stab;
        for (int c = 0; c < SAMRT_SAM2_RES_COLS; c++) result[(int64_t)b * SAMRT_SAM2_RES_COLS + c] = res[c];
    }
    __syncthreads();
    const int idx = (int)res[SAMRT_SAM2_RES_INDEX], tok = (int)res[SAMRT_SAM2_RES_TOKEN];
    const bool keep = res[SAMRT_SAM2_RES_IS_OBJ] > 0.0f;
    copy_or_fill(low_res + (int64_t)b * n_pix, m + (int64_t)idx * n_pix, n_pix, keep, no_obj_score);
    const T *t = tokens + (int64_t)b * s_tok_b + (int64_t)tok * dim;
    for (int c = threadIdx.x; c < dim; c += blockDim.x) token_out[(int64_t)b * dim + c] = t[c];
}

template <typename T>
__global__ void ptr_gate_kernel(const T *ptr, const T *no_obj_ptr, const float *result, int dim, float *out) {
    const int b = blockIdx.x;
    const bool keep = result[(int64_t)b * SAMRT_SAM2_RES_COLS + SAMRT_SAM2_RES_IS_OBJ] > 0.0f;
    for (int c = threadIdx.x; c < dim; c += blockDim.x)
        out[(int64_t)b * dim + c] = keep ? to_f32(ptr[(int64_t)b * dim + c]) : to_f32(no_obj_ptr[c]);
}

template <typename T> void launch_select(const struct samrt_sam2_select_args *a, cudaStream_t stream) {
    select_modes modes;
    for (int b = 0; b < SAMRT_SAM2_MAX_OBJ; b++) modes.mode[b] = b < a->n_obj ? a->mode[b] : 0;
    select_kernel<T><<<a->n_obj, SELECT_THREADS, 0, stream>>>(
        a->masks, a->iou, a->score, (const T *)a->tokens, a->s_tok_b, a->n_pix, a->dim,
        a->delta, a->thresh, a->no_obj_score, modes, a->low_res, a->result, (T *)a->token_out);
}

template <typename T> void launch_gate(const struct samrt_sam2_ptr_gate_args *a, cudaStream_t stream) {
    ptr_gate_kernel<T><<<a->n_obj, 256, 0, stream>>>((const T *)a->ptr, (const T *)a->no_obj_ptr,
                                                                 a->result, a->dim, a->out);
}

}  // namespace

extern "C" enum samrt_status samrt_sam2_select_cuda(const struct samrt_sam2_select_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_sam2_select_check(a));
    SAMRT_DISPATCH_FLOAT(a->dtype, launch_select, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_sam2_ptr_gate_cuda(const struct samrt_sam2_ptr_gate_args *a,
                                                      cudaStream_t stream) {
    SAMRT_TRY(samrt_sam2_ptr_gate_check(a));
    SAMRT_DISPATCH_FLOAT(a->dtype, launch_gate, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
