/* sm_limit_smid.cu - the SM probe of test_sm_limit_cuda (sm_limit_smid.h): each block writes
 * the SM it runs on and spins about 0.1 ms, so that a grid of many blocks reaches every SM its
 * stream's green context may use, and no more. */
#include "sm_limit_smid.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define SMID_MAX 1024

__global__ void record_smid(unsigned *smid, long long spin) {
    if (threadIdx.x != 0) return;
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    smid[blockIdx.x] = id;
    const long long t0 = clock64();
    while (clock64() - t0 < spin) {
    }
}

extern "C" int samrt_test_smid_span(void *stream, int blocks, int *distinct) {
    *distinct = 0;
    cudaStream_t s = (cudaStream_t)stream;
    unsigned *dev = NULL;
    unsigned *host = (unsigned *)calloc((size_t)blocks, sizeof *host);
    cudaError_t e = host ? cudaMalloc(&dev, sizeof *host * (size_t)blocks) : cudaErrorMemoryAllocation;
    if (e == cudaSuccess) {
        record_smid<<<blocks, 32, 0, s>>>(dev, 200000);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(host, dev, sizeof *host * (size_t)blocks, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (dev) cudaFree(dev);
    if (e != cudaSuccess) {
        fprintf(stderr, "smid probe: %s\n", cudaGetErrorString(e));
        free(host);
        return -1;
    }
    static unsigned char seen[SMID_MAX];
    for (int i = 0; i < SMID_MAX; i++) seen[i] = 0;
    for (int b = 0; b < blocks; b++)
        if (host[b] < SMID_MAX && !seen[host[b]]) seen[host[b]] = 1, (*distinct)++;
    free(host);
    return 0;
}
