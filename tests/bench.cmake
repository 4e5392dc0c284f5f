# tests/bench.cmake: `samrt bench` (harness/bench.c, bench_run.c, bench_tracker.c) driven by a
# scripted test double of the tracker interface on a synthetic split. A build configured with
# -DSAMRT_BENCH_TRACKING=OFF checks the refusal path of the real backend instead.
samrt_add_test(test_bench SOURCES test_bench.c LABELS cpu LIBS samrt_harness)
if (SAMRT_BENCH_TRACKING)
  target_compile_definitions(test_bench PRIVATE SAMRT_BENCH_TRACKING=1)
endif()
