/* sav.h - the SA-V val/test reader (eval-spec section 1): split, videos, objects, annotated
 * frames, binary masks.
 *
 * Layout:
 *   <split>/<split>.txt                               video ids (optional; else the folders)
 *   <split>/JPEGImages_24fps/<video>/00000.jpg ...    every frame
 *   <split>/Annotations_6fps/<video>/<obj>/00000.png  one object per folder, every 4th frame
 *
 * samrt_sav_open lists everything and checks what is cheap to check (names, numbering, mask
 * headers: colour type and size); masks themselves decode on demand. With
 * sel.validate_masks it also decodes every selected mask (three-valued masks, objects that
 * are empty in every frame). Every problem is an error with a message naming the file.
 *
 *   struct samrt_sav_select sel = samrt_sav_default_select();
 *   sel.limit_videos = 1;
 *   struct samrt_sav_split split;
 *   SAMRT_TRY(samrt_sav_open("/data/sav_val", &sel, &split));
 *   for (int v = 0; v < split.n_videos; v++) { ... split.videos[v].objects ... }
 *   samrt_sav_free(&split);
 *
 * The frame streamer (frame_stream.h) reads a video folder's frames ahead on a thread; the
 * mask reader (mask_read.h, included) loads a mask PNG with the SA-V rules.
 */
#ifndef SAMRT_SAV_H
#define SAMRT_SAV_H

#include <stddef.h>
#include <stdint.h>

#include "frame_stream.h"
#include "mask_read.h"
#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SAMRT_SAV_JPEG_DIR "JPEGImages_24fps"
#define SAMRT_SAV_ANN_DIR "Annotations_6fps"

/* One JPEG of a video: its position in the sorted list is the model's frame index. */
struct samrt_sav_jpeg {
    char *name;    /* file name, e.g. "00012.jpg" */
    long number;   /* integer value of the stem */
};

/* One annotated frame of one object. */
struct samrt_sav_ann {
    char *name;    /* file name, e.g. "00012.png" */
    int frame;     /* index into the video's JPEG list */
};

struct samrt_sav_object {
    char *name;    /* folder name, e.g. "000": the key predictions are written under */
    int id;        /* integer value of name; -1 when it is not a decimal number */
    int n_anns;
    struct samrt_sav_ann *anns;   /* sorted with strcmp, as the evaluator does */
};

struct samrt_sav_video {
    char *name;
    char *jpeg_dir;   /* <split>/JPEGImages_24fps/<video> */
    char *ann_dir;    /* <split>/Annotations_6fps/<video> */
    int width, height;
    int n_frames;
    struct samrt_sav_jpeg *frames;
    int n_objects;
    struct samrt_sav_object *objects;   /* sorted with strcmp, after --limit_objects */
};

struct samrt_sav_split {
    char *root;
    int n_videos;                       /* after selection */
    struct samrt_sav_video *videos;
    int n_videos_total;                 /* in the split, before selection */
};

struct samrt_sav_select {
    const char *videos;        /* comma-separated names, NULL = all */
    int limit_videos;          /* 0 = all; applied after videos and shard */
    int limit_objects;         /* per video, 0 = all */
    int shard_k, shard_n;      /* keep every shard_n-th video starting at shard_k; n 0 = off */
    int validate_masks;        /* decode every selected mask at open */
    int skip_empty_objects;    /* with validate_masks: drop (warn) instead of failing */
};

struct samrt_sav_select samrt_sav_default_select(void);

/* Parses "K/N" (0 <= K < N) for --shard. */
enum samrt_status samrt_sav_parse_shard(const char *s, int *k, int *n);

enum samrt_status samrt_sav_open(const char *split_dir, const struct samrt_sav_select *sel,
                                 struct samrt_sav_split *out);
void samrt_sav_free(struct samrt_sav_split *split);

/* Full path of an annotation PNG into buf. */
void samrt_sav_ann_path(const struct samrt_sav_video *v, const struct samrt_sav_object *o, int ann,
                        char *buf, size_t len);

/* Lists the frames of a JPEG folder: files ending in .jpg/.jpeg/.JPG/.JPEG, sorted by the
 * integer value of the stem, which must run 0..n-1 without gaps or duplicates. */
enum samrt_status samrt_sav_list_jpegs(const char *dir, struct samrt_sav_jpeg **frames, int *n);
void samrt_sav_free_jpegs(struct samrt_sav_jpeg *frames, int n);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_SAV_H */
