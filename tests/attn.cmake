# Attention and RoPE tests (kernels/attention.*, kernels/rope.*).
samrt_add_test(test_attention SOURCES test_attention.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_attention_cuda SOURCES test_attention_cuda.c LABELS cuda)
  # the same cases on the portable (sm_80+) kernel; on an H100 the run above tests the sm_90a one
  add_test(NAME test_attention_cuda_portable COMMAND test_attention_cuda)
  set_tests_properties(test_attention_cuda_portable PROPERTIES LABELS cuda SKIP_RETURN_CODE 77
    ENVIRONMENT "SAMRT_ATTENTION_PORTABLE=1")
endif()
