/* track_taps.c - the tracker's parity taps (track_taps.h): after every push, each started
 * object's per-frame tensors under the official names of tests/parity/dump_taps.py (`samrt
 * track --dump-taps`, docs/parity.md; tracker.c's samrt_sam2_track_set_tap turns them on).
 * Debug path only: the observer gets host copies and device views the push has already
 * synchronised. */
#include "track_taps.h"

#include <stdio.h>

#include "sam2.h"

/* One tap: "<pre>frame.<f>.<what>", or "<what>" alone for f < 0. */
static enum samrt_status emit(struct samrt_sam2_tracker *t, const char *pre, int f, const char *what, void *data,
                              enum samrt_dtype dt, int n_dims, const int64_t *ne) {
    char name[96];
    if (f >= 0) snprintf(name, sizeof name, "%sframe.%d.%s", pre, f, what);
    else snprintf(name, sizeof name, "%s", what);
    const struct samrt_tensor x = samrt_tensor_make(data, dt, n_dims, ne);
    return t->tap(t->tap_user, name, &x);
}

/* Every object's taps of frame f (after the push's work: all objects in t->obj have started,
 * a prompt applies to the next push, so an object not started yet is not there). Object slot
 * k's rows: low_host / score_host / cur_ptr row k, its memory in ring slot f % 6 row k. The
 * first-added object keeps the plain names, the others get "obj<id>." in front. tracked: no
 * object was prompted on this frame, so every row of pix is its memory attention output. */
enum samrt_status samrt_sam2_track_frame_taps(struct samrt_sam2 *m, int f, int tracked) {
    struct samrt_sam2_tracker *t = &m->trk;
    const int64_t L = m->seg.heads.low, g = t->grid, n_pix = (int64_t)t->width * t->height;
    const size_t es = samrt_dtype_size(SAMRT_DTYPE_BF16);
    char *ring = (char *)t->mem_bank.data + (size_t)(f % SAMRT_TRACK_RING) * (size_t)t->mem_bank.s[0] * es;
    for (int k = 0; k < t->n_obj; k++) {
        char pre[32] = "";
        if (k > 0) snprintf(pre, sizeof pre, "obj%d.", t->obj[k].obj_id);
        SAMRT_TRY(emit(t, pre, f, "pred_masks", t->low_host + k * L * L, SAMRT_DTYPE_F32, 4, SAMRT_SHAPE(1, L, L, 1)));
        SAMRT_TRY(emit(t, pre, f, "object_score_logits", t->score_host + k, SAMRT_DTYPE_F32, 2, SAMRT_SHAPE(1, 1)));
        SAMRT_TRY(emit(t, pre, f, "obj_ptr", (float *)t->cur_ptr.data + k * t->cur_ptr.s[0], SAMRT_DTYPE_F32, 2,
                       SAMRT_SHAPE(1, SAMRT_SAM2_DIM)));
        /* EdgeTAM: the perceiver's (1, 512, 64) tokens */
        char *mem = ring + (size_t)k * (size_t)t->mem_bank.s[1] * es;
        if (t->edgetam)
            SAMRT_TRY(emit(t, pre, f, "maskmem_features", mem, SAMRT_DTYPE_BF16, 3, SAMRT_SHAPE(1, t->mem_tok, 64)));
        else
            SAMRT_TRY(emit(t, pre, f, "maskmem_features", mem, SAMRT_DTYPE_BF16, 4,
                           SAMRT_SHAPE(1, g, g, SAMRT_SAM2_MEM_DIM)));
        /* a tracked frame's memory attention output (g*g, 1, 256), the official tap's layout */
        if (t->tap_memattn && tracked && f > 0)
            SAMRT_TRY(emit(t, pre, f, "memattn.out",
                           (char *)t->pix.data + (size_t)k * (size_t)t->pix.s[0] * samrt_dtype_size(t->pix.dtype),
                           t->pix.dtype, 3, SAMRT_SHAPE(g * g, 1, SAMRT_SAM2_DIM)));
        /* the raw per-object logits: --non-overlap changes the masks only */
        SAMRT_TRY(emit(t, pre, f, "video_res_masks", t->logits_host + k * n_pix, SAMRT_DTYPE_F32, 4,
                       SAMRT_SHAPE(1, t->height, t->width, 1)));
    }
    /* constant per model: once (EdgeTAM: memory attention's position of the perceiver tokens) */
    if (f == 0 && t->edgetam)
        SAMRT_TRY(emit(t, "", -1, "mem.pos_enc", t->memattn.mem_pos.data, t->memattn.mem_pos.dtype, 3,
                       SAMRT_SHAPE(1, t->mem_tok, 64)));
    else if (f == 0)
        SAMRT_TRY(emit(t, "", -1, "mem.pos_enc", t->memenc.pos.data, SAMRT_DTYPE_F32, 4, SAMRT_SHAPE(1, g, g, 64)));
    return SAMRT_OK;
}
