# EdgeTAM memory path: the spatial perceiver against a naive C model (test_edgetam_memory, CPU,
# small random inputs), and the perceiver, memory encoding and memory attention variant against
# a dump of the official EdgeTAM modules (test_edgetam_memory_parity: test_sam2_memory_parity.c
# on tests/parity/dump_memory_modules.py --model edgetam; skipped without the dump).
samrt_add_test(test_edgetam_memory SOURCES test_edgetam_memory.c LABELS cpu)
samrt_add_test(test_edgetam_memory_parity SOURCES test_sam2_memory_parity.c LABELS cpu
               ARGS ${PROJECT_SOURCE_DIR}/build/parity/edgetam_memory.safetensors)
# EdgeTAM through the tracking API (CPU backend, side 256): state layout, prompt frame =
# segmentation, objects independent.
samrt_add_test(test_edgetam_track SOURCES test_edgetam_track.c LABELS cpu)
foreach(t edgetam_memory edgetam_memory_parity edgetam_track)
  target_include_directories(test_${t} PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2 ${PROJECT_SOURCE_DIR}/models/edgetam)
endforeach()
# The CUDA backend against the CPU backend (test_sam2_memory_cuda.c in its EdgeTAM mode).
if (SAMRT_CUDA)
  samrt_add_test(test_edgetam_memory_cuda SOURCES test_sam2_memory_cuda.c LABELS cuda)
  target_include_directories(test_edgetam_memory_cuda PRIVATE ${PROJECT_SOURCE_DIR}/models/sam2
    ${PROJECT_SOURCE_DIR}/models/edgetam)
  set_tests_properties(test_edgetam_memory_cuda PROPERTIES TIMEOUT 300)
endif()
