/* track_post.c - the tracker's notebook post-processing (track_post.h): hole filling of the
 * low-res logits and the binarised memories of prompted frames, run on the memory encoder's
 * context (same stream, so the order with the frame's other passes is the stream order).
 * Design choice: the fill writes a separate tensor (low_fill) instead of filling cur_low in
 * place, because the tracked objects' memories must be encoded from the unfilled logits
 * while the prompted objects' memories and every output use the filled ones.
 * Tests: tests/test_sam2_track.c, tests/test_fill_holes.c. */
#include "track_post.h"

#include "engine_impl.h"
#include "ops_sam2.h"
#include "sam2.h"
#include "track_state.h"


int samrt_sam2_track_fill_area(const struct samrt_sam2_track_options *o) {
    if (o->fill_hole_area > 0) return o->fill_hole_area;
    return o->postproc == SAMRT_POSTPROC_NOTEBOOK ? SAMRT_TRACK_FILL_HOLE_AREA : 0;
}

int samrt_sam2_track_post_on(const struct samrt_sam2_tracker *t) {
    return t->opt.postproc == SAMRT_POSTPROC_NOTEBOOK || samrt_sam2_track_fill_area(&t->opt) > 0;
}

enum samrt_status samrt_sam2_track_post_plan(struct samrt_engine *e, struct samrt_sam2 *m) {
    (void)e;
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_sam2_track_post *p = &t->post;
    struct samrt_op_ctx *c = &m->seg.ctx;
    const int64_t K = t->k_max, L = 4 * (int64_t)t->grid, n_tok = t->mem_tok;  /* g*g, EdgeTAM 512 */
    SAMRT_TRY(samrt_ctx_persistent(c, "track.low_fill", SAMRT_REGION_STAGING, SAMRT_DTYPE_F32, 4, SAMRT_SHAPE(K, 1, L, L),
                                   &p->low_fill, &p->slot_low_fill));
    SAMRT_TRY(samrt_ctx_persistent(c, "track.fill_ws", SAMRT_REGION_STAGING, SAMRT_DTYPE_I32, 1,
                                   SAMRT_SHAPE(2 * K * L * L), &p->fill_ws, &p->slot_fill_ws));
    return samrt_ctx_persistent(c, "track.enc_tmp", SAMRT_REGION_STAGING, SAMRT_DTYPE_BF16, 3,
                                SAMRT_SHAPE(K, n_tok, SAMRT_SAM2_MEM_DIM), &p->enc_tmp, &p->slot_enc_tmp);
}

void samrt_sam2_track_post_prepare(struct samrt_engine *e, struct samrt_sam2 *m) {
    struct samrt_sam2_track_post *p = &m->trk.post;
    p->low_fill.data = samrt_arena_ptr(&e->arena, p->slot_low_fill);
    p->fill_ws.data = samrt_arena_ptr(&e->arena, p->slot_fill_ws);
    p->enc_tmp.data = samrt_arena_ptr(&e->arena, p->slot_enc_tmp);
}

const struct samrt_tensor *samrt_sam2_track_post_low(const struct samrt_sam2_tracker *t) {
    return samrt_sam2_track_fill_area(&t->opt) > 0 ? &t->post.low_fill : &t->cur_low;
}

/* One memory encoder run on the memenc pass (RUN mode) from low (K rows) into out. */
static enum samrt_status encode(struct samrt_engine *e, struct samrt_sam2 *m, const struct samrt_tensor *low,
                                int binarize, const struct samrt_tensor *out) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_op_ctx *c = &t->memenc_pass.ctx;
    samrt_ctx_begin(c, SAMRT_EXEC_RUN, &e->arena);
    if (t->perceiver)  /* EdgeTAM: the memory encoder's features through the spatial perceiver */
        samrt_sam2_memenc_forward_perceiver(t->perceiver, &t->memenc, c, &m->enc.vision, low, binarize, out);
    else
        samrt_sam2_memenc_forward(&t->memenc, c, &m->enc.vision, low, &t->cur_score, binarize, out);
    return samrt_ctx_end(c);
}

enum samrt_status samrt_sam2_track_post_encode(struct samrt_engine *e, struct samrt_sam2 *m, const int *is_prompted,
                                               const struct samrt_tensor *out) {
    struct samrt_sam2_tracker *t = &m->trk;
    struct samrt_op_ctx *c = &t->memenc_pass.ctx;
    const int max_area = samrt_sam2_track_fill_area(&t->opt);
    const int binarize = t->opt.postproc == SAMRT_POSTPROC_NOTEBOOK;
    if (max_area > 0) SAMRT_TRY(samrt_op_fill_holes(c, &t->cur_low, max_area, &t->post.low_fill, &t->post.fill_ws));
    const struct samrt_tensor *low_p = max_area > 0 ? &t->post.low_fill : &t->cur_low;
    int n_prompted = 0, n_tracked = 0;
    for (int k = 0; k < t->n_obj; k++) {
        if (is_prompted[k]) n_prompted++;
        else if (t->obj[k].first_frame >= 0) n_tracked++;
    }
    if (n_prompted == 0) return encode(e, m, &t->cur_low, 0, out);
    if (n_tracked == 0) return encode(e, m, low_p, binarize, out);
    SAMRT_TRY(encode(e, m, &t->cur_low, 0, out));
    SAMRT_TRY(encode(e, m, low_p, binarize, &t->post.enc_tmp));
    const size_t mb = (size_t)out->s[0] * samrt_dtype_size(SAMRT_DTYPE_BF16);
    for (int k = 0; k < t->n_obj; k++)
        if (is_prompted[k])
            SAMRT_TRY(samrt_ctx_memcpy(c, (char *)out->data + (size_t)k * mb,
                                       (const char *)t->post.enc_tmp.data + (size_t)k * mb, mb));
    return SAMRT_OK;
}
