/* bench_frame_projection.c - a tracked frame's stages, measured, next to the frame the plan
 * projects for the engine's platform profile (samrt_internal_frame_cost: each launch's roofline
 * at the profile's published peaks plus the per-launch cost; docs/jetson.md). This is how the
 * projection's error is measured on a GPU the project can reach: at the whole GPU and, with
 * SM_LIMIT, in a green context of that many SMs (an Orin-sized share), where the engine plans
 * for the SMs it was granted.
 *
 *   bench_frame_projection MODEL WIDTH HEIGHT FRAMES [PRECISION [SM_LIMIT]]
 *   e.g. bench_frame_projection edgetam 1280 720 240 fp16 8
 *
 * Weights: seeded random ones in the official layout (harness/ckpt_write.h). One object,
 * clicked on frame 0; frames after the 20th are timed (the bank is full and the frame's graph
 * replays from the 17th). Prints per stage the planned launches, the projected ms and the
 * median measured ms (samrt_engine_stage_times, CUDA events inside the frame's graph) with
 * their ratio, then the whole push (wall clock, masks on the host): median, p95, p99.
 * A benchmark, not a test: nothing is asserted but that the calls succeed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "ckpt_write.h"
#include "samrt.h"
#include "samrt_internal.h"

#define WARMUP 20

static void make_frame(uint8_t *rgb, int w, int h, int t) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + 3 * ((size_t)y * w + x);
            p[0] = (uint8_t)(x + 3 * t), p[1] = (uint8_t)(y + t), p[2] = (uint8_t)((x ^ y) + 5 * t);
        }
}

/* The measured stages in the order of samrt_internal_stage_name (the upload before the
 * resize is a transfer, not a projected stage; the mask decoder stage is
 * prompt_and_mask_decoder_ms; postprocess the device decode). */
static void stage_ms(const struct samrt_stage_times *s, double out[SAMRT_INTERNAL_STAGES]) {
    out[SAMRT_INTERNAL_STAGE_PRE] = s->preprocess_ms;
    out[SAMRT_INTERNAL_STAGE_ENC] = s->image_encoder_ms;
    out[SAMRT_INTERNAL_STAGE_MA] = s->memory_attention_ms;
    out[SAMRT_INTERNAL_STAGE_HEADS] = s->prompt_and_mask_decoder_ms;
    out[SAMRT_INTERNAL_STAGE_MEMENC] = s->memory_encoder_ms;
    out[SAMRT_INTERNAL_STAGE_POST] = s->postprocess_ms;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s MODEL WIDTH HEIGHT FRAMES [fp16|bf16 [SM_LIMIT]]\n", argv[0]);
        return 2;
    }
    enum samrt_model_id model;
    const int w = atoi(argv[2]), h = atoi(argv[3]), frames = atoi(argv[4]);
    if (samrt_model_parse(argv[1], &model) != SAMRT_OK || w < 16 || h < 16 || frames <= WARMUP) {
        fprintf(stderr, "bad arguments (FRAMES must exceed the %d warm-up frames)\n", WARMUP);
        return 2;
    }
    struct samrt_engine_params p = samrt_engine_default_params();
    p.max_objects = 1;
    p.max_frame_width = w, p.max_frame_height = h;
    if (argc > 5 && samrt_dtype_parse(argv[5], &p.precision) != SAMRT_OK) return 2;
    if (argc > 6) p.sm_limit = atoi(argv[6]);
    char path[] = "/tmp/samrt_bench_projection_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return 3;
    close(fd);
    if (samrt_ckpt_write_random(path, model, 0) != SAMRT_OK) return 3;
    samrt_engine_t e = NULL;
    enum samrt_status st = samrt_engine_init(path, &p, &e);
    unlink(path);
    if (st != SAMRT_OK) return 3;
    struct samrt_internal_frame_cost fc;
    struct samrt_internal_budget b;
    if (samrt_internal_frame_cost(e, 1, w, h, &fc) != SAMRT_OK || samrt_internal_budget(e, &b) != SAMRT_OK) return 3;
    const int n = frames - WARMUP;
    uint8_t *rgb = malloc(3 * (size_t)w * h);
    double *push = malloc(sizeof(double) * (size_t)n), *stage[SAMRT_INTERNAL_STAGES];
    for (int i = 0; i < SAMRT_INTERNAL_STAGES; i++) stage[i] = malloc(sizeof(double) * (size_t)n);
    const struct samrt_object_prompt click = {.n_clicks = 1, .clicks = {{0.5f * w, 0.5f * h, 1}}};
    int ok = rgb && push && samrt_engine_track_begin(e, w, h) == SAMRT_OK &&
             samrt_engine_track_prompt(e, 1, &click) == SAMRT_OK;
    for (int t = 0; t < frames && ok; t++) {
        make_frame(rgb, w, h, t);
        const struct samrt_image img = {rgb, w, h, 3 * w};
        struct samrt_track_result r;
        memset(&r, 0, sizeof r);
        int got = 0;
        const double t0 = bench_now_ms();
        ok = samrt_engine_track_push(e, &img, 0, &r, 1, &got) == SAMRT_OK;
        const double ms = bench_now_ms() - t0;
        struct samrt_stage_times s;
        if (!ok || t < WARMUP || samrt_engine_stage_times(e, &s) != SAMRT_OK) continue;
        double v[SAMRT_INTERNAL_STAGES];
        stage_ms(&s, v);
        push[t - WARMUP] = ms;
        for (int i = 0; i < SAMRT_INTERNAL_STAGES; i++) stage[i][t - WARMUP] = v[i];
    }
    if (ok) {
        printf("%s %s %dx%d, 1 object, %d frames after %d, profile %s (%d SMs planned), sm_limit %d\n",
               samrt_model_name(model), samrt_dtype_name(p.precision), w, h, n, WARMUP, b.profile->name,
               b.profile->sm_count, p.sm_limit);
        printf("%-18s %9s %13s %13s %7s\n", "stage", "launches", "projected ms", "measured ms", "ratio");
        double sum = 0;
        for (int i = 0; i < SAMRT_INTERNAL_STAGES; i++) {
            const double m = bench_pct(stage[i], n, 50);
            sum += m;
            printf("%-18s %9lld %13.3f %13.3f %7.2f\n", samrt_internal_stage_name(i), (long long)fc.stage[i].launches,
                   fc.stage[i].projected_ms, m, m > 0 ? fc.stage[i].projected_ms / m : 0.0);
        }
        printf("%-18s %9lld %13.3f %13.3f %7.2f\n", "frame (stages)", (long long)fc.total.launches,
               fc.total.projected_ms, sum, sum > 0 ? fc.total.projected_ms / sum : 0.0);
        const double p50 = bench_pct(push, n, 50), p95 = bench_pct(push, n, 95), p99 = bench_pct(push, n, 99);
        printf("push (wall clock)  median %.3f p95 %.3f p99 %.3f ms; projected / median %.2f\n", p50, p95, p99,
               fc.total.projected_ms / p50);
    }
    free(rgb);
    free(push);
    for (int i = 0; i < SAMRT_INTERNAL_STAGES; i++) free(stage[i]);
    samrt_engine_free(e);
    return ok ? 0 : 3;
}
