/* samrt_taps.c - the samrt side of the parity dumps: loads a checkpoint, encodes one JPEG
 * frame with the image encoder and writes the encoder's taps to one safetensors file, named
 * and laid out as tests/parity/dump_taps.py writes the official ones, so compare_taps.py
 * checks them against each other:
 *   tap.input (1,3,S,S); tap.trunk.patch_embed, tap.trunk.embed, tap.trunk.block.<i> NHWC
 *   (1,H,W,C); tap.trunk.out.<k>, tap.neck.feat.<i>, tap.neck.pos.<i>, tap.fpn.<0..2>,
 *   tap.fpn.pos.2 NCHW (1,C,H,W). Everything float32.
 * The frame goes through the same preprocessing as the official loader (Pillow-exact bicubic
 * resize to SxS, /255, ImageNet mean/std), computed by the C reference on the host and
 * uploaded to the engine's input slot. The engine picks its backend (CUDA for a GPU pool, the
 * CPU reference for --platform cpu, which is only practical with a small --imgsz). Taps are
 * copied out as the encoder produces them (the tap hook synchronises the stream), so this is
 * a debugging run, not a timed one.
 *
 * Usage:
 *   samrt_taps --ckpt tiny.pt --image frames/00000.jpg --out samrt_fp32.safetensors
 *              [--precision fp32|bf16|fp16] [--imgsz 1024] [--platform NAME]
 *   python3 tests/parity/compare_taps.py ref_fp32.safetensors samrt_fp32.safetensors
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"
#include "image_io.h"
#include "interp.h"
#include "resize_normalize.h"
#include "sam2.h"
#include "sine_pe.h"
#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define MAX_TAPS 160

struct tap {
    char name[48];
    int n_dims;
    int64_t ne[4];
    float *v;
};

struct taps {
    struct tap t[MAX_TAPS];
    int n;
    const struct samrt_engine *e;
    void *stream;
};

/* Names stored channels-last, as the official hooks see them (Hiera's NHWC trunk). */
static int keeps_nhwc(const char *name) {
    return !strcmp(name, "tap.trunk.patch_embed") || !strcmp(name, "tap.trunk.embed") ||
           !strncmp(name, "tap.trunk.block.", 16);
}

static struct tap *add_tap(struct taps *ts, const char *name, int n_dims, const int64_t *ne) {
    if (ts->n >= MAX_TAPS) return NULL;
    struct tap *t = &ts->t[ts->n];
    int64_t n = 1;
    for (int d = 0; d < n_dims; d++) n *= ne[d];
    t->v = malloc(sizeof(float) * (size_t)n);
    if (!t->v) return NULL;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = n_dims;
    memcpy(t->ne, ne, sizeof(int64_t) * (size_t)n_dims);
    ts->n++;
    return t;
}

/* Tap hook: download the view's byte span, gather in logical order, NHWC -> NCHW unless the
 * name stays channels-last. */
static enum samrt_status on_tap(void *user, const char *name, const struct samrt_tensor *v) {
    struct taps *ts = user;
    const size_t es = samrt_dtype_size(v->dtype);
    int64_t span = 1;
    for (int d = 0; d < v->n_dims; d++) span += (v->ne[d] - 1) * v->s[d];
    uint8_t *raw = malloc((size_t)span * es);
    if (!raw) return SAMRT_E_HOST_MEMORY;
#ifdef SAMRT_HAVE_CUDA
    if (ts->e->mem_kind != SAMRT_MEM_HOST) {
        if (cudaStreamSynchronize((cudaStream_t)ts->stream) != cudaSuccess ||
            cudaMemcpy(raw, v->data, (size_t)span * es, cudaMemcpyDeviceToHost) != cudaSuccess) {
            free(raw);
            return SAMRT_E_CUDA;
        }
    } else
#endif
        memcpy(raw, v->data, (size_t)span * es);
    const int to_nchw = v->n_dims == 4 && !keeps_nhwc(name) && strcmp(name, "tap.input");
    int64_t ne[4] = {1, 1, 1, 1}, s[4] = {0, 0, 0, 0};
    const int pad = 4 - v->n_dims;
    for (int d = 0; d < v->n_dims; d++) {
        ne[d + pad] = v->ne[d];
        s[d + pad] = v->s[d];
    }
    /* output order: NCHW walks (n, c, h, w) = source dims (0, 3, 1, 2) */
    const int order[4] = {0, to_nchw ? 3 : 1, to_nchw ? 1 : 2, to_nchw ? 2 : 3};
    const int64_t out_ne[4] = {ne[order[0]], ne[order[1]], ne[order[2]], ne[order[3]]};
    struct tap *t = add_tap(ts, name, v->n_dims == 4 ? 4 : v->n_dims, v->n_dims == 4 ? out_ne : v->ne);
    if (!t) {
        free(raw);
        return SAMRT_E_HOST_MEMORY;
    }
    int64_t k = 0, i[4];
    for (i[0] = 0; i[0] < out_ne[0]; i[0]++)
        for (i[1] = 0; i[1] < out_ne[1]; i[1]++)
            for (i[2] = 0; i[2] < out_ne[2]; i[2]++)
                for (i[3] = 0; i[3] < out_ne[3]; i[3]++) {
                    const int64_t off = i[0] * s[order[0]] + i[1] * s[order[1]] + i[2] * s[order[2]] + i[3] * s[order[3]];
                    t->v[k++] = samrt_ref_load(v->dtype, raw, (long)off);
                }
    free(raw);
    return SAMRT_OK;
}

/* The neck's sine position encodings (constants), NCHW f32. */
static enum samrt_status add_pos_taps(struct taps *ts, int imgsz) {
    for (int lvl = 0; lvl < 4; lvl++) {
        const int side = imgsz / (4 << lvl);
        const int64_t ne[4] = {1, 256, side, side};
        for (int alias = 0; alias < (lvl == 2 ? 2 : 1); alias++) {
            char name[48];
            snprintf(name, sizeof name, alias ? "tap.fpn.pos.%d" : "tap.neck.pos.%d", lvl);
            struct tap *t = add_tap(ts, name, 4, ne);
            if (!t) return SAMRT_E_HOST_MEMORY;
            const struct samrt_sine_pe_args a = {SAMRT_DTYPE_F32, 256, side, side, 0, t->v};
            SAMRT_TRY(samrt_sine_pe_ref(&a));
        }
    }
    return SAMRT_OK;
}

static enum samrt_status write_safetensors(const char *path, const struct taps *ts, const char *meta) {
    size_t cap = 4096 + (size_t)ts->n * 160, len = 0;
    char *h = malloc(cap);
    if (!h) return SAMRT_E_HOST_MEMORY;
    len += (size_t)snprintf(h + len, cap - len, "{\"__metadata__\":{%s}", meta);
    uint64_t off = 0;
    for (int i = 0; i < ts->n; i++) {
        const struct tap *t = &ts->t[i];
        int64_t n = 1;
        len += (size_t)snprintf(h + len, cap - len, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[", t->name);
        for (int d = 0; d < t->n_dims; d++) {
            len += (size_t)snprintf(h + len, cap - len, "%s%lld", d ? "," : "", (long long)t->ne[d]);
            n *= t->ne[d];
        }
        len += (size_t)snprintf(h + len, cap - len, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off,
                                (unsigned long long)(off + 4 * (uint64_t)n));
        off += 4 * (uint64_t)n;
    }
    len += (size_t)snprintf(h + len, cap - len, "}");
    while (len % 8) h[len++] = ' ';
    FILE *f = fopen(path, "wb");
    enum samrt_status st = f ? SAMRT_OK : SAMRT_E_IO;
    const uint64_t hl = len;
    if (st == SAMRT_OK && (fwrite(&hl, 8, 1, f) != 1 || fwrite(h, 1, len, f) != len)) st = SAMRT_E_IO;
    for (int i = 0; i < ts->n && st == SAMRT_OK; i++) {
        int64_t n = 1;
        for (int d = 0; d < ts->t[i].n_dims; d++) n *= ts->t[i].ne[d];
        if (fwrite(ts->t[i].v, 4, (size_t)n, f) != (size_t)n) st = SAMRT_E_IO;
    }
    if (f && fclose(f) != 0) st = SAMRT_E_IO;
    free(h);
    if (st != SAMRT_OK) SAMRT_LOG_ERROR("cannot write %s", path);
    return st;
}

/* Pillow-exact resize + normalisation on the host, into the engine's input slot. */
static enum samrt_status load_input(samrt_engine_t e, const char *image, int *w_out, int *h_out) {
    uint8_t *file = NULL;
    size_t cap = 0, size = 0;
    struct samrt_image_info info;
    SAMRT_TRY(samrt_file_read(image, &file, &cap, &size));
    enum samrt_status st = samrt_jpeg_info(file, size, &info);
    uint8_t *rgb = st == SAMRT_OK ? malloc(samrt_image_nbytes(&info)) : NULL;
    if (st == SAMRT_OK && !rgb) st = SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) st = samrt_jpeg_decode(file, size, rgb, samrt_image_nbytes(&info), &info);
    free(file);
    const struct samrt_tensor *in = &samrt_sam2_of(e)->enc.input;
    const int S = (int)in->ne[2];
    struct samrt_resize_plan plan;
    void *tables = NULL, *dst = NULL;
    if (st == SAMRT_OK) st = samrt_resize_plan_init(info.width, info.height, S, S, &plan);
    if (st == SAMRT_OK) {
        tables = aligned_alloc(16, SAMRT_PAD(plan.table_bytes, 16));
        dst = malloc(samrt_tensor_nbytes(in));
        if (!tables || !dst) st = SAMRT_E_HOST_MEMORY;
    }
    if (st == SAMRT_OK) st = samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, tables, plan.table_bytes);
    if (st == SAMRT_OK)
        st = samrt_resize_normalize_ref(&plan, tables, rgb, (size_t)info.width * 3, samrt_sam_mean, samrt_sam_std, dst,
                                        in->dtype);
    if (st == SAMRT_OK) st = samrt_platform_mem_upload(e->mem_kind, in->data, dst, samrt_tensor_nbytes(in));
    *w_out = info.width;
    *h_out = info.height;
    free(rgb);
    free(tables);
    free(dst);
    return st;
}

static const char *arg(int argc, char **argv, const char *flag, const char *def) {
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], flag)) return argv[i + 1];
    return def;
}

int main(int argc, char **argv) {
    const char *ckpt = arg(argc, argv, "--ckpt", NULL), *image = arg(argc, argv, "--image", NULL);
    const char *out = arg(argc, argv, "--out", NULL);
    if (!ckpt || !image || !out) {
        fprintf(stderr, "usage: samrt_taps --ckpt CKPT --image FRAME.jpg --out TAPS.safetensors "
                        "[--precision fp32|bf16|fp16] [--imgsz 1024] [--platform NAME]\n");
        return 2;
    }
    struct samrt_engine_params p = samrt_engine_default_params();
    p.precision = SAMRT_DTYPE_F32;
    if (samrt_dtype_parse(arg(argc, argv, "--precision", "fp32"), &p.precision) != SAMRT_OK) return 2;
    p.imgsz = atoi(arg(argc, argv, "--imgsz", "1024"));
    p.platform = arg(argc, argv, "--platform", NULL);
    samrt_engine_t e = NULL;
    enum samrt_status st = samrt_engine_init(ckpt, &p, &e);
    if (st == SAMRT_OK && !samrt_sam2_of(e)) {
        fprintf(stderr, "samrt_taps: this engine has no SAM 2 image encoder planned\n");
        st = SAMRT_E_UNSUPPORTED;
    }
    static struct taps ts;
    int w = 0, h = 0;
    if (st == SAMRT_OK) st = load_input(e, image, &w, &h);
    if (st == SAMRT_OK) {
        ts.e = e;
#ifdef SAMRT_HAVE_CUDA
        cudaStream_t s = NULL;
        if (e->mem_kind != SAMRT_MEM_HOST && cudaStreamCreate(&s) != cudaSuccess) st = SAMRT_E_CUDA;
        ts.stream = s;
#endif
        struct samrt_model_ctx *c = &samrt_sam2_of(e)->ctx_enc;
        c->tap = on_tap;
        c->tap_user = &ts;
        if (st == SAMRT_OK) st = samrt_sam2_encode_image(e, ts.stream);
        c->tap = NULL;
#ifdef SAMRT_HAVE_CUDA
        if (s) cudaStreamDestroy(s);
#endif
    }
    if (st == SAMRT_OK) st = add_pos_taps(&ts, p.imgsz);
    if (st == SAMRT_OK) {
        char meta[256];
        snprintf(meta, sizeof meta, "\"model\":\"%s\",\"precision\":\"%s\",\"imgsz\":\"%d\",\"video_hw\":\"%dx%d\","
                 "\"producer\":\"samrt_taps\"", samrt_model_name(e->model), samrt_dtype_name(p.precision), p.imgsz, h, w);
        st = write_safetensors(out, &ts, meta);
    }
    if (st == SAMRT_OK) printf("samrt_taps: %d taps -> %s\n", ts.n, out);
    for (int i = 0; i < ts.n; i++) free(ts.t[i].v);
    samrt_engine_free(e);
    if (st != SAMRT_OK) fprintf(stderr, "samrt_taps: %s\n", samrt_status_str(st));
    return st == SAMRT_OK ? 0 : 1;
}
