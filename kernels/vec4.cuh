/* vec4.cuh - store four consecutive f32 results as one vector in f32 (float4), f16 or bf16
 * (8 bytes). Used by the image kernels whose threads each own four adjacent pixels; the
 * caller guarantees 4-element alignment (16 bytes for f32, 8 for the 16-bit types). */
#ifndef SAMRT_KERNELS_VEC4_CUH
#define SAMRT_KERNELS_VEC4_CUH

#include "common.cuh"

namespace samrt {

__device__ __forceinline__ unsigned bits16(__half h) { return __half_as_ushort(h); }
__device__ __forceinline__ unsigned bits16(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }

__device__ __forceinline__ void store4(float *p, const float v[4]) {
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
template <typename T> __device__ __forceinline__ void store4(T *p, const float v[4]) {
    uint2 u;
    u.x = bits16(from_f32<T>(v[0])) | (bits16(from_f32<T>(v[1])) << 16);
    u.y = bits16(from_f32<T>(v[2])) | (bits16(from_f32<T>(v[3])) << 16);
    *reinterpret_cast<uint2 *>(p) = u;
}
/* Same, from values already in T (a table lookup). */
__device__ __forceinline__ void store4v(float *p, const float v[4]) { store4(p, v); }
template <typename T> __device__ __forceinline__ void store4v(T *p, const T v[4]) {
    uint2 u;
    u.x = bits16(v[0]) | (bits16(v[1]) << 16);
    u.y = bits16(v[2]) | (bits16(v[3]) << 16);
    *reinterpret_cast<uint2 *>(p) = u;
}

/* Whether a pointer is aligned for store4 of T. */
template <typename T> __host__ __device__ inline bool vec4_aligned(const void *p) {
    return ((unsigned long long)p % (4 * sizeof(T))) == 0;
}

}  // namespace samrt

#endif /* SAMRT_KERNELS_VEC4_CUH */
