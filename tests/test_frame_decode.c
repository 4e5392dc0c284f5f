/* test_frame_decode.c - the frame streamer's pool of JPEG decode threads (harness/
 * frame_stream.c): frames come out in order whatever thread decoded them, with the same bytes
 * as one libjpeg-turbo call per file (so 1 thread equals the streamer before the pool, bit for
 * bit, and N threads equal 1); a corrupt or truncated frame mid-folder is reported at that
 * frame, after every good frame before it, with any number of threads and any window; the
 * thread count is bounded by the ring and checked; the malformed JPEGs of the corpus
 * (tests/data/images/bad) placed mid-folder each stop the stream there with an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "frame_decode_util.h"
#include "frame_stream.h"

#define W 96
#define H 64
#define N_FRAMES 23

static char g_dir[800];

static enum samrt_status open_n(const char *dir, int depth, int threads, int start, int max_frames,
                                samrt_frame_stream_t *fs) {
    const struct samrt_frame_source src = {dir, depth, start, max_frames};
    const struct samrt_frame_decode dec = {threads, 0, 0};
    return samrt_frame_stream_open_decode(&src, &dec, fs);
}

/* Streams the folder; every frame is compared with its reference decode. Returns frames seen
 * and the status that stopped the stream; *same counts bit-equal frames. */
static int stream_all(const char *dir, int depth, int threads, int start, int max_frames, enum samrt_status *st_out,
                      int *same, uint8_t *all) {
    samrt_frame_stream_t fs = NULL;
    *same = 0;
    enum samrt_status st = open_n(dir, depth, threads, start, max_frames, &fs);
    if (st != SAMRT_OK) {
        *st_out = st;
        return -1;
    }
    struct samrt_frame_stream_info info;
    samrt_frame_stream_info(fs, &info);
    CHECK(info.decode_threads >= 1 && info.decode_threads <= threads && info.decode_threads <= depth + 1);
    CHECK(!info.on_device && info.host_bytes > 0);
    struct samrt_frame f;
    int i = 0;
    char path[1024];
    while ((st = samrt_frame_stream_next(fs, &f)) == SAMRT_OK && f.rgb) {
        CHECK_EQ_INT(f.index, start + i);
        snprintf(path, sizeof path, "%s/%05d.jpg", dir, start + i);
        int w = 0, h = 0;
        uint8_t *want = fd_decode_file(path, &w, &h);
        *same += want && w == f.width && h == f.height && !memcmp(want, f.rgb, (size_t)w * h * 3);
        if (all) memcpy(all + (size_t)i * W * H * 3, f.rgb, (size_t)W * H * 3);
        free(want);
        samrt_frame_stream_release(fs, &f);
        i++;
    }
    *st_out = st;
    samrt_frame_stream_close(fs);
    return i;
}

static void test_order(void) {
    const size_t bytes = (size_t)N_FRAMES * W * H * 3;
    uint8_t *one = (uint8_t *)malloc(bytes), *many = (uint8_t *)malloc(bytes);
    enum samrt_status st;
    int same = 0;
    CHECK_EQ_INT(stream_all(g_dir, 4, 1, 0, 0, &st, &same, one), N_FRAMES);
    CHECK_EQ_INT(st, SAMRT_OK);
    CHECK_EQ_INT(same, N_FRAMES);
    const int threads[] = {2, 3, 4, 8};
    const int depths[] = {1, 2, 5, 16};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            CHECK_EQ_INT(stream_all(g_dir, depths[b], threads[a], 0, 0, &st, &same, many), N_FRAMES);
            CHECK_EQ_INT(st, SAMRT_OK);
            CHECK_MSG(same == N_FRAMES && !memcmp(one, many, bytes), "%d threads, depth %d: %d of %d frames equal",
                      threads[a], depths[b], same, N_FRAMES);
        }
    /* --start and --max-frames with a pool */
    CHECK_EQ_INT(stream_all(g_dir, 3, 4, 5, 7, &st, &same, NULL), 7);
    CHECK_EQ_INT(same, 7);
    CHECK_EQ_INT(stream_all(g_dir, 3, 4, 20, 0, &st, &same, NULL), 3);
    CHECK_EQ_INT(same, 3);
    free(one);
    free(many);
}

/* A slow consumer holding frames: the pool never decodes past the ring, and out-of-order
 * releases still give ordered frames. */
static void test_window(void) {
    samrt_frame_stream_t fs = NULL;
    CHECK_STATUS(open_n(g_dir, 2, 4, 0, 0, &fs), SAMRT_OK);
    struct samrt_frame held[3], f;
    for (int k = 0; k < 3; k++) {
        CHECK_STATUS(samrt_frame_stream_next(fs, &held[k]), SAMRT_OK);
        CHECK_EQ_INT(held[k].index, k);
    }
    CHECK_STATUS(samrt_frame_stream_next(fs, &f), SAMRT_E_BAD_STATE);
    samrt_frame_stream_release(fs, &held[2]);
    samrt_frame_stream_release(fs, &held[0]);
    CHECK_STATUS(samrt_frame_stream_next(fs, &f), SAMRT_OK);
    CHECK_EQ_INT(f.index, 3);
    samrt_frame_stream_close(fs);   /* frames held, threads waiting */
}

/* A bad frame (bytes of a malformed file) at position `at` of a copy of the folder. */
static void check_bad_at(const uint8_t *bad, size_t n, int at, const char *what) {
    char dir[900], path[1024];
    static int serial;
    snprintf(dir, sizeof dir, "%s_bad%d", g_dir, serial++);
    CHECK(fd_make_folder(dir, W, H, 12, 90) == 0);
    snprintf(path, sizeof path, "%s/%05d.jpg", dir, at);
    CHECK(du_write_file(path, bad, n) == 0);
    const int threads[] = {1, 2, 4};
    for (int t = 0; t < 3; t++)
        for (int depth = 1; depth <= 6; depth += 5) {
            enum samrt_status st = SAMRT_OK;
            int same = 0;
            const int got = stream_all(dir, depth, threads[t], 0, 0, &st, &same, NULL);
            CHECK_MSG(got == at && same == at && st != SAMRT_OK, "%s at frame %d, %d threads, depth %d: %d frames, %s",
                      what, at, threads[t], depth, got, samrt_status_str(st));
        }
    du_rmtree(dir);
}

static void test_bad_frames(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/00003.jpg", g_dir);
    size_t n = 0;
    uint8_t *good = du_read_file(path, &n);
    CHECK(good && n > 100);
    check_bad_at(good, n / 2, 7, "truncated");
    check_bad_at(good, 0, 1, "empty");
    check_bad_at(good + 2, n - 2, 4, "no SOI");
    free(good);
    /* the corpus: each malformed JPEG mid-folder */
    const char *data = getenv("SAMRT_TEST_DATA");
    const char *corpus[] = {"truncated.jpg", "garbage.jpg", "header_only.jpg", "soi_only.jpg", "no_image.jpg",
                            "cmyk.jpg", "huge_dims.jpg", "bad_huffman.jpg"};
    for (size_t c = 0; data && c < SAMRT_ARRAY_LEN(corpus); c++) {
        snprintf(path, sizeof path, "%s/images/bad/%s", data, corpus[c]);
        uint8_t *b = du_read_file(path, &n);
        CHECK_MSG(b != NULL, "corpus file %s", path);
        if (b) check_bad_at(b, n, 5, corpus[c]);
        free(b);
    }
}

static void test_args(void) {
    samrt_frame_stream_t fs = NULL;
    CHECK_STATUS(open_n(g_dir, 2, SAMRT_DECODE_THREADS_MAX + 1, 0, 0, &fs), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(open_n(g_dir, 2, -1, 0, 0, &fs), SAMRT_E_INVALID_ARG);
    CHECK(fs == NULL);
    CHECK_STATUS(open_n(g_dir, 1, 8, 0, 0, &fs), SAMRT_OK);   /* 8 threads, 2 slots: 2 threads */
    struct samrt_frame_stream_info info;
    samrt_frame_stream_info(fs, &info);
    CHECK_EQ_INT(info.decode_threads, 2);
    CHECK(!strcmp(info.decoder, "libjpeg-turbo x2"));
    samrt_frame_stream_close(fs);
    const int d = samrt_frame_stream_default_threads();
    CHECK(d >= 1 && d <= SAMRT_DECODE_THREADS_DEFAULT_MAX);
    char buf[256];
    samrt_frame_decode_path(buf, sizeof buf);
    printf("decode path: %s\n", buf);
    CHECK(strstr(buf, "nvJPEG") != NULL);
}

int main(void) {
    char root[700];
    if (du_tmpdir("fdec", root, sizeof root) != 0) return check_skip("test_frame_decode", "no temp folder");
    snprintf(g_dir, sizeof g_dir, "%s/frames", root);
    if (fd_make_folder(g_dir, W, H, N_FRAMES, 90) != 0) return check_skip("test_frame_decode", "cannot write frames");
    du_quiet(1);   /* the bad frames log their errors */
    test_order();
    test_window();
    test_bad_frames();
    test_args();
    du_rmtree(root);
    return check_report("test_frame_decode");
}
