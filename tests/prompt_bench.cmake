# tests/prompt_bench.cmake: bench_prompted_frame, the latency of a tracked video's prompted
# frames next to its tracked ones (docs/performance.md). A benchmark, not a test: built with
# the tests, run by hand or by tools/gpu_suite.sh's `prompt` step.
add_executable(bench_prompted_frame bench_prompted_frame.c)
target_link_libraries(bench_prompted_frame PRIVATE samrt samrt_harness samrt_flags)
target_include_directories(bench_prompted_frame PRIVATE ${SAMRT_LAYER_INCLUDES_tools})
