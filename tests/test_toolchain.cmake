# test_toolchain.cmake - toolchains/aarch64-jetson.cmake refuses to configure without its
# inputs and says which one is missing and what it must point to. Each case configures the
# real project in a scratch build dir with a controlled environment; the toolchain file fails
# at project(), so a case takes a fraction of a second. No Jetson sysroot or CUDA cross target
# exists in CI: the last case only shows that the documented layout passes validation.
#   ctest -R test_toolchain   (or: cmake -DPARAMS=<build>/tests/build_checks_params-<cfg>.cmake -P tests/test_toolchain.cmake)
include(${PARAMS})
set(tc ${SRC_DIR}/toolchains/aarch64-jetson.cmake)
set(work ${WORK_DIR}/toolchain)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work}/empty_sysroot ${work}/cuda_no_target/bin
  ${work}/sysroot_dangling/usr/include/aarch64-linux-gnu)
file(TOUCH ${work}/cuda_no_target/bin/nvcc
  ${work}/sysroot_dangling/usr/include/aarch64-linux-gnu/cudnn_version_v9.h)
# What a copy without --copy-unsafe-links leaves: an absolute link to the device's /etc.
file(CREATE_LINK /etc/alternatives/samrt-test-no-such-file
  ${work}/sysroot_dangling/usr/include/cudnn_version.h SYMBOLIC)

set(failures 0)
# configure(<case> <env args for cmake -E env> EXPECT <regex>... REJECT <regex>...)
function(configure case)
  cmake_parse_arguments(C "ACCEPTED" "" "ENV;DEFS;EXPECT;REJECT" ${ARGN})
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env --unset=SAMRT_JETSON_SYSROOT --unset=SAMRT_JETSON_CUDA ${C_ENV}
            ${CMAKE_COMMAND} -S ${SRC_DIR} -B ${work}/build_${case} -G ${GENERATOR}
            -DCMAKE_TOOLCHAIN_FILE=${tc} ${C_DEFS}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(text "${out}${err}")
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${text}")   # CMake wraps long messages
  set(bad "")
  if (C_ACCEPTED)
    set(must "")
    list(APPEND C_REJECT "cannot cross-build for Jetson Orin")
  else()
    set(must "cannot cross-build for Jetson Orin")
    if (rc EQUAL 0)
      string(APPEND bad " configure succeeded;")
    endif()
  endif()
  foreach(re ${must} ${C_EXPECT})
    if (NOT flat MATCHES "${re}")
      string(APPEND bad " missing '${re}';")
    endif()
  endforeach()
  foreach(re ${C_REJECT})
    if (flat MATCHES "${re}")
      string(APPEND bad " unexpected '${re}';")
    endif()
  endforeach()
  if (bad)
    message("FAIL ${case}:${bad}\n---- output ----\n${text}\n----------------")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  else()
    message("ok   ${case}")
  endif()
endfunction()

configure(no_env
  EXPECT "SAMRT_JETSON_SYSROOT is not set: point it at a copy of the Jetson's root filesystem"
         "SAMRT_JETSON_CUDA is not set: point it at an x86-64 CUDA 12.6 toolkit"
         "cuda-cross-aarch64-12-6")
configure(sysroot_only
  ENV SAMRT_JETSON_SYSROOT=${work}/empty_sysroot
  EXPECT "SAMRT_JETSON_CUDA is not set"
         "SAMRT_JETSON_SYSROOT=[^ ]*empty_sysroot has no usr/lib/aarch64-linux-gnu/crt1.o"
         "has no usr/include/cudnn_version.h"
         "has no usr/lib/aarch64-linux-gnu/libcudnn.so"
  REJECT "SAMRT_JETSON_SYSROOT is not set")
configure(cuda_only
  ENV SAMRT_JETSON_CUDA=${work}/cuda_no_target
  EXPECT "SAMRT_JETSON_SYSROOT is not set"
         "SAMRT_JETSON_CUDA=[^ ]*cuda_no_target has no targets/aarch64-linux/include/cuda_runtime.h"
  REJECT "SAMRT_JETSON_CUDA is not set" "has no bin/nvcc")
configure(not_a_directory
  ENV SAMRT_JETSON_SYSROOT=${work}/no-such-dir SAMRT_JETSON_CUDA=${work}/no-such-cuda
  EXPECT "SAMRT_JETSON_SYSROOT=[^ ]*no-such-dir is not a directory"
         "SAMRT_JETSON_CUDA=[^ ]*no-such-cuda is not a directory")
configure(dangling_cudnn_link
  ENV SAMRT_JETSON_SYSROOT=${work}/sysroot_dangling SAMRT_JETSON_CUDA=${work}/cuda_no_target
  EXPECT "cudnn_version.h is missing or a dangling absolute symlink" "--copy-unsafe-links")
# -D cache entries work as well as environment variables.
configure(cache_entries
  DEFS -DSAMRT_JETSON_SYSROOT=${work}/empty_sysroot -DSAMRT_JETSON_CUDA=${work}/cuda_no_target
  EXPECT "has no usr/lib/aarch64-linux-gnu/crt1.o" "has no targets/aarch64-linux/include/cuda_runtime.h"
  REJECT "SAMRT_JETSON_[A-Z]+ is not set")

# A layout with every documented file (empty stand-ins, no real compiler behind bin/nvcc)
# passes validation: configure gets past the toolchain file, then fails on the fake nvcc.
set(ok_root ${work}/layout_sysroot)
set(ok_cuda ${work}/layout_cuda)
foreach(f usr/lib/aarch64-linux-gnu/crt1.o usr/lib/aarch64-linux-gnu/libjpeg.so
          usr/lib/aarch64-linux-gnu/libpng.so usr/lib/aarch64-linux-gnu/libcudnn.so)
  file(WRITE ${ok_root}/${f} "")
endforeach()
file(WRITE ${ok_root}/usr/include/cudnn_version.h "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 3\n")
file(WRITE ${ok_cuda}/bin/nvcc "")
file(WRITE ${ok_cuda}/targets/aarch64-linux/include/cuda_runtime.h "")
file(WRITE ${ok_cuda}/targets/aarch64-linux/include/cuda_runtime_api.h "#define CUDART_VERSION  12060\n")
file(WRITE ${ok_cuda}/targets/aarch64-linux/lib/libcublasLt.so "")
find_program(cross_gxx aarch64-linux-gnu-g++)
if (cross_gxx)
  configure(layout_accepted ENV SAMRT_JETSON_SYSROOT=${ok_root} SAMRT_JETSON_CUDA=${ok_cuda}
    ACCEPTED EXPECT "samrt: Jetson Orin cross build: sysroot [^ ]*layout_sysroot, CUDA [^ ]*layout_cuda/targets/aarch64-linux"
                    "CMAKE_CUDA_ARCHITECTURES=87"
    REJECT "JetPack 6 has CUDA 12.6")
else()   # the same layout, on a host without the cross g++: only that is reported
  configure(layout_no_cross_gxx ENV SAMRT_JETSON_SYSROOT=${ok_root} SAMRT_JETSON_CUDA=${ok_cuda}
    EXPECT "aarch64-linux-gnu-g\\+\\+ not found on PATH: install g\\+\\+-aarch64-linux-gnu"
    REJECT " has no ")
endif()

if (failures GREATER 0)
  message(FATAL_ERROR "test_toolchain: ${failures} case(s) failed")
endif()
message("test_toolchain: all 7 cases ok")
