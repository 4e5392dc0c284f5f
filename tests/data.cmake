# tests/data.cmake: the data and accuracy tests (image I/O, the SA-V reader, prompts, eval,
# synth) and the image fuzz target. The tools/ sources they test are built once into a
# static library here, so these tests do not depend on SAMRT_BUILD_TOOLS.
add_library(samrt_data_tools STATIC
  ${PROJECT_SOURCE_DIR}/tools/sav.c ${PROJECT_SOURCE_DIR}/tools/prompts.c
  ${PROJECT_SOURCE_DIR}/tools/synth.c ${PROJECT_SOURCE_DIR}/tools/eval.c)
target_include_directories(samrt_data_tools PUBLIC ${PROJECT_SOURCE_DIR}/tools ${PROJECT_SOURCE_DIR}/core
                           PRIVATE ${PROJECT_SOURCE_DIR}/platform)
target_link_libraries(samrt_data_tools PUBLIC samrt PRIVATE samrt_flags)

samrt_add_test(test_image_io SOURCES test_image_io.c LABELS cpu)
samrt_add_test(test_sav SOURCES test_sav.c LABELS cpu LIBS samrt_data_tools)
samrt_add_test(test_prompts SOURCES test_prompts.c LABELS cpu LIBS samrt_data_tools)
samrt_add_test(test_eval SOURCES test_eval.c LABELS cpu LIBS samrt_data_tools)
samrt_add_test(test_synth SOURCES test_synth.c LABELS cpu LIBS samrt_data_tools)

if (EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/CMakeLists.txt)
  # the fuzz folder lists fuzz_image itself
else()
  include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz_image.cmake)
endif()
