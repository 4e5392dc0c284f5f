/* test_system.c - samrt.h's system calls from the outside (samrt.h alone): the build's
 * backend, the device count and query, the library versions and the platform profiles. On a
 * machine without a GPU, and always in a CPU-only build, there are 0 devices with SAMRT_OK
 * and a query says SAMRT_E_NO_DEVICE; with GPUs each one answers. Runs everywhere (cpu). */
#include "samrt.h"

#include <string.h>

#include "check.h"

static void check_devices(int cuda) {
    int n = -1;
    CHECK_STATUS(samrt_device_count(&n), SAMRT_OK);
    CHECK(n >= 0);
    if (!cuda) CHECK_EQ_INT(n, 0);
    CHECK_STATUS(samrt_device_count(NULL), SAMRT_E_INVALID_ARG);
    struct samrt_device_info d;
    CHECK_STATUS(samrt_device_query(0, NULL), SAMRT_E_INVALID_ARG);
    if (n == 0) {
        memset(&d, 0x5a, sizeof d);
        CHECK_STATUS(samrt_device_query(0, &d), SAMRT_E_NO_DEVICE);
        CHECK(d.name[0] == 0 && d.total_bytes == 0 && d.cc_major == 0);
        printf("test_system: no device visible (%s build)\n", cuda ? "CUDA" : "CPU-only");
        return;
    }
    for (int i = 0; i < n; i++) {
        CHECK_STATUS(samrt_device_query(i, &d), SAMRT_OK);
        CHECK(d.ordinal == i && d.name[0] != 0 && d.cc_major > 0 && d.sm_count > 0);
        CHECK(d.total_bytes > 0 && d.free_bytes <= d.total_bytes);
        const struct samrt_platform_profile *p = samrt_platform_profile_for_device(&d);
        CHECK(p != NULL && p->mem_kind != SAMRT_MEM_HOST);
        printf("test_system: [%d] %s, sm_%d%d, profile %s\n", i, d.name, d.cc_major, d.cc_minor, p ? p->name : "?");
    }
    CHECK_STATUS(samrt_device_query(n, &d), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_device_query(-1, &d), SAMRT_E_INVALID_ARG);
}

static void check_versions(int cuda) {
    struct samrt_lib_versions v;
    memset(&v, 0x5a, sizeof v);
    samrt_library_versions(&v);
    if (cuda) {
        CHECK(v.cuda_runtime > 0 && v.cudnn > 0 && v.cublaslt > 0);
        CHECK(v.cuda_driver >= 0);
    } else {
        CHECK(v.cuda_driver == 0 && v.cuda_runtime == 0 && v.cudnn == 0 && v.cublaslt == 0);
    }
    samrt_library_versions(NULL);  /* ignored */
}

static void check_profiles(void) {
    int n = 0;
    const struct samrt_platform_profile *all = samrt_platform_profile_list(&n);
    CHECK(all != NULL && n > 0);
    CHECK(samrt_platform_profile_list(NULL) == all);
    int have_cpu = 0;
    for (int i = 0; all && i < n; i++) {
        CHECK(all[i].name && all[i].description && all[i].pool_bytes > 0);
        CHECK(samrt_platform_profile_by_name(all[i].name) == &all[i]);
        have_cpu |= !strcmp(all[i].name, "cpu");
    }
    CHECK(have_cpu);
    CHECK(samrt_platform_profile_by_name("no-such-profile") == NULL);
    CHECK(samrt_platform_profile_by_name(NULL) == NULL);
    const struct samrt_platform_profile *cpu = samrt_platform_profile_for_device(NULL);
    CHECK(cpu != NULL && !strcmp(cpu->name, "cpu") && cpu->mem_kind == SAMRT_MEM_HOST);
    /* an H100 that is not there: the detection is arithmetic on the struct */
    struct samrt_device_info h100 = {.cc_major = 9, .total_bytes = 79ull << 30};
    CHECK(!strcmp(samrt_platform_profile_for_device(&h100)->name, "h100-80gb"));
    /* every profile plans an engine by name (what samrt_engine_params.platform selects) */
    for (int i = 0; all && i < n; i++) {
        struct samrt_engine_params p = samrt_engine_default_params();
        p.platform = all[i].name;
        p.precision = SAMRT_DTYPE_F32;
        samrt_engine_t e = NULL;
        CHECK_STATUS(samrt_engine_init_plan_only(SAMRT_MODEL_SAM2_1_TINY, &p, &e), SAMRT_OK);
        struct samrt_memory_report m;
        if (e) CHECK_STATUS(samrt_engine_memory(e, &m), SAMRT_OK);
        if (e) CHECK(m.pool_capacity_bytes == all[i].pool_bytes);
        samrt_engine_free(e);
    }
}

int main(void) {
    const int cuda = samrt_has_cuda();
    CHECK(cuda == 0 || cuda == 1);
    check_devices(cuda);
    check_versions(cuda);
    check_profiles();
    return check_report("test_system");
}
