/* test_finite.c - the C reference of the non-finite check (kernels/finite.h) by hand: every
 * dtype's NaN, +Inf and -Inf bit patterns are caught wherever they sit (first, middle, last
 * element), the largest finite values and subnormals are not, each segment sets its own bit,
 * empty segments are fine, and bad arguments are refused.
 * Run: ctest -R test_finite */
#include <math.h>
#include <string.h>

#include "check.h"
#include "finite.h"
#include "test_util.h"

#define N 37

static int32_t g_flags[SAMRT_FINITE_FLAG_WORDS];

static int32_t run1(enum samrt_dtype dt, const void *data, int64_t n) {
    struct samrt_finite_args a;
    memset(&a, 0, sizeof a);
    a.n_seg = 1;
    a.seg[0] = (struct samrt_finite_seg){data, n, dt};
    a.flags = g_flags;
    g_flags[0] = -1;
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_OK);
    return g_flags[0];
}

/* The bit patterns of NaN, +Inf, -Inf, and of finite extremes, per dtype. */
static void test_patterns(void) {
    const uint16_t h_bad[] = {0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xffff};
    const uint16_t h_ok[] = {0x7bff, 0xfbff, 0x0001, 0x8000, 0x3c00};  /* 65504, -65504, subnormal, -0, 1 */
    const uint16_t b_bad[] = {0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffff};
    const uint16_t b_ok[] = {0x7f7f, 0xff7f, 0x0001, 0x8000, 0x3f80};
    const uint32_t f_bad[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffffffffu};
    const uint32_t f_ok[] = {0x7f7fffffu, 0xff7fffffu, 0x00000001u, 0x80000000u, 0x3f800000u};
    for (int pos = 0; pos < 3; pos++) {
        const int at = pos == 0 ? 0 : pos == 1 ? N / 2 : N - 1;
        for (int k = 0; k < 5; k++) {
            uint16_t h[N], b[N];
            uint32_t f[N];
            for (int i = 0; i < N; i++) h[i] = 0x3c00, b[i] = 0x3f80, f[i] = 0x3f800000u;
            h[at] = h_bad[k], b[at] = b_bad[k], f[at] = f_bad[k];
            CHECK_MSG(run1(SAMRT_DTYPE_F16, h, N) == 1, "f16 0x%04x at %d", h_bad[k], at);
            CHECK_MSG(run1(SAMRT_DTYPE_BF16, b, N) == 1, "bf16 0x%04x at %d", b_bad[k], at);
            CHECK_MSG(run1(SAMRT_DTYPE_F32, f, N) == 1, "f32 0x%08x at %d", f_bad[k], at);
            h[at] = h_ok[k], b[at] = b_ok[k], f[at] = f_ok[k];
            CHECK_MSG(run1(SAMRT_DTYPE_F16, h, N) == 0, "f16 0x%04x at %d", h_ok[k], at);
            CHECK_MSG(run1(SAMRT_DTYPE_BF16, b, N) == 0, "bf16 0x%04x at %d", b_ok[k], at);
            CHECK_MSG(run1(SAMRT_DTYPE_F32, f, N) == 0, "f32 0x%08x at %d", f_ok[k], at);
        }
    }
    /* a value past the checked count does not count */
    uint16_t h[4] = {0x3c00, 0x3c00, 0x3c00, 0x7c00};
    CHECK_EQ_INT(run1(SAMRT_DTYPE_F16, h, 3), 0);
    CHECK_EQ_INT(run1(SAMRT_DTYPE_F16, h, 4), 1);
    CHECK_EQ_INT(run1(SAMRT_DTYPE_F16, NULL, 0), 0);
    /* the same bits through the public helper */
    const float inf = INFINITY, one = 1.0f;
    CHECK(samrt_finite_is_bad(SAMRT_DTYPE_F32, &inf));
    CHECK(!samrt_finite_is_bad(SAMRT_DTYPE_F32, &one));
}

/* Several segments: each sets its own bit. */
static void test_segments(void) {
    float f[8] = {0};
    uint16_t h[8] = {0}, b[8] = {0};
    struct samrt_finite_args a;
    memset(&a, 0, sizeof a);
    a.n_seg = 5;
    a.seg[0] = (struct samrt_finite_seg){f, 8, SAMRT_DTYPE_F32};
    a.seg[1] = (struct samrt_finite_seg){h, 8, SAMRT_DTYPE_F16};
    a.seg[2] = (struct samrt_finite_seg){NULL, 0, SAMRT_DTYPE_F16};
    a.seg[3] = (struct samrt_finite_seg){b, 8, SAMRT_DTYPE_BF16};
    a.seg[4] = (struct samrt_finite_seg){f + 4, 4, SAMRT_DTYPE_F32};
    a.flags = g_flags;
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_OK);
    CHECK_EQ_INT(g_flags[0], 0);
    f[6] = NAN;  /* in segments 0 and 4 */
    b[2] = 0x7f80;
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_OK);
    CHECK_EQ_INT(g_flags[0], (1 << 0) | (1 << 3) | (1 << 4));
    f[6] = 0.0f;
    h[7] = 0xfc00;
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_OK);
    CHECK_EQ_INT(g_flags[0], (1 << 1) | (1 << 3));
}

static void test_bad_args(void) {
    float f[2] = {0};
    struct samrt_finite_args a;
    memset(&a, 0, sizeof a);
    a.n_seg = 1;
    a.seg[0] = (struct samrt_finite_seg){f, 2, SAMRT_DTYPE_F32};
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_E_INVALID_ARG);  /* no flags */
    a.flags = g_flags;
    a.n_seg = 0;
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_E_INVALID_ARG);
    a.n_seg = SAMRT_FINITE_MAX_SEGS + 1;
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_E_INVALID_ARG);
    a.n_seg = 1;
    a.seg[0].dtype = SAMRT_DTYPE_U8;
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_E_INVALID_ARG);
    a.seg[0] = (struct samrt_finite_seg){NULL, 2, SAMRT_DTYPE_F32};
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_E_INVALID_ARG);
    a.seg[0] = (struct samrt_finite_seg){f, -1, SAMRT_DTYPE_F32};
    CHECK_STATUS(samrt_finite_ref(&a), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_finite_ref(NULL), SAMRT_E_INVALID_ARG);
}

int main(void) {
    test_patterns();
    test_segments();
    test_bad_args();
    return check_report("test_finite");
}
