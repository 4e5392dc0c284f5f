# Attention and RoPE tests (kernels/attention.*, kernels/rope.*).
samrt_add_test(test_attention SOURCES test_attention.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_attention_cuda SOURCES test_attention_cuda.c LABELS cuda)
endif()
