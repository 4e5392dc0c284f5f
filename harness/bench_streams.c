/* bench_streams.c - the streams dimension of the sweep (`samrt bench --streams 1,2,4`): K videos
 * tracked at once on one copy of the weights, as an application serving K cameras would. Users
 * who run several streams want to know what each stream still gets, what all of them get
 * together and what the K arenas cost; this measures it with the same pass as every other
 * bench row (samrt_bench_run_pass).
 *
 * Per configuration the model's tracker is stream 0 and K-1 sessions of it
 * (samrt_tracker_ops.session, samrt_engine_init_session) are streams 1..K-1. On each video
 * every stream tracks the same clip with the same objects from its own thread: --warmup
 * untimed passes, then a start gate that every stream reaches before any starts its timed
 * passes, then --runs timed passes back to back. Each stream has its own model_run (the
 * tracker, the loop and decode sums) and video_run (buffers, latencies), so the threads share
 * nothing they write; after they join, the sums and every timed frame are pooled for the row
 * (bench_sweep.c), with each stream's frame rate and the longest stream's loop time. One
 * stream runs on the calling thread, with no gate: exactly the objects-only sweep.
 * docs/profiling.md ("Objects sweep") is the manual.
 *
 * Run the tests: ctest --preset cpu -R 'test_bench' */
#include "bench_run.h"
#include "latency_rec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the streams wait for each other before the timed passes. Unlike a pthread barrier,
 * the count can be lowered when a thread could not be started, so no stream waits forever. */
struct start_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived, need;
};

static void gate_wait(struct start_gate *g) {
    pthread_mutex_lock(&g->mu);
    if (++g->arrived >= g->need) pthread_cond_broadcast(&g->cv);
    while (g->arrived < g->need) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

static void gate_lower(struct start_gate *g, int need) {
    pthread_mutex_lock(&g->mu);
    g->need = need;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

struct stream {
    struct bench *B;
    struct model_run *mr;          /* stream 0: the configuration's; others: own */
    struct video_run *vr;          /* stream 0: the caller's; others: own */
    struct model_run own_mr;
    struct video_run own_vr;
    int vi, n_obj;
    struct start_gate *gate;       /* NULL: one stream */
    struct pass_stats acc;         /* this stream's timed passes */
    struct samrt_latency_rec lat;  /* and their frames */
    enum samrt_status st;
};

/* Warm-up passes, the gate, timed passes: one stream's share of the configuration. */
static void *stream_main(void *arg) {
    struct stream *s = arg;
    const struct samrt_bench_opts *o = s->B->o;
    for (int pass = 0; pass < o->warmup && s->st == SAMRT_OK; pass++) {
        struct pass_stats ps;
        s->st = samrt_bench_run_pass(s->B, s->mr, s->vr, s->vi, 0, s->n_obj, pass, &ps);
    }
    if (s->gate) gate_wait(s->gate);  /* reached even after a failure: the others go on */
    for (int pass = o->warmup; pass < o->warmup + o->runs && s->st == SAMRT_OK; pass++) {
        struct pass_stats ps;
        s->st = samrt_bench_run_pass(s->B, s->mr, s->vr, s->vi, 0, s->n_obj, pass, &ps);
        if (s->st != SAMRT_OK) break;
        samrt_bench_pass_add(&s->acc, &ps);
        for (size_t i = 0; i < s->vr->lat.n; i++) samrt_latency_rec_add(&s->lat, s->vr->lat.ms[i]);
    }
    return NULL;
}

/* Streams 1..K-1 on their threads, stream 0 on this one; the first failure is returned. */
static enum samrt_status run_threads(struct stream *s, int k) {
    if (k == 1) {
        stream_main(&s[0]);
        return s[0].st;
    }
    struct start_gate gate = {.arrived = 0, .need = k};
    pthread_mutex_init(&gate.mu, NULL);
    pthread_cond_init(&gate.cv, NULL);
    pthread_t th[SAMRT_BENCH_MAX_STREAMS];
    int started = 1;  /* stream 0 is this thread */
    enum samrt_status st = SAMRT_OK;
    for (int i = 0; i < k; i++) s[i].gate = &gate;
    for (int i = 1; i < k && st == SAMRT_OK; i++) {
        if (pthread_create(&th[i], NULL, stream_main, &s[i]) != 0) {
            fprintf(stderr, "samrt bench: cannot start the thread of stream %d\n", i);
            st = SAMRT_E_HOST_MEMORY;
            break;
        }
        started++;
    }
    if (st != SAMRT_OK) {
        s[0].st = st;       /* stream 0 skips its passes but passes the gate */
        gate_lower(&gate, started);
    }
    stream_main(&s[0]);
    for (int i = 1; i < started; i++) pthread_join(th[i], NULL);
    pthread_cond_destroy(&gate.cv);
    pthread_mutex_destroy(&gate.mu);
    for (int i = 0; i < started && st == SAMRT_OK; i++) st = s[i].st;
    return st;
}

/* The pooled result of the K streams; their loop and decode sums go to the configuration's
 * model_run (stream 0 added its own already). */
static enum samrt_status pool_streams(struct stream *s, int k, struct model_run *mr, struct samrt_bench_streams *out) {
    size_t n = 0;
    for (int i = 0; i < k; i++) n += s[i].lat.n;
    SAMRT_TRY(samrt_latency_rec_init(&out->lat, n ? n : 1));
    double reserved = SAMRT_PROFILE_ABSENT, rss = SAMRT_PROFILE_ABSENT;
    for (int i = 0; i < k; i++) {
        const struct pass_stats *a = &s[i].acc;
        samrt_bench_pass_add(&out->acc, a);
        for (size_t j = 0; j < s[i].lat.n; j++) samrt_latency_rec_add(&out->lat, s[i].lat.ms[j]);
        out->stream_fps[i] = a->loop_s > 0 ? a->frames / a->loop_s : SAMRT_PROFILE_ABSENT;
        if (a->loop_s > out->slowest_s) out->slowest_s = a->loop_s;
        if (!samrt_profile_absent(a->reserved_mib) && (samrt_profile_absent(reserved) || a->reserved_mib > reserved))
            reserved = a->reserved_mib;
        if (!samrt_profile_absent(a->rss_mib) && (samrt_profile_absent(rss) || a->rss_mib > rss)) rss = a->rss_mib;
        if (!i) continue;
        const struct model_run *m = s[i].mr;
        mr->frames += m->frames, mr->decode_sum += m->decode_sum, mr->wait_sum += m->wait_sum;
        mr->loop_s += m->loop_s;
        if (m->max_drop > mr->max_drop) mr->max_drop = m->max_drop;
    }
    out->acc.reserved_mib = reserved, out->acc.rss_mib = rss;  /* the largest of any stream */
    out->n_streams = k;
    return SAMRT_OK;
}

enum samrt_status samrt_bench_streams_run(struct bench *B, struct model_run *mr, struct video_run *vr,
                                          const struct samrt_sav_video *v, int n_clip, int vi,
                                          const struct samrt_bench_sweep_config *cfg,
                                          struct samrt_bench_streams *out) {
    const int k = cfg->n_streams;
    memset(out, 0, sizeof *out);
    struct stream *s = calloc((size_t)k, sizeof *s);
    if (!s) return SAMRT_E_HOST_MEMORY;
    enum samrt_status st = SAMRT_OK;
    for (int i = 0; i < k; i++) {
        s[i] = (struct stream){.B = B, .mr = mr, .vr = vr, .vi = vi, .n_obj = cfg->n_obj, .st = SAMRT_OK};
        if (i && st == SAMRT_OK) {
            s[i].own_mr = *mr;  /* the model, its memory report and setup clock; the sums from 0 */
            s[i].own_mr.tr = cfg->sessions[i];
            s[i].own_mr.stream = i;
            s[i].own_mr.frames = 0, s[i].own_mr.decode_sum = s[i].own_mr.wait_sum = s[i].own_mr.loop_s = 0;
            s[i].mr = &s[i].own_mr;
            s[i].vr = &s[i].own_vr;
            st = samrt_bench_video_prepare(B, mr->m, v, n_clip, &s[i].own_vr);
        }
        if (st == SAMRT_OK) st = samrt_latency_rec_init(&s[i].lat, (size_t)v->n_frames * (size_t)B->o->runs);
    }
    if (st == SAMRT_OK) st = run_threads(s, k);
    if (st == SAMRT_OK) st = pool_streams(s, k, mr, out);
    for (int i = 0; i < k; i++) {
        if (i) samrt_bench_video_free(&s[i].own_vr);
        samrt_latency_rec_free(&s[i].lat);
    }
    free(s);
    return st;
}

enum samrt_status samrt_bench_sessions_open(struct model_run *mr, struct samrt_bench_sweep_config *cfg) {
    cfg->n_open = 1;
    cfg->sessions_arena = 0;
    if (cfg->n_streams > 1 && !mr->tr.ops->session) {
        fprintf(stderr, "samrt bench: %s: this tracker cannot share its weights with sessions (--streams)\n",
                mr->m->tag);
        return SAMRT_E_NOT_IMPLEMENTED;
    }
    for (int i = 1; i < cfg->n_streams; i++) {
        const enum samrt_status st = mr->tr.ops->session(mr->tr.self, &cfg->sessions[i]);
        if (st != SAMRT_OK) {
            fprintf(stderr, "samrt bench: %s: cannot set up session %d of %d (%s)\n", mr->m->tag, i,
                    cfg->n_streams - 1, samrt_status_str(st));
            return st;
        }
        cfg->n_open = i + 1;
        struct samrt_memory_report m;
        const struct samrt_tracker *t = &cfg->sessions[i];
        if (t->ops->memory && t->ops->memory(t->self, &m) == SAMRT_OK) cfg->sessions_arena += (double)m.arena_bytes;
        else cfg->sessions_arena = SAMRT_PROFILE_ABSENT;
    }
    return SAMRT_OK;
}

void samrt_bench_sessions_close(struct samrt_bench_sweep_config *cfg) {
    for (int i = 1; i < cfg->n_open; i++) cfg->sessions[i].ops->close(cfg->sessions[i].self);
    cfg->n_open = 1;
}
