/* bad_clip.c - the video inputs of bad_input_cli.sh, made at test time with samrt's own writer
 * (harness/video.h), so the test needs no ffmpeg program and follows the linked FFmpeg:
 *   bad_clip write OUT N W H        N frames of a disc moving over a noisy gradient (frames of
 *                                   about equal size, so a cut at a fraction of the file falls
 *                                   at that fraction of the frames), at 12 fps; the
 *                                   container from OUT's name, the encoder the writer picks
 *                                   (SAMRT_VIDEO_ENCODER to choose one, e.g. libvpx for .webm)
 *   bad_clip unknown-codec IN OUT   IN (a Matroska / WebM file) with every video CodecID renamed
 *                                   to "V_XXX...": a stream no FFmpeg has a decoder for
 * exit: 0 done, 1 an error, 77 no FFmpeg in this build or no encoder for that container. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "video.h"

static int write_clip(const char *out, int n, int w, int h) {
    const size_t bytes = (size_t)w * h * 3;
    uint8_t *rgb = malloc(bytes);
    struct samrt_video_writer *vw = NULL;
    const enum samrt_status st = rgb ? samrt_video_writer_open(out, w, h, 12.0, &vw) : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_E_UNSUPPORTED) {
        printf("bad_clip: SKIPPED: the linked FFmpeg has no encoder for %s (SAMRT_VIDEO_ENCODER=%s)\n", out,
               getenv("SAMRT_VIDEO_ENCODER") ? getenv("SAMRT_VIDEO_ENCODER") : "");
        free(rgb);
        return 77;
    }
    int rc = st != SAMRT_OK;
    uint32_t seed = 12345;
    for (int i = 0; !rc && i < n; i++) {
        const int cx = w / 4 + i * w / (2 * n), cy = h / 2, r = h / 4;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint8_t *p = rgb + ((size_t)y * w + x) * 3;
                const int in = (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
                seed = seed * 1664525u + 1013904223u;  /* noise: every frame costs about the same bytes */
                const int noise = (int)(seed >> 26);
                p[0] = in ? 240 : (uint8_t)(40 + 100 * x / w + noise);
                p[1] = in ? 200 : (uint8_t)(60 + 80 * y / h + noise);
                p[2] = in ? 40 : (uint8_t)(90 + noise);
            }
        rc = samrt_video_writer_push(vw, rgb) != SAMRT_OK;
    }
    if (vw && samrt_video_writer_close(vw) != SAMRT_OK) rc = 1;
    free(rgb);
    if (rc) fprintf(stderr, "bad_clip: cannot write %s\n", out);
    else printf("bad_clip: %d frames %dx%d written to %s\n", n, w, h, out);
    return rc;
}

/* Matroska's CodecID element (ID 0x86, a one-byte size, "V_..."), renamed in place. */
static int unknown_codec(const char *in, const char *out) {
    FILE *f = fopen(in, "rb");
    uint8_t *buf = malloc(1 << 22);
    const size_t n = f && buf ? fread(buf, 1, 1 << 22, f) : 0;
    if (f) fclose(f);
    int renamed = 0;
    for (size_t i = 0; i + 4 < n; i++) {
        const size_t len = buf[i + 1] & 0x7f;
        if (buf[i] != 0x86 || !(buf[i + 1] & 0x80) || len < 3 || i + 2 + len > n || memcmp(buf + i + 2, "V_", 2) != 0)
            continue;
        memset(buf + i + 4, 'X', len - 2);
        renamed++;
    }
    FILE *o = renamed ? fopen(out, "wb") : NULL;
    const int rc = !o || fwrite(buf, 1, n, o) != n;
    if (o && fclose(o) != 0) return 1;
    free(buf);
    if (rc) fprintf(stderr, "bad_clip: no video CodecID found in %s, or cannot write %s\n", in, out);
    else printf("bad_clip: %s: %d video CodecID renamed to V_XXX...\n", out, renamed);
    return rc;
}

int main(int argc, char **argv) {
    if (!samrt_video_available()) {
        printf("bad_clip: SKIPPED: this build has no FFmpeg (SAMRT_VIDEO, docs/video.md)\n");
        return 77;
    }
    if (argc == 6 && !strcmp(argv[1], "write")) return write_clip(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    if (argc == 4 && !strcmp(argv[1], "unknown-codec")) return unknown_codec(argv[2], argv[3]);
    fprintf(stderr, "usage: bad_clip write OUT N W H | bad_clip unknown-codec IN OUT\n");
    return 1;
}
