/* stream.h - the work queue a target supplies to the runtime: streams, events, graph capture
 * and launch, asynchronous copies and stream sync, behind opaque handles, so that the runtime
 * names no backend. CMake links exactly one body with the rest of the platform: host_cuda.c
 * (CUDA streams, events and graphs) or host_cpu.c (host builds: copies are plain memcpy and
 * complete at once, events read the monotonic clock, there are no graphs).
 *
 * Every call that takes a stream only enqueues (safe inside graph capture) unless it says it
 * waits; none allocates except samrt_stream_create, samrt_event_create (setup) and
 * samrt_stream_capture_end (the lazily captured graphs). Errors are logged with the backend's
 * message and return SAMRT_E_CUDA on CUDA builds.
 *
 *   samrt_stream_copy(dst_dev, src_host, n, SAMRT_COPY_H2D, s);
 *   samrt_stream_capture_begin(s);  ... enqueue ...  samrt_stream_capture_end(s, st, "what", &g);
 *   samrt_graph_launch(g, s);  samrt_stream_sync(s);  samrt_graph_destroy(g);
 */
#ifndef SAMRT_PLATFORM_STREAM_H
#define SAMRT_PLATFORM_STREAM_H

#include <stddef.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct samrt_stream samrt_stream;  /* CUDA: a cudaStream_t (NULL: the legacy stream) */
typedef struct samrt_event samrt_event;    /* CUDA: a cudaEvent_t; host builds: a clock reading */
typedef struct samrt_graph samrt_graph;    /* CUDA: an instantiated graph (cudaGraphExec_t) */

/* DEFAULT: the backend tells the sides from the pointers (either may be host memory). */
enum samrt_copy_dir { SAMRT_COPY_H2D, SAMRT_COPY_D2H, SAMRT_COPY_D2D, SAMRT_COPY_DEFAULT };

/* Copies on the stream: bytes, and a 2-D block of height rows of width bytes between pitched
 * buffers. From pageable host memory an H2D copy returns once the source is staged. */
enum samrt_status samrt_stream_copy(void *dst, const void *src, size_t bytes, enum samrt_copy_dir dir,
                                    samrt_stream *s);
enum samrt_status samrt_stream_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, enum samrt_copy_dir dir, samrt_stream *s);
/* The same 2-D copy, synchronous, on the legacy stream (ordered after the work of blocking
 * streams of the calling thread's context, such as the engine's without an SM share):
 * returns when the bytes have arrived. */
enum samrt_status samrt_platform_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                         size_t height, enum samrt_copy_dir dir);
/* Waits until the stream's work is done. */
enum samrt_status samrt_stream_sync(samrt_stream *s);
/* A stream of one's own (setup): blocking, so that legacy-stream copies order after its work,
 * as the engine's stream (kernels/gpu_ctx.h). Host builds: a token, work runs at once. */
enum samrt_status samrt_stream_create(samrt_stream **out);
void samrt_stream_destroy(samrt_stream *s);  /* NULL is fine */

/* Events: setup-time creation; record on a stream (capturing 1: inside a graph capture the
 * record becomes a node of the graph); elapsed milliseconds between two completed records,
 * -1 when the backend cannot say (the error is cleared). */
enum samrt_status samrt_event_create(samrt_event **out);
void samrt_event_destroy(samrt_event *ev);
enum samrt_status samrt_event_record(samrt_event *ev, samrt_stream *s, int capturing);
float samrt_event_elapsed_ms(samrt_event *a, samrt_event *b);

/* Graphs: the work enqueued on s between begin and end is captured (thread-local mode) and
 * instantiated into *out. st: the status of that enqueueing; the capture is ended whatever it
 * is, nothing is instantiated unless it is SAMRT_OK. Returns st, or SAMRT_E_CUDA when ending
 * or instantiating fails (logged as "<what>: ..."). Host builds have no graphs: begin returns
 * SAMRT_E_UNSUPPORTED. */
/* What a captured graph holds, counted before it is instantiated when SAMRT_COUNT_KERNELS=1
 * (zeros otherwise: the count allocates the node list; nodes may be NULL). */
struct samrt_graph_nodes {
    int kernels;   /* kernel nodes: our launches and the libraries' */
    int copies;    /* memcpy nodes */
    int other;     /* memset, event record and any other node */
};
enum samrt_status samrt_stream_capture_begin(samrt_stream *s);
enum samrt_status samrt_stream_capture_end(samrt_stream *s, enum samrt_status st, const char *what,
                                           samrt_graph **out, struct samrt_graph_nodes *nodes);
enum samrt_status samrt_graph_launch(samrt_graph *g, samrt_stream *s);
void samrt_graph_destroy(samrt_graph *g);  /* NULL is fine */

/* Counting, a diagnostic that allocates (the node list, a library's probe buffers), so it is
 * on only under SAMRT_COUNT_KERNELS=1: captured graphs then count their nodes
 * (samrt_stream_capture_end), and setup may count what one call enqueues. */
int samrt_stream_counting(void);
/* The nodes one enqueue makes on s, captured into a throwaway graph (nothing runs; setup only).
 * SAMRT_E_UNSUPPORTED when counting is off or the build has no graphs, the enqueue's status
 * when it fails, SAMRT_E_CUDA when the capture is refused (no error is left behind). */
typedef enum samrt_status (*samrt_stream_enqueue_fn)(void *user, samrt_stream *s);
enum samrt_status samrt_stream_count_nodes(samrt_stream *s, samrt_stream_enqueue_fn enqueue, void *user,
                                           struct samrt_graph_nodes *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_PLATFORM_STREAM_H */
