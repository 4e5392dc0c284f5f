/* frame_stream.c - the prefetching frame streamer (frame_stream.h): frames of a video folder
 * decoded ahead on a thread, so that decoding overlaps tracking and a video is never all in
 * memory.
 *
 * The streamer is one pthread per open video that decodes frame i into ring slot i % n_slots
 * and waits for that slot to be released; the consumer takes frames in order. The ring is
 * allocated once at open, so the steady state allocates nothing but libjpeg's own pools. */
#include "frame_stream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_io.h"
#include "platform.h"
#include "sav.h"

#define STREAM_PATH_MAX 4096
#define STREAM_MAX_DEPTH 64

enum slot_state { SLOT_FREE = 0, SLOT_FILLED, SLOT_HELD };

struct samrt_frame_stream {
    char *dir;
    struct samrt_sav_jpeg *frames;
    int n_frames;
    int width, height;
    int n_slots;
    size_t frame_bytes;
    uint8_t *pixels;              /* n_slots * frame_bytes, allocated at open */
    enum slot_state *state;       /* per slot */
    enum samrt_status *status;    /* per slot: the decode result of the frame in it */
    double *decode_ms;            /* per slot: read + decode time of the frame in it */
    int next;                     /* the frame the consumer gets next */
    enum samrt_status failed;     /* sticky consumer-side failure */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv_filled, cv_free;
    pthread_t thread;
    int thread_started;
    uint8_t *file;                /* decoder thread's file buffer */
    size_t file_cap;
};

static enum samrt_status stream_decode(struct samrt_frame_stream *s, int i, uint8_t *dst) {
    char path[STREAM_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", s->dir, s->frames[i].name);
    size_t size = 0;
    SAMRT_TRY(samrt_file_read(path, &s->file, &s->file_cap, &size));
    struct samrt_image_info info;
    enum samrt_status st = samrt_jpeg_info(s->file, size, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot read frame %s", path);
    SAMRT_CHECK(info.width == s->width && info.height == s->height, SAMRT_E_FORMAT,
                "%s is %dx%d but the video's first frame is %dx%d", path, info.width, info.height, s->width,
                s->height);
    st = samrt_jpeg_decode(s->file, size, dst, s->frame_bytes, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot decode frame %s", path);
    return SAMRT_OK;
}

static void *stream_thread(void *arg) {
    struct samrt_frame_stream *s = (struct samrt_frame_stream *)arg;
    for (int i = 0; i < s->n_frames; i++) {
        int slot = i % s->n_slots;
        pthread_mutex_lock(&s->mu);
        while (!s->stop && s->state[slot] != SLOT_FREE) pthread_cond_wait(&s->cv_free, &s->mu);
        int stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop) break;
        const uint64_t t0 = samrt_platform_now_ns();
        enum samrt_status st = stream_decode(s, i, s->pixels + (size_t)slot * s->frame_bytes);
        const double ms = (double)(samrt_platform_now_ns() - t0) * 1e-6;
        pthread_mutex_lock(&s->mu);
        s->decode_ms[slot] = ms;
        s->state[slot] = SLOT_FILLED;
        s->status[slot] = st;
        pthread_cond_broadcast(&s->cv_filled);
        pthread_mutex_unlock(&s->mu);
        if (st != SAMRT_OK) break;
    }
    return NULL;
}

void samrt_frame_stream_close(samrt_frame_stream_t s) {
    if (!s) return;
    if (s->thread_started) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_broadcast(&s->cv_free);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->thread, NULL);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv_filled);
    pthread_cond_destroy(&s->cv_free);
    samrt_sav_free_jpegs(s->frames, s->n_frames);
    free(s->dir);
    free(s->pixels);
    free(s->state);
    free(s->status);
    free(s->decode_ms);
    free(s->file);
    free(s);
}

enum samrt_status samrt_frame_stream_open(const char *video_dir, int depth, samrt_frame_stream_t *out) {
    SAMRT_CHECK(video_dir && out, SAMRT_E_INVALID_ARG, "samrt_frame_stream_open: NULL argument");
    *out = NULL;
    SAMRT_CHECK(depth >= 1 && depth <= STREAM_MAX_DEPTH, SAMRT_E_INVALID_ARG, "prefetch depth %d not in 1..%d",
                depth, STREAM_MAX_DEPTH);
    struct samrt_frame_stream *s = (struct samrt_frame_stream *)calloc(1, sizeof *s);
    SAMRT_CHECK(s, SAMRT_E_HOST_MEMORY, "out of memory");
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv_filled, NULL);
    pthread_cond_init(&s->cv_free, NULL);
    s->dir = strdup(video_dir);
    enum samrt_status st = s->dir ? samrt_sav_list_jpegs(video_dir, &s->frames, &s->n_frames) : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) {
        char path[STREAM_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", video_dir, s->frames[0].name);
        size_t size = 0;
        struct samrt_image_info info;
        st = samrt_file_read(path, &s->file, &s->file_cap, &size);
        if (st == SAMRT_OK) st = samrt_jpeg_info(s->file, size, &info);
        if (st == SAMRT_OK) {
            s->width = info.width;
            s->height = info.height;
            s->frame_bytes = samrt_image_nbytes(&info);
        } else {
            SAMRT_LOG_ERROR("cannot read frame %s", path);
        }
    }
    if (st == SAMRT_OK) {
        s->n_slots = depth + 1;
        s->pixels = (uint8_t *)malloc(s->frame_bytes * (size_t)s->n_slots);
        s->state = (enum slot_state *)calloc((size_t)s->n_slots, sizeof *s->state);
        s->status = (enum samrt_status *)calloc((size_t)s->n_slots, sizeof *s->status);
        s->decode_ms = (double *)calloc((size_t)s->n_slots, sizeof *s->decode_ms);
        if (!s->pixels || !s->state || !s->status || !s->decode_ms) {
            SAMRT_LOG_ERROR("out of memory for %d frame buffers of %zu bytes", s->n_slots, s->frame_bytes);
            st = SAMRT_E_HOST_MEMORY;
        }
    }
    if (st == SAMRT_OK) {
        if (pthread_create(&s->thread, NULL, stream_thread, s) != 0) {
            SAMRT_LOG_ERROR("cannot start the frame decode thread");
            st = SAMRT_E_HOST_MEMORY;
        } else {
            s->thread_started = 1;
        }
    }
    if (st != SAMRT_OK) {
        samrt_frame_stream_close(s);
        return st;
    }
    *out = s;
    return SAMRT_OK;
}

int samrt_frame_stream_count(samrt_frame_stream_t s) { return s ? s->n_frames : 0; }

void samrt_frame_stream_size(samrt_frame_stream_t s, int *width, int *height) {
    if (width) *width = s ? s->width : 0;
    if (height) *height = s ? s->height : 0;
}

enum samrt_status samrt_frame_stream_next(samrt_frame_stream_t s, struct samrt_frame *f) {
    if (!s || !f) return SAMRT_E_INVALID_ARG;
    memset(f, 0, sizeof *f);
    f->slot = -1;
    pthread_mutex_lock(&s->mu);
    enum samrt_status st = s->failed;
    if (st == SAMRT_OK && s->next >= s->n_frames) {
        f->index = s->n_frames;
        pthread_mutex_unlock(&s->mu);
        return SAMRT_OK;
    }
    int slot = s->next % s->n_slots;
    if (st == SAMRT_OK && s->state[slot] == SLOT_HELD) {
        pthread_mutex_unlock(&s->mu);
        SAMRT_LOG_ERROR("frame stream: all %d buffers are held; release a frame before asking for the next",
                        s->n_slots);
        return SAMRT_E_BAD_STATE;
    }
    while (st == SAMRT_OK && s->state[slot] != SLOT_FILLED) pthread_cond_wait(&s->cv_filled, &s->mu);
    if (st == SAMRT_OK && s->status[slot] != SAMRT_OK) {
        st = s->failed = s->status[slot];
        s->state[slot] = SLOT_FREE;
    }
    if (st == SAMRT_OK) {
        s->state[slot] = SLOT_HELD;
        f->rgb = s->pixels + (size_t)slot * s->frame_bytes;
        f->index = s->next;
        f->width = s->width;
        f->height = s->height;
        f->name = s->frames[s->next].name;
        f->slot = slot;
        f->decode_ms = s->decode_ms[slot];
        s->next++;
    }
    pthread_mutex_unlock(&s->mu);
    return st;
}

void samrt_frame_stream_release(samrt_frame_stream_t s, struct samrt_frame *f) {
    if (!s || !f || f->slot < 0 || f->slot >= s->n_slots) return;
    pthread_mutex_lock(&s->mu);
    if (s->state[f->slot] == SLOT_HELD) {
        s->state[f->slot] = SLOT_FREE;
        pthread_cond_broadcast(&s->cv_free);
    }
    pthread_mutex_unlock(&s->mu);
    f->slot = -1;
    f->rgb = NULL;
}
