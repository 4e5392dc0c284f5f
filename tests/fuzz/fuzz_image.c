/* fuzz_image.c - libFuzzer target for harness/image_io: every input goes through the JPEG and
 * PNG header parsers and, when a header is accepted, the decoders (into a buffer of exactly
 * the size the header asks for, so ASan sees any overrun). Build and run (clang):
 *
 *   cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DSAMRT_CUDA=OFF -DSAMRT_FUZZ=ON
 *   cmake --build build/fuzz --target fuzz_image -j2
 *   build/fuzz/tests/fuzz_image -max_total_time=60 -rss_limit_mb=2048 \
 *       tests/data/images/ok tests/data/images/bad
 *
 * image_io.c is compiled into the target itself so that it carries the coverage
 * instrumentation; libjpeg and libpng are the system builds. */
#include <stdlib.h>

#include "image_io.h"

/* Larger images are valid but only slow the fuzzer down. */
#define FUZZ_MAX_BYTES ((size_t)1 << 24)

static void log_none(enum samrt_log_level level, const char *msg, void *user) { (void)level, (void)msg, (void)user; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int init = 0;
    if (!init) {
        samrt_log_set(log_none, NULL, SAMRT_LOG_ERROR);
        init = 1;
    }
    for (int png = 0; png < 2; png++) {
        struct samrt_image_info info;
        enum samrt_status st = png ? samrt_png_info(data, size, &info) : samrt_jpeg_info(data, size, &info);
        if (st != SAMRT_OK) continue;
        size_t n = samrt_image_nbytes(&info);
        if (n == 0 || n > FUZZ_MAX_BYTES) continue;
        uint8_t *out = (uint8_t *)malloc(n);
        if (!out) continue;
        if (png) samrt_png_decode(data, size, out, n, &info);
        else samrt_jpeg_decode(data, size, out, n, &info);
        free(out);
    }
    return 0;
}
