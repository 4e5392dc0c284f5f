/* test_sam2_decoder_cuda.c - SAM 2.1's SAM heads on the CUDA backend against the CPU backend
 * (itself checked against a naive model of the official code by test_sam2_decoder.c) at the
 * production shape: 1024 model side (64x64 embedding, 256x256 masks), seeded random weights,
 * three objects in one batch (a click -> multimask, a box -> single mask with the stability
 * fallback, box + clicks), plus an unused object slot.
 *   f32:  strict fp32 GEMMs (no TF32): every output within TOL_F32 of the CPU backend, the same
 *         selection, gate and pointer token.
 *   bf16, f16: judged as model-spec section 8 says for low precision: agreement on confident
 *         pixels (|f32 logit| > CONF) of all four masks >= MIN_AGREE, IoU and pointer close.
 * Skips (exit 77) without a GPU. Run: ctest -R test_sam2_decoder_cuda */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sam2_heads_util.h"

#define SIDE 1024
#define G (SIDE / 16)
#define N_TOK (G * G)
#define LOW (4 * G)
#define P ((int64_t)LOW * LOW)
#define B_MAX 4
#define N_OBJ 3
#define TOL_F32 2e-3       /* atol and rtol: fp32 with a different summation order */
#define CONF 0.5           /* confident pixels for the low-precision check */
#define MIN_AGREE 0.995
#define TOL_LOWP_IOU 0.05
#define TOL_LOWP_PTR 0.1

static void make_prompts(struct samrt_sam2_points *pts) {
    memset(pts, 0, N_OBJ * sizeof *pts);
    pts[0].n = 1;
    pts[0].xy[0][0] = 224.0f, pts[0].xy[0][1] = 640.5f, pts[0].label[0] = 1;
    pts[1].n = 2;
    pts[1].xy[0][0] = 100.0f, pts[1].xy[0][1] = 200.0f, pts[1].label[0] = 2;
    pts[1].xy[1][0] = 700.0f, pts[1].xy[1][1] = 900.0f, pts[1].label[1] = 3;
    pts[2] = pts[1];
    pts[2].n = 4;
    pts[2].xy[2][0] = 400.0f, pts[2].xy[2][1] = 500.0f, pts[2].label[2] = 1;
    pts[2].xy[3][0] = 650.0f, pts[2].xy[3][1] = 250.0f, pts[2].label[3] = 0;
}

static void *to_device(const float *v, int64_t n, enum samrt_dtype dt) {
    const size_t es = samrt_dtype_size(dt);
    void *h = malloc((size_t)n * es), *d = NULL;
    tu_store(dt, h, v, (long)n);
    if (cudaMalloc(&d, (size_t)n * es) == cudaSuccess) cudaMemcpy(d, h, (size_t)n * es, cudaMemcpyHostToDevice);
    free(h);
    return d;
}

static struct samrt_tensor t3(void *d, enum samrt_dtype dt, int64_t a, int64_t b, int64_t c) {
    const int64_t ne[3] = {a, b, c};
    return samrt_tensor_make(d, dt, 3, ne);
}

int main(void) {
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_sam2_decoder_cuda", why);
    static struct hu_weights w;
    hu_make_heads(&w, 5);
    for (int k = 0; k < 4; k++) {  /* decisive masks, as the parity runs' --logit-scale */
        struct hu_tensor *t = hu_find(&w, "sam_mask_decoder.output_hypernetworks_mlps.%d.layers.2.weight", k);
        for (int64_t i = 0; i < t->n; i++) t->v[i] *= 8.0f;
    }
    hu_find(&w, "sam_mask_decoder.pred_obj_score_head.layers.2.bias")->v[0] = 1.0f;
    CHECK_EQ_INT(hu_open_ckpt(&w), 0);
    float *image = malloc(sizeof(float) * N_TOK * 256), *f0 = malloc(sizeof(float) * P * 32),
          *f1 = malloc(sizeof(float) * 4 * N_TOK * 64);
    tu_fill_uniform(image, N_TOK * 256, 1, -1, 1);
    tu_fill_uniform(f0, (long)P * 32, 2, -1, 1);
    tu_fill_uniform(f1, 4 * N_TOK * 64, 3, -1, 1);
    struct samrt_sam2_points pts[N_OBJ];
    make_prompts(pts);

    /* the CPU backend, f32: the reference */
    void *wdata[HU_MAX_KEYS];
    for (int i = 0; i < w.n; i++) wdata[i] = w.t[i].v;
    struct samrt_sam2_heads_config cfg = {SIDE, B_MAX, 4, 0, SAMRT_DTYPE_F32, NULL};
    struct samrt_tensor ci = t3(image, SAMRT_DTYPE_F32, 1, N_TOK, 256), c0 = t3(f0, SAMRT_DTYPE_F32, 1, P, 32),
                        c1 = t3(f1, SAMRT_DTYPE_F32, 1, 4 * N_TOK, 64);
    struct hu_rig rig;
    struct hu_result ref;
    CHECK_EQ_INT(hu_rig_init(&rig, &w, wdata, SAMRT_BACKEND_CPU, &cfg, &ci, &c0, &c1), 0);
    CHECK_EQ_INT(hu_rig_run(&rig, pts, N_OBJ, 1, &ci, &c0, &c1, &ref), 0);
    hu_rig_free(&rig);

    const enum samrt_dtype dts[3] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_BF16, SAMRT_DTYPE_F16};
    for (int di = 0; di < 3; di++) {
        const enum samrt_dtype dt = dts[di];
        void *dw[HU_MAX_KEYS];
        for (int i = 0; i < w.n; i++) dw[i] = to_device(w.t[i].v, w.t[i].n, dt);
        struct samrt_tensor gi = t3(to_device(image, N_TOK * 256, dt), dt, 1, N_TOK, 256);
        struct samrt_tensor g0 = t3(to_device(f0, P * 32, dt), dt, 1, P, 32);
        struct samrt_tensor g1 = t3(to_device(f1, 4 * N_TOK * 64, dt), dt, 1, 4 * N_TOK, 64);
        cfg.dtype = dt;
        struct hu_result got;
        int ok = hu_rig_init(&rig, &w, dw, SAMRT_BACKEND_CUDA, &cfg, &gi, &g0, &g1) == 0;
        CHECK_MSG(ok, "%s: CUDA heads setup failed", samrt_dtype_name(dt));
        if (ok) {
            /* poison the outputs: an element the pass does not write fails */
            cudaMemset(rig.h.all_masks.data, 0xff, samrt_tensor_nbytes(&rig.h.all_masks));
            cudaMemset(rig.h.low_res.data, 0xff, samrt_tensor_nbytes(&rig.h.low_res));
            cudaMemset(rig.h.obj_ptr.data, 0xff, samrt_tensor_nbytes(&rig.h.obj_ptr));
            ok = hu_rig_run(&rig, pts, N_OBJ, 1, &gi, &g0, &g1, &got) == 0;
            CHECK_MSG(ok, "%s: CUDA heads run failed", samrt_dtype_name(dt));
        }
        for (int b = 0; ok && b < N_OBJ; b++) {
            char name[64];
            const float *rm = ref.all_masks + (size_t)b * 4 * P, *gm = got.all_masks + (size_t)b * 4 * P;
            if (dt == SAMRT_DTYPE_F32) {
                snprintf(name, sizeof name, "f32 obj %d all_masks", b);
                check_close_f32(name, gm, rm, 4 * P, TOL_F32, TOL_F32);
                snprintf(name, sizeof name, "f32 obj %d low_res", b);
                check_close_f32(name, got.low_res + (size_t)b * P, ref.low_res + (size_t)b * P, P, TOL_F32, TOL_F32);
                snprintf(name, sizeof name, "f32 obj %d obj_ptr", b);
                check_close_f32(name, got.ptr + (size_t)b * 256, ref.ptr + (size_t)b * 256, 256, TOL_F32, TOL_F32);
                for (int k = 0; k < 4; k++) CHECK_NEAR(got.iou[b][k], ref.iou[b][k], TOL_F32);
                CHECK_NEAR(got.score[b], ref.score[b], TOL_F32 * (1 + fabs(ref.score[b])));
                for (int c = SAMRT_SAM2_RES_INDEX; c <= SAMRT_SAM2_RES_TOKEN; c++)
                    CHECK_MSG(got.res[b][c] == ref.res[b][c], "obj %d result column %d: %g vs %g", b, c,
                              got.res[b][c], ref.res[b][c]);
            } else {
                long n_conf = 0, n_agree = 0;
                for (int64_t i = 0; i < 4 * P; i++) {
                    if (!(fabsf(rm[i]) > CONF)) continue;
                    n_conf++;
                    n_agree += (rm[i] > 0) == (gm[i] > 0);
                }
                const double agree = n_conf ? (double)n_agree / n_conf : 1.0;
                printf("%s obj %d: %ld confident pixels, agreement %.5f\n", samrt_dtype_name(dt), b, n_conf, agree);
                CHECK_MSG(n_conf > 0 && agree >= MIN_AGREE, "%s obj %d: agreement %.5f on %ld confident pixels",
                          samrt_dtype_name(dt), b, agree, n_conf);
                for (int k = 0; k < 4; k++) CHECK_NEAR(got.iou[b][k], ref.iou[b][k], TOL_LOWP_IOU);
                double worst = 0;
                for (int c = 0; c < 256; c++)
                    worst = fmax(worst, fabs(got.ptr[(size_t)b * 256 + c] - ref.ptr[(size_t)b * 256 + c]));
                CHECK_MSG(worst <= TOL_LOWP_PTR, "%s obj %d: pointer off by %g", samrt_dtype_name(dt), b, worst);
            }
        }
        if (ok) hu_result_free(&got);
        hu_rig_free(&rig);
        for (int i = 0; i < w.n; i++) cudaFree(dw[i]);
        cudaFree(gi.data), cudaFree(g0.data), cudaFree(g1.data);
    }
    hu_result_free(&ref);
    free(image), free(f0), free(f1);
    hu_free(&w);
    return check_report("test_sam2_decoder_cuda");
}
