/* test_util.h - helpers for kernel tests: a seeded xorshift generator, host dtype
 * conversion (through core/half.h), and the GPU-availability probe that turns into a skip.
 * Header-only so each test stays one file. */
#ifndef SAMRT_TEST_UTIL_H
#define SAMRT_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "half.h"
#include "samrt.h"

static inline uint32_t tu_rand_u32(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    *state = x;
    return (uint32_t)(x >> 32);
}
/* uniform in [lo, hi) */
static inline float tu_rand_uniform(uint64_t *state, float lo, float hi) {
    return lo + (hi - lo) * (float)(tu_rand_u32(state) >> 8) * (1.0f / 16777216.0f);
}
static inline void tu_fill_uniform(float *x, long n, uint64_t seed, float lo, float hi) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (long i = 0; i < n; i++) x[i] = tu_rand_uniform(&s, lo, hi);
}

/* Converts n f32 values into dtype storage (f32, f16, bf16) at dst. */
static inline void tu_store(enum samrt_dtype dt, void *dst, const float *src, long n) {
    for (long i = 0; i < n; i++) {
        if (dt == SAMRT_DTYPE_F32) ((float *)dst)[i] = src[i];
        else if (dt == SAMRT_DTYPE_F16) ((uint16_t *)dst)[i] = samrt_f32_to_f16(src[i]);
        else ((uint16_t *)dst)[i] = samrt_f32_to_bf16(src[i]);
    }
}
static inline void tu_load(enum samrt_dtype dt, float *dst, const void *src, long n) {
    for (long i = 0; i < n; i++) {
        if (dt == SAMRT_DTYPE_F32) dst[i] = ((const float *)src)[i];
        else if (dt == SAMRT_DTYPE_F16) dst[i] = samrt_f16_to_f32(((const uint16_t *)src)[i]);
        else dst[i] = samrt_bf16_to_f32(((const uint16_t *)src)[i]);
    }
}
/* Rounds n values through dtype in place (what the GPU input really holds). */
static inline void tu_round(enum samrt_dtype dt, float *x, long n) {
    for (long i = 0; i < n; i++) {
        if (dt == SAMRT_DTYPE_F16) x[i] = samrt_round_f16(x[i]);
        else if (dt == SAMRT_DTYPE_BF16) x[i] = samrt_round_bf16(x[i]);
    }
}

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
/* 1 when a CUDA device is usable; otherwise 0 and the reason in why. */
static inline int tu_have_gpu(char *why, size_t len) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        snprintf(why, len, "no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        (void)cudaGetLastError();
        return 0;
    }
    return 1;
}
#endif

#endif /* SAMRT_TEST_UTIL_H */
