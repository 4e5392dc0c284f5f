/* frame_stream.c - the prefetching frame streamer (frame_stream.h): frames of a JPEG folder,
 * a video file or a camera decoded ahead on a thread, so that decoding overlaps tracking and
 * a video is never all in memory.
 *
 * The streamer is one pthread per open source that decodes its i-th frame into ring slot
 * i % n_slots and waits for that slot to be released; the consumer takes frames in order.
 * After the last frame the thread posts an end marker in the next slot, so the consumer
 * learns the end the same way from a folder (whose length is known) and from a camera (whose
 * length is not). The ring is allocated once at open, so the steady state allocates nothing
 * but the decoders' own pools. */
#include "frame_stream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io.h"
#include "platform.h"
#include "sav.h"
#include "video.h"

#define STREAM_PATH_MAX 4096
#define STREAM_MAX_DEPTH 64

enum slot_state { SLOT_FREE = 0, SLOT_FILLED, SLOT_HELD };

struct slot {
    enum slot_state state;
    enum samrt_status status;     /* the decode result of the frame in it */
    int end;                      /* the end marker: no frame */
    int index;                    /* the frame's position in the source */
    double pts_s, decode_ms;
    char name[32];                /* a video frame's name: its index, "%05d" */
};

struct samrt_frame_stream {
    char *dir;                    /* a folder source */
    struct samrt_sav_jpeg *frames;
    int n_list;                   /* JPEGs in the folder */
    struct samrt_video_reader *video;
    struct samrt_frame_stream_info info;
    int start, max_frames;
    int n_slots;
    size_t frame_bytes;
    uint8_t *pixels;              /* n_slots * frame_bytes, allocated at open */
    struct slot *slots;
    int next;                     /* frames handed to the consumer so far */
    enum samrt_status failed;     /* sticky consumer-side failure */
    int ended;                    /* the consumer has seen the end marker */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv_filled, cv_free;
    pthread_t thread;
    int thread_started;
    uint8_t *file;                /* decoder thread's file buffer */
    size_t file_cap;
};

int samrt_frame_source_is_folder(const char *path) {
    struct stat sb;
    return path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Frame i of the folder (i counts from the first JPEG). */
static enum samrt_status folder_decode(struct samrt_frame_stream *s, int i, uint8_t *dst) {
    char path[STREAM_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", s->dir, s->frames[i].name);
    size_t size = 0;
    SAMRT_TRY(samrt_file_read(path, &s->file, &s->file_cap, &size));
    struct samrt_image_info info;
    enum samrt_status st = samrt_jpeg_info(s->file, size, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot read frame %s", path);
    SAMRT_CHECK(info.width == s->info.width && info.height == s->info.height, SAMRT_E_FORMAT,
                "%s is %dx%d but the video's first frame is %dx%d", path, info.width, info.height, s->info.width,
                s->info.height);
    st = samrt_jpeg_decode(s->file, size, dst, s->frame_bytes, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot decode frame %s", path);
    return SAMRT_OK;
}

/* The stream's i-th frame into dst and its facts into sl (sl->end at the source's end). */
static enum samrt_status source_read(struct samrt_frame_stream *s, int i, uint8_t *dst, struct slot *sl) {
    sl->end = 0;
    sl->pts_s = -1.0;
    if (!s->video) {
        sl->index = s->start + i;
        if (sl->index >= s->n_list) {
            sl->end = 1;
            return SAMRT_OK;
        }
        return folder_decode(s, sl->index, dst);
    }
    for (;;) {  /* frames before --start are decoded and dropped: indices count decoded frames */
        struct samrt_video_frame vf;
        SAMRT_TRY(samrt_video_read(s->video, dst, &vf));
        if (vf.eof) {
            sl->end = 1;
            return SAMRT_OK;
        }
        if (vf.index < s->start) continue;
        sl->index = (int)vf.index;
        sl->pts_s = vf.pts_s;
        snprintf(sl->name, sizeof sl->name, "%05d", sl->index);
        return SAMRT_OK;
    }
}

static void *stream_thread(void *arg) {
    struct samrt_frame_stream *s = (struct samrt_frame_stream *)arg;
    for (int i = 0;; i++) {
        struct slot *sl = &s->slots[i % s->n_slots];
        pthread_mutex_lock(&s->mu);
        while (!s->stop && sl->state != SLOT_FREE) pthread_cond_wait(&s->cv_free, &s->mu);
        int stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop) break;
        struct slot got;
        memset(&got, 0, sizeof got);
        const uint64_t t0 = samrt_platform_now_ns();
        enum samrt_status st = SAMRT_OK;
        if (s->max_frames && i >= s->max_frames) got.end = 1;
        else st = source_read(s, i, s->pixels + (size_t)(i % s->n_slots) * s->frame_bytes, &got);
        got.decode_ms = (double)(samrt_platform_now_ns() - t0) * 1e-6;
        got.status = st;
        got.state = SLOT_FILLED;
        pthread_mutex_lock(&s->mu);
        *sl = got;
        pthread_cond_broadcast(&s->cv_filled);
        pthread_mutex_unlock(&s->mu);
        if (st != SAMRT_OK || got.end) break;
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
        samrt_video_interrupt(s->video);  /* a camera read that waits for a frame returns */
        pthread_join(s->thread, NULL);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv_filled);
    pthread_cond_destroy(&s->cv_free);
    samrt_video_close(s->video);
    samrt_sav_free_jpegs(s->frames, s->n_list);
    free(s->dir);
    free(s->pixels);
    free(s->slots);
    free(s->file);
    free(s);
}

/* A JPEG folder: the list and the first frame's size. */
static enum samrt_status open_folder(struct samrt_frame_stream *s, const char *dir) {
    s->dir = strdup(dir);
    SAMRT_CHECK(s->dir, SAMRT_E_HOST_MEMORY, "out of memory");
    SAMRT_TRY(samrt_sav_list_jpegs(dir, &s->frames, &s->n_list));
    SAMRT_CHECK(s->start < s->n_list, SAMRT_E_INVALID_ARG, "%s: start frame %d is past the last frame (%d frames)",
                dir, s->start, s->n_list);
    char path[STREAM_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, s->frames[s->start].name);
    size_t size = 0;
    struct samrt_image_info info;
    enum samrt_status st = samrt_file_read(path, &s->file, &s->file_cap, &size);
    if (st == SAMRT_OK) st = samrt_jpeg_info(s->file, size, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot read frame %s", path);
    s->info.width = info.width;
    s->info.height = info.height;
    s->info.n_frames = s->n_list - s->start;
    return SAMRT_OK;
}

/* A video file or a camera: the reader and what it says about the stream. */
static enum samrt_status open_video(struct samrt_frame_stream *s, const char *path) {
    struct samrt_video_info vi;
    SAMRT_TRY(samrt_video_open(path, &s->video, &vi));
    s->info.width = vi.width;
    s->info.height = vi.height;
    s->info.fps = vi.fps;
    s->info.is_video = 1;
    s->info.is_device = vi.is_device;
    snprintf(s->info.codec, sizeof s->info.codec, "%s", vi.codec);
    s->info.n_frames = -1;
    if (vi.n_frames >= 0) {
        SAMRT_CHECK(vi.n_frames > s->start, SAMRT_E_INVALID_ARG, "%s: start frame %d is past the last frame (%lld frames)",
                    path, s->start, (long long)vi.n_frames);
        s->info.n_frames = vi.n_frames - s->start > 0x7fffffff ? 0x7fffffff : (int)(vi.n_frames - s->start);
    }
    return SAMRT_OK;
}

/* The ring and the decode thread, once the source is open. */
static enum samrt_status start_ring(struct samrt_frame_stream *s, int depth) {
    s->frame_bytes = (size_t)s->info.width * (size_t)s->info.height * 3;
    s->n_slots = depth + 1;
    s->pixels = (uint8_t *)malloc(s->frame_bytes * (size_t)s->n_slots);
    s->slots = (struct slot *)calloc((size_t)s->n_slots, sizeof *s->slots);
    SAMRT_CHECK(s->pixels && s->slots, SAMRT_E_HOST_MEMORY, "out of memory for %d frame buffers of %zu bytes",
                s->n_slots, s->frame_bytes);
    SAMRT_CHECK(pthread_create(&s->thread, NULL, stream_thread, s) == 0, SAMRT_E_HOST_MEMORY,
                "cannot start the frame decode thread");
    s->thread_started = 1;
    return SAMRT_OK;
}

enum samrt_status samrt_frame_stream_open_source(const struct samrt_frame_source *src, samrt_frame_stream_t *out) {
    SAMRT_CHECK(src && src->path && out, SAMRT_E_INVALID_ARG, "samrt_frame_stream_open_source: NULL argument");
    *out = NULL;
    SAMRT_CHECK(src->depth >= 1 && src->depth <= STREAM_MAX_DEPTH, SAMRT_E_INVALID_ARG, "prefetch depth %d not in 1..%d",
                src->depth, STREAM_MAX_DEPTH);
    SAMRT_CHECK(src->start >= 0 && src->max_frames >= 0, SAMRT_E_INVALID_ARG, "negative start or frame count");
    struct samrt_frame_stream *s = (struct samrt_frame_stream *)calloc(1, sizeof *s);
    SAMRT_CHECK(s, SAMRT_E_HOST_MEMORY, "out of memory");
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv_filled, NULL);
    pthread_cond_init(&s->cv_free, NULL);
    s->start = src->start;
    s->max_frames = src->max_frames;
    enum samrt_status st = samrt_frame_source_is_folder(src->path) ? open_folder(s, src->path) : open_video(s, src->path);
    if (st == SAMRT_OK && s->max_frames && (s->info.n_frames < 0 || s->info.n_frames > s->max_frames))
        s->info.n_frames = s->max_frames;
    if (st == SAMRT_OK) st = start_ring(s, src->depth);
    if (st != SAMRT_OK) {
        samrt_frame_stream_close(s);
        return st;
    }
    *out = s;
    return SAMRT_OK;
}

int samrt_frame_stream_count(samrt_frame_stream_t s) { return s ? s->info.n_frames : 0; }

void samrt_frame_stream_size(samrt_frame_stream_t s, int *width, int *height) {
    if (width) *width = s ? s->info.width : 0;
    if (height) *height = s ? s->info.height : 0;
}

void samrt_frame_stream_info(samrt_frame_stream_t s, struct samrt_frame_stream_info *out) {
    if (!out) return;
    if (s) *out = s->info;
    else memset(out, 0, sizeof *out);
}

enum samrt_status samrt_frame_stream_next(samrt_frame_stream_t s, struct samrt_frame *f) {
    if (!s || !f) return SAMRT_E_INVALID_ARG;
    memset(f, 0, sizeof *f);
    f->slot = -1;
    pthread_mutex_lock(&s->mu);
    enum samrt_status st = s->failed;
    if (st == SAMRT_OK && s->ended) {
        f->index = s->next;
        pthread_mutex_unlock(&s->mu);
        return SAMRT_OK;
    }
    const int slot = s->next % s->n_slots;
    struct slot *sl = &s->slots[slot];
    if (st == SAMRT_OK && sl->state == SLOT_HELD) {
        pthread_mutex_unlock(&s->mu);
        SAMRT_LOG_ERROR("frame stream: all %d buffers are held; release a frame before asking for the next",
                        s->n_slots);
        return SAMRT_E_BAD_STATE;
    }
    const uint64_t t0 = samrt_platform_now_ns();
    while (st == SAMRT_OK && sl->state != SLOT_FILLED) pthread_cond_wait(&s->cv_filled, &s->mu);
    f->wait_ms = (double)(samrt_platform_now_ns() - t0) * 1e-6;
    if (st == SAMRT_OK && sl->status != SAMRT_OK) {
        st = s->failed = sl->status;
        sl->state = SLOT_FREE;
    } else if (st == SAMRT_OK && sl->end) {
        s->ended = 1;
        f->index = s->next;
    } else if (st == SAMRT_OK) {
        sl->state = SLOT_HELD;
        f->rgb = s->pixels + (size_t)slot * s->frame_bytes;
        f->index = sl->index;
        f->width = s->info.width;
        f->height = s->info.height;
        f->name = s->video ? sl->name : s->frames[sl->index].name;
        f->slot = slot;
        f->decode_ms = sl->decode_ms;
        f->pts_s = sl->pts_s;
        s->next++;
    }
    pthread_mutex_unlock(&s->mu);
    return st;
}

void samrt_frame_stream_release(samrt_frame_stream_t s, struct samrt_frame *f) {
    if (!s || !f || f->slot < 0 || f->slot >= s->n_slots) return;
    pthread_mutex_lock(&s->mu);
    if (s->slots[f->slot].state == SLOT_HELD) {
        s->slots[f->slot].state = SLOT_FREE;
        pthread_cond_broadcast(&s->cv_free);
    }
    pthread_mutex_unlock(&s->mu);
    f->slot = -1;
    f->rgb = NULL;
}
