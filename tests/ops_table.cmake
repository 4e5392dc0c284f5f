# The op table (tests/ops_table.h, after llama.cpp's test-backend-ops): every kernel with a
# plain-C reference and a CUDA launcher, one row per production or odd shape. test_ops_table
# (cpu) runs the references (deterministic, outputs written and finite, naive checks);
# test_ops_table_selftest (cpu) requires a moved output to be reported; test_ops_table_cuda
# (cuda) compares every launcher with its reference (exit 77 without a GPU) and prints BENCH
# lines with --bench. `--list` prints the rows; a filter argument selects rows by "op/shape".
# Rows flagged gpu_only (--list) are production shapes whose reference is too slow to run twice
# on the CPU runner; test_ops_table_cuda still checks them.
set(_ot_sources test_ops_table.c ops_table_run.c ops_table_norm.c ops_table_map.c ops_table_misc.c ops_table_sam2.c
    ops_table_conv.c ops_table_attn.c ops_table_linalg.c ops_table_video.c)
samrt_add_test(test_ops_table SOURCES ${_ot_sources} LABELS cpu)
add_test(NAME test_ops_table_selftest COMMAND test_ops_table --selftest)
set_tests_properties(test_ops_table_selftest PROPERTIES LABELS cpu TIMEOUT 120)
set_tests_properties(test_ops_table PROPERTIES TIMEOUT 900)
# the fused rotate + pool against rope + conv pool in every dtype (the rounding of the rotated taps)
add_test(NAME test_ops_table_rope_pool COMMAND test_ops_table --all-dtypes rope_pool/)
set_tests_properties(test_ops_table_rope_pool PROPERTIES LABELS cpu TIMEOUT 300)
if (SAMRT_CUDA)
  samrt_add_test(test_ops_table_cuda SOURCES ${_ot_sources} ops_table_cuda.c LABELS cuda)
  target_compile_definitions(test_ops_table_cuda PRIVATE OT_CUDA_PART=1)
  set_tests_properties(test_ops_table_cuda PROPERTIES TIMEOUT 900)
  add_test(NAME test_ops_table_cuda_selftest COMMAND test_ops_table_cuda --selftest)
  set_tests_properties(test_ops_table_cuda_selftest PROPERTIES LABELS cuda SKIP_RETURN_CODE 77 TIMEOUT 60)
  # the attention rows on the portable (sm_80+) kernel; on an H100 the run above tests the sm_90a one
  add_test(NAME test_ops_table_cuda_portable COMMAND test_ops_table_cuda attention/)
  set_tests_properties(test_ops_table_cuda_portable PROPERTIES LABELS cuda SKIP_RETURN_CODE 77 TIMEOUT 600
    ENVIRONMENT "SAMRT_ATTENTION_PORTABLE=1")
endif()
