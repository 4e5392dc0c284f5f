# tests/bench.cmake: `samrt bench` (harness/bench.c, bench_run.c, bench_tracker.c) driven by a
# scripted test double of the tracker interface on a synthetic split. A build configured with
# -DSAMRT_BENCH_TRACKING=OFF checks the refusal path of the real backend instead.
samrt_add_test(test_bench SOURCES test_bench.c LABELS cpu LIBS samrt_harness)
# The sweep (--objects, --streams; harness/bench_sweep.c, bench_streams.c): its list parsers and
# grid, a 1, 2 objects sweep and a 1, 2 streams sweep (a session on a second thread) with the
# real tracker on the CPU backend (random-weight SAM 2.1 tiny, 64-pixel side).
samrt_add_test(test_bench_sweep SOURCES test_bench_sweep.c LABELS cpu LIBS samrt_harness)
# --memory sam2,samurai: one bench run, each model once per policy (per-object rows, the sweep's
# configurations, the mask folders and JSON keys per policy), on the same tiny CPU run.
samrt_add_test(test_bench_memory SOURCES test_bench_memory.c LABELS cpu LIBS samrt_harness)
set_tests_properties(test_bench_memory PROPERTIES TIMEOUT 300)
foreach(_t test_bench test_bench_sweep test_bench_memory)
  if (SAMRT_BENCH_TRACKING)
    target_compile_definitions(${_t} PRIVATE SAMRT_BENCH_TRACKING=1)
  endif()
endforeach()
