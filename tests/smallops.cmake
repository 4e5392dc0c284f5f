# Small building-block kernels: layernorm, elementwise, pool, sine_pe, fourier_pe, finite.
# CPU tests check the references against hand values; the kernels against the references are
# rows of the op table (tests/ops_table.cmake). test_finite_cuda keeps what a row cannot say:
# many mixed-dtype segments in one launch and the launches replayed from a captured graph.
foreach(op layernorm elementwise pool sine_pe fourier_pe finite)
  samrt_add_test(test_${op} SOURCES test_${op}.c LABELS cpu)
endforeach()
if (SAMRT_CUDA)
  samrt_add_test(test_finite_cuda SOURCES test_finite_cuda.c LABELS cuda)
  set_tests_properties(test_finite_cuda PROPERTIES TIMEOUT 300)
endif()
# The op entries that moved out of the networks (ops/ops_sam2.h, the key-prefix attention, the
# 1-D sine encoding, the host tables), against their kernels' references on the CPU backend.
samrt_add_test(test_ops_sam2 SOURCES test_ops_sam2.c LABELS cpu)
