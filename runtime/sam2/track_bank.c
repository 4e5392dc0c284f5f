/* track_bank.c - memory bank bookkeeping and the selection rules of SAM 2.1 tracking
 * (track_bank.h; model-spec 4.3, 4.4). Forward tracking with temporal stride 1 only: the
 * official rule for t_rel >= 2, ((t-2)//r)*r - (t_rel-2)*r, is t - t_rel at r = 1.
 * Tests: tests/test_sam2_track_bank.c. */
#include "track_bank.h"

#include <math.h>
#include <string.h>

void samrt_track_bank_reset(struct samrt_track_bank *b) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < SAMRT_TRACK_RING; i++) b->ring_frame[i] = -1;
    for (int i = 0; i < SAMRT_TRACK_PTR_RING; i++) b->ptr_frame[i] = -1;
}

int samrt_track_bank_is_cond(const struct samrt_track_bank *b, int t) {
    for (int i = 0; i < b->n_cond; i++)
        if (b->cond_frame[i] == t) return 1;
    return 0;
}

void samrt_track_bank_add_cond(struct samrt_track_bank *b, int t, int *mem_slot, int *ptr_slot) {
    int k;
    if (b->n_cond > 0 && b->cond_frame[b->n_cond - 1] == t) {
        k = b->cond_slot[b->n_cond - 1];  /* the same frame prompted again: overwrite */
    } else {
        if (b->n_cond == SAMRT_TRACK_MAX_COND) {  /* evict the oldest, keep prompt order */
            k = b->cond_slot[0];
            memmove(b->cond_frame, b->cond_frame + 1, sizeof(int) * (SAMRT_TRACK_MAX_COND - 1));
            memmove(b->cond_slot, b->cond_slot + 1, sizeof(int) * (SAMRT_TRACK_MAX_COND - 1));
            b->n_cond--;
            b->n_evicted++;
        } else {
            int used = 0;
            for (int i = 0; i < b->n_cond; i++) used |= 1 << b->cond_slot[i];
            for (k = 0; used & (1 << k); k++) {}
        }
        b->cond_frame[b->n_cond] = t;
        b->cond_slot[b->n_cond] = k;
        b->n_cond++;
    }
    /* a frame is either conditioning or tracked: forget any tracked copy of t */
    if (b->ring_frame[t % SAMRT_TRACK_RING] == t) b->ring_frame[t % SAMRT_TRACK_RING] = -1;
    if (b->ptr_frame[t % SAMRT_TRACK_PTR_RING] == t) b->ptr_frame[t % SAMRT_TRACK_PTR_RING] = -1;
    *mem_slot = SAMRT_TRACK_RING + k;
    *ptr_slot = SAMRT_TRACK_PTR_RING + k;
}

void samrt_track_bank_add_tracked(struct samrt_track_bank *b, int t, int *mem_slot, int *ptr_slot) {
    const int r = t % SAMRT_TRACK_RING, p = t % SAMRT_TRACK_PTR_RING;
    b->ring_frame[r] = t;
    b->ptr_frame[p] = t;
    *mem_slot = r;
    *ptr_slot = p;
}

void samrt_track_bank_select(const struct samrt_track_bank *b, int t, int num_frames,
                             struct samrt_track_selection *sel) {
    memset(sel, 0, sizeof *sel);
    /* conditioning frames first, all of them, t_pos 0 -> tpos index num_maskmem - 1 */
    for (int i = 0; i < b->n_cond; i++) {
        sel->mem_slot[sel->n_mem] = SAMRT_TRACK_RING + b->cond_slot[i];
        sel->mem_frame[sel->n_mem] = b->cond_frame[i];
        sel->mem_tpos[sel->n_mem] = SAMRT_TRACK_NUM_MASKMEM - 1;
        sel->n_mem++;
    }
    /* t_pos 1..6 = frames t-6 .. t-1; missing ones (before the start, conditioning) skipped */
    for (int t_pos = 1; t_pos < SAMRT_TRACK_NUM_MASKMEM; t_pos++) {
        const int f = t - (SAMRT_TRACK_NUM_MASKMEM - t_pos);
        if (f < 0 || b->ring_frame[f % SAMRT_TRACK_RING] != f) continue;
        sel->mem_slot[sel->n_mem] = f % SAMRT_TRACK_RING;
        sel->mem_frame[sel->n_mem] = f;
        sel->mem_tpos[sel->n_mem] = SAMRT_TRACK_NUM_MASKMEM - t_pos - 1;
        sel->n_mem++;
    }
    /* pointers: conditioning frames in the past (c <= t), then d = 1 .. max_ptr-1 */
    sel->max_ptr = num_frames > 0 && num_frames < SAMRT_TRACK_MAX_PTRS ? num_frames : SAMRT_TRACK_MAX_PTRS;
    for (int i = 0; i < b->n_cond; i++) {
        if (b->cond_frame[i] > t) continue;
        sel->ptr_slot[sel->n_ptr] = SAMRT_TRACK_PTR_RING + b->cond_slot[i];
        sel->ptr_frame[sel->n_ptr] = b->cond_frame[i];
        sel->ptr_dist[sel->n_ptr] = t - b->cond_frame[i];
        sel->n_ptr++;
    }
    for (int d = 1; d < sel->max_ptr; d++) {
        const int f = t - d;
        if (f < 0) break;
        if (b->ptr_frame[f % SAMRT_TRACK_PTR_RING] != f) continue;
        sel->ptr_slot[sel->n_ptr] = f % SAMRT_TRACK_PTR_RING;
        sel->ptr_frame[sel->n_ptr] = f;
        sel->ptr_dist[sel->n_ptr] = d;
        sel->n_ptr++;
    }
}

void samrt_track_ptr_sine(int dist, int max_ptr, float *out) {
    const float p = max_ptr > 1 ? (float)dist / (float)(max_ptr - 1) : (float)dist;
    for (int k = 0; k < 128; k++) {
        const float dim_t = powf(10000.0f, (float)(2 * (k / 2)) / 128.0f);
        const float a = p / dim_t;
        out[k] = sinf(a);
        out[128 + k] = cosf(a);
    }
}
