/* test_sam2_track_decode_cuda.c - the tracker's device mask decode (tracker_run.c: one
 * mask_decode kernel after the frame's graph, masks and stats downloaded) gives the bits of
 * the host decode (the C references of the CPU engine's path, forced on a CUDA engine). Two
 * engines load the same synthetic SAM 2.1 tiny checkpoint (tests/ckpt_writer.h); one decodes
 * on the device, the other on the host (samrt_sam2_track_set_host_decode, or the environment
 * variable SAMRT_TRACK_HOST_DECODE=1 in one run). Both track the same 20-frame synthetic
 * video with 3 objects whose prompts overlap (object 3 repeats object 1's click, so their
 * logits tie and the non-overlap rule gives tied pixels to object 1; object 2 joins on
 * frame 4, so the number of decoded objects changes mid-video), with
 * non-overlap off, on, and on under the notebook profile (hole-filled logits); after every
 * frame the masks, areas, boxes and scores must be equal bit for bit. Frame sizes 160x120
 * (4-byte mask stores) and 157x118 (scalar stores). Also: the device path really ran (and the
 * forced one did not), non-overlap masks are disjoint, postprocess time > 0. And frames already
 * on the GPU (frame_on_device, a row stride wider than the frame): the same bits as host
 * frames, and the engine's frame counters show they never came to the host (one device-to-
 * device copy each, samrt_engine_io_counters).
 * Optional argument: a substring of "f32 side 256" / "bf16 side 512" runs only that model
 * size (one per compute-sanitizer call, tools/gpu_suite.sh sanitize).
 * Exit 77 without a GPU. Run: ctest -R test_sam2_track_decode_cuda */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "engine_impl.h"
#include "platform.h"
#include "sam2.h"
#include "tracker.h"
#include "stream.h"

#define MAX_W 160
#define MAX_H 120
#define K 3
#define N_FRAMES 20

static uint8_t g_rgb[MAX_H * MAX_W * 3];
#define DEV_STRIDE (3 * MAX_W + 64)  /* device frames: a pitched buffer */
static void *g_dev;                   /* MAX_H rows of DEV_STRIDE bytes (device memory) */

/* Frame t (w x h): a bright square drifting right and a dark corner patch. */
static void make_frame(int t, int w, int h) {
    const int x0 = 30 + (t * 3) % 50;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = &g_rgb[(y * w + x) * 3];
            const int sq = x >= x0 && x < x0 + 45 && y >= 35 && y < 85, patch = x < 42 && y < 32;
            p[0] = (uint8_t)(sq ? 230 : patch ? 20 : 90 + x / 4);
            p[1] = (uint8_t)(sq ? 60 : patch ? 25 : 100 + y / 3);
            p[2] = (uint8_t)(sq ? 50 : patch ? 160 : (x + 2 * y + t) & 127);
        }
}

static samrt_engine_t make_engine(const char *ckpt, enum samrt_dtype dt, int side) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.precision = dt;
    p.imgsz = side;
    p.max_objects = K;
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(ckpt, &p, &e), SAMRT_OK);
    return e;
}

/* The prompts of frame t: objects 1 and 3 on frame 0 with the same click (the same inputs,
 * so their logits tie wherever the batched rows compute the same bits), object 2 (a box over
 * the square and both) added on frame 4 and corrected on frame 11. Result order: 1, 3, 2. */
static void prompt(samrt_engine_t e, int t) {
    static const struct samrt_object_prompt a = {.n_clicks = 1, .clicks = {{55.0f, 60.0f, 1}}};
    static const struct samrt_object_prompt b = {.has_box = 1, .box = {20, 25, 110, 100}};
    static const struct samrt_object_prompt fix = {.n_clicks = 2, .clicks = {{70.0f, 60.0f, 1}, {10.0f, 10.0f, 0}}};
    if (t == 0) CHECK_STATUS(samrt_engine_track_prompt(e, 1, &a), SAMRT_OK);
    if (t == 0) CHECK_STATUS(samrt_engine_track_prompt(e, 3, &a), SAMRT_OK);
    if (t == 4) CHECK_STATUS(samrt_engine_track_prompt(e, 2, &b), SAMRT_OK);
    if (t == 11) CHECK_STATUS(samrt_engine_track_prompt(e, 2, &fix), SAMRT_OK);
}

static int push(samrt_engine_t e, int t, int w, int h, int dev, uint8_t (*mask)[MAX_W * MAX_H],
                struct samrt_track_result *res, int *n) {
    prompt(e, t);
    memset(mask, 0xcd, K * (size_t)MAX_W * MAX_H);  /* poison: every pixel must be written */
    memset(res, 0xcd, K * sizeof *res);
    for (int k = 0; k < K; k++) res[k].mask = mask[k];
    struct samrt_image img = {g_rgb, w, h, 3 * w};
    if (dev) {
        CHECK_STATUS(samrt_platform_copy_2d(g_dev, DEV_STRIDE, g_rgb, 3 * (size_t)w, 3 * (size_t)w, (size_t)h,
                                            SAMRT_COPY_H2D), SAMRT_OK);
        img = (struct samrt_image){g_dev, w, h, DEV_STRIDE};
    }
    const enum samrt_status st = samrt_engine_track_push(e, &img, dev, res, K, n);
    CHECK_STATUS(st, SAMRT_OK);
    return st == SAMRT_OK;
}

/* The area and box of a mask, to check that the results describe the mask that was written. */
static int stats_match(const uint8_t *m, int w, int h, const struct samrt_track_result *r) {
    int area = 0, x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (m[y * w + x]) {
                area++;
                x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
            }
    return r->area == area && r->box[0] == x0 && r->box[1] == y0 && r->box[2] == x1 && r->box[3] == y1;
}

/* One video on both engines in lockstep. env: force the host engine through the environment.
 * dev_frames: the device-decoding engine gets its frames from device memory. */
static void compare(samrt_engine_t ed, samrt_engine_t eh, int w, int h, enum samrt_postproc pp, int non_overlap,
                    int env, int dev_frames, const char *what) {
    static uint8_t md[K][MAX_W * MAX_H], mh[K][MAX_W * MAX_H];
    struct samrt_track_result rd[K], rh[K];
    const struct samrt_sam2_track_options opt = {pp, non_overlap, 0, 0};
    CHECK_STATUS(samrt_sam2_track_set_host_decode(eh, !env), SAMRT_OK);
    if (env) setenv("SAMRT_TRACK_HOST_DECODE", "1", 1);
    CHECK_STATUS(samrt_engine_track_begin(eh, w, h), SAMRT_OK);
    unsetenv("SAMRT_TRACK_HOST_DECODE");
    CHECK_STATUS(samrt_engine_track_begin(ed, w, h), SAMRT_OK);
    CHECK_STATUS(samrt_sam2_track_set_options(ed, &opt), SAMRT_OK);
    CHECK_STATUS(samrt_sam2_track_set_options(eh, &opt), SAMRT_OK);
    const struct samrt_sam2_tracker *td = &samrt_sam2_of(ed)->trk, *th = &samrt_sam2_of(eh)->trk;
    struct samrt_io_counters io0, io1;
    CHECK_STATUS(samrt_engine_io_counters(ed, &io0), SAMRT_OK);
    long n_diff = 0, overlap = 0, fg = 0;
    int tied = 0;  /* frames on which object 3 (tied with object 1) is empty while object 1 is not */
    int f = 0;
    for (; f < N_FRAMES; f++) {
        make_frame(f, w, h);
        int nd = -1, nh = -2;
        if (!push(ed, f, w, h, dev_frames, md, rd, &nd) || !push(eh, f, w, h, 0, mh, rh, &nh)) break;
        CHECK_EQ_INT(nd, nh);
        CHECK_EQ_INT(nd, f >= 4 ? 3 : 2);
        if (nd >= 2) CHECK(rd[0].obj_id == 1 && rd[1].obj_id == 3);
        CHECK_MSG(td->dev_decoded == 1 && th->dev_decoded == 0, "frame %d: decoded on the device %d / %d", f,
                  td->dev_decoded, th->dev_decoded);
        for (int i = 0; i < nd && nd == nh; i++) {
            const int same = rd[i].obj_id == rh[i].obj_id && rd[i].area == rh[i].area &&
                             !memcmp(&rd[i].object_score, &rh[i].object_score, sizeof(float)) &&
                             !memcmp(rd[i].box, rh[i].box, sizeof rd[i].box) && !memcmp(md[i], mh[i], (size_t)w * h);
            CHECK_MSG(same, "%s frame %d object %d: device (area %d box %d %d %d %d) != host (area %d box %d %d %d %d)",
                      what, f, rd[i].obj_id, rd[i].area, rd[i].box[0], rd[i].box[1], rd[i].box[2], rd[i].box[3],
                      rh[i].area, rh[i].box[0], rh[i].box[1], rh[i].box[2], rh[i].box[3]);
            CHECK_MSG(stats_match(md[i], w, h, &rd[i]), "%s frame %d object %d: stats do not describe the mask", what,
                      f, rd[i].obj_id);
            n_diff += !same;
            fg += rd[i].area;
        }
        for (int p = 0; p < w * h; p++) overlap += (md[0][p] == 1) + (md[1][p] == 1) + (nd > 2 && md[2][p] == 1) > 1;
        tied += nd >= 2 && rd[0].area > 0 && rd[1].area == 0;
        struct samrt_stage_times s;
        CHECK_STATUS(samrt_engine_stage_times(ed, &s), SAMRT_OK);
        CHECK_MSG(s.postprocess_ms > 0.0f && s.d2h_ms > 0.0f, "frame %d: postprocess %g d2h %g ms", f,
                  (double)s.postprocess_ms, (double)s.d2h_ms);
    }
    CHECK_EQ_INT(f, N_FRAMES);
    CHECK_STATUS(samrt_engine_io_counters(ed, &io1), SAMRT_OK);
    const uint64_t bytes = (uint64_t)N_FRAMES * 3 * (uint64_t)w * (uint64_t)h;
    CHECK(io1.frames_device - io0.frames_device == (uint64_t)(dev_frames ? N_FRAMES : 0));
    CHECK(io1.frames_host - io0.frames_host == (uint64_t)(dev_frames ? 0 : N_FRAMES));
    CHECK(io1.frame_bytes_d2d - io0.frame_bytes_d2d == (dev_frames ? bytes : 0));
    CHECK(io1.frame_bytes_h2d - io0.frame_bytes_h2d == (dev_frames ? 0 : bytes));
    CHECK(io1.frame_bytes_d2h == 0);
    if (non_overlap) CHECK_MSG(overlap == 0, "%s: %ld pixels in two masks under non-overlap", what, overlap);
    else CHECK_MSG(overlap > 0, "%s: the prompts were meant to overlap", what);
    CHECK_MSG(fg > 0, "%s: no foreground at all", what);
    printf("  %-40s %dx%d %d frames: %ld differences, foreground %ld, overlapping pixels %ld, object 3 empty "
           "(ties) on %d frames; frames in: %llu host, %llu device, %llu B h2d, %llu B d2d, %llu B d2h\n", what, w, h,
           f, n_diff, fg, overlap, tied, (unsigned long long)(io1.frames_host - io0.frames_host),
           (unsigned long long)(io1.frames_device - io0.frames_device),
           (unsigned long long)(io1.frame_bytes_h2d - io0.frame_bytes_h2d),
           (unsigned long long)(io1.frame_bytes_d2d - io0.frame_bytes_d2d), (unsigned long long)io1.frame_bytes_d2h);
}

static void run_model(const char *ckpt, enum samrt_dtype dt, int side, int w, int h) {
    samrt_engine_t ed = make_engine(ckpt, dt, side), eh = make_engine(ckpt, dt, side);
    if (ed && eh) {
        char what[96];
        printf("sam2.1_tiny %s side %d:\n", samrt_dtype_name(dt), side);
        snprintf(what, sizeof what, "vos_inference, non-overlap off");
        compare(ed, eh, w, h, SAMRT_POSTPROC_VOS_INFERENCE, 0, 0, 0, what);
        snprintf(what, sizeof what, "vos_inference, non-overlap on");
        compare(ed, eh, w, h, SAMRT_POSTPROC_VOS_INFERENCE, 1, 0, 0, what);
        snprintf(what, sizeof what, "notebook, non-overlap on (env)");
        compare(ed, eh, w, h, SAMRT_POSTPROC_NOTEBOOK, 1, 1, 0, what);
        snprintf(what, sizeof what, "vos_inference, device frames");
        compare(ed, eh, w, h, SAMRT_POSTPROC_VOS_INFERENCE, 0, 0, 1, what);
    }
    samrt_engine_free(ed);
    samrt_engine_free(eh);
}

/* the run filter (argv[1]): a substring of "<dtype> side <side>" ("f32 side 256", "bf16 side
 * 512"); NULL runs both */
static const char *g_only;
static int g_n_wanted;
static int wanted(enum samrt_dtype dt, int side) {
    char name[64];
    snprintf(name, sizeof name, "%s side %d", samrt_dtype_name(dt), side);
    const int yes = !g_only || strstr(name, g_only) != NULL;
    g_n_wanted += yes;
    return yes;
}

int main(int argc, char **argv) {
    g_only = argc > 1 ? argv[1] : NULL;
    int n_dev = 0;
    if (samrt_platform_device_count(&n_dev) != SAMRT_OK || n_dev == 0)
        return check_skip("test_sam2_track_decode_cuda", "no CUDA device");
    char path[] = "/tmp/samrt_test_track_decode_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_sam2_track_decode_cuda", "cannot create a temporary file");
    close(fd);
    CHECK_STATUS(samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, (uint64_t)DEV_STRIDE * MAX_H, &g_dev), SAMRT_OK);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32), 0);
    if (wanted(SAMRT_DTYPE_F32, 256)) run_model(path, SAMRT_DTYPE_F32, 256, 160, 120);
    if (wanted(SAMRT_DTYPE_BF16, 512)) run_model(path, SAMRT_DTYPE_BF16, 512, 157, 118);
    unlink(path);
    CHECK_MSG(g_n_wanted > 0, "no run matches '%s'", g_only ? g_only : "");
    samrt_platform_mem_free(SAMRT_MEM_DEVICE, g_dev);
    return check_report("test_sam2_track_decode_cuda");
}
