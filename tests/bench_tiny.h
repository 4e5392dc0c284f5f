/* bench_tiny.h - the tiny CPU bench run that the `samrt bench` tests with the real tracker share
 * (test_bench_sweep.c, test_bench_memory.c): a one-video synthetic split of small frames and
 * one object, and a SAM 2.1 tiny checkpoint of seeded random weights (harness/ckpt_write.h, as
 * `samrt demo` writes one). A build without the bench's tracker (SAMRT_BENCH_TRACKING unset)
 * still checks the refusals and reports the runs as skipped (exit 77). */
#ifndef SAMRT_TESTS_BENCH_TINY_H
#define SAMRT_TESTS_BENCH_TINY_H

#include "bench.h"
#include "ckpt_write.h"
#include "synth.h"
#include "tool_test.h"

#ifdef SAMRT_BENCH_TRACKING
#define BENCH_TINY_RUNS 1
#else
#define BENCH_TINY_RUNS 0
#endif

struct bench_tiny {
    char split[512], weights[512], ckpt[600];
};

/* tt_path("split"): one video of n_frames frames of width x height with one object;
 * tt_path("weights"): sam2.1_hiera_tiny.pt of seeded random weights when the build tracks.
 * 0, or 1 after saying why. */
static inline int bench_tiny_setup(const char *test, int n_frames, int width, int height, struct bench_tiny *bt) {
    struct samrt_synth_params p = samrt_synth_default_params();
    p.n_videos = 1, p.n_frames = n_frames, p.n_objects = 1, p.width = width, p.height = height;
    snprintf(bt->split, sizeof bt->split, "%s", tt_path("split"));
    snprintf(bt->weights, sizeof bt->weights, "%s", tt_path("weights"));
    snprintf(bt->ckpt, sizeof bt->ckpt, "%s/sam2.1_hiera_tiny.pt", bt->weights);
    if (samrt_synth_write(bt->split, &p, 0) != SAMRT_OK || mkdir(bt->weights, 0777) != 0 ||
        (BENCH_TINY_RUNS && samrt_ckpt_write_random(bt->ckpt, SAMRT_MODEL_SAM2_1_TINY, 7) != SAMRT_OK)) {
        fprintf(stderr, "%s: cannot write the synthetic split or the checkpoint\n", test);
        return 1;
    }
    return 0;
}

/* The test's exit code: tt_end's, 77 when it passed without the runs. */
static inline int bench_tiny_end(const char *test, struct bench_tiny *bt) {
    remove(bt->ckpt);
    const int rc = tt_end(test);
    if (rc || BENCH_TINY_RUNS) return rc;
    printf("%s: SKIPPED the runs: this build has no bench tracker (SAMRT_BENCH_TRACKING=OFF)\n", test);
    return 77;
}

/* `samrt bench` with this build's tracker. */
static inline int bench_tiny_real(int argc, char **argv) {
    return samrt_bench_main(argc, argv, samrt_tracker_backend());
}

#endif /* SAMRT_TESTS_BENCH_TINY_H */
