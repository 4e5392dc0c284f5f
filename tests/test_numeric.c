/* test_numeric.c - non-finite results are reported, never returned (runtime/health.h). A SAM
 * 2.1 tiny checkpoint of small deterministic values (tests/ckpt_writer.h, x SCALE) segments
 * and tracks a synthetic clip without complaint; the same checkpoint with the patch embedding
 * scaled past a precision's range makes samrt_engine_segment and the prompted
 * samrt_engine_track_push return SAMRT_E_NUMERIC, with a log line that names the image
 * embedding (and at fp16 says to use bf16), after which the engine refuses the next push
 * (SAMRT_E_BAD_STATE), so nothing non-finite reaches the memory bank.
 *   host (ctest test_numeric, CPU backend, which runs f32 only): boost 1e38 overflows f32,
 *        once in the patch embedding (segment and the prompted push fail), once only in the
 *        memory encoder (segmentation passes; the tracker's own check names the memories).
 *   gpu  (test_numeric_cuda): also fp16 with boost 65536 (the stem output passes 65504), and
 *        bf16 with the same checkpoint runs clean: large finite values do not fire the check.
 * The check itself (kernels/finite.h) is tested in test_finite.c and test_finite_cuda.c.
 * Run: test_numeric [host|gpu]   (gpu: exit 77 without a GPU) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "sam2_track_util.h"

#define W 80
#define H 60
#define SIDE 64
#define SCALE 0.125f
#define BOOST_F16 65536.0f  /* stem output past fp16's 65504, far inside bf16's range */
#define BOOST_F32 1e38f     /* the same past f32's range */

static uint8_t g_rgb[H * W * 3];
static char g_log[4096];

static void keep_log(enum samrt_log_level level, const char *msg, void *user) {
    (void)user;
    if (level == SAMRT_LOG_ERROR) strncat(g_log, msg, sizeof g_log - strlen(g_log) - 2), strcat(g_log, "\n");
}

/* A boost: the checkpoint keys containing `key` are multiplied by `by`. */
struct boost {
    const char *key;
    float by;
};

static float scaled(const struct samrt_key *k, int i, int64_t j, void *user) {
    float v = ckw_pattern(k, i, j, NULL);
    if (strstr(k->name, "running_var")) return v;
    v *= SCALE;
    const struct boost *b = user;
    if (b && strstr(k->name, b->key)) v *= b->by;
    return v;
}

/* Segments once, then prompts and pushes n frames; returns the first failing status. */
static enum samrt_status run(samrt_engine_t e, int n, enum samrt_status *seg_st) {
    struct samrt_object_prompt pr[2];
    trk_two_prompts(pr);
    static uint8_t mask[H * W];
    struct samrt_mask_result mr = {mask, NULL, 0, 0, 0, {0}};
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    trk_make_frame(g_rgb, W, H, 0);
    *seg_st = samrt_engine_segment(e, &img, pr, 1, SAMRT_POSTPROC_VOS_INFERENCE, &mr);
    enum samrt_status st = samrt_engine_track_begin(e, W, H);
    if (st == SAMRT_OK) st = samrt_engine_track_prompt(e, 1, &pr[0]);
    for (int f = 0; f < n && st == SAMRT_OK; f++) {
        trk_make_frame(g_rgb, W, H, f);
        struct samrt_track_result r = {0, mask, 0, 0, {0}};
        int n_res = 0;
        st = samrt_engine_track_push(e, &img, 0, &r, 1, &n_res);
    }
    return st;
}

/* Segments, then tracks (frame 0 prompted, then tracked frames) at precision `prec`: want_seg
 * and want_track are the statuses of samrt_engine_segment and of the first failing push;
 * after a failed push the engine refuses the next one. log_has: a line the log must hold. */
static void expect(const char *ckpt, const char *platform, enum samrt_dtype prec, enum samrt_status want_seg,
                   enum samrt_status want_track, const char *log_has) {
    struct samrt_engine_params p = trk_params(SIDE, 1);
    p.platform = platform;
    p.precision = prec;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    if (!e) return;
    g_log[0] = 0;
    enum samrt_status seg;
    const enum samrt_status st = run(e, 3, &seg);
    CHECK_MSG(st == want_track && seg == want_seg, "%s %s: segment %s, track %s, want %s / %s",
              platform ? platform : "device", samrt_dtype_name(prec), samrt_status_str(seg), samrt_status_str(st),
              samrt_status_str(want_seg), samrt_status_str(want_track));
    if (!log_has) {
        CHECK_MSG(g_log[0] == 0, "unexpected errors: %s", g_log);
    } else {
        CHECK_MSG(strstr(g_log, log_has) != NULL, "log lacks '%s': %s", log_has, g_log);
    }
    if (want_track != SAMRT_OK) {
        const struct samrt_image img = {g_rgb, W, H, 3 * W};
        struct samrt_track_result r = {0, NULL, 0, 0, {0}};
        int n_res = -1;
        CHECK_STATUS(samrt_engine_track_push(e, &img, 0, &r, 1, &n_res), SAMRT_E_BAD_STATE);
        CHECK_EQ_INT(n_res, 0);
    }
    samrt_engine_free(e);
}

static int write_ckpt(char *path, const struct boost *b) {
    const int fd = mkstemp(path);
    if (fd < 0) return -1;
    close(fd);
    return ckw_write_safetensors_fn(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32, scaled, (void *)b);
}

int main(int argc, char **argv) {
    const int gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    const char *name = gpu ? "test_numeric_cuda" : "test_numeric";
    int n_dev = 0;
    if (gpu && (samrt_device_count(&n_dev) != SAMRT_OK || n_dev == 0))
        return check_skip(name, samrt_has_cuda() ? "no CUDA device visible" : "a build without CUDA");
    char plain[] = "/tmp/samrt_test_numeric_XXXXXX", f16[] = "/tmp/samrt_test_numeric_h_XXXXXX",
         f32[] = "/tmp/samrt_test_numeric_f_XXXXXX", mem[] = "/tmp/samrt_test_numeric_m_XXXXXX";
    const struct boost b16 = {"trunk.patch_embed.proj.weight", BOOST_F16},
                       b32 = {"trunk.patch_embed.proj.weight", BOOST_F32}, bmem = {"memory_encoder.out_proj", BOOST_F32};
    if (write_ckpt(plain, NULL) || write_ckpt(f16, &b16) || write_ckpt(f32, &b32) || write_ckpt(mem, &bmem))
        return check_skip(name, "cannot write the temporary checkpoints");
    samrt_log_set(keep_log, NULL, SAMRT_LOG_ERROR);
    const char *platform = gpu ? NULL : "cpu";
    const char *emb = "segment: non-finite values in the image embedding";
    expect(plain, platform, SAMRT_DTYPE_F32, SAMRT_OK, SAMRT_OK, NULL);
    expect(f32, platform, SAMRT_DTYPE_F32, SAMRT_E_NUMERIC, SAMRT_E_NUMERIC, emb);
    /* only the memory encoder overflows: the prompted frame's segmentation is fine, its
     * memory is not, and the tracker's own check names it */
    expect(mem, platform, SAMRT_DTYPE_F32, SAMRT_OK, SAMRT_E_NUMERIC, "track: frame 0: non-finite values in the memories");
    if (gpu) {  /* the CPU backend runs f32 only */
        expect(plain, platform, SAMRT_DTYPE_F16, SAMRT_OK, SAMRT_OK, NULL);
        expect(f16, platform, SAMRT_DTYPE_F16, SAMRT_E_NUMERIC, SAMRT_E_NUMERIC, "run this checkpoint with bf16 precision");
        expect(f16, platform, SAMRT_DTYPE_BF16, SAMRT_OK, SAMRT_OK, NULL);
    }
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    unlink(plain), unlink(f16), unlink(f32), unlink(mem);
    CHECK_MSG(strcmp(samrt_status_str(SAMRT_E_NUMERIC), "non-finite results") == 0, "status name");
    return check_report(name);
}
