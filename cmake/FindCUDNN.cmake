# FindCUDNN: locate cuDNN 9 (header cudnn_version.h + libcudnn). Looks beside the CUDA
# toolkit, in CUDNN_ROOT, and in the Debian/JetPack multiarch include dirs. Defines
# CUDNN::cudnn, CUDNN_VERSION, CUDNN_INCLUDE_DIR, CUDNN_LIBRARY.
set(_cudnn_hints $ENV{CUDNN_ROOT} ${CUDNN_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})
find_path(CUDNN_INCLUDE_DIR cudnn_version.h
  HINTS ${_cudnn_hints} ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES include include/${CMAKE_LIBRARY_ARCHITECTURE})
find_library(CUDNN_LIBRARY cudnn
  HINTS ${_cudnn_hints} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib64 lib lib/${CMAKE_LIBRARY_ARCHITECTURE})
if (CUDNN_INCLUDE_DIR)
  file(STRINGS ${CUDNN_INCLUDE_DIR}/cudnn_version.h _v REGEX "define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ")
  string(REGEX MATCH "MAJOR ([0-9]+)" _m "${_v}")
  set(_maj ${CMAKE_MATCH_1})
  string(REGEX MATCH "MINOR ([0-9]+)" _m "${_v}")
  set(_min ${CMAKE_MATCH_1})
  string(REGEX MATCH "PATCHLEVEL ([0-9]+)" _m "${_v}")
  set(CUDNN_VERSION "${_maj}.${_min}.${CMAKE_MATCH_1}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUDNN REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR VERSION_VAR CUDNN_VERSION)
if (CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn UNKNOWN IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES IMPORTED_LOCATION ${CUDNN_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${CUDNN_INCLUDE_DIR})
endif()
