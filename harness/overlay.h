/* overlay.h - masks drawn over a frame so that people can watch a run: each object's pixels
 * tinted with its colour, its outline in the full colour, and its id in a label at the top
 * left of its mask. `samrt track` writes these frames as PNGs and into a video, `samrt
 * segment` as one PNG, and the HTML report shows a few of them as thumbnails.
 *
 * Colours follow the object id (not its position in a call), so an object keeps its colour
 * through a video. They are the report's colour-blind-friendly set, bright enough to read
 * over a dark scene; the mask PNGs themselves keep the DAVIS palette of the SA-V format.
 *
 *   struct samrt_overlay_object obj[2] = {{mask1, 1}, {mask2, 2}};
 *   memcpy(over, frame_rgb, 3 * w * h);
 *   samrt_overlay_draw(over, w, h, obj, 2);
 */
#ifndef SAMRT_HARNESS_OVERLAY_H
#define SAMRT_HARNESS_OVERLAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Objects drawn per call; later ones are left out. */
#define SAMRT_OVERLAY_MAX_OBJECTS 256

struct samrt_overlay_object {
    const uint8_t *mask;   /* w * h bytes, nonzero = object; NULL = nothing to draw */
    int id;                /* the object id: its colour and its label */
};

/* The colour of object `id`. */
void samrt_overlay_color(int id, uint8_t rgb[3]);

/* Draws the objects, in order, over rgb (w x h RGB8, stride 3 * w): every mask pixel blended
 * 50/50 with the colour, the mask's boundary (pixels with a 4-neighbour outside the mask, or
 * on the image edge) in the colour, then on top of all masks each id in white on a box of
 * the colour at its mask's top-left corner (moved aside when another label is there), sized
 * to the frame (digits 7 px tall per 180 px of frame height). An empty mask draws nothing. */
void samrt_overlay_draw(uint8_t *rgb, int w, int h, const struct samrt_overlay_object *obj, int n);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_OVERLAY_H */
