/* nv12_rgb.cu - CUDA launcher for kernels/nv12_rgb.h: NV12 (pitched luma + interleaved chroma)
 * -> RGB8 HWC with swscale's integer arithmetic, bit for bit samrt_nv12_rgb_ref.
 *
 * One thread per 2x2 block: it reads one U/V pair and four luma bytes and writes four RGB
 * pixels, so every chroma sample is read once and the rows of a warp's stores are contiguous
 * (memory-bound: 1.5 bytes in, 3 out per pixel). The per-pixel arithmetic is the shared inline
 * samrt_yuv_pixel of the header, so the two forms cannot drift apart.
 * Tests: the op table (tests/ops_table_video.c, test_ops_table_cuda) and
 * tests/test_video_nvdec_cuda.c on real decoded frames. */
#include "common.cuh"
#include "nv12_rgb.h"
#include "samrt_impl.h"

namespace {

constexpr int kBx = 32, kBy = 8;

__global__ void nv12_rgb_kernel(samrt_yuv_coefs k, const uint8_t *__restrict__ y, size_t y_pitch,
                                const uint8_t *__restrict__ uv, size_t uv_pitch, int w, int h,
                                uint8_t *__restrict__ rgb, size_t rgb_pitch) {
    const int bx = blockIdx.x * kBx + threadIdx.x, by = blockIdx.y * kBy + threadIdx.y;
    const int x0 = 2 * bx, r0 = 2 * by;
    if (x0 >= w || r0 >= h) return;
    const uint8_t *c = uv + (size_t)by * uv_pitch + 2 * (size_t)bx;
    const int u = c[0], v = c[1];
    for (int dr = 0; dr < 2 && r0 + dr < h; dr++) {
        const uint8_t *yr = y + (size_t)(r0 + dr) * y_pitch;
        uint8_t *o = rgb + (size_t)(r0 + dr) * rgb_pitch + 3 * (size_t)x0;
        for (int dx = 0; dx < 2 && x0 + dx < w; dx++) samrt_yuv_pixel(&k, yr[x0 + dx], u, v, o + 3 * dx);
    }
}

}  // namespace

extern "C" enum samrt_status samrt_nv12_rgb_cuda(const struct samrt_yuv_coefs *k, const uint8_t *y, size_t y_pitch,
                                                 const uint8_t *uv, size_t uv_pitch, int w, int h, uint8_t *rgb,
                                                 size_t rgb_pitch, cudaStream_t stream) {
    SAMRT_TRY(samrt_nv12_rgb_check(k, y, y_pitch, uv, uv_pitch, w, h, rgb, rgb_pitch));
    const int bw = (w + 1) / 2, bh = (h + 1) / 2;
    const dim3 grid(samrt::ceil_div(bw, kBx), samrt::ceil_div(bh, kBy)), block(kBx, kBy);
    nv12_rgb_kernel<<<grid, block, 0, stream>>>(*k, y, y_pitch, uv, uv_pitch, w, h, rgb, rgb_pitch);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
