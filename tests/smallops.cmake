# Small building-block kernels: layernorm, elementwise, pool, sine_pe, fourier_pe, finite.
# CPU tests check the references against hand values; the _cuda tests compare the kernels
# with the references (run them with --bench for timings).
foreach(op layernorm elementwise pool sine_pe fourier_pe finite)
  samrt_add_test(test_${op} SOURCES test_${op}.c LABELS cpu)
  if (SAMRT_CUDA)
    samrt_add_test(test_${op}_cuda SOURCES test_${op}_cuda.c LABELS cuda)
  endif()
endforeach()
# The op entries that moved out of the networks (ops/ops_sam2.h, the key-prefix attention, the
# 1-D sine encoding, the host tables), against their kernels' references on the CPU backend.
samrt_add_test(test_ops_sam2 SOURCES test_ops_sam2.c LABELS cpu)
