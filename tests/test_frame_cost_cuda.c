/* test_frame_cost_cuda.c - the planned work of a frame (samrt_internal_frame_cost, what
 * `samrt budget` prints) against what the GPU really runs: a SAM 2.1 tiny and an EdgeTAM
 * checkpoint with deterministic values (tests/ckpt_writer.h) track one object prompted on
 * frame 0 through 24 frames at 1024 input, in fp16 and bf16. By frame 17 the bank is full (7
 * memories, 16 pointers), the frame key is steady and its graph replays; the engines count the
 * kernels of each library plan at setup (SAMRT_COUNT_KERNELS=1); the kernel nodes of
 * that graph must equal the planned launches inside the graph (all but the mask decode, which
 * runs after it), and its memcpy nodes the planned copies. A
 * change that adds a launch to the frame without counting it (or counts one that does not
 * run) fails here. The planned and measured figures are printed for the docs.
 * Exit 77 without a GPU. Run: ctest -R test_frame_cost_cuda */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "platform.h"
#include "samrt_internal.h"

#define W 1280
#define H 720
#define N_FRAMES 24

static uint8_t g_rgb[(size_t)H * W * 3];

static void make_frame(int t) {
    const int x0 = 300 + (t * 7) % 400;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = &g_rgb[((size_t)y * W + x) * 3];
            const int sq = x >= x0 && x < x0 + 280 && y >= 200 && y < 480;
            p[0] = (uint8_t)(sq ? 230 : 90 + x / 16);
            p[1] = (uint8_t)(sq ? 60 : 100 + y / 12);
            p[2] = (uint8_t)(sq ? 50 : (x + 2 * y + t) & 127);
        }
}

static void one(const char *model, const char *ckpt, enum samrt_dtype dt) {
    fprintf(stderr, "== engine %s %s\n", model, samrt_dtype_name(dt));
    struct samrt_engine_params p = samrt_engine_default_params();
    p.precision = dt;
    p.max_objects = 1;
    p.max_frame_width = W;
    p.max_frame_height = H;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    if (!e) return;
    struct samrt_internal_frame_cost fc;
    CHECK_STATUS(samrt_internal_frame_cost(e, 1, W, H, &fc), SAMRT_OK);
    CHECK_STATUS(samrt_engine_track_begin(e, W, H), SAMRT_OK);
    static const struct samrt_object_prompt a = {.n_clicks = 1, .clicks = {{450.0f, 340.0f, 1}}};
    CHECK_STATUS(samrt_engine_track_prompt(e, 1, &a), SAMRT_OK);
    static uint8_t mask[(size_t)H * W];
    int kernels = 0, copies = 0, f = 0;
    for (; f < N_FRAMES; f++) {
        make_frame(f);
        struct samrt_track_result r = {.mask = mask};
        int n = 0;
        const struct samrt_image img = {g_rgb, W, H, 3 * W};
        if (f == N_FRAMES - 1) samrt_nvtx_push("steady");  /* the last frame, for Nsight Compute */
        const enum samrt_status st = samrt_engine_track_push(e, &img, 0, &r, 1, &n);
        if (f == N_FRAMES - 1) samrt_nvtx_pop();
        CHECK_STATUS(st, SAMRT_OK);
        if (st != SAMRT_OK) break;
    }
    CHECK_STATUS(samrt_internal_track_graph_nodes(e, &kernels, &copies), SAMRT_OK);
    CHECK_MSG(kernels > 0, "%s %s: the last frame did not replay a graph", model, samrt_dtype_name(dt));
    printf("%s %s, 1 object, %dx%d, frame %d: planned %lld launches (%lld in the graph), %lld copies; the graph "
           "holds %d kernels, %d memcpy nodes\n", model, samrt_dtype_name(dt), W, H, f - 1, (long long)fc.total.launches,
           (long long)fc.graph_launches, (long long)fc.total.copies, kernels, copies);
    for (int i = 0; i < SAMRT_INTERNAL_STAGES; i++)
        printf("  %-18s %5lld launches %3lld copies %10.3f GFLOP %10.2f MB\n", samrt_internal_stage_name(i),
               (long long)fc.stage[i].launches, (long long)fc.stage[i].copies, fc.stage[i].flops / 1e9,
               fc.stage[i].bytes / 1e6);
    CHECK_MSG(kernels == fc.graph_launches, "%s %s: the graph runs %d kernels, the plan says %lld", model,
              samrt_dtype_name(dt), kernels, (long long)fc.graph_launches);
    CHECK_MSG(copies == fc.total.copies, "%s %s: the graph runs %d copies, the plan says %lld", model,
              samrt_dtype_name(dt), copies, (long long)fc.total.copies);
    samrt_engine_free(e);
}

/* argv: [model dtype] runs that one engine (sam2.1_tiny | edgetam, fp16 | bf16), e.g. under
 *   ncu --nvtx --nvtx-include "steady/" --graph-profiling graph --metrics dram__bytes_read.sum,...
 * to measure the last (steady) frame's graph as one workload. */
static int wanted(int argc, char **argv, const char *model, enum samrt_dtype dt) {
    enum samrt_dtype want;
    return argc < 3 || (!strcmp(argv[1], model) && samrt_dtype_parse(argv[2], &want) == SAMRT_OK && want == dt);
}

int main(int argc, char **argv) {
    setenv("SAMRT_COUNT_KERNELS", "1", 1);  /* plans count what cuBLASLt and cuDNN launch */
    int n_dev = 0;
    if (samrt_platform_device_count(&n_dev) != SAMRT_OK || n_dev == 0)
        return check_skip("test_frame_cost_cuda", "no CUDA device");
    char path[] = "/tmp/samrt_test_frame_cost_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_frame_cost_cuda", "cannot create a temporary file");
    close(fd);
    float scale = 0.125f;  /* the pattern's values overflow fp16 at 1024 input */
    CHECK_EQ_INT(ckw_write_safetensors_fn(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32, ckw_pattern_scaled, &scale), 0);
    if (wanted(argc, argv, "sam2.1_tiny", SAMRT_DTYPE_F16)) one("sam2.1_tiny", path, SAMRT_DTYPE_F16);
    if (wanted(argc, argv, "sam2.1_tiny", SAMRT_DTYPE_BF16)) one("sam2.1_tiny", path, SAMRT_DTYPE_BF16);
    CHECK_EQ_INT(ckw_write_safetensors_fn(path, SAMRT_MODEL_EDGETAM, SAMRT_DTYPE_F32, ckw_pattern_scaled, &scale), 0);
    if (wanted(argc, argv, "edgetam", SAMRT_DTYPE_F16)) one("edgetam", path, SAMRT_DTYPE_F16);
    if (wanted(argc, argv, "edgetam", SAMRT_DTYPE_BF16)) one("edgetam", path, SAMRT_DTYPE_BF16);
    unlink(path);
    return check_report("test_frame_cost_cuda");
}
