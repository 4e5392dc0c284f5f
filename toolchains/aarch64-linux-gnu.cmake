# aarch64-linux-gnu.cmake - CPU-only cross build for 64-bit Arm Linux from an x86-64 Debian or
# Ubuntu host, with the tests run under qemu-user. This is the CI check that the C code
# (core, references, platform/host_cpu.c, tests) builds and passes on aarch64, the CPU of
# Jetson Orin; it builds no CUDA (see aarch64-jetson.cmake for the Orin GPU build).
#
# Host packages (Debian 12):
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install gcc-aarch64-linux-gnu qemu-user libjpeg62-turbo-dev:arm64 libpng-dev:arm64
# Run:  cmake --workflow --preset aarch64-cpu
#
# Libraries come from Debian's multiarch layout, not from a separate sysroot: the arm64 -dev
# packages put libjpeg/libpng under /usr/lib/aarch64-linux-gnu and their arch-specific
# headers (jconfig.h, pnglibconf.h) under /usr/include/aarch64-linux-gnu, while jpeglib.h and
# png.h are shared in /usr/include. So "/" is a find root, the library architecture is pinned
# to aarch64-linux-gnu (find_library then looks in lib/aarch64-linux-gnu), and the host's own
# x86_64 multiarch directories are ignored outright, so an x86-64 libjpeg can never be picked.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(SAMRT_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${SAMRT_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${SAMRT_CROSS_TRIPLE}-g++)   # only used if a C++ language is enabled
set(CMAKE_LIBRARY_ARCHITECTURE ${SAMRT_CROSS_TRIPLE})

# /usr/aarch64-linux-gnu is the cross libc (libc6-dev-arm64-cross); "/" serves the multiarch
# -dev packages and lets find_package() reach prefixes given by absolute path (tests install
# samrt under the build tree and find it again).
set(CMAKE_FIND_ROOT_PATH /usr/${SAMRT_CROSS_TRIPLE} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # build tools run on the host
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/include/x86_64-linux-gnu)

# ctest runs every test binary through qemu; -L makes qemu's ELF loader use the arm64
# dynamic linker and libc of the cross sysroot. The arm64 libjpeg/libpng live in
# /usr/lib/aarch64-linux-gnu, which the arm64 loader searches by default.
find_program(SAMRT_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if (SAMRT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SAMRT_QEMU_AARCH64} -L /usr/${SAMRT_CROSS_TRIPLE})
else()
  message(WARNING "samrt: qemu-aarch64 not found (apt-get install qemu-user): the aarch64 "
    "binaries build, but ctest cannot run them on this host")
endif()

# No CUDA in this build, whatever a cache or preset says.
set(SAMRT_CUDA OFF CACHE BOOL "samrt: forced OFF by toolchains/aarch64-linux-gnu.cmake" FORCE)
