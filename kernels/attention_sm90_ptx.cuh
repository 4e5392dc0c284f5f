/* attention_sm90_ptx.cuh - the inline-PTX wrappers of the sm_90a attention kernel
 * (attention_sm90.cu) other than the wgmma shapes (attention_wgmma.cuh): the wgmma matrix
 * descriptor, mbarriers, TMA box loads, named barriers, the wgmma fence / commit / wait and a
 * register fence. Only defined where __CUDA_ARCH_FEAT_SM90_ALL is (sm_90a); the kernel's
 * callers of them are guarded alike. Internal header: include only from attention_sm90.cu. */
#ifndef SAMRT_KERNELS_ATTENTION_SM90_PTX_CUH
#define SAMRT_KERNELS_ATTENTION_SM90_PTX_CUH

#include <stdint.h>

namespace samrt_attn {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* wgmma shared-memory matrix descriptor: start address, leading / stride byte offsets, layout. */
__device__ __forceinline__ uint64_t wg_desc(unsigned addr, unsigned lbo, unsigned sbo, int mode) {
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFFu) << 16) |
           ((uint64_t)((sbo >> 4) & 0x3FFFu) << 32) | ((uint64_t)mode << 62);
}
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
}
/* Blocks until the phase with the given parity has completed. */
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
/* Arrive on bar once every cp.async this thread issued so far has landed (counts as one of
 * the arrivals the barrier was initialised with). */
__device__ __forceinline__ void cp_async_arrive(unsigned bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
/* Arrive on bar and add tx bytes the phase must also wait for (the TMA copies complete them). */
__device__ __forceinline__ void mbar_arrive_tx(unsigned bar, unsigned bytes) {
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}
/* TMA: the box at coordinates (c0, c1, c2, c3) of the tensor map into shared memory at dst,
 * completing its bytes on bar. Out-of-range elements arrive as zeros. */
__device__ __forceinline__ void tma_load4(unsigned dst, const CUtensorMap *map, int c0, int c1, int c2, int c3,
                                          unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
        ::"r"(dst), "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
        : "memory");
}
/* Named barrier id over both consumer warpgroups (256 threads): sync waits, arrive does not. */
__device__ __forceinline__ void named_sync(int id) {
    asm volatile("bar.sync %0, 256;\n" ::"r"(id) : "memory");
}
__device__ __forceinline__ void named_arrive(int id) {
    asm volatile("bar.arrive %0, 256;\n" ::"r"(id) : "memory");
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait1() { asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory"); }
/* Keeps the compiler from moving reads or writes of wgmma registers across this point. */
template <int N>
__device__ __forceinline__ void reg_fence(float (&r)[N][4]) {
#pragma unroll
    for (int i = 0; i < N; i++)
#pragma unroll
        for (int e = 0; e < 4; e++) asm volatile("" : "+f"(r[i][e])::"memory");
}
#endif

}  // namespace samrt_attn

#endif /* SAMRT_KERNELS_ATTENTION_SM90_PTX_CUH */
