# test_install.cmake - `cmake --install` of this build into a prefix under the build tree, then
# tests/install_consumer (find_package(samrt), a .c that includes samrt.h) configured, built
# and run against it, with the build's own compiler, toolchain file and emulator; then the
# same .c compiled from `pkg-config --cflags --libs samrt` alone. With SAMRT_BUILD_SHARED, the
# Python package (python/) loads the installed libsamrt.so through SAMRT_LIBRARY.
#   ctest -R test_install
include(${PARAMS})
if (SANITIZE)
  # The sanitizer flags stay private to the build, so an installed ASan/UBSan libsamrt.a
  # does not link into a plain consumer; installing such a build is not supported.
  message("samrt-test-skip: SAMRT_SANITIZE build, not an install configuration")
  return()
endif()
set(work ${WORK_DIR}/install)
set(prefix ${work}/prefix)
file(REMOVE_RECURSE ${work})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if (NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (exit ${rc}):\n  ${ARGN}\n${out}${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

set(cfg "")
if (CONFIG)
  set(cfg --config ${CONFIG})
endif()
run("cmake --install" ${CMAKE_COMMAND} --install ${BIN_DIR} --prefix ${prefix} ${cfg})
foreach(f ${INCLUDEDIR}/samrt.h ${LIBDIR}/libsamrt.a ${LIBDIR}/cmake/samrt/samrt-config.cmake
          ${LIBDIR}/cmake/samrt/samrt-config-version.cmake ${LIBDIR}/pkgconfig/samrt.pc)
  if (NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()

if (SHARED)
  foreach(f ${INCLUDEDIR}/samrt_image.h ${INCLUDEDIR}/samrt_video.h ${LIBDIR}/libsamrt.so)
    if (NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "cmake --install did not install ${f} (SAMRT_BUILD_SHARED=ON)")
    endif()
  endforeach()
endif()

# ---- the Python package on the installed libsamrt.so (SAMRT_LIBRARY) ----
if (SHARED AND PYTHON AND NOT EMULATOR)
  set(ENV{SAMRT_LIBRARY} ${prefix}/${LIBDIR}/libsamrt.so)
  set(ENV{PYTHONPATH} ${SRC_DIR}/python)
  set(ENV{PYTHONDONTWRITEBYTECODE} 1)
  # (no ';' in the script: run() takes its arguments as a CMake list)
  run("python on the installed libsamrt.so" ${PYTHON} -c [=[
import importlib.util, os, sys
if importlib.util.find_spec("numpy") is None:
    print("numpy is not installed: not run")
    sys.exit(0)
import samrt
assert os.path.samefile(samrt.library_path(), os.environ["SAMRT_LIBRARY"])
b = samrt.Model.plan_only("edgetam", platform="orin-nano-8gb", precision="bf16").budget()
print(f"ok, edgetam on orin-nano-8gb: arena {b['arena']} bytes")
]=])
  message("python: ${run_out}")
endif()

# ---- find_package(samrt) ----
set(args -S ${SRC_DIR}/tests/install_consumer -B ${work}/consumer -G ${GENERATOR}
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER})
if (CONFIG)
  list(APPEND args -DCMAKE_BUILD_TYPE=${CONFIG})
endif()
if (TOOLCHAIN)
  list(APPEND args -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN})
endif()
if (CUDA AND CUDA_COMPILER)
  get_filename_component(cuda_root ${CUDA_COMPILER} DIRECTORY)
  get_filename_component(cuda_root ${cuda_root} DIRECTORY)
  # What a consumer passes when cuDNN is outside the default paths: the build's own finds.
  list(APPEND args -DCUDAToolkit_ROOT=${cuda_root} -DCUDNN_INCLUDE_DIR=${CUDNN_INCLUDE_DIR}
    -DCUDNN_LIBRARY=${CUDNN_LIBRARY})
endif()
run("consumer configure" ${CMAKE_COMMAND} ${args})
file(STRINGS ${work}/consumer/CMakeCache.txt found REGEX "^samrt_DIR:")
if (NOT found MATCHES "=${prefix}/")
  message(FATAL_ERROR "the consumer found samrt outside the test prefix: ${found}")
endif()
run("consumer build" ${CMAKE_COMMAND} --build ${work}/consumer ${cfg})
file(GLOB_RECURSE exe ${work}/consumer/consumer ${work}/consumer/*/consumer)
if (NOT exe)
  message(FATAL_ERROR "consumer executable not found under ${work}/consumer")
endif()
list(GET exe 0 exe)
run("consumer run" ${EMULATOR} ${exe})
if (NOT run_out MATCHES "samrt consumer: ok")
  message(FATAL_ERROR "consumer printed: ${run_out}")
endif()
message("find_package: ${run_out}")

# ---- pkg-config ----
if (NOT PKG_CONFIG)
  message("pkg-config not found: pkg-config check not run")
  return()
endif()
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run("pkg-config" ${PKG_CONFIG} --cflags --libs samrt)
string(STRIP "${run_out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("pkg-config consumer build" ${C_COMPILER} -std=c11 ${SRC_DIR}/tests/install_consumer/consumer.c
  ${flags} -o ${work}/consumer_pc)
# No rpath from pkg-config: the -L directories (CUDA, cuDNN) are where the loader must look.
set(ld_path "")
foreach(f ${flags})
  if (f MATCHES "^-L(.+)")
    list(APPEND ld_path ${CMAKE_MATCH_1})
  endif()
endforeach()
list(JOIN ld_path ":" ld_path)
set(ENV{LD_LIBRARY_PATH} "${ld_path}:$ENV{LD_LIBRARY_PATH}")
run("pkg-config consumer run" ${EMULATOR} ${work}/consumer_pc)
if (NOT run_out MATCHES "samrt consumer: ok")
  message(FATAL_ERROR "pkg-config consumer printed: ${run_out}")
endif()
message("pkg-config: ${run_out}")
