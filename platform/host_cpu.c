/* host_cpu.c - the platform for CPU-only builds (SAMRT_CUDA=OFF): host memory pools, no
 * devices (and no SM shares), NVTX compiled out, and stream.h's host work queue (copies
 * complete at once, events read the monotonic clock, no graphs). */
#include "platform.h"
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int samrt_platform_has_cuda(void) { return 0; }
void *samrt_platform_cuda_context(void) { return NULL; }

enum samrt_status samrt_platform_device_count(int *n) {
    *n = 0;
    return SAMRT_OK;
}

enum samrt_status samrt_platform_device_query(int ordinal, struct samrt_device_info *out) {
    (void)ordinal;
    memset(out, 0, sizeof *out);
    return SAMRT_E_NO_DEVICE;
}

enum samrt_mem_kind samrt_platform_resolve_mem_kind(enum samrt_mem_kind kind, int ordinal) {
    (void)kind; (void)ordinal;
    return SAMRT_MEM_HOST;
}

enum samrt_status samrt_platform_mem_alloc(enum samrt_mem_kind kind, uint64_t bytes, void **out) {
    *out = NULL;
    SAMRT_CHECK(kind == SAMRT_MEM_HOST, SAMRT_E_NO_DEVICE,
                "memory kind '%s' needs a CUDA build; this build is CPU-only", samrt_mem_kind_name(kind));
    if (bytes == 0) return SAMRT_OK;
    void *p = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(bytes, SAMRT_ALIGN));
    SAMRT_CHECK(p != NULL, SAMRT_E_HOST_MEMORY, "host pool of %llu bytes: allocation failed",
                (unsigned long long)bytes);
    memset(p, 0, bytes);  /* scratch starts zeroed, as on the GPU platforms */
    *out = p;
    return SAMRT_OK;
}

void samrt_platform_mem_free(enum samrt_mem_kind kind, void *p) {
    (void)kind;
    free(p);
}

enum samrt_status samrt_platform_mem_upload(enum samrt_mem_kind kind, void *dst, const void *src, uint64_t bytes) {
    SAMRT_CHECK(kind == SAMRT_MEM_HOST, SAMRT_E_NO_DEVICE, "upload to a %s pool needs a CUDA build",
                samrt_mem_kind_name(kind));
    memcpy(dst, src, bytes);
    return SAMRT_OK;
}

void samrt_platform_lib_versions(struct samrt_lib_versions *out) {
    memset(out, 0, sizeof *out);
}

void samrt_nvtx_push(const char *name) { (void)name; }
void samrt_nvtx_pop(void) {}

/* ---- stream.h: the host's work queue: copies complete at once, events read the clock ------ */

enum samrt_status samrt_stream_copy(void *dst, const void *src, size_t bytes, enum samrt_copy_dir dir,
                                    samrt_stream *s) {
    (void)dir, (void)s;
    memcpy(dst, src, bytes);
    return SAMRT_OK;
}

enum samrt_status samrt_platform_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                         size_t height, enum samrt_copy_dir dir) {
    (void)dir;
    for (size_t y = 0; y < height; y++) memcpy((char *)dst + y * dpitch, (const char *)src + y * spitch, width);
    return SAMRT_OK;
}

enum samrt_status samrt_stream_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, enum samrt_copy_dir dir, samrt_stream *s) {
    (void)s;
    return samrt_platform_copy_2d(dst, dpitch, src, spitch, width, height, dir);
}

enum samrt_status samrt_stream_sync(samrt_stream *s) {
    (void)s;
    return SAMRT_OK;
}

/* The host has no streams: a stream of one's own is a token that is never dereferenced. */
static char host_stream_token;

enum samrt_status samrt_stream_create(samrt_stream **out) {
    *out = (samrt_stream *)(void *)&host_stream_token;
    return SAMRT_OK;
}

void samrt_stream_destroy(samrt_stream *s) { (void)s; }

struct samrt_event {
    uint64_t ns;  /* the clock at the last record */
};

enum samrt_status samrt_event_create(samrt_event **out) {
    *out = calloc(1, sizeof **out);
    SAMRT_CHECK(*out != NULL, SAMRT_E_HOST_MEMORY, "event: out of host memory");
    return SAMRT_OK;
}

void samrt_event_destroy(samrt_event *ev) { free(ev); }

enum samrt_status samrt_event_record(samrt_event *ev, samrt_stream *s, int capturing) {
    (void)s, (void)capturing;
    ev->ns = samrt_platform_now_ns();
    return SAMRT_OK;
}

float samrt_event_elapsed_ms(samrt_event *a, samrt_event *b) { return (float)((double)(b->ns - a->ns) * 1e-6); }

enum samrt_status samrt_stream_capture_begin(samrt_stream *s) {
    (void)s;
    SAMRT_LOG_ERROR("graph capture needs a CUDA build");
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_stream_capture_end(samrt_stream *s, enum samrt_status st, const char *what,
                                           samrt_graph **out, struct samrt_graph_nodes *nodes) {
    (void)s, (void)what;
    *out = NULL;
    if (nodes) memset(nodes, 0, sizeof *nodes);
    return st == SAMRT_OK ? SAMRT_E_UNSUPPORTED : st;
}

int samrt_stream_counting(void) { return 0; }

enum samrt_status samrt_stream_count_nodes(samrt_stream *s, samrt_stream_enqueue_fn enqueue, void *user,
                                           struct samrt_graph_nodes *out) {
    (void)s, (void)enqueue, (void)user;
    memset(out, 0, sizeof *out);
    return SAMRT_E_UNSUPPORTED;
}

enum samrt_status samrt_graph_launch(samrt_graph *g, samrt_stream *s) {
    (void)g, (void)s;
    return SAMRT_E_UNSUPPORTED;
}

void samrt_graph_destroy(samrt_graph *g) { (void)g; }

/* ---- SM shares: green contexts need CUDA -------------------------------------------------- */

static void sm_share_none_why(char *why, size_t len) {
    snprintf(why, len, "this build has no CUDA (SAMRT_CUDA=OFF): green contexts need a CUDA build");
}

#include "sm_share_none.h"
