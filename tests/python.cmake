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
set_tests_properties(test_python_cuda PROPERTIES TIMEOUT 600)

# The package as users install it (tests/python_package.py): `python -m build ./python` makes the
# sdist and, from it, the wheel (CPU build); the wheel goes into a fresh venv that imports samrt
# and segments with a mask prompt. Label slow: it compiles libsamrt.so once more (minutes on two
# cores). Skipped with the reason without venv / numpy / the build tools (offline), and in
# sanitizer and cross builds, whose settings the package build would not share.
set(_why "")
if (NOT Python3_Interpreter_FOUND)
  set(_why "no python3 interpreter found at configure time")
elseif (SAMRT_SANITIZE)
  set(_why "a sanitizer build: the package builds its own plain Release library")
elseif (CMAKE_CROSSCOMPILING)
  set(_why "a cross build: the package is built for the host python")
endif()
if (_why)
  add_test(NAME test_python_package COMMAND sh -c "echo 'test_python_package: skipped: ${_why}'; exit 77")
else()
  add_test(NAME test_python_package COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python_package.py
           ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/python_package $<TARGET_FILE:python_ckpt>)
endif()
set_tests_properties(test_python_package PROPERTIES LABELS "cpu;slow" SKIP_RETURN_CODE 77 TIMEOUT 1800)
