/* test_engine_alloc.c - exact accounting, measured from outside the arena. Every
 * cudaMalloc* / cudaFree and host malloc-family call of the process is intercepted by the
 * linker (--wrap, tests/alloc_intercept.c). The test shows:
 *   1. the device (or managed) bytes allocated by engine init equal the planned arena, in
 *      exactly one allocation;
 *   2. not one allocation, host or device, happens after init while the engine is used;
 *   3. the numbers the engine reports agree with the intercepted ones.
 * It also prints cudaMemGetInfo and VmHWM around init (what lies outside the arena: the
 * CUDA context and library handles). A segmentation case shows the same for
 * samrt_engine_segment: after the first two calls of a key (eager, then the CUDA graph capture), later
 * calls allocate nothing, host or device. Argument: "host" (host pool, any machine) or "gpu"
 * (device and unified pools; exits 77 without a GPU). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc_intercept.h"
#include "check.h"
#include "ckpt_writer.h"
#include "engine_impl.h"
#include "platform.h"
#ifdef SAMRT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static uint64_t dev_free_bytes(void) {
#ifdef SAMRT_HAVE_CUDA
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) == cudaSuccess) return f;
    (void)cudaGetLastError();
#endif
    return 0;
}

/* The engine's use between frames; none of it may allocate. */
static void use_engine(samrt_engine_t e) {
    struct samrt_memory_report m;
    enum samrt_model_id id;
    uint64_t n;
    for (int i = 0; i < 1000; i++) {
        samrt_engine_memory(e, &m);
        samrt_engine_model(e, &id, &n);
        (void)samrt_engine_weight(e, "no_mem_embed");
        (void)samrt_engine_weight(e, "memory_attention.layers.1.linear2.weight");
    }
}

static void run_case(const char *path, const char *label, const char *platform, enum samrt_mem_kind kind,
                     enum samrt_dtype prec) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = platform;
    p.mem_kind = kind;
    p.precision = prec;
    struct alloc_counts c0, c1, c2, c3;
    uint64_t free0 = dev_free_bytes(), hwm0 = samrt_platform_peak_rss_bytes();
    alloc_counts_get(&c0);
    samrt_engine_t e = NULL;
    enum samrt_status st = samrt_engine_init(path, &p, &e);
    alloc_counts_get(&c1);
    CHECK_STATUS(st, SAMRT_OK);
    if (st != SAMRT_OK) return;
    uint64_t free1 = dev_free_bytes(), hwm1 = samrt_platform_peak_rss_bytes();
    struct samrt_memory_report m;
    samrt_engine_memory(e, &m);

    use_engine(e);
    alloc_counts_get(&c2);
    uint64_t pool_calls, pool_bytes;
    if (kind == SAMRT_MEM_DEVICE) { pool_calls = c1.dev_calls - c0.dev_calls; pool_bytes = c1.dev_bytes - c0.dev_bytes; }
    else if (kind == SAMRT_MEM_UNIFIED) { pool_calls = c1.managed_calls - c0.managed_calls; pool_bytes = c1.managed_bytes - c0.managed_bytes; }
    else { pool_calls = 0; pool_bytes = 0; }
    printf("%-8s arena (engine report) %12llu B | intercepted: device %llu B in %llu calls, managed %llu B in %llu "
           "calls, pinned %llu calls | host during init %llu calls %llu B\n", label,
           (unsigned long long)m.arena_bytes, (unsigned long long)(c1.dev_bytes - c0.dev_bytes),
           (unsigned long long)(c1.dev_calls - c0.dev_calls), (unsigned long long)(c1.managed_bytes - c0.managed_bytes),
           (unsigned long long)(c1.managed_calls - c0.managed_calls), (unsigned long long)(c1.pinned_calls - c0.pinned_calls),
           (unsigned long long)(c1.host_calls - c0.host_calls), (unsigned long long)(c1.host_bytes - c0.host_bytes));
    printf("%-8s after init: device %llu calls, managed %llu, host %llu calls %llu B, frees %llu | "
           "cudaMemGetInfo free drop %.2f MiB, VmHWM %.1f -> %.1f MiB\n", label,
           (unsigned long long)(c2.dev_calls - c1.dev_calls), (unsigned long long)(c2.managed_calls - c1.managed_calls),
           (unsigned long long)(c2.host_calls - c1.host_calls), (unsigned long long)(c2.host_bytes - c1.host_bytes),
           (unsigned long long)(c2.host_frees - c1.host_frees + c2.dev_frees - c1.dev_frees),
           free0 >= free1 ? (free0 - free1) / 1048576.0 : 0.0, hwm0 / 1048576.0, hwm1 / 1048576.0);
    if (kind != SAMRT_MEM_HOST) {
        CHECK_EQ_INT(pool_calls, 1);
        CHECK_EQ_INT(pool_bytes, m.arena_bytes);
        CHECK_EQ_INT(c1.pinned_calls - c0.pinned_calls, 0);
        /* the other device kind saw nothing */
        if (kind == SAMRT_MEM_DEVICE) CHECK_EQ_INT(c1.managed_calls - c0.managed_calls, 0);
        else CHECK_EQ_INT(c1.dev_calls - c0.dev_calls, 0);
        CHECK(m.mem_kind == kind);
    } else {
        /* the host pool is one aligned allocation of the padded arena among init's host calls */
        CHECK(c1.host_bytes - c0.host_bytes >= m.arena_bytes);
        CHECK_EQ_INT(c1.dev_calls + c1.managed_calls - c0.dev_calls - c0.managed_calls, 0);
    }
    CHECK_EQ_INT(c2.dev_calls - c1.dev_calls, 0);
    CHECK_EQ_INT(c2.managed_calls - c1.managed_calls, 0);
    CHECK_EQ_INT(c2.pinned_calls - c1.pinned_calls, 0);
    CHECK_EQ_INT(c2.host_calls - c1.host_calls, 0);
    samrt_engine_free(e);
    alloc_counts_get(&c3);
    if (kind != SAMRT_MEM_HOST) CHECK_EQ_INT(c3.dev_frees - c2.dev_frees, 1);
}

/* Measured = predicted: the pool engine init allocates (intercepted) equals the arena that
 * `samrt budget` plans for the same model, precision, object count and profile. */
static void budget_case(const char *path, enum samrt_model_id model, const char *platform, enum samrt_mem_kind kind,
                        enum samrt_dtype prec, int objects) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = platform;
    p.mem_kind = kind;
    p.precision = prec;
    p.max_objects = objects;
    samrt_engine_t plan = NULL, e = NULL;
    CHECK_STATUS(samrt_engine_init_plan_only(model, &p, &plan), SAMRT_OK);
    struct alloc_counts c0, c1;
    alloc_counts_get(&c0);
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_OK);
    alloc_counts_get(&c1);
    if (!plan || !e) {
        samrt_engine_free(plan);
        samrt_engine_free(e);
        return;
    }
    struct samrt_memory_report mp, me;
    samrt_engine_memory(plan, &mp);
    samrt_engine_memory(e, &me);
    uint64_t measured = kind == SAMRT_MEM_DEVICE ? c1.dev_bytes - c0.dev_bytes
                        : kind == SAMRT_MEM_UNIFIED ? c1.managed_bytes - c0.managed_bytes : me.arena_bytes;
    printf("budget   %s %s %s objects %d on %s: predicted %llu B, engine %llu B, intercepted %llu B%s\n",
           samrt_model_name(model), samrt_dtype_name(prec), samrt_mem_kind_name(kind), objects, platform,
           (unsigned long long)mp.arena_bytes, (unsigned long long)me.arena_bytes, (unsigned long long)measured,
           kind == SAMRT_MEM_HOST ? " (host pool: engine report)" : "");
    CHECK_EQ_INT(mp.arena_bytes, me.arena_bytes);
    CHECK_EQ_INT(mp.weights_bytes, me.weights_bytes);
    CHECK_EQ_INT(mp.scratch_bytes, me.scratch_bytes);
    CHECK_EQ_INT(mp.state_bytes, me.state_bytes);
    CHECK_EQ_INT(measured, mp.arena_bytes);
    CHECK(mp.scratch_bytes > 0);  /* the forward pass was planned, not only the weights */
    samrt_engine_free(plan);
    samrt_engine_free(e);
}

/* samrt_engine_segment allocates nothing once its key has its graph (the second call captures). */
static void segment_case(const char *path, const char *platform, enum samrt_dtype prec, int imgsz) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = platform;
    p.precision = prec;
    p.imgsz = imgsz;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_OK);
    if (!e) return;
    enum { IW = 80, IH = 60 };
    static uint8_t rgb[IH * IW * 3], mask[IH * IW];
    static float logits[IH * IW];
    for (int i = 0; i < IH * IW * 3; i++) rgb[i] = (uint8_t)(i * 7 + i / 97);
    struct samrt_object_prompt obj;
    memset(&obj, 0, sizeof obj);
    obj.n_clicks = 1;
    obj.clicks[0] = (struct samrt_click){40.0f, 30.0f, 1};
    const struct samrt_image img = {rgb, IW, IH, 3 * IW};
    struct samrt_mask_result r = {.mask = mask, .logits = logits};
    for (int i = 0; i < 2; i++)
        CHECK_STATUS(samrt_engine_segment(e, &img, &obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &r), SAMRT_OK);
    struct alloc_counts c0, c1;
    alloc_counts_get(&c0);
    for (int i = 0; i < 5; i++) {
        obj.clicks[0].x = 10.0f + 10.0f * i;  /* new prompt values, same key */
        r.logits = i & 1 ? NULL : logits;
        CHECK_STATUS(samrt_engine_segment(e, &img, &obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &r), SAMRT_OK);
    }
    alloc_counts_get(&c1);
    printf("segment  %s %s: 5 calls after the first two: device %llu calls, managed %llu, pinned %llu, host %llu calls "
           "%llu B\n", platform ? platform : "detected", samrt_dtype_name(prec),
           (unsigned long long)(c1.dev_calls - c0.dev_calls), (unsigned long long)(c1.managed_calls - c0.managed_calls),
           (unsigned long long)(c1.pinned_calls - c0.pinned_calls), (unsigned long long)(c1.host_calls - c0.host_calls),
           (unsigned long long)(c1.host_bytes - c0.host_bytes));
    CHECK_EQ_INT(c1.dev_calls - c0.dev_calls, 0);
    CHECK_EQ_INT(c1.managed_calls - c0.managed_calls, 0);
    CHECK_EQ_INT(c1.pinned_calls - c0.pinned_calls, 0);
    CHECK_EQ_INT(c1.host_calls - c0.host_calls, 0);
    samrt_engine_free(e);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "host";
    int gpu = !strcmp(mode, "gpu");
    if (gpu) {
#ifdef SAMRT_HAVE_CUDA
        int n = 0;
        samrt_platform_device_count(&n);
        if (n == 0) return check_skip("test_engine_alloc_cuda", "no CUDA device");
        cudaFree(0);  /* create the context first: it lies outside the arena */
#else
        return check_skip("test_engine_alloc_cuda", "CPU-only build");
#endif
    }
    char path[] = "/tmp/samrt_test_alloc_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_engine_alloc", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_EDGETAM, SAMRT_DTYPE_F32), 0);
    char tiny[] = "/tmp/samrt_test_tiny_XXXXXX";
    fd = mkstemp(tiny);
    if (fd >= 0) close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(tiny, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_BF16), 0);
    if (gpu) {
        static const enum samrt_dtype precs[] = {SAMRT_DTYPE_BF16, SAMRT_DTYPE_F16, SAMRT_DTYPE_F32};
        for (int i = 0; i < 3; i++)
            for (int k = 1; k <= 3; k += 2) budget_case(tiny, SAMRT_MODEL_SAM2_1_TINY, "h100-80gb", SAMRT_MEM_DEVICE, precs[i], k);
        budget_case(tiny, SAMRT_MODEL_SAM2_1_TINY, "orin-nano-8gb", SAMRT_MEM_UNIFIED, SAMRT_DTYPE_F16, 1);
        segment_case(tiny, NULL, SAMRT_DTYPE_BF16, 1024);
    } else {
        budget_case(tiny, SAMRT_MODEL_SAM2_1_TINY, "cpu", SAMRT_MEM_HOST, SAMRT_DTYPE_F32, 1);
        segment_case(tiny, "cpu", SAMRT_DTYPE_F32, 64);
    }
    unlink(tiny);
    if (gpu) {
        run_case(path, "device", NULL, SAMRT_MEM_DEVICE, SAMRT_DTYPE_BF16);
        run_case(path, "unified", NULL, SAMRT_MEM_UNIFIED, SAMRT_DTYPE_BF16);
        run_case(path, "device32", NULL, SAMRT_MEM_DEVICE, SAMRT_DTYPE_F32);
    } else {
        run_case(path, "host", "cpu", SAMRT_MEM_HOST, SAMRT_DTYPE_F32);
    }
    unlink(path);
    return check_report(gpu ? "test_engine_alloc_cuda" : "test_engine_alloc");
}
