/* track_bank.h - the per-object memory bank bookkeeping of SAM 2.1 video tracking: which
 * arena slot holds which frame's memory and object pointer, and which of them the current
 * frame attends to (model-spec 4.3 memory selection, 4.4 object pointers). Pure host logic
 * over small fixed arrays: nothing here touches a tensor, so the rules are unit-tested on
 * the CPU (tests/test_sam2_track_bank.c) apart from the numerics.
 *
 * Fixed storage per object, whatever the video's length (the slot numbers index the
 * tracker's arena tensors, runtime/tracker.h):
 *   spatial memories  slots 0 .. RING-1           ring of non-conditioning frames, slot = frame % RING
 *                     slots RING .. RING+COND-1   conditioning (prompted) frames, in prompt order
 *   object pointers   slots 0 .. PTR_RING-1       ring of non-conditioning frames, slot = frame % PTR_RING
 *                     slots PTR_RING .. +COND-1   the conditioning frames' pointers
 * A ring slot remembers the frame it holds; a lookup for frame f uses the slot only when it
 * holds exactly f, so a conditioning frame (stored elsewhere) or an overwritten frame is
 * skipped, never read stale.
 *
 * Why RING = num_maskmem - 1 = 6: frame t selects at most frames t-6 .. t-1 (6 consecutive
 * frames, distinct modulo 6), and frame t's own memory is written after its selection ran,
 * into the slot of frame t-6, which no later frame selects. Pointers: frames t-15 .. t-1,
 * distinct modulo 16.
 *
 * Conditioning cap: SAMRT_TRACK_MAX_COND per object. The official predictor keeps every
 * prompted frame (max_cond_frames_in_attn = -1); beyond the cap this bank evicts the OLDEST
 * conditioning frame (its memory and pointer), which is what the official selection with
 * max_cond_frames_in_attn = SAMRT_TRACK_MAX_COND keeps for forward tracking (the closest
 * frames before t), except that the official code would still use an evicted frame as an
 * ordinary memory while it is within t-6 .. t-1. Up to the cap the results are exact.
 */
#ifndef SAMRT_SAM2_TRACK_BANK_H
#define SAMRT_SAM2_TRACK_BANK_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_TRACK_NUM_MASKMEM 7                            /* num_maskmem */
#define SAMRT_TRACK_RING (SAMRT_TRACK_NUM_MASKMEM - 1)       /* non-cond spatial memories kept */
#define SAMRT_TRACK_MAX_PTRS 16                              /* max_obj_ptrs_in_encoder */
#define SAMRT_TRACK_PTR_RING SAMRT_TRACK_MAX_PTRS            /* non-cond pointers kept */
#define SAMRT_TRACK_MAX_COND 2                               /* conditioning frames kept per object */
#define SAMRT_TRACK_MEM_SLOTS (SAMRT_TRACK_RING + SAMRT_TRACK_MAX_COND)
#define SAMRT_TRACK_PTR_SLOTS (SAMRT_TRACK_PTR_RING + SAMRT_TRACK_MAX_COND)
/* At most this many memories / pointers enter one frame's memory attention. */
#define SAMRT_TRACK_MAX_SEL_MEM (SAMRT_TRACK_MAX_COND + SAMRT_TRACK_RING)
#define SAMRT_TRACK_MAX_SEL_PTR (SAMRT_TRACK_MAX_COND + SAMRT_TRACK_MAX_PTRS - 1)

/* One object's bank bookkeeping (the tensors themselves live in the arena). */
struct samrt_track_bank {
    int n_cond;                                   /* conditioning frames held, <= SAMRT_TRACK_MAX_COND */
    int cond_frame[SAMRT_TRACK_MAX_COND];         /* their frame indices, oldest first */
    int cond_slot[SAMRT_TRACK_MAX_COND];          /* their slot offsets (0 .. MAX_COND-1), same order */
    int ring_frame[SAMRT_TRACK_RING];             /* frame held by each spatial ring slot, -1 = empty */
    int ptr_frame[SAMRT_TRACK_PTR_RING];          /* frame held by each pointer ring slot, -1 = empty */
    int n_evicted;                                /* conditioning frames dropped at the cap (diagnostics) */
};

/* What frame t attends to, in the official order: conditioning memories (prompt order),
 * then t_pos 1..6 (frames t-6 .. t-1); pointers: conditioning frames c <= t, then d = 1..
 * max_ptr-1 (frame t-d). */
struct samrt_track_selection {
    int n_mem;
    int mem_slot[SAMRT_TRACK_MAX_SEL_MEM];        /* spatial memory slot (0 .. MEM_SLOTS-1) */
    int mem_frame[SAMRT_TRACK_MAX_SEL_MEM];       /* the frame it holds */
    int mem_tpos[SAMRT_TRACK_MAX_SEL_MEM];        /* maskmem_tpos_enc index: num_maskmem - t_pos - 1 */
    int n_ptr;
    int ptr_slot[SAMRT_TRACK_MAX_SEL_PTR];        /* pointer slot (0 .. PTR_SLOTS-1) */
    int ptr_frame[SAMRT_TRACK_MAX_SEL_PTR];
    int ptr_dist[SAMRT_TRACK_MAX_SEL_PTR];        /* signed temporal distance t - frame */
    int max_ptr;                                  /* min(num_frames, 16): the pointer tpos divisor + 1 */
};

/* Empties the bank (a new video or a new object). */
void samrt_track_bank_reset(struct samrt_track_bank *b);

/* Frame t is a conditioning frame (a prompt): returns the spatial slot and the pointer slot
 * its memory and pointer go to. At the cap the oldest conditioning frame is evicted and its
 * slots reused. A repeated prompt on the frame already held as the newest conditioning
 * frame reuses its slots. */
void samrt_track_bank_add_cond(struct samrt_track_bank *b, int t, int *mem_slot, int *ptr_slot);

/* Frame t was tracked (a non-conditioning frame): its memory and pointer slots. */
void samrt_track_bank_add_tracked(struct samrt_track_bank *b, int t, int *mem_slot, int *ptr_slot);

/* 1 when frame t is one of the held conditioning frames. */
int samrt_track_bank_is_cond(const struct samrt_track_bank *b, int t);

/* The selection for tracking frame t (t not a conditioning frame). num_frames: the video's
 * length when known (the official max_ptr = min(num_frames, 16)), 0 = unknown (streaming:
 * taken as >= 16). */
void samrt_track_bank_select(const struct samrt_track_bank *b, int t, int num_frames,
                             struct samrt_track_selection *sel);

/* The 1-D sine encoding of a pointer's distance (model-spec 4.4, get_1d_sine_pe): p =
 * dist / (max_ptr - 1) in f32, out[k] = sin(p / 10000^(2*floor(k/2)/128)) for k < 128 and the
 * matching cos for 128 .. 255. dim = 256. */
void samrt_track_ptr_sine(int dist, int max_ptr, float *out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAM2_TRACK_BANK_H */
