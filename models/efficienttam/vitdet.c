/* vitdet.c - EfficientTAM's ViTDet trunk and single-scale neck (vitdet.h): config checks,
 * binding by official key name, the resized absolute position embedding, and the forward
 * pass over the op layer.
 * Tests: tests/test_efficienttam_keys.c, tests/test_efficienttam.c. */
#include "vitdet.h"

int samrt_vitdet_windowed(const struct samrt_vitdet_config *cfg, int i) {
    return i >= 0 && i < 32 && (cfg->window_blocks >> i & 1u) != 0;
}
