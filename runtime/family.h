/* family.h - the model-family interface: what the engine (engine.c) and the bodies of the
 * samrt.h calls (api.c) ask of a family of models, as one table of functions. A family is a
 * folder under runtime/ (runtime/sam2/: SAM 2 / 2.1 and EdgeTAM) that fills one table and
 * registers itself in its CMakeLists.txt (samrt_family(), runtime/CMakeLists.txt), which
 * lists it in the generated registry (samrt_families, families.c.in). Nothing outside a
 * family's folder names its model state: the engine holds it as an opaque pointer
 * (engine_impl.h, e->model_state).
 *
 * Lifecycle, driven by engine.c:
 *   claims      a quiet look at the tensor names: is this checkpoint the family's?
 *   recognise   the checkpoint's tensors -> one of the family's models (strict key match)
 *   key_tensors the checkpoint a model would have (a budget without a checkpoint)
 *   plan        bind weights, add the passes' slots to e->plan (before it is final)
 *   prepare     after commit and weight upload: resolve slots, write constants (ck is open)
 *   free        safe on a partly initialised engine
 * Work, driven by api.c (each entry checks its own state and logs why it refuses):
 *   segment     one frame, several objects (samrt_engine_segment); segment_masked and
 *               mask_prompt: the same with mask prompts (samrt_engine_segment_masked)
 *   track_*     the streaming tracker: begin a video, prompt (points / box, mask), remove an
 *               object, push a frame (one step of the model: memory attention, heads, memory
 *               encode, mask decode), options; stage_times of the last call
 *   taps, configure: the samrt_internal.h doors (parity dumps, graphs on / off, timing)
 *   frame_cost  a steady tracked frame's launches, flops and bytes from the plan (samrt budget);
 *               track_graph_nodes: what the last frame's graph holds, to check it against,
 *               and how many graphs the tracker has instantiated so far
 * An entry a family does not have is NULL: the call returns SAMRT_E_UNSUPPORTED. */
#ifndef SAMRT_RUNTIME_FAMILY_H
#define SAMRT_RUNTIME_FAMILY_H

#include "ckpt.h"
#include "samrt_impl.h"
#include "samrt_internal.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_engine;

/* A parity tap observer (ops.h's samrt_tap_fn, samrt_internal.h's samrt_internal_tap_fn). */
typedef enum samrt_status (*samrt_family_tap_fn)(void *user, const char *name, const struct samrt_tensor *t);

struct samrt_family {
    const char *name;                           /* "sam2" */
    const enum samrt_model_id *models;          /* n_models ids of samrt.h's model table */
    int n_models;

    /* setup. claims: a quiet look at the tensor names, 1 when the checkpoint is this family's;
     * NULL makes the family the one that diagnoses any checkpoint no other family claims (its
     * recognise logs what is missing): at most one such family, registered last. */
    int (*claims)(const struct samrt_ckpt_tensor *t, int n);
    enum samrt_status (*recognise)(enum samrt_model_id expect, const struct samrt_ckpt_tensor *t, int n,
                                   enum samrt_model_id *out);
    enum samrt_status (*key_tensors)(enum samrt_model_id id, struct samrt_ckpt_tensor **out, int *n,
                                     uint64_t *n_params);  /* *out: host heap, freed with samrt_family_free_tensors;
                                                              out NULL: *n_params alone */
    enum samrt_status (*plan)(struct samrt_engine *e);
    enum samrt_status (*prepare)(struct samrt_engine *e, const struct samrt_ckpt *ck);
    void (*free)(struct samrt_engine *e);

    /* work */
    enum samrt_status (*segment)(struct samrt_engine *e, const struct samrt_image *img, int img_on_device,
                                 const struct samrt_object_prompt *prompts, int n, enum samrt_postproc pp,
                                 struct samrt_mask_result *out);
    /* segment with mask prompts (mask_inputs: NULL or one per object); mask_prompt: a binary
     * image-size mask as mask-input logits, or with mask and logits NULL only *side */
    enum samrt_status (*segment_masked)(struct samrt_engine *e, const struct samrt_image *img,
                                        const struct samrt_object_prompt *prompts, const float *const *mask_inputs,
                                        int n, enum samrt_postproc pp, struct samrt_mask_result *out);
    enum samrt_status (*mask_prompt)(struct samrt_engine *e, const uint8_t *mask, int width, int height,
                                     float *logits, int *side);
    enum samrt_status (*track_begin)(struct samrt_engine *e, int width, int height);
    enum samrt_status (*track_prompt)(struct samrt_engine *e, int obj_id, const struct samrt_object_prompt *p);
    enum samrt_status (*track_prompt_mask)(struct samrt_engine *e, int obj_id, const uint8_t *mask);
    enum samrt_status (*track_remove)(struct samrt_engine *e, int obj_id);
    enum samrt_status (*track_push)(struct samrt_engine *e, const struct samrt_image *frame, int frame_on_device,
                                    struct samrt_track_result *results, int max_results, int *n_results);
    enum samrt_status (*track_options)(struct samrt_engine *e, const struct samrt_internal_track_options *o);
    enum samrt_status (*stage_times)(struct samrt_engine *e, struct samrt_stage_times *out);

    /* the internal doors */
    enum samrt_status (*segment_tap)(struct samrt_engine *e, samrt_family_tap_fn fn, void *user);
    enum samrt_status (*segment_configure)(struct samrt_engine *e, int use_graph, int timed);
    enum samrt_status (*track_tap)(struct samrt_engine *e, samrt_family_tap_fn fn, void *user);
    enum samrt_status (*track_tap_memattn)(struct samrt_engine *e, int on);
    enum samrt_status (*check_prompt)(const struct samrt_object_prompt *p, int width, int height, int imgsz);
    /* samrt_internal.h's frame work: a steady frame's planned cost; the last frame's graph */
    enum samrt_status (*frame_cost)(struct samrt_engine *e, int objects, int width, int height,
                                    struct samrt_internal_frame_cost *out);
    enum samrt_status (*track_graph_nodes)(struct samrt_engine *e, int *kernels, int *copies, int *captures);
};

/* Forwards a call to family entry `fn` of engine e and returns its status, or refuses: a NULL
 * engine with `null_msg` (SAMRT_E_INVALID_ARG), a family without the entry with
 * SAMRT_E_UNSUPPORTED. The bodies of samrt.h's work calls and of samrt_internal.h use it. */
#define SAMRT_FAMILY_FORWARD(e, null_msg, fn, ...)                                                    \
    do {                                                                                              \
        SAMRT_CHECK((e) != NULL, SAMRT_E_INVALID_ARG, null_msg);                                      \
        SAMRT_CHECK((e)->family && (e)->family->fn, SAMRT_E_UNSUPPORTED,                             \
                    #fn ": model %s has no such call in this build", samrt_model_name((e)->model));    \
        return (e)->family->fn((e), __VA_ARGS__);                                                     \
    } while (0)

/* The registry (families.c, generated from the families that registered themselves): NULL-terminated. */
extern const struct samrt_family *const samrt_families[];

/* The family of model id; NULL when no family has it. */
const struct samrt_family *samrt_family_of(enum samrt_model_id id);
/* The family of a checkpoint: expect's when given, else the first that claims the tensors
 * (then the one with no claims test); NULL when none. */
const struct samrt_family *samrt_family_for(enum samrt_model_id expect, const struct samrt_ckpt_tensor *t, int n);
/* Frees what key_tensors returned. */
void samrt_family_free_tensors(struct samrt_ckpt_tensor *t, int n);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_RUNTIME_FAMILY_H */
