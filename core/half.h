/* half.h - host-side conversions between f32 and the 16-bit float formats, bit-exact with
 * PyTorch: round to nearest even, NaN kept quiet, f16 overflow to inf, subnormals exact.
 * Used to convert checkpoint weights into the arena and by CPU reference kernels. */
#ifndef SAMRT_HALF_H
#define SAMRT_HALF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint16_t samrt_f32_to_bf16(float f);
float samrt_bf16_to_f32(uint16_t h);
uint16_t samrt_f32_to_f16(float f);
float samrt_f16_to_f32(uint16_t h);
/* Round an f32 through bf16 / f16 and back (what storing in that dtype does). */
float samrt_round_bf16(float f);
float samrt_round_f16(float f);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HALF_H */
