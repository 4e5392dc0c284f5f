# harness/video.cmake - finds FFmpeg for the video reader and writer (SAMRT_VIDEO, see
# harness/CMakeLists.txt): pkg-config's libavformat, libavcodec, libswscale, libavdevice and
# libavutil (FFmpeg 4.4, JetPack 6, through 7), then a test program that must compile and link
# against them for this target. Sets SAMRT_HAVE_VIDEO and the imported target
# PkgConfig::SAMRT_FFMPEG, and says in one line what it found and why.
set(SAMRT_HAVE_VIDEO OFF)
string(TOUPPER "${SAMRT_VIDEO}" _samrt_video)
if (_samrt_video STREQUAL "OFF")
  message(STATUS "samrt: video (FFmpeg): off (SAMRT_VIDEO=OFF)")
  return()
endif()
set(_samrt_video_why "")
find_package(PkgConfig QUIET)
if (NOT PKG_CONFIG_FOUND)
  set(_samrt_video_why "pkg-config not found")
else()
  pkg_check_modules(SAMRT_FFMPEG QUIET IMPORTED_TARGET GLOBAL
    libavformat>=58.76 libavcodec>=58.134 libswscale>=5.9 libavdevice>=58.13 libavutil>=56.70)
  if (NOT SAMRT_FFMPEG_FOUND)
    set(_samrt_video_why "pkg-config finds no libavformat/libavcodec/libswscale/libavdevice/libavutil of FFmpeg 4.4 or newer (apt install libavformat-dev libavcodec-dev libswscale-dev libavdevice-dev libavutil-dev)")
  else()
    include(CheckCSourceCompiles)
    include(CMakePushCheckState)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_LIBRARIES PkgConfig::SAMRT_FFMPEG)
    set(CMAKE_REQUIRED_QUIET ON)
    check_c_source_compiles([[
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
int main(void) { avdevice_register_all(); return (int)(avformat_version() + avcodec_version() + swscale_version()) & 0; }
]] SAMRT_FFMPEG_LINKS)
    cmake_pop_check_state()
    if (NOT SAMRT_FFMPEG_LINKS)
      set(_samrt_video_why "FFmpeg ${SAMRT_FFMPEG_libavformat_VERSION} found, but a test program does not link against it for this target (a cross build needs the target's FFmpeg packages)")
    endif()
  endif()
endif()
if (_samrt_video_why STREQUAL "")
  set(SAMRT_HAVE_VIDEO ON)
  message(STATUS "samrt: video (FFmpeg): on (libavformat ${SAMRT_FFMPEG_libavformat_VERSION}, libavcodec ${SAMRT_FFMPEG_libavcodec_VERSION})")
elseif (_samrt_video STREQUAL "ON")
  message(FATAL_ERROR "samrt: SAMRT_VIDEO=ON but ${_samrt_video_why}. Install the FFmpeg development packages "
    "or configure with SAMRT_VIDEO=AUTO (docs/video.md)")
else()
  message(STATUS "samrt: video (FFmpeg): off: ${_samrt_video_why}; docs/video.md")
endif()
