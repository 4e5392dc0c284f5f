/* test_video_nvdec_cuda.c - NVDEC (FFmpeg's cuda hwaccel, harness/video_nvdec.c) against FFmpeg's
 * software decoding of the same clip, on the GPU:
 *   1. a 1280x720 clip written by the harness (libx264 where the FFmpeg has it, else MPEG-4
 *      part 2; the codec is printed) read twice: samrt_video_read_device into device memory
 *      and samrt_video_read on the CPU; per frame the pixel difference (max / mean) is printed
 *      and must stay small (H.264 decodes bit-exactly on both and the conversion rounds as the
 *      software path's swscale, so 0 is expected; MPEG-4 part 2 leaves the IDCT to the
 *      decoder, so more is allowed there), frame indices and timestamps equal;
 *   2. after open and two frames, the remaining frames allocate nothing: no cudaMalloc* and no
 *      host malloc from samrt or this test (intercepted, tests/alloc_intercept.c; FFmpeg's own
 *      shared libraries are not intercepted: its surface pool is preallocated to
 *      initial_pool_size and the reader holds one surface at a time);
 *   3. the frame streamer asked for device frames hands out the same device frames, and asked
 *      for NV12 (decode.nv12, what `samrt track --gpu-decode` pushes with
 *      samrt_engine_track_push_nv12) frames whose planes, converted with their own colour
 *      fields, are byte for byte the RGB8 stream's frames.
 * Exits 77 without a GPU, without NVDEC for the clip's codec (the reason printed). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_intercept.h"
#include "check.h"
#include "frame_stream.h"
#include "nv12_rgb.h"
#include "ops_video.h"
#include "video_nv12_util.h"

#define W 1280
#define H 720
#define FRAMES 24

/* 1 and 2; returns 77 when NVDEC does not take the clip. */
static int compare(const char *path, const char *codec) {
    struct samrt_video_reader *hw = NULL, *sw = NULL;
    struct samrt_video_info ih, is;
    const struct samrt_video_open_opts o = {0, 1};
    CHECK_STATUS(samrt_video_open_with(path, &o, &hw, &ih), SAMRT_OK);
    CHECK_STATUS(samrt_video_open(path, &sw, &is), SAMRT_OK);
    if (!ih.on_device) {
        samrt_video_close(hw);
        samrt_video_close(sw);
        return check_skip("test_video_nvdec_cuda", "NVDEC is not available (the log line above says why)");
    }
    const size_t n = (size_t)W * H * 3;
    uint8_t *dev = NULL, *got = (uint8_t *)malloc(n), *want = (uint8_t *)malloc(n);
    CHECK(cudaMalloc((void **)&dev, n) == cudaSuccess && got && want);
    const int mpeg4 = strcmp(codec, "mpeg4") == 0;
    const int max_ok = mpeg4 ? 48 : 3;  /* h264: 0 expected (bit-exact decoding, swscale's form); 3 is
                                           the other swscale form's distance */
    const double mean_ok = mpeg4 ? 2.0 : 1.0;
    struct alloc_counts a0, a1;
    int k = 0, worst = 0, same = 0;
    double worst_mean = 0;
    for (;; k++) {
        if (k == 2) alloc_counts_get(&a0);
        struct samrt_video_frame fh, fs;
        CHECK_STATUS(samrt_video_read_device(hw, dev, &fh), SAMRT_OK);
        CHECK_STATUS(samrt_video_read(sw, want, &fs), SAMRT_OK);
        CHECK(fh.eof == fs.eof);
        if (fh.eof || fs.eof) break;
        if (k == 0 && !fh.hw) {
            samrt_video_close(hw);
            samrt_video_close(sw);
            return check_skip("test_video_nvdec_cuda", "NVDEC turned the clip's stream down (the log line says why)");
        }
        CHECK(fh.hw && fh.index == fs.index && fh.pts_s == fs.pts_s);
        CHECK(cudaMemcpy(got, dev, n, cudaMemcpyDeviceToHost) == cudaSuccess);
        int mx;
        double mean;
        vn_diff(got, want, n, &mx, &mean);
        printf("  frame %2d: NVDEC vs software: max %d, mean %.4f\n", k, mx, mean);
        worst = mx > worst ? mx : worst;
        worst_mean = mean > worst_mean ? mean : worst_mean;
        same += mx == 0;
    }
    alloc_counts_get(&a1);
    const uint64_t dv = a1.dev_calls - a0.dev_calls + a1.pinned_calls - a0.pinned_calls + a1.managed_calls -
                        a0.managed_calls,
                   host = a1.host_calls - a0.host_calls;
    printf("%s %dx%d, %d frames: NVDEC vs software max %d, worst mean %.4f (allowed %d / %.1f), %d frames "
           "bit-identical; frames 2..%d: %llu device, %llu host allocations\n",
           codec, W, H, k, worst, worst_mean, max_ok, mean_ok, same, k - 1, (unsigned long long)dv,
           (unsigned long long)host);
    CHECK(k == FRAMES);
    CHECK(worst <= max_ok && worst_mean <= mean_ok);
    CHECK(dv == 0 && host == 0);
    cudaFree(dev);
    free(got);
    free(want);
    samrt_video_close(hw);
    samrt_video_close(sw);
    return 0;
}

/* 3: the streamer's device ring. */
static void check_stream(const char *path) {
    const struct samrt_frame_source src = {path, 3, 0, 0};
    const struct samrt_frame_decode dec = {0, 1, 0};
    samrt_frame_stream_t fs = NULL;
    CHECK_STATUS(samrt_frame_stream_open_decode(&src, &dec, &fs), SAMRT_OK);
    struct samrt_frame_stream_info info;
    samrt_frame_stream_info(fs, &info);
    printf("stream: decoder %s, on_device %d, device ring %.1f MiB\n", info.decoder, info.on_device,
           (double)info.device_bytes / 1048576.0);
    CHECK(info.on_device);
    struct samrt_frame f;
    int k = 0;
    while (samrt_frame_stream_next(fs, &f) == SAMRT_OK && f.rgb) {
        CHECK(f.on_device && f.index == k);
        samrt_frame_stream_release(fs, &f);
        k++;
    }
    CHECK(k == FRAMES);
    samrt_frame_stream_close(fs);
}

/* 3b: the NV12 stream against the RGB8 stream, frame by frame. */
static void check_stream_nv12(const char *path) {
    const struct samrt_frame_source src = {path, 3, 0, 0};
    const struct samrt_frame_decode drgb = {0, 1, 0}, dnv = {0, 1, 1};
    samrt_frame_stream_t a = NULL, b = NULL;
    CHECK_STATUS(samrt_frame_stream_open_decode(&src, &drgb, &a), SAMRT_OK);
    CHECK_STATUS(samrt_frame_stream_open_decode(&src, &dnv, &b), SAMRT_OK);
    const size_t bytes = (size_t)W * H * 3;
    uint8_t *conv = NULL, *want = (uint8_t *)malloc(bytes), *got = (uint8_t *)malloc(bytes);
    CHECK(a && b && want && got && cudaMalloc((void **)&conv, bytes) == cudaSuccess);
    int k = 0, same = 0;
    struct samrt_frame fa, fb;
    while (a && b && conv && want && got && samrt_frame_stream_next(a, &fa) == SAMRT_OK && fa.rgb &&
           samrt_frame_stream_next(b, &fb) == SAMRT_OK && fb.rgb) {
        const struct samrt_image_nv12 *n = fb.nv12;
        CHECK(!fa.nv12 && n && n->y == fb.rgb && n->width == W && n->height == H && fb.index == k);
        if (n) {
            struct samrt_yuv_coefs c;
            samrt_yuv_coefs_init(n->yuv_coefs, n->yuv_full_range, n->yuv_x86 ? SAMRT_YUV_SWS_X86 : SAMRT_YUV_SWS_C, &c);
            CHECK_STATUS(samrt_op_nv12_rgb(&c, n->y, (size_t)n->y_stride, n->uv, (size_t)n->uv_stride, W, H, conv, 3 * W,
                                           NULL), SAMRT_OK);
            CHECK(cudaDeviceSynchronize() == cudaSuccess);
            CHECK(cudaMemcpy(got, conv, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
            CHECK(cudaMemcpy(want, fa.rgb, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
            same += memcmp(got, want, bytes) == 0;
        }
        samrt_frame_stream_release(a, &fa);
        samrt_frame_stream_release(b, &fb);
        k++;
    }
    printf("stream, NV12: %d frames, %d equal to the RGB8 stream's after conversion\n", k, same);
    CHECK(k == FRAMES && same == FRAMES);
    cudaFree(conv);
    free(want);
    free(got);
    samrt_frame_stream_close(a);
    samrt_frame_stream_close(b);
}

int main(int argc, char **argv) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) return check_skip("test_video_nvdec_cuda", "no CUDA device");
    if (!samrt_video_available()) return check_skip("test_video_nvdec_cuda", "no FFmpeg in this build");
    char path[512], codec[32], dp[512];
    snprintf(path, sizeof path, "%s/test_video_nvdec.mp4", argc > 1 ? argv[1] : ".");
    CHECK(vn_write_clip(path, W, H, FRAMES, codec, sizeof codec) == 0);
    samrt_video_decode_path(dp, sizeof dp);
    printf("clip: %dx%d, %d frames, %s; video decode path: %s\n", W, H, FRAMES, codec, dp);
    const int rc = compare(path, codec);
    if (rc == 0) check_stream(path);
    if (rc == 0) check_stream_nv12(path);
    remove(path);
    return rc ? rc : check_report("test_video_nvdec_cuda");
}
