/* platform.h - the hooks a target supplies: device query, the three memory kinds, clocks,
 * peak RSS, NVTX ranges, library versions, SM shares (green contexts), and the platform
 * profiles (pool size, workspace caps, default precision). CMake links exactly one implementation file (host_cuda.c or
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
/* The calling thread's current CUDA context (a CUcontext; the runtime makes its primary one
 * current first when none is), for libraries that take a context rather than make one, such
 * as FFmpeg's cuda hwaccel; NULL in CPU builds or without a driver. */
void *samrt_platform_cuda_context(void);

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

/* ---- SM shares: an Orin-sized part of a large GPU (samrt_engine_params.sm_limit) ---------- */
/* A CUDA green context (CUDA 12.4+ driver API, resolved at run time: nothing links libcuda)
 * holding a share of the device's SMs; the engine's streams, library handles and events are
 * created inside it, so its kernels run on those SMs alone. Nothing on the device changes.
 * Host builds, toolkits before 12.4 and drivers without green contexts refuse with
 * SAMRT_E_UNSUPPORTED and the reason. */
typedef struct samrt_sm_share samrt_sm_share;

/* What device `ordinal` offers, and what a share of sm_limit SMs would get (sm_limit 0: the
 * device alone). SAMRT_OK whenever out is filled; `why` says what is missing. */
struct samrt_sm_share_info {
    int available;       /* 1: this build and driver make green contexts on the device */
    int device_sms;      /* the device's SMs */
    int min_sms;         /* the smallest share */
    int granularity;     /* shares are multiples of this many SMs */
    int granted;         /* SMs a share of sm_limit gets (rounded up); 0 when refused or sm_limit 0 */
    char why[192];       /* not available, or sm_limit refused: the reason; "" otherwise */
};
enum samrt_status samrt_platform_sm_share_query(int ordinal, int sm_limit, struct samrt_sm_share_info *out);
/* A green context of sm_limit SMs (rounded up to the granularity) on device ordinal; setup
 * only. The count granted is logged and returned by samrt_platform_sm_share_sms. */
enum samrt_status samrt_platform_sm_share_open(int ordinal, int sm_limit, samrt_sm_share **out);
/* Another owner (a session of the engine); returns s. */
samrt_sm_share *samrt_platform_sm_share_retain(samrt_sm_share *s);
/* The last owner destroys the green context: after every stream, handle and event made in it
 * is destroyed. NULL is fine. */
void samrt_platform_sm_share_release(samrt_sm_share *s);
/* SMs granted; 0 for NULL (the whole GPU). */
int samrt_platform_sm_share_sms(const samrt_sm_share *s);
/* Setup windows: enter waits for the device's earlier work on the calling thread's context
 * (the legacy stream's pool zeroing and weight uploads, which the share's streams do not
 * order after), then makes the green context current, so that the streams, library handles
 * and events created until leave belong to it. One thread at a time is inside (the green
 * context is current to one thread at most): another waits. Leave waits for the work queued
 * inside and restores the thread's previous context. NULL: nothing, SAMRT_OK. */
enum samrt_status samrt_platform_sm_share_enter(samrt_sm_share *s);
enum samrt_status samrt_platform_sm_share_leave(samrt_sm_share *s);

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
