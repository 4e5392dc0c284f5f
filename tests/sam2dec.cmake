# SAM 2.1 prompt encoder, mask decoder and single-frame segmentation. CPU tests check the
# prompt rules, the selection/gate references and the whole SAM heads (CPU backend) against
# a naive model of the official code; the cuda tests compare kernels and the CUDA backend with
# them and run tiny end to end on a synthetic image.
foreach(t sam2_prompt sam2_select sam2_decoder)
  samrt_add_test(test_${t} SOURCES test_${t}.c LABELS cpu)
  target_include_directories(test_${t} PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
endforeach()
samrt_add_test(test_sam2_segment SOURCES test_sam2_segment.c LABELS cpu ARGS host)
# mask prompts (samrt_engine_segment_masked) against the naive heads of sam2_heads_ref.h
samrt_add_test(test_sam2_segment_mask SOURCES test_sam2_segment_mask.c LABELS cpu)
target_include_directories(test_sam2_segment_mask PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
if (SAMRT_CUDA)
  samrt_add_test(test_sam2_segment_cuda SOURCES test_sam2_segment.c LABELS cuda ARGS gpu)
  foreach(t sam2_select_cuda sam2_decoder_cuda)
    samrt_add_test(test_${t} SOURCES test_${t}.c LABELS cuda)
    target_include_directories(test_${t} PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
  endforeach()
  set_tests_properties(test_sam2_segment_cuda test_sam2_select_cuda test_sam2_decoder_cuda PROPERTIES TIMEOUT 300)
endif()
if (SAMRT_CUDA)
  # the unified-memory arena (Jetson) against the device-memory arena, bit for bit
  samrt_add_test(test_unified_cuda SOURCES test_unified_cuda.c LABELS cuda)
  set_tests_properties(test_unified_cuda PROPERTIES TIMEOUT 300)
endif()
# `samrt segment --mask` end to end on the CPU backend (the python_ckpt checkpoint of python.cmake)
if (CMAKE_CROSSCOMPILING_EMULATOR)
  add_test(NAME test_segment_mask_cli COMMAND sh -c "echo 'test_segment_mask_cli: SKIPPED under ${CMAKE_CROSSCOMPILING_EMULATOR}: it runs a model on the CPU backend, which takes minutes under emulation; run it natively'; exit 77")
  set_tests_properties(test_segment_mask_cli PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
elseif (TARGET samrt_cli)
  add_test(NAME test_segment_mask_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/segment_mask_cli.sh $<TARGET_FILE:samrt_cli>
           $<TARGET_FILE:python_ckpt> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/segment_mask_cli)
  set_tests_properties(test_segment_mask_cli PROPERTIES LABELS cpu)
endif()
