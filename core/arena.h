/* arena.h - plan, then commit: every tensor the engine touches is a slot in one plan, and
 * the plan is laid out over a single pool obtained once from the platform layer.
 *
 * Regions, in address order: weights | state | workspace | staging | scratch.
 *   - weights, state, workspace and staging are persistent: slots are laid end to end.
 *   - scratch slots carry a lifetime [t_first, t_last] in plan steps; two slots share bytes
 *     when their lifetimes do not overlap (greedy by size, as TFLM's GreedyMemoryPlanner).
 * Every slot is 256-byte aligned. Planning is pure arithmetic and needs no GPU, so a plan
 * made on a laptop for a Jetson is exact. Slots and their names are borrowed: the caller
 * owns the slot storage, and names must outlive the plan (string literals in practice).
 *
 *   struct samrt_arena_slot slots[64];
 *   struct samrt_plan plan;
 *   samrt_plan_init(&plan, slots, 64);
 *   int w, a;
 *   samrt_plan_add(&plan, "w", SAMRT_REGION_WEIGHTS, 4096, 0, 0, &w);
 *   samrt_plan_add(&plan, "act", SAMRT_REGION_SCRATCH, 1 << 20, 0, 3, &a);
 *   samrt_plan_finalize(&plan);            // offsets + plan.total_bytes
 *   struct samrt_arena arena;
 *   samrt_arena_commit(&arena, &plan, pool, pool_bytes);   // SAMRT_E_ARENA_TOO_SMALL if short
 *   float *act = samrt_arena_ptr(&arena, a);
 */
#ifndef SAMRT_ARENA_H
#define SAMRT_ARENA_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

enum samrt_region {
    SAMRT_REGION_WEIGHTS = 0,  /* model weights at run precision */
    SAMRT_REGION_STATE,        /* per-object state kept across frames (memory bank, pointers) */
    SAMRT_REGION_WORKSPACE,    /* the workspace cuBLASLt and cuDNN share (platform profile caps) */
    SAMRT_REGION_STAGING,      /* frame upload and mask download buffers */
    SAMRT_REGION_SCRATCH,      /* activations, reused by lifetime */
    SAMRT_REGION_COUNT
};
const char *samrt_region_name(enum samrt_region region);

#define SAMRT_SLOT_NAME_MAX 128  /* official checkpoint keys are at most 97 characters */
struct samrt_arena_slot {
    char name[SAMRT_SLOT_NAME_MAX]; /* copied at samrt_plan_add (a longer name is refused): for
                                       lookups by name, logs and the budget table; callers may
                                       pass a stack buffer */
    enum samrt_region region;
    uint64_t nbytes;           /* requested size (before padding) */
    int t_first, t_last;       /* scratch lifetime in plan steps, inclusive */
    uint64_t offset;           /* from the pool base; set by samrt_plan_finalize */
};

struct samrt_plan {
    struct samrt_arena_slot *slots;  /* caller storage, cap_slots long */
    int n_slots, cap_slots;
    uint64_t region_offset[SAMRT_REGION_COUNT];
    uint64_t region_bytes[SAMRT_REGION_COUNT];   /* padded size of each region */
    uint64_t total_bytes;                        /* the pool size the plan needs */
    int finalized;
};

void samrt_plan_init(struct samrt_plan *plan, struct samrt_arena_slot *storage, int cap_slots);
/* Adds a slot; *slot_out (may be NULL) receives its index. t_first/t_last matter for scratch. */
enum samrt_status samrt_plan_add(struct samrt_plan *plan, const char *name, enum samrt_region region,
                                 uint64_t nbytes, int t_first, int t_last, int *slot_out);
/* Assigns offsets. After this the plan is read-only. */
enum samrt_status samrt_plan_finalize(struct samrt_plan *plan);
/* Sum of requested bytes per region (before packing), for reports. */
uint64_t samrt_plan_requested_bytes(const struct samrt_plan *plan, enum samrt_region region);
/* Logs one line per region (and per slot at DEBUG). */
void samrt_plan_log(const struct samrt_plan *plan, enum samrt_log_level level);

struct samrt_arena {
    uint8_t *base;                /* the pool; owned by whoever obtained it, not the arena */
    uint64_t capacity;
    const struct samrt_plan *plan;
    /* shared weights (samrt_arena_commit_shared): the weights region lives at weights_base,
     * another arena's, and the pool holds the regions after it (base = pool - skip bytes of
     * plan offsets). NULL / 0 for an arena that owns all its regions. */
    const uint8_t *weights_base;
    uint64_t skip;
};

/* Binds a finalized plan to a pool. Fails with SAMRT_E_ARENA_TOO_SMALL, naming the bytes
 * needed and the bytes available, when the pool is short; base must be 256-byte aligned. */
enum samrt_status samrt_arena_commit(struct samrt_arena *arena, const struct samrt_plan *plan,
                                     void *base, uint64_t capacity);
/* Binds a finalized plan whose weights region is identical to the one committed at
 * weights_base (another arena of the same model, precision and size: the caller checks with
 * samrt_plan_same_weights): only the regions after the weights take pool bytes,
 * samrt_plan_own_bytes of them. Several videos then run on one copy of the weights. */
enum samrt_status samrt_arena_commit_shared(struct samrt_arena *arena, const struct samrt_plan *plan, void *pool,
                                            uint64_t capacity, const void *weights_base);
/* Bytes of the regions after the weights (what a shared-weights arena takes). */
uint64_t samrt_plan_own_bytes(const struct samrt_plan *plan);
/* 1 when the two plans' weights regions have the same slots (names, sizes, offsets). */
int samrt_plan_same_weights(const struct samrt_plan *a, const struct samrt_plan *b);
void *samrt_arena_ptr(const struct samrt_arena *arena, int slot);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_ARENA_H */
