/* gpu_ctx.h - the engine-level GPU context: the device, its SM count and compute
 * capability, and the cuBLASLt and cuDNN handles. One per engine, created at init; every
 * GEMM and convolution plan borrows its handles; the engine's passes run on its stream. Nothing global: two engines hold two
 * contexts (handles are not shared across threads that run at the same time).
 *
 *   struct samrt_gpu_ctx ctx;
 *   SAMRT_TRY(samrt_gpu_ctx_init(0, &ctx));
 *   ... samrt_gemm_plan_init(&ctx, ...), samrt_conv_plan_init(&ctx, ...) ...
 *   samrt_gpu_ctx_free(&ctx);   // after every plan that borrowed it is freed
 */
#ifndef SAMRT_KERNELS_GPU_CTX_H
#define SAMRT_KERNELS_GPU_CTX_H

#include "samrt_impl.h"

#ifdef SAMRT_HAVE_CUDA
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_gpu_ctx {
    int device;              /* CUDA ordinal; made current by init */
    int sm_count;
    int cc_major, cc_minor;
    size_t l2_bytes;
    cublasLtHandle_t lt;     /* owned */
    cudnnHandle_t dnn;       /* owned */
    cudaStream_t stream;     /* owned: the engine's work stream (blocking, so legacy-stream
                                copies of debug paths still order after its work) */
};

/* Selects the device, reads its properties and creates both handles and the stream. Checks that the cuDNN
 * library at run time has the major version the code was built against. On failure nothing
 * is left allocated and *out is zeroed. */
enum samrt_status samrt_gpu_ctx_init(int device, struct samrt_gpu_ctx *out);
/* Destroys the handles and the stream; a zeroed ctx is fine. */
void samrt_gpu_ctx_free(struct samrt_gpu_ctx *ctx);

/* Enqueues one call on s with every pointer it needs pointing into `probe` (4 KiB of device
 * memory, 256-byte aligned): the call is captured, never run. */
typedef enum samrt_status (*samrt_gpu_enqueue_fn)(void *user, void *probe, cudaStream_t s);
/* The kernels one library call really launches (cuBLASLt's split-K reductions and small-shape
 * kernels, cuDNN's layout transforms): the call captured into a throwaway graph on ctx's
 * stream at setup and its kernel nodes counted (platform/stream.h samrt_stream_count_nodes).
 * -1 when the capture fails (the caller keeps its estimate), and always -1 unless
 * samrt_stream_counting() (SAMRT_COUNT_KERNELS=1): counting allocates a probe buffer per plan
 * at setup, and an engine's init allocates nothing but its arena otherwise. */
int samrt_gpu_count_kernels(const struct samrt_gpu_ctx *ctx, samrt_gpu_enqueue_fn enqueue, void *user);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HAVE_CUDA */
#endif /* SAMRT_KERNELS_GPU_CTX_H */
