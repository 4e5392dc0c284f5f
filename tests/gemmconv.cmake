# GEMM, convolution, epilogue and BatchNorm-folding tests. CPU tests check the references by
# hand; cuBLASLt / cuDNN against them is the op table's (tests/ops_table.cmake:
# test_ops_table_cuda gemm/ conv/ convt2x2/ dwconv_bn/, --bench for BENCH lines).
# test_conv_cuda checks the fused bn form bit for bit against the kernel chain it replaces.
samrt_add_test(test_gemm SOURCES test_gemm.c LABELS cpu)
samrt_add_test(test_conv SOURCES test_conv.c LABELS cpu)
samrt_add_test(test_bn_fold SOURCES test_bn_fold.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_conv_cuda SOURCES test_conv_cuda.c LABELS cuda)
  samrt_add_test(test_tf32_guard_cuda SOURCES test_tf32_guard_cuda.c LABELS cuda)
  set_tests_properties(test_conv_cuda test_tf32_guard_cuda PROPERTIES TIMEOUT 300)
endif()
