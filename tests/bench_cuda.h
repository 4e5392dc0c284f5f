/* bench_cuda.h - timing for the GPU kernel tests' --bench mode, after llm.c's
 * benchmark_kernel: warm up, flush L2 before every repetition (a memset of twice the L2
 * size, outside the timed region), time each repetition with CUDA events, report the median.
 * Every result is one line in a fixed format that scripts can collect:
 *   BENCH op=<name> shape=<...> dtype=<...> ms=<median> GBps=<bytes moved / median>
 * bench_copy() times a device-to-device copy moving the same bytes, as the roofline to
 * compare against. Header-only; include it only where SAMRT_HAVE_CUDA is defined. */
#ifndef SAMRT_TEST_BENCH_CUDA_H
#define SAMRT_TEST_BENCH_CUDA_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samrt.h"

#define BENCH_WARMUP 5
#define BENCH_REPS 50

/* The timed work: launch on stream s, return its status. */
typedef enum samrt_status (*bench_fn)(void *ctx, cudaStream_t s);

static int bench_cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median milliseconds of fn over BENCH_REPS cold-L2 runs; negative on any failure. */
static inline double bench_median_ms(bench_fn fn, void *ctx, cudaStream_t s) {
    int l2 = 0;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0) != cudaSuccess || l2 <= 0) l2 = 64 << 20;
    size_t flush_bytes = (size_t)l2 * 2;
    void *flush = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float times[BENCH_REPS];
    double med = -1.0;
    if (cudaMalloc(&flush, flush_bytes) != cudaSuccess) return -1.0;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) goto done;
    for (int i = 0; i < BENCH_WARMUP; i++)
        if (fn(ctx, s) != SAMRT_OK) goto done;
    for (int i = 0; i < BENCH_REPS; i++) {
        cudaMemsetAsync(flush, i & 0xff, flush_bytes, s);
        cudaEventRecord(e0, s);
        if (fn(ctx, s) != SAMRT_OK) goto done;
        cudaEventRecord(e1, s);
        if (cudaEventSynchronize(e1) != cudaSuccess) goto done;
        cudaEventElapsedTime(&times[i], e0, e1);
    }
    qsort(times, BENCH_REPS, sizeof(float), bench_cmp_float);
    med = times[BENCH_REPS / 2];
done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(flush);
    return med;
}

static inline void bench_print(const char *op, const char *shape, const char *dtype, double ms,
                               double bytes) {
    printf("BENCH op=%s shape=%s dtype=%s ms=%.4f GBps=%.1f\n", op, shape, dtype, ms,
           ms > 0 ? bytes / (ms * 1e6) : 0.0);
    fflush(stdout);
}

struct bench_copy_ctx { void *dst; const void *src; size_t bytes; };
static enum samrt_status bench_copy_fn(void *ctx, cudaStream_t s) {
    struct bench_copy_ctx *c = (struct bench_copy_ctx *)ctx;
    return cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s) == cudaSuccess
               ? SAMRT_OK : SAMRT_E_CUDA;
}

/* Times a device copy that moves `moved` bytes in all (reads + writes) and prints it as
 * op=copy: the bandwidth a memory-bound kernel moving the same bytes can hope for. */
static inline void bench_copy(size_t moved, cudaStream_t s) {
    struct bench_copy_ctx c = {NULL, NULL, moved / 2};
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, c.bytes) != cudaSuccess || cudaMalloc(&b, c.bytes) != cudaSuccess) {
        cudaFree(a);
        return;
    }
    cudaMemset(a, 1, c.bytes);
    c.dst = b;
    c.src = a;
    char shape[64];
    snprintf(shape, sizeof shape, "%zuB", moved);
    bench_print("copy", shape, "u8", bench_median_ms(bench_copy_fn, &c, s), (double)(2 * c.bytes));
    cudaFree(a);
    cudaFree(b);
}

static inline int bench_requested(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--bench") == 0) return 1;
    return 0;
}

#endif /* SAMRT_TEST_BENCH_CUDA_H */
