# tests/video_reader.cmake: the video reader that libsamrt.so exports (include/samrt_video.h,
# harness/video_public.c): a clip written by the harness's writer read back, and bad input
# (a missing file, a file cut in half, tests/data/video/bad) refused with clear statuses.
# Skipped (77) in a build without FFmpeg, after checking that the reader says unsupported.
samrt_add_test(test_video_reader SOURCES test_video_reader.c LABELS cpu LIBS samrt_harness
               ARGS ${CMAKE_CURRENT_SOURCE_DIR}/data/video/bad)
