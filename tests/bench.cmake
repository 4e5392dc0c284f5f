# tests/bench.cmake: `samrt bench` (tools/bench.c, bench_tracker.c) driven by a scripted test double
# of the tracker interface on a synthetic split (samrt_data_tools comes from data.cmake).
set(_bench_tools ${PROJECT_SOURCE_DIR}/tools)
samrt_add_test(test_bench SOURCES test_bench.c ${_bench_tools}/bench.c ${_bench_tools}/bench_tracker.c
  ${_bench_tools}/profile.c ${_bench_tools}/csv.c ${_bench_tools}/cli_util.c LABELS cpu LIBS samrt_data_tools)
if (SAMRT_BENCH_TRACKING)
  target_compile_definitions(test_bench PRIVATE SAMRT_BENCH_TRACKING=1)
endif()
