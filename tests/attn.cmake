# Attention and RoPE tests (kernels/attention.*, kernels/rope.*). The GPU correctness of both
# is the op table's (tests/ops_table.cmake: test_ops_table_cuda, and
# test_ops_table_cuda_portable on the portable kernel); test_attention_cuda is the attention
# benchmark (--bench: planned split and tile, no split, every tile shape), a build target
# that ctest does not run.
samrt_add_test(test_attention SOURCES test_attention.c LABELS cpu)
if (SAMRT_CUDA)
  add_executable(test_attention_cuda test_attention_cuda.c)
  target_link_libraries(test_attention_cuda PRIVATE samrt samrt_flags)
  target_include_directories(test_attention_cuda PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${SAMRT_LAYER_INCLUDES_tools})
endif()
