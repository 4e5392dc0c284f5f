/* gemmconv_util.h - helpers shared by the GEMM / convolution GPU tests: exactly
 * representable test data, per-dtype tolerances, device upload/download through the dtype,
 * NaN poisoning, and a stream + workspace fixture. Header-only so each test stays one file.
 *
 * Test data are multiples of 1/64 in [-1, 1]: exact in f32, f16 and bf16, so one reference
 * serves every dtype, products are exact in f32 and sums stay exact while |sum| < 4096.
 * f32 results are then exact (up to the GELU's erff), and a half-precision result can only
 * differ from the reference by its output rounding: tight tolerances that still catch a
 * tanh GELU in f32 (up to 4.7e-4 off) or any indexing error. */
#ifndef SAMRT_TEST_GEMMCONV_UTIL_H
#define SAMRT_TEST_GEMMCONV_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_util.h"

/* |out - ref| <= atol_frac * max|ref| + rtol * |ref|; a half-precision output rounds once or
 * twice (bias pass, then GELU pass) at 2^-9 (bf16) / 2^-12 (f16) relative. */
struct gc_tol { double atol_frac, rtol; };
static const struct gc_tol GC_TOL_F32 = {1e-6, 2e-6};
static const struct gc_tol GC_TOL_F16 = {1.0 / 2048, 1.0 / 1024};
static const struct gc_tol GC_TOL_BF16 = {1.0 / 256, 1.0 / 128};

static inline struct gc_tol gc_tol_for(enum samrt_dtype out) {
    return out == SAMRT_DTYPE_F32 ? GC_TOL_F32 : out == SAMRT_DTYPE_F16 ? GC_TOL_F16 : GC_TOL_BF16;
}

/* A GPU is present but the test cannot set itself up: that is a failure, never a skip. */
static inline int gc_fail(const char *name, const char *why) {
    fprintf(stderr, "%s: FAILED: %s\n", name, why);
    return 1;
}

static inline void gc_fill_quant(float *x, int64_t n, uint64_t seed) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
    for (int64_t i = 0; i < n; i++) x[i] = (float)((int)(tu_rand_u32(&s) % 129u) - 64) / 64.0f;
}

static inline int gc_compare(const char *what, const float *out, const float *ref, long n, struct gc_tol t) {
    double mx = 0;
    for (long i = 0; i < n; i++) mx = fmax(mx, fabs((double)ref[i]));
    return check_close_f32(what, out, ref, n, t.atol_frac * mx, t.rtol);
}

static inline void gc_nchw_to_nhwc(float *dst, const float *src, int n, int c, int h, int w) {
    for (int b = 0; b < n; b++)
        for (int ch = 0; ch < c; ch++)
            for (int p = 0; p < h * w; p++)
                dst[((int64_t)b * h * w + p) * c + ch] = src[((int64_t)b * c + ch) * h * w + p];
}

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>

#include "gpu_ctx.h"

/* Device copy of n values stored as dt; NULL on failure. */
static inline void *gc_upload(enum samrt_dtype dt, const float *h, int64_t n) {
    const size_t bytes = (size_t)n * samrt_dtype_size(dt);
    void *stage = malloc(bytes), *d = NULL;
    if (!stage) return NULL;
    tu_store(dt, stage, h, n);
    if (cudaMalloc(&d, bytes) != cudaSuccess ||
        cudaMemcpy(d, stage, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaFree(d);
        d = NULL;
    }
    free(stage);
    return d;
}

/* n elements of dt filled with 0xff bytes: NaN in f32, f16 and bf16, so anything the kernel
 * fails to write fails the comparison. */
static inline void *gc_alloc_poison(enum samrt_dtype dt, int64_t n) {
    void *d = NULL;
    const size_t bytes = (size_t)n * samrt_dtype_size(dt);
    if (cudaMalloc(&d, bytes) != cudaSuccess) return NULL;
    if (cudaMemset(d, 0xff, bytes) != cudaSuccess) { cudaFree(d); return NULL; }
    return d;
}

static inline int gc_download(enum samrt_dtype dt, float *h, const void *d, int64_t n) {
    const size_t bytes = (size_t)n * samrt_dtype_size(dt);
    void *stage = malloc(bytes);
    if (!stage) return -1;
    const int rc = cudaMemcpy(stage, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : -1;
    if (rc == 0) tu_load(dt, h, stage, n);
    free(stage);
    return rc;
}

/* What every GPU test needs: the context, a stream and one workspace of the cap. */
struct gc_fixture {
    struct samrt_gpu_ctx ctx;
    cudaStream_t stream;
    void *ws;
    size_t ws_cap;
};

static inline int gc_fixture_init(struct gc_fixture *f, size_t ws_cap) {
    memset(f, 0, sizeof *f);
    if (samrt_gpu_ctx_init(0, &f->ctx) != SAMRT_OK) return -1;
    if (cudaStreamCreate(&f->stream) != cudaSuccess) return -1;
    f->ws_cap = ws_cap;
    if (ws_cap && cudaMalloc(&f->ws, ws_cap) != cudaSuccess) return -1;
    return 0;
}

static inline void gc_fixture_free(struct gc_fixture *f) {
    cudaFree(f->ws);
    if (f->stream) cudaStreamDestroy(f->stream);
    samrt_gpu_ctx_free(&f->ctx);
}
#endif

#endif /* SAMRT_TEST_GEMMCONV_UTIL_H */
