/* ffv1_clip.c - writes the JPEG frames of a folder, decoded with samrt's own JPEG decoder (the
 * one `samrt track --frames` uses), into a lossless FFV1 video through harness/video.h, then
 * reads the video back with samrt's reader and checks that every frame is the decoded JPEG
 * byte for byte. ffv1_track.sh then compares `samrt track --video` on the clip with
 * `samrt track --frames` on the folder: with identical pixels the masks must be identical.
 *   ffv1_clip JPEG_DIR OUT.mkv
 * exit: 0 written and checked, 1 a mismatch or an error, 77 no FFmpeg or no FFV1 encoder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"
#include "sav.h"
#include "video.h"

/* Reads dir/name (its size into info) and, when rgb is not NULL, decodes it into rgb; buf / cap
 * are the reusable file buffer. */
static int decode_jpeg(const char *dir, const char *name, uint8_t **buf, size_t *cap, uint8_t *rgb, size_t bytes,
                       struct samrt_image_info *info) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t size = 0;
    if (samrt_file_read(path, buf, cap, &size) != SAMRT_OK || samrt_jpeg_info(*buf, size, info) != SAMRT_OK) return 1;
    if (rgb && samrt_jpeg_decode(*buf, size, rgb, bytes, info) != SAMRT_OK) return 1;
    return 0;
}

/* Reads the clip back and compares frame i with frames[i]; returns the failures. */
static int check_clip(const char *clip, const uint8_t *frames, int n, int w, int h) {
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info vi;
    if (samrt_video_open(clip, &r, &vi) != SAMRT_OK) return 1;
    const size_t bytes = (size_t)w * h * 3;
    uint8_t *rgb = malloc(bytes);
    int fails = vi.width != w || vi.height != h || vi.n_frames != n || !rgb;
    if (fails) fprintf(stderr, "ffv1_clip: %s is %dx%d, %lld frames; want %dx%d, %d\n", clip, vi.width, vi.height,
                       (long long)vi.n_frames, w, h, n);
    printf("ffv1_clip: %s: codec %s, container %s\n", clip, vi.codec, vi.container);
    for (int i = 0; !fails && i <= n; i++) {
        struct samrt_video_frame f;
        if (samrt_video_read(r, rgb, &f) != SAMRT_OK || f.eof != (i == n)) {
            fprintf(stderr, "ffv1_clip: frame %d: read failed or the stream ends early / late\n", i);
            fails++;
        } else if (i < n && memcmp(rgb, frames + (size_t)i * bytes, bytes) != 0) {
            fprintf(stderr, "ffv1_clip: frame %d decodes to other pixels than the JPEG\n", i);
            fails++;
        }
    }
    free(rgb);
    samrt_video_close(r);
    return fails;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: ffv1_clip JPEG_DIR OUT.mkv\n");
        return 1;
    }
    if (!samrt_video_available()) {
        printf("ffv1_clip: SKIPPED: this build has no FFmpeg (SAMRT_VIDEO, docs/video.md)\n");
        return 77;
    }
    struct samrt_sav_jpeg *list = NULL;
    int n = 0;
    if (samrt_sav_list_jpegs(argv[1], &list, &n) != SAMRT_OK || n == 0) {
        fprintf(stderr, "ffv1_clip: no JPEG frames in %s\n", argv[1]);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t cap = 0;
    struct samrt_image_info info;
    int rc = decode_jpeg(argv[1], list[0].name, &buf, &cap, NULL, 0, &info);
    const int w = info.width, h = info.height;
    const size_t bytes = (size_t)w * h * 3;
    uint8_t *frames = rc ? NULL : malloc(bytes * (size_t)n);
    for (int i = 0; frames && !rc && i < n; i++)
        rc = decode_jpeg(argv[1], list[i].name, &buf, &cap, frames + (size_t)i * bytes, bytes, &info) ||
             info.width != w || info.height != h;
    if (!frames || rc) {
        fprintf(stderr, "ffv1_clip: cannot decode the JPEG frames of %s\n", argv[1]);
        return 1;
    }
    setenv("SAMRT_VIDEO_ENCODER", "ffv1", 1);
    struct samrt_video_writer *vw = NULL;
    if (samrt_video_writer_open(argv[2], w, h, 24.0, &vw) == SAMRT_E_UNSUPPORTED) {
        printf("ffv1_clip: SKIPPED: the linked FFmpeg has no FFV1 encoder, or its Matroska muxer does not take FFV1\n");
        return 77;
    }
    for (int i = 0; vw && !rc && i < n; i++) rc = samrt_video_writer_push(vw, frames + (size_t)i * bytes) != SAMRT_OK;
    if (!vw || rc || samrt_video_writer_close(vw) != SAMRT_OK) {
        fprintf(stderr, "ffv1_clip: cannot write %s\n", argv[2]);
        return 1;
    }
    const int fails = check_clip(argv[2], frames, n, w, h);
    printf("ffv1_clip: %d frames %dx%d written to %s; decoded back: %s\n", n, w, h, argv[2],
           fails ? "DIFFERENT pixels" : "identical to the decoded JPEGs");
    free(frames);
    free(buf);
    samrt_sav_free_jpegs(list, n);
    return fails ? 1 : 0;
}
