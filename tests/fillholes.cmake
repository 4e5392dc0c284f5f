# Hole filling (kernels/fill_holes.h): the reference on hand-drawn masks; the CUDA union-find
# against the reference on random blob masks (run with --bench for timings).
samrt_add_test(test_fill_holes SOURCES test_fill_holes.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_fill_holes_cuda SOURCES test_fill_holes_cuda.c LABELS cuda)
endif()
