/* test_unified_cuda.c - the unified-memory arena (cudaMallocManaged, what Jetson's integrated
 * GPU uses) gives results identical to the device-memory arena. A SAM 2.1 tiny checkpoint with
 * deterministic values (tests/ckpt_writer.h) is loaded twice, once per pool kind, at bf16 and
 * f32; both engines segment the same synthetic frame with the same two prompts (first eagerly,
 * then through the CUDA graph replay), and the masks, logits, scores and boxes must be equal
 * bit for bit. Exit 77 without a GPU.
 * Run: ctest -R test_unified_cuda */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_writer.h"
#include "platform.h"

#define W 320
#define H 240

static uint8_t g_rgb[H * W * 3];

static void quiet(enum samrt_log_level level, const char *msg, void *user) { (void)level, (void)msg, (void)user; }

struct run {
    uint8_t mask[2][H * W];
    float logits[2][H * W];
    struct samrt_mask_result res[2][3];  /* per object, per call */
};

static int segment_calls(const char *ckpt, enum samrt_mem_kind kind, enum samrt_dtype dt, struct run *r) {
    struct samrt_engine_params p = samrt_engine_default_params();
    p.mem_kind = kind;
    p.precision = dt;
    p.max_objects = 2;
    p.max_frame_width = W;
    p.max_frame_height = H;
    samrt_engine_t e = NULL;
    enum samrt_status st = samrt_engine_init(ckpt, &p, &e);
    CHECK_STATUS(st, SAMRT_OK);
    if (st != SAMRT_OK) return -1;
    struct samrt_memory_report m;
    samrt_engine_memory(e, &m);
    CHECK(m.mem_kind == kind);
    struct samrt_object_prompt obj[2];
    memset(obj, 0, sizeof obj);
    obj[0].n_clicks = 1;
    obj[0].clicks[0] = (struct samrt_click){100.0f, 120.0f, 1};
    obj[1].has_box = 1;
    obj[1].box[0] = 180, obj[1].box[1] = 40, obj[1].box[2] = 300, obj[1].box[3] = 200;
    const struct samrt_image img = {g_rgb, W, H, 3 * W};
    for (int call = 0; call < 3 && st == SAMRT_OK; call++) {  /* eager, capture, replay */
        struct samrt_mask_result out[2];
        for (int i = 0; i < 2; i++) {
            memset(&out[i], 0, sizeof out[i]);
            out[i].mask = r->mask[i];
            out[i].logits = r->logits[i];
        }
        st = samrt_engine_segment(e, &img, obj, 2, SAMRT_POSTPROC_VOS_INFERENCE, out);
        CHECK_STATUS(st, SAMRT_OK);
        for (int i = 0; i < 2; i++) r->res[i][call] = out[i];
    }
    samrt_engine_free(e);
    return st == SAMRT_OK ? 0 : -1;
}

int main(void) {
    int n = 0;
    samrt_platform_device_count(&n);
    if (n == 0) return check_skip("test_unified_cuda", "no CUDA device");
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR);
    char path[] = "/tmp/samrt_test_unified_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return check_skip("test_unified_cuda", "cannot create a temporary file");
    close(fd);
    CHECK_EQ_INT(ckw_write_safetensors(path, SAMRT_MODEL_SAM2_1_TINY, SAMRT_DTYPE_F32), 0);
    for (int y = 0; y < H; y++)  /* a frame with structure: gradients and a bright rectangle */
        for (int x = 0; x < W; x++) {
            uint8_t *px = &g_rgb[(y * W + x) * 3];
            const int in = x > 60 && x < 150 && y > 80 && y < 170;
            px[0] = (uint8_t)(in ? 230 : x * 255 / W);
            px[1] = (uint8_t)(in ? 200 : y * 255 / H);
            px[2] = (uint8_t)((x ^ y) & 0xff);
        }
    static struct run dev, uni;
    const enum samrt_dtype dts[2] = {SAMRT_DTYPE_BF16, SAMRT_DTYPE_F32};
    for (int k = 0; k < 2; k++) {
        memset(&dev, 0, sizeof dev);
        memset(&uni, 0, sizeof uni);
        if (segment_calls(path, SAMRT_MEM_DEVICE, dts[k], &dev) || segment_calls(path, SAMRT_MEM_UNIFIED, dts[k], &uni))
            break;
        int same = !memcmp(dev.mask, uni.mask, sizeof dev.mask) && !memcmp(dev.logits, uni.logits, sizeof dev.logits);
        for (int i = 0; i < 2; i++)
            for (int c = 0; c < 3; c++) {
                const struct samrt_mask_result *a = &dev.res[i][c], *b = &uni.res[i][c];
                same &= a->object_score == b->object_score && a->iou == b->iou && a->area == b->area &&
                        !memcmp(a->box, b->box, sizeof a->box);
            }
        printf("%s: device vs unified pool: masks, logits, scores and boxes %s (objects' areas %d, %d; scores %+.4f, "
               "%+.4f)\n", samrt_dtype_name(dts[k]), same ? "bit-identical" : "DIFFER", dev.res[0][2].area,
               dev.res[1][2].area, dev.res[0][2].object_score, dev.res[1][2].object_score);
        CHECK(same);
    }
    unlink(path);
    return check_report("test_unified_cuda");
}
