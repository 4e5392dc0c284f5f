# Checkpoint reading and model keys: CPU tests over the committed fixtures in data/ckpt/
# (regenerate them with data/ckpt/make_fixtures.py), and with SAMRT_FUZZ=ON and clang a
# libFuzzer target over samrt_ckpt_open_mem:
#   CC=clang cmake -S . -B build/fuzz -DSAMRT_CUDA=OFF -DSAMRT_FUZZ=ON && cmake --build build/fuzz --target fuzz_ckpt
#   build/fuzz/tests/fuzz_ckpt -max_total_time=60 tests/data/ckpt/good tests/data/ckpt/bad
samrt_add_test(test_ckpt SOURCES test_ckpt.c LABELS cpu)
samrt_add_test(test_ckpt_corpus SOURCES test_ckpt_corpus.c LABELS cpu)
samrt_add_test(test_keys SOURCES test_keys.c LABELS cpu)

# `samrt info` end to end: lists a fixture (exit 0), refuses a malicious pickle (exit 2).
if (TARGET samrt_cli)
  set(_ckpt_data ${CMAKE_CURRENT_SOURCE_DIR}/data/ckpt)
  add_test(NAME test_samrt_info COMMAND samrt_cli info ${_ckpt_data}/good/tiny_state.pt)
  set_tests_properties(test_samrt_info PROPERTIES LABELS cpu
    PASS_REGULAR_EXPRESSION "f32   \\(8\\) +conv\n.*values +41 floating-point")
  add_test(NAME test_samrt_info_refuses COMMAND samrt_cli info ${_ckpt_data}/bad/forbidden_os_system.pt)
  set_tests_properties(test_samrt_info_refuses PROPERTIES LABELS cpu WILL_FAIL TRUE)
  # `samrt budget` end to end: a Jetson plan for 1080p frames (the frame size reaches the plan
  # and the JSON, and the steady frame's planned work follows: test_frame_cost checks its
  # numbers), and a malformed --frame refused with exit 2.
  add_test(NAME test_samrt_budget COMMAND samrt_cli budget --model edgetam --precision fp16 --objects 3
           --platform orin-nano-8gb --frame 1920x1080 --json)
  set_tests_properties(test_samrt_budget PROPERTIES LABELS cpu
    PASS_REGULAR_EXPRESSION "\"objects\":3,\"max_frame\":\"1920x1080\",\"platform\":\"orin-nano-8gb\",\"mem_kind\":\"unified\".*\"fits\":true,\"frame\":{\"objects\":3,\"size\":\"1920x1080\",\"launches\":[1-9][0-9]*,.*\"stages\":\\[{\"stage\":\"preprocess\"")
  add_test(NAME test_samrt_budget_refuses COMMAND samrt_cli budget --model edgetam --platform orin-nano-8gb
           --frame 1920by1080)
  set_tests_properties(test_samrt_budget_refuses PROPERTIES LABELS cpu WILL_FAIL TRUE)
endif()

if (SAMRT_FUZZ)
  if (NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "samrt: SAMRT_FUZZ needs clang (libFuzzer); configure with CC=clang")
  endif()
  # The reader sources are compiled into the target itself so that libFuzzer's coverage
  # instrumentation covers them (the samrt library is built without it).
  add_executable(fuzz_ckpt fuzz/fuzz_ckpt.c
    ${PROJECT_SOURCE_DIR}/core/ckpt.c ${PROJECT_SOURCE_DIR}/core/ckpt_zip.c
    ${PROJECT_SOURCE_DIR}/core/ckpt_pickle.c ${PROJECT_SOURCE_DIR}/core/ckpt_safetensors.c
    ${PROJECT_SOURCE_DIR}/core/half.c ${PROJECT_SOURCE_DIR}/core/log.c ${PROJECT_SOURCE_DIR}/core/status.c)
  target_include_directories(fuzz_ckpt PRIVATE ${SAMRT_LAYER_INCLUDES_core})
  target_link_libraries(fuzz_ckpt PRIVATE samrt_flags)
  target_compile_options(fuzz_ckpt PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1)
  target_link_options(fuzz_ckpt PRIVATE -fsanitize=fuzzer,address,undefined)
endif()
