/* cmd_demo.c - `samrt demo`: the main job on built-in synthetic data, run by
 * `cmake --workflow --preset demo`. It needs no dataset and no checkpoint:
 *   1. reports the machine (GPU or not: without one it says so and runs the CPU path);
 *   2. writes a small SA-V-layout dataset with `synth` (moving, occluding shapes);
 *   3. streams every video's frames (bounded prefetch) through the model preprocessing
 *      (Pillow-exact bicubic resize + normalisation to 1024x1024): the CUDA kernel when a
 *      GPU is present, otherwise the C reference, timing each frame (samrt_internal_prep_*);
 *   4. scores a reference predictor with the SA-V evaluator (J, F, J&F). The predictor is
 *      the "first mask held" baseline (every frame predicts the object's first annotated
 *      mask), so the numbers show how much the shapes move, not model quality. Model-based
 *      tracking plugs into the same loop when a checkpoint is given to `samrt bench`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "eval.h"
#include "image_io.h"
#include "samrt_internal.h"
#include "sav.h"
#include "synth.h"

static int usage(FILE *f, int code) {
    fprintf(f, "usage: samrt demo [--out DIR] [--videos N] [--frames N] [--cpu]\n\n"
               "Runs the main job on built-in synthetic data: synth -> streamed decode ->\n"
               "preprocessing (GPU kernel, or the CPU reference without a GPU) -> J&F of a\n"
               "reference predictor. --cpu forces the CPU path. Exit 0 on success.\n");
    return code;
}

/* Writes the "first mask held" predictions for one video. */
static enum samrt_status write_baseline(const struct samrt_sav_video *v, const char *pred_root) {
    struct samrt_mask_reader rd = {0};
    uint8_t *mask = NULL;
    size_t cap = 0;
    uint8_t pal[256 * 3];
    samrt_palette_davis(pal);
    enum samrt_status st = SAMRT_OK;
    char path[4096];
    for (int o = 0; o < v->n_objects && st == SAMRT_OK; o++) {
        const struct samrt_sav_object *ob = &v->objects[o];
        int w = 0, h = 0;
        samrt_sav_ann_path(v, ob, 0, path, sizeof path);
        st = samrt_mask_load(&rd, path, &mask, &cap, &w, &h, NULL);
        snprintf(path, sizeof path, "%s/%s/%s", pred_root, v->name, ob->name);
        if (st == SAMRT_OK) st = samrt_mkdirs(path);
        for (int a = 0; a < ob->n_anns && st == SAMRT_OK; a++) {
            char f[4200];
            snprintf(f, sizeof f, "%s/%s", path, ob->anns[a].name);
            st = samrt_png_write_palette8(f, mask, w, h, pal, 2);
        }
    }
    free(mask);
    samrt_mask_reader_free(&rd);
    return st;
}

int samrt_cmd_demo(int argc, char **argv) {
    static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"videos", required_argument, 0, 'v'},
                                         {"frames", required_argument, 0, 'f'}, {"cpu", no_argument, 0, 'c'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = "demo";
    long n_videos = 2, n_frames = 24;
    int force_cpu = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'v': if (samrt_parse_int(optarg, 1, 64, &n_videos)) return usage(stderr, SAMRT_EXIT_USAGE); break;
        case 'f': if (samrt_parse_int(optarg, 8, 10000, &n_frames)) return usage(stderr, SAMRT_EXIT_USAGE); break;
        case 'c': force_cpu = 1; break;
        case 'h': return usage(stdout, SAMRT_EXIT_OK);
        default: return usage(stderr, SAMRT_EXIT_USAGE);
        }
    }
    int n_dev = 0;
    samrt_device_count(&n_dev);
    int use_gpu = n_dev > 0 && !force_cpu;
    struct samrt_device_info dev;
    if (use_gpu && samrt_device_query(0, &dev) == SAMRT_OK)
        printf("[1/4] device: %s (sm_%d%d, %d SMs, %.1f GiB): GPU path\n", dev.name, dev.cc_major, dev.cc_minor,
               dev.sm_count, dev.total_bytes / 1073741824.0);
    else
        printf("[1/4] device: no GPU %s: running the CPU reference path\n",
               force_cpu ? "(--cpu)" : "is visible");

    char split[4096], pred[4096];
    snprintf(split, sizeof split, "%s/sav_synth", out);
    snprintf(pred, sizeof pred, "%s/pred_first_mask", out);
    struct samrt_synth_params sp = samrt_synth_default_params();
    sp.n_videos = (int)n_videos;
    sp.n_frames = (int)n_frames;
    enum samrt_status st = samrt_synth_write(split, &sp, 1);
    if (st != SAMRT_OK) return samrt_exit_code(st);
    printf("[2/4] synth: %d videos x %d frames (%dx%d, %d objects) in %s\n", sp.n_videos, sp.n_frames, sp.width,
           sp.height, sp.n_objects, split);

    struct samrt_sav_select sel = samrt_sav_default_select();
    struct samrt_sav_split sv;
    if ((st = samrt_sav_open(split, &sel, &sv)) != SAMRT_OK) return samrt_exit_code(st);
    st = samrt_mkdirs(pred);
    double total_ms = 0, max_ms = 0;
    int frames = 0;
    uint64_t t_loop = samrt_cli_now_ns();
    for (int v = 0; v < sv.n_videos && st == SAMRT_OK; v++) {
        const struct samrt_sav_video *vid = &sv.videos[v];
        struct samrt_internal_prep *p = NULL;
        st = samrt_internal_prep_open(vid->width, vid->height, 1024, use_gpu, &p);
        samrt_frame_stream_t fs = NULL;
        if (st == SAMRT_OK) st = samrt_frame_stream_open(vid->jpeg_dir, 2, &fs);
        struct samrt_frame f;
        while (st == SAMRT_OK && (st = samrt_frame_stream_next(fs, &f)) == SAMRT_OK && f.rgb) {
            double ms = 0;
            st = samrt_internal_prep_frame(p, f.rgb, &ms);
            samrt_frame_stream_release(fs, &f);
            total_ms += ms;
            if (ms > max_ms) max_ms = ms;
            frames++;
        }
        if (fs) samrt_frame_stream_close(fs);
        samrt_internal_prep_close(p);
        if (st == SAMRT_OK) st = write_baseline(vid, pred);
    }
    double wall_ms = (samrt_cli_now_ns() - t_loop) / 1e6;
    samrt_sav_free(&sv);
    if (st != SAMRT_OK) return samrt_exit_code(st);
    printf("[3/4] preprocess (%s, 1024x1024): %d frames, mean %.3f ms, max %.3f ms per frame; "
           "loop incl. decode %.1f fps\n", use_gpu ? "CUDA kernel, bf16" : "C reference, f32", frames,
           total_ms / frames, max_ms, frames / (wall_ms / 1e3));

    struct samrt_eval_opts eo = samrt_eval_default_opts();
    char gt[4200];
    snprintf(gt, sizeof gt, "%s/Annotations_6fps", split);
    eo.gt_root = gt;
    eo.pred_root = pred;
    struct samrt_eval_result r;
    if ((st = samrt_eval_run(&eo, &r)) != SAMRT_OK) return samrt_exit_code(st);
    printf("[4/4] eval (first mask held, a reference predictor, no model): J&F %.1f  J %.1f  F %.1f "
           "over %d objects in %d videos\n", r.jf, r.j, r.f, r.n_rows, r.n_videos);
    samrt_eval_result_free(&r);
    printf("demo done: outputs in %s\n", out);
    return SAMRT_EXIT_OK;
}
