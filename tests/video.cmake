# tests/video.cmake: video files and cameras (harness/video.h, FFmpeg), the overlays and the
# demo. test_video and the CLI checks need FFmpeg and say "skipped" with the reason without
# it (test_video exits 77; video_cli.sh then checks that --video is refused with exit 4).
# test_samrt_demo runs `samrt demo` on the CPU backend (2 frames at 256 px; without FFmpeg on
# synthetic frames) and leaves the random-weight EdgeTAM checkpoint that the CLI checks use.
# The libFuzzer target over samrt_video_open_mem (SAMRT_FUZZ=ON, clang, FFmpeg):
#   cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DSAMRT_CUDA=OFF -DSAMRT_FUZZ=ON
#   cmake --build build/fuzz --target fuzz_video -j2
#   build/fuzz/tests/fuzz_video -max_total_time=60 -rss_limit_mb=1024 tests/data/video/good tests/data/video/bad
# (tests/fuzz/fuzz_video.c and docs/video.md: the long runs and their figures)
list(APPEND _samrt_emu_threads test_video)  # the frame streamer starts a thread (tests/CMakeLists.txt)
samrt_add_test(test_video SOURCES test_video.c LABELS cpu LIBS samrt_harness
               ARGS ${PROJECT_SOURCE_DIR}/data/bedroom_40.mp4 ${CMAKE_CURRENT_SOURCE_DIR}/data/video)
if (CMAKE_CROSSCOMPILING_EMULATOR)
  # the program runs a model on the CPU backend: minutes per frame under emulation
  foreach(_t test_samrt_demo test_video_cli test_bad_input_cli)
    add_test(NAME ${_t} COMMAND sh -c "echo '${_t}: SKIPPED under ${CMAKE_CROSSCOMPILING_EMULATOR}: it runs a model on the CPU backend, which takes minutes under emulation; run it natively'; exit 77")
    set_tests_properties(${_t} PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
  endforeach()
elseif (TARGET samrt_cli)
  set(_demo_out ${CMAKE_CURRENT_BINARY_DIR}/demo_test)
  add_test(NAME test_samrt_demo COMMAND samrt_cli demo --cpu --frames 2 --out ${_demo_out})
  set_tests_properties(test_samrt_demo PROPERTIES LABELS cpu FIXTURES_SETUP samrt_demo_out
    PASS_REGULAR_EXPRESSION "RANDOM WEIGHTS.*---- samrt demo ----.*arena MiB +edgetam [0-9]")
  add_test(NAME test_video_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/video_cli.sh $<TARGET_FILE:samrt_cli>
           ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/video_cli ${_demo_out}/weights/edgetam.pt)
  set_tests_properties(test_video_cli PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 FIXTURES_REQUIRED samrt_demo_out)
  # Bad input through `samrt track`, made at test time (bad_clip.c writes the clips; the shell
  # cuts them): mp4 / mkv / webm cut in their data, a codec no FFmpeg decodes, a named pipe that
  # stops like a camera unplugged. Each: the message naming the file and the frame, the exit
  # code, and the masks of every frame before it (bad_input_cli.sh).
  add_executable(bad_clip bad_clip.c)
  target_link_libraries(bad_clip PRIVATE samrt_harness samrt samrt_flags)
  target_include_directories(bad_clip PRIVATE ${SAMRT_LAYER_INCLUDES_tools})
  add_test(NAME test_bad_input_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/bad_input_cli.sh $<TARGET_FILE:samrt_cli>
           $<TARGET_FILE:bad_clip> ${CMAKE_CURRENT_BINARY_DIR}/bad_input_cli ${_demo_out}/weights/edgetam.pt)
  set_tests_properties(test_bad_input_cli PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 900
    FIXTURES_REQUIRED samrt_demo_out)
endif()

if (SAMRT_FUZZ AND SAMRT_HAVE_VIDEO)
  add_executable(fuzz_video fuzz/fuzz_video.c ${PROJECT_SOURCE_DIR}/harness/video_read.c
    ${PROJECT_SOURCE_DIR}/harness/video_nvdec.c ${PROJECT_SOURCE_DIR}/harness/video_write.c ${PROJECT_SOURCE_DIR}/harness/atomic_file.c
    ${PROJECT_SOURCE_DIR}/core/log.c ${PROJECT_SOURCE_DIR}/core/status.c)
  target_include_directories(fuzz_video PRIVATE ${SAMRT_LAYER_INCLUDES_harness})
  target_compile_options(fuzz_video PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
  target_link_options(fuzz_video PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_video PRIVATE samrt_flags PkgConfig::SAMRT_FFMPEG)
endif()

# The GPU video path's colour conversion (kernels/nv12_rgb.h) against swscale on decoded frames,
# and the reader's software fallback when device frames are asked for (tests/test_video_nv12.c);
# on the GPU, NVDEC against software decoding frame by frame and no allocation after open
# (test_video_nvdec_cuda, exit 77 without a GPU or without NVDEC).
if (SAMRT_HAVE_VIDEO)
  list(APPEND _samrt_emu_threads test_video_nv12)
  samrt_add_test(test_video_nv12 SOURCES test_video_nv12.c LABELS cpu LIBS samrt_harness PkgConfig::SAMRT_FFMPEG
                 ARGS ${CMAKE_CURRENT_BINARY_DIR})
endif()
