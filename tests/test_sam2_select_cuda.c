/* test_sam2_select_cuda.c - samrt_sam2_select_cuda and samrt_sam2_ptr_gate_cuda against their
 * references on seeded random inputs: production shape (256x256 masks, 256-wide tokens, 7
 * objects with every mode, present and absent), an odd shape (1000 pixels, width 37), all
 * three token dtypes (the IoU predictions and scores are f32 state). Both follow one rule per step (integer counts, one fp32 division), so the
 * outputs must be bit-identical. Outputs are poisoned with NaN bytes first. Skips (exit 77)
 * without a GPU. Run: ctest -R test_sam2_select_cuda */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mask_select.h"
#include "test_util.h"

static void run_case(int n_obj, int64_t n_pix, int dim, enum samrt_dtype dt, uint64_t seed) {
    const size_t es = samrt_dtype_size(dt);
    const int64_t s_tok = 6 * (int64_t)dim;
    const size_t nm = (size_t)n_obj * 4 * n_pix, nt = (size_t)n_obj * s_tok;
    float *masks = malloc(nm * 4), *iou = malloc((size_t)n_obj * 16), *score = malloc((size_t)n_obj * 4);
    float *tok = malloc(nt * 4), *ptr = malloc((size_t)n_obj * dim * 4), *noptr = malloc((size_t)dim * 4);
    tu_fill_uniform(masks, (long)nm, seed, -0.3f, 0.3f);
    tu_fill_uniform(iou, n_obj * 4, seed + 1, 0.0f, 1.0f);
    tu_fill_uniform(score, n_obj, seed + 2, -1.0f, 1.0f);
    tu_fill_uniform(tok, (long)nt, seed + 3, -2.0f, 2.0f);
    tu_fill_uniform(ptr, n_obj * dim, seed + 4, -2.0f, 2.0f);
    tu_fill_uniform(noptr, dim, seed + 5, -2.0f, 2.0f);
    for (int b = 0; b < n_obj; b++) {
        if (b % 6 == 5) /* a stable mask 0 for some dynamic objects */
            for (int64_t i = 0; i < n_pix; i++) masks[(size_t)b * 4 * n_pix + i] = 1.0f;
        if (b == 1) iou[4 * b + 3] = iou[4 * b + 2];  /* a tie */
    }
    score[0] = -0.5f, score[1] = 0.5f, score[2] = 0.0f;  /* absent, present, absent (score 0) */
    void *h_tok = malloc(nt * es);
    void *h_ptr = malloc((size_t)n_obj * dim * es), *h_no = malloc((size_t)dim * es);
    tu_store(dt, h_tok, tok, (long)nt);
    tu_store(dt, h_ptr, ptr, n_obj * dim);
    tu_store(dt, h_no, noptr, dim);

    struct samrt_sam2_select_args a;
    memset(&a, 0, sizeof a);
    a.dtype = dt;
    a.n_obj = n_obj;
    a.n_pix = n_pix;
    a.dim = dim;
    a.s_tok_b = s_tok;
    a.delta = SAMRT_SAM2_STABILITY_DELTA;
    a.thresh = SAMRT_SAM2_STABILITY_THRESH;
    a.no_obj_score = SAMRT_SAM2_NO_OBJ_SCORE;
    for (int b = 0; b < n_obj; b++) a.mode[b] = (uint8_t)(b % 3);
    const size_t nl = (size_t)n_obj * n_pix, nr = (size_t)n_obj * SAMRT_SAM2_RES_COLS;
    float *low_ref = malloc(nl * 4), *low_got = malloc(nl * 4), res_ref[SAMRT_SAM2_MAX_OBJ * SAMRT_SAM2_RES_COLS];
    float res_got[SAMRT_SAM2_MAX_OBJ * SAMRT_SAM2_RES_COLS];
    void *tok_ref = malloc((size_t)n_obj * dim * es), *tok_got = malloc((size_t)n_obj * dim * es);
    float *gate_ref = malloc((size_t)n_obj * dim * 4), *gate_got = malloc((size_t)n_obj * dim * 4);

    struct samrt_sam2_select_args r = a;
    r.masks = masks, r.iou = iou, r.score = score, r.tokens = (const char *)h_tok + 2 * dim * es;
    r.low_res = low_ref, r.result = res_ref, r.token_out = tok_ref;
    CHECK_STATUS(samrt_sam2_select_ref(&r), SAMRT_OK);
    struct samrt_sam2_ptr_gate_args gr = {dt, n_obj, dim, h_ptr, h_no, res_ref, gate_ref};
    CHECK_STATUS(samrt_sam2_ptr_gate_ref(&gr), SAMRT_OK);

    void *d_m, *d_iou, *d_sc, *d_tok, *d_low, *d_res, *d_to, *d_ptr, *d_no, *d_gate;
    CHECK(cudaMalloc(&d_m, nm * 4) == cudaSuccess && cudaMalloc(&d_iou, (size_t)n_obj * 16) == cudaSuccess &&
          cudaMalloc(&d_sc, (size_t)n_obj * 4) == cudaSuccess && cudaMalloc(&d_tok, nt * es) == cudaSuccess &&
          cudaMalloc(&d_low, nl * 4) == cudaSuccess && cudaMalloc(&d_res, nr * 4) == cudaSuccess &&
          cudaMalloc(&d_to, (size_t)n_obj * dim * es) == cudaSuccess &&
          cudaMalloc(&d_ptr, (size_t)n_obj * dim * es) == cudaSuccess &&
          cudaMalloc(&d_no, (size_t)dim * es) == cudaSuccess &&
          cudaMalloc(&d_gate, (size_t)n_obj * dim * 4) == cudaSuccess);
    cudaMemcpy(d_m, masks, nm * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d_iou, iou, (size_t)n_obj * 16, cudaMemcpyHostToDevice);
    cudaMemcpy(d_sc, score, (size_t)n_obj * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d_tok, h_tok, nt * es, cudaMemcpyHostToDevice);
    cudaMemcpy(d_ptr, h_ptr, (size_t)n_obj * dim * es, cudaMemcpyHostToDevice);
    cudaMemcpy(d_no, h_no, (size_t)dim * es, cudaMemcpyHostToDevice);
    cudaMemset(d_low, 0xff, nl * 4);  /* NaN poison */
    cudaMemset(d_res, 0xff, nr * 4);
    cudaMemset(d_to, 0xff, (size_t)n_obj * dim * es);
    cudaMemset(d_gate, 0xff, (size_t)n_obj * dim * 4);
    struct samrt_sam2_select_args g = a;
    g.masks = d_m, g.iou = d_iou, g.score = d_sc, g.tokens = (const char *)d_tok + 2 * dim * es;
    g.low_res = d_low, g.result = d_res, g.token_out = d_to;
    CHECK_STATUS(samrt_sam2_select_cuda(&g, 0), SAMRT_OK);
    struct samrt_sam2_ptr_gate_args gg = {dt, n_obj, dim, d_ptr, d_no, d_res, d_gate};
    CHECK_STATUS(samrt_sam2_ptr_gate_cuda(&gg, 0), SAMRT_OK);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    cudaMemcpy(low_got, d_low, nl * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(res_got, d_res, nr * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(tok_got, d_to, (size_t)n_obj * dim * es, cudaMemcpyDeviceToHost);
    cudaMemcpy(gate_got, d_gate, (size_t)n_obj * dim * 4, cudaMemcpyDeviceToHost);
    CHECK_MSG(memcmp(res_got, res_ref, nr * 4) == 0, "result rows differ (%s, %lld px)", samrt_dtype_name(dt),
              (long long)n_pix);
    CHECK_MSG(memcmp(low_got, low_ref, nl * 4) == 0, "low-res logits differ (%s)", samrt_dtype_name(dt));
    CHECK_MSG(memcmp(tok_got, tok_ref, (size_t)n_obj * dim * es) == 0, "pointer tokens differ (%s)",
              samrt_dtype_name(dt));
    CHECK_MSG(memcmp(gate_got, gate_ref, (size_t)n_obj * dim * 4) == 0, "gated pointers differ (%s)",
              samrt_dtype_name(dt));
    int n_fallback = 0, n_absent = 0;
    for (int b = 0; b < n_obj; b++) {
        n_fallback += a.mode[b] == SAMRT_SAM2_MODE_SINGLE_DYNAMIC && res_ref[b * SAMRT_SAM2_RES_COLS + 2] != 0.0f;
        n_absent += res_ref[b * SAMRT_SAM2_RES_COLS + SAMRT_SAM2_RES_IS_OBJ] == 0.0f;
    }
    CHECK(n_fallback > 0 && n_absent > 0 && n_absent < n_obj);  /* the case covers both branches */
    cudaFree(d_m), cudaFree(d_iou), cudaFree(d_sc), cudaFree(d_tok), cudaFree(d_low), cudaFree(d_res);
    cudaFree(d_to), cudaFree(d_ptr), cudaFree(d_no), cudaFree(d_gate);
    free(masks), free(iou), free(score), free(tok), free(ptr), free(noptr), free(h_tok);
    free(h_ptr), free(h_no), free(low_ref), free(low_got), free(tok_ref), free(tok_got), free(gate_ref), free(gate_got);
}

int main(void) {
    char why[256];
    if (!tu_have_gpu(why, sizeof why)) return check_skip("test_sam2_select_cuda", why);
    const enum samrt_dtype dts[3] = {SAMRT_DTYPE_F32, SAMRT_DTYPE_BF16, SAMRT_DTYPE_F16};
    for (int i = 0; i < 3; i++) {
        run_case(7, 256 * 256, 256, dts[i], 100 + (uint64_t)i);
        run_case(11, 1000, 37, dts[i], 200 + (uint64_t)i);
    }
    return check_report("test_sam2_select_cuda");
}
