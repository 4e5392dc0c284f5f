/* graph_cache.c - the runtime's graph cache (graph_cache.h): a key's first call eager,
 * its second captured and launched, later calls replayed; the oldest key makes room. Written
 * once for segment.c and tracker_run.c, which had each their own copy of this logic. */
#include "graph_cache.h"

#include <stdlib.h>
#include <string.h>

enum samrt_status samrt_graph_cache_init(struct samrt_graph_cache *gc, const char *what, int cap, size_t key_bytes) {
    memset(gc, 0, sizeof *gc);
    SAMRT_CHECK(cap >= 1 && cap <= SAMRT_GRAPH_CACHE_MAX && key_bytes > 0, SAMRT_E_INVALID_ARG,
                "%s: a graph cache of %d entries", what, cap);
    gc->what = what;
    gc->cap = cap;
    gc->key_bytes = key_bytes;
    gc->keys = calloc((size_t)cap, key_bytes);
    SAMRT_CHECK(gc->keys != NULL, SAMRT_E_HOST_MEMORY, "%s: out of host memory", what);
    return SAMRT_OK;
}

void samrt_graph_cache_free(struct samrt_graph_cache *gc) {
    for (int i = 0; i < gc->n; i++) samrt_graph_destroy(gc->graphs[i]);
    memset(gc->graphs, 0, sizeof gc->graphs);
    free(gc->keys);
    gc->keys = NULL;
    gc->n = gc->next = 0;
}

static unsigned char *key_at(const struct samrt_graph_cache *gc, int i) { return gc->keys + (size_t)i * gc->key_bytes; }

/* The key's second call: capture, instantiate, launch. */
static enum samrt_status capture(struct samrt_graph_cache *gc, int slot, samrt_stream *stream,
                                 samrt_graph_enqueue_fn enqueue, void *user) {
    SAMRT_TRY(samrt_stream_capture_begin(stream));
    const enum samrt_status st = enqueue(user, 1);
    samrt_graph *g = NULL;
    /* ends the capture whatever st is */
    SAMRT_TRY(samrt_stream_capture_end(stream, st, gc->what, &g, &gc->nodes[slot]));
    gc->graphs[slot] = g;
    gc->n_captures++;
    return samrt_graph_launch(g, stream);
}

enum samrt_status samrt_graph_cache_run(struct samrt_graph_cache *gc, const void *key, samrt_stream *stream,
                                        samrt_graph_enqueue_fn enqueue, void *user, int *slot_out,
                                        enum samrt_graph_how *how) {
    int slot = -1;
    for (int i = 0; i < gc->n && slot < 0; i++)
        if (!memcmp(key_at(gc, i), key, gc->key_bytes)) slot = i;
    *slot_out = slot;
    *how = SAMRT_GRAPH_EAGER;
    if (slot >= 0 && gc->graphs[slot]) {
        *how = SAMRT_GRAPH_REPLAYED;
        return samrt_graph_launch(gc->graphs[slot], stream);
    }
    if (slot < 0) {  /* a new key: remember it, run eagerly */
        slot = gc->n;
        if (slot == gc->cap) {  /* full: replace the oldest */
            slot = gc->next;
            gc->next = (slot + 1) % gc->cap;
            samrt_graph_destroy(gc->graphs[slot]);
        } else {
            gc->n++;
        }
        gc->graphs[slot] = NULL;
        memcpy(key_at(gc, slot), key, gc->key_bytes);
        *slot_out = slot;
        return enqueue(user, 0);
    }
    *how = SAMRT_GRAPH_CAPTURED;
    return capture(gc, slot, stream, enqueue, user);
}
