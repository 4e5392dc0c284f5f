/* host_cuda.c - the platform for CUDA builds, discrete and integrated (Jetson) alike: the
 * device query, pools from cudaMalloc / cudaMallocManaged / aligned host memory, library
 * versions, NVTX3 ranges, SM shares (green contexts, the driver API resolved at run time),
 * and stream.h's CUDA streams, events, graphs and copies. Integrated
 * GPUs default to one managed pool: CPU and GPU share DRAM there, and a managed pool is
 * counted once (docs/memory.md). */
#include "platform.h"
#include "stream.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>
#include <cuda.h> /* the driver API's types only: its entry points are resolved at run time */
#include <cuda_runtime.h>
#include <cudnn.h>
#ifdef SAMRT_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

int samrt_platform_has_cuda(void) { return 1; }

/* cuCtxGetCurrent through the runtime's driver entry points: nothing links libcuda. */
void *samrt_platform_cuda_context(void) {
    if (cudaFree(0) != cudaSuccess) {  /* makes the device's primary context current */
        (void)cudaGetLastError();
        return NULL;
    }
    CUresult (*get)(CUcontext *) = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", (void **)&get, 12000, cudaEnableDefault, &q);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuCtxGetCurrent", (void **)&get, cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !get) {
        (void)cudaGetLastError();
        return NULL;
    }
    CUcontext c = NULL;
    return get(&c) == CUDA_SUCCESS ? (void *)c : NULL;
}

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
    /* a device-to-device copy may return before it is done: wait, so that work on a stream the
     * legacy stream does not order (an SM share's) sees the bytes */
    SAMRT_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
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
    if (st == SAMRT_OK && nodes && samrt_stream_counting()) count_nodes(g, nodes);
    /* SAMRT_GRAPH_DOT=<prefix>: every captured graph as <prefix><n>.dot (Graphviz, with its
     * kernels' names, the libraries' included), to match a frame's graph with its plan */
    const char *dot = getenv("SAMRT_GRAPH_DOT");
    if (st == SAMRT_OK && dot && dot[0]) {
        static int n_dot = 0;  /* a debugging aid: numbered across the process */
        char path[512];
        snprintf(path, sizeof path, "%s%d.dot", dot, n_dot++);
        if (cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsKernelNodeParams) != cudaSuccess)
            (void)cudaGetLastError();
    }
    cudaGraphExec_t x = NULL;
    if (st == SAMRT_OK && cudaGraphInstantiate(&x, g, 0) != cudaSuccess) {
        SAMRT_LOG_ERROR("%s: cudaGraphInstantiate failed: %s", what, cudaGetErrorString(cudaGetLastError()));
        st = SAMRT_E_CUDA;
    }
    if (g) cudaGraphDestroy(g);
    if (st == SAMRT_OK) *out = (samrt_graph *)x;
    return st;
}

int samrt_stream_counting(void) {
    const char *env = getenv("SAMRT_COUNT_KERNELS");
    return env && env[0] == '1';
}

enum samrt_status samrt_stream_count_nodes(samrt_stream *s, samrt_stream_enqueue_fn enqueue, void *user,
                                           struct samrt_graph_nodes *out) {
    memset(out, 0, sizeof *out);
    if (!samrt_stream_counting()) return SAMRT_E_UNSUPPORTED;
    if (cudaStreamBeginCapture((cudaStream_t)s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        (void)cudaGetLastError();
        return SAMRT_E_CUDA;
    }
    const enum samrt_status st = enqueue(user, s);
    cudaGraph_t g = NULL;
    const cudaError_t ce = cudaStreamEndCapture((cudaStream_t)s, &g);
    if (st == SAMRT_OK && ce == cudaSuccess && g) count_nodes(g, out);
    if (g) cudaGraphDestroy(g);
    (void)cudaGetLastError();  /* a refused capture leaves no error behind */
    return st != SAMRT_OK ? st : ce != cudaSuccess || !g ? SAMRT_E_CUDA : SAMRT_OK;
}

enum samrt_status samrt_graph_launch(samrt_graph *g, samrt_stream *s) {
    SAMRT_CUDA_TRY(cudaGraphLaunch((cudaGraphExec_t)g, (cudaStream_t)s));
    return SAMRT_OK;
}

void samrt_graph_destroy(samrt_graph *g) {
    if (g) cudaGraphExecDestroy((cudaGraphExec_t)g);
}

/* ---- platform.h: SM shares (green contexts) ----------------------------------------------- */
/* The driver API's green-context calls, resolved through the runtime at the 12.4 ABI, so that
 * nothing links libcuda: the build still loads where no driver is installed, and a driver
 * without green contexts is a clear refusal instead of a missing symbol. */

#if CUDA_VERSION >= 12040

struct green_api {
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*get_resource)(CUdevice, CUdevResource *, CUdevResourceType);
    CUresult (*split)(CUdevResource *, unsigned *, const CUdevResource *, CUdevResource *, unsigned, unsigned);
    CUresult (*gen_desc)(CUdevResourceDesc *, CUdevResource *, unsigned);
    CUresult (*create)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned);
    CUresult (*destroy)(CUgreenCtx);
    CUresult (*from_green)(CUcontext *, CUgreenCtx);
    CUresult (*push)(CUcontext);
    CUresult (*pop)(CUcontext *);
    CUresult (*error_string)(CUresult, const char **);
};

static struct green_api g_api;
static int g_api_ok;
static char g_api_why[160];
static pthread_once_t g_api_once = PTHREAD_ONCE_INIT;

struct samrt_sm_share {
    atomic_int refs;        /* the engine and its sessions */
    pthread_mutex_t lock;   /* held from enter to leave: current to one thread at a time */
    CUgreenCtx green;
    CUcontext ctx;          /* cuCtxFromGreenCtx: what enter makes current */
    int sms;                /* granted */
};

/* One driver entry point at the 12.4 ABI; 0 when the driver has none. */
static int entry(const char *name, void **fn) {
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion(name, fn, 12040, cudaEnableDefault, &q);
#else
    const cudaError_t e = cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, &q);
#endif
    if (e != cudaSuccess) (void)cudaGetLastError();
    return e == cudaSuccess && q == cudaDriverEntryPointSuccess && *fn != NULL;
}

static void api_load(void) {
    int drv = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess || drv == 0) {
        (void)cudaGetLastError();
        snprintf(g_api_why, sizeof g_api_why, "no CUDA driver is loaded");
        return;
    }
    const struct {
        const char *name;
        void **fn;
    } t[] = {{"cuDeviceGet", (void **)&g_api.device_get},
             {"cuDeviceGetDevResource", (void **)&g_api.get_resource},
             {"cuDevSmResourceSplitByCount", (void **)&g_api.split},
             {"cuDevResourceGenerateDesc", (void **)&g_api.gen_desc},
             {"cuGreenCtxCreate", (void **)&g_api.create},
             {"cuGreenCtxDestroy", (void **)&g_api.destroy},
             {"cuCtxFromGreenCtx", (void **)&g_api.from_green},
             {"cuCtxPushCurrent", (void **)&g_api.push},
             {"cuCtxPopCurrent", (void **)&g_api.pop},
             {"cuGetErrorString", (void **)&g_api.error_string}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (!entry(t[i].name, t[i].fn)) {
            snprintf(g_api_why, sizeof g_api_why, "the CUDA driver %d.%d has no %s (green contexts need 12.4 or newer)",
                     drv / 1000, (drv % 1000) / 10, t[i].name);
            return;
        }
    }
    g_api_ok = 1;
}

/* The entry points, or NULL with the reason in why. */
static const struct green_api *green_api(char *why, size_t len) {
    pthread_once(&g_api_once, api_load);
    if (!g_api_ok) snprintf(why, len, "%s", g_api_why);
    return g_api_ok ? &g_api : NULL;
}

static const char *cu_err(CUresult r) {
    const char *m = NULL;
    if (!g_api.error_string || g_api.error_string(r, &m) != CUDA_SUCCESS || !m) return "unknown driver error";
    return m;
}

/* The smallest share and the granularity of shares on the device. */
static void share_sizes(int ordinal, const CUdevResource *all, int *min_sms, int *granularity) {
#if CUDA_VERSION >= 13000
    (void)ordinal;
    *min_sms = (int)all->sm.minSmPartitionSize;
    *granularity = (int)all->sm.smCoscheduledAlignment;
#else
    /* older headers do not carry them: the driver's guideline per architecture (cuda.h) */
    (void)all;
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal) != cudaSuccess)
        (void)cudaGetLastError();
    *min_sms = major >= 9 ? 8 : major == 8 ? 4 : 2;
    *granularity = major >= 9 ? 8 : 2;
#endif
}

/* The device's SM resource (*all) and a share of sm_limit SMs (*part; sm_limit 0: none).
 * 0 done; -1 the device refused the query, -2 sm_limit cannot be had: why says which. */
static int split_sms(const struct green_api *a, int ordinal, int sm_limit, CUdevice *dev, CUdevResource *all,
                     CUdevResource *part, char *why, size_t len) {
    memset(all, 0, sizeof *all);
    memset(part, 0, sizeof *part);
    CUresult r = a->device_get(dev, ordinal);
    if (r == CUDA_SUCCESS) r = a->get_resource(*dev, all, CU_DEV_RESOURCE_TYPE_SM);
    if (r != CUDA_SUCCESS) {
        snprintf(why, len, "device %d: cuDeviceGetDevResource: %s", ordinal, cu_err(r));
        return -1;
    }
    if (sm_limit <= 0) return 0;
    int min_sms = 0, gran = 0;
    share_sizes(ordinal, all, &min_sms, &gran);
    if ((unsigned)sm_limit > all->sm.smCount) {
        snprintf(why, len, "sm_limit %d: the device has %u SMs", sm_limit, all->sm.smCount);
        return -2;
    }
    unsigned nb = 1;
    CUdevResource rest;
    r = a->split(part, &nb, all, &rest, 0, (unsigned)sm_limit);
    if (r != CUDA_SUCCESS || nb != 1) {
        snprintf(why, len, "sm_limit %d: no share of the device's %u SMs has it (%s; shares are multiples of %d SMs, "
                 "at least %d)", sm_limit, all->sm.smCount, r == CUDA_SUCCESS ? "no group" : cu_err(r), gran, min_sms);
        return -2;
    }
    return 0;
}

enum samrt_status samrt_platform_sm_share_query(int ordinal, int sm_limit, struct samrt_sm_share_info *out) {
    memset(out, 0, sizeof *out);
    int n = 0;
    samrt_platform_device_count(&n);
    if (n == 0) {
        snprintf(out->why, sizeof out->why, "no CUDA device is visible");
        return SAMRT_OK;
    }
    if (ordinal < 0 || ordinal >= n) {
        snprintf(out->why, sizeof out->why, "device %d of %d", ordinal, n);
        return SAMRT_OK;
    }
    const struct green_api *a = green_api(out->why, sizeof out->why);
    if (!a) return SAMRT_OK;
    CUdevice dev;
    CUdevResource all, part;
    const int rc = split_sms(a, ordinal, sm_limit, &dev, &all, &part, out->why, sizeof out->why);
    if (rc == -1) return SAMRT_OK;
    out->available = 1;
    out->device_sms = (int)all.sm.smCount;
    share_sizes(ordinal, &all, &out->min_sms, &out->granularity);
    if (rc == 0 && sm_limit > 0) out->granted = (int)part.sm.smCount;
    return SAMRT_OK;
}

enum samrt_status samrt_platform_sm_share_open(int ordinal, int sm_limit, samrt_sm_share **out) {
    *out = NULL;
    char why[192] = "";
    const struct green_api *a = green_api(why, sizeof why);
    SAMRT_CHECK(a != NULL, SAMRT_E_UNSUPPORTED, "sm_limit %d: %s", sm_limit, why);
    SAMRT_CUDA_TRY(cudaSetDevice(ordinal));  /* the primary context first: the green context retains it */
    CUdevice dev;
    CUdevResource all, part;
    SAMRT_CHECK(split_sms(a, ordinal, sm_limit, &dev, &all, &part, why, sizeof why) == 0, SAMRT_E_UNSUPPORTED, "%s",
                why);
    struct samrt_sm_share *s = calloc(1, sizeof *s);  /* setup only */
    SAMRT_CHECK(s != NULL, SAMRT_E_HOST_MEMORY, "sm share: out of host memory");
    CUdevResourceDesc desc = NULL;
    CUresult r = a->gen_desc(&desc, &part, 1);
    if (r == CUDA_SUCCESS) r = a->create(&s->green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM);
    if (r == CUDA_SUCCESS && (r = a->from_green(&s->ctx, s->green)) != CUDA_SUCCESS) a->destroy(s->green);
    if (r != CUDA_SUCCESS) {
        free(s);
        SAMRT_LOG_ERROR("sm_limit %d: green context of %u SMs: %s", sm_limit, part.sm.smCount, cu_err(r));
        return r == CUDA_ERROR_NOT_SUPPORTED ? SAMRT_E_UNSUPPORTED : SAMRT_E_CUDA;
    }
    atomic_init(&s->refs, 1);
    pthread_mutex_init(&s->lock, NULL);
    s->sms = (int)part.sm.smCount;
    SAMRT_LOG_INFO("sm_limit %d: the engine runs in a green context of %d of the device's %u SMs", sm_limit, s->sms,
                   all.sm.smCount);
    *out = s;
    return SAMRT_OK;
}

samrt_sm_share *samrt_platform_sm_share_retain(samrt_sm_share *s) {
    if (s) atomic_fetch_add(&s->refs, 1);
    return s;
}

void samrt_platform_sm_share_release(samrt_sm_share *s) {
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
    const CUresult r = g_api.destroy(s->green);
    if (r != CUDA_SUCCESS) SAMRT_LOG_WARN("sm share: cuGreenCtxDestroy: %s", cu_err(r));
    pthread_mutex_destroy(&s->lock);
    free(s);
}

int samrt_platform_sm_share_sms(const samrt_sm_share *s) { return s ? s->sms : 0; }

enum samrt_status samrt_platform_sm_share_enter(samrt_sm_share *s) {
    if (!s) return SAMRT_OK;
    pthread_mutex_lock(&s->lock);
    const cudaError_t e = cudaDeviceSynchronize();  /* the legacy stream's pool zeroing and uploads */
    const CUresult r = e == cudaSuccess ? g_api.push(s->ctx) : CUDA_SUCCESS;
    if (e != cudaSuccess || r != CUDA_SUCCESS) {
        pthread_mutex_unlock(&s->lock);
        SAMRT_LOG_ERROR("sm share: %s", e != cudaSuccess ? cudaGetErrorString(e) : cu_err(r));
        (void)cudaGetLastError();
        return SAMRT_E_CUDA;
    }
    return SAMRT_OK;
}

enum samrt_status samrt_platform_sm_share_leave(samrt_sm_share *s) {
    if (!s) return SAMRT_OK;
    const cudaError_t e = cudaDeviceSynchronize();  /* what was queued inside */
    CUcontext popped = NULL;
    const CUresult r = g_api.pop(&popped);
    pthread_mutex_unlock(&s->lock);
    SAMRT_CHECK(e == cudaSuccess && r == CUDA_SUCCESS, SAMRT_E_CUDA, "sm share: %s",
                e != cudaSuccess ? cudaGetErrorString(e) : cu_err(r));
    return SAMRT_OK;
}

#else /* toolkits before 12.4 have no green contexts */

static void sm_share_none_why(char *why, size_t len) {
    snprintf(why, len, "built with CUDA %d.%d: green contexts need the 12.4 toolkit or newer", CUDA_VERSION / 1000,
             (CUDA_VERSION % 1000) / 10);
}

#include "sm_share_none.h"

#endif
