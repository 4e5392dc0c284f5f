/* test_video_reader.c - the exported video reader (include/samrt_video.h, harness/
 * video_public.c): a small clip written by the harness's writer read back frame by frame
 * (size, count, rate, pixels within codec error, the end said twice), the caller's buffer
 * checked, and bad input refused with clear statuses: a missing file (io), a file cut in half
 * and the malformed corpus (format, at open or at a frame; after a frame's error the reader
 * answers bad state). Without FFmpeg: every call is unsupported, then the test skips (77).
 * Run: ctest -R test_video_reader  (arg: the malformed corpus folder) */
#include "samrt_video.h"

#include <string.h>

#include "check.h"
#include "data_util.h"
#include "video.h"

#define W 64
#define H 48
#define N 6

static void make_frame(uint8_t *rgb, int t) {
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = rgb + 3 * ((size_t)y * W + x);
            const int in = x > 8 + 3 * t && x < 30 + 3 * t && y > 10 && y < 34;
            p[0] = (uint8_t)(in ? 230 : 3 * x);
            p[1] = (uint8_t)(in ? 40 : 4 * y);
            p[2] = (uint8_t)(in ? 60 : 128);
        }
}

/* Opens path and reads to the end or the first error: the status of the first failing call. */
static enum samrt_status read_through(const char *path, int *frames) {
    samrt_video_reader_t r = NULL;
    *frames = 0;
    enum samrt_status st = samrt_video_reader_open(path, &r);
    if (st != SAMRT_OK) {
        CHECK(r == NULL);
        return st;
    }
    int w = 0, h = 0, eof = 0;
    CHECK_STATUS(samrt_video_reader_info(r, &w, &h, NULL, NULL), SAMRT_OK);
    uint8_t *rgb = malloc((size_t)w * h * 3);
    while ((st = samrt_video_reader_next(r, rgb, (size_t)w * h * 3, &eof)) == SAMRT_OK && !eof) (*frames)++;
    if (st != SAMRT_OK)  /* sticky: the reader does not read on from a failed frame */
        CHECK_STATUS(samrt_video_reader_next(r, rgb, (size_t)w * h * 3, &eof), SAMRT_E_BAD_STATE);
    free(rgb);
    samrt_video_reader_close(r);
    return st;
}

static void test_round_trip(const char *path) {
    struct samrt_video_writer *vw = NULL;
    uint8_t *rgb = malloc(W * H * 3), *back = malloc(W * H * 3);
    CHECK_STATUS(samrt_video_writer_open(path, W, H, 10.0, &vw), SAMRT_OK);
    for (int t = 0; t < N && vw; t++) {
        make_frame(rgb, t);
        CHECK_STATUS(samrt_video_writer_push(vw, rgb), SAMRT_OK);
    }
    CHECK_STATUS(samrt_video_writer_close(vw), SAMRT_OK);
    samrt_video_reader_t r = NULL;
    CHECK_STATUS(samrt_video_reader_open(path, &r), SAMRT_OK);
    int w = 0, h = 0, eof = -1, k = 0;
    int64_t n = 0;
    double fps = 0, err = 0;
    CHECK_STATUS(samrt_video_reader_info(r, &w, &h, &n, &fps), SAMRT_OK);
    CHECK_EQ_INT(w, W);
    CHECK_EQ_INT(h, H);
    CHECK_EQ_INT(n, N);
    CHECK_NEAR(fps, 10.0, 1e-9);
    CHECK_STATUS(samrt_video_reader_next(r, back, W * H * 3 - 1, &eof), SAMRT_E_INVALID_ARG);  /* too small */
    CHECK_STATUS(samrt_video_reader_next(r, NULL, W * H * 3, &eof), SAMRT_E_INVALID_ARG);
    for (; samrt_video_reader_next(r, back, W * H * 3, &eof) == SAMRT_OK && !eof; k++) {
        make_frame(rgb, k);
        for (size_t i = 0; i < W * H * 3; i++) err += abs((int)back[i] - (int)rgb[i]);
    }
    CHECK_EQ_INT(k, N);
    CHECK_EQ_INT(eof, 1);
    CHECK_STATUS(samrt_video_reader_next(r, back, W * H * 3, &eof), SAMRT_OK);  /* the end, again */
    CHECK_EQ_INT(eof, 1);
    err /= (double)N * W * H * 3;
    CHECK_MSG(err < 6.0, "mean abs error %.2f per sample", err);
    printf("round trip %dx%d: %d frames at %.1f fps, mean abs error %.2f\n", w, h, k, fps, err);
    samrt_video_reader_close(r);
    samrt_video_reader_close(NULL);
    free(rgb);
    free(back);
}

static void test_bad(const char *tmp, const char *clip, const char *corpus) {
    char path[1024];
    int frames = 0;
    samrt_video_reader_t r = (samrt_video_reader_t)1;
    CHECK_STATUS(samrt_video_reader_open(NULL, &r), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_video_reader_info(NULL, NULL, NULL, NULL, NULL), SAMRT_E_INVALID_ARG);
    snprintf(path, sizeof path, "%s/missing.mp4", tmp);
    CHECK_STATUS(samrt_video_reader_open(path, &r), SAMRT_E_IO);
    CHECK(r == NULL);
    /* the synthesized clip cut in half: refused at open or at a frame, never a short video */
    size_t size = 0;
    uint8_t *data = du_read_file(clip, &size);
    CHECK(data != NULL && size > 64);
    snprintf(path, sizeof path, "%s/half.mp4", tmp);
    CHECK(data && du_write_file(path, data, size / 2) == 0);
    free(data);
    CHECK_STATUS(read_through(path, &frames), SAMRT_E_FORMAT);
    static const char *const bad[] = {"empty.mp4", "garbage.mp4", "text.mp4", "truncated.mkv", "truncated_half.mp4",
                                      "truncated_head.mp4", "corrupt_moov.mp4", "audio_only.wav"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", corpus, bad[i]);
        const enum samrt_status st = read_through(path, &frames);
        CHECK_MSG(st == SAMRT_E_FORMAT, "%s: %s after %d frames", bad[i], samrt_status_str(st), frames);
    }
}

int main(int argc, char **argv) {
    if (!samrt_video_reader_available()) {
        samrt_video_reader_t r = NULL;
        du_quiet(1);
        CHECK_STATUS(samrt_video_reader_open("clip.mp4", &r), SAMRT_E_UNSUPPORTED);
        du_quiet(0);
        if (check_report("test_video_reader") != 0) return 1;
        return check_skip("test_video_reader", "this build has no FFmpeg: samrt_video_reader_open answers "
                                               "unsupported, as it should");
    }
    if (argc != 2) {
        fprintf(stderr, "usage: test_video_reader CORPUS_BAD_DIR\n");
        return 2;
    }
    char tmp[512], clip[1024];
    if (du_tmpdir("video_reader", tmp, sizeof tmp) != 0) return check_skip("test_video_reader", "no temp folder");
    snprintf(clip, sizeof clip, "%s/clip.mp4", tmp);
    test_round_trip(clip);
    du_quiet(1);  /* each refusal logs its reason */
    test_bad(tmp, clip, argv[1]);
    du_quiet(0);
    du_rmtree(tmp);
    return check_report("test_video_reader");
}
