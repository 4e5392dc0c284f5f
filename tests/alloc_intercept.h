/* alloc_intercept.h - counts every allocation the process makes through the linker's
 * --wrap: cudaMalloc, cudaMallocManaged, cudaMallocHost, cudaHostAlloc, cudaMallocAsync,
 * cudaFree, cudaFreeHost, cudaFreeAsync and host malloc/calloc/realloc/free/aligned_alloc/
 * posix_memalign. Every call made from the test executable or the samrt library goes
 * through the wrappers, so the counters are measured from outside the arena. Link with
 * samrt_add_alloc_test() in tests/CMakeLists.txt. */
#ifndef SAMRT_ALLOC_INTERCEPT_H
#define SAMRT_ALLOC_INTERCEPT_H

#include <stdint.h>

struct alloc_counts {
    uint64_t dev_calls, dev_bytes;        /* cudaMalloc + cudaMallocAsync */
    uint64_t managed_calls, managed_bytes;/* cudaMallocManaged */
    uint64_t pinned_calls, pinned_bytes;  /* cudaMallocHost + cudaHostAlloc */
    uint64_t dev_frees;                   /* cudaFree, cudaFreeAsync, cudaFreeHost */
    uint64_t host_calls, host_bytes;      /* malloc family */
    uint64_t host_frees;
    uint64_t host_vendor_calls;           /* of host_calls after the first alloc_counts_get: made inside cuDNN */
};

/* A snapshot of the counters (thread-safe reads of monotonically growing totals). */
void alloc_counts_get(struct alloc_counts *out);

#endif /* SAMRT_ALLOC_INTERCEPT_H */
