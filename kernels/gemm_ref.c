/* gemm_ref.c - the Linear reference (y = act(alpha * x w^T + b + r), gemm.h) and the desc
 * helpers shared with the cuBLASLt and CUTLASS paths (among them which descs the fused GELU
 * kernel takes). Plain loops, f32 accumulation in k order, then the epilogue reference per
 * batch (each batch has its own bias slice): GELU of the f32 sum, as the fused kernel does.
 * Tested by tests/test_gemm.c (hand-checked) and the op table's gemm rows (test_ops_table_cuda,
 * against cuBLASLt and the fused kernel). */
#include "gemm.h"

#include <stdint.h>

struct samrt_gemm_desc samrt_gemm_desc_make(int64_t m, int64_t n, int64_t k, enum samrt_dtype dt_in,
                                            enum samrt_dtype dt_out, enum samrt_epilogue ep) {
    struct samrt_gemm_desc d = {0};
    d.m = m; d.n = n; d.k = k;
    d.s_x = k; d.s_w = k; d.s_y = n;
    d.n_batch = 1;
    d.alpha = 1.0f;
    d.epilogue = ep;
    d.dt_in = dt_in;
    d.dt_out = dt_out;
    d.align_bytes = 16;
    return d;
}

static int is_float_dtype(enum samrt_dtype dt) {
    return dt == SAMRT_DTYPE_F32 || dt == SAMRT_DTYPE_F16 || dt == SAMRT_DTYPE_BF16;
}

enum samrt_status samrt_gemm_desc_check(const struct samrt_gemm_desc *d) {
    SAMRT_CHECK(d->m > 0 && d->n > 0 && d->k > 0 && d->n_batch > 0, SAMRT_E_INVALID_ARG,
                "gemm: extents must be positive (m %lld n %lld k %lld batch %lld)", (long long)d->m,
                (long long)d->n, (long long)d->k, (long long)d->n_batch);
    SAMRT_CHECK(d->s_x >= d->k && d->s_w >= d->k && d->s_y >= d->n, SAMRT_E_INVALID_ARG,
                "gemm: row strides (x %lld w %lld y %lld) below k %lld / n %lld", (long long)d->s_x,
                (long long)d->s_w, (long long)d->s_y, (long long)d->k, (long long)d->n);
    SAMRT_CHECK(d->n_batch <= 65535, SAMRT_E_UNSUPPORTED, "gemm: %lld batches", (long long)d->n_batch);
    if (d->n_batch > 1) {
        SAMRT_CHECK(d->sb_x >= 0 && d->sb_w >= 0 && d->sb_b >= 0, SAMRT_E_INVALID_ARG,
                    "gemm: negative batch stride");
        SAMRT_CHECK(d->sb_y >= (d->m - 1) * d->s_y + d->n, SAMRT_E_INVALID_ARG,
                    "gemm: output batch stride %lld overlaps the previous batch", (long long)d->sb_y);
    }
    SAMRT_CHECK(is_float_dtype(d->dt_in), SAMRT_E_UNSUPPORTED, "gemm: input dtype %s",
                samrt_dtype_name(d->dt_in));
    SAMRT_CHECK(d->dt_out == d->dt_in || d->dt_out == SAMRT_DTYPE_F32, SAMRT_E_UNSUPPORTED,
                "gemm: %s inputs cannot produce %s", samrt_dtype_name(d->dt_in), samrt_dtype_name(d->dt_out));
    SAMRT_CHECK((unsigned)d->epilogue < SAMRT_EPILOGUE_COUNT, SAMRT_E_INVALID_ARG, "gemm: epilogue %d",
                (int)d->epilogue);
    SAMRT_CHECK(!d->allow_tf32 || d->dt_in == SAMRT_DTYPE_F32, SAMRT_E_INVALID_ARG,
                "gemm: allow_tf32 applies to f32 inputs only");
    const unsigned a = d->align_bytes;
    SAMRT_CHECK(a >= samrt_dtype_size(d->dt_in) && a >= samrt_dtype_size(d->dt_out) && a <= 256 &&
                    (a & (a - 1)) == 0, SAMRT_E_INVALID_ARG,
                "gemm: align_bytes %u must be a power of two, >= the element size, <= 256", a);
    return SAMRT_OK;
}

int samrt_gemm_fuses_gelu(const struct samrt_gemm_desc *d) {
#ifdef SAMRT_HAVE_CUTLASS
    const int half = d->dt_in == SAMRT_DTYPE_F16 || d->dt_in == SAMRT_DTYPE_BF16;
    return d->epilogue == SAMRT_EPILOGUE_BIAS_GELU && half && d->dt_out == d->dt_in && d->n_batch == 1 &&
           !d->residual && !d->force_library && d->align_bytes >= 16 && d->k % 8 == 0 && d->n % 8 == 0 &&
           d->s_x % 8 == 0 && d->s_w % 8 == 0 && d->s_y % 8 == 0 && d->m <= INT32_MAX && d->s_x <= INT32_MAX &&
           d->s_w <= INT32_MAX && d->s_y <= INT32_MAX;
#else
    (void)d;  /* built without CUTLASS: cuBLASLt and the pass */
    return 0;
#endif
}

double samrt_gemm_flops(const struct samrt_gemm_desc *d) {
    return 2.0 * (double)d->m * (double)d->n * (double)d->k * (double)d->n_batch;
}

void samrt_gemm_ref(const struct samrt_gemm_desc *d, const float *x, const float *w,
                    const float *bias, const float *residual, float *y) {
    const struct samrt_epilogue_shape sh = {
        .n_batch = 1, .n_rows = d->m, .n_cols = d->n, .s_batch = 0, .s_row = d->s_y, .bias_per_row = 0};
    const enum samrt_epilogue_act act = samrt_epilogue_act(d->epilogue);
    for (int64_t bt = 0; bt < d->n_batch; bt++) {
        const float *xb = x + bt * d->sb_x, *wb = w + bt * d->sb_w;
        float *yb = y + bt * d->sb_y;
        for (int64_t i = 0; i < d->m; i++) {
            for (int64_t j = 0; j < d->n; j++) {
                float acc = 0.0f;
                for (int64_t kk = 0; kk < d->k; kk++) acc += xb[i * d->s_x + kk] * wb[j * d->s_w + kk];
                yb[i * d->s_y + j] = d->alpha * acc;
            }
        }
        samrt_epilogue_ref(act, &sh, samrt_epilogue_has_bias(d->epilogue) ? bias + bt * d->sb_b : NULL,
                           d->residual ? residual + bt * d->sb_y : NULL, yb);
    }
}
