/* thumbs.h - small JPEG thumbnails of a run's overlays for the HTML report (report_html.h
 * embeds them as data: URIs, so the page stays one self-contained file), and the image-file
 * loader they need: any JPEG or 8-bit PNG as RGB8.
 *
 * A run's overlays are a folder of PNG / JPEG frames (`samrt track --overlay-dir`) or a video
 * (`--overlay-video`); samrt_thumbs_collect takes a few frames spread evenly over either.
 *
 *   struct samrt_thumbs t;
 *   SAMRT_TRY(samrt_thumbs_collect("demo/edgetam/overlay.mp4", 4, 320, &t));
 *   samrt_html_thumbnails(f, "Overlays", note, &t);
 *   samrt_thumbs_free(&t);
 */
#ifndef SAMRT_HARNESS_THUMBS_H
#define SAMRT_HARNESS_THUMBS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_THUMBS_MAX 16

struct samrt_thumb {
    uint8_t *jpeg;        /* the JPEG file bytes */
    size_t size;
    int width, height;
    char label[64];       /* what it shows, e.g. "frame 12" or "00012.png" */
};

struct samrt_thumbs {
    struct samrt_thumb t[SAMRT_THUMBS_MAX];
    int n;
};

/* A JPEG or an 8-bit PNG (gray, gray + alpha, RGB, RGBA) as RGB8 into a new buffer *rgb (free
 * it): Pillow's convert("RGB"), alpha dropped and gray repeated. Errors name the file. */
enum samrt_status samrt_image_load_rgb8(const char *path, uint8_t **rgb, int *width, int *height);

/* Box-filter downscale of RGB8 src (w x h) to dst (dw x dh, each <= the source's). */
void samrt_thumb_downscale(const uint8_t *src, int w, int h, uint8_t *dst, int dw, int dh);

/* Up to n (1..SAMRT_THUMBS_MAX) thumbnails at most max_w pixels wide from src: a folder of
 * .png / .jpg images (sorted by name) or a video file, spread evenly from the first frame to
 * the last. */
enum samrt_status samrt_thumbs_collect(const char *src, int n, int max_w, struct samrt_thumbs *out);
void samrt_thumbs_free(struct samrt_thumbs *t);

/* Writes data as base64 (RFC 4648, no line breaks). */
void samrt_base64_write(FILE *f, const uint8_t *data, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_THUMBS_H */
