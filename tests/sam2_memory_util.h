/* sam2_memory_util.h - a memory-path-only engine for the tests of SAM 2.1's memory encoder and
 * memory attention (tests/test_sam2_memory*.c) and EdgeTAM's (tests/test_edgetam_memory*.c:
 * mu_rig_init_ex with edgetam 1: perceiver after the memory encoder, 512-token memories):
 * seeded random weights under the official key names (model-spec 5.2, written out here
 * independently of the binding code) or the tensors of an official dump, persistent input
 * slots, and a list of passes (memory encoder with or without binarize, memory attention per
 * (memories, pointers) count, the perceiver) each planned on its own op context, as the
 * tracker plans them.
 * Header-only; builds on the weight table helpers of sam2_heads_util.h. */
#ifndef SAMRT_TEST_SAM2_MEMORY_UTIL_H
#define SAMRT_TEST_SAM2_MEMORY_UTIL_H

#include "check.h"
#include "memory_attention.h"
#include "perceiver.h"
#include "sam2_heads_util.h"

/* ---- weights ----------------------------------------------------------------------------------- */

/* Every tensor the memory path reads. */
static inline void mu_make_weights(struct hu_weights *w, uint64_t seed) {
    memset(w, 0, sizeof *w);
    w->seed = seed;
    char p[160];
    static const int64_t ch[5] = {1, 4, 16, 64, 256};
    const char *ds = "memory_encoder.mask_downsampler.encoder";
    for (int i = 0; i < 4; i++) {
        const float a = 1.0f / sqrtf((float)(ch[i] * 9));
        hu_add(w, -a, a, 4, HU_SHAPE(ch[i + 1], ch[i], 3, 3), "%s.%d.weight", ds, 3 * i);
        hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(ch[i + 1]), "%s.%d.bias", ds, 3 * i);
        snprintf(p, sizeof p, "%s.%d", ds, 3 * i + 1);
        hu_norm(w, ch[i + 1], p);
    }
    hu_add(w, -0.0625f, 0.0625f, 4, HU_SHAPE(256, 256, 1, 1), "%s.12.weight", ds);
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(256), "%s.12.bias", ds);
    hu_add(w, -0.0625f, 0.0625f, 4, HU_SHAPE(256, 256, 1, 1), "memory_encoder.pix_feat_proj.weight");
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(256), "memory_encoder.pix_feat_proj.bias");
    for (int l = 0; l < 2; l++) {
        const char *f = "memory_encoder.fuser.layers";
        hu_add(w, -0.14f, 0.14f, 4, HU_SHAPE(256, 1, 7, 7), "%s.%d.dwconv.weight", f, l);
        hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(256), "%s.%d.dwconv.bias", f, l);
        snprintf(p, sizeof p, "%s.%d.norm", f, l);
        hu_norm(w, 256, p);
        snprintf(p, sizeof p, "%s.%d.pwconv1", f, l);
        hu_linear(w, 1024, 256, p);
        snprintf(p, sizeof p, "%s.%d.pwconv2", f, l);
        hu_linear(w, 256, 1024, p);
        hu_add(w, 0.1f, 0.2f, 1, HU_SHAPE(256), "%s.%d.gamma", f, l);
    }
    hu_add(w, -0.0625f, 0.0625f, 4, HU_SHAPE(64, 256, 1, 1), "memory_encoder.out_proj.weight");
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(64), "memory_encoder.out_proj.bias");
    hu_add(w, -1, 1, 2, HU_SHAPE(1, 64), "no_obj_embed_spatial");
    static const char *proj[4] = {"q_proj", "k_proj", "v_proj", "out_proj"};
    for (int l = 0; l < SAMRT_SAM2_MA_LAYERS; l++) {
        for (int i = 0; i < 4; i++) {
            snprintf(p, sizeof p, "memory_attention.layers.%d.self_attn.%s", l, proj[i]);
            hu_linear(w, 256, 256, p);
            snprintf(p, sizeof p, "memory_attention.layers.%d.cross_attn_image.%s", l, proj[i]);
            hu_linear(w, 256, i == 1 || i == 2 ? 64 : 256, p);
        }
        snprintf(p, sizeof p, "memory_attention.layers.%d.linear1", l);
        hu_linear(w, 2048, 256, p);
        snprintf(p, sizeof p, "memory_attention.layers.%d.linear2", l);
        hu_linear(w, 256, 2048, p);
        for (int k = 1; k <= 3; k++) {
            snprintf(p, sizeof p, "memory_attention.layers.%d.norm%d", l, k);
            hu_norm(w, 256, p);
        }
    }
    hu_norm(w, 256, "memory_attention.norm");
    hu_linear(w, 64, 256, "obj_ptr_tpos_proj");
    hu_add(w, -0.5f, 0.5f, 4, HU_SHAPE(7, 1, 1, 64), "maskmem_tpos_enc");
}

/* EdgeTAM's spatial_perceiver.* (model-spec 5.3), added to a table of mu_make_weights. */
static inline void mu_make_perceiver_weights(struct hu_weights *w) {
    char p[128];
    const float a = 0.125f;  /* 1/sqrt(64) */
    for (int l = 0; l < SAMRT_EDGETAM_PERC_DEPTH; l++) {
        static const char *norms[5] = {"attn.norm_x", "attn.norm_latents", "ff.0", "self_attn.norm", "self_ff.0"};
        for (int k = 0; k < 5; k++) {
            snprintf(p, sizeof p, "spatial_perceiver.layers.%d.%s", l, norms[k]);
            hu_norm(w, 64, p);
        }
        static const char *att[2] = {"attn", "self_attn"};
        for (int k = 0; k < 2; k++) {
            hu_add(w, -a, a, 2, HU_SHAPE(64, 64), "spatial_perceiver.layers.%d.%s.to_q.weight", l, att[k]);
            hu_add(w, -a, a, 2, HU_SHAPE(128, 64), "spatial_perceiver.layers.%d.%s.to_kv.weight", l, att[k]);
            hu_add(w, -a, a, 2, HU_SHAPE(64, 64), "spatial_perceiver.layers.%d.%s.to_out.weight", l, att[k]);
        }
        static const char *ffs[2] = {"ff", "self_ff"};
        for (int k = 0; k < 2; k++) {
            hu_add(w, -a, a, 2, HU_SHAPE(256, 64), "spatial_perceiver.layers.%d.%s.1.weight", l, ffs[k]);
            hu_add(w, -a / 2, a / 2, 2, HU_SHAPE(64, 256), "spatial_perceiver.layers.%d.%s.3.weight", l, ffs[k]);
        }
    }
    hu_add(w, -1.5f, 1.5f, 2, HU_SHAPE(256, 64), "spatial_perceiver.latents");
    hu_add(w, -1.5f, 1.5f, 2, HU_SHAPE(256, 64), "spatial_perceiver.latents_2d");
    hu_norm(w, 64, "spatial_perceiver.norm");
}

/* The weights of an official dump: every tensor whose name has none of the case prefixes. */
static inline int mu_weights_from_ckpt(struct hu_weights *w, const struct samrt_ckpt *ck) {
    memset(w, 0, sizeof *w);
    for (int i = 0; i < ck->n_tensors; i++) {
        const struct samrt_ckpt_tensor *ct = &ck->tensors[i];
        if (!strncmp(ct->name, "memenc.", 7) || !strncmp(ct->name, "memattn.", 8)) continue;
        if (w->n >= HU_MAX_KEYS) return -1;
        struct hu_tensor *t = &w->t[w->n++];
        snprintf(t->name, sizeof t->name, "%s", ct->name);
        t->n_dims = ct->n_dims;
        t->n = ct->nelements;
        for (int d = 0; d < ct->n_dims; d++) t->ne[d] = ct->ne[d];
        t->v = malloc(sizeof(float) * (size_t)t->n);
        if (samrt_ckpt_read(ck, ct, SAMRT_DTYPE_F32, t->v, sizeof(float) * (size_t)t->n) != SAMRT_OK) return -1;
    }
    return 0;
}

/* ---- the rig ----------------------------------------------------------------------------------- */

enum mu_kind { MU_ENC, MU_ENC_BIN, MU_ATT, MU_PERC /* EdgeTAM: feat -> perc_out */ };

struct mu_pass {
    enum mu_kind kind;
    int n_mem, n_ptr;          /* MU_ATT: counts */
};

#define MU_MAX_PASSES 12

struct mu_rig {
    struct samrt_engine e;
    struct samrt_arena_slot *slots;
    struct samrt_exec *ex[MU_MAX_PASSES];
    struct samrt_op_ctx c[MU_MAX_PASSES];
    struct mu_pass pass[MU_MAX_PASSES];
    int n_pass;
    struct samrt_sam2_memenc me;
    struct samrt_sam2_memattn ma;
    struct samrt_edgetam_perceiver pc;  /* edgetam only */
    int edgetam;
    int side, g, B;
    int64_t n;
    int64_t n_mem_tok;             /* tokens per stored memory: g*g, or 512 (EdgeTAM) */
    struct samrt_tensor feat, perc_out;  /* edgetam: (B, g*g, 64) perceiver input, (B, 512, 64) output */
    /* persistent inputs / outputs */
    struct samrt_tensor vision, low_res, score, mem_out, curr, curr_pos, ptr;
    struct samrt_tensor mem[SAMRT_SAM2_MAX_MEM];
    int n_slots_used;
    int slot_of[64];
    struct samrt_tensor *slot_t[64];
    int max_mem, max_ptr;
    struct samrt_tensor att_out;   /* the last memory attention output (RUN) */
    void *pool, *ws;
#ifdef SAMRT_HAVE_CUDA
    struct samrt_gpu_ctx gpu;
#endif
};

static inline int mu_persist(struct mu_rig *r, const char *name, enum samrt_dtype dt, int n_dims, const int64_t *ne,
                             struct samrt_tensor *t) {
    int k = r->n_slots_used++;
    r->slot_t[k] = t;
    return samrt_ctx_persistent(&r->c[0], name, SAMRT_REGION_STAGING, dt, n_dims, ne, t, &r->slot_of[k]) == SAMRT_OK
               ? 0
               : -1;
}

static inline void mu_run_pass(struct mu_rig *r, int i) {
    struct samrt_op_ctx *c = &r->c[i];
    const struct mu_pass *p = &r->pass[i];
    const struct samrt_tensor *mp[SAMRT_SAM2_MAX_MEM];
    for (int j = 0; j < SAMRT_SAM2_MAX_MEM; j++) mp[j] = &r->mem[j];
    struct samrt_tensor ptr = r->ptr;
    ptr.ne[1] = p->n_ptr;  /* the first n_ptr rows of the (B, max_ptr, 256) slot */
    switch (p->kind) {
    case MU_ENC:
    case MU_ENC_BIN:
        if (r->edgetam)
            samrt_sam2_memenc_forward_perceiver(&r->pc, &r->me, c, &r->vision, &r->low_res,
                                                p->kind == MU_ENC_BIN, &r->mem_out);
        else
            samrt_sam2_memenc_forward(&r->me, c, &r->vision, &r->low_res, &r->score, p->kind == MU_ENC_BIN,
                                      &r->mem_out);
        break;
    case MU_PERC: {
        struct samrt_tensor o = samrt_edgetam_perceiver_forward(&r->pc, c, &r->feat);
        samrt_op_copy_into(c, &o, NULL, &r->perc_out);
        break;
    }
    case MU_ATT:
        r->att_out = samrt_sam2_memattn_forward(&r->ma, c, &r->curr, &r->curr_pos, p->n_mem, mp, p->n_ptr,
                                                p->n_ptr ? &ptr : NULL);
        break;
    }
}

/* Binds, plans every pass, commits and prepares. wdata[i]: tensor i of w placed in dt (host
 * memory for the CPU backend, device memory for CUDA). edgetam 1: EdgeTAM's memory attention
 * config and the perceiver (the weights must hold spatial_perceiver.*). 0 on success. */
static inline int mu_rig_init_ex(struct mu_rig *r, struct hu_weights *w, void **wdata, enum samrt_backend be,
                                 enum samrt_dtype dt, int side, int b_max, int max_mem, int max_ptr,
                                 const struct mu_pass *passes, int n_pass, int edgetam) {
    memset(r, 0, sizeof *r);
    r->edgetam = edgetam;
    r->side = side, r->g = side / 16, r->B = b_max, r->n = (int64_t)r->g * r->g;
    r->max_mem = max_mem, r->max_ptr = max_ptr, r->n_pass = n_pass;
    memcpy(r->pass, passes, sizeof *passes * (size_t)n_pass);
    r->e.mem_kind = be == SAMRT_BACKEND_CPU ? SAMRT_MEM_HOST : SAMRT_MEM_DEVICE;
    void *nulls[HU_MAX_KEYS] = {0};
    hu_bind_engine(w, &r->e, dt, nulls);
    r->slots = calloc(HU_SLOTS, sizeof *r->slots);
    samrt_plan_init(&r->e.plan, r->slots, HU_SLOTS);
    const void *gpu = NULL;
#ifdef SAMRT_HAVE_CUDA
    if (be == SAMRT_BACKEND_CUDA) {
        if (samrt_gpu_ctx_init(0, &r->gpu) != SAMRT_OK) return -1;
        gpu = &r->gpu;
    }
#endif
    for (int i = 0; i < n_pass; i++) {
        r->ex[i] = calloc(1, sizeof *r->ex[i]);
#ifdef SAMRT_HAVE_CUDA
        if (samrt_ctx_init_backend(&r->c[i], be, dt, (const struct samrt_gpu_ctx *)gpu, r->ex[i], &r->e.plan) != SAMRT_OK)
            return -1;
#else
        if (samrt_ctx_init_backend(&r->c[i], be, dt, gpu, r->ex[i], &r->e.plan) != SAMRT_OK) return -1;
#endif
        r->c[i].ws_lt_bytes = r->c[i].ws_dnn_bytes = be == SAMRT_BACKEND_CUDA ? HU_WS_BYTES : 0;
    }
    const struct samrt_sam2_memenc_config ec = {side, b_max, dt};
    struct samrt_sam2_memattn_config ac = samrt_sam2_memattn_config_edgetam(side, b_max, max_mem, max_ptr, dt);
    if (!edgetam) ac.n_layers = ac.mem_latents = ac.mem_grid = ac.no_ptr_tpos = 0;  /* SAM 2.1 */
    const struct samrt_edgetam_perceiver_config pcfg = {side, b_max, dt};
    if (samrt_sam2_memenc_bind(&r->me, &ec, samrt_engine_env(&r->e)) != SAMRT_OK) return -1;
    if (samrt_sam2_memattn_bind(&r->ma, &ac, samrt_engine_env(&r->e)) != SAMRT_OK) return -1;
    if (edgetam && samrt_edgetam_perceiver_bind(&r->pc, &pcfg, samrt_engine_env(&r->e)) != SAMRT_OK) return -1;
    if (samrt_sam2_memenc_plan(&r->me, &r->c[0]) != SAMRT_OK) return -1;
    if (samrt_sam2_memattn_plan(&r->ma, &r->c[0]) != SAMRT_OK) return -1;
    if (edgetam && samrt_edgetam_perceiver_plan(&r->pc, &r->c[0]) != SAMRT_OK) return -1;
    const int64_t B = b_max, n = r->n, l = 4 * r->g, nm = r->n_mem_tok = r->ma.n_mem_tok;
    int rc = 0;
    rc |= mu_persist(r, "t.vision", dt, 3, HU_SHAPE(1, n, 256), &r->vision);
    rc |= mu_persist(r, "t.low_res", SAMRT_DTYPE_F32, 4, HU_SHAPE(B, 1, l, l), &r->low_res);
    rc |= mu_persist(r, "t.score", SAMRT_DTYPE_F32, 2, HU_SHAPE(B, 1), &r->score);
    rc |= mu_persist(r, "t.mem_out", SAMRT_DTYPE_BF16, 3, HU_SHAPE(B, nm, 64), &r->mem_out);
    if (edgetam) {
        rc |= mu_persist(r, "t.feat", dt, 3, HU_SHAPE(B, n, 64), &r->feat);
        rc |= mu_persist(r, "t.perc_out", dt, 3, HU_SHAPE(B, nm, 64), &r->perc_out);
    }
    rc |= mu_persist(r, "t.curr", dt, 3, HU_SHAPE(1, n, 256), &r->curr);
    rc |= mu_persist(r, "t.curr_pos", dt, 3, HU_SHAPE(1, n, 256), &r->curr_pos);
    rc |= mu_persist(r, "t.ptr", SAMRT_DTYPE_F32, 3, HU_SHAPE(B, SAMRT_MAX(max_ptr, 1), 256), &r->ptr);
    for (int j = 0; j < max_mem; j++)
        rc |= mu_persist(r, "t.mem", SAMRT_DTYPE_BF16, 3, HU_SHAPE(B, nm, 64), &r->mem[j]);
    if (rc) return -1;
    for (int i = 0; i < n_pass; i++) {
        samrt_ctx_begin(&r->c[i], SAMRT_EXEC_PLAN, NULL);
        mu_run_pass(r, i);
        if (samrt_ctx_end(&r->c[i]) != SAMRT_OK) return -1;
    }
    if (samrt_plan_finalize(&r->e.plan) != SAMRT_OK) return -1;
    const uint64_t bytes = r->e.plan.total_bytes;
#ifdef SAMRT_HAVE_CUDA
    if (be == SAMRT_BACKEND_CUDA) {
        if (cudaMalloc(&r->pool, bytes) != cudaSuccess || cudaMalloc(&r->ws, HU_WS_BYTES) != cudaSuccess) return -1;
        cudaMemset(r->pool, 0xFF, bytes);  /* NaN poison: an unwritten scratch read shows up */
    }
#endif
    if (be == SAMRT_BACKEND_CPU) r->pool = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(bytes, SAMRT_ALIGN));
    if (!r->pool || samrt_arena_commit(&r->e.arena, &r->e.plan, r->pool, bytes) != SAMRT_OK) return -1;
    for (int k = 0; k < r->n_slots_used; k++) r->slot_t[k]->data = samrt_arena_ptr(&r->e.arena, r->slot_of[k]);
    for (int i = 0; i < w->n; i++) {
        const struct hu_tensor *t = (const struct hu_tensor *)(w->items[i].name - offsetof(struct hu_tensor, name));
        w->items[i].t.data = wdata[t - w->t];
    }
    for (int i = 0; i < n_pass; i++) r->c[i].ws_lt = r->c[i].ws_dnn = r->ws;
    if (samrt_sam2_memenc_prepare(&r->me, samrt_engine_env(&r->e)) != SAMRT_OK) return -1;
    if (edgetam && samrt_edgetam_perceiver_prepare(&r->pc, samrt_engine_env(&r->e), &w->ck) != SAMRT_OK) return -1;
    return samrt_sam2_memattn_prepare(&r->ma, samrt_engine_env(&r->e), &w->ck) == SAMRT_OK ? 0 : -1;
}

static inline int mu_rig_init(struct mu_rig *r, struct hu_weights *w, void **wdata, enum samrt_backend be,
                              enum samrt_dtype dt, int side, int b_max, int max_mem, int max_ptr,
                              const struct mu_pass *passes, int n_pass) {
    return mu_rig_init_ex(r, w, wdata, be, dt, side, b_max, max_mem, max_ptr, passes, n_pass, 0);
}

/* Host bytes -> a slot (upload). */
static inline int mu_put(struct mu_rig *r, const struct samrt_tensor *t, const void *src, size_t bytes) {
    return samrt_platform_mem_upload(r->e.mem_kind, t->data, src, bytes) == SAMRT_OK ? 0 : -1;
}

/* n f32 values into a slot of dtype dt. */
static inline int mu_put_f32(struct mu_rig *r, const struct samrt_tensor *t, const float *src, size_t n) {
    void *tmp = malloc(n * 4);
    tu_store(t->dtype, tmp, src, (long)n);
    int rc = mu_put(r, t, tmp, n * samrt_dtype_size(t->dtype));
    free(tmp);
    return rc;
}

/* One RUN pass. 0 on success. */
static inline int mu_run(struct mu_rig *r, int i) {
    samrt_ctx_begin(&r->c[i], SAMRT_EXEC_RUN, &r->e.arena);
    mu_run_pass(r, i);
    if (samrt_ctx_end(&r->c[i]) != SAMRT_OK) return -1;
#ifdef SAMRT_HAVE_CUDA
    if (r->c[i].backend == SAMRT_BACKEND_CUDA && cudaDeviceSynchronize() != cudaSuccess) return -1;
#endif
    return 0;
}

/* n elements of t (its dtype) -> f32 host. */
static inline int mu_get_f32(struct mu_rig *r, const struct samrt_tensor *t, float *dst, size_t n) {
    const size_t bytes = n * samrt_dtype_size(t->dtype);
    void *tmp = malloc(bytes);
    int rc = samrt_ctx_fetch(&r->c[0], tmp, t->data, bytes) != SAMRT_OK;
    tu_load(t->dtype, dst, tmp, (long)n);
    free(tmp);
    return rc ? -1 : 0;
}

static inline void mu_rig_free(struct mu_rig *r) {
    samrt_sam2_memattn_free(&r->ma);
    for (int i = 0; i < r->n_pass; i++) {
        samrt_ctx_free(&r->c[i]);
        free(r->ex[i]);
    }
#ifdef SAMRT_HAVE_CUDA
    if (r->e.mem_kind == SAMRT_MEM_DEVICE) {
        cudaFree(r->pool);
        cudaFree(r->ws);
        samrt_gpu_ctx_free(&r->gpu);
    } else
#endif
        free(r->pool);
    free(r->slots);
}

/* Stored memories: |got - want| <= 1 bf16 ulp of want + rel of the max elementwise (a value
 * that lands near a bf16 rounding boundary may round either way), and at most 1% differ. */
static inline void mu_check_bf16(const char *what, const float *got, const float *want, int64_t n, double rel) {
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs((double)want[i]));
    const double floor_tol = rel * m;
    int64_t bad = 0, off_by_ulp = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = fabs((double)got[i] - want[i]);
        const double ulp = want[i] != 0 ? ldexp(1.0, ilogb(want[i]) - 7) : 0;
        if (d > 0) off_by_ulp++;
        if (!(d <= ulp + floor_tol)) {
            if (bad < 5) fprintf(stderr, "  %s[%lld]: got %.9g want %.9g\n", what, (long long)i, got[i], want[i]);
            bad++;
        }
    }
    printf("%s: %lld of %lld bf16 values differ, %lld beyond 1 ulp\n", what, (long long)off_by_ulp, (long long)n,
           (long long)bad);
    CHECK_MSG(bad == 0, "%s: %lld values beyond 1 bf16 ulp", what, (long long)bad);
    CHECK_MSG(off_by_ulp * 100 <= n, "%s: %lld values differ (more than 1%%)", what, (long long)off_by_ulp);
}

#endif /* SAMRT_TEST_SAM2_MEMORY_UTIL_H */
