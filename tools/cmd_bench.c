/* cmd_bench.c - `samrt bench`: the profiling run over an SA-V split (harness/bench.h) with the
 * trackers of this build (harness/bench_tracker.h). docs/profiling.md describes the options, the
 * outputs and every column. Example:
 *   samrt bench --split_dir sav_val --models sam2.1_tiny_mask,sam2.1_tiny_points \
 *       --weights_dir checkpoints --out_dir results/run1 --limit_videos 4 --runs 3
 * and the object sweep (one row per count of objects tracked at once, harness/bench_sweep.c):
 *   samrt bench --video clip.mp4 --point 210,350 --models edgetam --out_dir sweep --objects 1,2,4,8,16
 * or over videos tracked at once on one copy of the weights (sessions on threads,
 * harness/bench_streams.c), with or without --objects:
 *   samrt bench --video frames/ --point 210,350 --models edgetam --out_dir streams --streams 1,2,4
 * and the memory-selection policies side by side in one run (J&F and cost per policy):
 *   samrt bench --split_dir synth --models sam2.1_tiny --out_dir policies --memory sam2,samurai,dam4sam */
#include "bench.h"
#include "cli.h"

int samrt_cmd_bench(int argc, char **argv) { return samrt_bench_main(argc, argv, samrt_tracker_backend()); }
