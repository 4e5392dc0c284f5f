/* test_plan_precision.c - the precision-dependent parts of the arena plan, without a GPU
 * (samrt_engine_init_plan_only on a device profile, the plan samrt_engine_init commits):
 *   - bf16 runs hold one f32 copy of the mask decoder (its two-way transformer, upscaling
 *     LayerNorm2d, hypernetworks, IoU and object-score heads, plus no_mask_embed; the packed
 *     transposed convolutions are f32 slots of their own), shared by the segmentation and
 *     mask-prompt heads; fp16 and f32 runs hold none (docs/numerics.md, "Mask decoder");
 *   - EdgeTAM's trunk conv / BatchNorm slots are released (0 bytes) at every precision, the
 *     squeeze-excite layers kept (docs/design.md, "Weights and state"); bf16 runs add the f32
 *     BatchNorm scales and shifts that run apart from the convs (models/edgetam/repvit.h), 4
 *     per output channel of every folded conv, and one f32 copy of each spatial_perceiver
 *     tensor (the perceiver computes in f32, models/edgetam/perceiver.h); fp16 / f32 runs none;
 *   - engine weights are found back by tensor (samrt_engine_weight_name), which is how the f32
 *     copies find their checkpoint tensors;
 *   - the workspace is one slot that cuBLASLt and cuDNN share, the larger of the profile's two
 *     caps, on every GPU profile (none on the cpu profile). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engine_impl.h"
#include "keys.h"

#define TR_PREFIX "sam_mask_decoder."
#define TRUNK_PREFIX "image_encoder.trunk.body."

struct tally {
    int n_tr;              /* slots of the f32 decoder copy */
    uint64_t up_bytes;     /* the packed transposed convolutions' slots */
    uint64_t tr_bytes;     /* their requested bytes */
    int n_released;        /* weight slots of 0 bytes */
    int n_trunk_released;  /* of them, trunk tensors outside the squeeze-excite layers */
    uint64_t bn_bytes;     /* EdgeTAM's f32 BatchNorm slot (bf16 runs) */
    int n_perc;            /* EdgeTAM's f32 perceiver weight copies (bf16 runs) */
    uint64_t perc_bytes;
};

static int prefixed(const char *name, const char *prefix) { return !strncmp(name, prefix, strlen(prefix)); }
/* the trunk's conv / BatchNorm tensors (outside the squeeze-excite layers) */
static int in_trunk(const char *name) { return prefixed(name, TRUNK_PREFIX) && !strstr(name, ".se."); }
static int in_perceiver(const char *name) { return prefixed(name, "spatial_perceiver."); }

/* The decoder tensors bf16 runs copy to f32: sam_mask_decoder's float tensors except the
 * token embeddings (host tables), the transposed convolutions (packed slots of their own) and
 * conv_s0 / conv_s1 (they run on the image encoder's features). */
static int in_f32_decoder(const char *name) {
    static const char *outside[] = {"iou_token.", "mask_tokens.", "obj_score_token.", "output_upscaling.0.",
                                    "output_upscaling.3.", "conv_s0.", "conv_s1."};
    if (!prefixed(name, TR_PREFIX)) return 0;
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
        if (prefixed(name + strlen(TR_PREFIX), outside[i])) return 0;
    return 1;
}

static struct tally plan_tally(enum samrt_model_id model, enum samrt_dtype prec) {
    struct tally t = {0, 0, 0, 0, 0, 0, 0, 0};
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = "h100-80gb";
    p.precision = prec;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init_plan_only(model, &p, &e), SAMRT_OK);
    if (!e) return t;
    const struct samrt_plan *plan = samrt_engine_plan(e);
    for (int i = 0; i < plan->n_slots; i++) {
        const struct samrt_arena_slot *sl = &plan->slots[i];
        if (!strcmp(sl->name, "edgetam.trunk.batchnorm")) t.bn_bytes += sl->nbytes;
        if (!strcmp(sl->name, "edgetam.perceiver.f32")) {
            t.n_perc++;
            t.perc_bytes += sl->nbytes;
        }
        if (prefixed(sl->name, "sam2.heads.up")) t.up_bytes += sl->nbytes;
        if (!strcmp(sl->name, "sam2.heads.decoder_f32")) {
            t.n_tr++;
            t.tr_bytes += sl->nbytes;
        }
        if (sl->region == SAMRT_REGION_WEIGHTS && sl->nbytes == 0 && samrt_engine_weight(e, sl->name)) {
            t.n_released++;
            CHECK_MSG(samrt_engine_weight_released(e, sl->name), "%s has 0 bytes but is not released", sl->name);
            if (in_trunk(sl->name)) t.n_trunk_released++;
        }
    }
    /* the f32 copies are read from the checkpoint under the names of the engine weights they
     * replace (samrt_engine_weight_name): every transformer key round-trips, a tensor of
     * another origin has no name */
    struct samrt_keys k;
    if (samrt_keys_init(model, &k) == SAMRT_OK) {
        for (int i = 0; i < k.n_keys; i++) {
            if (!in_f32_decoder(k.keys[i].name)) continue;
            const char *back = samrt_engine_weight_name(e, samrt_engine_weight(e, k.keys[i].name));
            CHECK_MSG(back && !strcmp(back, k.keys[i].name), "%s named back as %s", k.keys[i].name,
                      back ? back : "NULL");
        }
        samrt_keys_free(&k);
    }
    const struct samrt_tensor other = {0};
    CHECK(samrt_engine_weight_name(e, &other) == NULL);
    samrt_engine_free(e);
    return t;
}

/* The float tensors of the model's key table that keep(name) selects: how many, and their
 * element count. */
static int key_count(enum samrt_model_id model, int (*keep)(const char *), int64_t *elems) {
    struct samrt_keys k;
    int n = 0;
    *elems = 0;
    if (samrt_keys_init(model, &k) != SAMRT_OK) return -1;
    for (int i = 0; i < k.n_keys; i++) {
        if (k.keys[i].is_int || !keep(k.keys[i].name)) continue;
        int64_t m = 1;
        for (int d = 0; d < k.keys[i].n_dims; d++) m *= k.keys[i].ne[d];
        *elems += m;
        n++;
    }
    samrt_keys_free(&k);
    return n;
}

/* The workspace region of a plan-only engine on every profile: one slot named "workspace" of
 * the larger cap, nothing on the host profile. */
static void check_workspace(enum samrt_model_id model) {
    int n = 0;
    const struct samrt_platform_profile *pf = samrt_platform_profile_list(&n);
    for (int i = 0; i < n; i++) {
        struct samrt_engine_params p = samrt_engine_default_params();
        p.platform = pf[i].name;
        samrt_engine_t e = NULL;
        CHECK_STATUS(samrt_engine_init_plan_only(model, &p, &e), SAMRT_OK);
        if (!e) continue;
        const struct samrt_plan *plan = samrt_engine_plan(e);
        int n_ws = 0;
        uint64_t ws = 0;
        for (int j = 0; j < plan->n_slots; j++)
            if (plan->slots[j].region == SAMRT_REGION_WORKSPACE) {
                n_ws++;
                ws += plan->slots[j].nbytes;
                CHECK_MSG(!strcmp(plan->slots[j].name, "workspace"), "%s: workspace slot %s", pf[i].name,
                          plan->slots[j].name);
            }
        const uint64_t want = pf[i].cublaslt_ws_bytes > pf[i].cudnn_ws_bytes ? pf[i].cublaslt_ws_bytes
                                                                             : pf[i].cudnn_ws_bytes;
        CHECK_EQ_INT(n_ws, want ? 1 : 0);
        CHECK_EQ_INT(ws, want);
        struct samrt_memory_report m;
        CHECK_STATUS(samrt_engine_memory(e, &m), SAMRT_OK);
        CHECK_EQ_INT(m.workspace_bytes, want);
        samrt_engine_free(e);
    }
}

int main(void) {
    check_workspace(SAMRT_MODEL_EDGETAM);
    const enum samrt_model_id models[2] = {SAMRT_MODEL_SAM2_1_TINY, SAMRT_MODEL_EDGETAM};
    for (int mi = 0; mi < 2; mi++) {
        const enum samrt_model_id m = models[mi];
        int64_t tr_elems = 0, trunk_elems = 0;
        const int n_tr_keys = key_count(m, in_f32_decoder, &tr_elems);
        const int n_trunk = key_count(m, in_trunk, &trunk_elems);
        /* transformer: 2 layers x 36 + final attention 8 + final norm 2; upscaling LN2d 2;
         * hypernetworks 4 x 6; IoU head 6; object-score head 6 */
        CHECK_EQ_INT(n_tr_keys, 82 + 2 + 24 + 6 + 6);

        const struct tally bf = plan_tally(m, SAMRT_DTYPE_BF16);
        CHECK_EQ_INT(bf.n_tr, n_tr_keys + 1);                             /* + no_mask_embed */
        CHECK_EQ_INT(bf.tr_bytes, (uint64_t)(tr_elems + 256) * sizeof(float));
        const struct tally hf = plan_tally(m, SAMRT_DTYPE_F16);
        const struct tally f32 = plan_tally(m, SAMRT_DTYPE_F32);
        CHECK_EQ_INT(hf.n_tr, 0);
        CHECK_EQ_INT(f32.n_tr, 0);
        /* the packed transposed convolutions: f32 in bf16 runs, half the bytes in fp16 */
        CHECK(f32.up_bytes > 0);
        CHECK_EQ_INT(bf.up_bytes, f32.up_bytes);
        CHECK_EQ_INT(2 * hf.up_bytes, f32.up_bytes);

        /* released trunk slots: EdgeTAM's folded convs and BatchNorms, at every precision */
        const int want = m == SAMRT_MODEL_EDGETAM ? n_trunk : 0;
        CHECK(m != SAMRT_MODEL_EDGETAM || n_trunk > 100);
        const struct tally *all[3] = {&bf, &hf, &f32};
        for (int k = 0; k < 3; k++) {
            CHECK_EQ_INT(all[k]->n_trunk_released, want);
            CHECK_EQ_INT(all[k]->n_released, want);
        }
        /* RepViT-M1: each folded conv keeps 4 x c_out f32 values (64-element aligned); at least
         * the 4 x (2 x 48 stem + ...) of its 106 ConvNorms, at most 4x their channel sum padded */
        /* the perceiver in f32 in bf16 runs: one f32 copy of each of its float tensors */
        int64_t perc_elems = 0;
        const int n_perc = key_count(m, in_perceiver, &perc_elems);
        if (m == SAMRT_MODEL_EDGETAM) {
            CHECK_MSG(bf.bn_bytes > 100000 && bf.bn_bytes < 2000000, "bf16 BatchNorm slot %llu bytes",
                      (unsigned long long)bf.bn_bytes);
            CHECK_EQ_INT(hf.bn_bytes, 0);
            CHECK_EQ_INT(f32.bn_bytes, 0);
            CHECK_EQ_INT(n_perc, 44);  /* 2 layers x 20 + latents, latents_2d, norm weight and bias */
            CHECK_EQ_INT(bf.n_perc, n_perc);
            CHECK_EQ_INT(bf.perc_bytes, (uint64_t)perc_elems * sizeof(float));
        } else {
            CHECK_EQ_INT(bf.bn_bytes, 0);
            CHECK_EQ_INT(bf.n_perc, 0);
        }
        CHECK_EQ_INT(hf.n_perc, 0);
        CHECK_EQ_INT(f32.n_perc, 0);
        printf("%s: bf16 plans %d f32 decoder tensors (%.2f MiB), fp16/f32 none; %d trunk weights released; "
               "bf16 BatchNorm slot %.1f KiB, %d f32 perceiver tensors (%.2f MiB)\n",
               samrt_model_name(m), bf.n_tr, (double)bf.tr_bytes / (1 << 20), bf.n_trunk_released,
               (double)bf.bn_bytes / 1024, bf.n_perc, (double)bf.perc_bytes / (1 << 20));
    }
    return check_report("test_plan_precision");
}
