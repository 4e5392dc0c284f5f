/* ceilings.c - measures the two ceilings a roofline of this GPU needs, once:
 *   copy_GBps   a large device-to-device cudaMemcpyAsync, counted as bytes read + written
 *               over time (the practical DRAM bandwidth, below the data-sheet number);
 *   bf16_TFLOPs an n^3 bf16 matmul (f32 accumulate, bf16 out) through the runtime's own
 *               cuBLASLt plan (kernels/gemm.h), 2*n^3 / time.
 * Both are medians of CUDA-event-timed repeats after a warm-up. The copy buffers default to
 * 1 GiB each but shrink to an eighth of free memory each, so the tool also runs on an 8 GB
 * Jetson, where CPU and GPU share DRAM. The last line is machine-readable:
 *   CEILING copy_GBps=<float> bf16_TFLOPs=<float>
 *
 * Run: build/<preset>/kernels/dev/samrt_ceilings [--device N] [--copy-mib M] [--n N]
 *      [--reps R] [--ws-mib W] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/bench.h"
#include "gemm.h"
#include "half.h"

struct copy_arg { void *dst; const void *src; size_t bytes; };
struct gemm_arg { const struct samrt_gemm_plan *plan; void *x, *w, *y, *ws; size_t ws_bytes; };

static enum samrt_status run_copy(void *p, cudaStream_t s) {
    const struct copy_arg *a = p;
    return cudaMemcpyAsync(a->dst, a->src, a->bytes, cudaMemcpyDeviceToDevice, s) == cudaSuccess ? SAMRT_OK
                                                                                             : SAMRT_E_CUDA;
}

static enum samrt_status run_gemm(void *p, cudaStream_t s) {
    const struct gemm_arg *a = p;
    return samrt_gemm_cuda(a->plan, a->x, a->w, NULL, NULL, a->y, a->ws, a->ws_bytes, s);
}

/* Uniform [-1, 1) bf16 values: real data keeps the tensor cores' power (and clocks) honest,
 * where zeros would flatter them. */
static int fill_bf16(void *dev, size_t n, uint64_t seed) {
    uint16_t *h = malloc(n * sizeof *h);
    if (!h) return -1;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        h[i] = samrt_f32_to_bf16((float)(s >> 40) * (2.0f / 16777216.0f) - 1.0f);
    }
    const int rc = cudaMemcpy(dev, h, n * sizeof *h, cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
    free(h);
    return rc;
}

int main(int argc, char **argv) {
    int device = 0, reps = 20, n = 8192;
    size_t copy_mib = 1024, ws_mib = 32;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--device") && v) device = atoi(v), i++;
        else if (!strcmp(argv[i], "--copy-mib") && v) copy_mib = (size_t)atol(v), i++;
        else if (!strcmp(argv[i], "--n") && v) n = atoi(v), i++;
        else if (!strcmp(argv[i], "--reps") && v) reps = atoi(v), i++;
        else if (!strcmp(argv[i], "--ws-mib") && v) ws_mib = (size_t)atol(v), i++;
        else {
            fprintf(stderr, "usage: %s [--device N] [--copy-mib M] [--n N] [--reps R] [--ws-mib W]\n",
                    argv[0]);
            return 2;
        }
    }
    if (n < 64 || copy_mib < 1 || reps < 1) {
        fprintf(stderr, "ceilings: --n >= 64, --copy-mib >= 1, --reps >= 1\n");
        return 2;
    }
    struct samrt_gpu_ctx ctx;
    if (samrt_gpu_ctx_init(device, &ctx) != SAMRT_OK) return 1;
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, device);
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    struct samrt_bench bench;
    int rc = 1;
    if (samrt_bench_init(&bench, 0) != 0) goto out_ctx;

    /* ---- copy ---- */
    size_t bytes = copy_mib << 20;
    if (bytes > free_b / 8) bytes = (free_b / 8) & ~(size_t)0xfffff;
    struct copy_arg ca = {NULL, NULL, bytes};
    if (cudaMalloc(&ca.dst, bytes) != cudaSuccess || cudaMalloc((void **)&ca.src, bytes) != cudaSuccess ||
        cudaMemset((void *)ca.src, 1, bytes) != cudaSuccess) {
        fprintf(stderr, "ceilings: cannot allocate 2 x %zu MiB for the copy\n", bytes >> 20);
        goto out_bench;
    }
    const double copy_ms = samrt_bench_median_ms(&bench, run_copy, &ca, stream, 3, reps);
    cudaFree(ca.dst);
    cudaFree((void *)ca.src);
    if (copy_ms <= 0) { fprintf(stderr, "ceilings: copy failed\n"); goto out_bench; }
    const double copy_gbps = 2.0 * (double)bytes / (copy_ms * 1e-3) / 1e9;

    /* ---- bf16 matmul ---- */
    const size_t nn = (size_t)n * n;
    const struct samrt_gemm_desc d = samrt_gemm_desc_make(n, n, n, SAMRT_DTYPE_BF16, SAMRT_DTYPE_BF16,
                                                          SAMRT_EPILOGUE_NONE);
    struct samrt_gemm_plan plan;
    struct gemm_arg ga = {&plan, NULL, NULL, NULL, NULL, ws_mib << 20};
    if (samrt_gemm_plan_init(&ctx, &d, ga.ws_bytes, &plan) != SAMRT_OK) goto out_bench;
    if (cudaMalloc(&ga.x, nn * 2) != cudaSuccess || cudaMalloc(&ga.w, nn * 2) != cudaSuccess ||
        cudaMalloc(&ga.y, nn * 2) != cudaSuccess ||
        (ga.ws_bytes && cudaMalloc(&ga.ws, ga.ws_bytes) != cudaSuccess) || fill_bf16(ga.x, nn, 1) ||
        fill_bf16(ga.w, nn, 2)) {
        fprintf(stderr, "ceilings: cannot set up the %d^3 matmul\n", n);
        goto out_gemm;
    }
    const double gemm_ms = samrt_bench_median_ms(&bench, run_gemm, &ga, stream, 3, reps);
    if (gemm_ms <= 0) { fprintf(stderr, "ceilings: matmul failed\n"); goto out_gemm; }
    const double tflops = samrt_gemm_flops(&d) / (gemm_ms * 1e-3) / 1e12;

    printf("device: %s (sm_%d%d, %d SMs, %.1f GiB)\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, (double)total_b / (1 << 30));
    printf("copy: 2 x %zu MiB, median %.3f ms of %d -> %.1f GB/s (read + write)\n", bytes >> 20, copy_ms,
           reps, copy_gbps);
    printf("matmul: bf16 %d^3, workspace %zu bytes (cap %zu MiB), median %.3f ms of %d -> %.1f TFLOP/s\n", n,
           plan.ws_bytes, ws_mib, gemm_ms, reps, tflops);
    printf("CEILING copy_GBps=%.1f bf16_TFLOPs=%.1f\n", copy_gbps, tflops);
    rc = 0;
out_gemm:
    cudaFree(ga.x); cudaFree(ga.w); cudaFree(ga.y); cudaFree(ga.ws);
    samrt_gemm_plan_free(&plan);
out_bench:
    samrt_bench_free(&bench);
out_ctx:
    cudaStreamDestroy(stream);
    samrt_gpu_ctx_free(&ctx);
    return rc;
}
