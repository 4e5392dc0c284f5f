/* test_sam2_segment.c - samrt_engine_segment end to end: a SAM 2.1 tiny checkpoint with
 * deterministic values (tests/ckpt_writer.h), a synthetic 96x72 image, two objects (a click,
 * a box). Checks what the public call promises: masks are 0/1 and match the reported area and
 * box, the logits threshold to the mask, results are finite, repeated calls agree bit for
 * bit, an object alone equals itself in a batch, and every kind of bad input is refused with
 * SAMRT_E_INVALID_ARG without breaking the engine.
 *   host: a host-pool engine (CPU backend) at a 64-pixel model side, so the reference kernels
 *         finish quickly.
 *   gpu:  the CUDA backend at a 128 side against the CPU backend (f32, logits within
 *         TOL_GPU_F32 of the largest; also with a mask prompt), the same API checks, then
 *         the production 1024 side at f32 and bf16 (consistency, and the bf16 mask against
 *         the f32 one). Exit 77 without a GPU. On the bf16 engine: the CUDA graph replay
 *         (a key's second call captures, segment.h) against eager runs of the same calls, bit
 *         for bit, across key changes; the eager timed mode too.
 *   both: a frame larger than params max_frame_width x max_frame_height is SAMRT_E_INVALID_ARG,
 *         and so is an engine asked for a max frame side of 0.
 * Run: ctest -R test_sam2_segment */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "platform.h"
#include "segment.h"

#define W 96
#define H 72
#define TOL_GPU_F32 1e-3   /* of max |logit|: fp32 with other summation orders */
#define MIN_AGREE_BF16 0.9 /* bf16 vs f32 masks on confident pixels, patterned weights */

static void quiet(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

static void check_result(const struct samrt_mask_result *r, const char *what) {
    int area = 0, x0 = W, y0 = H, x1 = -1, y1 = -1, consistent = 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t m = r->mask[y * W + x];
            consistent &= m <= 1 && (m == 1) == (r->logits[y * W + x] > 0.0f) && isfinite(r->logits[y * W + x]);
            if (!m) continue;
            area++;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    CHECK_MSG(consistent, "%s: mask, logits and threshold disagree", what);
    CHECK_EQ_INT(r->area, area);
    CHECK(r->box[0] == x0 && r->box[1] == y0 && r->box[2] == x1 && r->box[3] == y1);
    CHECK(isfinite(r->object_score) && r->iou >= 0.0f && r->iou <= 1.0f);
    if (r->object_score <= 0.0f) CHECK_EQ_INT(area, 0);  /* the gate */
    printf("%s: score %+.4f iou %.4f area %d box (%d,%d)-(%d,%d)\n", what, r->object_score, r->iou, r->area,
           r->box[0], r->box[1], r->box[2], r->box[3]);
}

static uint8_t g_rgb[H * W * 3];
static struct samrt_object_prompt g_obj[2];

static void make_inputs(void) {
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int in = x > 30 && x < 70 && y > 20 && y < 55;
            g_rgb[(y * W + x) * 3 + 0] = (uint8_t)(in ? 220 : 2 * x);
            g_rgb[(y * W + x) * 3 + 1] = (uint8_t)(in ? 40 : 3 * y);
            g_rgb[(y * W + x) * 3 + 2] = (uint8_t)((x * y) & 255);
        }
    memset(g_obj, 0, sizeof g_obj);
    g_obj[0].n_clicks = 1;
    g_obj[0].clicks[0] = (struct samrt_click){50.0f, 37.0f, 1};
    g_obj[1].has_box = 1;
    g_obj[1].box[0] = 30, g_obj[1].box[1] = 20, g_obj[1].box[2] = 70, g_obj[1].box[3] = 55;
}

static samrt_engine_t make_engine(const char *ckpt, const char *platform, enum samrt_dtype dt, int imgsz) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = platform;
    p.precision = dt;
    p.imgsz = imgsz;
    p.max_objects = 2;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    return e;
}

/* Segments both objects; logits (2, H, W) and masks (2, H, W) into the caller's arrays. */
static enum samrt_status segment2(samrt_engine_t e, float *logits, uint8_t *masks, struct samrt_mask_result *res,
                                  const char *what) {
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    for (int i = 0; i < 2; i++)
        res[i] = (struct samrt_mask_result){.mask = masks + i * H * W, .logits = logits + i * H * W};
    enum samrt_status st = samrt_engine_segment(e, &img, g_obj, 2, SAMRT_POSTPROC_VOS_INFERENCE, res);
    CHECK_STATUS(st, SAMRT_OK);
    char name[64];
    for (int i = 0; st == SAMRT_OK && i < 2; i++) {
        snprintf(name, sizeof name, "%s %s", what, i ? "box" : "click");
        check_result(&res[i], name);
    }
    return st;
}

/* The promises of the API on one engine. */
static void api_checks(samrt_engine_t e) {
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    static uint8_t masks[2][H * W], m2[2][H * W], m1[H * W];
    static float logits[2][H * W], l2[2][H * W], l1[H * W];
    struct samrt_mask_result res[2], again[2], one;
    if (segment2(e, &logits[0][0], &masks[0][0], res, "api") != SAMRT_OK) return;
    /* the same call again: the same bits; the box object alone: the same result */
    CHECK_STATUS(segment2(e, &l2[0][0], &m2[0][0], again, "again"), SAMRT_OK);
    CHECK(memcmp(l2, logits, sizeof l2) == 0 && again[1].iou == res[1].iou);
    one = (struct samrt_mask_result){.mask = m1, .logits = l1};
    CHECK_STATUS(samrt_engine_segment(e, &img, &g_obj[1], 1, SAMRT_POSTPROC_VOS_INFERENCE, &one), SAMRT_OK);
    CHECK(memcmp(l1, logits[1], sizeof l1) == 0 && one.object_score == res[1].object_score);
    /* notebook settings differ only for single-mask prompts: the click is unchanged */
    for (int i = 0; i < 2; i++) again[i] = (struct samrt_mask_result){.mask = m2[i], .logits = l2[i]};
    CHECK_STATUS(samrt_engine_segment(e, &img, g_obj, 2, SAMRT_POSTPROC_NOTEBOOK, again), SAMRT_OK);
    CHECK(memcmp(l2[0], logits[0], sizeof l2[0]) == 0);
    /* logits are optional */
    one.logits = NULL;
    CHECK_STATUS(samrt_engine_segment(e, &img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &one), SAMRT_OK);
    CHECK(memcmp(m1, masks[0], sizeof m1) == 0);

    /* bad input: refused, and the engine keeps working */
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR);
    struct samrt_object_prompt bad = g_obj[0];
    bad.clicks[0].x = W;  /* outside */
    CHECK_STATUS(samrt_engine_segment(e, &img, &bad, 1, SAMRT_POSTPROC_VOS_INFERENCE, res), SAMRT_E_INVALID_ARG);
    bad = g_obj[1];
    bad.box[2] = W + 1;
    CHECK_STATUS(samrt_engine_segment(e, &img, &bad, 1, SAMRT_POSTPROC_VOS_INFERENCE, res), SAMRT_E_INVALID_ARG);
    struct samrt_object_prompt three[3] = {g_obj[0], g_obj[1], g_obj[0]};
    struct samrt_mask_result r3[3] = {res[0], res[1], res[0]};
    CHECK_STATUS(samrt_engine_segment(e, &img, three, 3, SAMRT_POSTPROC_VOS_INFERENCE, r3), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_segment(e, &img, g_obj, 0, SAMRT_POSTPROC_VOS_INFERENCE, res), SAMRT_E_INVALID_ARG);
    struct samrt_image bad_img = img;
    bad_img.stride = W;
    CHECK_STATUS(samrt_engine_segment(e, &bad_img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, res), SAMRT_E_INVALID_ARG);
    bad_img = img;
    bad_img.rgb = NULL;
    CHECK_STATUS(samrt_engine_segment(e, &bad_img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, res), SAMRT_E_INVALID_ARG);
    struct samrt_mask_result no_mask = {0};
    CHECK_STATUS(samrt_engine_segment(e, &img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &no_mask),
                 SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_segment(e, &img, g_obj, 1, (enum samrt_postproc)7, res), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_engine_segment(NULL, &img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, res), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    CHECK_STATUS(segment2(e, &l2[0][0], &m2[0][0], again, "after errors"), SAMRT_OK);
    CHECK(memcmp(l2, logits, sizeof l2) == 0);
}

/* Results of two runs agree bit for bit (masks, logits, scores, stats). */
static void check_same(const struct samrt_mask_result *a, const struct samrt_mask_result *b, int n, const char *what) {
    for (int i = 0; i < n; i++) {
        CHECK_MSG(memcmp(a[i].mask, b[i].mask, H * W) == 0, "%s: object %d masks differ", what, i);
        CHECK_MSG(memcmp(a[i].logits, b[i].logits, sizeof(float) * H * W) == 0, "%s: object %d logits differ", what,
                  i);
        CHECK_MSG(!memcmp(&a[i].object_score, &b[i].object_score, sizeof(float)) &&
                      !memcmp(&a[i].iou, &b[i].iou, sizeof(float)) && a[i].area == b[i].area &&
                      !memcmp(a[i].box, b[i].box, sizeof a[i].box),
                  "%s: object %d scores or stats differ", what, i);
    }
}

/* Graph replay vs eager: the same calls (two keys: A = both objects, B = the box alone with
 * the notebook settings) give the same bits. The engine has run A once before, so with graphs
 * on: A captures, B runs eagerly (first call), B captures, A replays. */
static void graph_checks(samrt_engine_t e) {
    static float lg[4][2 * H * W], le[4][2 * H * W];
    static uint8_t mg[4][2 * H * W], me[4][2 * H * W];
    struct samrt_mask_result rg[4][2], re[4][2];
    static const char *what[4] = {"A capture", "B first", "B capture", "A replay"};
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    for (int pass = 0; pass < 2; pass++) {  /* 0: graphs on, 1: eager */
        CHECK_STATUS(samrt_sam2_segment_configure(e, pass == 0, 0), SAMRT_OK);
        float (*l)[2 * H * W] = pass ? le : lg;
        uint8_t (*m)[2 * H * W] = pass ? me : mg;
        struct samrt_mask_result (*r)[2] = pass ? re : rg;
        for (int k = 0; k < 4; k++) {
            if (k == 0 || k == 3) {
                if (segment2(e, l[k], m[k], r[k], what[k]) != SAMRT_OK) return;
                continue;
            }
            r[k][0] = (struct samrt_mask_result){.mask = m[k], .logits = l[k]};
            CHECK_STATUS(samrt_engine_segment(e, &img, &g_obj[1], 1, SAMRT_POSTPROC_NOTEBOOK, r[k]), SAMRT_OK);
        }
    }
    for (int k = 0; k < 4; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s vs eager", what[k]);
        check_same(rg[k], re[k], k == 0 || k == 3 ? 2 : 1, name);
    }
    /* the timed eager mode: same bits, positive stage times */
    CHECK_STATUS(samrt_sam2_segment_configure(e, 1, 1), SAMRT_OK);
    if (segment2(e, le[0], me[0], re[0], "timed") == SAMRT_OK) check_same(rg[0], re[0], 2, "timed vs graph");
    struct samrt_stage_times t;
    CHECK_STATUS(samrt_engine_stage_times(e, &t), SAMRT_OK);
    printf("stage times: preprocess %.3f encoder %.3f heads %.3f postprocess %.3f ms\n", t.preprocess_ms,
           t.image_encoder_ms, t.prompt_and_mask_decoder_ms, t.postprocess_ms);
    CHECK(t.preprocess_ms > 0 && t.image_encoder_ms > 0 && t.prompt_and_mask_decoder_ms > 0 && t.postprocess_ms > 0);
    /* the stages a segmentation call does not have (or times inside another) stay -1 */
    CHECK(t.h2d_ms == -1.0f && t.memory_attention_ms == -1.0f && t.memory_encoder_ms == -1.0f && t.d2h_ms == -1.0f);
    CHECK_STATUS(samrt_sam2_segment_configure(e, 1, 0), SAMRT_OK);
}

/* A frame larger than the engine's max frame is refused; so is a max side of 0. */
static void max_frame_checks(const char *ckpt, const char *platform, int imgsz) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.platform = platform;
    p.precision = SAMRT_DTYPE_F32;
    p.imgsz = imgsz;
    p.max_frame_width = W - 1;
    p.max_frame_height = H;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    static uint8_t mask[H * W];
    struct samrt_mask_result r = {.mask = mask};
    const struct samrt_image img = {g_rgb, W, H, 3 * W}, fits = {g_rgb, W - 1, H, 3 * W};
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR);
    if (e) CHECK_STATUS(samrt_engine_segment(e, &img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &r), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    if (e) CHECK_STATUS(samrt_engine_segment(e, &fits, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &r), SAMRT_OK);
    samrt_engine_free(e);
    p.max_frame_width = 0;
    e = NULL;
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR);
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    samrt_engine_free(e);
}

static int host_mode(const char *ckpt) {
    samrt_engine_t e = make_engine(ckpt, "cpu", SAMRT_DTYPE_F32, 64);
    if (e) api_checks(e);
    samrt_engine_free(e);
    /* an engine that cannot segment (host pool at bf16 plans no forward pass) says so */
    e = make_engine(ckpt, "cpu", SAMRT_DTYPE_BF16, 64);
    struct samrt_mask_result res[2];
    static uint8_t masks[2][H * W];
    for (int i = 0; i < 2; i++) res[i] = (struct samrt_mask_result){.mask = masks[i]};
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR);
    if (e)
        CHECK_STATUS(samrt_engine_segment(e, &img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, res), SAMRT_E_UNSUPPORTED);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    samrt_engine_free(e);
    max_frame_checks(ckpt, "cpu", 64);
    return 0;
}

/* A mask prompt (samrt_engine_segment_masked: the click's object as a rectangle mask) on the
 * CUDA backend against the CPU backend, f32, and the masked call leaves the next unmasked
 * call (its graph key) as it was. */
static void masked_gpu_vs_cpu(samrt_engine_t ec, samrt_engine_t eg) {
    static uint8_t rect[H * W], mc[H * W], mg[H * W], m0[H * W];
    static float lc[H * W], lg[H * W], l0[H * W], l1[H * W], in_c[256 * 256], in_g[256 * 256];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) rect[y * W + x] = x > 35 && x < 65 && y > 25 && y < 50;
    CHECK_STATUS(samrt_engine_mask_prompt_logits(ec, rect, W, H, in_c), SAMRT_OK);
    CHECK_STATUS(samrt_engine_mask_prompt_logits(eg, rect, W, H, in_g), SAMRT_OK);
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    const float *mi[1] = {in_c};
    struct samrt_mask_result rc = {.mask = mc, .logits = lc}, rg = {.mask = mg, .logits = lg};
    struct samrt_mask_result r0 = {.mask = m0, .logits = l0};
    CHECK_STATUS(samrt_engine_segment(eg, &img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &r0), SAMRT_OK);
    CHECK_STATUS(samrt_engine_segment_masked(ec, &img, g_obj, mi, 1, SAMRT_POSTPROC_VOS_INFERENCE, &rc), SAMRT_OK);
    mi[0] = in_g;
    CHECK_STATUS(samrt_engine_segment_masked(eg, &img, g_obj, mi, 1, SAMRT_POSTPROC_VOS_INFERENCE, &rg), SAMRT_OK);
    double maxref = 0;
    for (int i = 0; i < H * W; i++) maxref = fmax(maxref, fabs(lc[i]));
    check_close_f32("gpu vs cpu logits, mask prompt", lg, lc, H * W, TOL_GPU_F32 * maxref, 0.0);
    CHECK_NEAR(rg.iou, rc.iou, TOL_GPU_F32);
    r0.logits = l1;
    CHECK_STATUS(samrt_engine_segment(eg, &img, g_obj, 1, SAMRT_POSTPROC_VOS_INFERENCE, &r0), SAMRT_OK);
    CHECK(memcmp(l0, l1, sizeof l0) == 0);
}

static int gpu_mode(const char *ckpt) {
    int n_dev = 0;
    if (samrt_platform_device_count(&n_dev) != SAMRT_OK || n_dev == 0) return 77;
    static float lc[2 * H * W], lg[2 * H * W], lb[2 * H * W];
    static uint8_t mc[2 * H * W], mg[2 * H * W], mb[2 * H * W];
    struct samrt_mask_result rc[2], rg[2], rb[2];
    /* the CUDA backend against the CPU backend, f32, at a 128 side */
    samrt_engine_t ec = make_engine(ckpt, "cpu", SAMRT_DTYPE_F32, 128);
    samrt_engine_t eg = make_engine(ckpt, NULL, SAMRT_DTYPE_F32, 128);
    if (ec && eg && segment2(ec, lc, mc, rc, "cpu f32 128") == SAMRT_OK &&
        segment2(eg, lg, mg, rg, "gpu f32 128") == SAMRT_OK) {
        double maxref = 0;
        for (int i = 0; i < 2 * H * W; i++) maxref = fmax(maxref, fabs(lc[i]));
        check_close_f32("gpu vs cpu logits", lg, lc, 2 * H * W, TOL_GPU_F32 * maxref, 0.0);
        for (int i = 0; i < 2; i++) {
            CHECK_NEAR(rg[i].object_score, rc[i].object_score, TOL_GPU_F32 * fmax(1.0, fabs(rc[i].object_score)));
            CHECK_NEAR(rg[i].iou, rc[i].iou, TOL_GPU_F32);
        }
    }
    if (ec && eg) masked_gpu_vs_cpu(ec, eg);
    if (eg) api_checks(eg);
    samrt_engine_free(ec);
    samrt_engine_free(eg);
    /* production side: f32 and bf16 */
    eg = make_engine(ckpt, NULL, SAMRT_DTYPE_F32, 1024);
    samrt_engine_t eb = make_engine(ckpt, NULL, SAMRT_DTYPE_BF16, 1024);
    if (eg && eb && segment2(eg, lg, mg, rg, "gpu f32 1024") == SAMRT_OK &&
        segment2(eb, lb, mb, rb, "gpu bf16 1024") == SAMRT_OK) {
        long n_conf = 0, n_agree = 0;
        for (int i = 0; i < 2 * H * W; i++)
            if (fabsf(lg[i]) > 0.5f) n_conf++, n_agree += mg[i] == mb[i];
        const double agree = n_conf ? (double)n_agree / n_conf : 1.0;
        printf("bf16 vs f32 at 1024: %ld confident pixels, agreement %.4f\n", n_conf, agree);
        CHECK(agree >= MIN_AGREE_BF16);
    }
    if (eb) graph_checks(eb);
    samrt_engine_free(eg);
    samrt_engine_free(eb);
    max_frame_checks(ckpt, NULL, 128);
    return 0;
}

int main(int argc, char **argv) {
    const int gpu = argc > 1 && !strcmp(argv[1], "gpu");
    const char *name = gpu ? "test_sam2_segment_cuda" : "test_sam2_segment";
    char path[] = "/tmp/samrt_test_segment_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip(name, "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32), 0);
    make_inputs();
    const int rc = gpu ? gpu_mode(path) : host_mode(path);
    unlink(path);
    if (rc == 77) return check_skip(name, "no CUDA device");
    return check_report(name);
}
