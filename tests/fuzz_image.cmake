# tests/fuzz_image.cmake: the libFuzzer target for harness/image_io (JPEG and PNG decoders),
# built only with -DSAMRT_FUZZ=ON and clang:
#   cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DSAMRT_CUDA=OFF -DSAMRT_FUZZ=ON
#   cmake --build build/fuzz --target fuzz_image -j2
#   build/fuzz/tests/fuzz_image -max_total_time=60 tests/data/images/ok tests/data/images/bad
if (SAMRT_FUZZ)
  if (NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "samrt: SAMRT_FUZZ needs clang (libFuzzer); got ${CMAKE_C_COMPILER_ID}")
  endif()
  # image_io.c (with atomic_file.c, its writer) and log.c are compiled in so that they carry the coverage instrumentation.
  add_executable(fuzz_image ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_image.c
    ${PROJECT_SOURCE_DIR}/harness/image_io.c ${PROJECT_SOURCE_DIR}/harness/atomic_file.c ${PROJECT_SOURCE_DIR}/core/log.c)
  target_include_directories(fuzz_image PRIVATE ${SAMRT_LAYER_INCLUDES_harness})
  target_compile_options(fuzz_image PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
  target_link_options(fuzz_image PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_image PRIVATE samrt_flags JPEG::JPEG PNG::PNG)
endif()
