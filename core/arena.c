/* arena.c - the arena planner and committer (see arena.h for the layout).
 * Scratch packing: slots sorted by size (largest first, ties by index so the plan is
 * deterministic), each placed at the lowest 256-aligned offset where it overlaps no placed
 * slot whose lifetime intersects its own. Planning runs once at setup; the temporary index
 * arrays it mallocs are freed before it returns. It keeps no state outside the plan, so
 * engines may plan on several threads at once. */
#include "arena.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const region_names[] = {"weights", "state", "workspace", "staging", "scratch"};
_Static_assert(sizeof(region_names) / sizeof(region_names[0]) == SAMRT_REGION_COUNT, "regions");

const char *samrt_region_name(enum samrt_region region) {
    if ((unsigned)region >= SAMRT_REGION_COUNT) return "?";
    return region_names[region];
}

void samrt_plan_init(struct samrt_plan *plan, struct samrt_arena_slot *storage, int cap_slots) {
    *plan = (struct samrt_plan){0};
    plan->slots = storage;
    plan->cap_slots = cap_slots;
}

enum samrt_status samrt_plan_add(struct samrt_plan *plan, const char *name, enum samrt_region region,
                                 uint64_t nbytes, int t_first, int t_last, int *slot_out) {
    SAMRT_CHECK(plan && !plan->finalized, SAMRT_E_BAD_STATE, "plan_add on a finalized plan");
    SAMRT_CHECK((unsigned)region < SAMRT_REGION_COUNT, SAMRT_E_INVALID_ARG, "bad region %d", (int)region);
    SAMRT_CHECK(plan->n_slots < plan->cap_slots, SAMRT_E_INVALID_ARG,
                "plan has room for %d slots; '%s' does not fit", plan->cap_slots, name ? name : "?");
    SAMRT_CHECK(region != SAMRT_REGION_SCRATCH || (t_first >= 0 && t_last >= t_first),
                SAMRT_E_INVALID_ARG, "scratch slot '%s' has lifetime [%d, %d]", name ? name : "?",
                t_first, t_last);
    struct samrt_arena_slot *s = &plan->slots[plan->n_slots];
    SAMRT_CHECK(strlen(name ? name : "?") < sizeof s->name, SAMRT_E_INVALID_ARG,
                "plan: slot name '%.40s...' is longer than %d characters", name, SAMRT_SLOT_NAME_MAX - 1);
    *s = (struct samrt_arena_slot){{0}, region, nbytes, t_first, t_last, 0};
    snprintf(s->name, sizeof s->name, "%s", name ? name : "?");
    if (slot_out) *slot_out = plan->n_slots;
    plan->n_slots++;
    return SAMRT_OK;
}

static int lifetimes_overlap(const struct samrt_arena_slot *a, const struct samrt_arena_slot *b) {
    return a->t_first <= b->t_last && b->t_first <= a->t_last;
}

/* Orders of slot indices: by size, larger first, or by offset, lower first; ties by lower
 * index, so each is a total order and the sort below gives the one result any sort would. */
enum slot_order { BY_SIZE_DESC, BY_OFFSET };
static int slot_before(const struct samrt_arena_slot *slots, enum slot_order order, int a, int b) {
    const uint64_t x = order == BY_SIZE_DESC ? slots[b].nbytes : slots[a].offset;
    const uint64_t y = order == BY_SIZE_DESC ? slots[a].nbytes : slots[b].offset;
    if (x != y) return x < y;
    return a < b;
}

/* Heapsort of n slot indices (in place, no state outside the call: two engines may plan on
 * two threads at once). */
static void sift_down(int *idx, int root, int n, const struct samrt_arena_slot *slots, enum slot_order order) {
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && slot_before(slots, order, idx[child], idx[child + 1])) child++;
        if (!slot_before(slots, order, idx[root], idx[child])) return;
        const int t = idx[root];
        idx[root] = idx[child];
        idx[child] = t;
        root = child;
    }
}

static void sort_slots(int *idx, int n, const struct samrt_arena_slot *slots, enum slot_order order) {
    for (int i = n / 2 - 1; i >= 0; i--) sift_down(idx, i, n, slots, order);
    for (int end = n - 1; end > 0; end--) {
        const int t = idx[0];
        idx[0] = idx[end];
        idx[end] = t;
        sift_down(idx, 0, end, slots, order);
    }
}

static enum samrt_status pack_scratch(struct samrt_plan *plan, uint64_t *extent) {
    int n = 0;
    for (int i = 0; i < plan->n_slots; i++) n += plan->slots[i].region == SAMRT_REGION_SCRATCH;
    *extent = 0;
    if (n == 0) return SAMRT_OK;
    int *order = malloc((size_t)n * sizeof *order);
    int *placed = malloc((size_t)n * sizeof *placed);
    int *conf = malloc((size_t)n * sizeof *conf);
    if (!order || !placed || !conf) {
        free(order); free(placed); free(conf);
        SAMRT_LOG_ERROR("arena planner: out of host memory for %d scratch slots", n);
        return SAMRT_E_HOST_MEMORY;
    }
    int k = 0;
    for (int i = 0; i < plan->n_slots; i++)
        if (plan->slots[i].region == SAMRT_REGION_SCRATCH) order[k++] = i;
    sort_slots(order, n, plan->slots, BY_SIZE_DESC);
    int n_placed = 0;
    for (int i = 0; i < n; i++) {
        struct samrt_arena_slot *s = &plan->slots[order[i]];
        uint64_t need = SAMRT_PAD(s->nbytes, SAMRT_ALIGN);
        int n_conf = 0;  /* placed slots alive at the same time, sorted by offset */
        for (int j = 0; j < n_placed; j++)
            if (lifetimes_overlap(s, &plan->slots[placed[j]])) conf[n_conf++] = placed[j];
        sort_slots(conf, n_conf, plan->slots, BY_OFFSET);
        uint64_t off = 0;
        for (int j = 0; j < n_conf; j++) {
            const struct samrt_arena_slot *c = &plan->slots[conf[j]];
            uint64_t c_end = c->offset + SAMRT_PAD(c->nbytes, SAMRT_ALIGN);
            if (off + need <= c->offset) break;   /* fits in the gap before c */
            if (c_end > off) off = c_end;
        }
        s->offset = off;
        if (off + need > *extent) *extent = off + need;
        placed[n_placed++] = order[i];
    }
    free(order); free(placed); free(conf);
    return SAMRT_OK;
}

enum samrt_status samrt_plan_finalize(struct samrt_plan *plan) {
    SAMRT_CHECK(plan && !plan->finalized, SAMRT_E_BAD_STATE, "plan finalized twice");
    uint64_t base = 0;
    for (int r = 0; r < SAMRT_REGION_COUNT; r++) {
        plan->region_offset[r] = base;
        uint64_t size = 0;
        if (r == SAMRT_REGION_SCRATCH) {
            SAMRT_TRY(pack_scratch(plan, &size));
            for (int i = 0; i < plan->n_slots; i++)
                if (plan->slots[i].region == SAMRT_REGION_SCRATCH) plan->slots[i].offset += base;
        } else {
            for (int i = 0; i < plan->n_slots; i++) {
                struct samrt_arena_slot *s = &plan->slots[i];
                if (s->region != (enum samrt_region)r) continue;
                s->offset = base + size;
                size += SAMRT_PAD(s->nbytes, SAMRT_ALIGN);
            }
        }
        plan->region_bytes[r] = size;
        base += size;
    }
    plan->total_bytes = base;
    plan->finalized = 1;
    return SAMRT_OK;
}

uint64_t samrt_plan_requested_bytes(const struct samrt_plan *plan, enum samrt_region region) {
    uint64_t sum = 0;
    for (int i = 0; i < plan->n_slots; i++)
        if (plan->slots[i].region == region) sum += plan->slots[i].nbytes;
    return sum;
}

void samrt_plan_log(const struct samrt_plan *plan, enum samrt_log_level level) {
    for (int r = 0; r < SAMRT_REGION_COUNT; r++) {
        samrt_log(level, "arena %-9s offset %12" PRIu64 "  size %12" PRIu64 " B (%8.2f MiB)",
                  samrt_region_name((enum samrt_region)r), plan->region_offset[r],
                  plan->region_bytes[r], plan->region_bytes[r] / 1048576.0);
    }
    samrt_log(level, "arena total %" PRIu64 " B (%.2f MiB), %d slots", plan->total_bytes,
              plan->total_bytes / 1048576.0, plan->n_slots);
    for (int i = 0; i < plan->n_slots; i++) {
        const struct samrt_arena_slot *s = &plan->slots[i];
        samrt_log(SAMRT_LOG_DEBUG, "  slot %-48s %-9s off %12" PRIu64 " bytes %12" PRIu64,
                  s->name, samrt_region_name(s->region), s->offset, s->nbytes);
    }
}

enum samrt_status samrt_arena_commit(struct samrt_arena *arena, const struct samrt_plan *plan,
                                     void *base, uint64_t capacity) {
    SAMRT_CHECK(arena && plan && plan->finalized, SAMRT_E_INVALID_ARG, "arena_commit needs a finalized plan");
    SAMRT_CHECK(plan->total_bytes <= capacity, SAMRT_E_ARENA_TOO_SMALL,
                "arena plan needs %" PRIu64 " bytes (%.2f MiB) but the pool has %" PRIu64
                " bytes (%.2f MiB)", plan->total_bytes, plan->total_bytes / 1048576.0, capacity,
                capacity / 1048576.0);
    SAMRT_CHECK(base != NULL || plan->total_bytes == 0, SAMRT_E_INVALID_ARG, "arena pool is NULL");
    SAMRT_CHECK(((uintptr_t)base % SAMRT_ALIGN) == 0, SAMRT_E_INVALID_ARG,
                "arena pool %p is not %u-byte aligned", base, SAMRT_ALIGN);
    arena->base = (uint8_t *)base;
    arena->capacity = capacity;
    arena->plan = plan;
    arena->weights_base = NULL;
    arena->skip = 0;
    return SAMRT_OK;
}

uint64_t samrt_plan_own_bytes(const struct samrt_plan *plan) {
    return plan->total_bytes - plan->region_offset[SAMRT_REGION_STATE];
}

int samrt_plan_same_weights(const struct samrt_plan *a, const struct samrt_plan *b) {
    if (a->region_bytes[SAMRT_REGION_WEIGHTS] != b->region_bytes[SAMRT_REGION_WEIGHTS]) return 0;
    int i = 0, j = 0;
    for (;;) {  /* the two lists of weights slots, in plan order */
        while (i < a->n_slots && a->slots[i].region != SAMRT_REGION_WEIGHTS) i++;
        while (j < b->n_slots && b->slots[j].region != SAMRT_REGION_WEIGHTS) j++;
        if (i == a->n_slots || j == b->n_slots) return i == a->n_slots && j == b->n_slots;
        const struct samrt_arena_slot *x = &a->slots[i++], *y = &b->slots[j++];
        if (x->nbytes != y->nbytes || x->offset != y->offset || strcmp(x->name, y->name) != 0) return 0;
    }
}

enum samrt_status samrt_arena_commit_shared(struct samrt_arena *arena, const struct samrt_plan *plan, void *pool,
                                            uint64_t capacity, const void *weights_base) {
    SAMRT_CHECK(arena && plan && plan->finalized, SAMRT_E_INVALID_ARG, "arena_commit needs a finalized plan");
    SAMRT_CHECK(weights_base != NULL, SAMRT_E_INVALID_ARG, "arena_commit_shared: no weights");
    const uint64_t own = samrt_plan_own_bytes(plan);
    SAMRT_CHECK(own <= capacity, SAMRT_E_ARENA_TOO_SMALL,
                "arena plan needs %" PRIu64 " bytes (%.2f MiB) besides the shared weights but the pool has %" PRIu64
                " bytes (%.2f MiB)", own, own / 1048576.0, capacity, capacity / 1048576.0);
    SAMRT_CHECK(pool != NULL || own == 0, SAMRT_E_INVALID_ARG, "arena pool is NULL");
    SAMRT_CHECK(((uintptr_t)pool % SAMRT_ALIGN) == 0, SAMRT_E_INVALID_ARG,
                "arena pool %p is not %u-byte aligned", pool, SAMRT_ALIGN);
    arena->base = (uint8_t *)pool;
    arena->capacity = capacity;
    arena->plan = plan;
    arena->weights_base = (const uint8_t *)weights_base;
    arena->skip = plan->region_offset[SAMRT_REGION_STATE];
    return SAMRT_OK;
}

void *samrt_arena_ptr(const struct samrt_arena *arena, int slot) {
    SAMRT_DASSERT(arena && arena->plan && slot >= 0 && slot < arena->plan->n_slots);
    const struct samrt_arena_slot *s = &arena->plan->slots[slot];
    if (!arena->weights_base) return arena->base + s->offset;
    if (s->region == SAMRT_REGION_WEIGHTS) return (uint8_t *)(uintptr_t)arena->weights_base + s->offset;
    return arena->base + (s->offset - arena->skip);
}
