# The planned work of a tracked frame (samrt budget's "frame"): a hand count and the model
# notes' FLOPs without a GPU; on the GPU, the frame graph's kernel nodes against the plan.
samrt_add_test(test_frame_cost SOURCES test_frame_cost.c LABELS cpu)
set_tests_properties(test_frame_cost PROPERTIES TIMEOUT 300)
if (SAMRT_CUDA)
  samrt_add_test(test_frame_cost_cuda SOURCES test_frame_cost_cuda.c LABELS cuda)
  set_tests_properties(test_frame_cost_cuda PROPERTIES TIMEOUT 600)
endif()
# bench_frame_projection: a tracked frame's stages measured next to the projection for the
# engine's profile, at the whole GPU or in an SM share (docs/jetson.md). A benchmark, not a test.
if (SAMRT_CUDA)
  add_executable(bench_frame_projection bench_frame_projection.c)
  target_link_libraries(bench_frame_projection PRIVATE samrt samrt_harness samrt_flags)
  target_include_directories(bench_frame_projection PRIVATE ${SAMRT_LAYER_INCLUDES_tools})
endif()
