/* video_public.c - the video reader that libsamrt.so exports (include/samrt_video.h), so that
 * bindings read video files and cameras with the same FFmpeg decoder as the samrt program. A
 * thin layer over video.h's reader (video_read.c, or video_none.c in a build without FFmpeg):
 * it keeps the stream's facts for samrt_video_reader_info, checks the caller's buffer, and
 * makes an error sticky, so that a caller never reads on from a half-decoded stream. */
#include "samrt_video.h"

#include <stdlib.h>

#include "video.h"

struct samrt_video_input {
    struct samrt_video_reader *reader;
    struct samrt_video_info info;
    enum samrt_status failed;  /* the first error of next(); SAMRT_OK while none */
};

int samrt_video_reader_available(void) { return samrt_video_available(); }

enum samrt_status samrt_video_reader_open(const char *path, samrt_video_reader_t *out) {
    SAMRT_CHECK(path && out, SAMRT_E_INVALID_ARG, "samrt_video_reader_open: path and out are required");
    *out = NULL;
    struct samrt_video_input *in = calloc(1, sizeof *in);
    SAMRT_CHECK(in != NULL, SAMRT_E_HOST_MEMORY, "%s: no host memory for a reader", path);
    const enum samrt_status st = samrt_video_open(path, &in->reader, &in->info);
    if (st != SAMRT_OK) {
        free(in);
        return st;
    }
    *out = in;
    return SAMRT_OK;
}

enum samrt_status samrt_video_reader_info(samrt_video_reader_t r, int *width, int *height, int64_t *n_frames,
                                          double *fps) {
    SAMRT_CHECK(r != NULL, SAMRT_E_INVALID_ARG, "samrt_video_reader_info: NULL reader");
    if (width) *width = r->info.width;
    if (height) *height = r->info.height;
    if (n_frames) *n_frames = r->info.n_frames;
    if (fps) *fps = r->info.fps;
    return SAMRT_OK;
}

enum samrt_status samrt_video_reader_next(samrt_video_reader_t r, uint8_t *rgb, size_t rgb_bytes, int *eof) {
    SAMRT_CHECK(r && rgb && eof, SAMRT_E_INVALID_ARG, "samrt_video_reader_next: reader, rgb and eof are required");
    *eof = 0;
    SAMRT_CHECK(r->failed == SAMRT_OK, SAMRT_E_BAD_STATE,
                "samrt_video_reader_next: an earlier frame of this video failed (%s); close the reader",
                samrt_status_str(r->failed));
    const size_t need = (size_t)r->info.width * (size_t)r->info.height * 3;
    SAMRT_CHECK(rgb_bytes >= need, SAMRT_E_INVALID_ARG, "samrt_video_reader_next: a %dx%d frame needs %zu bytes, "
                "the buffer holds %zu", r->info.width, r->info.height, need, rgb_bytes);
    struct samrt_video_frame f;
    const enum samrt_status st = samrt_video_read(r->reader, rgb, &f);
    if (st != SAMRT_OK) {
        r->failed = st;
        return st;
    }
    *eof = f.eof;
    return SAMRT_OK;
}

void samrt_video_reader_close(samrt_video_reader_t r) {
    if (!r) return;
    samrt_video_close(r->reader);
    free(r);
}
