# test_target_arch.cmake - the test binaries are ELF files for CMAKE_SYSTEM_PROCESSOR (e_machine
# at byte 18), so a "cross" build that silently used the host compiler, or a qemu run of
# host binaries, fails here.
#   ctest -R test_target_arch
include(${PARAMS})
set(machines x86_64 3e00 AMD64 3e00 aarch64 b700 arm64 b700)
list(FIND machines "${PROCESSOR}" at)
if (at EQUAL -1)
  message("samrt-test-skip: no e_machine value known for CMAKE_SYSTEM_PROCESSOR=${PROCESSOR}")
  return()
endif()
math(EXPR at "${at} + 1")
list(GET machines ${at} want)
file(READ ${PROBE_EXE} head LIMIT 20 HEX)
string(SUBSTRING "${head}" 0 8 magic)
string(SUBSTRING "${head}" 36 4 machine)
if (NOT magic STREQUAL "7f454c46")
  message(FATAL_ERROR "${PROBE_EXE} is not an ELF file (starts with ${magic})")
endif()
if (NOT machine STREQUAL want)
  message(FATAL_ERROR "${PROBE_EXE}: e_machine ${machine}, expected ${want} for ${PROCESSOR}")
endif()
message("${PROBE_EXE}: ELF for ${PROCESSOR} (e_machine ${machine})")
