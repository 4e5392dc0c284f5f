/* python_ckpt.c - writes the seeded checkpoint that the Python package's tests load
 * (python/tests/conftest.py): the deterministic safetensors of tests/ckpt_writer.h for one
 * model, so that the tests need neither torch nor a downloaded checkpoint. The pattern's values
 * are scaled by 1/8 so that the GPU profiles' default precision (fp16) stays finite.
 *
 *   python_ckpt OUT.safetensors [MODEL (sam2.1_tiny)] [f32|bf16 (bf16)]
 * Exit 0 when written, 2 on bad usage, 1 when the file could not be written. */
#include <stdio.h>
#include <string.h>

#include "ckpt_writer.h"

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: python_ckpt OUT.safetensors [MODEL] [f32|bf16]\n");
        return 2;
    }
    enum samrt_model_id model = SAMRT_MODEL_SAM2_1_TINY;
    enum samrt_dtype storage = SAMRT_DTYPE_BF16;
    if (argc > 2 && samrt_model_parse(argv[2], &model) != SAMRT_OK) {
        fprintf(stderr, "python_ckpt: unknown model '%s'\n", argv[2]);
        return 2;
    }
    if (argc > 3 && (samrt_dtype_parse(argv[3], &storage) != SAMRT_OK ||
                     (storage != SAMRT_DTYPE_F32 && storage != SAMRT_DTYPE_BF16))) {
        fprintf(stderr, "python_ckpt: storage must be f32 or bf16, not '%s'\n", argv[3]);
        return 2;
    }
    float scale = 0.125f;
    if (ckw_write_safetensors_fn(argv[1], model, storage, ckw_pattern_scaled, &scale) != 0) {
        fprintf(stderr, "python_ckpt: cannot write %s\n", argv[1]);
        return 1;
    }
    printf("%s: %s, %s storage\n", argv[1], samrt_model_name(model), samrt_dtype_name(storage));
    return 0;
}
