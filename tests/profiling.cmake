# Tests of the profiling outputs (harness/csv.c, profile.c, profile_write.c, stats.c,
# latency_rec.c) and of the merge, compare and report subcommands (tools/), compiled into
# their tests and called in-process; nsys_profile.sh.
set(_prof_tools ${PROJECT_SOURCE_DIR}/tools)
set(_prof_common ${_prof_tools}/cli_util.c)
samrt_add_test(test_csv SOURCES test_csv.c LABELS cpu LIBS samrt_harness)
samrt_add_test(test_profile SOURCES test_profile.c LABELS cpu LIBS samrt_harness)
samrt_add_test(test_merge SOURCES test_merge.c ${_prof_common} ${_prof_tools}/cmd_merge.c LABELS cpu LIBS samrt_harness)
samrt_add_test(test_compare SOURCES test_compare.c ${_prof_common} ${_prof_tools}/cmd_compare.c LABELS cpu
  LIBS samrt_harness)
samrt_add_test(test_report SOURCES test_report.c ${_prof_common} ${_prof_tools}/cmd_report.c LABELS cpu
  LIBS samrt_harness)
# sweep CSVs (samrt bench --objects, --streams) through merge, compare and report together
samrt_add_test(test_sweep_tools SOURCES test_sweep_tools.c ${_prof_common} ${_prof_tools}/cmd_merge.c
  ${_prof_tools}/cmd_compare.c ${_prof_tools}/cmd_report.c LABELS cpu LIBS samrt_harness)
# the report of a run on random weights (the demo's stand-in checkpoint) opens with a banner
samrt_add_test(test_report_weights SOURCES test_report_weights.c ${_prof_common} ${_prof_tools}/cmd_report.c LABELS cpu
  LIBS samrt_harness)
add_test(NAME test_nsys_wrapper COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_nsys_wrapper.sh
  ${_prof_tools}/nsys_profile.sh)
set_tests_properties(test_nsys_wrapper PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
