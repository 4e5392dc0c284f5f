/* test_half.c - f32 <-> bf16 / f16 conversion against hand-checked bit patterns: ties to
 * even, subnormals, overflow to inf, NaN. */
#include "half.h"

#include <math.h>
#include <string.h>

#include "check.h"

static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

int main(void) {
    CHECK_EQ_INT(samrt_f32_to_bf16(1.0f), 0x3f80);
    CHECK_EQ_INT(samrt_f32_to_bf16(-2.0f), 0xc000);
    CHECK_EQ_INT(samrt_f32_to_bf16(from_bits(0x3f808000u)), 0x3f80);  /* tie -> even (down) */
    CHECK_EQ_INT(samrt_f32_to_bf16(from_bits(0x3f818000u)), 0x3f82);  /* tie -> even (up) */
    CHECK_EQ_INT(samrt_f32_to_bf16(from_bits(0x3f808001u)), 0x3f81);  /* above tie */
    CHECK_EQ_INT(samrt_f32_to_bf16(from_bits(0x7f7fffffu)), 0x7f80);  /* max f32 -> inf */
    CHECK(isnan(samrt_bf16_to_f32(samrt_f32_to_bf16(NAN))));
    CHECK(samrt_bf16_to_f32(0x3fc0) == 1.5f);

    CHECK_EQ_INT(samrt_f32_to_f16(1.0f), 0x3c00);
    CHECK_EQ_INT(samrt_f32_to_f16(-2.0f), 0xc000);
    CHECK_EQ_INT(samrt_f32_to_f16(65504.0f), 0x7bff);
    CHECK_EQ_INT(samrt_f32_to_f16(65520.0f), 0x7c00);                 /* rounds to inf */
    CHECK_EQ_INT(samrt_f32_to_f16(65519.0f), 0x7bff);
    CHECK_EQ_INT(samrt_f32_to_f16(5.9604645e-08f), 0x0001);           /* smallest subnormal */
    CHECK_EQ_INT(samrt_f32_to_f16(2.98023224e-08f), 0x0000);          /* half of it: tie -> 0 */
    CHECK_EQ_INT(samrt_f32_to_f16(8.94069672e-08f), 0x0002);          /* 1.5 ulp: tie -> even 2 */
    CHECK_EQ_INT(samrt_f32_to_f16(6.097555e-05f), 0x03ff);            /* largest subnormal */
    CHECK_EQ_INT(samrt_f32_to_f16(6.1035156e-05f), 0x0400);           /* smallest normal */
    CHECK_EQ_INT(samrt_f32_to_f16(1.0f + 1.0f / 2048), 0x3c00);      /* tie -> even */
    CHECK_EQ_INT(samrt_f32_to_f16(1.0f + 3.0f / 2048), 0x3c02);
    CHECK_EQ_INT(samrt_f32_to_f16(0.1f), 0x2e66);
    CHECK(samrt_f16_to_f32(0x2e66) == 0.0999755859375f);
    CHECK(samrt_f16_to_f32(0x0001) == 5.9604645e-08f);
    CHECK(isinf(samrt_f16_to_f32(0x7c00)));
    CHECK(isnan(samrt_f16_to_f32(samrt_f32_to_f16(NAN))));
    /* every f16 value round-trips exactly */
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  /* NaN payloads */
        if (samrt_f32_to_f16(samrt_f16_to_f32((uint16_t)h)) != h) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    return check_report("test_half");
}
