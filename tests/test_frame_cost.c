/* test_frame_cost.c - the planned work of one steady tracked frame (samrt_internal_frame_cost,
 * `samrt budget`'s "frame"), without a GPU, on plan-only engines of the h100-80gb profile
 * (132 SMs: the attention split-K choice is the one that GPU makes):
 *   - a hand count: the memory attention stage of SAM 2.1 tiny (1 object, 7 memories, 16
 *     pointers), launch by launch from the official MemoryAttention module and the op layer's
 *     rules (below), and its FLOPs against the analytic total of the model notes
 *     (605.61 GFLOP at L = 28736 keys; EdgeTAM 89.06 at L = 3648);
 *   - the memory encoder's FLOPs against the same notes (11.61 / 12.63 GFLOP);
 *   - structure: a second object adds exactly one memory attention pass and its five copies
 *     (the heads and the memory encoder run batched over the object slots, the image encoder
 *     once), the stages sum to the total, precision changes bytes but not launches or FLOPs;
 *   - memory policies: samurai's and dam4sam's kernels counted in the heads stage;
 *   - bad arguments are refused.
 * The GPU side (the frame's graph holds exactly the planned kernels) is test_frame_cost_cuda. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "projection.h"
#include "samrt_internal.h"

static samrt_engine_t plan(enum samrt_model_id model, enum samrt_dtype dt, int objects) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = "h100-80gb";
    p.precision = dt;
    p.max_objects = objects;
    p.max_frame_width = 1280;
    p.max_frame_height = 720;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init_plan_only(model, &p, &e), SAMRT_OK);
    return e;
}

static int cost(samrt_engine_t e, int objects, struct samrt_internal_frame_cost *fc) {
    const enum samrt_status st = samrt_internal_frame_cost(e, objects, 1280, 720, fc);
    CHECK_STATUS(st, SAMRT_OK);
    return st == SAMRT_OK;
}

static int near(double got, double want, double rel) { return fabs(got - want) <= rel * fabs(want); }

/* SAM 2.1 tiny's memory attention, one object, by hand. Per tracked object the runtime
 * gathers its memories and pointers (2 row kernels) and copies its tpos rows and pointer
 * positions (2 copies). The pass (models/sam2/memory_attention.c, the official module):
 *   input: curr + 0.1 pos                                                      1
 *   7 memories: pos + tpos row (affine), memory + pos into the key input, memory into the
 *     value input (2 copies)                                                  21
 *   16 pointers: sine encoding, the tpos projection, its repeat over the 4 tokens, the
 *     pointer tokens into the key and value inputs                              5
 *   4 layers x [ self-attention: norm, q k v projections, attention, out projection
 *                cross-attention: norm, q k v projections, attention, out projection
 *                feed-forward: norm, linear + ReLU (cuBLASLt's epilogue), linear ]
 *     where each attention rotates q and k (2 RoPE passes), runs, and combines its split-K
 *     partials (4096 queries are 64 query tiles: fewer than 132 SMs hold, so it splits)
 *       = 4 x (2 x (1 + 3 + 4 + 1) + 3)                                          84
 *   final norm                                                                  1
 *   the result into the object's row of the heads' input (a copy kernel)         1 */
static void tiny_by_hand(void) {
    samrt_engine_t e = plan(SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F16, 1);
    struct samrt_internal_frame_cost fc;
    if (!e || !cost(e, 1, &fc)) goto out;
    const struct samrt_internal_cost *ma = &fc.stage[SAMRT_INTERNAL_STAGE_MA];
    const int64_t pass = 1 + 21 + 5 + 4 * (2 * (1 + 3 + 4 + 1) + 3) + 1 + 1;
    CHECK_MSG(ma->launches == 2 + pass, "tiny memory attention: %lld launches planned, %lld by hand",
              (long long)ma->launches, (long long)(2 + pass));
    CHECK_EQ_INT((int)ma->copies, 2);
    CHECK_MSG(near(ma->flops, 605.61e9, 0.002), "tiny memory attention: %.2f GFLOP, the notes 605.61", ma->flops / 1e9);
    const struct samrt_internal_cost *me = &fc.stage[SAMRT_INTERNAL_STAGE_MEMENC];
    CHECK_MSG(near(me->flops, 11.61e9, 0.03), "tiny memory encoder: %.2f GFLOP, the notes 11.61", me->flops / 1e9);
    /* the stages are the frame */
    struct samrt_internal_cost sum = {0};
    for (int i = 0; i < SAMRT_INTERNAL_STAGES; i++) {
        sum.launches += fc.stage[i].launches;
        sum.copies += fc.stage[i].copies;
        sum.flops += fc.stage[i].flops;
        CHECK(fc.stage[i].launches > 0 && fc.stage[i].bytes > 0);
        CHECK(samrt_internal_stage_name(i) != NULL);
    }
    CHECK(sum.launches == fc.total.launches && sum.copies == fc.total.copies && near(sum.flops, fc.total.flops, 1e-12));
    CHECK(samrt_internal_stage_name(SAMRT_INTERNAL_STAGES) == NULL && samrt_internal_stage_name(-1) == NULL);
    /* one resize; masks decoded: stats reset + decode */
    CHECK_EQ_INT((int)fc.stage[SAMRT_INTERNAL_STAGE_PRE].launches, 1);
    CHECK_EQ_INT((int)fc.stage[SAMRT_INTERNAL_STAGE_POST].launches, 2);
    CHECK_EQ_INT((int)fc.stage[SAMRT_INTERNAL_STAGE_HEADS].copies, 3);
    printf("sam2.1_tiny fp16, 1 object: %lld launches, %lld copies, %.1f GFLOP, %.1f MB per frame; memory "
           "attention %lld launches (by hand %lld), %.2f GFLOP\n", (long long)fc.total.launches,
           (long long)fc.total.copies, fc.total.flops / 1e9, fc.total.bytes / 1e6, (long long)ma->launches,
           (long long)(2 + pass), ma->flops / 1e9);
    /* refused */
    CHECK_STATUS(samrt_internal_frame_cost(e, 2, 1280, 720, &fc), SAMRT_E_INVALID_ARG);   /* planned for 1 */
    CHECK_STATUS(samrt_internal_frame_cost(e, 0, 1280, 720, &fc), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_internal_frame_cost(e, 1, 0, 720, &fc), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_internal_frame_cost(e, 1, 1280, 720, NULL), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_internal_frame_cost(NULL, 1, 1280, 720, &fc), SAMRT_E_INVALID_ARG);
out:
    samrt_engine_free(e);
}

/* objects: one more object = one more memory attention pass, its 2 gathers and 5 copies */
static void per_object(enum samrt_model_id model, const char *name, double ma_gflop, double me_gflop) {
    samrt_engine_t e = plan(model, SAMRT_DTYPE_F16, 2);
    samrt_engine_t b = plan(model, SAMRT_DTYPE_BF16, 2);
    struct samrt_internal_frame_cost one, two, bf;
    if (!e || !b || !cost(e, 1, &one) || !cost(e, 2, &two) || !cost(b, 1, &bf)) goto out;
    const struct samrt_internal_cost *m1 = &one.stage[SAMRT_INTERNAL_STAGE_MA], *m2 = &two.stage[SAMRT_INTERNAL_STAGE_MA];
    CHECK_MSG(m2->launches == 2 * m1->launches && near(m2->flops, 2 * m1->flops, 1e-12),
              "%s: 2 objects' memory attention %lld launches, 1 object's %lld", name, (long long)m2->launches,
              (long long)m1->launches);
    CHECK_EQ_INT((int)(two.total.copies - one.total.copies), 5);
    CHECK_EQ_INT((int)(two.total.launches - one.total.launches), (int)m1->launches);
    for (int s = 0; s < SAMRT_INTERNAL_STAGES; s++)
        if (s != SAMRT_INTERNAL_STAGE_MA)
            CHECK_MSG(one.stage[s].launches == two.stage[s].launches, "%s: stage %s launches differ with objects",
                      name, samrt_internal_stage_name(s));
    CHECK_MSG(near(m1->flops, ma_gflop * 1e9, 0.002), "%s memory attention %.2f GFLOP, the notes %.2f", name,
              m1->flops / 1e9, ma_gflop);
    /* the memory encoder runs batched over the engine's 2 object slots */
    CHECK_MSG(near(one.stage[SAMRT_INTERNAL_STAGE_MEMENC].flops, 2 * me_gflop * 1e9, 0.03),
              "%s memory encoder over 2 slots %.2f GFLOP, the notes 2 x %.2f", name,
              one.stage[SAMRT_INTERNAL_STAGE_MEMENC].flops / 1e9, me_gflop);
    /* bf16: the same memory attention; the image encoder and the heads may run extra
     * conversion or unfused launches (printed), never fewer */
    CHECK(bf.stage[SAMRT_INTERNAL_STAGE_MA].launches == m1->launches && bf.total.launches >= one.total.launches);
    CHECK(near(bf.total.flops, one.total.flops, 0.01));
    printf("%s in a 2-object engine, fp16: 1 object %lld launches %.1f MB, 2 objects %lld launches %.1f MB; bf16 1 "
           "object %lld launches %.1f MB\n", name, (long long)one.total.launches, one.total.bytes / 1e6,
           (long long)two.total.launches, two.total.bytes / 1e6, (long long)bf.total.launches, bf.total.bytes / 1e6);
out:
    samrt_engine_free(e);
    samrt_engine_free(b);
}

/* The projection: each launch's time at the projection's rates (runtime/projection.h) plus its
 * launch cost, summed, lies between the whole frame's at those rates and the sum of both terms,
 * and above the roofline of the published peaks; a slower board is slower; the stages sum to
 * the frame. */
static void projection(enum samrt_model_id model, const char *name) {
    static const char *const boards[] = {"h100-80gb", "agx-orin-64gb", "orin-nx-16gb", "orin-nano-8gb"};
    double prev = 0;
    for (int i = 0; i < 4; i++) {
        struct samrt_engine_params p = samrt_engine_default_params();
        p.platform = boards[i];
        p.precision = SAMRT_DTYPE_F16;
        p.max_frame_width = 1280;
        p.max_frame_height = 720;
        samrt_engine_t e = NULL;
        CHECK_STATUS(samrt_engine_init_plan_only(model, &p, &e), SAMRT_OK);
        struct samrt_internal_frame_cost fc;
        if (!e || !cost(e, 1, &fc)) {
            samrt_engine_free(e);
            continue;
        }
        const struct samrt_platform_profile *pf = samrt_platform_profile_by_name(boards[i]);
        double r_f, r_b, r_l;
        samrt_projection_rates(pf, &r_f, &r_b, &r_l);
        CHECK(r_f > 0 && r_b > 0 && r_b <= pf->dram_gbps * 1e9 && r_l > 0);
        const double t_f = fc.total.flops / r_f, t_b = fc.total.bytes / r_b;
        const double lo = 1e3 * (t_f > t_b ? t_f : t_b);
        const double hi = 1e3 * (t_f + t_b + (double)(fc.total.launches + fc.total.copies) * r_l);
        const double floor_ms = 1e3 * fmax(fc.total.flops / (pf->fp16_tflops * 1e12), fc.total.bytes / (pf->dram_gbps * 1e9));
        CHECK_MSG(fc.total.projected_ms >= lo * (1 - 1e-9) && fc.total.projected_ms <= hi * (1 + 1e-9),
                  "%s on %s: projected %.3f ms outside [%.3f, %.3f]", name, boards[i], fc.total.projected_ms, lo, hi);
        double sum = 0;
        for (int s = 0; s < SAMRT_INTERNAL_STAGES; s++) sum += fc.stage[s].projected_ms;
        CHECK(near(sum, fc.total.projected_ms, 1e-9));
        CHECK_MSG(fc.total.projected_ms > prev, "%s: %s (%.3f ms) is not slower than the board before (%.3f)", name,
                  boards[i], fc.total.projected_ms, prev);
        CHECK(fc.total.projected_ms >= floor_ms);  /* never faster than the published peaks allow */
        printf("%s fp16 on %s: projected %.2f ms per frame (the published peaks' roofline %.2f ms)\n", name, boards[i],
               fc.total.projected_ms, floor_ms);
        prev = fc.total.projected_ms;
        samrt_engine_free(e);
    }
}

/* memory policies: samurai adds its 3 launches (box init, boxes, decisions) and dam4sam its 1
 * to the heads stage per frame, over every object at once; the bytes by hand from the
 * low-res planes (4 L^2 bytes each: samurai 5 per object, dam4sam 11); nothing else moves */
static void policies(enum samrt_model_id model, const char *name) {
    static const enum samrt_memory_policy kinds[] = {SAMRT_MEMORY_SAMURAI, SAMRT_MEMORY_DAM4SAM};
    static const int launches[] = {3, 1}, planes[] = {5, 11};
    samrt_engine_t base = plan(model, SAMRT_DTYPE_F16, 2);
    struct samrt_internal_frame_cost b1, b2;
    if (!base || !cost(base, 1, &b1) || !cost(base, 2, &b2)) goto out;
    for (int i = 0; i < 2; i++) {
        struct samrt_engine_params p = samrt_engine_default_params();
        p.platform = "h100-80gb";
        p.precision = SAMRT_DTYPE_F16;
        p.max_objects = 2;
        p.max_frame_width = 1280;
        p.max_frame_height = 720;
        p.memory = kinds[i];
        samrt_engine_t e = NULL;
        CHECK_STATUS(samrt_engine_init_plan_only(model, &p, &e), SAMRT_OK);
        struct samrt_internal_frame_cost f1, f2;
        if (!e || !cost(e, 1, &f1) || !cost(e, 2, &f2)) {
            samrt_engine_free(e);
            continue;
        }
        const char *pol = samrt_memory_policy_name(kinds[i]);
        const int H = SAMRT_INTERNAL_STAGE_HEADS;
        for (int s = 0; s < SAMRT_INTERNAL_STAGES; s++) {
            const int64_t want = b1.stage[s].launches + (s == H ? launches[i] : 0);
            CHECK_MSG(f1.stage[s].launches == want, "%s %s: stage %s %lld launches, want %lld", name, pol,
                      samrt_internal_stage_name(s), (long long)f1.stage[s].launches, (long long)want);
        }
        CHECK_EQ_INT((int)(f2.stage[H].launches - b2.stage[H].launches), launches[i]);  /* batched over objects */
        const double low = 256.0, plane = 4.0 * low * low;  /* 1024 input: 256 x 256 low-res logits */
        for (int n = 1; n <= 2; n++) {
            const double got = (n == 1 ? f1 : f2).stage[H].bytes - (n == 1 ? b1 : b2).stage[H].bytes;
            CHECK_MSG(near(got, n * planes[i] * plane, 1e-9), "%s %s, %d objects: %.0f policy bytes, by hand %.0f",
                      name, pol, n, got, n * planes[i] * plane);
        }
        CHECK(f1.stage[H].projected_ms > b1.stage[H].projected_ms);
        printf("%s fp16 %s, 1 object: heads %lld launches (sam2 %lld), %.2f MB (sam2 %.2f); frame %lld launches\n",
               name, pol, (long long)f1.stage[H].launches, (long long)b1.stage[H].launches, f1.stage[H].bytes / 1e6,
               b1.stage[H].bytes / 1e6, (long long)f1.total.launches);
        samrt_engine_free(e);
    }
out:
    samrt_engine_free(base);
}

int main(void) {
    tiny_by_hand();
    policies(SAMRT_MODEL_SAM2_1_TINY, "sam2.1_tiny");
    policies(SAMRT_MODEL_EDGETAM, "edgetam");
    projection(SAMRT_MODEL_SAM2_1_TINY, "sam2.1_tiny");
    projection(SAMRT_MODEL_EDGETAM, "edgetam");
    per_object(SAMRT_MODEL_SAM2_1_TINY, "sam2.1_tiny", 605.61, 11.61);
    per_object(SAMRT_MODEL_EDGETAM, "edgetam", 89.06, 12.63);
    return check_report("test_frame_cost");
}
