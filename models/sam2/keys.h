/* keys.h - the state_dict key layout of every supported model, generated from a compact
 * config table (Hiera sizes, RepViT widths, memory-attention depth, SAM 2.1-only switches),
 * and the checks that tie a checkpoint to a model: identify (which model's key set equals the
 * checkpoint's), match (strict: names, shapes and dtype class) and the diff behind both.
 *
 *   struct samrt_keys k;
 *   samrt_keys_init(SAMRT_MODEL_SAM2_1_TINY, &k);      // 471 keys; samrt_keys_param_count 38,962,498
 *   enum samrt_model_id found;
 *   st = samrt_keys_match(SAMRT_MODEL_UNKNOWN, ck.tensors, ck.n_tensors, &found);
 *   samrt_keys_free(&k);
 *
 * BatchNorm's num_batches_tracked keys (EdgeTAM's trunk) are optional, as PyTorch's
 * load_state_dict treats them; every other key is required and no extra key is allowed, as
 * the official loader's strict=True demands. Shapes are in PyTorch order. */
#ifndef SAMRT_KEYS_H
#define SAMRT_KEYS_H

#include "ckpt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_KEY_NAME_MAX 112 /* longest real key: ~100 chars (EdgeTAM trunk BN buffers) */
#define SAMRT_KEYS_LOG_MAX 20  /* names logged per kind of difference, then a count */

struct samrt_key {
    char name[SAMRT_KEY_NAME_MAX];
    int n_dims;
    int64_t ne[4];
    uint8_t is_int;    /* int64 (num_batches_tracked); all others are floating point */
    uint8_t is_buffer; /* a module buffer (BatchNorm statistics, the prompt encoder's Fourier
                          matrix), not a parameter */
    uint8_t optional;  /* may be absent from a checkpoint */
};

struct samrt_keys {
    enum samrt_model_id model;
    int n_keys;
    struct samrt_key *keys;    /* n_keys, in the model's state_dict order; owned */
    int cap;
};

/* Generates the key list of a model (SAMRT_E_INVALID_ARG for UNKNOWN or out of range). */
enum samrt_status samrt_keys_init(enum samrt_model_id model, struct samrt_keys *out);
void samrt_keys_free(struct samrt_keys *keys);
/* Parameter count as PyTorch reports it, sum(p.numel() for p in model.parameters()): buffers
 * are not parameters (tiny 38,962,498; EdgeTAM 13,895,794; the published model sizes). */
uint64_t samrt_keys_param_count(const struct samrt_keys *keys);

struct samrt_keys_diff {
    int n_missing;     /* required keys the checkpoint lacks */
    int n_unexpected;  /* checkpoint keys the model does not have */
    int n_misshaped;   /* present in both, different shape or dtype class */
};
/* Compares a checkpoint's tensors with a model's keys. log != 0 logs up to SAMRT_KEYS_LOG_MAX
 * names of each kind, then how many more. */
enum samrt_status samrt_keys_diff(const struct samrt_keys *want, const struct samrt_ckpt_tensor *t, int n,
                                  int log, struct samrt_keys_diff *out);

/* The model whose key names equal the checkpoint's (optional keys may be absent), or
 * SAMRT_MODEL_UNKNOWN. Shapes are not compared here; samrt_keys_match does that. */
enum samrt_model_id samrt_keys_identify(const struct samrt_ckpt_tensor *t, int n);

/* The model with the fewest missing + unexpected key names, and that diff (no logging). */
enum samrt_model_id samrt_keys_closest(const struct samrt_ckpt_tensor *t, int n, struct samrt_keys_diff *diff);

/* Strict check. want = UNKNOWN accepts whichever model the keys identify. Returns
 * SAMRT_E_MODEL_MISMATCH (naming both) when the keys are another model's, SAMRT_E_KEYS (with
 * the missing, unexpected and mis-shaped keys logged) otherwise. *found gets the model the
 * checkpoint was recognised as (UNKNOWN if none; want itself when want shares the layout of
 * the model the keys identify); found may be NULL. */
enum samrt_status samrt_keys_match(enum samrt_model_id want, const struct samrt_ckpt_tensor *t, int n,
                                   enum samrt_model_id *found);

/* 1 when models a and b have the same keys and shapes (EfficientTAM's Ti rows; its S rows). */
int samrt_keys_same_layout(enum samrt_model_id a, enum samrt_model_id b);
/* The model a checkpoint whose keys identify as `found` is taken as. found itself when no other
 * model shares its layout; else want when it shares it (the caller asked for it), else the
 * model whose official file name (samrt_model_checkpoint_name) is path's base name, else found
 * (the first of its layout). why (may be NULL) gets a sentence saying which and why when the
 * layout is shared, "" otherwise. */
enum samrt_model_id samrt_keys_variant(enum samrt_model_id found, enum samrt_model_id want, const char *path,
                                       char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_KEYS_H */
