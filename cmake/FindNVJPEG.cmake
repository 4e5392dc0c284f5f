# FindNVJPEG: locate nvJPEG (header nvjpeg.h + libnvjpeg), the GPU JPEG decoder of the frame
# streamer (platform/jpeg_gpu.h). Looks, in order: beside the CUDA toolkit (JetPack and the
# full toolkits ship it), in NVJPEG_ROOT (cache variable or environment), then in the Python
# site-packages layout of the `nvidia-nvjpeg` wheels (nvidia/cu13 or nvidia/cu12, and the
# older nvidia/nvjpeg), which carry the header and library without a toolkit. Optional: a
# build without it decodes JPEGs on the CPU. Defines NVJPEG::nvjpeg, NVJPEG_FOUND,
# NVJPEG_VERSION, NVJPEG_INCLUDE_DIR, NVJPEG_LIBRARY.
set(NVJPEG_ROOT "$ENV{NVJPEG_ROOT}" CACHE PATH "samrt: nvJPEG prefix (include/nvjpeg.h, lib/libnvjpeg.so*)")

set(_nvjpeg_site "")
find_program(_nvjpeg_python NAMES python3 python)
if (_nvjpeg_python)
  execute_process(COMMAND ${_nvjpeg_python} -c
    "import site, sys; print(';'.join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))"
    OUTPUT_VARIABLE _nvjpeg_paths OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  foreach (_p IN LISTS _nvjpeg_paths)
    if (_p)
      list(APPEND _nvjpeg_site ${_p}/nvidia/cu13 ${_p}/nvidia/cu12 ${_p}/nvidia/nvjpeg)
    endif()
  endforeach()
endif()

# the toolkit first, then the prefix, then the wheels: NO_DEFAULT_PATH keeps that order
foreach (_nvjpeg_where IN ITEMS toolkit root site)
  if (_nvjpeg_where STREQUAL "toolkit")
    set(_h ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_TARGET_DIR})
    set(_l ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_TARGET_DIR})
  elseif (_nvjpeg_where STREQUAL "root")
    set(_h ${NVJPEG_ROOT})
    set(_l ${NVJPEG_ROOT})
  else()
    set(_h ${_nvjpeg_site})
    set(_l ${_nvjpeg_site})
  endif()
  if (NOT NVJPEG_INCLUDE_DIR AND _h)
    find_path(NVJPEG_INCLUDE_DIR nvjpeg.h HINTS ${_h} PATH_SUFFIXES include include/${CMAKE_LIBRARY_ARCHITECTURE}
      NO_DEFAULT_PATH)
  endif()
  if (NOT NVJPEG_LIBRARY AND _l)
    # the wheels carry only the versioned name (libnvjpeg.so.13 / .12)
    find_library(NVJPEG_LIBRARY NAMES nvjpeg libnvjpeg.so.13 libnvjpeg.so.12 HINTS ${_l}
      PATH_SUFFIXES lib64 lib lib/${CMAKE_LIBRARY_ARCHITECTURE} NO_DEFAULT_PATH)
  endif()
endforeach()

if (NVJPEG_INCLUDE_DIR)
  file(STRINGS ${NVJPEG_INCLUDE_DIR}/nvjpeg.h _v REGEX "define NVJPEG_VER_(MAJOR|MINOR|PATCH) ")
  set(NVJPEG_VERSION "")
  foreach (_part MAJOR MINOR PATCH)
    string(REGEX MATCH "VER_${_part} ([0-9]+)" _m "${_v}")
    list(APPEND NVJPEG_VERSION ${CMAKE_MATCH_1})
  endforeach()
  list(JOIN NVJPEG_VERSION "." NVJPEG_VERSION)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NVJPEG REQUIRED_VARS NVJPEG_LIBRARY NVJPEG_INCLUDE_DIR VERSION_VAR NVJPEG_VERSION)
if (NVJPEG_FOUND AND NOT TARGET NVJPEG::nvjpeg)
  add_library(NVJPEG::nvjpeg UNKNOWN IMPORTED)
  set_target_properties(NVJPEG::nvjpeg PROPERTIES IMPORTED_LOCATION ${NVJPEG_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${NVJPEG_INCLUDE_DIR})
endif()
