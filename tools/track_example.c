/* track_example.c - streaming video tracking with the public API only (samrt.h), in the
 * shape of a camera or decoder loop: raw RGB24 frames arrive one after another on stdin, the
 * object under one click on the first frame is tracked, and each frame's result is printed
 * (score, area, box); with a 6th argument the masks are appended to that file as raw bytes
 * (0/1, width*height per frame). Any decoder can feed it, e.g.
 *
 *   ffmpeg -loglevel error -i video.mp4 -f rawvideo -pix_fmt rgb24 - |
 *     samrt_track_example sam2.1_hiera_tiny.pt 960 540 210 350 [masks.raw]
 *
 * The frame buffer and the mask buffer are allocated once; the engine allocates nothing per
 * frame either. */
#include <stdio.h>
#include <stdlib.h>

#include "samrt.h"

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s CKPT WIDTH HEIGHT X Y [MASKS.raw] < frames.rgb24\n", argv[0]);
        return 2;
    }
    const int w = atoi(argv[2]), h = atoi(argv[3]);
    if (w <= 0 || h <= 0) {
        fprintf(stderr, "bad frame size %s x %s\n", argv[2], argv[3]);
        return 2;
    }
    struct samrt_engine_params p = samrt_engine_default_params();
    samrt_engine_t eng = NULL;
    enum samrt_status st = samrt_engine_init(argv[1], &p, &eng);
    if (st != SAMRT_OK) {
        fprintf(stderr, "init: %s\n", samrt_status_str(st));
        return 3;
    }
    const size_t n_px = (size_t)w * (size_t)h;
    unsigned char *rgb = malloc(3 * n_px), *mask = malloc(n_px);
    FILE *out = argc == 7 ? fopen(argv[6], "wb") : NULL;
    if (!rgb || !mask || (argc == 7 && !out)) {
        fprintf(stderr, "no memory or cannot open %s\n", argc == 7 ? argv[6] : "buffers");
        samrt_engine_free(eng);
        return 3;
    }
    struct samrt_object_prompt obj = {0};
    obj.n_clicks = 1;
    obj.clicks[0] = (struct samrt_click){(float)atof(argv[4]), (float)atof(argv[5]), 1};
    st = samrt_engine_track_begin(eng, w, h);
    if (st == SAMRT_OK) st = samrt_engine_track_prompt(eng, 1, &obj);  /* applies to the first frame */
    int t = 0;
    while (st == SAMRT_OK && fread(rgb, 3, n_px, stdin) == n_px) {
        const struct samrt_image frame = {rgb, w, h, 3 * w};
        struct samrt_track_result res = {.mask = mask};
        int n = 0;
        st = samrt_engine_track_push(eng, &frame, 0, &res, 1, &n);
        if (st != SAMRT_OK || n != 1) break;
        struct samrt_stage_times tm;
        samrt_engine_stage_times(eng, &tm);
        printf("frame %d: score %+.3f area %d box (%d,%d)-(%d,%d) post %.2f ms\n", t, res.object_score, res.area,
               res.box[0], res.box[1], res.box[2], res.box[3], tm.postprocess_ms);
        if (out && fwrite(mask, 1, n_px, out) != n_px) st = SAMRT_E_IO;
        t++;
    }
    if (st != SAMRT_OK) fprintf(stderr, "frame %d: %s\n", t, samrt_status_str(st));
    if (out) fclose(out);
    free(rgb);
    free(mask);
    samrt_engine_free(eng);
    return st == SAMRT_OK ? 0 : 3;
}
