/* hooks.h - what runtime/engine.c asks of models/: plan the forward passes of the checkpoint's
 * model into the engine's arena plan (before it is finalized), compute the model's constants
 * once the weights are in the arena, and free what planning made. The engine stays free of
 * model details; each model family dispatches inside (runtime/sam2.c). */
#ifndef SAMRT_MODELS_HOOKS_H
#define SAMRT_MODELS_HOOKS_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;
struct samrt_ckpt;

/* Binds weights and adds the model's persistent slots and PLAN passes to e->plan (not yet
 * finalized; weights are sorted, without data). */
enum samrt_status samrt_model_plan(struct samrt_engine *e);
/* After commit and weight upload: resolves slots and writes constants. ck is still open. */
enum samrt_status samrt_model_prepare(struct samrt_engine *e, const struct samrt_ckpt *ck);
/* Frees plans and host state; safe on a partly initialised engine. */
void samrt_model_free(struct samrt_engine *e);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_MODELS_HOOKS_H */
