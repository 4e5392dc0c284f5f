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
#include "taps.h"
#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

/* The neck's sine position encodings (constants), NCHW f32. */
static enum samrt_status add_pos_taps(struct samrt_taps *ts, int imgsz) {
    for (int lvl = 0; lvl < 4; lvl++) {
        const int side = imgsz / (4 << lvl);
        const int64_t ne[4] = {1, 256, side, side};
        for (int alias = 0; alias < (lvl == 2 ? 2 : 1); alias++) {
            char name[48];
            snprintf(name, sizeof name, alias ? "tap.fpn.pos.%d" : "tap.neck.pos.%d", lvl);
            float *v = samrt_taps_alloc(ts, name, 4, ne);
            if (!v) return SAMRT_E_HOST_MEMORY;
            const struct samrt_sine_pe_args a = {SAMRT_DTYPE_F32, 256, side, side, 0, v};
            SAMRT_TRY(samrt_sine_pe_ref(&a));
        }
    }
    return SAMRT_OK;
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
    struct samrt_taps *ts = NULL;
    int w = 0, h = 0;
    if (st == SAMRT_OK) st = load_input(e, image, &w, &h);
    if (st == SAMRT_OK) {
        void *stream = NULL;
#ifdef SAMRT_HAVE_CUDA
        cudaStream_t s = NULL;
        if (e->mem_kind != SAMRT_MEM_HOST && cudaStreamCreate(&s) != cudaSuccess) st = SAMRT_E_CUDA;
        stream = s;
#endif
        if (st == SAMRT_OK) st = samrt_taps_init(e->mem_kind, stream, &ts);
        struct samrt_op_ctx *c = &samrt_sam2_of(e)->ctx_enc;
        c->tap = samrt_taps_hook;
        c->tap_user = ts;
        if (st == SAMRT_OK) st = samrt_sam2_encode_image(e, stream);
        c->tap = NULL;
#ifdef SAMRT_HAVE_CUDA
        if (s) cudaStreamDestroy(s);
#endif
    }
    if (st == SAMRT_OK) st = add_pos_taps(ts, p.imgsz);
    if (st == SAMRT_OK) {
        char meta[256];
        snprintf(meta, sizeof meta, "\"model\":\"%s\",\"precision\":\"%s\",\"imgsz\":\"%d\",\"video_hw\":\"%dx%d\","
                 "\"producer\":\"samrt_taps\"", samrt_model_name(e->model), samrt_dtype_name(p.precision), p.imgsz, h, w);
        st = samrt_taps_write(ts, out, meta);
    }
    if (st == SAMRT_OK) printf("samrt_taps: %d taps -> %s\n", samrt_taps_count(ts), out);
    samrt_taps_free(ts);
    samrt_engine_free(e);
    if (st != SAMRT_OK) fprintf(stderr, "samrt_taps: %s\n", samrt_status_str(st));
    return st == SAMRT_OK ? 0 : 1;
}
