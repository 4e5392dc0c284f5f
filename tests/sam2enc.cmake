# SAM 2 image encoder: configuration and weight binding (cpu), the encoder on the CPU
# reference backend against a naive reimplementation (cpu), the copy kernel's reference, and
# the encoder on the GPU at 1024 from a generated tiny checkpoint (cuda).
samrt_add_test(test_sam2_config SOURCES test_sam2_config.c LABELS cpu)
target_include_directories(test_sam2_config PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
samrt_add_test(test_sam2_encoder SOURCES test_sam2_encoder.c LABELS cpu)
target_include_directories(test_sam2_encoder PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
# EdgeTAM's RepViT trunk on the CPU backend against a naive unfolded model (cpu).
samrt_add_test(test_repvit SOURCES test_repvit.c LABELS cpu)
target_include_directories(test_repvit PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2 ${PROJECT_SOURCE_DIR}/models/edgetam)
# the copy kernel against its reference: rows of the op table (tests/ops_table.cmake)
samrt_add_test(test_copy SOURCES test_copy.c LABELS cpu)
if (SAMRT_CUDA)
  samrt_add_test(test_sam2_encoder_cuda SOURCES test_sam2_encoder_cuda.c alloc_intercept.c LABELS cuda
                 LIBS CUDA::cudart)
  target_include_directories(test_sam2_encoder_cuda PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2)
  target_link_options(test_sam2_encoder_cuda PRIVATE ${_samrt_wrap_syms})
  # it counts the process's allocations and times the encoder: the measuring tests' lock
  # (docs/testing.md) keeps the other measuring tests off the GPU meanwhile
  set_tests_properties(test_sam2_encoder_cuda PROPERTIES TIMEOUT 300 RESOURCE_LOCK gpu_memory)
endif()
# Parity dump of the encoder taps (tests/parity/samrt_taps.c; compare with compare_taps.py).
add_executable(samrt_taps parity/samrt_taps.c)
target_link_libraries(samrt_taps PRIVATE samrt_harness samrt samrt_flags)
target_include_directories(samrt_taps PRIVATE ${SAMRT_LAYER_INCLUDES_tools})
