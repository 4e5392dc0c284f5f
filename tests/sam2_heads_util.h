/* sam2_heads_util.h - seeded random weights for SAM 2.1's prompt encoder, mask decoder and
 * object-pointer head under their official key names (model-spec 5.2, written out here
 * independently of the binding code), served two ways: as an in-memory safetensors
 * checkpoint (samrt_ckpt_open_mem) for the prepare step, and as an engine weight table whose
 * tensors point at caller-placed copies. Header-only, for tests/test_sam2_decoder*.c.
 *
 * Scales: Linear weights U(-1/sqrt(in), 1/sqrt(in)), biases U(-0.1, 0.1), norm weights
 * 1 + U(-0.1, 0.1), embeddings U(-1, 1), the Fourier matrix U(-2, 2). */
#ifndef SAMRT_TEST_SAM2_HEADS_UTIL_H
#define SAMRT_TEST_SAM2_HEADS_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt.h"
#include "engine_impl.h"
#include "mask_decoder.h"
#include "test_util.h"

#define HU_MAX_KEYS 256

struct hu_tensor {
    char name[112];
    int n_dims;
    int64_t ne[4];
    int64_t n;
    float *v;                     /* host f32 values */
};

struct hu_weights {
    struct hu_tensor t[HU_MAX_KEYS];
    int n;
    uint64_t seed;
    uint8_t *blob;                /* safetensors image */
    struct samrt_ckpt ck;
    struct samrt_weight items[HU_MAX_KEYS];
};

static inline struct hu_tensor *hu_add(struct hu_weights *w, float lo, float hi, int n_dims, const int64_t *ne,
                                       const char *fmt, ...) {
    struct hu_tensor *t = &w->t[w->n++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->name, sizeof t->name, fmt, ap);
    va_end(ap);
    t->n_dims = n_dims;
    t->n = 1;
    for (int d = 0; d < n_dims; d++) t->n *= (t->ne[d] = ne[d]);
    t->v = malloc(sizeof(float) * (size_t)t->n);
    tu_fill_uniform(t->v, (long)t->n, w->seed + (uint64_t)w->n * 7919u, lo, hi);
    return t;
}

#define HU_SHAPE(...) ((const int64_t[]){__VA_ARGS__})

static inline void hu_linear(struct hu_weights *w, int64_t out, int64_t in, const char *prefix) {
    const float a = 1.0f / sqrtf((float)in);
    hu_add(w, -a, a, 2, HU_SHAPE(out, in), "%s.weight", prefix);
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(out), "%s.bias", prefix);
}

static inline void hu_norm(struct hu_weights *w, int64_t c, const char *prefix) {
    hu_add(w, 0.9f, 1.1f, 1, HU_SHAPE(c), "%s.weight", prefix);
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(c), "%s.bias", prefix);
}

static inline void hu_mlp3(struct hu_weights *w, int64_t out, const char *prefix) {
    char p[160];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s.layers.%d", prefix, i);
        hu_linear(w, i == 2 ? out : 256, 256, p);
    }
}

static inline void hu_attn(struct hu_weights *w, int64_t c, const char *prefix) {
    static const char *names[3] = {"q_proj", "k_proj", "v_proj"};
    char p[160];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s.%s", prefix, names[i]);
        hu_linear(w, c, 256, p);
    }
    snprintf(p, sizeof p, "%s.out_proj", prefix);
    hu_linear(w, 256, c, p);
}

/* Every tensor the SAM heads read. */
static inline void hu_make_heads(struct hu_weights *w, uint64_t seed) {
    memset(w, 0, sizeof *w);
    w->seed = seed;
    char p[160];
    const char *pe = "sam_prompt_encoder";
    hu_add(w, -2.0f, 2.0f, 2, HU_SHAPE(2, 128), "%s.pe_layer.positional_encoding_gaussian_matrix", pe);
    for (int k = 0; k < 4; k++) hu_add(w, -1, 1, 2, HU_SHAPE(1, 256), "%s.point_embeddings.%d.weight", pe, k);
    hu_add(w, -1, 1, 2, HU_SHAPE(1, 256), "%s.not_a_point_embed.weight", pe);
    hu_add(w, -1, 1, 2, HU_SHAPE(1, 256), "%s.no_mask_embed.weight", pe);
    hu_add(w, -0.5f, 0.5f, 4, HU_SHAPE(4, 1, 2, 2), "%s.mask_downscaling.0.weight", pe);
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(4), "%s.mask_downscaling.0.bias", pe);
    snprintf(p, sizeof p, "%s.mask_downscaling.1", pe);
    hu_norm(w, 4, p);
    hu_add(w, -0.25f, 0.25f, 4, HU_SHAPE(16, 4, 2, 2), "%s.mask_downscaling.3.weight", pe);
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(16), "%s.mask_downscaling.3.bias", pe);
    snprintf(p, sizeof p, "%s.mask_downscaling.4", pe);
    hu_norm(w, 16, p);
    hu_add(w, -0.25f, 0.25f, 4, HU_SHAPE(256, 16, 1, 1), "%s.mask_downscaling.6.weight", pe);
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(256), "%s.mask_downscaling.6.bias", pe);

    const char *tr = "sam_mask_decoder.transformer";
    for (int l = 0; l < 2; l++) {
        snprintf(p, sizeof p, "%s.layers.%d.self_attn", tr, l);
        hu_attn(w, 256, p);
        snprintf(p, sizeof p, "%s.layers.%d.cross_attn_token_to_image", tr, l);
        hu_attn(w, 128, p);
        snprintf(p, sizeof p, "%s.layers.%d.cross_attn_image_to_token", tr, l);
        hu_attn(w, 128, p);
        snprintf(p, sizeof p, "%s.layers.%d.mlp.layers.0", tr, l);
        hu_linear(w, 2048, 256, p);
        snprintf(p, sizeof p, "%s.layers.%d.mlp.layers.1", tr, l);
        hu_linear(w, 256, 2048, p);
        for (int n = 1; n <= 4; n++) {
            snprintf(p, sizeof p, "%s.layers.%d.norm%d", tr, l, n);
            hu_norm(w, 256, p);
        }
    }
    snprintf(p, sizeof p, "%s.final_attn_token_to_image", tr);
    hu_attn(w, 128, p);
    snprintf(p, sizeof p, "%s.norm_final_attn", tr);
    hu_norm(w, 256, p);
    const char *md = "sam_mask_decoder";
    hu_add(w, -1, 1, 2, HU_SHAPE(1, 256), "%s.iou_token.weight", md);
    hu_add(w, -1, 1, 2, HU_SHAPE(4, 256), "%s.mask_tokens.weight", md);
    hu_add(w, -1, 1, 2, HU_SHAPE(1, 256), "%s.obj_score_token.weight", md);
    hu_add(w, -0.0625f, 0.0625f, 4, HU_SHAPE(256, 64, 2, 2), "%s.output_upscaling.0.weight", md);
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(64), "%s.output_upscaling.0.bias", md);
    snprintf(p, sizeof p, "%s.output_upscaling.1", md);
    hu_norm(w, 64, p);
    hu_add(w, -0.125f, 0.125f, 4, HU_SHAPE(64, 32, 2, 2), "%s.output_upscaling.3.weight", md);
    hu_add(w, -0.1f, 0.1f, 1, HU_SHAPE(32), "%s.output_upscaling.3.bias", md);
    for (int k = 0; k < 4; k++) {
        snprintf(p, sizeof p, "%s.output_hypernetworks_mlps.%d", md, k);
        hu_mlp3(w, 32, p);
    }
    snprintf(p, sizeof p, "%s.iou_prediction_head", md);
    hu_mlp3(w, 4, p);
    snprintf(p, sizeof p, "%s.pred_obj_score_head", md);
    hu_mlp3(w, 1, p);
    hu_mlp3(w, 256, "obj_ptr_proj");
    hu_add(w, -1, 1, 2, HU_SHAPE(1, 256), "no_obj_ptr");
    hu_add(w, -1, 1, 3, HU_SHAPE(1, 1, 256), "no_mem_embed");
}

static inline struct hu_tensor *hu_find(struct hu_weights *w, const char *fmt, ...) {
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    for (int i = 0; i < w->n; i++)
        if (!strcmp(w->t[i].name, name)) return &w->t[i];
    fprintf(stderr, "hu_find: no tensor %s\n", name);
    abort();
}

/* Writes the safetensors image of every tensor (F32) and opens it. 0 on success. */
static inline int hu_open_ckpt(struct hu_weights *w) {
    size_t hcap = (size_t)w->n * 200 + 16, hlen = 0, data = 0;
    char *hdr = malloc(hcap);
    hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "{");
    for (int i = 0; i < w->n; i++) {
        const struct hu_tensor *t = &w->t[i];
        hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[", i ? "," : "",
                                 t->name);
        for (int d = 0; d < t->n_dims; d++)
            hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "%s%lld", d ? "," : "", (long long)t->ne[d]);
        hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "],\"data_offsets\":[%zu,%zu]}", data,
                                 data + 4 * (size_t)t->n);
        data += 4 * (size_t)t->n;
    }
    hlen += (size_t)snprintf(hdr + hlen, hcap - hlen, "}");
    while (hlen % 8) hdr[hlen++] = ' ';
    w->blob = malloc(8 + hlen + data);
    uint64_t hl = hlen;
    memcpy(w->blob, &hl, 8);
    memcpy(w->blob + 8, hdr, hlen);
    size_t off = 8 + hlen;
    for (int i = 0; i < w->n; i++) {
        memcpy(w->blob + off, w->t[i].v, 4 * (size_t)w->t[i].n);
        off += 4 * (size_t)w->t[i].n;
    }
    free(hdr);
    return samrt_ckpt_open_mem(w->blob, off, &w->ck) == SAMRT_OK ? 0 : -1;
}

static int hu_cmp_item(const void *a, const void *b) {
    return strcmp(((const struct samrt_weight *)a)->name, ((const struct samrt_weight *)b)->name);
}

/* The engine's weight table: tensor i at data[i] in dtype (the caller placed the values). */
static inline void hu_bind_engine(struct hu_weights *w, struct samrt_engine *e, enum samrt_dtype dt, void **data) {
    for (int i = 0; i < w->n; i++) {
        w->items[i].name = w->t[i].name;
        w->items[i].slot = -1;
        w->items[i].t = samrt_tensor_make(data[i], dt, w->t[i].n_dims, w->t[i].ne);
    }
    qsort(w->items, (size_t)w->n, sizeof w->items[0], hu_cmp_item);
    e->weights.items = w->items;
    e->weights.n = w->n;
}

/* ---- a heads-only engine: plan, commit, prepare, run --------------------------------------- */

#define HU_SLOTS 4096
#define HU_WS_BYTES ((size_t)32 << 20)

struct hu_rig {
    struct samrt_engine e;          /* only weights, plan, arena and mem_kind are used */
    struct samrt_arena_slot *slots;
    struct samrt_exec *ex;
    struct samrt_op_ctx c;
    struct samrt_sam2_heads h;
    void *pool;
    void *ws;
#ifdef SAMRT_HAVE_CUDA
    struct samrt_gpu_ctx gpu;
#endif
};

/* Host copies of the outputs of one run. */
struct hu_result {
    float *all_masks;               /* (B, 4, P) */
    float iou[SAMRT_SAM2_MAX_OBJ][4], score[SAMRT_SAM2_MAX_OBJ];
    float *low_res;                 /* (B, P) */
    float res[SAMRT_SAM2_MAX_OBJ][SAMRT_SAM2_RES_COLS];
    float *ptr;                     /* (B, 256) */
};

/* Plans and prepares the heads over w for cfg. wdata[i]: tensor i of w placed in cfg->dtype
 * (host memory for the CPU backend, device memory for CUDA); image / feat_s0 / feat_s1 are
 * the inputs at their final addresses. Returns 0 on success. */
static inline int hu_rig_init(struct hu_rig *r, struct hu_weights *w, void **wdata, enum samrt_backend be,
                              const struct samrt_sam2_heads_config *cfg, const struct samrt_tensor *image,
                              const struct samrt_tensor *f0, const struct samrt_tensor *f1) {
    memset(r, 0, sizeof *r);
    r->e.mem_kind = be == SAMRT_BACKEND_CPU ? SAMRT_MEM_HOST : SAMRT_MEM_DEVICE;
    void *nulls[HU_MAX_KEYS] = {0};
    hu_bind_engine(w, &r->e, cfg->dtype, nulls);  /* PLAN mode sees weights without data */
    r->slots = calloc(HU_SLOTS, sizeof *r->slots);
    r->ex = calloc(1, sizeof *r->ex);
    samrt_plan_init(&r->e.plan, r->slots, HU_SLOTS);
    const void *gpu = NULL;
#ifdef SAMRT_HAVE_CUDA
    if (be == SAMRT_BACKEND_CUDA) {
        if (samrt_gpu_ctx_init(0, &r->gpu) != SAMRT_OK) return -1;
        gpu = &r->gpu;
    }
    if (samrt_ctx_init_backend(&r->c, be, cfg->dtype, (const struct samrt_gpu_ctx *)gpu, r->ex, &r->e.plan) != SAMRT_OK)
        return -1;
#else
    if (samrt_ctx_init_backend(&r->c, be, cfg->dtype, gpu, r->ex, &r->e.plan) != SAMRT_OK) return -1;
#endif
    r->c.ws_lt_bytes = r->c.ws_dnn_bytes = be == SAMRT_BACKEND_CUDA ? HU_WS_BYTES : 0;
    if (samrt_sam2_heads_bind(&r->h, cfg, samrt_engine_env(&r->e)) != SAMRT_OK) return -1;
    if (samrt_sam2_heads_plan(&r->h, &r->c) != SAMRT_OK) return -1;
    struct samrt_tensor pi = *image, p0 = *f0, p1 = *f1;
    pi.data = p0.data = p1.data = NULL;
    samrt_ctx_begin(&r->c, SAMRT_EXEC_PLAN, NULL);
    samrt_sam2_heads_forward(&r->h, &r->c, &pi, &p0, &p1);
    if (samrt_ctx_end(&r->c) != SAMRT_OK || samrt_plan_finalize(&r->e.plan) != SAMRT_OK) return -1;
    const uint64_t bytes = r->e.plan.total_bytes;
#ifdef SAMRT_HAVE_CUDA
    if (be == SAMRT_BACKEND_CUDA) {
        if (cudaMalloc(&r->pool, bytes) != cudaSuccess || cudaMalloc(&r->ws, HU_WS_BYTES) != cudaSuccess) return -1;
        cudaMemset(r->pool, 0, bytes);
    }
#endif
    if (be == SAMRT_BACKEND_CPU) r->pool = aligned_alloc(SAMRT_ALIGN, SAMRT_PAD(bytes, SAMRT_ALIGN));
    if (!r->pool || samrt_arena_commit(&r->e.arena, &r->e.plan, r->pool, bytes) != SAMRT_OK) return -1;
    for (int i = 0; i < w->n; i++) {  /* weights get their data, by name (the table is sorted) */
        const struct hu_tensor *t = (const struct hu_tensor *)(w->items[i].name - offsetof(struct hu_tensor, name));
        w->items[i].t.data = wdata[t - w->t];
    }
    r->c.ws_lt = r->c.ws_dnn = r->ws;
    return samrt_sam2_heads_prepare(&r->h, samrt_engine_env(&r->e), &w->ck) == SAMRT_OK ? 0 : -1;
}

/* One RUN pass; outputs copied into out (arrays allocated here; hu_result_free). 0 on success. */
static inline int hu_rig_run(struct hu_rig *r, const struct samrt_sam2_points *pts, int n_obj, int dynamic,
                             const struct samrt_tensor *image, const struct samrt_tensor *f0,
                             const struct samrt_tensor *f1, struct hu_result *out) {
    struct samrt_sam2_heads *h = &r->h;
    if (samrt_sam2_heads_set_prompts(h, &r->c, pts, n_obj, dynamic) != SAMRT_OK) return -1;
    samrt_ctx_begin(&r->c, SAMRT_EXEC_RUN, &r->e.arena);
    samrt_sam2_heads_forward(h, &r->c, image, f0, f1);
    if (samrt_ctx_end(&r->c) != SAMRT_OK) return -1;
#ifdef SAMRT_HAVE_CUDA
    if (r->c.backend == SAMRT_BACKEND_CUDA && cudaDeviceSynchronize() != cudaSuccess) return -1;
#endif
    const int64_t B = h->cfg.b_max, P = (int64_t)h->low * h->low;
    out->all_masks = malloc(sizeof(float) * (size_t)(B * 4 * P));
    out->low_res = malloc(sizeof(float) * (size_t)(B * P));
    out->ptr = malloc(sizeof(float) * (size_t)(B * 256));
    int rc = 0;
    rc |= samrt_ctx_fetch(&r->c, out->all_masks, h->all_masks.data, sizeof(float) * (size_t)(B * 4 * P)) != SAMRT_OK;
    rc |= samrt_ctx_fetch(&r->c, out->low_res, h->low_res.data, sizeof(float) * (size_t)(B * P)) != SAMRT_OK;
    rc |= samrt_ctx_fetch(&r->c, out->ptr, h->obj_ptr.data, sizeof(float) * (size_t)(B * 256)) != SAMRT_OK;
    rc |= samrt_ctx_fetch(&r->c, out->iou, h->all_iou.data, sizeof(float) * (size_t)(B * 4)) != SAMRT_OK;
    rc |= samrt_ctx_fetch(&r->c, out->score, h->score.data, sizeof(float) * (size_t)B) != SAMRT_OK;
    rc |= samrt_ctx_fetch(&r->c, out->res, h->result.data, sizeof(float) * (size_t)(B * SAMRT_SAM2_RES_COLS)) !=
          SAMRT_OK;
    return rc ? -1 : 0;
}

static inline void hu_result_free(struct hu_result *o) {
    free(o->all_masks);
    free(o->low_res);
    free(o->ptr);
}

static inline void hu_rig_free(struct hu_rig *r) {
    samrt_sam2_heads_free(&r->h);
    samrt_ctx_free(&r->c);
#ifdef SAMRT_HAVE_CUDA
    if (r->c.backend == SAMRT_BACKEND_CUDA) {
        cudaFree(r->pool);
        cudaFree(r->ws);
        samrt_gpu_ctx_free(&r->gpu);
    } else
#endif
        free(r->pool);
    free(r->slots);
    free(r->ex);
}

static inline void hu_free(struct hu_weights *w) {
    samrt_ckpt_close(&w->ck);
    free(w->blob);
    for (int i = 0; i < w->n; i++) free(w->t[i].v);
}

#endif /* SAMRT_TEST_SAM2_HEADS_UTIL_H */
