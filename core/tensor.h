/* tensor.h - tensors are views into the arena: a pointer, a dtype, up to 4 dims and strides.
 * They own nothing; the arena owns every byte. Shapes are in PyTorch order (ne[0] is the
 * outermost dim) so checkpoint shapes read the same here; strides s[] are in elements. */
#ifndef SAMRT_TENSOR_H
#define SAMRT_TENSOR_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_MAX_DIMS 4
/* A shape as a compound literal: SAMRT_SHAPE(256, 64) is (const int64_t[]){256, 64}. */
#define SAMRT_SHAPE(...) ((const int64_t[]){__VA_ARGS__})

struct samrt_tensor {
    void *data;                    /* borrowed: points into the arena (or a test buffer) */
    enum samrt_dtype dtype;
    int n_dims;                    /* 0 (scalar) .. 4 */
    int64_t ne[SAMRT_MAX_DIMS];    /* extents, outermost first; unused dims are 1 */
    int64_t s[SAMRT_MAX_DIMS];     /* strides in elements */
};

/* A contiguous tensor over data with the given shape. */
struct samrt_tensor samrt_tensor_make(void *data, enum samrt_dtype dtype, int n_dims, const int64_t *ne);
int64_t samrt_tensor_nelements(const struct samrt_tensor *t);
uint64_t samrt_tensor_nbytes(const struct samrt_tensor *t);       /* of the contiguous extent */
int samrt_tensor_is_contiguous(const struct samrt_tensor *t);
/* A view of t's storage at element offset off with the given shape and strides (elements).
 * Plain address arithmetic, no checks: it also works on the NULL data of persistent tensors
 * and the tags of PLAN passes (ops/exec.h). */
struct samrt_tensor samrt_tensor_view(const struct samrt_tensor *t, int64_t off, int n_dims, const int64_t *ne,
                                      const int64_t *s);
/* A view with dims permuted: out dim i = in dim perm[i]. */
enum samrt_status samrt_tensor_permute(const struct samrt_tensor *t, const int *perm, struct samrt_tensor *out);
/* A contiguous reshape (same element count). */
enum samrt_status samrt_tensor_reshape(const struct samrt_tensor *t, int n_dims, const int64_t *ne,
                                       struct samrt_tensor *out);
/* "(1,96,7,7)" into buf. */
const char *samrt_tensor_shape_str(int n_dims, const int64_t *ne, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_TENSOR_H */
