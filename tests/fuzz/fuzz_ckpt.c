/* fuzz_ckpt.c - libFuzzer target for the checkpoint reader: opens the input with
 * samrt_ckpt_open_mem (zip + pickle, or safetensors, chosen from the bytes), then looks up and
 * reads every tensor at its own dtype and as f32 / bf16, and scans for NaN/Inf. The input is
 * an exactly-sized heap copy, so ASan reports any read past the end.
 * Build and run (clang, CPU-only):
 *   CC=clang cmake -S . -B build/fuzz -DSAMRT_CUDA=OFF -DSAMRT_FUZZ=ON
 *   cmake --build build/fuzz --target fuzz_ckpt
 *   build/fuzz/tests/fuzz_ckpt -max_total_time=60 -max_len=16384 CORPUS_DIR tests/data/ckpt/good tests/data/ckpt/bad */
#include <stdlib.h>
#include <string.h>

#include "ckpt.h"

static void quiet(enum samrt_log_level level, const char *msg, void *user) { (void)level, (void)msg, (void)user; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    samrt_log_set(quiet, NULL, SAMRT_LOG_DEBUG); /* formatting still runs: it is fuzzed too */
    struct samrt_ckpt ck;
    if (samrt_ckpt_open_mem(data, size, &ck) != SAMRT_OK) return 0;
    for (int k = 0; k < ck.n_tensors; k++) {
        const struct samrt_ckpt_tensor *t = &ck.tensors[k];
        if (samrt_ckpt_find(&ck, t->name) != t) abort(); /* the index must find every tensor */
        if (t->nelements > (1 << 22)) continue;           /* large but valid: reading is plain memcpy */
        uint64_t n = (uint64_t)t->nelements * 8;
        void *buf = malloc(n ? n : 1);
        if (!buf) break;
        samrt_ckpt_read(&ck, t, t->dtype, buf, n);
        samrt_ckpt_read(&ck, t, SAMRT_DTYPE_F32, buf, n);
        samrt_ckpt_read(&ck, t, SAMRT_DTYPE_BF16, buf, n);
        samrt_ckpt_read(&ck, t, SAMRT_DTYPE_I32, buf, n);
        free(buf);
    }
    samrt_ckpt_check_finite(&ck);
    samrt_ckpt_close(&ck);
    return 0;
}
