/* alloc_intercept.c - the --wrap wrappers behind alloc_intercept.h. Host counters use
 * relaxed atomics so libraries' worker threads may allocate concurrently. */
#include "alloc_intercept.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

static _Atomic uint64_t c_dev_calls, c_dev_bytes, c_man_calls, c_man_bytes, c_pin_calls, c_pin_bytes, c_dev_frees;
static _Atomic uint64_t c_host_calls, c_host_bytes, c_host_frees;

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t a, size_t n);
int __real_posix_memalign(void **p, size_t a, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_aligned_alloc(size_t a, size_t n);
int __wrap_posix_memalign(void **p, size_t a, size_t n);

static void host(size_t n) {
    atomic_fetch_add_explicit(&c_host_calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c_host_bytes, n, memory_order_relaxed);
}
void *__wrap_malloc(size_t n) { host(n); return __real_malloc(n); }
void *__wrap_calloc(size_t a, size_t b) { host(a * b); return __real_calloc(a, b); }
void *__wrap_realloc(void *p, size_t n) { host(n); return __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t a, size_t n) { host(n); return __real_aligned_alloc(a, n); }
int __wrap_posix_memalign(void **p, size_t a, size_t n) { host(n); return __real_posix_memalign(p, a, n); }
void __wrap_free(void *p) {
    if (p) atomic_fetch_add_explicit(&c_host_frees, 1, memory_order_relaxed);
    __real_free(p);
}

#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
cudaError_t __real_cudaMalloc(void **p, size_t n);
cudaError_t __real_cudaMallocManaged(void **p, size_t n, unsigned flags);
cudaError_t __real_cudaMallocHost(void **p, size_t n);
cudaError_t __real_cudaHostAlloc(void **p, size_t n, unsigned flags);
cudaError_t __real_cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t __real_cudaFree(void *p);
cudaError_t __real_cudaFreeHost(void *p);
cudaError_t __real_cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t __wrap_cudaMalloc(void **p, size_t n);
cudaError_t __wrap_cudaMallocManaged(void **p, size_t n, unsigned flags);
cudaError_t __wrap_cudaMallocHost(void **p, size_t n);
cudaError_t __wrap_cudaHostAlloc(void **p, size_t n, unsigned flags);
cudaError_t __wrap_cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t __wrap_cudaFree(void *p);
cudaError_t __wrap_cudaFreeHost(void *p);
cudaError_t __wrap_cudaFreeAsync(void *p, cudaStream_t s);

cudaError_t __wrap_cudaMalloc(void **p, size_t n) {
    atomic_fetch_add(&c_dev_calls, 1); atomic_fetch_add(&c_dev_bytes, n);
    return __real_cudaMalloc(p, n);
}
cudaError_t __wrap_cudaMallocAsync(void **p, size_t n, cudaStream_t s) {
    atomic_fetch_add(&c_dev_calls, 1); atomic_fetch_add(&c_dev_bytes, n);
    return __real_cudaMallocAsync(p, n, s);
}
cudaError_t __wrap_cudaMallocManaged(void **p, size_t n, unsigned flags) {
    atomic_fetch_add(&c_man_calls, 1); atomic_fetch_add(&c_man_bytes, n);
    return __real_cudaMallocManaged(p, n, flags);
}
cudaError_t __wrap_cudaMallocHost(void **p, size_t n) {
    atomic_fetch_add(&c_pin_calls, 1); atomic_fetch_add(&c_pin_bytes, n);
    return __real_cudaMallocHost(p, n);
}
cudaError_t __wrap_cudaHostAlloc(void **p, size_t n, unsigned flags) {
    atomic_fetch_add(&c_pin_calls, 1); atomic_fetch_add(&c_pin_bytes, n);
    return __real_cudaHostAlloc(p, n, flags);
}
cudaError_t __wrap_cudaFree(void *p) { if (p) atomic_fetch_add(&c_dev_frees, 1); return __real_cudaFree(p); }
cudaError_t __wrap_cudaFreeHost(void *p) { if (p) atomic_fetch_add(&c_dev_frees, 1); return __real_cudaFreeHost(p); }
cudaError_t __wrap_cudaFreeAsync(void *p, cudaStream_t s) {
    if (p) atomic_fetch_add(&c_dev_frees, 1);
    return __real_cudaFreeAsync(p, s);
}
#endif

void alloc_counts_get(struct alloc_counts *o) {
    o->dev_calls = atomic_load(&c_dev_calls);
    o->dev_bytes = atomic_load(&c_dev_bytes);
    o->managed_calls = atomic_load(&c_man_calls);
    o->managed_bytes = atomic_load(&c_man_bytes);
    o->pinned_calls = atomic_load(&c_pin_calls);
    o->pinned_bytes = atomic_load(&c_pin_bytes);
    o->dev_frees = atomic_load(&c_dev_frees);
    o->host_calls = atomic_load(&c_host_calls);
    o->host_bytes = atomic_load(&c_host_bytes);
    o->host_frees = atomic_load(&c_host_frees);
}
