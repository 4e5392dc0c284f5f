# Tracker post-processing and mask prompts.
# Hole filling (kernels/sam2/fill_holes.h): the reference on hand-drawn masks; the CUDA union-find
# against the reference on random blob masks (run with --bench for timings).
samrt_add_test(test_fill_holes SOURCES test_fill_holes.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_fill_holes_cuda SOURCES test_fill_holes_cuda.c LABELS cuda)
  set_tests_properties(test_fill_holes_cuda PROPERTIES TIMEOUT 300)
endif()
# Mask prompts of the tracker (runtime/sam2/track_mask.h) on a host engine: resize weights by
# hand, the prompt frame against the naive composition, pointer, tracking on, notebook filling.
samrt_add_test(test_sam2_track_mask SOURCES test_sam2_track_mask.c LABELS cpu)
target_include_directories(test_sam2_track_mask PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
