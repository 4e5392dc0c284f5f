/* host_cpu.c - the platform for CPU-only builds (SAMRT_CUDA=OFF): host memory pools, no
 * devices, NVTX compiled out. */
#include "platform.h"

#include <stdlib.h>
#include <string.h>

void samrt_platform_host_lib_versions(struct samrt_lib_versions *out);

enum samrt_status samrt_platform_device_count(int *n) {
    *n = 0;
    return SAMRT_OK;
}

enum samrt_status samrt_platform_device_query(int ordinal, struct samrt_device_info *out) {
    (void)ordinal;
    memset(out, 0, sizeof *out);
    return SAMRT_E_NO_DEVICE;
}

enum samrt_mem_kind samrt_platform_resolve_mem_kind(enum samrt_mem_kind kind, int ordinal) {
    (void)kind; (void)ordinal;
    return SAMRT_MEM_HOST;
}

enum samrt_status samrt_platform_mem_alloc(enum samrt_mem_kind kind, uint64_t bytes, void **out) {
    *out = NULL;
    SAMRT_CHECK(kind == SAMRT_MEM_HOST, SAMRT_E_NO_DEVICE,
                "memory kind '%s' needs a CUDA build; this build is CPU-only", samrt_mem_kind_name(kind));
    if (bytes == 0) return SAMRT_OK;
    void *p = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(bytes, SAMRT_ALIGN));
    SAMRT_CHECK(p != NULL, SAMRT_E_HOST_MEMORY, "host pool of %llu bytes: allocation failed",
                (unsigned long long)bytes);
    memset(p, 0, bytes);  /* scratch starts zeroed, as on the GPU platforms */
    *out = p;
    return SAMRT_OK;
}

void samrt_platform_mem_free(enum samrt_mem_kind kind, void *p) {
    (void)kind;
    free(p);
}

enum samrt_status samrt_platform_mem_upload(enum samrt_mem_kind kind, void *dst, const void *src, uint64_t bytes) {
    SAMRT_CHECK(kind == SAMRT_MEM_HOST, SAMRT_E_NO_DEVICE, "upload to a %s pool needs a CUDA build",
                samrt_mem_kind_name(kind));
    memcpy(dst, src, bytes);
    return SAMRT_OK;
}

void samrt_platform_lib_versions(struct samrt_lib_versions *out) {
    memset(out, 0, sizeof *out);
    samrt_platform_host_lib_versions(out);
}

void samrt_nvtx_push(const char *name) { (void)name; }
void samrt_nvtx_pop(void) {}
