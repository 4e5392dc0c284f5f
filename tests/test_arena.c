/* test_arena.c - the planner: region order, 256-byte alignment, lifetime packing that never
 * lets two live slots overlap, the too-small commit error, determinism, and slot names kept
 * as the plan's own copies. With the argument `threads` (the test test_arena_threads, skipped
 * under qemu-user, which hangs in pthread_create): plans made on two threads at once equal the
 * plans made on one. */
#include "arena.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static int overlap(const struct samrt_arena_slot *a, const struct samrt_arena_slot *b) {
    uint64_t ae = a->offset + SAMRT_PAD(a->nbytes, SAMRT_ALIGN);
    uint64_t be = b->offset + SAMRT_PAD(b->nbytes, SAMRT_ALIGN);
    return a->offset < be && b->offset < ae;
}

static void test_regions(void) {
    struct samrt_arena_slot slots[8];
    struct samrt_plan plan;
    samrt_plan_init(&plan, slots, 8);
    int w0, w1, s0, ws, st, a;
    CHECK_STATUS(samrt_plan_add(&plan, "act", SAMRT_REGION_SCRATCH, 1000, 0, 1, &a), SAMRT_OK);
    CHECK_STATUS(samrt_plan_add(&plan, "w0", SAMRT_REGION_WEIGHTS, 1, 0, 0, &w0), SAMRT_OK);
    CHECK_STATUS(samrt_plan_add(&plan, "state", SAMRT_REGION_STATE, 300, 0, 0, &s0), SAMRT_OK);
    CHECK_STATUS(samrt_plan_add(&plan, "w1", SAMRT_REGION_WEIGHTS, 257, 0, 0, &w1), SAMRT_OK);
    CHECK_STATUS(samrt_plan_add(&plan, "ws", SAMRT_REGION_WORKSPACE, 512, 0, 0, &ws), SAMRT_OK);
    CHECK_STATUS(samrt_plan_add(&plan, "stage", SAMRT_REGION_STAGING, 10, 0, 0, &st), SAMRT_OK);
    CHECK_STATUS(samrt_plan_finalize(&plan), SAMRT_OK);
    /* weights first, laid end to end with padding */
    CHECK_EQ_INT(slots[w0].offset, 0);
    CHECK_EQ_INT(slots[w1].offset, 256);
    CHECK_EQ_INT(plan.region_bytes[SAMRT_REGION_WEIGHTS], 256 + 512);
    CHECK_EQ_INT(slots[s0].offset, 768);
    CHECK_EQ_INT(slots[ws].offset, 768 + 512);
    CHECK_EQ_INT(slots[st].offset, 768 + 512 + 512);
    CHECK_EQ_INT(slots[a].offset, 768 + 512 + 512 + 256);
    CHECK_EQ_INT(plan.total_bytes, 768 + 512 + 512 + 256 + 1024);
    for (int i = 0; i < plan.n_slots; i++) CHECK(slots[i].offset % SAMRT_ALIGN == 0);
    CHECK_EQ_INT(samrt_plan_requested_bytes(&plan, SAMRT_REGION_WEIGHTS), 258);
    /* adding after finalize is refused */
    CHECK_STATUS(samrt_plan_add(&plan, "late", SAMRT_REGION_WEIGHTS, 1, 0, 0, NULL), SAMRT_E_BAD_STATE);
}

static void test_lifetimes(void) {
    /* a chain a(0-1) b(1-2) c(2-3): a and c may share, b may not share with either */
    struct samrt_arena_slot slots[4];
    struct samrt_plan plan;
    samrt_plan_init(&plan, slots, 4);
    int a, b, c;
    samrt_plan_add(&plan, "a", SAMRT_REGION_SCRATCH, 4096, 0, 1, &a);
    samrt_plan_add(&plan, "b", SAMRT_REGION_SCRATCH, 4096, 1, 2, &b);
    samrt_plan_add(&plan, "c", SAMRT_REGION_SCRATCH, 4096, 2, 3, &c);
    CHECK_STATUS(samrt_plan_finalize(&plan), SAMRT_OK);
    CHECK(!overlap(&slots[a], &slots[b]));
    CHECK(!overlap(&slots[b], &slots[c]));
    CHECK_EQ_INT(slots[a].offset, slots[c].offset);
    CHECK_EQ_INT(plan.region_bytes[SAMRT_REGION_SCRATCH], 8192);
    /* too many slots */
    CHECK_STATUS(samrt_plan_add(&plan, "x", SAMRT_REGION_SCRATCH, 1, 0, 0, NULL), SAMRT_E_BAD_STATE);
}

/* Random lifetimes: no two slots alive at the same step may overlap, and the scratch extent
 * is at least the largest sum of sizes alive at one step (the lower bound). */
static void test_random_packing(void) {
    enum { N = 300 };
    static struct samrt_arena_slot slots[N];
    struct samrt_plan plan;
    samrt_plan_init(&plan, slots, N);
    uint32_t seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        int t0 = (int)(seed >> 8) % 100;
        seed = seed * 1664525u + 1013904223u;
        int len = (int)(seed >> 8) % 10;
        seed = seed * 1664525u + 1013904223u;
        uint64_t bytes = 1 + (seed >> 8) % 100000;
        samrt_plan_add(&plan, "r", SAMRT_REGION_SCRATCH, bytes, t0, t0 + len, NULL);
    }
    CHECK_STATUS(samrt_plan_finalize(&plan), SAMRT_OK);
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            int live = slots[i].t_first <= slots[j].t_last && slots[j].t_first <= slots[i].t_last;
            if (live && overlap(&slots[i], &slots[j])) bad++;
        }
    CHECK_EQ_INT(bad, 0);
    uint64_t lower = 0;
    for (int t = 0; t < 110; t++) {
        uint64_t sum = 0;
        for (int i = 0; i < N; i++)
            if (slots[i].t_first <= t && t <= slots[i].t_last) sum += SAMRT_PAD(slots[i].nbytes, SAMRT_ALIGN);
        if (sum > lower) lower = sum;
    }
    uint64_t extent = plan.region_bytes[SAMRT_REGION_SCRATCH];
    CHECK(extent >= lower);
    CHECK_MSG(extent <= lower + lower / 2, "packing %llu vs lower bound %llu", (unsigned long long)extent,
              (unsigned long long)lower);
    /* deterministic: the same adds give the same offsets */
    static struct samrt_arena_slot slots2[N];
    struct samrt_plan plan2;
    samrt_plan_init(&plan2, slots2, N);
    for (int i = 0; i < N; i++)
        samrt_plan_add(&plan2, "r", SAMRT_REGION_SCRATCH, slots[i].nbytes, slots[i].t_first, slots[i].t_last, NULL);
    samrt_plan_finalize(&plan2);
    int same = 1;
    for (int i = 0; i < N; i++) same &= slots[i].offset == slots2[i].offset;
    CHECK(same);
}

static void test_commit(void) {
    struct samrt_arena_slot slots[2];
    struct samrt_plan plan;
    samrt_plan_init(&plan, slots, 2);
    int w, a;
    samrt_plan_add(&plan, "w", SAMRT_REGION_WEIGHTS, 1000, 0, 0, &w);
    samrt_plan_add(&plan, "a", SAMRT_REGION_SCRATCH, 1000, 0, 0, &a);
    samrt_plan_finalize(&plan);
    static _Alignas(256) uint8_t pool[4096];
    struct samrt_arena arena;
    CHECK_STATUS(samrt_arena_commit(&arena, &plan, pool, 2047), SAMRT_E_ARENA_TOO_SMALL);
    CHECK_STATUS(samrt_arena_commit(&arena, &plan, pool + 1, 4000), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_arena_commit(&arena, &plan, pool, 2048), SAMRT_OK);
    CHECK((uint8_t *)samrt_arena_ptr(&arena, w) == pool);
    CHECK((uint8_t *)samrt_arena_ptr(&arena, a) == pool + 1024);
}

/* Slot names are the plan's own copies: a name built in a stack buffer (as a layer loop does)
 * stays readable after the buffer is reused; a name longer than a slot holds is refused. */
static void test_names(void) {
    struct samrt_arena_slot slots[3];
    struct samrt_plan plan;
    samrt_plan_init(&plan, slots, 3);
    char buf[96];
    for (int i = 0; i < 2; i++) {
        snprintf(buf, sizeof buf, "mask_downsampler.%d", i);
        CHECK_STATUS(samrt_plan_add(&plan, buf, SAMRT_REGION_SCRATCH, 64, i, i, NULL), SAMRT_OK);
    }
    CHECK(strcmp(plan.slots[0].name, "mask_downsampler.0") == 0);
    CHECK(strcmp(plan.slots[1].name, "mask_downsampler.1") == 0);
    char big[SAMRT_SLOT_NAME_MAX + 8];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK_STATUS(samrt_plan_add(&plan, big, SAMRT_REGION_STATE, 64, 0, 0, NULL), SAMRT_E_INVALID_ARG);
    big[SAMRT_SLOT_NAME_MAX - 1] = 0;  /* the longest name that fits */
    CHECK_STATUS(samrt_plan_add(&plan, big, SAMRT_REGION_STATE, 64, 0, 0, NULL), SAMRT_OK);
    CHECK(strcmp(plan.slots[2].name, big) == 0);
}

/* ---- two engines planning at once ------------------------------------------------------------ */

enum { TH_SLOTS = 1500, TH_ROUNDS = 20 };

struct th_plan {
    uint32_t seed;                               /* the plan's slots follow from it */
    struct samrt_arena_slot slots[TH_SLOTS];
    uint64_t want[TH_SLOTS];                     /* offsets of the plan made alone */
    int n_bad;                                   /* rounds whose offsets differed */
    pthread_barrier_t *start;
};

/* A plan of TH_SLOTS slots: most scratch with short lifetimes and sizes with many ties (so
 * the tie order matters), some persistent. */
static enum samrt_status th_make(struct th_plan *t) {
    struct samrt_plan plan;
    samrt_plan_init(&plan, t->slots, TH_SLOTS);
    uint32_t s = t->seed;
    for (int i = 0; i < TH_SLOTS; i++) {
        s = s * 1664525u + 1013904223u;
        const int t0 = (int)(s >> 8) % 60, len = (int)(s >> 20) % 8;
        s = s * 1664525u + 1013904223u;
        const uint64_t bytes = (s >> 8) % 2 ? 256 * (1 + (s >> 9) % 16) : 1 + (s >> 9) % 20000;
        const enum samrt_region r = (s >> 28) % 8 ? SAMRT_REGION_SCRATCH : SAMRT_REGION_STATE;
        SAMRT_TRY(samrt_plan_add(&plan, "t", r, bytes, t0, t0 + len, NULL));
    }
    return samrt_plan_finalize(&plan);
}

static void *th_run(void *arg) {
    struct th_plan *t = arg;
    pthread_barrier_wait(t->start);
    for (int r = 0; r < TH_ROUNDS; r++) {
        int same = th_make(t) == SAMRT_OK;
        for (int i = 0; same && i < TH_SLOTS; i++) same = t->slots[i].offset == t->want[i];
        t->n_bad += !same;
    }
    return NULL;
}

static void test_threads(void) {
    static struct th_plan th[2];
    pthread_barrier_t start;
    CHECK(pthread_barrier_init(&start, NULL, 2) == 0);
    for (int k = 0; k < 2; k++) {
        th[k].seed = 1000u + 77u * (uint32_t)k;
        th[k].start = &start;
        CHECK_STATUS(th_make(&th[k]), SAMRT_OK);  /* alone: the reference */
        for (int i = 0; i < TH_SLOTS; i++) th[k].want[i] = th[k].slots[i].offset;
    }
    pthread_t id[2];
    int started = 0;
    for (int k = 0; k < 2; k++) started += pthread_create(&id[k], NULL, th_run, &th[k]) == 0;
    CHECK_EQ_INT(started, 2);
    if (started < 2) return;  /* a thread waits at the barrier forever: end the test here */
    for (int k = 0; k < 2; k++) pthread_join(id[k], NULL);
    pthread_barrier_destroy(&start);
    for (int k = 0; k < 2; k++)
        CHECK_MSG(th[k].n_bad == 0, "plan %d: %d of %d rounds on two threads differ from the plan made alone", k,
                  th[k].n_bad, TH_ROUNDS);
    printf("test_arena_threads: 2 threads x %d rounds of %d-slot plans; rounds unlike the single-thread plan: "
           "%d, %d\n", TH_ROUNDS, TH_SLOTS, th[0].n_bad, th[1].n_bad);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "threads") == 0) {
        test_threads();
        return check_report("test_arena_threads");
    }
    test_regions();
    test_names();
    test_lifetimes();
    test_random_packing();
    test_commit();
    return check_report("test_arena");
}
