/* host_cuda.c - the platform for CUDA builds, discrete and integrated (Jetson) alike: the
 * device query, pools from cudaMalloc / cudaMallocManaged / aligned host memory, library
 * versions, NVTX3 ranges, and stream.h's CUDA streams, events, graphs and copies. Integrated
 * GPUs default to one managed pool: CPU and GPU share DRAM there, and a managed pool is
 * counted once (docs/memory.md). */
#include "platform.h"
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#ifdef SAMRT_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

int samrt_platform_has_cuda(void) { return 1; }

enum samrt_status samrt_platform_device_count(int *n) {
    *n = 0;
    int c = 0;
    cudaError_t e = cudaGetDeviceCount(&c);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();  /* no driver or no device: not an error for a query */
        return SAMRT_OK;
    }
    *n = c;
    return SAMRT_OK;
}

enum samrt_status samrt_platform_device_query(int ordinal, struct samrt_device_info *out) {
    memset(out, 0, sizeof *out);
    int n = 0;
    samrt_platform_device_count(&n);
    SAMRT_CHECK(n > 0, SAMRT_E_NO_DEVICE, "no CUDA device is visible");
    SAMRT_CHECK(ordinal >= 0 && ordinal < n, SAMRT_E_INVALID_ARG, "device %d of %d", ordinal, n);
    struct cudaDeviceProp prop;
    SAMRT_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
    snprintf(out->name, sizeof out->name, "%s", prop.name);
    out->ordinal = ordinal;
    out->sm_count = prop.multiProcessorCount;
    out->cc_major = prop.major;
    out->cc_minor = prop.minor;
    out->integrated = prop.integrated;
    out->l2_bytes = prop.l2CacheSize;
    SAMRT_CUDA_TRY(cudaSetDevice(ordinal));
    size_t free_b = 0, total_b = 0;
    SAMRT_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    out->free_bytes = free_b;
    out->total_bytes = total_b;
    cudaDriverGetVersion(&out->driver_version);
    cudaRuntimeGetVersion(&out->runtime_version);
    return SAMRT_OK;
}

enum samrt_mem_kind samrt_platform_resolve_mem_kind(enum samrt_mem_kind kind, int ordinal) {
    if (kind != SAMRT_MEM_AUTO) return kind;
    int n = 0;
    samrt_platform_device_count(&n);
    if (n == 0) return SAMRT_MEM_HOST;
    int integrated = 0;
    if (cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        return SAMRT_MEM_DEVICE;
    }
    return integrated ? SAMRT_MEM_UNIFIED : SAMRT_MEM_DEVICE;
}

enum samrt_status samrt_platform_mem_alloc(enum samrt_mem_kind kind, uint64_t bytes, void **out) {
    *out = NULL;
    if (bytes == 0) return SAMRT_OK;
    switch (kind) {
    case SAMRT_MEM_DEVICE: {
        cudaError_t e = cudaMalloc(out, bytes);
        SAMRT_CHECK(e == cudaSuccess, SAMRT_E_CUDA, "cudaMalloc of %llu bytes (%.1f MiB) failed: %s",
                    (unsigned long long)bytes, bytes / 1048576.0, cudaGetErrorString(e));
        /* scratch starts zeroed (cudaMalloc does not zero) */
        SAMRT_CUDA_TRY(cudaMemset(*out, 0, bytes));
        return SAMRT_OK;
    }
    case SAMRT_MEM_UNIFIED: {
        cudaError_t e = cudaMallocManaged(out, bytes, cudaMemAttachGlobal);
        SAMRT_CHECK(e == cudaSuccess, SAMRT_E_CUDA,
                    "cudaMallocManaged of %llu bytes (%.1f MiB) failed: %s", (unsigned long long)bytes,
                    bytes / 1048576.0, cudaGetErrorString(e));
        SAMRT_CUDA_TRY(cudaMemset(*out, 0, bytes));
        SAMRT_CUDA_TRY(cudaDeviceSynchronize());
        return SAMRT_OK;
    }
    case SAMRT_MEM_HOST: {
        void *p = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(bytes, SAMRT_ALIGN));
        SAMRT_CHECK(p != NULL, SAMRT_E_HOST_MEMORY, "host pool of %llu bytes: allocation failed",
                    (unsigned long long)bytes);
        memset(p, 0, bytes);
        *out = p;
        return SAMRT_OK;
    }
    case SAMRT_MEM_AUTO: break;
    }
    SAMRT_LOG_ERROR("mem_alloc: memory kind must be resolved before allocation");
    return SAMRT_E_INVALID_ARG;
}

void samrt_platform_mem_free(enum samrt_mem_kind kind, void *p) {
    if (!p) return;
    if (kind == SAMRT_MEM_HOST) free(p);
    else cudaFree(p);
}

enum samrt_status samrt_platform_mem_upload(enum samrt_mem_kind kind, void *dst, const void *src, uint64_t bytes) {
    if (kind == SAMRT_MEM_HOST) {
        memcpy(dst, src, bytes);
        return SAMRT_OK;
    }
    /* managed memory is written through the copy engine too, so the CPU never touches the
     * pool outside the documented sync points (docs/memory.md) */
    SAMRT_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return SAMRT_OK;
}

void samrt_platform_lib_versions(struct samrt_lib_versions *out) {
    memset(out, 0, sizeof *out);
    if (cudaDriverGetVersion(&out->cuda_driver) != cudaSuccess) (void)cudaGetLastError();
    if (cudaRuntimeGetVersion(&out->cuda_runtime) != cudaSuccess) (void)cudaGetLastError();
    out->cudnn = (int)cudnnGetVersion();
    out->cublaslt = (int)cublasLtGetVersion();
}

#ifdef SAMRT_HAVE_NVTX
void samrt_nvtx_push(const char *name) { nvtxRangePushA(name); }
void samrt_nvtx_pop(void) { nvtxRangePop(); }
#else
void samrt_nvtx_push(const char *name) { (void)name; }
void samrt_nvtx_pop(void) {}
#endif

/* ---- stream.h: streams, events, graphs, copies -------------------------------------------- */

static enum cudaMemcpyKind copy_kind(enum samrt_copy_dir dir) {
    return dir == SAMRT_COPY_H2D ? cudaMemcpyHostToDevice
           : dir == SAMRT_COPY_D2H ? cudaMemcpyDeviceToHost
           : dir == SAMRT_COPY_DEFAULT ? cudaMemcpyDefault
                                   : cudaMemcpyDeviceToDevice;
}

enum samrt_status samrt_stream_copy(void *dst, const void *src, size_t bytes, enum samrt_copy_dir dir,
                                    samrt_stream *s) {
    SAMRT_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, copy_kind(dir), (cudaStream_t)s));
    return SAMRT_OK;
}

enum samrt_status samrt_stream_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, enum samrt_copy_dir dir, samrt_stream *s) {
    SAMRT_CUDA_TRY(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, copy_kind(dir), (cudaStream_t)s));
    return SAMRT_OK;
}

enum samrt_status samrt_platform_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                         size_t height, enum samrt_copy_dir dir) {
    SAMRT_CUDA_TRY(cudaMemcpy2D(dst, dpitch, src, spitch, width, height, copy_kind(dir)));
    return SAMRT_OK;
}

enum samrt_status samrt_stream_sync(samrt_stream *s) {
    SAMRT_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)s));
    return SAMRT_OK;
}

enum samrt_status samrt_stream_create(samrt_stream **out) {
    cudaStream_t s = NULL;
    *out = NULL;
    SAMRT_CUDA_TRY(cudaStreamCreate(&s));
    *out = (samrt_stream *)s;
    return SAMRT_OK;
}

void samrt_stream_destroy(samrt_stream *s) {
    if (s) cudaStreamDestroy((cudaStream_t)s);
}

enum samrt_status samrt_event_create(samrt_event **out) {
    cudaEvent_t ev = NULL;
    *out = NULL;
    SAMRT_CUDA_TRY(cudaEventCreate(&ev));
    *out = (samrt_event *)ev;
    return SAMRT_OK;
}

void samrt_event_destroy(samrt_event *ev) {
    if (ev) cudaEventDestroy((cudaEvent_t)ev);
}

enum samrt_status samrt_event_record(samrt_event *ev, samrt_stream *s, int capturing) {
    /* inside a capture the record becomes an event record node of the graph; the External
     * flag is refused on a stream that is not capturing */
    if (capturing)
        SAMRT_CUDA_TRY(cudaEventRecordWithFlags((cudaEvent_t)ev, (cudaStream_t)s, cudaEventRecordExternal));
    else
        SAMRT_CUDA_TRY(cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)s));
    return SAMRT_OK;
}

float samrt_event_elapsed_ms(samrt_event *a, samrt_event *b) {
    float ms = -1.0f;
    if (cudaEventElapsedTime(&ms, (cudaEvent_t)a, (cudaEvent_t)b) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1.0f;
    }
    return ms;
}

enum samrt_status samrt_stream_capture_begin(samrt_stream *s) {
    SAMRT_CUDA_TRY(cudaStreamBeginCapture((cudaStream_t)s, cudaStreamCaptureModeThreadLocal));
    return SAMRT_OK;
}

/* The kinds of g's nodes (struct samrt_graph_nodes); zero counts when the driver says nothing. */
static void count_nodes(cudaGraph_t g, struct samrt_graph_nodes *nodes) {
    memset(nodes, 0, sizeof *nodes);
    /* SAMRT_GRAPH_DOT=<prefix>: every captured graph as <prefix><n>.dot (Graphviz, with its
     * kernels' names, the libraries' included), to match a frame's graph with its plan */
    const char *dot = getenv("SAMRT_GRAPH_DOT");
    if (dot && dot[0]) {
        static int n_dot = 0;  /* a debugging aid: numbered across the process */
        char path[512];
        snprintf(path, sizeof path, "%s%d.dot", dot, n_dot++);
        if (cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsKernelNodeParams) != cudaSuccess)
            (void)cudaGetLastError();
    }
    size_t n = 0;
    if (cudaGraphGetNodes(g, NULL, &n) != cudaSuccess || n == 0) return;
    cudaGraphNode_t *all = malloc(n * sizeof *all);  /* at capture (setup of a key), never per frame */
    if (all && cudaGraphGetNodes(g, all, &n) == cudaSuccess) {
        for (size_t i = 0; i < n; i++) {
            enum cudaGraphNodeType type;
            if (cudaGraphNodeGetType(all[i], &type) != cudaSuccess) continue;
            if (type == cudaGraphNodeTypeKernel) nodes->kernels++;
            else if (type == cudaGraphNodeTypeMemcpy) nodes->copies++;
            else nodes->other++;
        }
    }
    free(all);
}

enum samrt_status samrt_stream_capture_end(samrt_stream *s, enum samrt_status st, const char *what,
                                           samrt_graph **out, struct samrt_graph_nodes *nodes) {
    *out = NULL;
    if (nodes) memset(nodes, 0, sizeof *nodes);
    cudaGraph_t g = NULL;
    const cudaError_t ce = cudaStreamEndCapture((cudaStream_t)s, &g);
    if (st == SAMRT_OK && ce != cudaSuccess) {
        SAMRT_LOG_ERROR("%s: graph capture failed: %s", what, cudaGetErrorString(ce));
        st = SAMRT_E_CUDA;
    }
    if (st == SAMRT_OK && nodes) count_nodes(g, nodes);
    cudaGraphExec_t x = NULL;
    if (st == SAMRT_OK && cudaGraphInstantiate(&x, g, 0) != cudaSuccess) {
        SAMRT_LOG_ERROR("%s: cudaGraphInstantiate failed: %s", what, cudaGetErrorString(cudaGetLastError()));
        st = SAMRT_E_CUDA;
    }
    if (g) cudaGraphDestroy(g);
    if (st == SAMRT_OK) *out = (samrt_graph *)x;
    return st;
}

enum samrt_status samrt_graph_launch(samrt_graph *g, samrt_stream *s) {
    SAMRT_CUDA_TRY(cudaGraphLaunch((cudaGraphExec_t)g, (cudaStream_t)s));
    return SAMRT_OK;
}

void samrt_graph_destroy(samrt_graph *g) {
    if (g) cudaGraphExecDestroy((cudaGraphExec_t)g);
}
