# aarch64-jetson.cmake - build samrt for Jetson Orin (aarch64, GPU sm_87) on an x86-64 host.
# Target software: JetPack 6 (Ubuntu 22.04, CUDA 12.6, cuDNN 9.3). docs/build.md walks
# through obtaining the two inputs below.
#
# Inputs (environment variables, or -D cache entries of the same name):
#   SAMRT_JETSON_SYSROOT  a copy of the Jetson's root filesystem with libc6-dev, libjpeg-dev,
#                         libpng-dev and cuDNN 9 (libcudnn9-dev-cuda-12) installed
#   SAMRT_JETSON_CUDA     an x86-64 CUDA 12.6 toolkit (bin/nvcc) that also holds the aarch64
#                         cross target, targets/aarch64-linux (cuda-cross-aarch64-12-6)
# Every missing input is reported in one FATAL_ERROR that names the variable and what it must
# point to; a cross build that half-configures against the host's own CUDA is worse than none.
#
#   SAMRT_JETSON_SYSROOT=$HOME/orin-rootfs SAMRT_JETSON_CUDA=/usr/local/cuda-12.6 \
#     cmake -S . -B build/jetson --toolchain toolchains/aarch64-jetson.cmake -DCMAKE_BUILD_TYPE=Release
#   cmake --build build/jetson -j
#
# On the Jetson itself no toolchain file is needed: cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=87
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(SAMRT_JETSON_TRIPLE aarch64-linux-gnu)

# The toolchain file is read again inside every try_compile; these carry the inputs there.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SAMRT_JETSON_SYSROOT SAMRT_JETSON_CUDA)
foreach(_v SAMRT_JETSON_SYSROOT SAMRT_JETSON_CUDA)
  if (NOT ${_v} AND DEFINED ENV{${_v}})
    set(${_v} "$ENV{${_v}}")
  endif()
endforeach()

# ---- validate the inputs; collect every problem before failing ----------------------------
set(_problems "")
macro(_samrt_need var path what)
  if (NOT EXISTS "${${var}}/${path}")
    string(APPEND _problems "  ${var}=${${var}} has no ${path}\n      ${what}\n")
  endif()
endmacro()

set(_root "${SAMRT_JETSON_SYSROOT}")
if (NOT SAMRT_JETSON_SYSROOT)
  string(APPEND _problems "  SAMRT_JETSON_SYSROOT is not set: point it at a copy of the Jetson's root "
    "filesystem (JetPack 6, with libc6-dev, libjpeg-dev, libpng-dev and cuDNN 9 installed)\n")
elseif (NOT IS_DIRECTORY "${SAMRT_JETSON_SYSROOT}")
  string(APPEND _problems "  SAMRT_JETSON_SYSROOT=${SAMRT_JETSON_SYSROOT} is not a directory: point it at "
    "a copy of the Jetson's root filesystem (JetPack 6)\n")
else()
  set(_lib usr/lib/${SAMRT_JETSON_TRIPLE})
  _samrt_need(SAMRT_JETSON_SYSROOT ${_lib}/crt1.o
    "not an aarch64 root filesystem with libc6-dev (copy the Jetson's /usr, see docs/build.md)")
  _samrt_need(SAMRT_JETSON_SYSROOT ${_lib}/libjpeg.so "install libjpeg-dev on the Jetson, then copy again")
  _samrt_need(SAMRT_JETSON_SYSROOT ${_lib}/libpng.so "install libpng-dev on the Jetson, then copy again")
  # JetPack's cuDNN headers are absolute symlinks (/usr/include/cudnn_version.h ->
  # /etc/alternatives/...), which dangle in a copy made without dereferencing them.
  if (NOT EXISTS "${_root}/usr/include/cudnn_version.h"
      AND EXISTS "${_root}/usr/include/${SAMRT_JETSON_TRIPLE}/cudnn_version_v9.h")
    string(APPEND _problems "  SAMRT_JETSON_SYSROOT=${_root}: usr/include/cudnn_version.h is missing or a "
      "dangling absolute symlink\n      copy the Jetson's files with rsync --copy-unsafe-links (docs/build.md)\n")
  else()
    _samrt_need(SAMRT_JETSON_SYSROOT usr/include/cudnn_version.h
      "cuDNN 9 headers: install libcudnn9-dev-cuda-12 on the Jetson (JetPack 6 ships cuDNN 9.3), then copy again")
  endif()
  _samrt_need(SAMRT_JETSON_SYSROOT ${_lib}/libcudnn.so "cuDNN 9 library: as above (libcudnn9-dev-cuda-12)")
endif()

set(_tgt targets/${SAMRT_JETSON_TRIPLE})
string(REPLACE "-gnu" "" _tgt "${_tgt}")   # CUDA names the cross target aarch64-linux
if (NOT SAMRT_JETSON_CUDA)
  string(APPEND _problems "  SAMRT_JETSON_CUDA is not set: point it at an x86-64 CUDA 12.6 toolkit that also "
    "holds ${_tgt} (packages cuda-toolkit-12-6 and cuda-cross-aarch64-12-6), e.g. /usr/local/cuda-12.6\n")
elseif (NOT IS_DIRECTORY "${SAMRT_JETSON_CUDA}")
  string(APPEND _problems "  SAMRT_JETSON_CUDA=${SAMRT_JETSON_CUDA} is not a directory: point it at an "
    "x86-64 CUDA 12.6 toolkit, e.g. /usr/local/cuda-12.6\n")
else()
  _samrt_need(SAMRT_JETSON_CUDA bin/nvcc "the host compiler driver: install cuda-toolkit-12-6 (x86-64)")
  _samrt_need(SAMRT_JETSON_CUDA ${_tgt}/include/cuda_runtime.h
    "the aarch64 cross target: install cuda-cross-aarch64-12-6")
  _samrt_need(SAMRT_JETSON_CUDA ${_tgt}/lib/libcublasLt.so
    "aarch64 cuBLASLt: libcublas-cross-aarch64-12-6 (pulled in by cuda-cross-aarch64-12-6)")
endif()

find_program(SAMRT_JETSON_GCC ${SAMRT_JETSON_TRIPLE}-gcc)
find_program(SAMRT_JETSON_GXX ${SAMRT_JETSON_TRIPLE}-g++)
foreach(_tool GCC:gcc GXX:g++)
  string(REPLACE ":" ";" _tool "${_tool}")
  list(GET _tool 0 _var)
  list(GET _tool 1 _exe)
  if (NOT SAMRT_JETSON_${_var})
    string(APPEND _problems "  ${SAMRT_JETSON_TRIPLE}-${_exe} not found on PATH: install ${_exe}-${SAMRT_JETSON_TRIPLE}"
      " (gcc builds the C code, g++ is nvcc's host compiler)\n")
  endif()
endforeach()

if (_problems)
  message(FATAL_ERROR "samrt: toolchains/aarch64-jetson.cmake cannot cross-build for Jetson Orin:\n"
    "${_problems}See docs/build.md, section \"Jetson Orin\".")
endif()

# ---- the cross toolchain ---------------------------------------------------------------
set(CMAKE_SYSROOT "${SAMRT_JETSON_SYSROOT}")
set(CMAKE_C_COMPILER ${SAMRT_JETSON_GCC})
set(CMAKE_CXX_COMPILER ${SAMRT_JETSON_GXX})
set(CMAKE_LIBRARY_ARCHITECTURE ${SAMRT_JETSON_TRIPLE})
set(CMAKE_CUDA_COMPILER "${SAMRT_JETSON_CUDA}/bin/nvcc")
set(CMAKE_CUDA_HOST_COMPILER ${SAMRT_JETSON_GXX})
set(CUDAToolkit_ROOT "${SAMRT_JETSON_CUDA}")   # FindCUDAToolkit then uses ${_tgt} (cross)
# nvcc neither picks the aarch64 target directory nor forwards CMAKE_SYSROOT to its host
# compiler by itself.
set(CMAKE_CUDA_FLAGS_INIT "--target-directory aarch64-linux -Xcompiler=--sysroot=${SAMRT_JETSON_SYSROOT}")

set(CMAKE_FIND_ROOT_PATH "${SAMRT_JETSON_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Orin is sm_87; a -DCMAKE_CUDA_ARCHITECTURES=... on the command line still wins.
set(CMAKE_CUDA_ARCHITECTURES 87 CACHE STRING "samrt: Jetson Orin")
set(SAMRT_CUDA ON CACHE BOOL "samrt: forced ON by toolchains/aarch64-jetson.cmake" FORCE)
set(SAMRT_PLATFORM host_cuda CACHE STRING "samrt: platform/ implementation file")

# Report once per configure (this file is read several times, try_compiles included).
get_property(_in_try GLOBAL PROPERTY IN_TRY_COMPILE)
get_property(_announced GLOBAL PROPERTY SAMRT_JETSON_ANNOUNCED)
if (NOT _in_try AND NOT _announced)
  set_property(GLOBAL PROPERTY SAMRT_JETSON_ANNOUNCED TRUE)
  message(STATUS "samrt: Jetson Orin cross build: sysroot ${SAMRT_JETSON_SYSROOT}, CUDA ${SAMRT_JETSON_CUDA}/${_tgt}, "
    "host compiler ${SAMRT_JETSON_GXX}, CMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES}")
  if (NOT CMAKE_CUDA_ARCHITECTURES MATCHES "(^|;)87")
    message(WARNING "samrt: CMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES} has no 87: the build will not run on Orin")
  endif()
  # JetPack 6 is CUDA 12.6 + cuDNN 9.3; other versions build, but not what the device runs.
  file(STRINGS "${SAMRT_JETSON_CUDA}/${_tgt}/include/cuda_runtime_api.h" _v REGEX "define CUDART_VERSION")
  string(REGEX MATCH "[0-9]+" _cudart "${_v}")
  file(STRINGS "${SAMRT_JETSON_SYSROOT}/usr/include/cudnn_version.h" _v REGEX "define CUDNN_(MAJOR|MINOR) ")
  string(REGEX REPLACE "[^0-9]+" ";" _v "${_v}")
  list(JOIN _v "." _cudnn)
  string(REGEX REPLACE "^\\.|\\.$" "" _cudnn "${_cudnn}")
  if (NOT _cudart STREQUAL "12060" OR NOT _cudnn STREQUAL "9.3")
    message(WARNING "samrt: JetPack 6 has CUDA 12.6 (12060) and cuDNN 9.3; this build uses CUDART_VERSION "
      "${_cudart} from SAMRT_JETSON_CUDA and cuDNN ${_cudnn} from SAMRT_JETSON_SYSROOT")
  endif()
endif()
