/* frame_stream.c - the prefetching frame streamer (frame_stream.h): frames of a JPEG folder,
 * a video file or a camera decoded ahead on threads, so that decoding overlaps tracking and
 * a video is never all in memory.
 *
 * Frame i goes to ring slot i % n_slots. Decode threads claim frames in order, each only once
 * its slot is free (the frame n_slots before it was released), decode it, and mark the slot
 * filled; the consumer takes the slots in order, so the output order never depends on which
 * thread finished first, and the frames in flight never exceed the ring. A JPEG folder is
 * decoded by a pool of threads (libjpeg-turbo, one file buffer each) or by one thread on the
 * GPU (nvJPEG, frame_gpu.h); a video or a camera by one thread (FFmpeg reads in order; asked
 * for device frames, NVDEC decodes a video into a device ring, video.h). After
 * the last frame a thread posts an end marker in the next slot, so the consumer learns the end
 * the same way from a folder (whose length is known) and from a camera (whose length is not);
 * a failed frame stops the claiming the same way, after every frame before it. The ring and
 * the file buffers (sized from the folder's largest file) are allocated at open, so the steady
 * state allocates nothing but the decoders' own pools. */
#include "frame_stream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_gpu.h"
#include "image_io.h"
#include "platform.h"
#include "sav.h"
#include "video.h"

#define STREAM_PATH_MAX 4096
#define STREAM_MAX_DEPTH 64

enum slot_state { SLOT_FREE = 0, SLOT_BUSY, SLOT_FILLED, SLOT_HELD };

struct slot {
    enum slot_state state;
    enum samrt_status status;     /* the decode result of the frame in it */
    int end;                      /* the end marker: no frame */
    int index;                    /* the frame's position in the source */
    double pts_s, decode_ms;
    char name[32];                /* a video frame's name: its index, "%05d" */
    struct samrt_image_nv12 nv12; /* an NVDEC frame kept as NV12 (dec.nv12): its planes in the slot */
};

/* One decode thread and its file buffer. */
struct worker {
    struct samrt_frame_stream *s;
    pthread_t thread;
    int started;
    uint8_t *file;
    size_t file_cap;
};

struct samrt_frame_stream {
    char *dir;                    /* a folder source */
    struct samrt_sav_jpeg *frames;
    int n_list;                   /* JPEGs in the folder */
    size_t max_file;              /* the folder's largest file */
    struct samrt_video_reader *video;
    struct samrt_frame_gpu *gpu;  /* a folder decoded by nvJPEG into device slots; NULL: host */
    uint8_t *vring;               /* a video decoded by NVDEC: n_slots device frames of vslot_bytes */
    size_t vslot_bytes;
    struct samrt_frame_stream_info info;
    int start, max_frames;
    int n_slots;
    size_t frame_bytes;
    uint8_t *pixels;              /* host frames: n_slots * frame_bytes, allocated at open */
    struct slot *slots;
    int n_workers;
    struct worker *workers;
    int claim;                    /* the next frame a decode thread takes */
    int claim_done;               /* the end or a failure was claimed: no more frames */
    int next;                     /* frames handed to the consumer so far */
    enum samrt_status failed;     /* sticky consumer-side failure */
    int ended;                    /* the consumer has seen the end marker */
    int nv12;                     /* dec.nv12: NVDEC frames kept as NV12 planes */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv_filled, cv_free;
};

int samrt_frame_source_is_folder(const char *path) {
    struct stat sb;
    return path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int samrt_frame_stream_default_threads(void) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n <= 2 ? 1 : n - 1 < SAMRT_DECODE_THREADS_DEFAULT_MAX ? (int)n - 1 : SAMRT_DECODE_THREADS_DEFAULT_MAX;
}

void samrt_frame_decode_path(char *buf, size_t len) {
    const enum samrt_jpeg_gpu_backend b = samrt_jpeg_gpu_probe();
    const int n = samrt_frame_stream_default_threads();
    if (b != SAMRT_JPEG_GPU_NONE)
        snprintf(buf, len, "%s into device frames; libjpeg-turbo x%d for host frames and the files nvJPEG does not take",
                 samrt_jpeg_gpu_backend_name(b), n);
    else
        snprintf(buf, len, "libjpeg-turbo x%d (default --decode-threads); nvJPEG %s", n,
                 samrt_jpeg_gpu_in_build() ? "in this build, no GPU" : "not in this build");
}

/* Frame i of the folder (i counts from the first JPEG) into ring slot `slot`. */
static enum samrt_status folder_decode(struct samrt_frame_stream *s, struct worker *w, int i, int slot) {
    char path[STREAM_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", s->dir, s->frames[i].name);
    size_t size = 0;
    enum samrt_status st = samrt_file_read(path, &w->file, &w->file_cap, &size);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot read frame %d (%s)", i, path);
    struct samrt_image_info info;
    st = samrt_jpeg_info(w->file, size, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot read frame %d (%s)", i, path);
    SAMRT_CHECK(info.width == s->info.width && info.height == s->info.height, SAMRT_E_FORMAT,
                "frame %d (%s) is %dx%d but the video's first frame is %dx%d", i, path, info.width, info.height,
                s->info.width, s->info.height);
    if (s->gpu) st = samrt_frame_gpu_decode(s->gpu, w->file, size, slot);
    else st = samrt_jpeg_decode(w->file, size, s->pixels + (size_t)slot * s->frame_bytes, s->frame_bytes, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot decode frame %d (%s)", i, path);
    return SAMRT_OK;
}

/* The stream's i-th frame into ring slot `slot` and its facts into sl (sl->end at the end). */
static enum samrt_status source_read(struct samrt_frame_stream *s, struct worker *w, int i, int slot, struct slot *sl) {
    sl->end = 0;
    sl->pts_s = -1.0;
    if (!s->video) {
        sl->index = s->start + i;
        if (sl->index >= s->n_list) {
            sl->end = 1;
            return SAMRT_OK;
        }
        return folder_decode(s, w, sl->index, slot);
    }
    for (;;) {  /* frames before --start are decoded and dropped: indices count decoded frames */
        struct samrt_video_frame vf;
        uint8_t *dev = s->vring ? s->vring + (size_t)slot * s->vslot_bytes : NULL;
        if (dev && s->nv12) SAMRT_TRY(samrt_video_read_device_nv12(s->video, dev, s->vslot_bytes, &vf, &sl->nv12));
        else if (dev) SAMRT_TRY(samrt_video_read_device(s->video, dev, &vf));
        else SAMRT_TRY(samrt_video_read(s->video, s->pixels + (size_t)slot * s->frame_bytes, &vf));
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

/* A decode thread: claims the next frame once its slot is free, decodes it, posts it. */
static void *decode_thread(void *arg) {
    struct worker *w = (struct worker *)arg;
    struct samrt_frame_stream *s = w->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stop && !s->claim_done && s->slots[s->claim % s->n_slots].state != SLOT_FREE)
            pthread_cond_wait(&s->cv_free, &s->mu);
        if (s->stop || s->claim_done) break;
        const int i = s->claim++, slot = i % s->n_slots;
        s->slots[slot].state = SLOT_BUSY;
        pthread_mutex_unlock(&s->mu);
        struct slot got;
        memset(&got, 0, sizeof got);
        const uint64_t t0 = samrt_platform_now_ns();
        if (s->max_frames && i >= s->max_frames) got.end = 1;
        else got.status = source_read(s, w, i, slot, &got);
        got.decode_ms = (double)(samrt_platform_now_ns() - t0) * 1e-6;
        got.state = SLOT_FILLED;
        pthread_mutex_lock(&s->mu);
        s->slots[slot] = got;
        if (got.status != SAMRT_OK || got.end) {
            s->claim_done = 1;
            pthread_cond_broadcast(&s->cv_free);  /* the other threads stop claiming */
        }
        pthread_cond_broadcast(&s->cv_filled);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void samrt_frame_stream_close(samrt_frame_stream_t s) {
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cv_free);
    pthread_mutex_unlock(&s->mu);
    samrt_video_interrupt(s->video);  /* a camera read that waits for a frame returns */
    for (int k = 0; k < s->n_workers; k++) {
        if (s->workers[k].started) pthread_join(s->workers[k].thread, NULL);
        free(s->workers[k].file);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv_filled);
    pthread_cond_destroy(&s->cv_free);
    samrt_video_close(s->video);  /* waits for its stream: the ring is free after it */
    if (s->vring) samrt_platform_mem_free(SAMRT_MEM_DEVICE, s->vring);
    samrt_frame_gpu_close(s->gpu);
    samrt_sav_free_jpegs(s->frames, s->n_list);
    free(s->dir);
    free(s->pixels);
    free(s->slots);
    free(s->workers);
    free(s);
}

/* The folder's largest JPEG from start on: each decode thread's file buffer is that large. */
static size_t largest_file(const struct samrt_frame_stream *s) {
    size_t big = 0;
    char path[STREAM_PATH_MAX];
    for (int i = s->start; i < s->n_list; i++) {
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", s->dir, s->frames[i].name);
        if (stat(path, &sb) == 0 && (size_t)sb.st_size > big) big = (size_t)sb.st_size;
    }
    return big;
}

/* A JPEG folder: the list, the largest file and the first frame's size. */
static enum samrt_status open_folder(struct samrt_frame_stream *s, const char *dir, uint8_t **first, size_t *first_cap,
                                     size_t *first_size) {
    s->dir = strdup(dir);
    SAMRT_CHECK(s->dir, SAMRT_E_HOST_MEMORY, "out of memory");
    SAMRT_TRY(samrt_sav_list_jpegs(dir, &s->frames, &s->n_list));
    SAMRT_CHECK(s->start < s->n_list, SAMRT_E_INVALID_ARG, "%s: start frame %d is past the last frame (%d frames)",
                dir, s->start, s->n_list);
    char path[STREAM_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, s->frames[s->start].name);
    struct samrt_image_info info;
    enum samrt_status st = samrt_file_read(path, first, first_cap, first_size);
    if (st == SAMRT_OK) st = samrt_jpeg_info(*first, *first_size, &info);
    SAMRT_CHECK(st == SAMRT_OK, st, "cannot read frame %d (%s)", s->start, path);
    s->info.width = info.width;
    s->info.height = info.height;
    s->info.n_frames = s->n_list - s->start;
    s->max_file = largest_file(s);
    return SAMRT_OK;
}

/* A video file or a camera: the reader (NVDEC when device frames are asked for and there,
 * else software with the decode threads) and what it says about the stream. */
static enum samrt_status open_video(struct samrt_frame_stream *s, const char *path, const struct samrt_frame_decode *dec) {
    struct samrt_video_info vi;
    const struct samrt_video_open_opts vo = {dec->threads, dec->device_frames};
    SAMRT_TRY(samrt_video_open_with(path, &vo, &s->video, &vi));
    s->info.on_device = vi.on_device;
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

/* A folder asked for device frames: nvJPEG and its device ring, warmed up on the first frame.
 * Without nvJPEG (build or machine), host frames as usual. */
static enum samrt_status open_gpu(struct samrt_frame_stream *s, const uint8_t *first, size_t first_size) {
    const enum samrt_status st =
        samrt_frame_gpu_open(s->info.width, s->info.height, s->n_slots, SAMRT_JPEG_GPU_ANY, first, first_size, &s->gpu);
    if (st == SAMRT_E_UNSUPPORTED) return SAMRT_OK;
    if (st != SAMRT_OK) {  /* nvJPEG is there but would not set up: the CPU decodes */
        SAMRT_LOG_WARN("%s: nvJPEG decoding could not be set up (%s); decoding on the CPU", s->dir,
                       samrt_status_str(st));
        return SAMRT_OK;
    }
    s->info.on_device = 1;
    s->n_workers = 1;  /* one nvJPEG state; its host phase runs on this thread */
    snprintf(s->info.decoder, sizeof s->info.decoder, "%s", samrt_frame_gpu_name(s->gpu));
    samrt_frame_gpu_bytes(s->gpu, &s->info.device_bytes, &s->info.pinned_bytes);
    return SAMRT_OK;
}

/* A video NVDEC decodes: the device ring its frames are converted into, planned now. */
static enum samrt_status open_video_ring(struct samrt_frame_stream *s) {
    s->vslot_bytes = SAMRT_PAD(s->frame_bytes, 256);
    SAMRT_TRY(samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, (uint64_t)s->vslot_bytes * (uint64_t)s->n_slots,
                                       (void **)&s->vring));
    s->info.device_bytes = (uint64_t)s->vslot_bytes * (uint64_t)s->n_slots;
    snprintf(s->info.decoder, sizeof s->info.decoder, "NVDEC");
    return SAMRT_OK;
}

/* The ring, the file buffers and the decode threads, once the source is open. */
static enum samrt_status start_ring(struct samrt_frame_stream *s, const struct samrt_frame_source *src,
                                    const struct samrt_frame_decode *dec, const uint8_t *first, size_t first_size) {
    s->frame_bytes = (size_t)s->info.width * (size_t)s->info.height * 3;
    s->n_slots = src->depth + 1;
    const int want = dec->threads > 0 ? dec->threads : samrt_frame_stream_default_threads();
    s->n_workers = s->video ? 1 : SAMRT_MIN(want, s->n_slots);
    snprintf(s->info.decoder, sizeof s->info.decoder, s->video ? "ffmpeg" : "libjpeg-turbo x%d", s->n_workers);
    if (!s->video && dec->device_frames) SAMRT_TRY(open_gpu(s, first, first_size));
    if (s->video && s->info.on_device) SAMRT_TRY(open_video_ring(s));
    s->nv12 = dec->nv12 && s->vring;
    s->slots = (struct slot *)calloc((size_t)s->n_slots, sizeof *s->slots);
    s->workers = (struct worker *)calloc((size_t)s->n_workers, sizeof *s->workers);
    SAMRT_CHECK(s->slots && s->workers, SAMRT_E_HOST_MEMORY, "out of memory");
    if (!s->gpu && !s->vring) {
        s->pixels = (uint8_t *)malloc(s->frame_bytes * (size_t)s->n_slots);
        SAMRT_CHECK(s->pixels, SAMRT_E_HOST_MEMORY, "out of memory for %d frame buffers of %zu bytes", s->n_slots,
                    s->frame_bytes);
        s->info.host_bytes = s->frame_bytes * (size_t)s->n_slots;
    }
    for (int k = 0; k < s->n_workers && !s->video; k++) {
        s->workers[k].file_cap = s->max_file;
        s->workers[k].file = (uint8_t *)malloc(s->max_file ? s->max_file : 1);
        SAMRT_CHECK(s->workers[k].file, SAMRT_E_HOST_MEMORY, "out of memory for a %zu-byte file buffer", s->max_file);
        s->info.host_bytes += s->max_file;
    }
    s->info.decode_threads = s->n_workers;
    for (int k = 0; k < s->n_workers; k++) {
        s->workers[k].s = s;
        SAMRT_CHECK(pthread_create(&s->workers[k].thread, NULL, decode_thread, &s->workers[k]) == 0,
                    SAMRT_E_HOST_MEMORY, "cannot start a frame decode thread");
        s->workers[k].started = 1;
    }
    return SAMRT_OK;
}

enum samrt_status samrt_frame_stream_open_source(const struct samrt_frame_source *src, samrt_frame_stream_t *out) {
    return samrt_frame_stream_open_decode(src, NULL, out);
}

enum samrt_status samrt_frame_stream_open_decode(const struct samrt_frame_source *src, const struct samrt_frame_decode *dec,
                                                 samrt_frame_stream_t *out) {
    SAMRT_CHECK(src && src->path && out, SAMRT_E_INVALID_ARG, "samrt_frame_stream_open_source: NULL argument");
    const struct samrt_frame_decode defaults = {0, 0, 0};
    if (!dec) dec = &defaults;
    *out = NULL;
    SAMRT_CHECK(src->depth >= 1 && src->depth <= STREAM_MAX_DEPTH, SAMRT_E_INVALID_ARG, "prefetch depth %d not in 1..%d",
                src->depth, STREAM_MAX_DEPTH);
    SAMRT_CHECK(src->start >= 0 && src->max_frames >= 0, SAMRT_E_INVALID_ARG, "negative start or frame count");
    SAMRT_CHECK(dec->threads >= 0 && dec->threads <= SAMRT_DECODE_THREADS_MAX, SAMRT_E_INVALID_ARG,
                "decode threads %d not in 1..%d", dec->threads, SAMRT_DECODE_THREADS_MAX);
    struct samrt_frame_stream *s = (struct samrt_frame_stream *)calloc(1, sizeof *s);
    SAMRT_CHECK(s, SAMRT_E_HOST_MEMORY, "out of memory");
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv_filled, NULL);
    pthread_cond_init(&s->cv_free, NULL);
    s->start = src->start;
    s->max_frames = src->max_frames;
    uint8_t *first = NULL;  /* a folder's first frame: its size, and the GPU decoder's warm-up */
    size_t first_cap = 0, first_size = 0;
    enum samrt_status st = samrt_frame_source_is_folder(src->path)
                               ? open_folder(s, src->path, &first, &first_cap, &first_size)
                               : open_video(s, src->path, dec);
    if (st == SAMRT_OK && s->max_frames && (s->info.n_frames < 0 || s->info.n_frames > s->max_frames))
        s->info.n_frames = s->max_frames;
    if (st == SAMRT_OK) st = start_ring(s, src, dec, first, first_size);
    free(first);
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
        f->rgb = s->gpu     ? samrt_frame_gpu_slot(s->gpu, slot)
                 : s->vring ? s->vring + (size_t)slot * s->vslot_bytes
                            : s->pixels + (size_t)slot * s->frame_bytes;
        f->on_device = s->gpu != NULL || s->vring != NULL;
        f->nv12 = sl->nv12.y ? &sl->nv12 : NULL;
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
