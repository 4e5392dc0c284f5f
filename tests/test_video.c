/* test_video.c - harness/video.h and the frame streamer over videos: the shipped demo clip
 * (count, size, rate, indices, timestamps; the same from memory), the good corpus
 * (tests/data/video/good: H.264 in mp4 and mkv, MPEG-4 part 2 in avi), writer round trips
 * (H.264 and, with SAMRT_VIDEO_ENCODER=mpeg4, MPEG-4; odd sizes; pixels back within codec
 * error; the file appears only when complete), --start / --max-frames through the streamer,
 * the malformed corpus (tests/data/video/bad, expected.txt: each file refused with its
 * status, or at least never a crash), the reader's bounds (a frame over the caller's plan
 * refused; the AVI header that asked for 1.8 GB grows the peak RSS by < 200 MB) and Matroska /
 * WebM / MPEG-4 clips cut in their data (the good frames, then "cut off" naming the file and the
 * last good frame), a named pipe that stops (a live source, like an unplugged camera) and a codec
 * no FFmpeg decodes. Skipped (77) in a build without FFmpeg.
 * Run: ctest -R test_video  (args: the demo clip, the corpus folder) */
#include "video.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "data_util.h"
#include "frame_stream.h"
#include "platform.h"

static char g_tmp[512];

/* Every frame of a reader; returns the status of the last read and the frame count. */
static enum samrt_status read_all(struct samrt_video_reader *r, const struct samrt_video_info *info, int *n,
                                  double *pts_last) {
    uint8_t *rgb = malloc((size_t)info->width * (size_t)info->height * 3);
    struct samrt_video_frame f;
    enum samrt_status st;
    *n = 0;
    while ((st = samrt_video_read(r, rgb, &f)) == SAMRT_OK && !f.eof) {
        CHECK_EQ_INT(f.index, *n);
        if (pts_last) *pts_last = f.pts_s;
        (*n)++;
    }
    free(rgb);
    return st;
}

static void test_clip(const char *clip) {
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    CHECK_STATUS(samrt_video_open(clip, &r, &info), SAMRT_OK);
    if (!r) return;
    CHECK_EQ_INT(info.width, 960);
    CHECK_EQ_INT(info.height, 540);
    CHECK_EQ_INT(info.n_frames, 40);
    CHECK_NEAR(info.fps, 24.0, 1e-9);
    CHECK(!strcmp(info.codec, "h264"));
    CHECK(!info.is_device);
    int n = 0;
    double pts = -1;
    CHECK_STATUS(read_all(r, &info, &n, &pts), SAMRT_OK);
    CHECK_EQ_INT(n, 40);
    CHECK_NEAR(pts, 39.0 / 24.0, 1e-6);
    struct samrt_video_frame f;
    uint8_t px[16];
    CHECK_STATUS(samrt_video_read(r, px, &f), SAMRT_OK);  /* after the end: the end again */
    CHECK(f.eof);
    samrt_video_close(r);
    /* the same bytes from memory */
    size_t size = 0;
    uint8_t *data = du_read_file(clip, &size);
    CHECK(data != NULL);
    CHECK_STATUS(samrt_video_open_mem(data, size, &r, &info), SAMRT_OK);
    if (r) {
        CHECK_STATUS(read_all(r, &info, &n, NULL), SAMRT_OK);
        CHECK_EQ_INT(n, 40);
        samrt_video_close(r);
    }
    free(data);
}

static void test_good_corpus(const char *dir) {
    static const char *const files[] = {"tiny.mp4", "tiny.mkv", "tiny_mpeg4.avi"};
    static const char *const codecs[] = {"h264", "h264", "mpeg4"};
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/good/%s", dir, files[i]);
        struct samrt_video_reader *r = NULL;
        struct samrt_video_info info;
        CHECK_STATUS(samrt_video_open(path, &r, &info), SAMRT_OK);
        if (!r) continue;
        CHECK_MSG(info.width == 64 && info.height == 48 && info.n_frames == 20, "%s: %dx%d, %lld frames", files[i],
                  info.width, info.height, (long long)info.n_frames);
        CHECK_MSG(!strcmp(info.codec, codecs[i]), "%s: codec %s", files[i], info.codec);
        int n = 0;
        CHECK_STATUS(read_all(r, &info, &n, NULL), SAMRT_OK);
        CHECK_EQ_INT(n, 20);
        samrt_video_close(r);
    }
}

/* Frame t of the round trip: a bright box moving right on a gradient. */
static void make_frame(uint8_t *rgb, int w, int h, int t) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + 3 * ((size_t)y * w + x);
            const int in = x > 10 + 2 * t && x < 40 + 2 * t && y > 12 && y < 40;
            p[0] = (uint8_t)(in ? 230 : 2 * x);
            p[1] = (uint8_t)(in ? 40 : 3 * y);
            p[2] = (uint8_t)(in ? 60 : 128);
        }
}

/* Writes n frames of w x h, reads them back: the even size, the count and the mean error. */
static void round_trip(const char *name, const char *encoder, int w, int h, int n, const char *want_codec) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_tmp, name);
    if (encoder) setenv("SAMRT_VIDEO_ENCODER", encoder, 1);
    struct samrt_video_writer *vw = NULL;
    CHECK_STATUS(samrt_video_writer_open(path, w, h, 12.0, &vw), SAMRT_OK);
    unsetenv("SAMRT_VIDEO_ENCODER");
    if (!vw) return;
    CHECK_MSG(!strcmp(samrt_video_writer_codec(vw), want_codec), "%s: encoder %s", name, samrt_video_writer_codec(vw));
    uint8_t *rgb = malloc((size_t)w * h * 3), *back = malloc((size_t)w * h * 3);
    for (int t = 0; t < n; t++) {
        make_frame(rgb, w, h, t);
        CHECK_STATUS(samrt_video_writer_push(vw, rgb), SAMRT_OK);
    }
    CHECK_EQ_INT(samrt_video_writer_frames(vw), n);
    CHECK(access(path, F_OK) != 0);  /* nothing at the target until the file is complete */
    CHECK_STATUS(samrt_video_writer_close(vw), SAMRT_OK);
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    CHECK_STATUS(samrt_video_open(path, &r, &info), SAMRT_OK);
    if (r) {
        CHECK_EQ_INT(info.width, w & ~1);
        CHECK_EQ_INT(info.height, h & ~1);
        CHECK_EQ_INT(info.n_frames, n);
        CHECK_NEAR(info.fps, 12.0, 1e-9);
        struct samrt_video_frame f;
        double err = 0;
        int k = 0;
        for (; samrt_video_read(r, back, &f) == SAMRT_OK && !f.eof; k++) {
            make_frame(rgb, w, h, k);
            for (int y = 0; y < info.height; y++)
                for (int x = 0; x < 3 * info.width; x++)
                    err += abs((int)back[(size_t)y * 3 * info.width + x] - (int)rgb[(size_t)y * 3 * w + x]);
        }
        CHECK_EQ_INT(k, n);
        err /= (double)k * info.width * info.height * 3;
        CHECK_MSG(err < 6.0, "%s: mean abs error %.2f per sample", name, err);
        printf("%s (%s, %dx%d -> %dx%d): %d frames back, mean abs error %.2f\n", name, want_codec, w, h, info.width,
               info.height, k, err);
        samrt_video_close(r);
    }
    free(rgb), free(back);
}

/* --start / --max-frames through the streamer: indices, names, timestamps, the end. */
static void test_stream(const char *clip) {
    samrt_frame_stream_t fs = NULL;
    const struct samrt_frame_source src = {clip, 3, 5, 10};
    CHECK_STATUS(samrt_frame_stream_open_source(&src, &fs), SAMRT_OK);
    if (!fs) return;
    struct samrt_frame_stream_info info;
    samrt_frame_stream_info(fs, &info);
    CHECK_EQ_INT(info.n_frames, 10);
    CHECK(info.is_video && !info.is_device);
    struct samrt_frame f;
    int n = 0;
    while (samrt_frame_stream_next(fs, &f) == SAMRT_OK && f.rgb) {
        char want[16];
        snprintf(want, sizeof want, "%05d", 5 + n);
        CHECK_EQ_INT(f.index, 5 + n);
        CHECK_MSG(!strcmp(f.name, want), "name %s, want %s", f.name, want);
        CHECK_NEAR(f.pts_s, (5 + n) / 24.0, 1e-6);
        CHECK(f.wait_ms >= 0 && f.decode_ms >= 0);
        samrt_frame_stream_release(fs, &f);
        n++;
    }
    CHECK_EQ_INT(n, 10);
    samrt_frame_stream_close(fs);
    const struct samrt_frame_source past = {clip, 2, 40, 0};
    du_quiet(1);
    CHECK_STATUS(samrt_frame_stream_open_source(&past, &fs), SAMRT_E_INVALID_ARG);
    du_quiet(0);
}

/* The last error logged, for checking what a message names. */
static char g_last_err[1024];
static void log_keep(enum samrt_log_level level, const char *msg, void *user) {
    (void)user;
    if (level == SAMRT_LOG_ERROR) snprintf(g_last_err, sizeof g_last_err, "%s", msg);
}

/* A clip written by the harness's writer and cut to keep its first frac of bytes: the good
 * frames before the cut are delivered, then the end is SAMRT_E_FORMAT with "cut off", the file
 * and the last good frame named. Matroska and WebM keep no frame count; their declared duration
 * is what the short stream is checked against. */
static void test_truncated(const char *name, const char *encoder, int n_frames, double frac) {
    char path[1024], cut[1100];
    snprintf(path, sizeof path, "%s/%s", g_tmp, name);
    snprintf(cut, sizeof cut, "%s/cut_%s", g_tmp, name);
    if (encoder) setenv("SAMRT_VIDEO_ENCODER", encoder, 1);
    struct samrt_video_writer *vw = NULL;
    const enum samrt_status wst = samrt_video_writer_open(path, 64, 48, 12.0, &vw);
    unsetenv("SAMRT_VIDEO_ENCODER");
    if (wst != SAMRT_OK) {
        printf("%s: SKIPPED: the linked FFmpeg does not write it (%s)\n", name, encoder ? encoder : "default");
        return;
    }
    uint8_t rgb[64 * 48 * 3];
    for (int t = 0; t < n_frames; t++) {
        make_frame(rgb, 64, 48, t);
        CHECK_STATUS(samrt_video_writer_push(vw, rgb), SAMRT_OK);
    }
    CHECK_STATUS(samrt_video_writer_close(vw), SAMRT_OK);
    size_t size = 0;
    uint8_t *data = du_read_file(path, &size);
    CHECK(data != NULL && size > 0);
    if (!data) return;
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    int n = 0;
    CHECK_STATUS(samrt_video_open(path, &r, &info), SAMRT_OK);  /* whole: every frame, no error */
    if (r) CHECK_STATUS(read_all(r, &info, &n, NULL), SAMRT_OK);
    CHECK_EQ_INT(n, n_frames);
    samrt_video_close(r);
    CHECK(du_write_file(cut, data, (size_t)(size * frac)) == 0);
    samrt_log_set(log_keep, NULL, SAMRT_LOG_ERROR);
    g_last_err[0] = 0;
    enum samrt_status st = samrt_video_open(cut, &r, &info);
    if (st == SAMRT_OK) st = read_all(r, &info, &n, NULL);
    samrt_video_close(r);
    du_quiet(0);
    CHECK_MSG(st == SAMRT_E_FORMAT, "%s cut to %.0f%%: %s after %d frames", name, 100 * frac, samrt_status_str(st), n);
    CHECK_MSG(n > 0 && n < n_frames, "%s cut: %d good frames of %d", name, n, n_frames);
    char want[64];
    snprintf(want, sizeof want, "ends after frame %d ", n - 1);
    CHECK_MSG(strstr(g_last_err, "cut off") && strstr(g_last_err, cut) && strstr(g_last_err, want),
              "%s: message \"%s\"", name, g_last_err);
    printf("%s cut to %zu of %zu bytes: %d of %d frames, then \"%s\"\n", name, (size_t)(size * frac), size, n,
           n_frames, g_last_err);
    /* from memory: the same frames and the same end (no second demux pass there) */
    if (samrt_video_open_mem(data, (size_t)(size * frac), &r, &info) == SAMRT_OK) {
        du_quiet(1);
        int m = 0;
        CHECK_STATUS(read_all(r, &info, &m, NULL), SAMRT_E_FORMAT);
        du_quiet(0);
        CHECK_EQ_INT(m, n);
        samrt_video_close(r);
    }
    free(data);
}

struct pipe_feed {
    const char *fifo;
    const uint8_t *data;
    size_t n;
};

/* The program at the other end of a named pipe: writes its bytes, then goes away. */
static void *pipe_writer(void *arg) {
    const struct pipe_feed *p = (const struct pipe_feed *)arg;
    FILE *f = fopen(p->fifo, "wb");
    if (f) {
        fwrite(p->data, 1, p->n, f);
        fclose(f);
    }
    return NULL;
}

/* Starts the writer of a named pipe (SIGPIPE ignored: a reader that gives up early). */
static int pipe_start(struct pipe_feed *feed, pthread_t *th) {
    signal(SIGPIPE, SIG_IGN);
    return pthread_create(th, NULL, pipe_writer, feed);
}

/* Waits for the writer, first opening the reading end once more so that a writer still waiting
 * for a reader (the reader failed before opening the pipe) gets one. */
static void pipe_join(const char *fifo, pthread_t th) {
    const int fd = open(fifo, O_RDONLY | O_NONBLOCK);
    pthread_join(th, NULL);
    if (fd >= 0) close(fd);
}

/* A named pipe is a live source, like a camera: no length (n_frames -1), and when its writer
 * stops after part of the clip written by test_truncated, the frames it sent come out, then
 * SAMRT_E_FORMAT "the pipe stopped sending at frame N" with the pipe named. A clip whose
 * CodecID no FFmpeg knows is SAMRT_E_UNSUPPORTED, naming it. */
static void test_live_and_codec(const char *name) {
    char path[1024], fifo[1100];
    snprintf(path, sizeof path, "%s/%s", g_tmp, name);
    snprintf(fifo, sizeof fifo, "%s/cam.fifo", g_tmp);
    size_t size = 0;
    uint8_t *data = du_read_file(path, &size);
    if (!data || mkfifo(fifo, 0600) != 0) {
        printf("live source: SKIPPED: no %s or no named pipe\n", path);
        free(data);
        return;
    }
    struct pipe_feed feed = {fifo, data, size * 6 / 10};
    pthread_t th;
    CHECK(pipe_start(&feed, &th) == 0);
    samrt_log_set(log_keep, NULL, SAMRT_LOG_ERROR);
    g_last_err[0] = 0;
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    int n = 0;
    enum samrt_status st = samrt_video_open(fifo, &r, &info);
    CHECK_STATUS(st, SAMRT_OK);
    if (st == SAMRT_OK) {
        CHECK(info.is_device && info.n_frames == -1);
        st = read_all(r, &info, &n, NULL);
    }
    samrt_video_close(r);
    pipe_join(fifo, th);
    char want[64];
    snprintf(want, sizeof want, "the pipe stopped sending at frame %d,", n);
    CHECK_MSG(st == SAMRT_E_FORMAT && n > 0 && strstr(g_last_err, fifo) && strstr(g_last_err, want),
              "pipe: %s after %d frames, \"%s\"", samrt_status_str(st), n, g_last_err);
    printf("named pipe, 60%% of %s: %d frames, then \"%s\"\n", name, n, g_last_err);
    for (size_t i = 0; i + 4 < size; i++)  /* Matroska's CodecID element: 0x86, a size, "V_..." */
        if (data[i] == 0x86 && data[i + 1] > 0x82 && i + 2 + (data[i + 1] & 0x7f) <= size && !memcmp(data + i + 2, "V_", 2))
            memset(data + i + 4, 'X', (size_t)(data[i + 1] & 0x7f) - 2);
    g_last_err[0] = 0;
    st = samrt_video_open_mem(data, size, &r, &info);
    if (st == SAMRT_OK) samrt_video_close(r);
    CHECK_MSG(st == SAMRT_E_UNSUPPORTED && strstr(g_last_err, "no decoder for its video stream (codec none)"),
              "unknown codec: %s, \"%s\"", samrt_status_str(st), g_last_err);
    printf("unknown CodecID: %s, \"%s\"\n", samrt_status_str(st), g_last_err);
    du_quiet(0);
    free(data);
}

/* The AVI whose header asked FFmpeg for 1.8 GB (found by fuzzing the in-memory reader): with
 * the reader's bounds it is refused with the file (or the named pipe it comes through) named,
 * or read from memory without harm, and the peak resident memory grows by less than 200 MB. */
static void test_alloc_bound(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/bad/avi_header_oom.avi", dir);
    size_t size = 0;
    uint8_t *data = du_read_file(path, &size);
    CHECK_MSG(data && size == 17645, "%s: %zu bytes", path, size);
    if (!data) return;
    const int reset = samrt_platform_peak_rss_reset();
    const uint64_t before = samrt_platform_peak_rss_bytes();
    samrt_log_set(log_keep, NULL, SAMRT_LOG_ERROR);
    g_last_err[0] = 0;
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    int n = 0;
    enum samrt_status st = samrt_video_open(path, &r, &info);
    CHECK_MSG(st == SAMRT_E_FORMAT && strstr(g_last_err, path), "%s: %s, \"%s\"", path, samrt_status_str(st),
              g_last_err);
    printf("avi_header_oom.avi: %s, \"%s\"\n", samrt_status_str(st), g_last_err);
    samrt_video_close(r);
    r = NULL;
    /* a named pipe, the live path (a camera opens the same way, with V4L2's format): same bounds */
    char fifo[1100];
    snprintf(fifo, sizeof fifo, "%s/avi.fifo", g_tmp);
    struct pipe_feed feed = {fifo, data, size};
    pthread_t th;
    if (mkfifo(fifo, 0600) == 0 && pipe_start(&feed, &th) == 0) {
        g_last_err[0] = 0;
        st = samrt_video_open(fifo, &r, &info);
        if (st == SAMRT_OK) st = read_all(r, &info, &n, NULL);
        samrt_video_close(r);
        r = NULL;
        pipe_join(fifo, th);
        CHECK_MSG(st != SAMRT_OK && strstr(g_last_err, fifo), "%s: %s, \"%s\"", fifo, samrt_status_str(st),
                  g_last_err);
        printf("avi_header_oom.avi through a named pipe: %s, \"%s\"\n", samrt_status_str(st), g_last_err);
    }
    st = samrt_video_open_mem(data, size, &r, &info);
    if (st == SAMRT_OK) st = read_all(r, &info, &n, NULL);
    samrt_video_close(r);
    du_quiet(0);
    const uint64_t after = samrt_platform_peak_rss_bytes();
    printf("avi_header_oom.avi from memory: %s after %d frames; peak RSS %.1f -> %.1f MB (reset %d)\n",
           samrt_status_str(st), n, before / 1e6, after / 1e6, reset);
    CHECK_MSG(after < before + 200000000ull, "peak RSS grew by %.1f MB", (after - before) / 1e6);
    free(data);
}

/* The caller's plan: a frame larger than it is refused before a decoder opens, with the file
 * and the size named; the allocation cap follows the plan and returns to 64 MiB without one. */
static void test_plan(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/good/tiny.mkv", dir);
    struct samrt_video_limits lim;
    samrt_video_get_limits(&lim);
    CHECK(lim.max_alloc == SAMRT_VIDEO_MAX_ALLOC_DEFAULT && lim.max_width == SAMRT_VIDEO_MAX_SIDE);
    CHECK(lim.probesize == SAMRT_VIDEO_PROBESIZE_DEFAULT && lim.max_streams == SAMRT_VIDEO_MAX_STREAMS_DEFAULT);
    const struct samrt_video_limits k8 = {8192, 8192, 0, 0, 0, 0};
    CHECK_STATUS(samrt_video_set_limits(&k8), SAMRT_OK);
    samrt_video_get_limits(&lim);
    CHECK_MSG(lim.max_alloc == (size_t)(8192 + 64) * (8192 + 64) * 2, "8K plan: cap %zu", lim.max_alloc);
    const struct samrt_video_limits small = {32, 32, 0, 0, 0, 0};
    CHECK_STATUS(samrt_video_set_limits(&small), SAMRT_OK);
    samrt_video_get_limits(&lim);
    CHECK(lim.max_alloc == SAMRT_VIDEO_MAX_ALLOC_DEFAULT);
    samrt_log_set(log_keep, NULL, SAMRT_LOG_ERROR);
    g_last_err[0] = 0;
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    CHECK_STATUS(samrt_video_open(path, &r, &info), SAMRT_E_UNSUPPORTED);
    CHECK_MSG(strstr(g_last_err, path) && strstr(g_last_err, "64x48") && strstr(g_last_err, "at most 32x32"),
              "message \"%s\"", g_last_err);
    printf("plan 32x32: \"%s\"\n", g_last_err);
    size_t size = 0;
    uint8_t *data = du_read_file(path, &size);
    CHECK_STATUS(samrt_video_open_mem(data ? data : (uint8_t *)"", size, &r, &info), SAMRT_E_UNSUPPORTED);
    free(data);
    du_quiet(0);
    const struct samrt_video_limits none = {0, 0, 0, 0, 0, 0};
    CHECK_STATUS(samrt_video_set_limits(&none), SAMRT_OK);
    samrt_video_get_limits(&lim);
    CHECK(lim.max_alloc == SAMRT_VIDEO_MAX_ALLOC_DEFAULT && lim.max_height == SAMRT_VIDEO_MAX_SIDE);
    const struct samrt_video_limits huge = {SAMRT_VIDEO_MAX_SIDE + 1, 64, 0, 0, 0, 0};
    du_quiet(1);
    CHECK_STATUS(samrt_video_set_limits(&huge), SAMRT_E_INVALID_ARG);
    du_quiet(0);
}

static enum samrt_status parse_expected(const char *s) {
    return !strcmp(s, "ok") ? SAMRT_OK : !strcmp(s, "format") ? SAMRT_E_FORMAT : !strcmp(s, "io") ? SAMRT_E_IO
                                                                                                   : SAMRT_STATUS_COUNT;
}

/* Each file of bad/ opened and read to its end, from the file and from memory. */
static void test_bad_corpus(const char *dir) {
    char list[1024], line[512];
    snprintf(list, sizeof list, "%s/bad/expected.txt", dir);
    FILE *fl = fopen(list, "r");
    CHECK_MSG(fl != NULL, "%s missing", list);
    int n_files = 0;
    while (fl && fgets(line, sizeof line, fl)) {
        char name[256], want[32];
        if (line[0] == '#' || sscanf(line, "%255s %31s", name, want) != 2) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/bad/%s", dir, name);
        struct samrt_video_reader *r = NULL;
        struct samrt_video_info info;
        enum samrt_status st = samrt_video_open(path, &r, &info);
        int n = 0;
        if (st == SAMRT_OK) st = read_all(r, &info, &n, NULL);
        samrt_video_close(r);
        const enum samrt_status w = parse_expected(want);
        if (w != SAMRT_STATUS_COUNT) CHECK_MSG(st == w, "%s: %s, want %s", name, samrt_status_str(st), want);
        else CHECK_MSG(!strcmp(want, "any") || st != SAMRT_OK, "%s: %s, want %s", name, samrt_status_str(st), want);
        size_t size = 0;  /* from memory: any status, never a crash */
        uint8_t *data = du_read_file(path, &size);
        if (samrt_video_open_mem(data ? data : (uint8_t *)"", size, &r, &info) == SAMRT_OK) {
            read_all(r, &info, &n, NULL);
            samrt_video_close(r);
        }
        free(data);
        n_files++;
    }
    if (fl) fclose(fl);
    CHECK(n_files >= 9);
}

int main(int argc, char **argv) {
    if (!samrt_video_available())
        return check_skip("test_video", "this build has no FFmpeg (SAMRT_VIDEO=OFF, or the FFmpeg development "
                                        "packages were not found)");
    if (argc != 3) {
        fprintf(stderr, "usage: test_video CLIP.mp4 CORPUS_DIR\n");
        return 2;
    }
    if (du_tmpdir("video", g_tmp, sizeof g_tmp) != 0) return check_skip("test_video", "no temp folder");
    test_clip(argv[1]);
    test_good_corpus(argv[2]);
    /* the default encoder: H.264 where this FFmpeg has one (Debian's: libx264), else MPEG-4 */
    struct samrt_video_lib_versions lv;
    samrt_video_versions(&lv);
    round_trip("rt.mp4", NULL, 96, 64, 12, lv.h264_encoder);
    round_trip("rt_odd.mkv", NULL, 97, 65, 5, lv.h264_encoder);
    round_trip("rt_mpeg4.avi", "mpeg4", 96, 64, 12, "mpeg4");
    test_stream(argv[1]);
    test_plan(argv[2]);
    test_alloc_bound(argv[2]);
    test_truncated("cut.mkv", NULL, 24, 0.6);
    test_truncated("cut.webm", "libvpx", 24, 0.6);
    test_truncated("cut_mpeg4.mkv", "mpeg4", 24, 0.5);
    test_live_and_codec("cut.mkv");
    du_quiet(1);  /* the corpus logs one error per file */
    test_bad_corpus(argv[2]);
    du_quiet(0);
    du_rmtree(g_tmp);
    return check_report("test_video");
}
