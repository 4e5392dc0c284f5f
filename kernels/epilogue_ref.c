/* epilogue_ref.c - the plain C reference of y = act(y + bias + residual) (epilogue.h), and
 * the shape check shared with the CUDA launcher. The GELU is the exact erf form computed in
 * double, so the reference is at least as accurate as any f32 device result.
 * Tested by tests/test_gemm.c (hand-checked GELU values) and the GPU tests. */
#include "epilogue.h"

#include <math.h>

const char *samrt_epilogue_name(enum samrt_epilogue ep) {
    switch (ep) {
    case SAMRT_EPILOGUE_NONE: return "none";
    case SAMRT_EPILOGUE_BIAS: return "bias";
    case SAMRT_EPILOGUE_BIAS_GELU: return "bias_gelu";
    case SAMRT_EPILOGUE_BIAS_RELU: return "bias_relu";
    default: return "?";
    }
}

float samrt_epilogue_gelu_ref(float x) {
    double v = (double)x;
    return (float)(0.5 * v * (1.0 + erf(v * 0.70710678118654752440)));
}

enum samrt_status samrt_epilogue_shape_check(const struct samrt_epilogue_shape *sh) {
    SAMRT_CHECK(sh->n_batch > 0 && sh->n_rows > 0 && sh->n_cols > 0, SAMRT_E_INVALID_ARG,
                "epilogue: extents must be positive (%lld x %lld x %lld)", (long long)sh->n_batch,
                (long long)sh->n_rows, (long long)sh->n_cols);
    SAMRT_CHECK(sh->n_rows == 1 || sh->s_row >= sh->n_cols, SAMRT_E_INVALID_ARG,
                "epilogue: row stride %lld < %lld columns", (long long)sh->s_row, (long long)sh->n_cols);
    SAMRT_CHECK(sh->n_batch <= 65535, SAMRT_E_UNSUPPORTED,
                "epilogue: %lld batches exceed the grid's y extent", (long long)sh->n_batch);
    const int64_t batch_span = (sh->n_rows - 1) * sh->s_row + sh->n_cols;
    SAMRT_CHECK(sh->n_batch == 1 || sh->s_batch >= batch_span, SAMRT_E_INVALID_ARG,
                "epilogue: batch stride %lld overlaps a batch of %lld elements",
                (long long)sh->s_batch, (long long)batch_span);
    const int64_t span = (sh->n_batch - 1) * sh->s_batch + batch_span;
    SAMRT_CHECK(span < ((int64_t)1 << 31), SAMRT_E_UNSUPPORTED,
                "epilogue: %lld elements exceed 32-bit indexing", (long long)span);
    return SAMRT_OK;
}

void samrt_epilogue_ref(enum samrt_epilogue_act act, const struct samrt_epilogue_shape *sh,
                        const float *bias, const float *residual, float *y) {
    for (int64_t bt = 0; bt < sh->n_batch; bt++) {
        for (int64_t r = 0; r < sh->n_rows; r++) {
            const int64_t row = bt * sh->s_batch + r * sh->s_row;
            for (int64_t c = 0; c < sh->n_cols; c++) {
                float v = y[row + c];
                if (bias) v += bias[sh->bias_per_row ? r : c];
                if (residual) v += residual[row + c];
                if (act == SAMRT_EPILOGUE_ACT_GELU) v = samrt_epilogue_gelu_ref(v);
                else if (act == SAMRT_EPILOGUE_ACT_RELU && v < 0.0f) v = 0.0f;  /* NaN stays NaN, as torch */
                y[row + c] = v;
            }
        }
    }
}
