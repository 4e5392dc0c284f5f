# SAM 2.1 memory path: memory encoder and memory attention. test_sam2_memory checks them on
# the CPU backend without torch (memory/pointer order, store rule, pointer positions, a naive
# model of the official math); test_sam2_memory_parity against a dump of the official modules
# (tests/parity/dump_memory_modules.py; skipped without it); the cuda test compares the CUDA
# backend with the CPU backend.
samrt_add_test(test_sam2_memory SOURCES test_sam2_memory.c LABELS cpu)
samrt_add_test(test_sam2_memory_parity SOURCES test_sam2_memory_parity.c LABELS cpu
               ARGS ${PROJECT_SOURCE_DIR}/build/parity/memory_modules.safetensors)
foreach(t sam2_memory sam2_memory_parity)
  target_include_directories(test_${t} PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2 ${PROJECT_SOURCE_DIR}/models/edgetam)
endforeach()
if (SAMRT_CUDA)
  samrt_add_test(test_sam2_memory_cuda SOURCES test_sam2_memory_cuda.c LABELS cuda)
  target_include_directories(test_sam2_memory_cuda PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2 ${PROJECT_SOURCE_DIR}/models/edgetam)
  set_tests_properties(test_sam2_memory_cuda PROPERTIES TIMEOUT 300)
endif()
