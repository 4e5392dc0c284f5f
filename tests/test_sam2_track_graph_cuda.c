/* test_sam2_track_graph_cuda.c - the tracker's CUDA graph replay gives the bits of its eager
 * path. A SAM 2.1 tiny checkpoint with deterministic values (tests/ckpt_writer.h) is loaded
 * twice, one engine with graphs off (samrt_sam2_segment_configure(e, 0, 0): every frame runs
 * eagerly) and one with graphs on (each frame key: eager, then captured, then replayed). Both
 * track the same synthetic video (object 1 from frame 0, corrected on frame 9, object 2 from
 * frame 3; 40 frames, so the counts saturate and the steady keys replay many times), and after
 * every frame the results (masks, scores, areas, boxes), the low-res logits, the pointers and
 * the whole memory and pointer banks must be equal bit for bit. Also: the table-driven row
 * kernel against its reference (track_rows.h), the graph engine's stage times (every stage of
 * a replayed tracked frame > 0; stages a prompt-only frame does not run stay -1), and the
 * graph count stays within the cache. Tiny bf16 at side 512 and f32 at side 256; EdgeTAM
 * (a checkpoint of its keys, same construction, values x 0.125 so that fp16 stays finite) f16
 * at side 512; tiny f32 at side 256 again under the samurai memory policy (its kernels inside
 * the graph, per-object memory slots).
 * Optional argument: a substring of a run's name ("sam2.1_tiny bf16 512", "sam2.1_tiny f32 256",
 * "sam2.1_tiny samurai f32 256", "edgetam f16 512") runs only the runs it names, e.g. one run
 * per compute-sanitizer call (tools/gpu_suite.sh sanitize).
 * Exit 77 without a GPU. Run: ctest -R test_sam2_track_graph_cuda */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "engine_impl.h"
#include "platform.h"
#include "sam2.h"
#include "track_rows.h"

#define W 160
#define H 120
#define N_FRAMES 40

static uint8_t g_rgb[H * W * 3];

/* Frame t: a bright square drifting right (object 1) and a dark corner patch (object 2). */
static void make_frame(int t) {
    const int x0 = 30 + (t * 2) % 60;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = &g_rgb[(y * W + x) * 3];
            const int sq = x >= x0 && x < x0 + 45 && y >= 35 && y < 85, patch = x < 42 && y < 32;
            p[0] = (uint8_t)(sq ? 230 : patch ? 20 : 90 + x / 4);
            p[1] = (uint8_t)(sq ? 60 : patch ? 25 : 100 + y / 3);
            p[2] = (uint8_t)(sq ? 50 : patch ? 160 : (x + 2 * y + t) & 127);
        }
}

/* Device bytes -> a new host buffer. */
static uint8_t *fetch(const void *dev, size_t n) {
    uint8_t *h = malloc(n);
    if (h && cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(h);
        return NULL;
    }
    return h;
}

/* Device state of a tracker that must match: cur_low, cur_score, cur_ptr, mem_bank, ptr_bank. */
static int same_state(const struct samrt_sam2_tracker *a, const struct samrt_sam2_tracker *b, int f) {
    const struct samrt_tensor *ta[5] = {&a->cur_low, &a->cur_score, &a->cur_ptr, &a->mem_bank, &a->ptr_bank};
    const struct samrt_tensor *tb[5] = {&b->cur_low, &b->cur_score, &b->cur_ptr, &b->mem_bank, &b->ptr_bank};
    static const char *name[5] = {"low-res logits", "scores", "pointers", "memory bank", "pointer bank"};
    int ok = 1;
    for (int i = 0; i < 5; i++) {
        const size_t n = samrt_tensor_nbytes(ta[i]);
        uint8_t *x = fetch(ta[i]->data, n), *y = fetch(tb[i]->data, n);
        CHECK(x && y);
        const int same = x && y && memcmp(x, y, n) == 0;
        CHECK_MSG(same, "frame %d: %s differ between the eager and the graph engine", f, name[i]);
        ok &= same;
        free(x);
        free(y);
    }
    return ok;
}

static enum samrt_memory_policy g_policy = SAMRT_MEMORY_SAM2;

static samrt_engine_t make_engine(const char *ckpt, enum samrt_dtype dt, int side, int graphs) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.memory = g_policy;
    p.precision = dt;
    p.imgsz = side;
    p.max_objects = 2;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    if (e) CHECK_STATUS(samrt_sam2_segment_configure(e, graphs, 0), SAMRT_OK);
    return e;
}

static int push(samrt_engine_t e, int t, uint8_t (*mask)[H * W], struct samrt_track_result *res, int *n) {
    static const struct samrt_object_prompt a = {.n_clicks = 1, .clicks = {{55.0f, 60.0f, 1}}};
    static const struct samrt_object_prompt b = {.has_box = 1, .box = {5, 5, 40, 30}};
    static const struct samrt_object_prompt fix = {.n_clicks = 2, .clicks = {{60.0f, 60.0f, 1}, {150.0f, 110.0f, 0}}};
    if (t == 0) CHECK_STATUS(samrt_engine_track_prompt(e, 1, &a), SAMRT_OK);
    if (t == 3) CHECK_STATUS(samrt_engine_track_prompt(e, 2, &b), SAMRT_OK);
    if (t == 9) CHECK_STATUS(samrt_engine_track_prompt(e, 1, &fix), SAMRT_OK);
    memset(mask, 0xcd, 2 * (size_t)H * W);  /* poison: every pixel must be written */
    memset(res, 0xcd, 2 * sizeof *res);
    res[0].mask = mask[0];
    res[1].mask = mask[1];
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    const enum samrt_status st = samrt_engine_track_push(e, &img, 0, res, 2, n);
    CHECK_STATUS(st, SAMRT_OK);
    return st == SAMRT_OK;
}

static void stage_checks(samrt_engine_t e, int t) {
    struct samrt_stage_times s;
    CHECK_STATUS(samrt_engine_stage_times(e, &s), SAMRT_OK);
    if (t == 0) {  /* only a prompted object: the frame's one graph has no memory attention */
        CHECK(s.memory_attention_ms == -1.0f);
        CHECK(s.h2d_ms > 0 && s.preprocess_ms > 0 && s.image_encoder_ms > 0 && s.prompt_and_mask_decoder_ms > 0 &&
              s.memory_encoder_ms > 0 && s.d2h_ms > 0);
    }
    if (t == N_FRAMES - 1) {  /* a replayed tracked frame: every stage, timed inside the graph */
        const float v[8] = {s.preprocess_ms, s.h2d_ms, s.image_encoder_ms, s.memory_attention_ms,
                            s.prompt_and_mask_decoder_ms, s.memory_encoder_ms, s.postprocess_ms, s.d2h_ms};
        for (int i = 0; i < 8; i++) CHECK_MSG(v[i] > 0.0f, "stage %d of the last frame: %g ms", i, (double)v[i]);
        printf("  stage times of frame %d (ms): h2d %.3f preprocess %.3f image_encoder %.3f memory_attention %.3f "
               "prompt_and_mask_decoder %.3f memory_encoder %.3f d2h %.3f postprocess %.3f\n",
               t, (double)s.h2d_ms, (double)s.preprocess_ms, (double)s.image_encoder_ms,
               (double)s.memory_attention_ms, (double)s.prompt_and_mask_decoder_ms, (double)s.memory_encoder_ms,
               (double)s.d2h_ms, (double)s.postprocess_ms);
    }
}

static void eager_vs_graph(const char *model, const char *ckpt, enum samrt_dtype dt, int side) {
    samrt_engine_t ee = make_engine(ckpt, dt, side, 0), eg = make_engine(ckpt, dt, side, 1);
    if (ee && eg) {
        static uint8_t me[2][H * W], mg[2][H * W];
        struct samrt_track_result re[2], rg[2];
        CHECK_STATUS(samrt_engine_track_begin(ee, W, H), SAMRT_OK);
        CHECK_STATUS(samrt_engine_track_begin(eg, W, H), SAMRT_OK);
        const struct samrt_sam2_tracker *te = &samrt_sam2_of(ee)->trk, *tg = &samrt_sam2_of(eg)->trk;
        int n_diff = 0, f = 0;
        for (; f < N_FRAMES; f++) {
            make_frame(f);
            int ne = -1, ng = -2;
            if (!push(ee, f, me, re, &ne) || !push(eg, f, mg, rg, &ng)) break;
            CHECK_EQ_INT(ne, ng);
            CHECK_EQ_INT(ne, f >= 3 ? 2 : 1);
            for (int i = 0; i < ne && i < 2 && ne == ng; i++) {
                const int same = re[i].obj_id == rg[i].obj_id && re[i].area == rg[i].area &&
                                 !memcmp(&re[i].object_score, &rg[i].object_score, sizeof(float)) &&
                                 !memcmp(re[i].box, rg[i].box, sizeof re[i].box) && !memcmp(me[i], mg[i], H * W);
                CHECK_MSG(same, "frame %d object %d: results differ (score %a vs %a, area %d vs %d)", f, i,
                          (double)re[i].object_score, (double)rg[i].object_score, re[i].area, rg[i].area);
                n_diff += !same;
            }
            n_diff += !same_state(te, tg, f);
            stage_checks(eg, f);
        }
        CHECK_EQ_INT(f, N_FRAMES);
        CHECK_EQ_INT(te->graphs.n_captures, 0);
        CHECK(tg->graphs.n_captures >= 2 && tg->graphs.n_captures <= N_FRAMES / 2);  /* the steady keys, each once */
        CHECK(tg->graphs.n <= SAMRT_TRACK_GRAPHS);
        printf("%s %s side %d: %d frames, eager vs graph: %d differences; graphs captured %d (cached %d)\n", model,
               samrt_dtype_name(dt), side, f, n_diff, tg->graphs.n_captures, tg->graphs.n);
    }
    samrt_engine_free(ee);
    samrt_engine_free(eg);
}

/* The row kernel against the reference: rows of 1 KiB and of 48 bytes, a pair out of range
 * (skipped by the kernel, refused by the reference). */
static void rows_kernel(void) {
    const int n_src = 5, n_dst = 7;
    const size_t rb[2] = {1024, 48};
    for (int r = 0; r < 2; r++) {
        const size_t row = rb[r];
        uint8_t *src = malloc(row * n_src), *want = malloc(row * n_dst), *got = malloc(row * n_dst);
        CHECK(src && want && got);
        if (!src || !want || !got) return;
        for (size_t i = 0; i < row * n_src; i++) src[i] = (uint8_t)(i * 7 + r);
        memset(want, 0xff, row * n_dst);  /* poison: rows without a pair keep it */
        const int32_t pairs[5 * 2] = {6, 0, 0, 4, 3, 3, 1, 4, 2, 1};
        struct samrt_track_rows_args a = {want, src, row, n_dst, n_src, pairs, 5};
        CHECK_STATUS(samrt_track_rows_ref(&a), SAMRT_OK);
        void *d_src = NULL, *d_dst = NULL, *d_pairs = NULL;
        const int32_t pairs_bad[6 * 2] = {6, 0, 0, 4, 3, 3, 1, 4, 2, 1, 5, 9};  /* the last: source out of range */
        CHECK(cudaMalloc(&d_src, row * n_src) == cudaSuccess && cudaMalloc(&d_dst, row * n_dst) == cudaSuccess &&
              cudaMalloc(&d_pairs, sizeof pairs_bad) == cudaSuccess);
        cudaMemcpy(d_src, src, row * n_src, cudaMemcpyHostToDevice);
        cudaMemset(d_dst, 0xff, row * n_dst);
        cudaMemcpy(d_pairs, pairs_bad, sizeof pairs_bad, cudaMemcpyHostToDevice);
        struct samrt_track_rows_args d = {d_dst, d_src, row, n_dst, n_src, d_pairs, 6};
        CHECK_STATUS(samrt_track_rows_cuda(&d, NULL), SAMRT_OK);
        CHECK(cudaMemcpy(got, d_dst, row * n_dst, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK_MSG(memcmp(got, want, row * n_dst) == 0, "row kernel != reference (rows of %zu bytes)", row);
        d.row_bytes = 40;  /* not a multiple of 16 */
        CHECK_STATUS(samrt_track_rows_cuda(&d, NULL), SAMRT_E_INVALID_ARG);
        cudaFree(d_src);
        cudaFree(d_dst);
        cudaFree(d_pairs);
        free(src);
        free(want);
        free(got);
    }
}

/* the run filter (argv[1]): NULL runs every run */
static const char *g_only;
static int g_n_wanted;
static int wanted(const char *model, enum samrt_dtype dt, int side) {
    char name[96];
    snprintf(name, sizeof name, "%s %s %d", model, samrt_dtype_name(dt), side);
    const int yes = !g_only || strstr(name, g_only) != NULL;
    g_n_wanted += yes;
    return yes;
}

int main(int argc, char **argv) {
    g_only = argc > 1 ? argv[1] : NULL;
    int n_dev = 0;
    if (samrt_platform_device_count(&n_dev) != SAMRT_OK || n_dev == 0)
        return check_skip("test_sam2_track_graph_cuda", "no CUDA device");
    rows_kernel();
    char path[] = "/tmp/samrt_test_track_graph_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_sam2_track_graph_cuda", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32), 0);
    if (wanted("sam2.1_tiny", SAMRT_DTYPE_BF16, 512)) eager_vs_graph("sam2.1_tiny", path, SAMRT_DTYPE_BF16, 512);
    if (wanted("sam2.1_tiny", SAMRT_DTYPE_F32, 256)) eager_vs_graph("sam2.1_tiny", path, SAMRT_DTYPE_F32, 256);
    g_policy = SAMRT_MEMORY_SAMURAI;
    if (wanted("sam2.1_tiny samurai", SAMRT_DTYPE_F32, 256))
        eager_vs_graph("sam2.1_tiny samurai", path, SAMRT_DTYPE_F32, 256);
    g_policy = SAMRT_MEMORY_DAM4SAM;  /* its decision kernel (union-find atomics) replays the same bits */
    if (wanted("sam2.1_tiny dam4sam", SAMRT_DTYPE_F32, 256))
        eager_vs_graph("sam2.1_tiny dam4sam", path, SAMRT_DTYPE_F32, 256);
    g_policy = SAMRT_MEMORY_SAM2;
    /* EdgeTAM: RepViT trunk, perceiver memories (512 tokens), the 2-layer RoPE v2 attention */
    float scale = 0.125f;  /* the pattern's values overflow fp16 in EdgeTAM's trunk */
    CHECK_EQ_INT(ckw_write_safetensors_fn(path, SAMRT_MODEL_EDGETAM, SAMRT_DTYPE_F32, ckw_pattern_scaled, &scale), 0);
    if (wanted("edgetam", SAMRT_DTYPE_F16, 512)) eager_vs_graph("edgetam", path, SAMRT_DTYPE_F16, 512);
    unlink(path);
    CHECK_MSG(g_n_wanted > 0, "no run matches '%s'", g_only ? g_only : "");
    return check_report("test_sam2_track_graph_cuda");
}
