/* test_frame_slots.c - the frame buffers of a SAM 2 family engine's arena plan (runtime/sam2/
 * staging.h, models/sam2/image_encoder.h), planned without a GPU (samrt_engine_init_plan_only):
 *   - the uploaded frame (seg.rgb) and the preprocessed input (sam2.input) are scratch slots
 *     alive at the encoder pass's first step, the first step of the plan, and nowhere else;
 *   - the output block (seg.out) and the logits plane (seg.logits) are scratch slots at one
 *     step after every other slot's lifetime;
 *   - every scratch slot alive at the same step as one of them takes other bytes (the
 *     planner's promise, checked here for these four), and the resize tables stay staging;
 *   - host engines (CPU backend) plan the input as scratch and none of the device buffers;
 *   - the budget target: efficienttam_ti_2 at fp16 on orin-nano-8gb with 1920x1080 frames
 *     plans at most 150 MiB.
 * Run: ctest -R test_frame_slots (no data files needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "samrt.h"
#include "samrt_internal.h"

#define N_FRAME_SLOTS 4
static const char *const k_names[N_FRAME_SLOTS] = {"seg.rgb", "sam2.input", "seg.out", "seg.logits"};

static samrt_engine_t plan(enum samrt_model_id model, const char *platform, enum samrt_dtype prec, int imgsz) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = platform;
    p.precision = prec;
    p.imgsz = imgsz;
    p.max_frame_width = 1920;
    p.max_frame_height = 1080;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init_plan_only(model, &p, &e), SAMRT_OK);
    return e;
}

static int overlap(uint64_t a0, uint64_t an, uint64_t b0, uint64_t bn) { return a0 < b0 + bn && b0 < a0 + an; }

/* The checks of the header on a device engine's plan. */
static void check_device_plan(enum samrt_model_id model, int imgsz) {
    samrt_engine_t e = plan(model, "orin-nano-8gb", SAMRT_DTYPE_F16, imgsz);
    if (!e) return;
    struct samrt_internal_budget b;
    CHECK_STATUS(samrt_internal_budget(e, &b), SAMRT_OK);
    struct samrt_internal_budget_slot f[N_FRAME_SLOTS];
    int found[N_FRAME_SLOTS] = {0}, idx[N_FRAME_SLOTS] = {0}, t_min = 1 << 30, t_max = -1, tables = 0;
    for (int i = 0; i < b.n_slots; i++) {
        struct samrt_internal_budget_slot s;
        CHECK_STATUS(samrt_internal_budget_slot(e, i, &s), SAMRT_OK);
        if (s.name && !strcmp(s.name, "seg.resize_tables")) tables += !strcmp(s.region, "staging");
        int k = -1;
        for (int j = 0; j < N_FRAME_SLOTS; j++)
            if (s.name && !strcmp(s.name, k_names[j])) k = j;
        if (k >= 0) {
            found[k]++;
            f[k] = s;
            idx[k] = i;
            CHECK_MSG(!strcmp(s.region, "scratch"), "%s: %s is in %s", samrt_model_name(model), s.name, s.region);
        } else if (!strcmp(s.region, "scratch")) {
            if (s.t_first < t_min) t_min = s.t_first;
            if (s.t_last > t_max) t_max = s.t_last;
        }
    }
    CHECK_EQ_INT(tables, 1);
    for (int j = 0; j < N_FRAME_SLOTS; j++)
        CHECK_MSG(found[j] == 1, "%s: %s planned %d times", samrt_model_name(model), k_names[j], found[j]);
    if (found[0] != 1 || found[1] != 1 || found[2] != 1 || found[3] != 1) {
        samrt_engine_free(e);
        return;
    }
    /* the frame and the input: the first step, the frame there alone; out and logits: after all */
    CHECK(f[0].t_first == t_min && f[0].t_last == t_min && f[1].t_first == t_min);
    CHECK(f[2].t_first > t_max && f[2].t_last == f[2].t_first && f[3].t_first == f[2].t_first && f[3].t_last == f[3].t_first);
    /* every scratch slot alive beside one of them has other bytes */
    int clashes = 0;
    for (int i = 0; i < b.n_slots; i++) {
        struct samrt_internal_budget_slot s;
        samrt_internal_budget_slot(e, i, &s);
        if (strcmp(s.region, "scratch")) continue;
        for (int j = 0; j < N_FRAME_SLOTS; j++) {
            if (i == idx[j]) continue;
            const int same_time = s.t_first <= f[j].t_last && f[j].t_first <= s.t_last;
            if (same_time && overlap(s.offset, s.nbytes, f[j].offset, f[j].nbytes)) {
                fprintf(stderr, "%s: %s [%d,%d] shares bytes with %s\n", samrt_model_name(model), s.name, s.t_first,
                        s.t_last, k_names[j]);
                clashes++;
            }
        }
    }
    CHECK_EQ_INT(clashes, 0);
    samrt_engine_free(e);
}

static void check_host_plan(void) {
    samrt_engine_t e = plan(SAMRT_MODEL_EFFICIENTTAM_TI, "cpu", SAMRT_DTYPE_F32, 1024);
    if (!e) return;
    struct samrt_internal_budget b;
    CHECK_STATUS(samrt_internal_budget(e, &b), SAMRT_OK);
    int input = 0, device = 0;
    for (int i = 0; i < b.n_slots; i++) {
        struct samrt_internal_budget_slot s;
        samrt_internal_budget_slot(e, i, &s);
        if (s.name && !strcmp(s.name, "sam2.input")) input += !strcmp(s.region, "scratch");
        for (int j = 0; j < N_FRAME_SLOTS; j++) device += s.name && j != 1 && !strcmp(s.name, k_names[j]);
    }
    CHECK_EQ_INT(input, 1);
    CHECK_EQ_INT(device, 0);
    samrt_engine_free(e);
}

/* The target: Ti/2, fp16, 1080p frames, an Orin Nano: at most 150 MiB. */
static void check_target(void) {
    samrt_engine_t e = plan(SAMRT_MODEL_EFFICIENTTAM_TI_2, "orin-nano-8gb", SAMRT_DTYPE_F16, 1024);
    if (!e) return;
    struct samrt_memory_report m;
    CHECK_STATUS(samrt_engine_memory(e, &m), SAMRT_OK);
    printf("efficienttam_ti_2 fp16 orin-nano-8gb 1920x1080: arena %.2f MiB (staging %.2f, scratch %.2f)\n",
           m.arena_bytes / 1048576.0, m.staging_bytes / 1048576.0, m.scratch_bytes / 1048576.0);
    CHECK(m.arena_bytes <= 150ull << 20);
    samrt_engine_free(e);
}

int main(void) {
    check_device_plan(SAMRT_MODEL_SAM2_1_TINY, 1024);
    check_device_plan(SAMRT_MODEL_EDGETAM, 1024);
    check_device_plan(SAMRT_MODEL_EFFICIENTTAM_TI_2, 1024);
    check_device_plan(SAMRT_MODEL_EFFICIENTTAM_TI_512, 512);
    check_host_plan();
    check_target();
    return check_report("test_frame_slots");
}
