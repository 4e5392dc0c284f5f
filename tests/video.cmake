# tests/video.cmake: video files and cameras (harness/video.h, FFmpeg). test_video needs
# FFmpeg and says "skipped" with the reason without it (exit 77). The libFuzzer target over
# samrt_video_open_mem (SAMRT_FUZZ=ON, clang, FFmpeg):
#   cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DSAMRT_CUDA=OFF -DSAMRT_FUZZ=ON
#   cmake --build build/fuzz --target fuzz_video -j2
#   build/fuzz/tests/fuzz_video -max_total_time=60 tests/data/video/good tests/data/video/bad
samrt_add_test(test_video SOURCES test_video.c LABELS cpu LIBS samrt_harness
               ARGS ${PROJECT_SOURCE_DIR}/data/bedroom_40.mp4 ${CMAKE_CURRENT_SOURCE_DIR}/data/video)

if (SAMRT_FUZZ AND SAMRT_HAVE_VIDEO)
  add_executable(fuzz_video fuzz/fuzz_video.c ${PROJECT_SOURCE_DIR}/harness/video_read.c
    ${PROJECT_SOURCE_DIR}/harness/video_write.c ${PROJECT_SOURCE_DIR}/core/log.c ${PROJECT_SOURCE_DIR}/core/status.c)
  target_include_directories(fuzz_video PRIVATE ${SAMRT_LAYER_INCLUDES_harness})
  target_compile_options(fuzz_video PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
  target_link_options(fuzz_video PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_video PRIVATE samrt_flags PkgConfig::SAMRT_FFMPEG)
endif()
