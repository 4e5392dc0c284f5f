/* example.c - the smallest complete use of the public API (samrt.h only): load a SAM 2.1
 * checkpoint, segment the object under one click on an image, write the mask. Images are
 * binary PPM in and PGM out so that the example needs no image library; convert with any
 * tool (e.g. `convert frame.jpg frame.ppm`).
 *
 *   samrt_example sam2.1_hiera_tiny.pt frame.ppm 210 350 mask.pgm
 */
#include <stdio.h>
#include <stdlib.h>

#include "samrt.h"

/* A binary PPM (P6, maxval 255) as RGB8; NULL on anything else. */
static unsigned char *read_ppm(const char *path, int *w, int *h) {
    FILE *f = fopen(path, "rb");
    int maxval = 0;
    unsigned char *rgb = NULL;
    if (f && fscanf(f, "P6 %d %d %d", w, h, &maxval) == 3 && maxval == 255 && fgetc(f) != EOF && *w > 0 && *h > 0) {
        rgb = malloc((size_t)*w * (size_t)*h * 3);
        if (rgb && fread(rgb, 3, (size_t)*w * (size_t)*h, f) != (size_t)*w * (size_t)*h) {
            free(rgb);
            rgb = NULL;
        }
    }
    if (f) fclose(f);
    return rgb;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s CHECKPOINT IMAGE.ppm X Y MASK.pgm\n", argv[0]);
        return 2;
    }
    int w = 0, h = 0;
    unsigned char *rgb = read_ppm(argv[2], &w, &h);
    if (!rgb) {
        fprintf(stderr, "%s: not a binary PPM (P6, 8-bit)\n", argv[2]);
        return 2;
    }

    struct samrt_engine_params params = samrt_engine_default_params();
    samrt_engine_t engine = NULL;
    enum samrt_status st = samrt_engine_init(argv[1], &params, &engine);
    if (st != SAMRT_OK) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], samrt_status_str(st));
        free(rgb);
        return 1;
    }

    struct samrt_object_prompt prompt = {0};
    prompt.n_clicks = 1;
    prompt.clicks[0].x = (float)atof(argv[3]);
    prompt.clicks[0].y = (float)atof(argv[4]);
    prompt.clicks[0].label = 1;
    const struct samrt_image image = {rgb, w, h, 3 * w};
    struct samrt_mask_result result = {0};
    result.mask = malloc((size_t)w * (size_t)h);
    st = result.mask ? samrt_engine_segment(engine, &image, &prompt, 1, SAMRT_POSTPROC_VOS_INFERENCE, &result)
                     : SAMRT_E_HOST_MEMORY;
    if (st == SAMRT_OK) {
        printf("object score %.3f, predicted IoU %.3f, %d pixels\n", result.object_score, result.iou, result.area);
        FILE *f = fopen(argv[5], "wb");
        if (f) {
            fprintf(f, "P5 %d %d 255\n", w, h);
            for (size_t i = 0; i < (size_t)w * (size_t)h; i++) fputc(result.mask[i] ? 255 : 0, f);
            fclose(f);
        } else {
            st = SAMRT_E_IO;
        }
    }
    if (st != SAMRT_OK) fprintf(stderr, "segmentation failed: %s\n", samrt_status_str(st));
    free(result.mask);
    free(rgb);
    samrt_engine_free(engine);
    return st == SAMRT_OK ? 0 : 1;
}
