/* bench_prompted_frame.c - the latency of a tracked video's prompted frames next to its
 * tracked ones, through the public API only (samrt.h): an interactive annotator clicks an
 * object on a frame (a correction, or a new object), pushes it and waits for the masks, then
 * lets the video run. A prompted frame runs the segmentation heads for the clicked object
 * inside the tracker's frame (one graph, one sync, one mask decode), so its cost over a
 * tracked frame is what this measures.
 *
 *   bench_prompted_frame MODEL WIDTH HEIGHT ROUNDS [PRECISION [IMGSZ]]
 *   e.g. bench_prompted_frame edgetam 1280 720 60 fp16
 *
 * Weights: seeded random ones in the official layout (harness/ckpt_write.h: timings are the
 * model's, masks mean nothing). Each round re-prompts object 1 (one click, alternating between
 * two places) on a frame and then pushes two tracked frames; the first 20 rounds are warm-up
 * (graph capture of every frame key, the bank filling its conditioning slots). Prints the
 * wall-clock time of samrt_engine_track_push (it returns with the masks on the host) for
 * prompted and tracked frames: median, p95, min.
 * A benchmark, not a test: nothing is asserted but that the calls succeed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "ckpt_write.h"
#include "samrt.h"

#define WARMUP 20

static void report(const char *what, double *v, int n) {
    const double p50 = bench_pct(v, n, 50), p95 = bench_pct(v, n, 95);
    printf("%-16s %4d frames  ms median %.3f  p95 %.3f  min %.3f\n", what, n, p50, p95, v[0]);
}

/* A moving pattern, so that no two frames are the same. */
static void make_frame(uint8_t *rgb, int w, int h, int t) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + 3 * ((size_t)y * w + x);
            p[0] = (uint8_t)(x + 3 * t), p[1] = (uint8_t)(y + t), p[2] = (uint8_t)((x ^ y) + 5 * t);
        }
}

static int push(samrt_engine_t e, const uint8_t *rgb, int w, int h, double *ms) {
    const struct samrt_image img = {rgb, w, h, 3 * w};
    struct samrt_track_result r;
    memset(&r, 0, sizeof r);
    int n = 0;
    const double t0 = bench_now_ms();
    const enum samrt_status st = samrt_engine_track_push(e, &img, 0, &r, 1, &n);
    *ms = bench_now_ms() - t0;
    if (st != SAMRT_OK) fprintf(stderr, "push: %s\n", samrt_status_str(st));
    return st == SAMRT_OK;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s MODEL WIDTH HEIGHT ROUNDS [fp16|bf16|fp32 [IMGSZ]]\n", argv[0]);
        return 2;
    }
    enum samrt_model_id model;
    const int w = atoi(argv[2]), h = atoi(argv[3]), rounds = atoi(argv[4]);
    if (samrt_model_parse(argv[1], &model) != SAMRT_OK || w < 16 || h < 16 || rounds <= WARMUP) {
        fprintf(stderr, "bad arguments (ROUNDS must exceed the %d warm-up rounds)\n", WARMUP);
        return 2;
    }
    char path[] = "/tmp/samrt_bench_prompted_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return 3;
    close(fd);
    if (samrt_ckpt_write_random(path, model, 0) != SAMRT_OK) return 3;
    struct samrt_engine_params p = samrt_engine_default_params();
    p.max_objects = 1;
    p.max_frame_width = w, p.max_frame_height = h;
    if (argc > 5) {
        p.precision = !strcmp(argv[5], "bf16") ? SAMRT_DTYPE_BF16 : !strcmp(argv[5], "fp32") ? SAMRT_DTYPE_F32
                                                                                              : SAMRT_DTYPE_F16;
    }
    if (argc > 6) p.imgsz = atoi(argv[6]);  /* the model side (default 1024) */
    samrt_engine_t e = NULL;
    enum samrt_status st = samrt_engine_init(path, &p, &e);
    unlink(path);
    if (st != SAMRT_OK) return 3;
    uint8_t *rgb = malloc(3 * (size_t)w * h);
    double *prompted = malloc(sizeof(double) * (size_t)rounds), *tracked = malloc(sizeof(double) * 2 * (size_t)rounds);
    if (!rgb || !prompted || !tracked || samrt_engine_track_begin(e, w, h) != SAMRT_OK) return 3;
    int n_p = 0, n_t = 0, t = 0, ok = 1;
    for (int r = 0; r < rounds && ok; r++) {
        const struct samrt_object_prompt click = {.n_clicks = 1, .clicks = {{(r % 2 ? 0.4f : 0.6f) * w, 0.5f * h, 1}}};
        ok = samrt_engine_track_prompt(e, 1, &click) == SAMRT_OK;
        double ms = 0.0;
        make_frame(rgb, w, h, t++);
        ok = ok && push(e, rgb, w, h, &ms);
        if (r >= WARMUP) prompted[n_p++] = ms;
        for (int k = 0; k < 2 && ok; k++) {
            make_frame(rgb, w, h, t++);
            ok = push(e, rgb, w, h, &ms);
            if (r >= WARMUP) tracked[n_t++] = ms;
        }
    }
    if (ok) {
        enum samrt_model_id id;
        samrt_engine_model(e, &id, NULL);
        printf("%s %dx%d, %d rounds after %d warm-up rounds (one prompted frame, two tracked frames each)\n",
               samrt_model_name(id), w, h, rounds - WARMUP, WARMUP);
        report("prompted frame", prompted, n_p);
        report("tracked frame", tracked, n_t);
    }
    free(rgb);
    free(prompted);
    free(tracked);
    samrt_engine_free(e);
    return ok ? 0 : 3;
}
