# tests/data.cmake: the data and accuracy tests (image I/O, the SA-V reader, prompts, eval,
# synth) and the image fuzz target, against the harness library (harness/). data_util.h
# writes some PNGs with libpng directly, so these tests link it themselves.
samrt_add_test(test_image_io SOURCES test_image_io.c LABELS cpu LIBS samrt_harness PNG::PNG)
samrt_add_test(test_sav SOURCES test_sav.c LABELS cpu LIBS samrt_harness PNG::PNG)
samrt_add_test(test_prompts SOURCES test_prompts.c LABELS cpu LIBS samrt_harness PNG::PNG)
samrt_add_test(test_eval SOURCES test_eval.c LABELS cpu LIBS samrt_harness PNG::PNG)
samrt_add_test(test_synth SOURCES test_synth.c LABELS cpu LIBS samrt_harness PNG::PNG)

include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz_image.cmake)
