/* engine_limits.h - the engine's limits, in one place: what samrt_engine_init accepts and what the
 * runtime sizes its per-object host arrays by. The kernels keep their own capacities (the SAM
 * heads' mask selection, kernels/sam2/mask_select.h); each family checks at compile time that its
 * kernels hold the engine's limit. */
#ifndef SAMRT_ENGINE_LIMITS_H
#define SAMRT_ENGINE_LIMITS_H

#define SAMRT_MAX_OBJECTS 256        /* params.max_objects: objects per engine (segmented or tracked) */
#define SAMRT_IMGSZ_MIN 64           /* params.imgsz: the model side, a multiple of 16 in this range */
#define SAMRT_IMGSZ_MAX 4096
#define SAMRT_FRAME_SLOT_NAME "seg.rgb" /* the arena slot a GPU engine stages frames in (RGB8 or NV12) */
#define SAMRT_ENGINE_MODEL_SLOTS 32768 /* arena slots a family's forward passes may add to the plan */

#endif /* SAMRT_ENGINE_LIMITS_H */
