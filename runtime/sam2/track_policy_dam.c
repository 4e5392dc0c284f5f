/* track_policy_dam.c - DAM4SAM's bank rules (track_policy.h, docs/tracking.md: memory
 * policies): which frames an object attends to (its sam2_base.py
 * _prepare_memory_conditioned_features and sam2_utils.py select_closest_cond_frames, with the
 * object's first prompt frame as the official frame 0) and which slot keeps a tracked frame's
 * memory (one that no later frame can select). The frames an object holds live in its policy
 * state (po->dam_*): the prompt frames stay in the bank's conditioning slots, the tracked ones
 * in the object's other slots. Tests: tests/test_sam2_policy_dam.c. */
#include "track_policy.h"

#include <string.h>

/* One frame the selection may use. */
struct dam_frame {
    int frame, slot, vis, drm;  /* slot: memory slot, -1 = a frame not written yet (kept apart) */
};

struct dam_pick {
    int n_drm, drm[SAMRT_DAM4SAM_MAX_DRM];        /* indices into the frame list, selection order */
    int n_ram, ram[SAMRT_TRACK_NUM_MASKMEM];      /* newest first */
};

/* The slots the dam4sam memories may use: the ring slots and the conditioning slots that no
 * prompt holds. */
static int pool_slot(const struct samrt_track_bank *b, int s) {
    if (s < SAMRT_TRACK_RING) return 1;
    for (int i = 0; i < b->n_cond; i++)
        if (SAMRT_TRACK_RING + b->cond_slot[i] == s) return 0;
    return 1;
}

/* The frames held: the prompt frames (DRM, visible), then the tracked frames of the pool. */
static int dam_frames(const struct samrt_track_bank *b, const struct samrt_track_policy_obj *po,
                      struct dam_frame *fr) {
    int n = 0;
    for (int i = 0; i < b->n_cond; i++)
        fr[n++] = (struct dam_frame){b->cond_frame[i], SAMRT_TRACK_RING + b->cond_slot[i], 1, 1};
    for (int s = 0; s < SAMRT_TRACK_MEM_SLOTS; s++)
        if (po->dam_frame[s] >= 0 && pool_slot(b, s))
            fr[n++] = (struct dam_frame){po->dam_frame[s], s, po->dam_vis[s], po->dam_drm[s]};
    return n;
}

static int find_frame(const struct dam_frame *fr, int n, int f) {
    for (int i = 0; i < n; i++)
        if (fr[i].frame == f) return i;
    return -1;
}

static int in_list(const int *list, int n, int v) {
    for (int i = 0; i < n; i++)
        if (list[i] == v) return 1;
    return 0;
}

/* select_closest_cond_frames(t, DRM, 4): the newest DRM frame before t - 1, the first frame
 * (f0, always), then the closest others but t - 1; then the RAM: the newest visible frame
 * before t (t - 1 itself when visible, even a DRM frame; older ones non-DRM and after f0),
 * then the visible non-DRM frames at (f - f0) % 5 == 0 every 5th step down, 7 - #DRM in all
 * with the invalid tail dropped (the official list keeps its places; they carry no memory). */
static void dam_pick(const struct dam_frame *fr, int n, int f0, int t, struct dam_pick *pk) {
    memset(pk, 0, sizeof *pk);
    int before = -1, first = -1;
    for (int i = 0; i < n; i++) {
        if (!fr[i].drm) continue;
        if (fr[i].frame < t - 1 && (before < 0 || fr[i].frame > fr[before].frame)) before = i;
        if (fr[i].frame == f0) first = i;
    }
    if (before >= 0) pk->drm[pk->n_drm++] = before;
    if (first >= 0 && first != before) pk->drm[pk->n_drm++] = first;
    while (pk->n_drm < SAMRT_DAM4SAM_MAX_DRM) {  /* the closest remaining (forward: the newest) */
        int c = -1;
        for (int i = 0; i < n; i++) {
            if (!fr[i].drm || fr[i].frame == t - 1 || fr[i].frame >= t || in_list(pk->drm, pk->n_drm, i)) continue;
            if (c < 0 || t - fr[i].frame < t - fr[c].frame) c = i;
        }
        if (c < 0) break;
        pk->drm[pk->n_drm++] = c;
    }
    const int n_ram = SAMRT_TRACK_NUM_MASKMEM - pk->n_drm;
    int p = -1;  /* i = 0: t - 1 when visible and not selected, else the newest visible non-DRM */
    const int prev = find_frame(fr, n, t - 1);
    const int prev_ok = prev >= 0 && fr[prev].vis && !in_list(pk->drm, pk->n_drm, prev);
    for (int i = 0; i < n; i++) {
        if (prev_ok) {
            p = prev;
            break;
        }
        if (fr[i].drm || !fr[i].vis || fr[i].frame <= f0 || fr[i].frame > t - 2) continue;
        if (p < 0 || fr[i].frame > fr[p].frame) p = i;
    }
    while (p >= 0 && pk->n_ram < n_ram) {
        pk->ram[pk->n_ram++] = p;
        const int rel = fr[p].frame - f0;
        /* ((rel - 1) // 5) * 5 and down by 5 while > 0 (floor division, rel >= 1 here) */
        const int top = ((rel - 1) / SAMRT_DAM4SAM_STRIDE) * SAMRT_DAM4SAM_STRIDE;
        int q = -1;
        for (int i = 0; i < n; i++) {
            const int r = fr[i].frame - f0;
            if (fr[i].drm || !fr[i].vis || r <= 0 || r > top || r % SAMRT_DAM4SAM_STRIDE) continue;
            if (q < 0 || fr[i].frame > fr[q].frame) q = i;
        }
        p = q;
    }
}

void samrt_sam2_track_dam_select(const struct samrt_track_bank *b, const struct samrt_track_policy_obj *po, int t,
                                 struct samrt_track_selection *sel) {
    struct dam_frame fr[SAMRT_TRACK_MEM_SLOTS];
    const int n = dam_frames(b, po, fr);
    const int f0 = b->n_cond > 0 ? b->cond_frame[0] : 0;
    struct dam_pick pk;
    dam_pick(fr, n, f0, t, &pk);
    sel->n_mem = 0;
    for (int i = 0; i < pk.n_drm; i++) {  /* the DRM: t_pos 0 */
        const struct dam_frame *d = &fr[pk.drm[i]];
        sel->mem_slot[sel->n_mem] = d->slot, sel->mem_frame[sel->n_mem] = d->frame;
        sel->mem_tpos[sel->n_mem++] = SAMRT_TRACK_NUM_MASKMEM - 1;
    }
    for (int i = pk.n_ram - 1; i >= 0; i--) {  /* the RAM, oldest first; the newest gets index 0 */
        const struct dam_frame *d = &fr[pk.ram[i]];
        sel->mem_slot[sel->n_mem] = d->slot, sel->mem_frame[sel->n_mem] = d->frame;
        sel->mem_tpos[sel->n_mem++] = i;
    }
    /* pointers: the selected DRM frames held (prompt slots, or the ring while the frame is in
     * it), then d = 1 .. max_ptr - 1 where the object was visible, skipping selected DRM frames */
    sel->n_ptr = 0;
    sel->max_ptr = t - f0 + 1 < SAMRT_TRACK_MAX_PTRS ? t - f0 + 1 : SAMRT_TRACK_MAX_PTRS;
    int sel_frames[SAMRT_DAM4SAM_MAX_DRM];
    for (int i = 0; i < pk.n_drm; i++) {
        const struct dam_frame *d = &fr[pk.drm[i]];
        sel_frames[i] = d->frame;
        int slot = -1;
        for (int c = 0; c < b->n_cond; c++)
            if (b->cond_frame[c] == d->frame) slot = SAMRT_TRACK_PTR_RING + b->cond_slot[c];
        if (slot < 0 && b->ptr_frame[d->frame % SAMRT_TRACK_PTR_RING] == d->frame) slot = d->frame % SAMRT_TRACK_PTR_RING;
        if (slot < 0) continue;
        sel->ptr_slot[sel->n_ptr] = slot, sel->ptr_frame[sel->n_ptr] = d->frame;
        sel->ptr_dist[sel->n_ptr++] = t - d->frame;
    }
    for (int d = 1; d < sel->max_ptr; d++) {
        const int f = t - d, r = f % SAMRT_TRACK_PTR_RING;
        if (f < f0) break;
        if (in_list(sel_frames, pk.n_drm, f)) continue;
        int slot = -1;
        for (int c = 0; c < b->n_cond; c++)
            if (b->cond_frame[c] == f) slot = SAMRT_TRACK_PTR_RING + b->cond_slot[c];
        if (slot < 0 && b->ptr_frame[r] == f && !(po->vis_frame[r] == f && !po->vis[r])) slot = r;
        if (slot < 0) continue;
        sel->ptr_slot[sel->n_ptr] = slot, sel->ptr_frame[sel->n_ptr] = f;
        sel->ptr_dist[sel->n_ptr++] = d;
    }
}

/* 1 when frame list entry i is selected by frame t. */
static void mark_needed(const struct dam_frame *fr, int n, int f0, int t, uint8_t *need) {
    struct dam_pick pk;
    dam_pick(fr, n, f0, t, &pk);
    for (int i = 0; i < pk.n_drm; i++) need[pk.drm[i]] = 1;
    for (int i = 0; i < pk.n_ram; i++) need[pk.ram[i]] = 1;
}

void samrt_sam2_track_dam_add_tracked(struct samrt_track_bank *b, struct samrt_track_policy_obj *po, int t,
                                      int *mem_slot, int *ptr_slot) {
    b->ptr_frame[t % SAMRT_TRACK_PTR_RING] = t;
    *ptr_slot = t % SAMRT_TRACK_PTR_RING;
    for (int s = 0; s < SAMRT_TRACK_MEM_SLOTS; s++)  /* a prompt took the slot: its frame is gone */
        if (!pool_slot(b, s)) po->dam_frame[s] = -1;
    /* what frame t + 1 may select whether frame t turns out visible or not (t's own entry is
     * the last of the list); every later selection draws from that and the later frames */
    struct dam_frame fr[SAMRT_TRACK_MEM_SLOTS + 1];
    int n = dam_frames(b, po, fr);
    const int f0 = b->n_cond > 0 ? b->cond_frame[0] : 0;
    uint8_t need[SAMRT_TRACK_MEM_SLOTS + 1] = {0};
    fr[n] = (struct dam_frame){t, -1, 1, 0};
    mark_needed(fr, n + 1, f0, t + 1, need);
    fr[n].vis = 0;
    mark_needed(fr, n + 1, f0, t + 1, need);
    int slot = -1, oldest = -1, oldest_needed = -1;
    for (int s = 0; s < SAMRT_TRACK_MEM_SLOTS && slot < 0; s++)
        if (pool_slot(b, s) && po->dam_frame[s] < 0) slot = s;
    for (int i = b->n_cond; i < n; i++) {  /* the pool's frames (the prompt frames come first) */
        int *o = need[i] ? &oldest_needed : &oldest;
        if (*o < 0 || fr[i].frame < fr[*o].frame) *o = i;
    }
    if (slot < 0) slot = fr[oldest >= 0 ? oldest : oldest_needed].slot;  /* the latter: a pool of six, see docs */
    po->dam_frame[slot] = t;
    po->dam_vis[slot] = 1;  /* until the frame's decision */
    po->dam_drm[slot] = 0;
    *mem_slot = slot;
}

void samrt_sam2_track_dam_decided(struct samrt_track_policy_obj *po, int t, int visible, int drm) {
    for (int s = 0; s < SAMRT_TRACK_MEM_SLOTS; s++)
        if (po->dam_frame[s] == t) po->dam_vis[s] = (uint8_t)visible, po->dam_drm[s] = (uint8_t)drm;
    po->vis_frame[t % SAMRT_TRACK_PTR_RING] = t;
    po->vis[t % SAMRT_TRACK_PTR_RING] = (uint8_t)visible;
    po->n_drm += drm;
}
