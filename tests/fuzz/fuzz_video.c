/* fuzz_video.c - libFuzzer target for harness/video_read.c: every input is opened as a video
 * from memory (FFmpeg probes the container, finds a video stream and its decoder) and, when
 * accepted, decoded to RGB8 frame by frame into a buffer of exactly the frame size, so ASan
 * sees any overrun of the conversion. Build and run (clang, FFmpeg development packages):
 *
 *   cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DSAMRT_CUDA=OFF -DSAMRT_FUZZ=ON
 *   cmake --build build/fuzz --target fuzz_video -j2
 *   mkdir -p build/fuzz/video-corpus
 *   build/fuzz/tests/fuzz_video -max_total_time=3600 -rss_limit_mb=1024 -timeout=25 \
 *       build/fuzz/video-corpus tests/data/video/good tests/data/video/bad
 *
 * The reader's own bounds (video.h: av_max_alloc 64 MiB, probesize, analyzeduration,
 * max_streams) are what keep the target under the 1 GB RSS limit: an AVI header asking for
 * 1.8 GB is in tests/data/video/bad. docs/video.md has the runs made and their figures.
 *
 * video_read.c is compiled into the target so that it carries the coverage instrumentation;
 * FFmpeg itself is the system build. */
#include <stdlib.h>

#include "video.h"

/* Larger frames are valid but only slow the fuzzer down; so do long streams. */
#define FUZZ_MAX_PIXELS ((size_t)1 << 22)
#define FUZZ_MAX_FRAMES 64

static void log_none(enum samrt_log_level level, const char *msg, void *user) { (void)level, (void)msg, (void)user; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int init = 0;
    if (!init) {
        samrt_log_set(log_none, NULL, SAMRT_LOG_ERROR);
        init = 1;
    }
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    if (samrt_video_open_mem(data, size, &r, &info) != SAMRT_OK) return 0;
    const size_t px = (size_t)info.width * (size_t)info.height;
    uint8_t *rgb = px <= FUZZ_MAX_PIXELS ? malloc(px * 3) : NULL;
    struct samrt_video_frame f;
    for (int i = 0; rgb && i < FUZZ_MAX_FRAMES; i++)
        if (samrt_video_read(r, rgb, &f) != SAMRT_OK || f.eof) break;
    free(rgb);
    samrt_video_close(r);
    return 0;
}
