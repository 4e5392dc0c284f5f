/* track_cost.c - the work of one steady tracked frame, from the plan (samrt_internal.h's
 * samrt_internal_frame_cost, `samrt budget`'s "frame"): the launches, copies, flops and bytes
 * tracker_run.c's enqueue_frame and decode_frame issue when every object is tracked with a
 * full bank (one conditioning frame, 7 memories, 16 pointers), summed stage by stage.
 *
 * The passes' ops are not counted again here: each pass's PLAN recorded its own cost
 * (ops.h, struct samrt_op_cost), so this file adds only what the runtime launches around them
 * (the resize, the table-driven row copies, the per-object staging copies, the memory policy's
 * kernels, the health check, the mask decode) and mirrors enqueue_frame's order. A change to enqueue_frame that adds a
 * launch must add it here too: tests/test_frame_cost_cuda.c compares this count with the
 * kernel nodes of the frame's captured graph, and tests/test_frame_cost.c with a hand count. */
#include <stdio.h>
#include <string.h>

#include "engine_impl.h"
#include "projection.h"
#include "sam2.h"
#include "track_bank.h"
#include "tracker_run.h"

/* The platform's peaks (engine profile): a launch's roofline and per-launch cost. */
struct peaks {
    double flops, bytes_s, launch_s;
};

static void add(struct samrt_internal_cost *c, const struct peaks *pk, int64_t launches, int64_t copies,
                double flops, double bytes) {
    if (samrt_ctx_cost_tracing())
        fprintf(stderr, "frame op %p: %lld launches %lld copies %.0f flops %.0f bytes\n", (const void *)c,
                (long long)launches, (long long)copies, flops, bytes);
    c->launches += launches;
    c->copies += copies;
    c->flops += flops;
    c->bytes += bytes;
    c->projected_ms += 1e3 * samrt_op_roof_s(flops, bytes, launches + copies, pk->flops, pk->bytes_s, pk->launch_s);
}

static void add_pass(struct samrt_internal_cost *c, const struct samrt_op_ctx *ctx, int times) {
    if (samrt_ctx_cost_tracing())
        fprintf(stderr, "frame pass %p x %d: %lld launches, stage %p\n", (const void *)ctx, times,
                (long long)ctx->cost.launches, (const void *)c);
    c->launches += ctx->cost.launches * times;
    c->flops += ctx->cost.flops * times;
    c->bytes += ctx->cost.bytes * times;
    c->projected_ms += 1e3 * ctx->cost.roof_s * times;
}

static double nbytes(const struct samrt_tensor *t) { return (double)samrt_tensor_nbytes(t); }

enum samrt_status samrt_sam2_frame_cost(struct samrt_engine *e, int objects, int width, int height,
                                        struct samrt_internal_frame_cost *out) {
    SAMRT_CHECK(e && out, SAMRT_E_INVALID_ARG, "frame cost: engine and out are required");
    memset(out, 0, sizeof *out);
    const struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->trk.planned && m->trk.ma, SAMRT_E_UNSUPPORTED,
                "frame cost: this engine plans no tracking (SAM 2.1 or EdgeTAM with max_objects >= 1)");
    const struct samrt_sam2_tracker *t = &m->trk;
    SAMRT_CHECK(objects >= 1 && objects <= t->k_max, SAMRT_E_INVALID_ARG,
                "frame cost: %d objects (the engine tracks 1 .. %d)", objects, t->k_max);
    SAMRT_CHECK(width > 0 && height > 0, SAMRT_E_INVALID_ARG, "frame cost: frame %dx%d", width, height);
    const int n = objects, S = 1 + SAMRT_TRACK_RING, P = SAMRT_TRACK_MAX_PTRS;  /* one conditioning frame */
    const struct samrt_sam2_track_pass *ma = &t->ma[samrt_track_ma_index(S, P)];
    SAMRT_CHECK(ma->planned, SAMRT_E_BAD_STATE, "frame cost: the (%d, %d) memory attention pass is not planned", S, P);
    out->objects = n;
    out->width = width;
    out->height = height;
    const double px = (double)width * height, es = (double)samrt_dtype_size(e->precision);
    const double mem_row = (double)t->mem_bank.s[1] * samrt_dtype_size(t->mem_bank.dtype);
    const double ptr_row = sizeof(float) * (double)SAMRT_SAM2_DIM;
    struct samrt_internal_cost *st = out->stage;
    struct peaks pk;
    samrt_projection_rates(e->profile, &pk.flops, &pk.bytes_s, &pk.launch_s);

    /* the frame up (staged RGB) and the table up; the resize-normalize kernel */
    out->transfers += 2;
    out->transfer_bytes += 3.0 * px + nbytes(&t->tab);
    const double side = (double)m->enc.imgsz;
    add(&st[SAMRT_INTERNAL_STAGE_PRE], &pk, 1, 0, 30.0 * 3.0 * side * side, 3.0 * px + 3.0 * side * side * es);

    add_pass(&st[SAMRT_INTERNAL_STAGE_ENC], &m->ctx_enc, 1);

    /* per object: its tpos rows and pointer positions copied into the pass's slots, the memory
     * and pointer gathers, the (S, P) pass */
    const double rows_ma = nbytes(&t->memattn.tpos) + nbytes(&t->memattn.ptr_p);
    add(&st[SAMRT_INTERNAL_STAGE_MA], &pk, 2 * (int64_t)n, 2 * (int64_t)n, 0,
        2.0 * n * (rows_ma + S * mem_row + P * ptr_row));
    add_pass(&st[SAMRT_INTERNAL_STAGE_MA], &ma->ctx, n);

    /* the heads over the object slots, then each object's low-res logits, score and pointer */
    add_pass(&st[SAMRT_INTERNAL_STAGE_HEADS], &t->heads.ctx, 1);
    const double low = (double)m->seg.heads.low;
    add(&st[SAMRT_INTERNAL_STAGE_HEADS], &pk, 0, 3 * (int64_t)n, 0, 2.0 * n * (4.0 * low * low + 4.0 + ptr_row));
    /* the memory policy's kernels on the tracked objects' candidates (track_policy.c) */
    int64_t pol_launches;
    double pol_flops, pol_bytes;
    samrt_sam2_track_policy_cost(&t->policy, n, (int)low, m->enc.imgsz, &pol_launches, &pol_flops, &pol_bytes);
    if (pol_launches) add(&st[SAMRT_INTERNAL_STAGE_HEADS], &pk, pol_launches, 0, pol_flops, pol_bytes);

    /* the memory encoder; the ring and pointer scatters (no conditioning pairs on a tracked
     * frame: that gather launches nothing); the health check (two kernels) */
    add_pass(&st[SAMRT_INTERNAL_STAGE_MEMENC], &t->memenc_pass.ctx, 1);
    add(&st[SAMRT_INTERNAL_STAGE_MEMENC], &pk, 2, 0, 0, 2.0 * (t->k_max * mem_row + n * ptr_row));
    const double health = nbytes(&m->enc.vision) + n * (4.0 * low * low + mem_row + ptr_row);
    add(&st[SAMRT_INTERNAL_STAGE_MEMENC], &pk, 2, 0, health / 4.0, health);

    /* the masks decoded at frame size (stats reset + decode), then masks, stats, scores and the
     * health flags down */
    add(&st[SAMRT_INTERNAL_STAGE_POST], &pk, 2, 0, 8.0 * n * px, n * (4.0 * low * low + px));
    out->transfers += 4;
    out->transfer_bytes += n * px + 64.0 * n + 4.0 * t->k_max + 4.0;

    for (int i = 0; i < SAMRT_INTERNAL_STAGES; i++) {
        out->total.launches += st[i].launches;
        out->total.copies += st[i].copies;
        out->total.flops += st[i].flops;
        out->total.bytes += st[i].bytes;
        out->total.projected_ms += st[i].projected_ms;
    }
    out->graph_launches = out->total.launches - st[SAMRT_INTERNAL_STAGE_POST].launches;
    return SAMRT_OK;
}

enum samrt_status samrt_sam2_track_graph_nodes(struct samrt_engine *e, int *kernels, int *copies, int *captures) {
    *kernels = *copies = *captures = 0;
    const struct samrt_sam2 *m = samrt_sam2_of(e);
    SAMRT_CHECK(m && m->trk.ready, SAMRT_E_UNSUPPORTED, "track graph nodes: this engine does not track");
    const struct samrt_sam2_tracker *t = &m->trk;
    *captures = t->graphs.n_captures;
    if (t->last_graph < 0) return SAMRT_OK;
    *kernels = t->graphs.nodes[t->last_graph].kernels;
    *copies = t->graphs.nodes[t->last_graph].copies;
    return SAMRT_OK;
}
