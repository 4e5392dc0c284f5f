/* test_copy.c - the copy reference (kernels/copy.h) on hand-checkable cases: an NCHW -> NHWC
 * permute, a broadcast through a zero stride (the nearest x2 of the FPN), casts with their
 * exact roundings, the add after the cast, and argument checks. */
#include <math.h>

#include "check.h"
#include "copy.h"
#include "half.h"

int main(void) {
    /* (1, C=2, H=2, W=3) NCHW -> (1, H, W, C) */
    const float nchw[12] = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
    float out[12];
    struct samrt_copy_args a = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, {1, 2, 3, 2}, {12, 3, 1, 6}, nchw, NULL, out};
    CHECK_STATUS(samrt_copy_ref(&a), SAMRT_OK);
    const float nhwc[12] = {0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15};
    for (int i = 0; i < 12; i++) CHECK_NEAR(out[i], nhwc[i], 0);

    /* columns duplicated through a zero stride: (2 rows, 2 cols, x2, 1 ch) */
    const float m[4] = {1, 2, 3, 4};
    float up[8];
    struct samrt_copy_args b = {SAMRT_DTYPE_F32, SAMRT_DTYPE_F32, {2, 2, 2, 1}, {2, 1, 0, 1}, m, NULL, up};
    CHECK_STATUS(samrt_copy_ref(&b), SAMRT_OK);
    const float want_up[8] = {1, 1, 2, 2, 3, 3, 4, 4};
    for (int i = 0; i < 8; i++) CHECK_NEAR(up[i], want_up[i], 0);

    /* f32 -> bf16: 1 + 2^-8 is a tie and rounds to even (1.0); 1 + 3*2^-8 rounds up */
    const float v[2] = {1.0f + 1.0f / 256, 1.0f + 3.0f / 256};
    uint16_t bf[2];
    struct samrt_copy_args c = {SAMRT_DTYPE_F32, SAMRT_DTYPE_BF16, {1, 1, 1, 2}, {0, 0, 0, 1}, v, NULL, bf};
    CHECK_STATUS(samrt_copy_ref(&c), SAMRT_OK);
    CHECK_NEAR(samrt_bf16_to_f32(bf[0]), 1.0, 0);
    CHECK_NEAR(samrt_bf16_to_f32(bf[1]), 1.0 + 4.0 / 256, 0);

    /* the add follows the cast: bf16(1 + 1/256) = 1, + 1/128 = 1 + 1/128 exactly; without
     * the intermediate rounding the sum 1 + 3/256 would be a tie and round to 1 + 1/64 */
    const uint16_t add[2] = {samrt_f32_to_bf16(1.0f / 128), samrt_f32_to_bf16(0.0f)};
    c.add = add;
    CHECK_STATUS(samrt_copy_ref(&c), SAMRT_OK);
    CHECK_NEAR(samrt_bf16_to_f32(bf[0]), 1.0 + 1.0 / 128, 0);

    /* f16 -> f32 is exact */
    const uint16_t h[1] = {samrt_f32_to_f16(0.333251953125f)};
    float hf;
    struct samrt_copy_args d = {SAMRT_DTYPE_F16, SAMRT_DTYPE_F32, {1, 1, 1, 1}, {0, 0, 0, 0}, h, NULL, &hf};
    CHECK_STATUS(samrt_copy_ref(&d), SAMRT_OK);
    CHECK_NEAR(hf, 0.333251953125, 0);

    struct samrt_copy_args bad = a;
    bad.ne[1] = 0;
    CHECK_STATUS(samrt_copy_ref(&bad), SAMRT_E_INVALID_ARG);
    bad = a;
    bad.s[0] = -1;
    CHECK_STATUS(samrt_copy_ref(&bad), SAMRT_E_INVALID_ARG);
    bad = a;
    bad.x = NULL;
    CHECK_STATUS(samrt_copy_ref(&bad), SAMRT_E_INVALID_ARG);
    bad = a;
    bad.dst_dtype = SAMRT_DTYPE_I32;
    CHECK_STATUS(samrt_copy_ref(&bad), SAMRT_E_UNSUPPORTED);
    return check_report("test_copy");
}
