# tests/getting_started.cmake - the first steps of a user, end to end on the CPU backend:
# tools/download_checkpoints.sh against a local HTTP server (download_test.sh, ckpt_server.py;
# nothing leaves 127.0.0.1), and `samrt track --video` on a lossless FFV1 clip giving the same
# masks as `samrt track --frames` on its JPEG frames (ffv1_track.sh, ffv1_clip.c). Both use
# the random-weight EdgeTAM checkpoint test_samrt_demo writes (tests/video.cmake).
# Under a cross-compiling emulator test_samrt_demo writes no checkpoint, and both skip saying so.
if (TARGET samrt_cli)
  set(_gs_ckpt ${CMAKE_CURRENT_BINARY_DIR}/demo_test/weights/edgetam.pt)
  find_package(Python3 COMPONENTS Interpreter)
  if (Python3_Interpreter_FOUND)
    add_test(NAME test_download_checkpoints COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/download_test.sh
             ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/download_test $<TARGET_FILE:samrt_cli> ${_gs_ckpt}
             ${Python3_EXECUTABLE})
  else()
    add_test(NAME test_download_checkpoints COMMAND sh -c "echo 'test_download_checkpoints: SKIPPED: no python3 for the test server'; exit 77")
  endif()
  set_tests_properties(test_download_checkpoints PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 60
    FIXTURES_REQUIRED samrt_demo_out)

  add_executable(ffv1_clip ffv1_clip.c)
  target_link_libraries(ffv1_clip PRIVATE samrt_harness samrt samrt_flags)
  target_include_directories(ffv1_clip PRIVATE ${SAMRT_LAYER_INCLUDES_tools})
  add_test(NAME test_ffv1_track COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ffv1_track.sh $<TARGET_FILE:samrt_cli>
           $<TARGET_FILE:ffv1_clip> ${CMAKE_CURRENT_BINARY_DIR}/ffv1_track ${_gs_ckpt})
  set_tests_properties(test_ffv1_track PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 120
    FIXTURES_REQUIRED samrt_demo_out)
endif()
