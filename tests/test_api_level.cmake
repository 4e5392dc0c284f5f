# test_api_level.cmake - runs tools/check_api_level.sh on the tree (must be clean), then on a
# generated source with known uses, so the scan itself is tested: unguarded names are found
# with their line numbers; names in comments, strings and #if CUDART_VERSION blocks are not.
#   ctest -R test_api_level
include(${PARAMS})
if (NOT BASH)
  message("samrt-test-skip: bash not found")
  return()
endif()
set(script ${SRC_DIR}/tools/check_api_level.sh)

execute_process(COMMAND ${BASH} ${script} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if (NOT rc EQUAL 0)
  message(FATAL_ERROR "check_api_level.sh on the tree: exit ${rc}\n${out}${err}")
endif()
message("tree: ${out}")

set(dir ${WORK_DIR}/api_level)
file(REMOVE_RECURSE ${dir})
file(WRITE ${dir}/probe.cu [=[
// cudaMemcpyBatchAsync in a comment is allowed
/* as is cudnnBackendPopulateCudaGraph
   in a block comment */
static const char *msg = "cudaStreamGetDevice in a string";
#include <cuda_fp4.h>
void probe(void) {
#if CUDART_VERSION >= 12080
  cudaMemcpyBatchAsync(0);
#else
  cudaMemcpyAsync(0);
#endif
  cudaMemPrefetchAsync(p, n, 0, stream);
#ifdef SOMETHING_ELSE
  int t = CUDNN_DATA_FP8_E8M0;
#endif
#if defined(CUDNN_VERSION) && CUDNN_VERSION >= 90500
  cudnnBackendPopulateCudaGraph(h, plan, vp, graph);
#endif
}
]=])
execute_process(COMMAND ${BASH} ${script} ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(bad "")
if (NOT rc EQUAL 1)
  string(APPEND bad " exit ${rc}, expected 1;")
endif()
foreach(expect "probe.cu:5: cuda_fp4.h" "probe.cu:12: cudaMemPrefetchAsync" "probe.cu:14: CUDNN_DATA_FP8_E8M0"
               "3 findings")
  string(FIND "${out}${err}" "${expect}" at)
  if (at EQUAL -1)
    string(APPEND bad " missing '${expect}';")
  endif()
endforeach()
if (bad)
  message(FATAL_ERROR "check_api_level.sh on the probe:${bad}\n${out}${err}")
endif()
message("probe: ${out}")
