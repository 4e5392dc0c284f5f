/* graph_cache.h - the one rule by which the runtime turns repeated work into graphs (CUDA
 * graphs, through platform/stream.h), shared by single-frame segmentation (segment.c) and the
 * tracker (tracker_run.c).
 *
 * The caller names its call by a key: the bytes of everything baked into launch parameters
 * or node order (frame size, object count and roles, ...; built with memset first, so padding
 * compares too). Per key:
 *   1st call  runs eagerly: kernel modules load and the libraries warm up outside any capture;
 *   2nd call  captures the work into a graph, instantiates it and launches it;
 *   later     replay that graph.
 * At most `cap` keys are cached; a new key when full replaces the oldest one (its graph is
 * destroyed). Graphs are instantiated lazily, not at setup (keys are too many to instantiate
 * ahead), which allocates driver memory outside the arena; nothing else is allocated after
 * samrt_graph_cache_init.
 *
 *   samrt_graph_cache_init(&gc, "segment", 4, sizeof(struct key));      // setup
 *   samrt_graph_cache_run(&gc, &key, stream, enqueue, user, &slot, &how); // per call
 *   samrt_graph_cache_free(&gc);
 */
#ifndef SAMRT_RUNTIME_GRAPH_CACHE_H
#define SAMRT_RUNTIME_GRAPH_CACHE_H

#include "samrt_impl.h"
#include "stream.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_GRAPH_CACHE_MAX 8  /* entries of one cache at most */

/* Enqueues the call's work on the stream given to samrt_graph_cache_run. capturing: 1 while
 * the work is being captured into a graph (the second call of a key), 0 when it runs eagerly.
 * Must allocate nothing, sync nothing and read no pageable host memory. */
typedef enum samrt_status (*samrt_graph_enqueue_fn)(void *user, int capturing);

/* What samrt_graph_cache_run did with a call. */
enum samrt_graph_how { SAMRT_GRAPH_EAGER = 0, SAMRT_GRAPH_CAPTURED, SAMRT_GRAPH_REPLAYED };

struct samrt_graph_cache {
    const char *what;                      /* log prefix ("segment", "track") */
    int cap;                               /* entries, 1 .. SAMRT_GRAPH_CACHE_MAX */
    size_t key_bytes;
    int n;                                 /* entries in use */
    int next;                              /* the oldest entry: replaced next when full */
    int n_captures;                        /* graphs instantiated so far */
    unsigned char *keys;                   /* cap * key_bytes (host heap, init) */
    unsigned tag[SAMRT_GRAPH_CACHE_MAX];   /* a word of the caller's per entry (set after capture) */
    samrt_graph *graphs[SAMRT_GRAPH_CACHE_MAX];  /* instantiated graphs; NULL: not captured yet */
    struct samrt_graph_nodes nodes[SAMRT_GRAPH_CACHE_MAX];  /* what each graph holds (stream.h) */
};

enum samrt_status samrt_graph_cache_init(struct samrt_graph_cache *gc, const char *what, int cap, size_t key_bytes);
/* Destroys every graph and frees the keys; a zeroed cache is fine. */
void samrt_graph_cache_free(struct samrt_graph_cache *gc);

/* One call with `key` on `stream` (the engine's): replays the key's graph, or runs enqueue
 * eagerly (a new key) or captures it (the key's second call) as above. *slot: the key's entry,
 * *how: which of the three happened. A failed capture leaves the key without a graph: its
 * next call captures again. */
enum samrt_status samrt_graph_cache_run(struct samrt_graph_cache *gc, const void *key, samrt_stream *stream,
                                        samrt_graph_enqueue_fn enqueue, void *user, int *slot,
                                        enum samrt_graph_how *how);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_RUNTIME_GRAPH_CACHE_H */
