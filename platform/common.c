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

static const struct samrt_platform_profile g_profiles[] = {
    {"orin-nano-8gb", "Jetson Orin Nano 8GB (unified LPDDR5, sm_87)", 8 * GiB, 4 * GiB + 512 * MiB,
     3 * GiB, 4 * MiB, 32 * MiB, SAMRT_DTYPE_F16, SAMRT_MEM_UNIFIED, 8, 7, 8},
    {"orin-nx-16gb", "Jetson Orin NX 16GB (unified LPDDR5, sm_87)", 16 * GiB, 11 * GiB, 4 * GiB,
     32 * MiB, 128 * MiB, SAMRT_DTYPE_F16, SAMRT_MEM_UNIFIED, 8, 7, 8},
    {"agx-orin-64gb", "Jetson AGX Orin 64GB (unified LPDDR5, sm_87)", 64 * GiB, 48 * GiB, 8 * GiB,
     64 * MiB, 256 * MiB, SAMRT_DTYPE_F16, SAMRT_MEM_UNIFIED, 8, 7, 16},
    {"rtx3090", "GeForce RTX 3090 24GB (sm_86)", 24 * GiB, 21 * GiB, 2 * GiB, 64 * MiB, 256 * MiB,
     SAMRT_DTYPE_F16, SAMRT_MEM_DEVICE, 8, 6, 82},
    {"a100-80gb", "A100 80GB (sm_80)", 80 * GiB, 72 * GiB, 4 * GiB, 64 * MiB, 512 * MiB,
     SAMRT_DTYPE_F16, SAMRT_MEM_DEVICE, 8, 0, 108},
    {"h100-80gb", "H100 80GB (sm_90)", 80 * GiB, 72 * GiB, 4 * GiB, 64 * MiB, 512 * MiB,
     SAMRT_DTYPE_F16, SAMRT_MEM_DEVICE, 9, 0, 132},
    {"cpu", "host memory, CPU reference kernels", 0, 16 * GiB, 0, 0, 0, SAMRT_DTYPE_F32,
     SAMRT_MEM_HOST, 0, 0, 0},
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
