/* test_ckpt_random.c - the random-weight checkpoints of harness/ckpt_write.h (what `samrt
 * demo` runs when no official checkpoint is at hand) keep every activation far inside fp16's
 * range, the GPU profiles' default precision: EdgeTAM and SAM 2.1 tiny segment a synthetic
 * image on the CPU backend (f32, 256-px model side) and every f32 tap of the encoder and the
 * heads stays below 1000 in magnitude (fp16 ends at 65504; before the RepViT branch scales
 * were set, EdgeTAM's stage 3 reached ~4e7 and a GPU run would fail with SAMRT_E_NUMERIC).
 * Run: ctest -R test_ckpt_random */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ckpt_write.h"
#include "sam2_track_util.h"
#include "segment.h"

#define W 96
#define H 80

struct worst {
    double max;
    char name[96];
};

static enum samrt_status observe(void *user, const char *name, const struct samrt_tensor *t) {
    struct worst *w = user;
    if (t->dtype != SAMRT_DTYPE_F32 || !samrt_tensor_is_contiguous(t) || strstr(name, "prompt.coords")) return SAMRT_OK;
    const float *p = t->data;
    for (int64_t i = 0; i < samrt_tensor_nelements(t); i++)
        if (!(fabs(p[i]) <= w->max)) {  /* NaN too */
            w->max = isnan(p[i]) ? INFINITY : fabs(p[i]);
            snprintf(w->name, sizeof w->name, "%s", name);
        }
    return SAMRT_OK;
}

static void check_model(enum samrt_model_id id) {
    char path[] = "/tmp/samrt_test_ckpt_random_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return;
    close(fd);
    CHECK_STATUS(samrt_ckpt_write_random(path, id, 0), SAMRT_OK);
    const struct samrt_engine_params p = trk_params(256, 1);
    samrt_engine_t e = NULL;
    CHECK_STATUS(samrt_engine_init(path, &p, &e), SAMRT_OK);
    if (e) {
        static uint8_t rgb[H * W * 3], mask[H * W];
        trk_make_frame(rgb, W, H, 0);
        struct worst w = {0, ""};
        CHECK_STATUS(samrt_sam2_segment_set_tap(e, observe, &w), SAMRT_OK);
        struct samrt_object_prompt pr = {0};
        pr.n_clicks = 1;
        pr.clicks[0] = (struct samrt_click){40, 30, 1};
        const struct samrt_image img = {rgb, W, H, 3 * W};
        struct samrt_mask_result r = {mask, NULL, 0, 0, 0, {0}};
        CHECK_STATUS(samrt_engine_segment(e, &img, &pr, 1, SAMRT_POSTPROC_VOS_INFERENCE, &r), SAMRT_OK);
        printf("%s: largest |activation| %.3g at %s\n", samrt_model_name(id), w.max, w.name);
        CHECK_MSG(w.max > 0 && w.max < 1000.0, "%s: |activation| %.3g at %s", samrt_model_name(id), w.max, w.name);
    }
    samrt_engine_free(e);
    unlink(path);
}

int main(void) {
    check_model(SAMRT_MODEL_EDGETAM);
    check_model(SAMRT_MODEL_SAM2_1_TINY);
    return check_report("test_ckpt_random");
}
