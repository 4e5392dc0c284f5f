/* platform.h - the hooks a target supplies: device query, the three memory kinds, clocks,
 * peak RSS, NVTX ranges, library versions, and the platform profiles (pool size, workspace
 * caps, default precision). CMake links exactly one implementation file (host_cuda.c or
 * host_cpu.c); common.c holds what every target shares. Nothing else in the tree tests
 * for a platform with #ifdef. The structs these hooks fill (device info, library versions,
 * profiles) are public: samrt.h defines them, and the runtime's system.c forwards its
 * system calls here. */
#ifndef SAMRT_PLATFORM_H
#define SAMRT_PLATFORM_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 in CUDA builds (host_cuda.c), 0 in CPU-only ones (host_cpu.c). */
int samrt_platform_has_cuda(void);

/* Number of CUDA devices; 0 (and SAMRT_OK) on CPU builds or machines without a GPU. */
enum samrt_status samrt_platform_device_count(int *n);
/* SAMRT_E_NO_DEVICE when there is none. */
enum samrt_status samrt_platform_device_query(int ordinal, struct samrt_device_info *out);

/* The one pool of an engine. AUTO must be resolved first (samrt_platform_resolve_mem_kind).
 * Device and unified pools are 256-byte aligned by CUDA; host pools by aligned_alloc. */
enum samrt_status samrt_platform_mem_alloc(enum samrt_mem_kind kind, uint64_t bytes, void **out);
void samrt_platform_mem_free(enum samrt_mem_kind kind, void *p);
/* Synchronous copy of host bytes into a pool of the given kind (setup only: weight loading). */
enum samrt_status samrt_platform_mem_upload(enum samrt_mem_kind kind, void *dst, const void *src, uint64_t bytes);
/* AUTO -> UNIFIED on integrated GPUs, DEVICE on discrete ones, HOST without CUDA. */
enum samrt_mem_kind samrt_platform_resolve_mem_kind(enum samrt_mem_kind kind, int ordinal);

/* Library versions (struct samrt_lib_versions, samrt.h), 0 where a library is absent from
 * the build. (libjpeg and libpng are not libsamrt's: harness/image_io.h reports them.) */
void samrt_platform_lib_versions(struct samrt_lib_versions *out);

uint64_t samrt_platform_now_ns(void);           /* monotonic clock */
uint64_t samrt_platform_peak_rss_bytes(void);   /* VmHWM; 0 if unknown */
uint64_t samrt_platform_rss_bytes(void);        /* VmRSS; 0 if unknown */
/* Resets VmHWM to the current RSS (Linux: "5" into /proc/self/clear_refs), so a later
 * samrt_platform_peak_rss_bytes measures a part of the process alone. 1 done, 0 refused. */
int samrt_platform_peak_rss_reset(void);

/* NVTX ranges (compiled to nothing without CUDA or with SAMRT_NVTX=OFF). */
void samrt_nvtx_push(const char *name);
void samrt_nvtx_pop(void);

/* ---- platform profiles ------------------------------------------------------------------ */

/* The table of struct samrt_platform_profile (samrt.h). */
const struct samrt_platform_profile *samrt_platform_profiles(int *n);
/* NULL when the name is unknown. */
const struct samrt_platform_profile *samrt_platform_profile_find(const char *name);
/* Best match for a device (by integrated flag, memory and compute capability); "cpu" when
 * info is NULL. Never NULL. */
const struct samrt_platform_profile *samrt_platform_profile_detect(const struct samrt_device_info *info);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_PLATFORM_H */
