/* ckpt_write.h - a checkpoint of seeded random weights in the official layout, and which
 * model a checkpoint file holds. The layout is what torch.save({"model": state_dict}, path)
 * writes: a zip of data.pkl (the pickled state_dict) and one f32 storage per tensor, with
 * every key of the model's table (models/sam2/keys.h). It lets `samrt demo` run the real
 * pipeline when no official checkpoint is at hand: timings and memory are those of the
 * model, the masks mean nothing.
 *
 * The values: LayerNorm / BatchNorm scales 1 (0.1 for the BatchNorms that end EdgeTAM's
 * RepViT residual branches, so that the trunk's activations stay in fp16's range, as a
 * trained model's do), biases and running means 0 (3 for RepViT's squeeze-excite gates, near
 * open), running variances
 * 1, every other tensor uniform in +-sqrt(3 / fan_in) (unit variance through a layer), from
 * one xorshift stream per key (seed, key index), so the same seed gives the same file. The
 * object-score head's last bias is +4, which keeps the object-score gate open: the masks
 * stay non-empty, so overlays have something to draw. samrt's restricted reader reads the
 * file as an official one; Python's zipfile and pickle (with torch's names) read it as
 * torch.load would.
 *
 *   SAMRT_TRY(samrt_ckpt_write_random("demo/edgetam.pt", SAMRT_MODEL_EDGETAM, 0));
 */
#ifndef SAMRT_HARNESS_CKPT_WRITE_H
#define SAMRT_HARNESS_CKPT_WRITE_H

#include <stdint.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the checkpoint (atomically: beside path, then renamed). SAMRT_E_INVALID_ARG for an
 * unknown model, SAMRT_E_IO when the file cannot be written. */
enum samrt_status samrt_ckpt_write_random(const char *path, enum samrt_model_id model, uint64_t seed);

/* The model whose key set a checkpoint file holds (SAMRT_MODEL_UNKNOWN when none), read
 * with the restricted reader without loading any value: how `samrt demo` tells an official
 * EdgeTAM or SAM 2.1 file among the .pt files of ./checkpoints. The reader's status when it refuses the
 * file. */
enum samrt_status samrt_ckpt_identify(const char *path, enum samrt_model_id *model);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_CKPT_WRITE_H */
