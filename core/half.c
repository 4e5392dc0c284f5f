/* half.c - f32 <-> bf16 / f16 conversions (round to nearest, ties to even). */
#include "half.h"

#include <string.h>

static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

uint16_t samrt_f32_to_bf16(float f) {
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);  /* quiet NaN */
    uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return (uint16_t)(u >> 16);
}

float samrt_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

uint16_t samrt_f32_to_f16(float f) {
    uint32_t u = f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);   /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  /* rounds to >= 65520: inf */
    if (a < 0x38800000u) {                                     /* f16 subnormal or zero */
        /* value * 2^24 rounded to an integer, ties to even */
        float v = bits_f32(a) * 16777216.0f;  /* exact: scaling by a power of two */
        uint32_t q = (uint32_t)v;
        float rem = v - (float)q;
        if (rem > 0.5f || (rem == 0.5f && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t exp = ((a >> 23) - 112u) << 10;  /* rebias 127 -> 15 */
    uint32_t mant = (a >> 13) & 0x3ffu;
    uint32_t rest = a & 0x1fffu;
    uint32_t h = exp | mant;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;  /* carries into exp correctly */
    return (uint16_t)(sign | h);
}

float samrt_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        float v = (float)mant / 16777216.0f;  /* mant * 2^-24 */
        return sign ? -v : v;
    }
    if (exp == 31) return bits_f32(sign | 0x7f800000u | (mant << 13));
    return bits_f32(sign | ((exp + 112u) << 23) | (mant << 13));
}

float samrt_round_bf16(float f) { return samrt_bf16_to_f32(samrt_f32_to_bf16(f)); }
float samrt_round_f16(float f) { return samrt_f16_to_f32(samrt_f32_to_f16(f)); }
