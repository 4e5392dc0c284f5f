# samrt_engine_params.sm_limit: the engine in a green context of N SMs, an Orin-sized share of
# a large GPU (docs/performance.md). Without CUDA `samrt track|bench --sm-limit` are refused with
# the reason and exit 4 (before any weights are read); on a GPU an engine in a share of 8 SMs
# reports the SMs it got, tracks like the whole GPU, shares its green context with its
# sessions, and a kernel on its stream reaches no more SMs than that.
if (TARGET samrt_cli AND NOT SAMRT_CUDA AND CMAKE_CROSSCOMPILING_EMULATOR)
  # `samrt track` starts its frame prefetch thread before the engine refuses the flag: a
  # threaded program spins under qemu-user for minutes (as test_video_cli, video.cmake)
  add_test(NAME test_sm_limit_cli COMMAND sh -c "echo 'test_sm_limit_cli: SKIPPED under ${CMAKE_CROSSCOMPILING_EMULATOR}: samrt track starts a thread, which spins under emulation; run it natively'; exit 77")
  set_tests_properties(test_sm_limit_cli PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
elseif (TARGET samrt_cli AND NOT SAMRT_CUDA)
  add_test(NAME test_sm_limit_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/sm_limit_cli.sh $<TARGET_FILE:samrt_cli>
           ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/sm_limit_cli)
  set_tests_properties(test_sm_limit_cli PROPERTIES LABELS cpu TIMEOUT 120)
endif()
if (SAMRT_CUDA)
  samrt_add_test(test_sm_limit_cuda SOURCES test_sm_limit_cuda.c sm_limit_smid.cu LABELS cuda LIBS CUDA::cudart)
  # it counts the SMs a kernel reaches: the measuring tests' lock (docs/testing.md)
  set_tests_properties(test_sm_limit_cuda PROPERTIES TIMEOUT 300 RESOURCE_LOCK gpu_memory)
endif()
