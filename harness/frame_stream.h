/* frame_stream.h - the bounded prefetching frame streamer: the frames of a video folder
 * decoded ahead on a thread (frame_stream.c), so that decoding overlaps tracking and a video
 * is never all in memory. sav.h includes it; the SA-V reader lists the folders it streams.
 *
 * It decodes the next frames of one video on its own thread into a fixed ring of depth+1
 * buffers allocated at open; it never holds the whole video:
 *
 *   samrt_frame_stream_t fs;
 *   SAMRT_TRY(samrt_frame_stream_open(split.videos[v].jpeg_dir, 2, &fs));
 *   struct samrt_frame f;
 *   while ((st = samrt_frame_stream_next(fs, &f)) == SAMRT_OK && f.rgb) {
 *       ... use f.rgb (f.height x f.width x 3) ...
 *       samrt_frame_stream_release(fs, &f);
 *   }
 *   samrt_frame_stream_close(fs);
 */
#ifndef SAMRT_FRAME_STREAM_H
#define SAMRT_FRAME_STREAM_H

#include <stdint.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct samrt_frame_stream *samrt_frame_stream_t;

struct samrt_frame {
    const uint8_t *rgb;   /* height x width x 3, in a ring slot; NULL after the last frame */
    int index;            /* position in the video */
    int width, height;
    const char *name;     /* JPEG file name */
    int slot;             /* ring slot, for release */
    double decode_ms;     /* read + JPEG decode of this frame on the streamer's thread (host clock) */
};

/* Lists video_dir's JPEGs, allocates depth+1 frame buffers (depth 1..64) of the first
 * frame's size, and starts the decode thread. */
enum samrt_status samrt_frame_stream_open(const char *video_dir, int depth, samrt_frame_stream_t *out);
int samrt_frame_stream_count(samrt_frame_stream_t s);
void samrt_frame_stream_size(samrt_frame_stream_t s, int *width, int *height);
/* Blocks until the next frame is decoded. At the end returns SAMRT_OK with f->rgb NULL. A
 * decode failure (corrupt JPEG, a frame of another size) is returned for that frame and
 * every later call. Holding every slot while asking for another is SAMRT_E_BAD_STATE. */
enum samrt_status samrt_frame_stream_next(samrt_frame_stream_t s, struct samrt_frame *f);
/* Gives the frame's slot back to the decoder (in any order). */
void samrt_frame_stream_release(samrt_frame_stream_t s, struct samrt_frame *f);
/* Stops the thread and frees everything; NULL is fine. */
void samrt_frame_stream_close(samrt_frame_stream_t s);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_FRAME_STREAM_H */
