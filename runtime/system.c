/* system.c - the bodies of samrt.h's system calls: which backend the library was built with,
 * the devices, the linked library versions and the platform profiles. Each forwards to the
 * platform layer's hook (platform.h), which is the one place that knows the target, so that
 * the program and users' code learn all of it through samrt.h alone. */
#include "platform.h"

int samrt_has_cuda(void) { return samrt_platform_has_cuda(); }

enum samrt_status samrt_device_count(int *n) {
    SAMRT_CHECK(n, SAMRT_E_INVALID_ARG, "device_count: n is NULL");
    return samrt_platform_device_count(n);
}

enum samrt_status samrt_device_query(int ordinal, struct samrt_device_info *out) {
    SAMRT_CHECK(out, SAMRT_E_INVALID_ARG, "device_query: out is NULL");
    return samrt_platform_device_query(ordinal, out);
}

void samrt_library_versions(struct samrt_lib_versions *out) {
    if (out) samrt_platform_lib_versions(out);
}

const struct samrt_platform_profile *samrt_platform_profile_list(int *n) { return samrt_platform_profiles(n); }

const struct samrt_platform_profile *samrt_platform_profile_by_name(const char *name) {
    return samrt_platform_profile_find(name);
}

const struct samrt_platform_profile *samrt_platform_profile_for_device(const struct samrt_device_info *device) {
    return samrt_platform_profile_detect(device);
}
