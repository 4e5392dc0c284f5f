/* prompts.h - deterministic first-frame prompts derived from an object's first annotated
 * mask (eval-spec 1.4): a click, a tight box, or the mask itself.
 *
 * Clicks follow the "center" rule SAM 2 uses at evaluation time: the error-region pixel
 * furthest from the rest (exact Euclidean distance on the mask padded with one background
 * pixel, so the image edge counts as background), ties to the first pixel in row-major
 * order, positive when the missed region is deeper than the spurious one. The first click
 * is that rule with an empty prediction. Later clicks need the model's mask on the prompt
 * frame; samrt_prompt_next_click computes them from it at the original resolution (the
 * training code does the same on 1024x1024 resized masks; this is the documented
 * approximation). Boxes are the tight inclusive box with no noise.
 *
 *   size_t n = samrt_prompt_scratch_bytes(w, h);     // once per video size
 *   struct samrt_prompt p;
 *   SAMRT_TRY(samrt_prompt_from_mask(SAMRT_PROMPT_POINTS, mask, w, h, scratch, n, &p));
 */
#ifndef SAMRT_PROMPTS_H
#define SAMRT_PROMPTS_H

#include <stddef.h>
#include <stdint.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_PROMPT_MAX_POINTS 16

enum samrt_prompt_kind { SAMRT_PROMPT_POINTS = 0, SAMRT_PROMPT_BOX, SAMRT_PROMPT_MASK };

/* Label values as SAM 2 takes them: 1 positive click, 0 negative click, 2/3 the box's
 * top-left/bottom-right corners. */
enum samrt_point_label { SAMRT_LABEL_NEGATIVE = 0, SAMRT_LABEL_POSITIVE = 1, SAMRT_LABEL_BOX_TL = 2,
                         SAMRT_LABEL_BOX_BR = 3 };

struct samrt_point {
    float x, y;    /* original-image pixels: x = column, y = row, no +0.5 */
    int label;     /* enum samrt_point_label */
};

struct samrt_prompt {
    enum samrt_prompt_kind kind;
    int n_points;                                    /* clicks; box corners are not counted */
    struct samrt_point points[SAMRT_PROMPT_MAX_POINTS];
    int has_box;
    float box[4];                                    /* x0, y0, x1, y1: inclusive pixel indices */
    const uint8_t *mask;                             /* MASK: borrowed H x W, value > 0 = object */
    int width, height;
    int empty;                                       /* the source mask had no foreground */
};

/* "points", "bbox" (or "box"), "mask". */
enum samrt_status samrt_prompt_parse_kind(const char *s, enum samrt_prompt_kind *out);
const char *samrt_prompt_kind_name(enum samrt_prompt_kind kind);

/* Scratch the distance transforms need for a w x h mask. */
size_t samrt_prompt_scratch_bytes(int w, int h);

/* Tight box of mask (value > 0). Returns 0 and leaves box alone when the mask is empty. */
int samrt_prompt_box(const uint8_t *mask, int w, int h, float box[4]);

/* Squared Euclidean distance of each pixel of mask to the nearest background pixel, with
 * the image edge counting as background, written to dist2 (w*h); returns the largest value
 * and its first row-major position in *argmax (0 for an empty mask). */
int64_t samrt_prompt_edt(const uint8_t *mask, int w, int h, void *scratch, size_t scratch_bytes, int64_t *dist2,
                         long *argmax);

/* The corrective click for gt against pred (pred NULL = empty prediction): positive at the
 * deepest missed pixel when that is strictly deeper than the deepest spurious pixel, else
 * negative at the deepest spurious pixel (at (0,0) when both are empty). */
enum samrt_status samrt_prompt_next_click(const uint8_t *gt, const uint8_t *pred, int w, int h, void *scratch,
                                          size_t scratch_bytes, struct samrt_point *out);

/* The prompt of the given kind from an object's first mask. POINTS is the first click;
 * BOX with an empty mask falls back to that click (a negative one at (0,0)) and has_box 0;
 * MASK borrows mask. */
enum samrt_status samrt_prompt_from_mask(enum samrt_prompt_kind kind, const uint8_t *mask, int w, int h,
                                         void *scratch, size_t scratch_bytes, struct samrt_prompt *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_PROMPTS_H */
