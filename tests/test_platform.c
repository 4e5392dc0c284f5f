/* test_platform.c - the platform layer without a GPU: profiles exist and are coherent, the
 * clock is monotonic, VmHWM is read and can be reset, host pools are aligned and zeroed. */
#include "platform.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(void) {
    static const char *const required[] = {"orin-nano-8gb", "orin-nx-16gb", "agx-orin-64gb",
                                           "rtx3090", "a100-80gb", "h100-80gb", "h200-141gb", "cpu"};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(required); i++) {
        const struct samrt_platform_profile *p = samrt_platform_profile_find(required[i]);
        CHECK_MSG(p != NULL, "profile %s missing", required[i]);
        if (!p) continue;
        if (p->mem_kind != SAMRT_MEM_HOST)
            CHECK_MSG(p->pool_bytes + p->reserve_bytes <= p->device_bytes, "%s pool+reserve > device", p->name);
        CHECK(p->cublaslt_ws_bytes % SAMRT_ALIGN == 0 && p->cudnn_ws_bytes % SAMRT_ALIGN == 0);
        /* the published peaks of every GPU profile (projections): FLOP/s = SMs x clock x rate */
        if (p->mem_kind != SAMRT_MEM_HOST) {
            CHECK_MSG(p->sm_count > 0 && p->clock_mhz > 0 && p->dram_gbps > 0 && p->launch_us > 0, "%s peaks", p->name);
            const double per_sm_clock = p->fp16_tflops * 1e12 / ((double)p->sm_count * p->clock_mhz * 1e6);
            CHECK_MSG(per_sm_clock > 400 && per_sm_clock < 4200, "%s: %.0f FLOP per SM per clock", p->name, per_sm_clock);
        }
    }
    CHECK(samrt_platform_profile_find("nope") == NULL);
    CHECK(samrt_platform_profile_find("orin-nano-8gb")->mem_kind == SAMRT_MEM_UNIFIED);
    CHECK(samrt_platform_profile_find("orin-nano-8gb")->precision == SAMRT_DTYPE_F16);
    struct samrt_device_info orin = {.integrated = 1, .cc_major = 8, .cc_minor = 7,
                                     .total_bytes = 7800ull << 20};
    CHECK(strcmp(samrt_platform_profile_detect(&orin)->name, "orin-nano-8gb") == 0);
    struct samrt_device_info h100 = {.integrated = 0, .cc_major = 9, .total_bytes = 79ull << 30};
    CHECK(strcmp(samrt_platform_profile_detect(&h100)->name, "h100-80gb") == 0);
    struct samrt_device_info h200 = {.integrated = 0, .cc_major = 9, .total_bytes = 140ull << 30};
    CHECK(strcmp(samrt_platform_profile_detect(&h200)->name, "h200-141gb") == 0);
    CHECK(strcmp(samrt_platform_profile_detect(NULL)->name, "cpu") == 0);

    uint64_t t0 = samrt_platform_now_ns(), t1 = samrt_platform_now_ns();
    CHECK(t1 >= t0);
    CHECK(samrt_platform_peak_rss_bytes() > 0);
    CHECK(samrt_platform_rss_bytes() > 0);

    /* peak RSS reset: touch 96 MiB (an mmap'd block, given back by free), then the peak is
     * at least 64 MiB above the current RSS until it is reset */
    {
        const size_t big = (size_t)96 << 20;
        unsigned char *b = malloc(big);
        CHECK(b != NULL);
        if (b) {
            for (size_t i = 0; i < big; i += 4096) b[i] = (unsigned char)i;
            free(b);
        }
        const uint64_t hwm = samrt_platform_peak_rss_bytes(), rss = samrt_platform_rss_bytes();
        CHECK_MSG(hwm >= rss + ((uint64_t)64 << 20), "peak %llu, rss %llu", (unsigned long long)hwm,
                  (unsigned long long)rss);
        if (samrt_platform_peak_rss_reset()) {
            const uint64_t after = samrt_platform_peak_rss_bytes();
            CHECK_MSG(after + ((uint64_t)64 << 20) <= hwm, "peak %llu after the reset, %llu before",
                      (unsigned long long)after, (unsigned long long)hwm);
        } else {
            printf("test_platform: this kernel refuses the peak RSS reset (/proc/self/clear_refs): "
                   "checked that the peak is unchanged instead\n");
            CHECK(samrt_platform_peak_rss_bytes() >= hwm);
        }
    }

    void *p = NULL;
    CHECK_STATUS(samrt_platform_mem_alloc(SAMRT_MEM_HOST, 1000, &p), SAMRT_OK);
    CHECK(p && ((uintptr_t)p % SAMRT_ALIGN) == 0);
    if (p) CHECK(((unsigned char *)p)[999] == 0);
    samrt_platform_mem_free(SAMRT_MEM_HOST, p);

    struct samrt_lib_versions v;
    samrt_platform_lib_versions(&v);  /* libjpeg / libpng: test_image_io (harness/image_io.h) */
    return check_report("test_platform");
}
