/* test_header_c.c - samrt.h must compile as plain C11 (no C++ may leak into the API), and
 * its name tables must agree with the enums. */
#include "samrt.h"

#include <string.h>

#include "check.h"

int main(void) {
    CHECK(strcmp(samrt_status_str(SAMRT_OK), "ok") == 0);
    CHECK(strcmp(samrt_status_str(SAMRT_E_ARENA_TOO_SMALL), "arena too small") == 0);
    CHECK(strcmp(samrt_status_str((enum samrt_status)999), "unknown status") == 0);
    CHECK(samrt_dtype_size(SAMRT_DTYPE_BF16) == 2);
    CHECK(samrt_dtype_size(SAMRT_DTYPE_F32) == 4);
    enum samrt_dtype d;
    CHECK_STATUS(samrt_dtype_parse("bf16", &d), SAMRT_OK);
    CHECK(d == SAMRT_DTYPE_BF16);
    CHECK_STATUS(samrt_dtype_parse("fp8", &d), SAMRT_E_INVALID_ARG);
    enum samrt_model_id m;
    CHECK_STATUS(samrt_model_parse("sam2.1_base_plus", &m), SAMRT_OK);
    CHECK(m == SAMRT_MODEL_SAM2_1_BASE_PLUS);
    CHECK_STATUS(samrt_model_parse("sam2_base", &m), SAMRT_OK);
    CHECK(m == SAMRT_MODEL_SAM2_BASE_PLUS);
    CHECK_STATUS(samrt_model_parse("sam3", &m), SAMRT_E_INVALID_ARG);
    for (int i = 0; i < SAMRT_MODEL_COUNT; i++) {
        enum samrt_model_id back;
        if (i == 0) continue;
        CHECK_STATUS(samrt_model_parse(samrt_model_name((enum samrt_model_id)i), &back), SAMRT_OK);
        CHECK(back == (enum samrt_model_id)i);
    }
    return check_report("test_header_c");
}
