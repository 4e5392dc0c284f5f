# python.cmake - the Python package (python/) tested through ctest: test_python runs its pytest
# suite on this build's libsamrt.so (SAMRT_BUILD_SHARED) with the seeded checkpoint that
# python_ckpt writes (label cpu: the CPU backend, no GPU needed); test_python_cuda runs
# python/tests/test_gpu.py (label cuda: skipped without a GPU). Both go through
# tests/run_python_tests.py, which reports "SKIPPED" with the reason (exit 77) when they cannot
# run here: no numpy / pytest, no shared library, a sanitizer or cross build.
add_executable(python_ckpt python_ckpt.c)
target_link_libraries(python_ckpt PRIVATE samrt samrt_flags)
target_include_directories(python_ckpt PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${SAMRT_LAYER_INCLUDES_tools})

find_package(Python3 COMPONENTS Interpreter)
set(_why "")
if (NOT Python3_Interpreter_FOUND)
  set(_why "no python3 interpreter found at configure time")
elseif (NOT SAMRT_BUILD_SHARED)
  set(_why "libsamrt.so is not built (configure with -DSAMRT_BUILD_SHARED=ON)")
elseif (SAMRT_SANITIZE)
  set(_why "an ASan build of libsamrt.so cannot be loaded into an uninstrumented python")
elseif (CMAKE_CROSSCOMPILING)
  set(_why "a cross build: the host python cannot load a ${CMAKE_SYSTEM_PROCESSOR} libsamrt.so")
endif()
set(_runner ${CMAKE_CURRENT_SOURCE_DIR}/run_python_tests.py)
foreach(_kind cpu cuda)
  set(_name test_python)
  set(_args "")
  if (_kind STREQUAL "cuda")
    set(_name test_python_cuda)
    set(_args --gpu)
  endif()
  if (_why)
    add_test(NAME ${_name} COMMAND sh -c "echo '${_name}: SKIPPED: ${_why}'; exit 77")
  else()
    set(_env SAMRT_LIBRARY=$<TARGET_FILE:samrt_shared> SAMRT_TEST_CKPT_WRITER=$<TARGET_FILE:python_ckpt>
        SAMRT_TEST_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data PYTHONDONTWRITEBYTECODE=1)
    if (TARGET samrt_cli)
      list(APPEND _env SAMRT_CLI=$<TARGET_FILE:samrt_cli>)
    endif()
    add_test(NAME ${_name} COMMAND ${Python3_EXECUTABLE} ${_runner} ${_args})
    set_tests_properties(${_name} PROPERTIES ENVIRONMENT "${_env}")
  endif()
  set_tests_properties(${_name} PROPERTIES LABELS ${_kind} SKIP_RETURN_CODE 77)
endforeach()
