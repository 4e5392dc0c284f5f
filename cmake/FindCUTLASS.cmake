# FindCUTLASS: locate the CUTLASS 2.x/3.x headers (cutlass/gemm/device/gemm.h), header-only.
# Looks, in order, in the cache variable SAMRT_CUTLASS_DIR, the environment's CUTLASS_ROOT,
# the python site-packages of the nvidia-cutlass wheel (cutlass_library/source/include, found
# through the python3 on PATH) and the usual prefixes. Defines CUTLASS_FOUND,
# CUTLASS_INCLUDE_DIR, CUTLASS_VERSION and the target CUTLASS::cutlass (include dir only).
# Optional for samrt: without it the fused GEMM epilogues (kernels/gemm_cutlass.cu) are not built.
set(SAMRT_CUTLASS_DIR "" CACHE PATH "samrt: CUTLASS include dir (holding cutlass/) or its source root")
set(_cutlass_hints ${SAMRT_CUTLASS_DIR} $ENV{CUTLASS_ROOT})
if (NOT CUTLASS_INCLUDE_DIR)
  find_program(_cutlass_python NAMES python3 python)
  if (_cutlass_python)
    execute_process(COMMAND ${_cutlass_python} -c
      "import site,sys; print(';'.join(site.getsitepackages()+[site.getusersitepackages()]))"
      OUTPUT_VARIABLE _cutlass_site OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _cutlass_rc
      TIMEOUT 30)
    if (_cutlass_rc EQUAL 0)
      foreach(_d IN LISTS _cutlass_site)
        list(APPEND _cutlass_hints ${_d}/cutlass_library/source)
      endforeach()
    endif()
  endif()
endif()
# Headers only, the same for every target: a cross build (toolchains/) may take them from the
# host as well as from its sysroot.
find_path(CUTLASS_INCLUDE_DIR cutlass/gemm/device/gemm.h
  HINTS ${_cutlass_hints}
  PATH_SUFFIXES include
  PATHS /usr/local/cutlass /opt/cutlass
  CMAKE_FIND_ROOT_PATH_BOTH)
if (CUTLASS_INCLUDE_DIR AND EXISTS ${CUTLASS_INCLUDE_DIR}/cutlass/version.h)
  file(STRINGS ${CUTLASS_INCLUDE_DIR}/cutlass/version.h _v REGEX "define CUTLASS_(MAJOR|MINOR|PATCH) ")
  set(_ver "")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "CUTLASS_${_part} +([0-9]+)" _m "${_v}")
    list(APPEND _ver "${CMAKE_MATCH_1}")
  endforeach()
  list(JOIN _ver "." CUTLASS_VERSION)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUTLASS REQUIRED_VARS CUTLASS_INCLUDE_DIR VERSION_VAR CUTLASS_VERSION)
if (CUTLASS_FOUND AND NOT TARGET CUTLASS::cutlass)
  add_library(CUTLASS::cutlass INTERFACE IMPORTED)
  set_target_properties(CUTLASS::cutlass PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${CUTLASS_INCLUDE_DIR})
endif()
