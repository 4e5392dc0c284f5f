/* alloc_intercept.c - the --wrap wrappers behind alloc_intercept.h. Host counters use
 * relaxed atomics so libraries' worker threads may allocate concurrently.
 * SAMRT_ALLOC_BACKTRACE=N in the environment prints the call stacks of the first N host
 * allocations made after the first alloc_counts_get (the tests take their baseline there), to
 * find an allocation a test reports: resolve the frames with addr2line -e <test> <offset>.
 * After the baseline each host allocation is also attributed: one whose call stack passes
 * through cuDNN counts in host_vendor_calls too (cuDNN 9's legacy convolution call builds and
 * frees its own descriptors on every call; an eager, uncaptured run therefore allocates
 * inside cuDNN, a graph replay does not). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "alloc_intercept.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <string.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

static _Atomic uint64_t c_dev_calls, c_dev_bytes, c_man_calls, c_man_bytes, c_pin_calls, c_pin_bytes, c_dev_frees;
static _Atomic uint64_t c_host_calls, c_host_bytes, c_host_frees, c_host_vendor;

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

static _Atomic int g_armed, g_trace_left;
static _Thread_local int t_tracing;

static void trace(void) {
    if (!atomic_load(&g_armed) || t_tracing || atomic_fetch_sub(&g_trace_left, 1) <= 0) return;
    t_tracing = 1;
    void *frames[32];
    const int n = backtrace(frames, 32);
    static const char head[] = "alloc_intercept: host allocation after the baseline:\n";
    if (write(2, head, sizeof head - 1) < 0) { /* nothing to do */ }
    backtrace_symbols_fd(frames, n, 2);
    t_tracing = 0;
}

/* 1 when the allocation comes from inside cuDNN (a frame of its call stack lies in libcudnn*). */
static int from_vendor(void) {
    if (!atomic_load(&g_armed) || t_tracing) return 0;
    t_tracing = 1;
    void *frames[24];
    const int n = backtrace(frames, 24);
    int hit = 0;
    for (int i = 1; i < n && !hit; i++) {
        Dl_info di;
        hit = dladdr(frames[i], &di) && di.dli_fname && strstr(di.dli_fname, "libcudnn") != NULL;
    }
    t_tracing = 0;
    return hit;
}

static void host(size_t n) {
    atomic_fetch_add_explicit(&c_host_calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c_host_bytes, n, memory_order_relaxed);
    if (from_vendor()) atomic_fetch_add_explicit(&c_host_vendor, 1, memory_order_relaxed);
    trace();
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
    if (!atomic_load(&g_armed)) {
        const char *env = getenv("SAMRT_ALLOC_BACKTRACE");
        void *warm[2];
        Dl_info di;
        t_tracing = 1;
        (void)backtrace(warm, 2);  /* loads the unwinder now, not inside a traced call */
        (void)dladdr((void *)&alloc_counts_get, &di);
        t_tracing = 0;
        if (env && atoi(env) > 0) atomic_store(&g_trace_left, atoi(env));
        atomic_store(&g_armed, 1);
    }
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
    o->host_vendor_calls = atomic_load(&c_host_vendor);
}
