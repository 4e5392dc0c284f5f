# Image-path kernels: frame resize + normalise, mask decode / memory-encoder input, and
# NCHW interpolation. CPU tests always; GPU tests (label cuda) only with SAMRT_CUDA, where
# `test_<op>_cuda --bench` prints BENCH lines. The interpolation's GPU cases are rows of the
# op table (tests/ops_table.cmake).
samrt_add_test(test_interp SOURCES test_interp.c LABELS cpu)
samrt_add_test(test_mask_decode SOURCES test_mask_decode.c LABELS cpu)
samrt_add_test(test_resize_normalize SOURCES test_resize_normalize.c LABELS cpu)
samrt_add_test(test_resize_normalize_nv12 SOURCES test_resize_normalize_nv12.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_mask_decode_cuda SOURCES test_mask_decode_cuda.c LABELS cuda)
  samrt_add_test(test_resize_normalize_cuda SOURCES test_resize_normalize_cuda.c LABELS cuda)
  set_tests_properties(test_mask_decode_cuda test_resize_normalize_cuda PROPERTIES TIMEOUT 300)
endif()
