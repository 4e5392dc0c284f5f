/* synth.h - a small synthetic dataset in the SA-V val/test layout, for tests, demos and
 * smoke benchmarks without the real data.
 *
 * Each video is a textured, slowly drifting background with n_objects shapes (rectangles,
 * ellipses, star polygons) that move, bounce off the frame edges, pulse in size and occlude
 * one another in a fixed depth order. Frames are JPEGs at every index (the 24 fps stream);
 * masks are the *visible* part of each object, written every ann_step-th frame (SA-V's 6 fps
 * annotations are every 4th frame), one folder per object, as 0/1 palette PNGs (or 0/255
 * gray). Scenes are re-drawn from the seed until every object is visible on frame 0, is
 * non-empty on some scored frame, and some object is occluded on some annotated frame.
 *
 * Geometry is integer fixed point and the RNG is splitmix64, so the pixels (and the PNG
 * masks) are identical on every platform for a seed; JPEG bytes depend on the libjpeg build.
 *
 *   struct samrt_synth_params p = samrt_synth_default_params();
 *   p.n_videos = 2; p.seed = 7;
 *   SAMRT_TRY(samrt_synth_write("/tmp/synth_val", &p, 0));
 */
#ifndef SAMRT_SYNTH_H
#define SAMRT_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_SYNTH_MAX_OBJECTS 16
#define SAMRT_SYNTH_MAX_SIDE 4096
#define SAMRT_SYNTH_MAX_VERTS 8

struct samrt_synth_params {
    int n_videos;     /* default 2 */
    int n_frames;     /* per video, default 48 (2 s at 24 fps) */
    int n_objects;    /* per video, 1..16, default 3 */
    int width, height;/* default 640x360, each 16..4096 */
    uint64_t seed;    /* default 0 */
    int quality;      /* JPEG quality, default 90 */
    int ann_step;     /* annotate every ann_step-th frame, default 4 (24 fps -> 6 fps) */
    int gray_masks;   /* write 0/255 gray PNGs instead of 0/1 palette PNGs */
};

struct samrt_synth_object {
    int shape;                            /* 0 rectangle, 1 ellipse, 2 polygon */
    int64_t x0, y0, vx, vy;               /* centre at t=0 and velocity, 1/8 px */
    int64_t hw, hh;                       /* half extents at scale 1, 1/8 px */
    int pulse_amp, pulse_period;          /* scale = 1 +- pulse_amp/256, triangle wave */
    int n_verts;
    int64_t vert_x[SAMRT_SYNTH_MAX_VERTS], vert_y[SAMRT_SYNTH_MAX_VERTS];   /* offsets, 1/8 px */
    uint8_t color_a[3], color_b[3];
    int stripe_period, stripe_dir;
};

struct samrt_synth_scene {
    int width, height, n_objects;
    uint64_t noise_seed;
    uint8_t bg_a[3], bg_b[3];
    int bg_cell;                          /* value-noise lattice spacing, px */
    int64_t drift_x, drift_y;             /* background drift, 1/8 px per frame */
    int order[SAMRT_SYNTH_MAX_OBJECTS];   /* paint order, back to front */
    struct samrt_synth_object obj[SAMRT_SYNTH_MAX_OBJECTS];
};

struct samrt_synth_params samrt_synth_default_params(void);
enum samrt_status samrt_synth_check_params(const struct samrt_synth_params *p);
/* "synth_000", "synth_001", ... */
void samrt_synth_video_name(int video, char *buf, size_t len);

/* The scene of one video: drawn from (seed, video) and re-drawn until it meets the
 * conditions above (after 64 tries the last draw is kept, with a warning). */
enum samrt_status samrt_synth_scene_init(const struct samrt_synth_params *p, int video, struct samrt_synth_scene *s);
/* Frame t: rgb (h*w*3, may be NULL), labels (h*w: 0 background, k+1 object k on top, may
 * be NULL), amodal (n_objects in-frame pixel counts of each whole shape, may be NULL). */
void samrt_synth_render(const struct samrt_synth_scene *s, int t, uint8_t *rgb, uint8_t *labels, uint32_t *amodal);

/* Writes the dataset under out_dir (created): JPEGImages_24fps/, Annotations_6fps/ and
 * <basename>.txt. Refuses a folder that already holds a dataset unless force. */
enum samrt_status samrt_synth_write(const char *out_dir, const struct samrt_synth_params *p, int force);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SYNTH_H */
