# The frame streamer's decoders (harness/frame_stream.c, frame_gpu.c, platform/jpeg_gpu.h):
# the pool of libjpeg-turbo threads (order, errors mid-folder, 1 thread = N threads bit for
# bit), no allocation after open (intercepted, tests/alloc_intercept.c), nvJPEG against
# libjpeg-turbo on the GPU (exits 77 without one), NVDEC against FFmpeg's software decoding
# (test_video_nvdec_cuda, exits 77 without a GPU or NVDEC), and the decode benchmark
# (docs/video.md; --video FILE times NVDEC against software video decoding).
list(APPEND _samrt_emu_threads test_frame_decode test_frame_decode_alloc)  # decode threads
samrt_add_test(test_frame_decode SOURCES test_frame_decode.c LABELS cpu LIBS samrt_harness)
samrt_add_test(test_frame_decode_alloc SOURCES test_frame_decode_alloc.c alloc_intercept.c LABELS cpu
               LIBS samrt_harness)
target_link_options(test_frame_decode_alloc PRIVATE ${_samrt_wrap_syms})
if (SAMRT_CUDA)
  samrt_add_test(test_jpeg_gpu_cuda SOURCES test_jpeg_gpu_cuda.c alloc_intercept.c LABELS cuda LIBS samrt_harness)
  target_link_options(test_jpeg_gpu_cuda PRIVATE ${_samrt_wrap_syms})
  # it counts allocations and nvJPEG's device / pinned memory: the measuring tests' lock (docs/testing.md)
  set_tests_properties(test_jpeg_gpu_cuda PROPERTIES TIMEOUT 300 RESOURCE_LOCK gpu_memory)
  if (SAMRT_HAVE_VIDEO)  # NVDEC against software decoding (tests/test_video_nvdec_cuda.c)
    samrt_add_test(test_video_nvdec_cuda SOURCES test_video_nvdec_cuda.c alloc_intercept.c LABELS cuda
                   LIBS samrt_harness PkgConfig::SAMRT_FFMPEG ARGS ${CMAKE_CURRENT_BINARY_DIR})
    target_link_options(test_video_nvdec_cuda PRIVATE ${_samrt_wrap_syms})
    set_tests_properties(test_video_nvdec_cuda PROPERTIES TIMEOUT 300 RESOURCE_LOCK gpu_memory)
  endif()
endif()
add_executable(bench_decode bench_decode.c)
target_link_libraries(bench_decode PRIVATE samrt samrt_harness samrt_flags)
target_include_directories(bench_decode PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${SAMRT_LAYER_INCLUDES_tools})
# A bad JPEG mid-folder through `samrt track` (the masks before it written, exit 2): the
# demo's checkpoint, on the CPU backend.
if (TARGET samrt_cli AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  add_test(NAME test_decode_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/decode_cli.sh $<TARGET_FILE:samrt_cli>
           ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/decode_cli ${CMAKE_CURRENT_BINARY_DIR}/demo_test/weights/edgetam.pt)
  set_tests_properties(test_decode_cli PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 FIXTURES_REQUIRED samrt_demo_out
    TIMEOUT 900)
endif()
