/* streams_example.c - several videos at once on one copy of the weights, with the public API
 * only (samrt.h): one engine (samrt_engine_init) and K-1 sessions of it
 * (samrt_engine_init_session), each tracked from its own thread. Raw RGB24 frames are read
 * from stdin (up to N of them, kept in memory) and every stream tracks that clip, the object
 * under one click on the first frame. It prints the frame rate of one stream alone, then of
 * the K streams together (per stream and in aggregate), and the arenas:
 *
 *   ffmpeg -loglevel error -i video.mp4 -f rawvideo -pix_fmt rgb24 - |
 *     samrt_streams_example edgetam.pt 960 540 210 350 4 [N]
 *
 * Each stream warms up with one pass over the clip, then all streams start their timed pass
 * together (a barrier), timed with the host clock from the first push to the last result. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "samrt.h"

#define MAX_STREAMS 16

struct clip {
    unsigned char *rgb;
    int w, h, n;
    float x, y;
};

struct stream {
    samrt_engine_t eng;
    const struct clip *clip;
    pthread_barrier_t *start;
    unsigned char *mask;
    double seconds;
    enum samrt_status st;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One pass over the clip: begin, prompt on frame 0, push every frame. */
static enum samrt_status track_pass(struct stream *s) {
    const struct clip *c = s->clip;
    struct samrt_object_prompt pr = {0};
    pr.n_clicks = 1;
    pr.clicks[0] = (struct samrt_click){c->x, c->y, 1};
    enum samrt_status st = samrt_engine_track_begin(s->eng, c->w, c->h);
    if (st == SAMRT_OK) st = samrt_engine_track_prompt(s->eng, 1, &pr);
    const size_t frame_bytes = (size_t)3 * c->w * c->h;
    for (int f = 0; f < c->n && st == SAMRT_OK; f++) {
        const struct samrt_image img = {c->rgb + frame_bytes * f, c->w, c->h, 3 * c->w};
        struct samrt_track_result r = {0};
        r.mask = s->mask;
        int n = 0;
        st = samrt_engine_track_push(s->eng, &img, 0, &r, 1, &n);
    }
    return st;
}

static void *stream_main(void *arg) {
    struct stream *s = arg;
    s->st = track_pass(s);  /* warm-up: graphs captured, libraries loaded */
    if (s->start) pthread_barrier_wait(s->start);
    const double t0 = now_s();
    if (s->st == SAMRT_OK) s->st = track_pass(s);
    s->seconds = now_s() - t0;
    return NULL;
}

static int read_clip(struct clip *c, int max_frames) {
    const size_t frame_bytes = (size_t)3 * c->w * c->h;
    c->rgb = malloc(frame_bytes * (size_t)max_frames);
    if (!c->rgb) return -1;
    c->n = 0;
    while (c->n < max_frames && fread(c->rgb + frame_bytes * c->n, 1, frame_bytes, stdin) == frame_bytes) c->n++;
    return c->n > 0 ? 0 : -1;
}

static double mib(uint64_t b) { return b / 1048576.0; }

int main(int argc, char **argv) {
    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: %s CKPT WIDTH HEIGHT X Y STREAMS [FRAMES (100)] < frames.rgb24\n", argv[0]);
        return 2;
    }
    struct clip clip = {NULL, atoi(argv[2]), atoi(argv[3]), 0, (float)atof(argv[4]), (float)atof(argv[5])};
    const int k = atoi(argv[6]), max_frames = argc == 8 ? atoi(argv[7]) : 100;
    if (clip.w <= 0 || clip.h <= 0 || k < 1 || k > MAX_STREAMS || max_frames < 1) {
        fprintf(stderr, "bad frame size, stream count (1..%d) or frame count\n", MAX_STREAMS);
        return 2;
    }
    if (read_clip(&clip, max_frames) != 0) {
        fprintf(stderr, "no %dx%d RGB24 frame on stdin\n", clip.w, clip.h);
        free(clip.rgb);
        return 2;
    }
    struct samrt_engine_params p = samrt_engine_default_params();
    p.max_frame_width = clip.w, p.max_frame_height = clip.h;
    samrt_engine_t eng[MAX_STREAMS] = {0};
    enum samrt_status st = samrt_engine_init(argv[1], &p, &eng[0]);
    for (int i = 1; i < k && st == SAMRT_OK; i++) st = samrt_engine_init_session(eng[0], NULL, &eng[i]);
    struct stream s[MAX_STREAMS] = {0};
    unsigned char *masks = malloc((size_t)clip.w * clip.h * (size_t)k);
    if (st != SAMRT_OK || !masks) {
        fprintf(stderr, "setup: %s\n", st != SAMRT_OK ? samrt_status_str(st) : "no memory");
        for (int i = 0; i < k; i++) samrt_engine_free(eng[i]);
        free(clip.rgb), free(masks);
        return 3;
    }
    struct samrt_memory_report m0, m1;
    samrt_engine_memory(eng[0], &m0);
    if (k > 1) samrt_engine_memory(eng[1], &m1);
    printf("arenas: engine %.2f MiB (weights %.2f MiB)", mib(m0.arena_bytes), mib(m0.weights_bytes));
    if (k > 1) printf(" + %d sessions x %.2f MiB", k - 1, mib(m1.arena_bytes));
    printf(" = %.2f MiB\n", mib(m0.arena_bytes + (k > 1 ? (uint64_t)(k - 1) * m1.arena_bytes : 0)));

    /* one stream alone */
    s[0] = (struct stream){eng[0], &clip, NULL, masks, 0, SAMRT_OK};
    stream_main(&s[0]);
    if (s[0].st != SAMRT_OK) {
        fprintf(stderr, "track: %s\n", samrt_status_str(s[0].st));
        for (int i = 0; i < k; i++) samrt_engine_free(eng[i]);
        free(clip.rgb), free(masks);
        return 3;
    }
    const double one = clip.n / s[0].seconds;
    printf("1 stream: %d frames, %.1f frames/s (%.3f ms/frame)\n", clip.n, one, 1e3 * s[0].seconds / clip.n);

    /* k streams at once */
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)k);
    pthread_t th[MAX_STREAMS];
    for (int i = 0; i < k; i++) {
        s[i] = (struct stream){eng[i], &clip, &start, masks + (size_t)clip.w * clip.h * i, 0, SAMRT_OK};
        pthread_create(&th[i], NULL, stream_main, &s[i]);
    }
    double slowest = 0;
    int rc = 0;
    for (int i = 0; i < k; i++) {
        pthread_join(th[i], NULL);
        if (s[i].seconds > slowest) slowest = s[i].seconds;
        if (s[i].st != SAMRT_OK) fprintf(stderr, "stream %d: %s\n", i, samrt_status_str(s[i].st)), rc = 3;
    }
    pthread_barrier_destroy(&start);
    printf("%d streams:", k);
    for (int i = 0; i < k; i++) printf(" %.1f", clip.n / s[i].seconds);
    const double agg = (double)k * clip.n / slowest;
    printf(" frames/s; aggregate %.1f frames/s = %.2f x one stream\n", agg, agg / one);
    for (int i = 0; i < k; i++) samrt_engine_free(eng[i]);
    free(clip.rgb), free(masks);
    return rc;
}
