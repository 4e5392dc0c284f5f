/* stage_clock.c - stage times of a segmentation call or a tracked frame (stage_clock.h):
 * events on the engine's stream (event record nodes while a graph is captured) or host
 * clocks, read back as the public struct samrt_stage_times. */
#include "stage_clock.h"

#include <string.h>

#include "platform.h"

void samrt_stage_times_none(struct samrt_stage_times *out) {
    const struct samrt_stage_times none = {-1, -1, -1, -1, -1, -1, -1, -1};
    *out = none;
}

enum samrt_status samrt_stage_clock_init(struct samrt_stage_clock *k, int device) {
    memset(k, 0, sizeof *k);
    k->device = device;
    for (int i = 0; i < SAMRT_STAGE_N_MARKS && device; i++) SAMRT_TRY(samrt_event_create(&k->ev[i]));
    return SAMRT_OK;
}

void samrt_stage_clock_free(struct samrt_stage_clock *k) {
    for (int i = 0; i < SAMRT_STAGE_N_MARKS; i++) samrt_event_destroy(k->ev[i]);
    memset(k->ev, 0, sizeof k->ev);
}

enum samrt_status samrt_stage_clock_mark(struct samrt_stage_clock *k, int i, samrt_stream *stream) {
    k->marks |= 1u << i;
    /* inside a capture the mark becomes an event record node of the graph */
    if (k->device) return samrt_event_record(k->ev[i], stream, k->capturing);
    k->ns[i] = samrt_platform_now_ns();
    return SAMRT_OK;
}

/* Milliseconds between marks a and b; -1 when the clock cannot say. */
static float mark_ms(const struct samrt_stage_clock *k, int a, int b) {
    if (k->device) return samrt_event_elapsed_ms(k->ev[a], k->ev[b]);
    return (float)((double)(k->ns[b] - k->ns[a]) * 1e-6);
}

void samrt_stage_clock_read(const struct samrt_stage_clock *k, struct samrt_stage_times *s) {
    float *at[SAMRT_STAGE_N_MARKS] = {NULL, &s->h2d_ms, &s->preprocess_ms, &s->image_encoder_ms,
                                      &s->memory_attention_ms, &s->prompt_and_mask_decoder_ms,
                                      &s->memory_encoder_ms, &s->postprocess_ms, &s->d2h_ms};
    samrt_stage_times_none(s);
    int prev = SAMRT_STAGE_MK_START;
    for (int i = SAMRT_STAGE_MK_START + 1; i < SAMRT_STAGE_N_MARKS; i++) {
        if (!(k->marks & (1u << i))) continue;
        *at[i] = mark_ms(k, prev, i);
        prev = i;
    }
}
