/* bench_decode.c - JPEG decode per frame on each decode path of the frame streamer, at
 * 1280x720 and 1920x1080 (docs/video.md, "JPEG decode paths"):
 *   nvJPEG hardware   the GPU's JPEG engine, into the device ring (frame_gpu.h)
 *   nvJPEG GPU        nvJPEG's CUDA backend, the same way
 *   libjpeg-turbo x1  the streamer with one decode thread (files read, decoded, in order)
 *   libjpeg-turbo xN  the streamer with N threads (--threads, default: one per core but one)
 * Frames are written first with the harness's JPEG writer (q90 4:2:0, synthetic content with
 * noise, so the entropy decoding has work). ms/frame is wall time over the frames: the
 * streamer rows include the file reads and the ordered hand-over, the nvJPEG rows decode file
 * bytes already in memory and wait for each frame to be in device memory. A path the build or
 * machine lacks prints "n/a". Run on the GPU machine:
 *   build/gpu/tests/bench_decode [--frames 120] [--threads N]
 * With --video FILE it times video decoding instead (docs/video.md, "NVDEC"): per frame, NVDEC
 * into a device frame (samrt_video_read_device, which returns once the RGB frame is in device
 * memory) and FFmpeg's software decoder into host RGB with 1 and N frame threads; it prints
 * the median and the mean ms/frame after 10 warm-up frames (wall clock; a frame-threaded
 * decoder hands frames out in bursts, so its mean is the rate to read):
 *   build/gpu/tests/bench_decode --video clip_1080p.mp4 [--frames 300] [--threads N]
 * A FILE that does not exist is written first (--video-size WxH, default 1920x1080, synthetic
 * frames, libx264 where the linked FFmpeg has it, else MPEG-4 part 2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "frame_decode_util.h"
#include "frame_gpu.h"
#include "frame_stream.h"
#include "platform.h"
#include "video.h"

static double stream_ms(const char *dir, int threads, int n_frames) {
    const struct samrt_frame_source src = {dir, 16, 0, 0};
    const struct samrt_frame_decode dec = {threads, 0, 0};
    samrt_frame_stream_t fs = NULL;
    if (samrt_frame_stream_open_decode(&src, &dec, &fs) != SAMRT_OK) return -1;
    const double t0 = bench_now_ms();
    struct samrt_frame f;
    int n = 0;
    while (samrt_frame_stream_next(fs, &f) == SAMRT_OK && f.rgb) {
        samrt_frame_stream_release(fs, &f);
        n++;
    }
    const double ms = bench_now_ms() - t0;
    samrt_frame_stream_close(fs);
    return n == n_frames ? ms / n : -1;
}

static double gpu_ms(const char *dir, int w, int h, int n_frames, enum samrt_jpeg_gpu_backend b) {
    uint8_t **files = (uint8_t **)calloc((size_t)n_frames, sizeof *files);
    size_t *sizes = (size_t *)calloc((size_t)n_frames, sizeof *sizes);
    char path[1024];
    for (int k = 0; k < n_frames; k++) {
        snprintf(path, sizeof path, "%s/%05d.jpg", dir, k);
        files[k] = du_read_file(path, &sizes[k]);
    }
    struct samrt_frame_gpu *g = NULL;
    double ms = -1;
    if (samrt_frame_gpu_open(w, h, 4, b, files[0], sizes[0], &g) == SAMRT_OK &&
        !strcmp(samrt_frame_gpu_name(g), samrt_jpeg_gpu_backend_name(b))) {
        int ok = 1;
        const double t0 = bench_now_ms();
        for (int k = 0; k < n_frames && ok; k++) ok = samrt_frame_gpu_decode(g, files[k], sizes[k], k % 4) == SAMRT_OK;
        if (ok) ms = (bench_now_ms() - t0) / n_frames;
        if (samrt_frame_gpu_cpu_frames(g)) fprintf(stderr, "%d frames took the CPU path\n", samrt_frame_gpu_cpu_frames(g));
    }
    samrt_frame_gpu_close(g);
    for (int k = 0; k < n_frames; k++) free(files[k]);
    free(files);
    free(sizes);
    return ms;
}

#define VIDEO_WARMUP 10

/* Decode ms/frame of a video file: median and mean after the warm-up; NVDEC (device 1) or
 * software with `threads` frame threads. -1 when the path is not there. */
static int video_ms(const char *path, int device, int threads, int n_frames, double *median, double *mean) {
    *median = *mean = -1;
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    const struct samrt_video_open_opts o = {threads, device};
    if (samrt_video_open_with(path, &o, &r, &info) != SAMRT_OK) return -1;
    const size_t n = (size_t)info.width * info.height * 3;
    uint8_t *buf = NULL;
    const int ok = device ? info.on_device && samrt_platform_mem_alloc(SAMRT_MEM_DEVICE, n, (void **)&buf) == SAMRT_OK
                          : (buf = (uint8_t *)malloc(n)) != NULL;
    double *t = (double *)calloc((size_t)n_frames, sizeof *t);
    int k = 0, hw = 0;
    double t_first = 0;
    for (; ok && t && k < n_frames; k++) {
        struct samrt_video_frame f;
        const double t0 = bench_now_ms();
        if (k == VIDEO_WARMUP) t_first = t0;
        if ((device ? samrt_video_read_device(r, buf, &f) : samrt_video_read(r, buf, &f)) != SAMRT_OK || f.eof) break;
        t[k] = bench_now_ms() - t0;
        hw += f.hw;
    }
    if (k > VIDEO_WARMUP) {
        *mean = (bench_now_ms() - t_first) / (k - VIDEO_WARMUP);
        *median = bench_pct(t + VIDEO_WARMUP, k - VIDEO_WARMUP, 50);
    }
    if (device && ok && hw < k) fprintf(stderr, "NVDEC: %d of %d frames decoded on the CPU\n", k - hw, k);
    if (buf && device) samrt_platform_mem_free(SAMRT_MEM_DEVICE, buf);
    else free(buf);
    free(t);
    samrt_video_close(r);
    return *mean < 0 ? -1 : 0;
}

static void cell(double ms);

/* A missing FILE is written first: n_frames synthetic w x h frames (the writer's codec). */
static int make_video(const char *path, int w, int h, int n_frames) {
    struct samrt_video_writer *wr = NULL;
    if (samrt_video_writer_open(path, w, h, 30.0, &wr) != SAMRT_OK) return -1;
    uint8_t *rgb = (uint8_t *)malloc((size_t)w * h * 3);
    uint64_t s = 1;
    for (int f = 0; f < n_frames && rgb; f++) {
        for (size_t i = 0; i < (size_t)w * h; i++) {
            const int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            rgb[3 * i] = (uint8_t)(x + 3 * f), rgb[3 * i + 1] = (uint8_t)(y - 2 * f), rgb[3 * i + 2] = (uint8_t)(s >> 59);
        }
        if (samrt_video_writer_push(wr, rgb) != SAMRT_OK) break;
    }
    printf("wrote %s: %dx%d, %d frames, %s\n", path, w, h, n_frames, samrt_video_writer_codec(wr));
    free(rgb);
    return samrt_video_writer_close(wr) == SAMRT_OK ? 0 : -1;
}

static int bench_video(const char *path, int threads, int n_frames) {
    char dp[512];
    samrt_video_decode_path(dp, sizeof dp);
    printf("video decode path of this build and machine: %s\n", dp);
    struct samrt_video_reader *r = NULL;
    struct samrt_video_info info;
    if (samrt_video_open(path, &r, &info) != SAMRT_OK) return 1;
    samrt_video_close(r);
    printf("%s: %dx%d %s, %lld frames; ms/frame after %d warm-up frames (median / mean)\n", path, info.width,
           info.height, info.codec, (long long)info.n_frames, VIDEO_WARMUP);
    const char *names[3] = {"NVDEC", "software x1", "software xN"};
    const int dev[3] = {1, 0, 0}, thr[3] = {0, 1, threads};
    for (int i = 0; i < 3; i++) {
        double med, mean;
        video_ms(path, dev[i], thr[i], n_frames, &med, &mean);
        printf("%-12s", names[i]);
        if (i == 2) printf("(x%d)", threads);
        cell(med);
        cell(mean);
        printf("\n");
    }
    return 0;
}

static void cell(double ms) {
    if (ms < 0) printf(" %12s", "n/a");
    else printf(" %9.3f ms", ms);
}

int main(int argc, char **argv) {
    int n_frames = 120, threads = samrt_frame_stream_default_threads();
    const char *video = NULL;
    int vw = 1920, vh = 1080;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames")) n_frames = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--video")) video = argv[i + 1];
        else if (!strcmp(argv[i], "--video-size") && sscanf(argv[i + 1], "%dx%d", &vw, &vh) != 2) vw = 0;
    }
    if (n_frames < 4 || threads < 1 || threads > SAMRT_DECODE_THREADS_MAX || vw < 16 || vh < 16) {
        fprintf(stderr, "usage: bench_decode [--frames N>=4] [--threads 1..%d] [--video FILE [--video-size WxH]]\n",
                SAMRT_DECODE_THREADS_MAX);
        return 2;
    }
    FILE *exists = video ? fopen(video, "rb") : NULL;
    if (exists) fclose(exists);
    else if (video && make_video(video, vw, vh, n_frames) != 0) return 1;
    if (video && n_frames > VIDEO_WARMUP) return bench_video(video, threads, n_frames);
    char root[700];
    if (du_tmpdir("bdec", root, sizeof root) != 0) return 1;
    const int sizes[2][2] = {{1280, 720}, {1920, 1080}};
    char path_info[256];
    samrt_frame_decode_path(path_info, sizeof path_info);
    printf("decode path of this build and machine: %s\n", path_info);
    printf("%-10s %12s %12s %12s %9s x%-2d  (ms/frame, %d frames q90 4:2:0)\n", "frame", "nvJPEG hw", "nvJPEG GPU",
           "libjpeg x1", "libjpeg", threads, n_frames);
    for (int s = 0; s < 2; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        char dir[800];
        snprintf(dir, sizeof dir, "%s/%dx%d", root, w, h);
        if (fd_make_folder(dir, w, h, n_frames, 90) != 0) return 1;
        (void)stream_ms(dir, threads, n_frames);  /* warm the page cache */
        printf("%4dx%-5d", w, h);
        cell(gpu_ms(dir, w, h, n_frames, SAMRT_JPEG_GPU_HARDWARE));
        cell(gpu_ms(dir, w, h, n_frames, SAMRT_JPEG_GPU_HYBRID));
        cell(stream_ms(dir, 1, n_frames));
        cell(stream_ms(dir, threads, n_frames));
        printf("\n");
    }
    du_rmtree(root);
    return 0;
}
