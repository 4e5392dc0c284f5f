/* bench.h - timing helpers shared by the ceilings tool and the --bench modes of the GPU
 * tests, after llm.c's benchmark_kernel: warm up, flush L2 before each repeat (a memset of
 * twice the L2 size on the same stream, outside the timed interval), time each repeat with
 * CUDA events, report the median. Header-only; CUDA builds only.
 *
 *   struct samrt_bench b;
 *   samrt_bench_init(&b, 1);                       // 1: flush L2 between repeats
 *   double ms = samrt_bench_median_ms(&b, fn, arg, stream, 3, 20);
 *   samrt_bench_free(&b);
 */
#ifndef SAMRT_KERNELS_DEV_BENCH_H
#define SAMRT_KERNELS_DEV_BENCH_H

#include <stdlib.h>

#include <cuda_runtime.h>

#include "samrt.h"

#define SAMRT_BENCH_MAX_REPS 101

/* The timed operation: enqueue the work on `stream`, return its status. */
typedef enum samrt_status (*samrt_bench_fn)(void *arg, cudaStream_t stream);

struct samrt_bench {
    cudaEvent_t t0, t1;
    void *flush;          /* 2 x L2 bytes, or NULL */
    size_t flush_bytes;
};

static inline int samrt_bench_init(struct samrt_bench *b, int flush_l2) {
    b->flush = NULL;
    b->flush_bytes = 0;
    if (cudaEventCreate(&b->t0) != cudaSuccess || cudaEventCreate(&b->t1) != cudaSuccess) return -1;
    if (flush_l2) {
        int dev = 0, l2 = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
        b->flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : (4 << 20));
        if (cudaMalloc(&b->flush, b->flush_bytes) != cudaSuccess) return -1;
    }
    return 0;
}

static inline void samrt_bench_free(struct samrt_bench *b) {
    cudaEventDestroy(b->t0);
    cudaEventDestroy(b->t1);
    if (b->flush) cudaFree(b->flush);
}

static inline int samrt_bench_cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median milliseconds of `reps` timed runs after `warmup` untimed ones; a negative value
 * when the operation or CUDA failed. */
static inline double samrt_bench_median_ms(struct samrt_bench *b, samrt_bench_fn fn, void *arg,
                                           cudaStream_t stream, int warmup, int reps) {
    double t[SAMRT_BENCH_MAX_REPS];
    if (reps < 1) reps = 1;
    if (reps > SAMRT_BENCH_MAX_REPS) reps = SAMRT_BENCH_MAX_REPS;
    for (int i = 0; i < warmup; i++)
        if (fn(arg, stream) != SAMRT_OK) return -1.0;
    for (int i = 0; i < reps; i++) {
        if (b->flush) cudaMemsetAsync(b->flush, i & 0xff, b->flush_bytes, stream);
        cudaEventRecord(b->t0, stream);
        if (fn(arg, stream) != SAMRT_OK) return -1.0;
        cudaEventRecord(b->t1, stream);
        float ms = 0.0f;
        if (cudaEventSynchronize(b->t1) != cudaSuccess ||
            cudaEventElapsedTime(&ms, b->t0, b->t1) != cudaSuccess)
            return -1.0;
        t[i] = ms;
    }
    qsort(t, (size_t)reps, sizeof t[0], samrt_bench_cmp_double);
    return reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

#endif /* SAMRT_KERNELS_DEV_BENCH_H */
