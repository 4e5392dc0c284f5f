/* eval.h - J (region IoU), F (boundary F-measure) and J&F exactly as SAM 2's
 * sav_evaluator.py computes them (eval-spec sections 2-4), per frame, per object and over a
 * dataset, plus the results.csv text.
 *
 * Per frame: J = |G&P| / |G|P| (1 when both are empty); F from the half-pixel-shifted
 * boundary maps (_seg2bmap) matched within a disk of radius ceil(0.008 * diagonal). Per
 * object: frames are that object's sorted GT files minus the first and last; a frame counts
 * once the object has been non-empty in GT or prediction ("seen"); J_o = 100 * mean. Over
 * the dataset: plain means over objects (numpy's pairwise summation, so the doubles are
 * bit-identical), J&F = (J + F) / 2.
 *
 *   struct samrt_eval_opts o = samrt_eval_default_opts();
 *   o.gt_root = "sav_val/Annotations_6fps"; o.pred_root = "preds";
 *   struct samrt_eval_result r;
 *   SAMRT_TRY(samrt_eval_run(&o, &r));
 *   char *csv; SAMRT_TRY(samrt_eval_csv(&r, &csv));   // results.csv bytes
 *   ... free(csv); samrt_eval_result_free(&r);
 */
#ifndef SAMRT_EVAL_H
#define SAMRT_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The boundary tolerance as a fraction of the image diagonal (bound_th). */
#define SAMRT_EVAL_BOUND_TH 0.008

/* ---- one frame -------------------------------------------------------------------------- */

struct samrt_eval_frame {
    double j, f;              /* as the reference computes them */
    double precision, recall; /* boundary precision and recall */
    long n_gt, n_pred;        /* foreground pixels */
    long n_inter;             /* |G & P| */
    long nb_gt, nb_pred;      /* boundary pixels */
    int radius;               /* tolerance radius in pixels */
};

/* ceil(0.008 * sqrt(h^2 + w^2)) in double, as np.ceil(0.008 * np.linalg.norm((h, w))). */
int samrt_eval_radius(int h, int w);
/* The boundary map of a binary mask (nonzero = foreground): b(y,x) = 1 when the 2x2 block
 * at (y,x), edge-replicated, is not uniform. Returns the number of boundary pixels. */
long samrt_eval_seg2bmap(const uint8_t *mask, int w, int h, uint8_t *bmap);
/* Scratch for samrt_eval_frame on a w x h frame. */
size_t samrt_eval_scratch_bytes(int w, int h);
/* J and F of one (gt, pred) pair of w x h masks (nonzero = foreground). */
enum samrt_status samrt_eval_frame(const uint8_t *gt, const uint8_t *pred, int w, int h, void *scratch,
                                   size_t scratch_bytes, struct samrt_eval_frame *out);

/* ---- one object (the "seen" rule) ------------------------------------------------------- */

struct samrt_eval_seq {
    double *j, *f;     /* borrowed, capacity cap: the counted frames' values */
    int cap, n;
    int seen_gt, seen_pred;
};

void samrt_eval_seq_init(struct samrt_eval_seq *s, double *j, double *f, int cap);
/* Feeds the next evaluated frame; it is kept once GT or prediction has been non-empty. */
enum samrt_status samrt_eval_seq_feed(struct samrt_eval_seq *s, const struct samrt_eval_frame *fr);
/* J_o and F_o (x100). Returns 0 when the object is not evaluable: its GT was empty in
 * every fed frame (the reference aborts there). */
int samrt_eval_seq_conclude(const struct samrt_eval_seq *s, double *j, double *f);

/* numpy's mean of a float64 array: pairwise summation, then one division. */
double samrt_eval_mean(const double *x, size_t n);

/* ---- a dataset --------------------------------------------------------------------------- */

struct samrt_eval_opts {
    const char *gt_root;     /* Annotations_6fps (or the split folder holding it) */
    const char *pred_root;   /* <pred>/<video>/<obj>/<frame>.png */
    const char *videos;      /* comma-separated names to evaluate, NULL = all */
    int strict;              /* GT and prediction videos must be the same set */
    int keep_first_last;     /* --do_not_skip_first_and_last_frame */
    int skip_unevaluable;    /* leave out objects with nothing to score instead of failing */
    int n_threads;           /* 0 = one per CPU, at most 16 */
};

struct samrt_eval_row {
    int video;               /* index into samrt_eval_result.videos */
    char *obj;               /* object folder name */
    double j, f, jf;         /* x100 */
    int n_counted;           /* frames that entered the means */
};

struct samrt_eval_result {
    char *gt_root;           /* the folder actually read */
    int n_videos;
    char **videos;           /* evaluated, sorted */
    int n_gt_videos;         /* video folders in GT before intersecting with predictions */
    int n_skipped;           /* GT videos without a prediction folder (non-strict mode) */
    int n_rows;
    struct samrt_eval_row *rows;   /* sorted by video, then object folder */
    int n_unevaluable;       /* objects left out by skip_unevaluable */
    double j, f, jf;         /* global, x100 */
    /* Strict mode: the names in one root and not the other (the run returns
     * SAMRT_E_FORMAT with strict_failed set). */
    int strict_failed;
    int n_gt_only, n_pred_only;
    char **gt_only, **pred_only;
};

struct samrt_eval_opts samrt_eval_default_opts(void);
enum samrt_status samrt_eval_run(const struct samrt_eval_opts *opts, struct samrt_eval_result *out);
void samrt_eval_result_free(struct samrt_eval_result *r);
/* The results.csv text, byte for byte as sav_evaluator writes it; *out is malloc'd. */
enum samrt_status samrt_eval_csv(const struct samrt_eval_result *r, char **out);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_EVAL_H */
