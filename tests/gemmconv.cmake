# GEMM, convolution, epilogue and BatchNorm-folding tests. CPU tests check the references by
# hand; the cuda tests compare cuBLASLt/cuDNN with them (exit 77 without a GPU) and take
# --bench for BENCH lines.
samrt_add_test(test_gemm SOURCES test_gemm.c LABELS cpu)
samrt_add_test(test_conv SOURCES test_conv.c LABELS cpu)
samrt_add_test(test_bn_fold SOURCES test_bn_fold.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_gemm_cuda SOURCES test_gemm_cuda.c LABELS cuda)
  samrt_add_test(test_conv_cuda SOURCES test_conv_cuda.c LABELS cuda)
  samrt_add_test(test_tf32_guard_cuda SOURCES test_tf32_guard_cuda.c LABELS cuda)
endif()
