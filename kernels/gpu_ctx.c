/* gpu_ctx.c - creates and frees the engine's cuBLASLt and cuDNN handles (gpu_ctx.h).
 * cudnnCreate allocates device memory and can take a second on a cold start, which is why
 * it happens once per engine and never on the hot path. Built only with SAMRT_CUDA. */
#include "gpu_ctx.h"

#include "stream.h"

#include <stdlib.h>
#include <string.h>

enum samrt_status samrt_gpu_ctx_init(int device, struct samrt_gpu_ctx *out) {
    memset(out, 0, sizeof *out);
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        (void)cudaGetLastError();
        SAMRT_LOG_ERROR("gpu_ctx: no CUDA device is visible");
        return SAMRT_E_NO_DEVICE;
    }
    SAMRT_CHECK(device >= 0 && device < n, SAMRT_E_INVALID_ARG, "gpu_ctx: device %d of %d", device, n);
    /* a context of this device already current (an SM share's green context, platform.h) is
     * kept: the handles and the stream are made in it; otherwise the device's primary context */
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess) (void)cudaGetLastError();
    if (current != device) SAMRT_CUDA_TRY(cudaSetDevice(device));
    struct cudaDeviceProp prop;
    SAMRT_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    out->device = device;
    out->sm_count = prop.multiProcessorCount;
    out->cc_major = prop.major;
    out->cc_minor = prop.minor;
    out->l2_bytes = (size_t)prop.l2CacheSize;

    /* The legacy convolution API keeps its signatures within a major version only. */
    const size_t dnn_version = cudnnGetVersion();
    SAMRT_CHECK(dnn_version / 10000 == CUDNN_MAJOR, SAMRT_E_UNSUPPORTED,
                "gpu_ctx: cuDNN %zu at run time, built against major %d", dnn_version, CUDNN_MAJOR);

    cublasStatus_t bs = cublasLtCreate(&out->lt);
    if (bs != CUBLAS_STATUS_SUCCESS) {
        SAMRT_LOG_ERROR("gpu_ctx: cublasLtCreate failed (status %d)", (int)bs);
        memset(out, 0, sizeof *out);
        return SAMRT_E_CUDA;
    }
    cudnnStatus_t ds = cudnnCreate(&out->dnn);
    if (ds != CUDNN_STATUS_SUCCESS) {
        SAMRT_LOG_ERROR("gpu_ctx: cudnnCreate failed: %s", cudnnGetErrorString(ds));
        cublasLtDestroy(out->lt);
        memset(out, 0, sizeof *out);
        return SAMRT_E_CUDA;
    }
    if (cudaStreamCreate(&out->stream) != cudaSuccess) {
        SAMRT_LOG_ERROR("gpu_ctx: cudaStreamCreate failed: %s", cudaGetErrorString(cudaGetLastError()));
        cudnnDestroy(out->dnn);
        cublasLtDestroy(out->lt);
        memset(out, 0, sizeof *out);
        return SAMRT_E_CUDA;
    }
    SAMRT_LOG_DEBUG("gpu_ctx: %s sm_%d%d, %d SMs, cuBLASLt %zu, cuDNN %zu", prop.name, prop.major,
                    prop.minor, prop.multiProcessorCount, cublasLtGetVersion(), dnn_version);
    return SAMRT_OK;
}

void samrt_gpu_ctx_free(struct samrt_gpu_ctx *ctx) {
    if (ctx->stream) cudaStreamDestroy(ctx->stream);
    if (ctx->dnn) cudnnDestroy(ctx->dnn);
    if (ctx->lt) cublasLtDestroy(ctx->lt);
    memset(ctx, 0, sizeof *ctx);
}

/* The caller's enqueue with its pointers in the probe buffer (samrt_gpu_count_kernels). */
struct probe_call {
    samrt_gpu_enqueue_fn enqueue;
    void *user, *probe;
};

static enum samrt_status probe_enqueue(void *user, samrt_stream *s) {
    const struct probe_call *c = user;
    return c->enqueue(c->user, c->probe, (cudaStream_t)s);
}

int samrt_gpu_count_kernels(const struct samrt_gpu_ctx *ctx, samrt_gpu_enqueue_fn enqueue, void *user) {
    if (!ctx || !ctx->stream || !samrt_stream_counting()) return -1;
    struct probe_call c = {enqueue, user, NULL};
    if (cudaMalloc(&c.probe, 4096) != cudaSuccess) {  /* setup only, and only when counting */
        (void)cudaGetLastError();
        return -1;
    }
    struct samrt_graph_nodes nodes;
    const enum samrt_status st = samrt_stream_count_nodes((samrt_stream *)ctx->stream, probe_enqueue, &c, &nodes);
    cudaFree(c.probe);
    return st == SAMRT_OK ? nodes.kernels : -1;
}
