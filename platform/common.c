/* common.c - what every platform shares: the profile table, the monotonic clock and RSS from
 * /proc/self/status. (libjpeg and libpng are the harness's: harness/image_io.h reports them.)
 *
 * Profile numbers: pool_bytes is what the arena may take; reserve_bytes is kept for the
 * CUDA context (~300-600 MiB), cuDNN/cuBLAS handles and kernels, and on Jetson the OS and
 * the host side of the process, which share the same DRAM. Workspace caps are fixed per
 * profile so that a plan made without a GPU is exact (docs/memory.md). Every GPU profile runs
 * fp16 storage with f32 accumulation by default (docs/numerics.md, "Precision policy"): it
 * meets the parity bar, and a frame that overflows it fails with SAMRT_E_NUMERIC. */
#include "platform.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define MiB (1024ull * 1024ull)
#define GiB (1024ull * MiB)

/* The peaks (SM count, boost clock, dense fp16 tensor FLOP/s with f32 accumulation, DRAM
 * bandwidth) are the vendors' published figures, used only by projections (samrt budget):
 *   Orin Nano 8GB: 1024 CUDA cores = 8 SMs at 625 MHz, 68 GB/s LPDDR5; 40 sparse INT8 TOPS
 *     (NVIDIA Jetson Orin Nano series data sheet) -> about 10 dense fp16 TFLOP/s, i.e. 2048
 *     FLOP/clock/SM, the Ampere tensor-core rate the AGX figure confirms;
 *   Orin NX 16GB: 8 SMs at 918 MHz, 102.4 GB/s (Jetson Orin NX series data sheet) ->
 *     8 x 918 MHz x 2048 = 15.0 TFLOP/s;
 *   AGX Orin 64GB: 2048 CUDA cores = 16 SMs at 1.3 GHz, 204.8 GB/s (Jetson AGX Orin series
 *     data sheet) -> 42.6 TFLOP/s;
 *   RTX 3090: 82 SMs at 1695 MHz, 936 GB/s, 71 dense fp16 TFLOP/s with f32 accumulation
 *     (NVIDIA Ampere GA102 GPU architecture whitepaper, appendix A);
 *   A100 80GB SXM: 108 SMs at 1410 MHz, 2039 GB/s, 312 TFLOP/s (NVIDIA A100 data sheet);
 *   H100 SXM5 80GB: 132 SMs at 1980 MHz, 3350 GB/s, 989.4 TFLOP/s (NVIDIA H100 data sheet);
 *   H200 SXM 141GB: the H100's SMs and clocks, 4800 GB/s HBM3e (NVIDIA H200 data sheet).
 * launch_us, the time a kernel node of a graph costs beyond its roofline (launch, ramp and
 * tail), was fitted with the projection's rates (runtime/projection.h) on an H200; the same
 * value stands for every profile until a board measures its own (docs/jetson.md). */
#define LAUNCH_US 3.0

static const struct samrt_platform_profile g_profiles[] = {
    {"orin-nano-8gb", "Jetson Orin Nano 8GB (unified LPDDR5, sm_87)", 8 * GiB, 4 * GiB + 512 * MiB,
     3 * GiB, 4 * MiB, 32 * MiB, SAMRT_DTYPE_F16, SAMRT_MEM_UNIFIED, 8, 7, 8, 625, 10.2, 68.0, LAUNCH_US},
    {"orin-nx-16gb", "Jetson Orin NX 16GB (unified LPDDR5, sm_87)", 16 * GiB, 11 * GiB, 4 * GiB,
     32 * MiB, 128 * MiB, SAMRT_DTYPE_F16, SAMRT_MEM_UNIFIED, 8, 7, 8, 918, 15.0, 102.4, LAUNCH_US},
    {"agx-orin-64gb", "Jetson AGX Orin 64GB (unified LPDDR5, sm_87)", 64 * GiB, 48 * GiB, 8 * GiB,
     64 * MiB, 256 * MiB, SAMRT_DTYPE_F16, SAMRT_MEM_UNIFIED, 8, 7, 16, 1300, 42.6, 204.8, LAUNCH_US},
    {"rtx3090", "GeForce RTX 3090 24GB (sm_86)", 24 * GiB, 21 * GiB, 2 * GiB, 64 * MiB, 256 * MiB,
     SAMRT_DTYPE_F16, SAMRT_MEM_DEVICE, 8, 6, 82, 1695, 71.0, 936.0, LAUNCH_US},
    {"a100-80gb", "A100 80GB (sm_80)", 80 * GiB, 72 * GiB, 4 * GiB, 64 * MiB, 512 * MiB,
     SAMRT_DTYPE_F16, SAMRT_MEM_DEVICE, 8, 0, 108, 1410, 312.0, 2039.0, LAUNCH_US},
    {"h100-80gb", "H100 80GB (sm_90)", 80 * GiB, 72 * GiB, 4 * GiB, 64 * MiB, 512 * MiB,
     SAMRT_DTYPE_F16, SAMRT_MEM_DEVICE, 9, 0, 132, 1980, 989.4, 3350.0, LAUNCH_US},
    {"h200-141gb", "H200 141GB (sm_90)", 141 * GiB, 128 * GiB, 4 * GiB, 64 * MiB, 512 * MiB,
     SAMRT_DTYPE_F16, SAMRT_MEM_DEVICE, 9, 0, 132, 1980, 989.4, 4800.0, LAUNCH_US},
    {"cpu", "host memory, CPU reference kernels", 0, 16 * GiB, 0, 0, 0, SAMRT_DTYPE_F32,
     SAMRT_MEM_HOST, 0, 0, 0, 0, 0.0, 0.0, 0.0},
};

const struct samrt_platform_profile *samrt_platform_profiles(int *n) {
    if (n) *n = (int)SAMRT_ARRAY_LEN(g_profiles);
    return g_profiles;
}

const struct samrt_platform_profile *samrt_platform_profile_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(g_profiles); i++)
        if (!strcmp(g_profiles[i].name, name)) return &g_profiles[i];
    return NULL;
}

const struct samrt_platform_profile *samrt_platform_profile_detect(const struct samrt_device_info *info) {
    const struct samrt_platform_profile *cpu = samrt_platform_profile_find("cpu");
    if (!info) return cpu;
    const struct samrt_platform_profile *best = NULL;
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(g_profiles); i++) {
        const struct samrt_platform_profile *p = &g_profiles[i];
        if (p->mem_kind == SAMRT_MEM_HOST) continue;
        if ((p->mem_kind == SAMRT_MEM_UNIFIED) != (info->integrated != 0)) continue;
        if (p->cc_major != info->cc_major) continue;
        /* the largest profile whose memory the device has (to within 10%) */
        if (p->device_bytes > info->total_bytes + info->total_bytes / 10) continue;
        if (!best || p->device_bytes > best->device_bytes) best = p;
    }
    if (best) return best;
    /* unknown device: the smallest profile of its kind keeps the plan conservative */
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(g_profiles); i++) {
        const struct samrt_platform_profile *p = &g_profiles[i];
        if (p->mem_kind == SAMRT_MEM_HOST) continue;
        if ((p->mem_kind == SAMRT_MEM_UNIFIED) != (info->integrated != 0)) continue;
        if (!best || p->device_bytes < best->device_bytes) best = p;
    }
    return best ? best : cpu;
}

uint64_t samrt_platform_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t proc_status_kib(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    uint64_t v = 0;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, klen) && line[klen] == ':') {
            unsigned long long kib = 0;
            if (sscanf(line + klen + 1, "%llu", &kib) == 1) v = kib;
            break;
        }
    }
    fclose(f);
    return v * 1024ull;
}

uint64_t samrt_platform_peak_rss_bytes(void) { return proc_status_kib("VmHWM"); }
uint64_t samrt_platform_rss_bytes(void) { return proc_status_kib("VmRSS"); }

int samrt_platform_peak_rss_reset(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return 0;
    const int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}
