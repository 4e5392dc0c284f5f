/* cmd_check.c - `samrt check`: what the old setup_check.py did, in one screen. Each line is
 * a check with a mark and, when it fails, a hint. Exits 0 when everything needed for the
 * build's configuration is present, 1 otherwise (a CPU build on a GPU-less machine passes;
 * a CUDA build with no device reports it and fails). The optional pieces (FFmpeg for video,
 * nsys) are reported with their hint but never fail the check. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "frame_stream.h"
#include "image_io.h"
#include "samrt_internal.h"
#include "video.h"

static int g_failed = 0;

static void line(int ok, const char *what, const char *value, const char *hint) {
    printf("  %s %-22s %s\n", ok ? "\xe2\x9c\x93" : "\xe2\x9c\x97", what, value);
    if (!ok) {
        g_failed = 1;
        if (hint) printf("      hint: %s\n", hint);
    }
}

/* nsys: NSYS_CMD wins (Jetson installs it under /opt/nvidia/nsight-systems/...), else PATH. */
static int find_nsys(char *out, size_t len) {
    const char *env = getenv("NSYS_CMD");
    if (env && *env) {
        snprintf(out, len, "%s (NSYS_CMD)", env);
        return access(env, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path) return 0;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char cand[4200];
        snprintf(cand, sizeof cand, "%s/nsys", dir);
        if (access(cand, X_OK) == 0) {
            snprintf(out, len, "%s", cand);
            return 1;
        }
    }
    snprintf(out, len, "not found");
    return 0;
}

static void ver(char *buf, size_t len, int v, int div_major, int div_minor) {
    if (v <= 0) snprintf(buf, len, "absent");
    else snprintf(buf, len, "%d.%d (%d)", v / div_major, (v % div_major) / div_minor, v);
}

/* SM shares of GPU i (--sm-limit, samrt_engine_params.sm_limit: a green context of N SMs):
 * what the driver allows and what the Orin-sized shares get. Optional: it never fails the
 * check. */
static void check_sm_share(char *buf, size_t len, int i) {
    struct samrt_sm_share_info q, q8, q16;
    samrt_internal_sm_share_query(i, 0, &q);
    if (!q.available) {
        snprintf(buf, len, "[%d] %s", i, q.why);
        printf("  \xe2\x9c\x97 %-22s %s\n", "green ctx (optional)", buf);
        printf("      hint: --sm-limit (an Orin-sized share of the GPU) needs a CUDA 12.4+ build and driver\n");
        return;
    }
    samrt_internal_sm_share_query(i, 8, &q8);
    samrt_internal_sm_share_query(i, 16, &q16);
    snprintf(buf, len, "[%d] --sm-limit N: shares of %d SMs or more in multiples of %d, of %d; 8 -> %d SMs, 16 -> %d SMs",
             i, q.min_sms, q.granularity, q.device_sms, q8.granted, q16.granted);
    printf("  \xe2\x9c\x93 %-22s %s\n", "green contexts", buf);
}

/* A CUDA build: the driver, the runtime, every visible GPU with the profile it would get and
 * its SM shares, cuDNN and cuBLASLt. */
static void check_cuda(char *buf, size_t len) {
    struct samrt_lib_versions v;
    samrt_library_versions(&v);
    ver(buf, len, v.cuda_driver, 1000, 10);
    line(v.cuda_driver > 0, "CUDA driver", v.cuda_driver > 0 ? buf : "no driver loaded",
         "install the NVIDIA driver (JetPack ships it); in containers pass --gpus all");
    ver(buf, len, v.cuda_runtime, 1000, 10);
    line(v.cuda_runtime > 0, "CUDA runtime", buf, "install the CUDA toolkit (see README)");
    int n = 0;
    samrt_device_count(&n);
    if (n == 0) {
        line(0, "GPU", "none visible", "check nvidia-smi / tegrastats and CUDA_VISIBLE_DEVICES");
    }
    for (int i = 0; i < n; i++) {
        struct samrt_device_info d;
        if (samrt_device_query(i, &d) != SAMRT_OK) {
            line(0, "GPU", "query failed", "see the error above");
            continue;
        }
        const struct samrt_platform_profile *p = samrt_platform_profile_for_device(&d);
        snprintf(buf, len, "[%d] %s, sm_%d%d, %d SMs, %s, %.1f/%.1f GiB free, profile %s", i, d.name,
                 d.cc_major, d.cc_minor, d.sm_count, d.integrated ? "integrated (unified memory)" : "discrete",
                 d.free_bytes / 1073741824.0, d.total_bytes / 1073741824.0, p->name);
        line(d.cc_major >= 8, "GPU", buf, "samrt's kernels need sm_80 or newer (mma.sync bf16)");
        check_sm_share(buf, len, i);
    }
    ver(buf, len, v.cudnn, 10000, 100);
    line(v.cudnn >= 90300, "cuDNN", buf, "cuDNN 9.3 or newer (JetPack 6 ships 9.3); apt install cudnn9-cuda-12");
    snprintf(buf, len, "%d", v.cublaslt);
    line(v.cublaslt > 0, "cuBLASLt", buf, "ships with the CUDA toolkit (libcublasLt)");
}

/* FFmpeg, optional: --video and --overlay-video need it (SAMRT_VIDEO, docs/video.md). */
static void check_video(char *buf, size_t len) {
    struct samrt_video_lib_versions v;
    samrt_video_versions(&v);
#define V3(x) (x) >> 16, ((x) >> 8) & 0xff, (x) & 0xff
    if (samrt_video_available()) {
        snprintf(buf, len, "libavformat %u.%u.%u, libavcodec %u.%u.%u, libswscale %u.%u.%u, libavdevice %u.%u.%u; "
                 "video encoder %s", V3(v.avformat), V3(v.avcodec), V3(v.swscale), V3(v.avdevice), v.h264_encoder);
        printf("  \xe2\x9c\x93 %-22s %s\n", "FFmpeg (video)", buf);
        if (strcmp(v.h264_encoder, "libx264") && strcmp(v.h264_encoder, "libopenh264"))
            printf("      note: no H.264 encoder in this FFmpeg: overlay videos are MPEG-4 part 2\n");
    } else {
        printf("  \xe2\x9c\x97 %-22s %s\n", "FFmpeg (optional)",
               "not in this build: --video and --overlay-video are unavailable");
        printf("      hint: apt install libavformat-dev libavcodec-dev libswscale-dev libavdevice-dev libavutil-dev, "
               "then configure again (SAMRT_VIDEO=AUTO finds them; docs/video.md)\n");
    }
#undef V3
}

int samrt_cmd_check(int argc, char **argv) {
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: samrt check\n\n"
                   "Reports the CUDA driver and runtime, the GPU and its green contexts (--sm-limit;\n"
                   "optional), cuDNN, cuBLASLt, libjpeg-turbo, libpng, FFmpeg (video files and cameras;\n"
                   "optional) and Nsight Systems (PATH or NSYS_CMD; optional), each with a mark and a hint.\n"
                   "exit: 0 all present, 1 something the build needs is missing.\n");
            return SAMRT_EXIT_OK;
        }
        return SAMRT_EXIT_USAGE;
    }
    char buf[512];
    const int cuda = samrt_has_cuda();
    printf("samrt %d.%d.%d (%s build)\n", SAMRT_VERSION_MAJOR, SAMRT_VERSION_MINOR, SAMRT_VERSION_PATCH,
           cuda ? "CUDA" : "CPU-only");
    if (cuda) check_cuda(buf, sizeof buf);
    else line(1, "CUDA", "not in this build (SAMRT_CUDA=OFF): CPU reference kernels only", NULL);
    struct samrt_image_lib_versions iv;
    samrt_image_io_versions(&iv);
    snprintf(buf, sizeof buf, "libjpeg API %d%s", iv.libjpeg, iv.libjpeg_turbo ? " (libjpeg-turbo)" : "");
    line(iv.libjpeg_turbo, "libjpeg-turbo", buf,
         "apt install libjpeg-turbo8-dev (Ubuntu) / libjpeg62-turbo-dev (Debian)");
    line(iv.libpng[0] != 0, "libpng", iv.libpng, "apt install libpng-dev");
    samrt_frame_decode_path(buf, sizeof buf);
    line(1, "JPEG decode", buf, NULL);
    samrt_video_decode_path(buf, sizeof buf);
    line(1, "video decode", buf, NULL);
    check_video(buf, sizeof buf);
    int have_nsys = find_nsys(buf, sizeof buf);
    printf("  %s %-22s %s\n", have_nsys ? "\xe2\x9c\x93" : "\xe2\x9c\x97", "nsys (optional)", buf);
    if (!have_nsys)
        printf("      hint: install Nsight Systems, or set NSYS_CMD (Jetson: "
               "/opt/nvidia/nsight-systems/<ver>/bin/nsys); profiling still works without it\n");
    return g_failed ? SAMRT_EXIT_PROBLEM : SAMRT_EXIT_OK;
}
