# samrt_gpu_arch.cmake - the CUDA choice of the demo preset (SAMRT_CUDA_ARCH_FROM_GPU=ON): the
# architecture of this machine's own GPU alone, so that the first build finishes in minutes,
# and a CPU-only build when there is no GPU (the demo then runs the CPU backend). Every other
# preset names its architectures explicitly, because there the build host is often not the
# target. An explicit -DCMAKE_CUDA_ARCHITECTURES still wins. Included from the top-level
# CMakeLists.txt before SAMRT_CUDA is decided; it may turn its default off.
option(SAMRT_CUDA_ARCH_FROM_GPU "samrt: build only this machine's GPU architecture; CPU-only without a GPU (demo preset)" OFF)
if (NOT SAMRT_CUDA_ARCH_FROM_GPU OR NOT _samrt_cuda_default)
  return()
endif()
if (DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT CMAKE_CUDA_ARCHITECTURES STREQUAL "")
  message(STATUS "samrt: SAMRT_CUDA_ARCH_FROM_GPU: CMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES} given, kept")
  return()
endif()
set(_samrt_gpu_arch "")
find_program(SAMRT_NVIDIA_SMI nvidia-smi)
if (SAMRT_NVIDIA_SMI)
  execute_process(COMMAND ${SAMRT_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE _samrt_caps RESULT_VARIABLE _samrt_rc ERROR_QUIET TIMEOUT 30)
  if (_samrt_rc EQUAL 0 AND _samrt_caps MATCHES "^[ \t]*([0-9]+)\\.([0-9]+)")
    set(_samrt_gpu_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
  elseif (NOT _samrt_rc EQUAL 0)
    # an older driver without compute_cap: a GPU is listed, CMake's own probe finds its arch
    execute_process(COMMAND ${SAMRT_NVIDIA_SMI} -L OUTPUT_VARIABLE _samrt_list RESULT_VARIABLE _samrt_rc
                    ERROR_QUIET TIMEOUT 30)
    if (_samrt_rc EQUAL 0 AND _samrt_list MATCHES "GPU 0")
      set(_samrt_gpu_arch native)
    endif()
  endif()
endif()
if (_samrt_gpu_arch STREQUAL "" AND EXISTS /etc/nv_tegra_release)
  set(_samrt_gpu_arch 87)   # Jetson Orin under JetPack 6
endif()
if (_samrt_gpu_arch STREQUAL "90")
  set(_samrt_gpu_arch 90a)  # Hopper: the wgmma attention path is sm_90a code
endif()
if (_samrt_gpu_arch STREQUAL "")
  set(_samrt_cuda_default OFF)
  message(STATUS "samrt: SAMRT_CUDA_ARCH_FROM_GPU: no GPU found: a CPU-only build (SAMRT_CUDA=OFF)")
else()
  set(CMAKE_CUDA_ARCHITECTURES ${_samrt_gpu_arch} CACHE STRING "samrt: this machine's GPU (SAMRT_CUDA_ARCH_FROM_GPU)")
  message(STATUS "samrt: SAMRT_CUDA_ARCH_FROM_GPU: building for this machine's GPU alone (${_samrt_gpu_arch})")
endif()
