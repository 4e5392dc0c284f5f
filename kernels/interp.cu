/* interp.cu - CUDA launcher for kernels/interp.h: NCHW nearest / bilinear / bicubic resampling
 * (PyTorch F.interpolate, align_corners=False, no antialias).
 *
 * One thread per output element on a 32x8 block; the plane index walks grid.z. Inputs here are
 * small (a 7x7 pos_embed, 32x32 FPN maps, 256x256 logits) and stay in L1/L2, so the kernel is
 * bound by its coalesced output writes; it uses the same coefficient helpers as interp_ref.c,
 * which keeps the two bit-identical. Tested by the op table (tests/ops_table_*.c, test_ops_table_cuda) (--bench times it). */
#include "common.cuh"
#include "interp.h"

namespace {

template <typename Tin, typename Tout>
__global__ void interp_kernel(enum samrt_interp_mode mode, int n_planes, int hi, int wi, int ho,
                              int wo, float sh, float sw, const Tin *__restrict__ src,
                              Tout *__restrict__ dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= wo || y >= ho) return;
    for (long p = blockIdx.z; p < n_planes; p += gridDim.z) {
        const Tin *s = src + p * hi * (long)wi;
        float v;
        if (mode == SAMRT_INTERP_NEAREST) {
            v = samrt::to_f32(s[(long)samrt_nearest_src(sh, y, hi) * wi + samrt_nearest_src(sw, x, wi)]);
        } else if (mode == SAMRT_INTERP_BILINEAR) {
            int y0, y1, x0, x1;
            float h0, h1, w0, w1;
            samrt_linear_coef(sh, y, hi, &y0, &y1, &h0, &h1);
            samrt_linear_coef(sw, x, wi, &x0, &x1, &w0, &w1);
            const Tin *r0 = s + (long)y0 * wi, *r1 = s + (long)y1 * wi;
            v = samrt_bilerp(h0, h1, w0, w1, samrt::to_f32(r0[x0]), samrt::to_f32(r0[x1]),
                             samrt::to_f32(r1[x0]), samrt::to_f32(r1[x1]));
        } else {
            int iy, ix;
            float cy[4], cx[4], rows[4];
            samrt_cubic_axis(sh, y, &iy, cy);
            samrt_cubic_axis(sw, x, &ix, cx);
            int xs[4];
#pragma unroll
            for (int j = 0; j < 4; j++) xs[j] = samrt_clampi(ix - 1 + j, 0, wi - 1);
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const Tin *r = s + (long)samrt_clampi(iy - 1 + k, 0, hi - 1) * wi;
                rows[k] = samrt_dot4(samrt::to_f32(r[xs[0]]), samrt::to_f32(r[xs[1]]),
                                     samrt::to_f32(r[xs[2]]), samrt::to_f32(r[xs[3]]), cx);
            }
            v = samrt_dot4(rows[0], rows[1], rows[2], rows[3], cy);
        }
        dst[p * ho * (long)wo + (long)y * wo + x] = samrt::from_f32<Tout>(v);
    }
}

template <typename Tin, typename Tout>
void launch(const struct samrt_interp_desc *d, const void *src, void *dst, cudaStream_t stream) {
    const dim3 block(32, 8);
    const dim3 grid(samrt::ceil_div(d->w_out, 32), samrt::ceil_div(d->h_out, 8),
                    (unsigned)(d->n_planes < 65535 ? d->n_planes : 65535));
    interp_kernel<Tin, Tout><<<grid, block, 0, stream>>>(
        d->mode, d->n_planes, d->h_in, d->w_in, d->h_out, d->w_out,
        samrt_interp_scale(d->h_in, d->h_out), samrt_interp_scale(d->w_in, d->w_out),
        (const Tin *)src, (Tout *)dst);
}

template <typename Tin>
enum samrt_status launch_out(const struct samrt_interp_desc *d, const void *src, void *dst,
                             cudaStream_t stream) {
    switch (d->dst_dtype) {
    case SAMRT_DTYPE_F32: launch<Tin, float>(d, src, dst, stream); return SAMRT_OK;
    case SAMRT_DTYPE_F16: launch<Tin, __half>(d, src, dst, stream); return SAMRT_OK;
    case SAMRT_DTYPE_BF16: launch<Tin, __nv_bfloat16>(d, src, dst, stream); return SAMRT_OK;
    default: return SAMRT_E_UNSUPPORTED;
    }
}

}  // namespace

extern "C" enum samrt_status samrt_interp_cuda(const struct samrt_interp_desc *d, const void *src,
                                               void *dst, cudaStream_t stream) {
    enum samrt_status st = samrt_interp_check(d);
    if (st != SAMRT_OK) return st;
    if (src == NULL || dst == NULL) return SAMRT_E_INVALID_ARG;
    switch (d->src_dtype) {
    case SAMRT_DTYPE_F32: st = launch_out<float>(d, src, dst, stream); break;
    case SAMRT_DTYPE_F16: st = launch_out<__half>(d, src, dst, stream); break;
    case SAMRT_DTYPE_BF16: st = launch_out<__nv_bfloat16>(d, src, dst, stream); break;
    default: return SAMRT_E_UNSUPPORTED;
    }
    if (st != SAMRT_OK) return st;
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
