/* sam2_track_util.h - shared pieces of the tracker tests (test_sam2_track*.c): the synthetic
 * frame (a bright box on a gradient, shifted right by `shift` pixels per frame) and a log
 * sink that drops the expected error messages. Header-only, static. */
#ifndef SAMRT_TEST_SAM2_TRACK_UTIL_H
#define SAMRT_TEST_SAM2_TRACK_UTIL_H

#include <stdint.h>

#include "samrt.h"

static inline void trk_make_frame(uint8_t *rgb, int w, int h, int shift) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int in = x > 25 + shift && x < 55 + shift && y > 15 && y < 45;
            rgb[(y * w + x) * 3 + 0] = (uint8_t)(in ? 210 : 3 * x);
            rgb[(y * w + x) * 3 + 1] = (uint8_t)(in ? 30 : 4 * y);
            rgb[(y * w + x) * 3 + 2] = (uint8_t)((x + y * 3) & 255);
        }
}

static inline void trk_quiet(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

#endif /* SAMRT_TEST_SAM2_TRACK_UTIL_H */
