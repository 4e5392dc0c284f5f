/* smallops_cuda.h - shared plumbing of the small-op GPU tests (test_<op>_cuda.c): device
 * buffers poisoned with NaN bytes, upload/download of dtype storage, the reference-vs-GPU
 * comparison, and the --bench timer (warm-up, L2 flush before every rep, CUDA events,
 * median), which prints one line per case:
 *   BENCH op=<name> shape=<...> dtype=<..> ms=<median> GBps=<bytes moved / median>
 * Header-only; include after check.h and test_util.h, in CUDA builds only. */
#ifndef SAMRT_TEST_SMALLOPS_CUDA_H
#define SAMRT_TEST_SMALLOPS_CUDA_H

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "samrt.h"
#include "test_util.h"

#define SC_BENCH_WARMUP 3
#define SC_BENCH_REPS 25

/* Aborts the test on a CUDA error: nothing after it could be trusted. */
#define SC_CUDA(call)                                                                      \
    do {                                                                                   \
        cudaError_t sc_e_ = (call);                                                        \
        if (sc_e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(sc_e_));                                            \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static inline int sc_has_flag(int argc, char **argv, const char *flag) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], flag) == 0) return 1;
    return 0;
}

/* Every buffer a case allocates is recorded here and released by sc_free_all(). */
#define SC_MAX_ALLOCS 256
static void *sc_host_bufs[SC_MAX_ALLOCS], *sc_dev_bufs[SC_MAX_ALLOCS];
static int sc_n_host, sc_n_dev;

static inline void *sc_host_alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p || sc_n_host == SC_MAX_ALLOCS) { fprintf(stderr, "host allocation failed\n"); exit(1); }
    return sc_host_bufs[sc_n_host++] = p;
}

static inline void *sc_host_copy(const void *src, size_t bytes) {
    return memcpy(sc_host_alloc(bytes), src, bytes);
}

/* A device buffer of `bytes` starting `off` bytes into its allocation (off = one element
 * makes the pointer unaligned for packed loads). It holds a copy of host, or, when host is
 * NULL, 0xff bytes: NaN in f32, f16 and bf16, so an element a kernel forgets to write
 * fails the comparison. */
static inline void *sc_dev_at(const void *host, size_t bytes, size_t off) {
    char *d = NULL;
    if (sc_n_dev == SC_MAX_ALLOCS) { fprintf(stderr, "too many device buffers\n"); exit(1); }
    SC_CUDA(cudaMalloc((void **)&d, bytes + off + 1));
    sc_dev_bufs[sc_n_dev++] = d;
    SC_CUDA(cudaMemset(d, 0xff, bytes + off + 1));
    if (host) SC_CUDA(cudaMemcpy(d + off, host, bytes, cudaMemcpyHostToDevice));
    return d + off;
}

static inline void sc_free_all(void) {
    while (sc_n_host) free(sc_host_bufs[--sc_n_host]);
    while (sc_n_dev) SC_CUDA(cudaFree(sc_dev_bufs[--sc_n_dev]));
}

/* n seeded uniform values in [lo, hi), stored as dtype in a host buffer (sc_free_all). */
static inline void *sc_host_random(enum samrt_dtype dt, long n, uint64_t seed, float lo, float hi) {
    float *v = (float *)malloc(sizeof(float) * (size_t)(n ? n : 1));
    if (!v) { fprintf(stderr, "host allocation failed\n"); exit(1); }
    tu_fill_uniform(v, n, seed, lo, hi);
    void *h = sc_host_alloc(samrt_dtype_size(dt) * (size_t)n);
    tu_store(dt, h, v, n);
    free(v);
    return h;
}

/* Downloads n dtype elements from d and compares them with the dtype storage ref_host. */
static inline int sc_compare(const char *what, enum samrt_dtype dt, const void *d, const void *ref_host, long n,
                             double atol, double rtol) {
    void *h = malloc(samrt_dtype_size(dt) * (size_t)n + 1);
    float *got = (float *)malloc(sizeof(float) * (size_t)n + 1);
    float *want = (float *)malloc(sizeof(float) * (size_t)n + 1);
    if (!h || !got || !want) { fprintf(stderr, "host allocation failed\n"); exit(1); }
    SC_CUDA(cudaMemcpy(h, d, samrt_dtype_size(dt) * (size_t)n, cudaMemcpyDeviceToHost));
    tu_load(dt, got, h, n);
    tu_load(dt, want, ref_host, n);
    char name[160];
    snprintf(name, sizeof name, "%s [%s]", what, samrt_dtype_name(dt));
    int bad = check_close_f32(name, got, want, n, atol, rtol);
    free(h);
    free(got);
    free(want);
    return bad;
}

/* One launch of the op under test (for sc_bench); returns its status. */
typedef enum samrt_status (*sc_launch_fn)(void *ctx, cudaStream_t stream);

static inline int sc_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median time of fn over SC_BENCH_REPS reps, each after an L2 flush (a memset of twice
 * the L2 size), then prints the BENCH line. bytes = bytes the op must move. */
static inline void sc_bench(const char *op, const char *shape, enum samrt_dtype dt, double bytes, sc_launch_fn fn,
                            void *ctx) {
    int dev = 0, l2 = 0;
    SC_CUDA(cudaGetDevice(&dev));
    SC_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    size_t flush_bytes = (size_t)(l2 > 0 ? l2 : (8 << 20)) * 2;
    void *flush = NULL;
    SC_CUDA(cudaMalloc(&flush, flush_bytes));
    cudaStream_t s;
    cudaEvent_t e0, e1;
    SC_CUDA(cudaStreamCreate(&s));
    SC_CUDA(cudaEventCreate(&e0));
    SC_CUDA(cudaEventCreate(&e1));
    for (int i = 0; i < SC_BENCH_WARMUP; i++) CHECK_STATUS(fn(ctx, s), SAMRT_OK);
    double ms[SC_BENCH_REPS];
    for (int i = 0; i < SC_BENCH_REPS; i++) {
        SC_CUDA(cudaMemsetAsync(flush, i & 0xff, flush_bytes, s));
        SC_CUDA(cudaEventRecord(e0, s));
        CHECK_STATUS(fn(ctx, s), SAMRT_OK);
        SC_CUDA(cudaEventRecord(e1, s));
        SC_CUDA(cudaEventSynchronize(e1));
        float t = 0;
        SC_CUDA(cudaEventElapsedTime(&t, e0, e1));
        ms[i] = t;
    }
    qsort(ms, SC_BENCH_REPS, sizeof(double), sc_cmp_double);
    const double med = ms[SC_BENCH_REPS / 2];
    printf("BENCH op=%s shape=%s dtype=%s ms=%.4f GBps=%.1f\n", op, shape, samrt_dtype_name(dt), med,
           med > 0 ? bytes / (med * 1e6) : 0.0);
    SC_CUDA(cudaEventDestroy(e0));
    SC_CUDA(cudaEventDestroy(e1));
    SC_CUDA(cudaStreamDestroy(s));
    SC_CUDA(cudaFree(flush));
}

/* One launch of fn captured into a graph on a new non-blocking stream (thread-local capture
 * mode), for the graph-replay tests: replay with cudaGraphLaunch(gr.exec, gr.s), then
 * sc_graph_free. */
struct sc_graph {
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t exec;
};

static inline void sc_graph_capture(struct sc_graph *gr, sc_launch_fn fn, void *ctx) {
    SC_CUDA(cudaStreamCreateWithFlags(&gr->s, cudaStreamNonBlocking));
    SC_CUDA(cudaStreamBeginCapture(gr->s, cudaStreamCaptureModeThreadLocal));
    CHECK_STATUS(fn(ctx, gr->s), SAMRT_OK);
    SC_CUDA(cudaStreamEndCapture(gr->s, &gr->g));
    SC_CUDA(cudaGraphInstantiate(&gr->exec, gr->g, 0));
}

static inline void sc_graph_free(struct sc_graph *gr) {
    SC_CUDA(cudaGraphExecDestroy(gr->exec));
    SC_CUDA(cudaGraphDestroy(gr->g));
    SC_CUDA(cudaStreamDestroy(gr->s));
}

static const enum samrt_dtype sc_dtypes[3] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F16, SAMRT_DTYPE_BF16};

/* Start of every GPU test: 1 when a device is usable, else prints the skip reason. */
static inline int sc_gpu_or_skip(const char *name, int *rc) {
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) {
        *rc = check_skip(name, why);
        return 0;
    }
    return 1;
}

#endif /* SAMRT_TEST_SMALLOPS_CUDA_H */
