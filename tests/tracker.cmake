# SAM 2.1 video tracking: the memory selection rules (CPU, against a naive model of the
# official dictionaries).
samrt_add_test(test_sam2_track_bank SOURCES test_sam2_track_bank.c LABELS cpu)
target_include_directories(test_sam2_track_bank PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
# The streaming API on a host engine (tiny, synthetic weights, 64-pixel side): state size,
# prompt frames = single-frame segmentation, non-overlap, refused calls.
samrt_add_test(test_sam2_track SOURCES test_sam2_track.c LABELS cpu)
target_include_directories(test_sam2_track PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
# NV12 frames (samrt_engine_track_push_nv12) give the masks of the same frames converted to
# RGB8 and pushed as RGB8: a CPU engine (host frames); with CUDA a GPU engine (device and host
# NV12 against device RGB8, the frame counters and the frame slot).
samrt_add_test(test_sam2_track_nv12 SOURCES test_sam2_track_nv12.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_sam2_track_nv12_cuda SOURCES test_sam2_track_nv12.c LABELS cuda ARGS gpu)
  set_tests_properties(test_sam2_track_nv12_cuda PROPERTIES TIMEOUT 300)
endif()
# The memory-selection policies (track_policy.h, kernels/sam2/policy.h): SAMURAI's filter, boxes,
# decisions and bank rules by hand, refused parameters, an occluded clip under sam2 and samurai.
samrt_add_test(test_sam2_policy SOURCES test_sam2_policy.c LABELS cpu)
target_include_directories(test_sam2_policy PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
# DAM4SAM's policy (kernels/sam2/policy_dam.h, track_policy_dam.c): its gate, distractor test
# and DRM / RAM selection by hand, an occluded clip under sam2 and dam4sam.
samrt_add_test(test_sam2_policy_dam SOURCES test_sam2_policy_dam.c LABELS cpu)
target_include_directories(test_sam2_policy_dam PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
set_tests_properties(test_sam2_policy_dam PROPERTIES TIMEOUT 900)
# No allocation after setup over a long synthetic video (intercepted allocations, flat
# cudaMemGetInfo): host (a few frames, CPU backend) and gpu (1200 frames).
samrt_add_test(test_sam2_track_alloc SOURCES test_sam2_track_alloc.c alloc_intercept.c LABELS cpu ARGS host)
target_link_options(test_sam2_track_alloc PRIVATE ${_samrt_wrap_syms})
if (SAMRT_CUDA)
  # slow: 1200 frames at side 512 (docs/testing.md)
  samrt_add_test(test_sam2_track_alloc_cuda SOURCES test_sam2_track_alloc.c alloc_intercept.c LABELS cuda slow
                 ARGS gpu LIBS CUDA::cudart)
  target_link_options(test_sam2_track_alloc_cuda PRIVATE ${_samrt_wrap_syms})
endif()
# The tests that read the device's free memory (cudaMemGetInfo) or the process's peak RSS run
# alone: the free memory is the whole device's, so a test allocating beside them (ctest -j4)
# would move it. RUN_SERIAL keeps them apart from every other test; the lock names why.
# test_gpu_memory_locks fails when a test whose sources call cudaMemGetInfo has not both
# (docs/testing.md).
set_tests_properties(test_engine_alloc test_sam2_track_alloc PROPERTIES RUN_SERIAL TRUE RESOURCE_LOCK gpu_memory)
if (SAMRT_CUDA)
  set_tests_properties(test_engine_alloc_cuda test_sam2_track_alloc_cuda PROPERTIES RUN_SERIAL TRUE
    RESOURCE_LOCK gpu_memory)
  set_tests_properties(test_engine_alloc_cuda PROPERTIES TIMEOUT 300)
  set_tests_properties(test_sam2_track_alloc_cuda PROPERTIES TIMEOUT 600)
endif()
find_package(Python3 COMPONENTS Interpreter)
if (Python3_Interpreter_FOUND)
  add_test(NAME test_gpu_memory_locks COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_test_locks.py
           --tests-dir ${CMAKE_CURRENT_SOURCE_DIR} --build ${PROJECT_BINARY_DIR} --ctest ${CMAKE_CTEST_COMMAND})
  add_test(NAME test_gpu_memory_locks_selftest COMMAND ${Python3_EXECUTABLE}
           ${CMAKE_CURRENT_SOURCE_DIR}/check_test_locks.py --selftest)
  set_tests_properties(test_gpu_memory_locks test_gpu_memory_locks_selftest PROPERTIES LABELS cpu)
endif()
# The tracker's CUDA graph replay against its eager path, bit for bit over a 40-frame video
# (results, logits, pointers, banks), the row kernel against its reference, the stage times.
if (SAMRT_CUDA)
  samrt_add_test(test_sam2_track_graph_cuda SOURCES test_sam2_track_graph_cuda.c LABELS cuda LIBS CUDA::cudart)
  target_include_directories(test_sam2_track_graph_cuda PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
  set_tests_properties(test_sam2_track_graph_cuda PROPERTIES TIMEOUT 300)
endif()
# The tracker's device mask decode against the host decode, bit for bit over a 20-frame video
# with 3 overlapping objects (non-overlap off / on / notebook), masks, areas, boxes.
if (SAMRT_CUDA)
  samrt_add_test(test_sam2_track_decode_cuda SOURCES test_sam2_track_decode_cuda.c LABELS cuda LIBS CUDA::cudart)
  target_include_directories(test_sam2_track_decode_cuda PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
  set_tests_properties(test_sam2_track_decode_cuda PROPERTIES TIMEOUT 300)
endif()
# non-finite results (fp16 overflow) fail the call with SAMRT_E_NUMERIC (runtime/health.h)
samrt_add_test(test_numeric SOURCES test_numeric.c LABELS cpu ARGS host)
if (SAMRT_CUDA)
  samrt_add_test(test_numeric_cuda SOURCES test_numeric.c LABELS cuda ARGS gpu)
  set_tests_properties(test_numeric_cuda PROPERTIES TIMEOUT 300)
endif()
# several videos on one copy of the weights (samrt_engine_init_session), from threads
samrt_add_test(test_sessions SOURCES test_sessions.c LABELS cpu ARGS host)
if (SAMRT_CUDA)
  samrt_add_test(test_sessions_cuda SOURCES test_sessions.c LABELS cuda ARGS gpu)
  set_tests_properties(test_sessions_cuda PROPERTIES TIMEOUT 300)
endif()
# the demo's random-weight checkpoints (harness/ckpt_write.h) stay inside fp16's range
samrt_add_test(test_ckpt_random SOURCES test_ckpt_random.c LABELS cpu LIBS samrt_harness)
