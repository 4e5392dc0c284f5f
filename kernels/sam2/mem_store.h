/* mem_store.h - the memory encoder's final store (model-spec 3.8): out = bf16(x + absent *
 * no_obj_embed_spatial) per object, where absent = !(object score > 0). A kernel pair: the C
 * reference (mem_store_ref.c) and the CUDA launcher (mem_store.cu); tests/test_sam2_memory*.c. */
#ifndef SAMRT_MEM_STORE_H
#define SAMRT_MEM_STORE_H

#include "samrt.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif


struct samrt_sam2_mem_store_args {
    enum samrt_dtype src_dtype;  /* of x: f32, f16 or bf16 */
    int n_obj;
    int64_t n_tok;               /* tokens per object */
    int dim;                     /* channels (64) */
    const void *x;               /* (n_obj, n_tok, dim) out_proj output */
    const float *score;          /* (n_obj) object-score logits */
    const void *no_obj;          /* (dim) in src_dtype, or NULL (no embedding) */
    uint16_t *out;               /* (n_obj, n_tok, dim) bf16 */
};
/* out = bf16(x + (score > 0 ? 0 : 1) * no_obj), the sum in f32 and rounded once (to src_dtype
 * first, as the official in-place add, then to bf16). */
enum samrt_status samrt_sam2_mem_store_check(const struct samrt_sam2_mem_store_args *a);
enum samrt_status samrt_sam2_mem_store_ref(const struct samrt_sam2_mem_store_args *a);
#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
enum samrt_status samrt_sam2_mem_store_cuda(const struct samrt_sam2_mem_store_args *a, cudaStream_t stream);
#endif


#ifdef __cplusplus
}
#endif

#endif /* SAMRT_MEM_STORE_H */
