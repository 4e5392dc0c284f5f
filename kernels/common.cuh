/* common.cuh - device helpers shared by the CUDA kernels: dtype load/store with f32
 * accumulation, warp reductions, the dtype dispatch, and the launch check.
 * Every launcher takes a cudaStream_t, allocates nothing and logs nothing, so it can be
 * captured in a CUDA graph; launch errors come back as SAMRT_E_CUDA via SAMRT_LAUNCH_CHECK. */
#ifndef SAMRT_KERNELS_COMMON_CUH
#define SAMRT_KERNELS_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "samrt.h"

namespace samrt {

template <typename T> __device__ __forceinline__ float to_f32(T v);
template <> __device__ __forceinline__ float to_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f32<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f32<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

static inline unsigned ceil_div(long long a, long long b) { return (unsigned)((a + b - 1) / b); }

}  // namespace samrt

/* Calls F<T>(args...) with T matching a runtime samrt_dtype (f32, f16, bf16). Other dtypes
 * return SAMRT_E_UNSUPPORTED from the enclosing function. */
#define SAMRT_DISPATCH_FLOAT(dtype, F, ...)                                                \
    switch (dtype) {                                                                       \
    case SAMRT_DTYPE_F32: F<float>(__VA_ARGS__); break;                                    \
    case SAMRT_DTYPE_F16: F<__half>(__VA_ARGS__); break;                                   \
    case SAMRT_DTYPE_BF16: F<__nv_bfloat16>(__VA_ARGS__); break;                           \
    default: return SAMRT_E_UNSUPPORTED;                                                   \
    }

/* After a launch: a launch-configuration error becomes SAMRT_E_CUDA (no logging: launchers
 * stay silent; the caller's SAMRT_CUDA_TRY on the stream reports details). */
#define SAMRT_LAUNCH_CHECK()                                                               \
    do {                                                                                   \
        if (cudaPeekAtLastError() != cudaSuccess) return SAMRT_E_CUDA;                     \
    } while (0)

#endif /* SAMRT_KERNELS_COMMON_CUH */
