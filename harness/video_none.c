/* video_none.c - video.h in a build without FFmpeg (SAMRT_VIDEO=OFF, or AUTO without the
 * FFmpeg development packages): every call says that video is not in this build and how to
 * get it, so `--video` and `--overlay-video` fail with exit 4 and a reason instead of being
 * missing options. */
#include "video.h"

#include <stdio.h>
#include <string.h>

#define NO_VIDEO                                                                                           \
    "video input and output are not in this build: install the FFmpeg development packages (Debian / " \
    "Ubuntu: apt install libavformat-dev libavcodec-dev libswscale-dev libavdevice-dev libavutil-dev) " \
    "and configure again (-DSAMRT_VIDEO=ON to insist); docs/video.md"

int samrt_video_available(void) { return 0; }

void samrt_video_versions(struct samrt_video_lib_versions *out) {
    if (out) memset(out, 0, sizeof *out);
}


void samrt_video_limits_default(struct samrt_video_limits *out) {
    if (out) memset(out, 0, sizeof *out);
}

enum samrt_status samrt_video_set_limits(const struct samrt_video_limits *lim) {
    (void)lim;
    return SAMRT_OK;
}

void samrt_video_get_limits(struct samrt_video_limits *out) { samrt_video_limits_default(out); }

enum samrt_status samrt_video_open(const char *path, struct samrt_video_reader **out, struct samrt_video_info *info) {
    (void)path, (void)info;
    if (out) *out = NULL;
    SAMRT_LOG_ERROR("%s: %s", path ? path : "video", NO_VIDEO);
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_video_open_mem(const void *data, size_t size, struct samrt_video_reader **out,
                                       struct samrt_video_info *info) {
    (void)data, (void)size, (void)info;
    if (out) *out = NULL;
    SAMRT_LOG_ERROR("%s", NO_VIDEO);
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_video_read(struct samrt_video_reader *r, uint8_t *rgb, struct samrt_video_frame *f) {
    (void)r, (void)rgb, (void)f;
    return SAMRT_E_UNSUPPORTED;
}

void samrt_video_interrupt(struct samrt_video_reader *r) { (void)r; }

void samrt_video_close(struct samrt_video_reader *r) { (void)r; }

enum samrt_status samrt_video_writer_open(const char *path, int width, int height, double fps,
                                          struct samrt_video_writer **out) {
    (void)width, (void)height, (void)fps;
    if (out) *out = NULL;
    SAMRT_LOG_ERROR("%s: %s", path ? path : "video", NO_VIDEO);
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_video_writer_push(struct samrt_video_writer *w, const uint8_t *rgb) {
    (void)w, (void)rgb;
    return SAMRT_E_UNSUPPORTED;
}

const char *samrt_video_writer_codec(const struct samrt_video_writer *w) {
    (void)w;
    return "";
}

int64_t samrt_video_writer_frames(const struct samrt_video_writer *w) {
    (void)w;
    return 0;
}

enum samrt_status samrt_video_writer_close(struct samrt_video_writer *w) {
    (void)w;
    return SAMRT_OK;
}

enum samrt_status samrt_video_open_with(const char *path, const struct samrt_video_open_opts *opts,
                                        struct samrt_video_reader **out, struct samrt_video_info *info) {
    (void)opts;
    return samrt_video_open(path, out, info);
}

enum samrt_status samrt_video_read_device(struct samrt_video_reader *r, uint8_t *rgb, struct samrt_video_frame *f) {
    (void)r, (void)rgb, (void)f;
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_video_read_device_nv12(struct samrt_video_reader *r, uint8_t *buf, size_t bytes,
                                               struct samrt_video_frame *f, struct samrt_image_nv12 *nv12) {
    (void)r, (void)buf, (void)bytes, (void)f, (void)nv12;
    return SAMRT_E_UNSUPPORTED;
}

void samrt_video_decode_path(char *buf, size_t len) {
    if (len) snprintf(buf, len, "none: video input is not in this build (no FFmpeg)");
}
