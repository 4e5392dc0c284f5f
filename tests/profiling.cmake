# Tests of the profiling outputs and tools (tools/csv.c, profile.c, merge, compare, report,
# nsys_profile.sh). The subcommands are compiled into their tests and called in-process.
set(_prof_tools ${PROJECT_SOURCE_DIR}/tools)
set(_prof_common ${_prof_tools}/csv.c ${_prof_tools}/profile.c ${_prof_tools}/cli_util.c)
samrt_add_test(test_csv SOURCES test_csv.c ${_prof_tools}/csv.c LABELS cpu)
samrt_add_test(test_profile SOURCES test_profile.c ${_prof_common} LABELS cpu)
samrt_add_test(test_merge SOURCES test_merge.c ${_prof_common} ${_prof_tools}/cmd_merge.c LABELS cpu)
samrt_add_test(test_compare SOURCES test_compare.c ${_prof_common} ${_prof_tools}/cmd_compare.c LABELS cpu)
samrt_add_test(test_report SOURCES test_report.c ${_prof_common} ${_prof_tools}/cmd_report.c
  ${_prof_tools}/report_html.c LABELS cpu)
add_test(NAME test_nsys_wrapper COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_nsys_wrapper.sh
  ${_prof_tools}/nsys_profile.sh)
set_tests_properties(test_nsys_wrapper PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
