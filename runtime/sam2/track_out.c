/* track_out.c - a tracked frame's results for the caller (tracker.h): every started object's
 * mask, area, box and score, in the order the objects were added (the official obj_idx order,
 * which also breaks the non-overlap ties). CUDA engines decoded the masks and their stats on
 * the device (tracker_run.c, dev_decoded); otherwise they are decoded here on the host from
 * the low-res logits (the CPU engine's path, tap dumps, a forced host decode), into the
 * video-size f32 logits the taps read. Allocates nothing. */
#include "track_out.h"

#include <string.h>

#include "sam2.h"

void samrt_sam2_track_non_overlap_host(const float *logits, int n, int64_t n_pix, uint8_t *const *masks) {
    for (int64_t p = 0; p < n_pix; p++) {
        int best = 0;
        for (int k = 1; k < n; k++)
            if (logits[(int64_t)k * n_pix + p] > logits[(int64_t)best * n_pix + p]) best = k;
        for (int k = 0; k < n; k++) masks[k][p] = (uint8_t)(k == best && logits[(int64_t)k * n_pix + p] > 0.0f);
    }
}

/* Area and inclusive box of a mask; (w, h, -1, -1) when empty. */
static void mask_stats(const uint8_t *mask, int w, int h, struct samrt_track_result *r) {
    int area = 0, x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = mask + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            if (!row[x]) continue;
            area++;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    }
    r->area = area;
    r->box[0] = x0;
    r->box[1] = y0;
    r->box[2] = x1;
    r->box[3] = y1;
}

/* The device decode's area and box (the same conventions as mask_stats). */
static void device_stats(const struct samrt_mask_stats *s, struct samrt_track_result *r) {
    r->area = s->area;
    r->box[0] = s->x0;
    r->box[1] = s->y0;
    r->box[2] = s->x1;
    r->box[3] = s->y1;
}

enum samrt_status samrt_sam2_track_outputs(struct samrt_sam2 *m, struct samrt_track_result *results, int max_results,
                                           int *n_results) {
    struct samrt_sam2_tracker *t = &m->trk;
    /* outputs: every object (each has started: a prompt applies to the next push), in the
     * order they were added, which is the official obj_idx order for the non-overlap ties.
     * CUDA engines decoded the masks and their stats on the device (tracker_run.c,
     * dev_decoded); otherwise the host decodes them from the low-res logits here. */
    const int64_t n_pix = (int64_t)t->width * t->height;
    const int L = m->seg.heads.low;
    for (int k = 0; k < t->n_obj && !t->dev_decoded; k++) {
        const struct samrt_mask_decode_desc d = {1, L, L, t->height, t->width, SAMRT_DTYPE_F32};
        struct samrt_mask_stats stats;
        SAMRT_TRY(samrt_op_mask_decode_host(&d, m->trk.low_host + (size_t)k * L * L, t->masks_host + (size_t)k * n_pix,
                                        &stats, t->logits_host + (size_t)k * n_pix));
    }
    if (t->opt.non_overlap && t->n_obj > 1 && !t->dev_decoded) {
        uint8_t *masks[SAMRT_MAX_OBJECTS];
        for (int k = 0; k < t->n_obj; k++) masks[k] = t->masks_host + (size_t)k * n_pix;
        samrt_sam2_track_non_overlap_host(t->logits_host, t->n_obj, n_pix, masks);
    }
    int n_out = 0;
    for (int k = 0; k < t->n_obj && n_out < max_results; k++, n_out++) {
        struct samrt_track_result *r = &results[n_out];
        const uint8_t *mask = t->masks_host + (size_t)k * n_pix;
        r->obj_id = t->obj[k].obj_id;
        r->object_score = m->trk.score_host[k];
        if (t->dev_decoded) device_stats(&t->stats_host[k], r);
        else mask_stats(mask, t->width, t->height, r);
        if (r->mask) memcpy(r->mask, mask, (size_t)n_pix);
        t->obj[k].n_frames_tracked++;
    }
    *n_results = n_out;
    return SAMRT_OK;
}
