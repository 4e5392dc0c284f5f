/* elementwise.cuh - device helpers shared by the small-op kernels (elementwise, layernorm,
 * pool): the activations of enum samrt_act in fp32, and aligned packs of V elements so a
 * thread moves 16 bytes per load when the pointers allow it.
 *
 * GELU uses erff (full-precision erf, not the tanh approximation); sigmoid is
 * 1 / (1 + expf(-x)), which saturates to exactly 0 and 1 (the memory encoder relies on
 * sigmoid(-1024) * 20 - 10 == -10). */
#ifndef SAMRT_KERNELS_ELEMENTWISE_CUH
#define SAMRT_KERNELS_ELEMENTWISE_CUH

#include <stdint.h>

#include "common.cuh"
#include "elementwise.h"

namespace samrt {

__device__ __forceinline__ float act_apply(enum samrt_act act, float x) {
    switch (act) {
    case SAMRT_ACT_GELU: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case SAMRT_ACT_RELU: return x > 0.0f ? x : (x != x ? x : 0.0f);
    case SAMRT_ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
    default: return x;
    }
}

/* V consecutive elements, aligned to their total size (V * sizeof(T) <= 16). */
template <typename T, int V> struct alignas(sizeof(T) * V) pack {
    T v[V];
};

template <int V, typename T> __device__ __forceinline__ pack<T, V> load_pack(const T *p) {
    return *reinterpret_cast<const pack<T, V> *>(p);
}
template <int V, typename T> __device__ __forceinline__ void store_pack(T *p, const pack<T, V> &v) {
    *reinterpret_cast<pack<T, V> *>(p) = v;
}

/* Rounds an fp32 value through T (what storing it and reading it back gives). */
template <typename T> __device__ __forceinline__ float round_to(float v) { return to_f32<T>(from_f32<T>(v)); }

/* Widest pack (elements) with which every pointer in ptrs is aligned and n_mult (a count
 * that each pack must tile) is a multiple, capped at 16 bytes. */
static inline int pack_width(size_t elem_size, int64_t n_mult, const void *const *ptrs, int n_ptrs) {
    int v = (int)(16 / elem_size);
    for (; v > 1; v >>= 1) {
        int ok = n_mult % v == 0;
        for (int i = 0; i < n_ptrs && ok; i++)
            if (ptrs[i] && (uintptr_t)ptrs[i] % (v * elem_size) != 0) ok = 0;
        if (ok) break;
    }
    return v;
}

}  // namespace samrt

/* Calls F<T, V>(args...) with V one of 1, 2, 4, 8 known at compile time (V * sizeof(T) must
 * not exceed 16, which pack_width guarantees). */
#define SAMRT_DISPATCH_PACK(T, v, F, ...)                                                  \
    switch (v) {                                                                           \
    case 8: if constexpr (sizeof(T) <= 2) F<T, 8>(__VA_ARGS__); break;                     \
    case 4: F<T, 4>(__VA_ARGS__); break;                                                   \
    case 2: F<T, 2>(__VA_ARGS__); break;                                                   \
    default: F<T, 1>(__VA_ARGS__); break;                                                  \
    }

#endif /* SAMRT_KERNELS_ELEMENTWISE_CUH */
