/* mem_store.cu - CUDA launcher of the memory encoder's final store (mem_store.h):
 * out = bf16(x + absent * no_obj_embed_spatial). One thread per element; grid.y is the object,
 * so the object's presence is one broadcast load of its score. At 1024 this is 4096 x 64
 * values per object: a few microseconds, bandwidth-bound, not worth fusing into out_proj's
 * GEMM epilogue (which has no per-object bias).
 * Tests: tests/test_sam2_memory_cuda.c. */
#include "common.cuh"
#include "mem_store.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int STORE_THREADS = 256;

template <typename T>
__global__ void mem_store_kernel(const T *x, const float *score, const T *no_obj, int64_t per, int dim,
                                 __nv_bfloat16 *out) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= per) return;
    const int b = blockIdx.y;
    const int64_t k = (int64_t)b * per + i;
    float v = to_f32(x[k]);
    if (no_obj && !(score[b] > 0.0f)) v = to_f32(from_f32<T>(__fadd_rn(v, to_f32(no_obj[i % dim]))));
    out[k] = __float2bfloat16_rn(v);
}

template <typename T>
void launch_store(const struct samrt_sam2_mem_store_args *a, cudaStream_t stream) {
    const int64_t per = a->n_tok * a->dim;
    const dim3 grid(ceil_div(per, STORE_THREADS), (unsigned)a->n_obj);
    mem_store_kernel<T><<<grid, STORE_THREADS, 0, stream>>>((const T *)a->x, a->score, (const T *)a->no_obj, per,
                                                            a->dim, (__nv_bfloat16 *)a->out);
}

}  // namespace

extern "C" enum samrt_status samrt_sam2_mem_store_cuda(const struct samrt_sam2_mem_store_args *a,
                                                       cudaStream_t stream) {
    SAMRT_TRY(samrt_sam2_mem_store_check(a));
    if (a->n_obj > 65535) return SAMRT_E_INVALID_ARG;
    SAMRT_DISPATCH_FLOAT(a->src_dtype, launch_store, a, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
