/* ckpt.h - reading checkpoints with no Python: the official PyTorch zip (torch.save of
 * {"model": state_dict}) through a restricted pickle reader, and safetensors with the
 * official key names. The reader indexes tensors (name, dtype, shape, byte range) and then
 * converts any one of them to f32/f16/bf16 on request, straight into caller memory.
 *
 * Only the pickle opcodes and globals a state_dict needs are accepted
 * (collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch.*Storage, ...); any other
 * GLOBAL (os.system, builtins.eval, ...) fails with SAMRT_E_FORBIDDEN and names it.
 * Every offset and size is checked against the file before use.
 *
 *   struct samrt_ckpt ck;
 *   if (samrt_ckpt_open("sam2.1_hiera_tiny.pt", &ck) != SAMRT_OK) ...;
 *   const struct samrt_ckpt_tensor *t = samrt_ckpt_find(&ck, "no_mem_embed");
 *   samrt_ckpt_read(&ck, t, SAMRT_DTYPE_BF16, dst, dst_bytes);
 *   samrt_ckpt_close(&ck);
 */
#ifndef SAMRT_CKPT_H
#define SAMRT_CKPT_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_CKPT_MAX_DIMS 6

enum samrt_ckpt_format { SAMRT_CKPT_TORCH_ZIP = 1, SAMRT_CKPT_SAFETENSORS = 2 };

struct samrt_ckpt_tensor {
    char *name;                        /* owned by the ckpt; state_dict key */
    enum samrt_dtype dtype;            /* storage dtype: f32, f16, bf16, i64, i32, u8 */
    int n_dims;
    int64_t ne[SAMRT_CKPT_MAX_DIMS];   /* PyTorch order */
    int64_t nelements;
    uint64_t offset;                   /* byte offset of element 0 within the file image */
    uint64_t nbytes;                   /* nelements * dtype size (the tensor is contiguous) */
};

struct samrt_ckpt {
    enum samrt_ckpt_format format;
    const uint8_t *data;               /* the whole file (mmap or caller memory) */
    uint64_t size;
    int owns_map;                      /* 1: data is an mmap to unmap at close */
    struct samrt_ckpt_tensor *tensors; /* n_tensors, in file order */
    int n_tensors;
    int n_nonfinite_warnings;          /* set by samrt_ckpt_check_finite */
    int *by_name;                      /* n_tensors indices into tensors, sorted by name */
};

/* Opens and indexes a checkpoint; the format is detected from the bytes. */
enum samrt_status samrt_ckpt_open(const char *path, struct samrt_ckpt *out);
/* Same, over memory the caller keeps alive until close (fuzz targets, tests). */
enum samrt_status samrt_ckpt_open_mem(const void *data, uint64_t size, struct samrt_ckpt *out);
void samrt_ckpt_close(struct samrt_ckpt *ck);
/* "PyTorch zip" or "safetensors". */
const char *samrt_ckpt_format_name(enum samrt_ckpt_format format);

/* NULL when absent. */
const struct samrt_ckpt_tensor *samrt_ckpt_find(const struct samrt_ckpt *ck, const char *name);
/* Total element count of floating-point tensors (the "parameter count"; BatchNorm's integer
 * num_batches_tracked is not counted, running stats are). */
uint64_t samrt_ckpt_param_count(const struct samrt_ckpt *ck);

/* Converts one tensor to dst_dtype (f32, f16 or bf16; i64 -> i32 allowed) into dst, which
 * holds dst_bytes. Rounds to nearest even. */
enum samrt_status samrt_ckpt_read(const struct samrt_ckpt *ck, const struct samrt_ckpt_tensor *t,
                                  enum samrt_dtype dst_dtype, void *dst, uint64_t dst_bytes);
/* Scans every floating tensor for NaN/Inf and logs a warning per offending tensor.
 * Returns the number of offending tensors (a warning, not an error). */
int samrt_ckpt_check_finite(struct samrt_ckpt *ck);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_CKPT_H */
