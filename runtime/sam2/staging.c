/* staging.c - frame staging of a SAM 2 family engine (staging.h): the slots that carry a
 * frame in (RGB8 or NV12 frame, resize tables) and the results out (the output block, one logits
 * plane), planned once for the largest accepted frame (the tables persistent, the others
 * scratch between the passes), and the upload / resize of a frame.
 * One piece for segment.c and tracker_run.c, so neither reads the other's private state. */
#include "staging.h"

#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "engine_limits.h"
#include "mask_decoder.h"

/* swscale's default matrix (SWS_CS_DEFAULT, ITU-R BT.601): an NV12 frame's all-zero yuv_coefs */
static const int yuv_bt601[4] = {104597, 132201, 25675, 53279};

static void frame_yuv(const struct samrt_image_nv12 *f, struct samrt_yuv_coefs *k) {
    const int *c = f->yuv_coefs;
    const int zero = !c[0] && !c[1] && !c[2] && !c[3];
    samrt_yuv_coefs_init(zero ? yuv_bt601 : c, f->yuv_full_range != 0, f->yuv_x86 ? SAMRT_YUV_SWS_X86 : SAMRT_YUV_SWS_C,
                         k);
}

void samrt_staging_fmt_key(const struct samrt_image_nv12 *nv12, int32_t key[SAMRT_STAGING_FMT_KEY]) {
    memset(key, 0, sizeof(int32_t) * SAMRT_STAGING_FMT_KEY);
    if (!nv12) return;
    key[0] = 1;
    for (int i = 0; i < 4; i++) key[1 + i] = nv12->yuv_coefs[i];
    key[5] = nv12->yuv_full_range != 0;
    key[6] = nv12->yuv_x86 != 0;
}

enum samrt_status samrt_staging_plan(struct samrt_staging *st, struct samrt_op_ctx *c, int max_w, int max_h,
                                     int side, int b_max, int device, int t_frame) {
    const int W = max_w, H = max_h;
    SAMRT_CHECK(W >= 1 && W <= SAMRT_RESIZE_MAX_SIDE && H >= 1 && H <= SAMRT_RESIZE_MAX_SIDE, SAMRT_E_INVALID_ARG,
                "segment: max frame %dx%d; each side must be in [1, %d]", W, H, SAMRT_RESIZE_MAX_SIDE);
    st->max_w = W;
    st->max_h = H;
    st->b_max = b_max;
    st->device = device != 0;
    struct samrt_resize_plan big;  /* table sizes grow with the input sides */
    SAMRT_TRY(samrt_resize_plan_init(W, H, side, side, &big));
    st->tables_cap = SAMRT_PAD(big.table_bytes, 16);
    st->slot_rgb = st->slot_tables = st->slot_out = st->slot_logits = -1;
    if (!device) return SAMRT_OK;
    /* the frame: alive only from its upload to the resize, beside the encoder's input; RGB8 or
     * NV12 (the larger: RGB8 but for frames of a few pixels) */
    const size_t rgb = 3 * (size_t)W * (size_t)H, nv12 = samrt_nv12_packed_bytes(W, H);
    st->rgb = samrt_tensor_make(NULL, SAMRT_DTYPE_U8, 1, SAMRT_SHAPE((int64_t)(rgb > nv12 ? rgb : nv12)));
    SAMRT_TRY(samrt_plan_add(c->plan, SAMRT_FRAME_SLOT_NAME, SAMRT_REGION_SCRATCH, samrt_tensor_nbytes(&st->rgb),
                             t_frame, t_frame, &st->slot_rgb));
    return samrt_ctx_persistent(c, "seg.resize_tables", SAMRT_REGION_STAGING, SAMRT_DTYPE_U8, 1,
                                SAMRT_SHAPE((int64_t)st->tables_cap), &st->tables, &st->slot_tables);
}

enum samrt_status samrt_staging_plan_out(struct samrt_staging *st, struct samrt_op_ctx *c, int t_out) {
    if (!st->device) return SAMRT_OK;
    const int64_t B = st->b_max, px = (int64_t)st->max_w * st->max_h;
    st->out_res = SAMRT_PAD(sizeof(struct samrt_mask_stats) * (size_t)B, 16);
    st->out_hdr = st->out_res + SAMRT_PAD(sizeof(float) * SAMRT_SAM2_RES_COLS * (size_t)B, 16);
    st->out = samrt_tensor_make(NULL, SAMRT_DTYPE_U8, 1, SAMRT_SHAPE((int64_t)st->out_hdr + B * px));
    st->logits = samrt_tensor_make(NULL, SAMRT_DTYPE_F32, 1, SAMRT_SHAPE(px));
    SAMRT_TRY(samrt_plan_add(c->plan, "seg.out", SAMRT_REGION_SCRATCH, samrt_tensor_nbytes(&st->out), t_out, t_out,
                             &st->slot_out));
    return samrt_plan_add(c->plan, "seg.logits", SAMRT_REGION_SCRATCH, samrt_tensor_nbytes(&st->logits), t_out, t_out,
                          &st->slot_logits);
}

enum samrt_status samrt_staging_prepare(struct samrt_staging *st, const struct samrt_arena *a) {
    st->tables_host = aligned_alloc(16, st->tables_cap);
    SAMRT_CHECK(st->tables_host != NULL, SAMRT_E_HOST_MEMORY, "segment: out of host memory");
    st->tables_w = st->tables_h = 0;
    if (st->slot_out < 0) return SAMRT_OK;  /* host engine */
    st->rgb.data = samrt_arena_ptr(a, st->slot_rgb);
    st->tables.data = samrt_arena_ptr(a, st->slot_tables);
    st->out.data = samrt_arena_ptr(a, st->slot_out);
    st->logits.data = samrt_arena_ptr(a, st->slot_logits);
    st->out_host = malloc((size_t)samrt_tensor_nbytes(&st->out));
    SAMRT_CHECK(st->out_host != NULL, SAMRT_E_HOST_MEMORY, "segment: out of host memory");
    return SAMRT_OK;
}

void samrt_staging_free(struct samrt_staging *st) {
    free(st->out_host);
    free(st->tables_host);
    st->out_host = NULL;
    st->tables_host = NULL;
}

enum samrt_status samrt_staging_preprocess_host(struct samrt_staging *st, const struct samrt_image *img,
                                                const struct samrt_image_nv12 *nv12, int side,
                                                const struct samrt_tensor *input) {
    struct samrt_resize_plan plan;
    SAMRT_TRY(samrt_resize_plan_init(img->width, img->height, side, side, &plan));
    SAMRT_TRY(samrt_resize_plan_fill(&plan, samrt_sam_mean, samrt_sam_std, st->tables_host, st->tables_cap));
    if (st->io) st->io->frames_host++;  /* read in place: no copy */
    /* host engines run f32 only (the CPU backend refuses other run dtypes) */
    SAMRT_CHECK(input->dtype == SAMRT_DTYPE_F32, SAMRT_E_UNSUPPORTED, "preprocess: host engines run f32");
    if (nv12) {  /* the fused reference: nv12_rgb's arithmetic per sample, no RGB8 frame */
        struct samrt_yuv_coefs k;
        frame_yuv(nv12, &k);
        return samrt_op_resize_normalize_nv12_host(&plan, st->tables_host, &k, nv12->y, (size_t)nv12->y_stride,
                                                   nv12->uv, (size_t)nv12->uv_stride, (float *)input->data);
    }
    return samrt_op_resize_normalize_host(&plan, st->tables_host, img->rgb, (size_t)img->stride, (float *)input->data);
}

int samrt_staging_out_fits(const struct samrt_staging *st, int n, size_t n_pix) {
    return n <= st->b_max && st->out_hdr + (size_t)n * n_pix <= (size_t)samrt_tensor_nbytes(&st->out);
}

enum samrt_status samrt_staging_upload(struct samrt_staging *st, const struct samrt_image *img,
                                       const struct samrt_image_nv12 *nv12, int img_on_device, int side,
                                       struct samrt_resize_plan *rp, samrt_stream *stream) {
    const int w = img->width, h = img->height;
    SAMRT_TRY(samrt_resize_plan_init(w, h, side, side, rp));
    SAMRT_CHECK(rp->tile_w > 0, SAMRT_E_UNSUPPORTED, "segment: a %dx%d frame is beyond the resize kernel's range",
                w, h);
    if (st->tables_w != w || st->tables_h != h) {  /* a new frame size: its tables, once */
        st->tables_w = st->tables_h = 0;
        SAMRT_TRY(samrt_resize_plan_fill(rp, samrt_sam_mean, samrt_sam_std, st->tables_host, st->tables_cap));
        SAMRT_TRY(samrt_stream_copy(st->tables.data, st->tables_host, rp->table_bytes, SAMRT_COPY_H2D, stream));
        st->tables_w = w;
        st->tables_h = h;
    }
    const enum samrt_copy_dir dir = img_on_device ? SAMRT_COPY_D2D : SAMRT_COPY_H2D;
    st->nv12 = nv12 != NULL;
    const size_t bytes = nv12 ? (size_t)w * (size_t)h + samrt_nv12_packed_uv_pitch(w) * (size_t)((h + 1) / 2)
                              : 3 * (size_t)w * (size_t)h;
    if (nv12) {  /* both planes, packed (resize_normalize_nv12.h); the fused kernel reads them */
        uint8_t *slot = (uint8_t *)st->rgb.data;
        const size_t uvp = samrt_nv12_packed_uv_pitch(w);
        frame_yuv(nv12, &st->yuv);
        SAMRT_TRY(samrt_stream_copy_2d(slot, (size_t)w, nv12->y, (size_t)nv12->y_stride, (size_t)w, (size_t)h, dir,
                                       stream));
        SAMRT_TRY(samrt_stream_copy_2d(slot + samrt_nv12_packed_uv_offset(w, h), uvp, nv12->uv,
                                       (size_t)nv12->uv_stride, uvp, (size_t)(h + 1) / 2, dir, stream));
    } else {
        SAMRT_TRY(samrt_stream_copy_2d(st->rgb.data, 3 * (size_t)w, img->rgb, (size_t)img->stride, 3 * (size_t)w,
                                       (size_t)h, dir, stream));
    }
    if (st->io && img_on_device) st->io->frames_device++, st->io->frame_bytes_d2d += bytes;
    if (st->io && !img_on_device) st->io->frames_host++, st->io->frame_bytes_h2d += bytes;
    return SAMRT_OK;
}

enum samrt_status samrt_staging_resize(const struct samrt_staging *st, const struct samrt_resize_plan *rp,
                                       const struct samrt_tensor *input, samrt_stream *stream) {
    if (st->nv12) {
        const uint8_t *slot = (const uint8_t *)st->rgb.data;
        return samrt_op_resize_normalize_nv12(rp, st->tables.data, &st->yuv, slot, (size_t)rp->in_w,
                                              slot + samrt_nv12_packed_uv_offset(rp->in_w, rp->in_h),
                                              samrt_nv12_packed_uv_pitch(rp->in_w), input->data, input->dtype, stream);
    }
    return samrt_op_resize_normalize(rp, st->tables.data, st->rgb.data, 3 * (size_t)rp->in_w, input->data,
                                      input->dtype, stream);
}
