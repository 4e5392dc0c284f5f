/* frame_decode_util.h - JPEG frame folders for the decode tests and the decode benchmark
 * (test_frame_decode*.c, test_jpeg_gpu_cuda.c, bench_decode.c): K frames of w x h written with
 * the harness's own JPEG writer (baseline 4:2:0), each with its own content (gradients, a
 * moving square and per-frame noise, so a misordered frame shows), and a libjpeg-turbo
 * reference decode of a file. */
#ifndef SAMRT_TEST_FRAME_DECODE_UTIL_H
#define SAMRT_TEST_FRAME_DECODE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "data_util.h"
#include "image_io.h"

/* Frame k's pixels (w x h RGB8). */
static inline void fd_pattern(uint8_t *rgb, int w, int h, int k) {
    uint32_t r = 2654435761u * (uint32_t)(k + 1);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            r = r * 1664525u + 1013904223u;
            uint8_t *p = rgb + 3 * ((size_t)y * w + x);
            const int in_sq = x >= (k * 7) % w && x < (k * 7) % w + w / 5 && y >= h / 3 && y < h / 3 + h / 5;
            p[0] = (uint8_t)(in_sq ? 240 : (x * 255) / (w > 1 ? w - 1 : 1));
            p[1] = (uint8_t)((y * 255) / (h > 1 ? h - 1 : 1) ^ (k * 37));
            p[2] = (uint8_t)((r >> 24) & 0x3f) + (uint8_t)(k * 11);
        }
}

/* dir/NNNNN.jpg for k in [0, n); 0 or -1. */
static inline int fd_make_folder(const char *dir, int w, int h, int n, int quality) {
    uint8_t *rgb = (uint8_t *)malloc((size_t)w * h * 3);
    char path[1024];
    int bad = !rgb || (du_mkdir(dir) != 0);
    for (int k = 0; k < n && !bad; k++) {
        fd_pattern(rgb, w, h, k);
        snprintf(path, sizeof path, "%s/%05d.jpg", dir, k);
        bad = samrt_jpeg_write(path, rgb, w, h, quality) != SAMRT_OK;
    }
    free(rgb);
    return bad ? -1 : 0;
}

/* The reference decode of a JPEG file (libjpeg-turbo, one call); NULL on failure. */
static inline uint8_t *fd_decode_file(const char *path, int *w, int *h) {
    *w = *h = 0;
    size_t n = 0;
    uint8_t *d = du_read_file(path, &n);
    struct samrt_image_info info;
    if (!d || samrt_jpeg_info(d, n, &info) != SAMRT_OK) {
        free(d);
        return NULL;
    }
    uint8_t *rgb = (uint8_t *)malloc(samrt_image_nbytes(&info));
    if (rgb && samrt_jpeg_decode(d, n, rgb, samrt_image_nbytes(&info), &info) != SAMRT_OK) {
        free(rgb);
        rgb = NULL;
    }
    *w = info.width;
    *h = info.height;
    free(d);
    return rgb;
}

#endif /* SAMRT_TEST_FRAME_DECODE_UTIL_H */
