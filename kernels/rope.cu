/* rope.cu - RoPE row rotation on the GPU: one thread per complex pair, fp32 arithmetic, the
 * result stored in the row's dtype (what PyTorch's apply_rotary_enc does under autocast).
 * The attention launcher runs it once over q and k into its workspace, so the attention
 * kernels themselves never see RoPE: rotating K inside the attention kernel would redo it
 * for every query tile (32x the work at the memory-attention shape).
 * Tested by tests/test_attention_cuda.c against rope_ref.c. */
#include "common.cuh"
#include "rope.h"

namespace {

template <typename T>
__global__ void rope_apply_kernel(const samrt_rope_params p) {
    const int n_pair = p.dim / 2;
    const int64_t n_total = (int64_t)p.n_batch * p.n_head * p.n_tok * n_pair;
    const T *src = (const T *)p.src;
    T *dst = (T *)p.dst;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n_total;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int q = (int)(i % n_pair);
        int64_t r = i / n_pair;
        const int t = (int)(r % p.n_tok);
        r /= p.n_tok;
        const int h = (int)(r % p.n_head);
        const int b = (int)(r / p.n_head);
        const T *s = src + b * p.s_src_b + h * p.s_src_h + t * p.s_src_t + 2 * q;
        T *d = dst + b * p.s_dst_b + h * p.s_dst_h + t * p.s_dst_t + 2 * q;
        float a = samrt::to_f32(s[0]), c = samrt::to_f32(s[1]);
        const int row = samrt_rope_row(t, p.period, p.skip, p.n_rope);
        if (row >= 0) {
            const float2 cs = *(const float2 *)(p.table + (size_t)row * p.dim + 2 * q);
            const float ra = a * cs.x - c * cs.y;
            c = a * cs.y + c * cs.x;
            a = ra;
        }
        d[0] = samrt::from_f32<T>(a);
        d[1] = samrt::from_f32<T>(c);
    }
}

template <typename T>
void rope_launch(const samrt_rope_params &p, cudaStream_t stream) {
    const int64_t n_total = (int64_t)p.n_batch * p.n_head * p.n_tok * (p.dim / 2);
    const int threads = 256;
    const int64_t blocks = (n_total + threads - 1) / threads;
    rope_apply_kernel<T><<<(unsigned)(blocks < 65536 ? blocks : 65536), threads, 0, stream>>>(p);
}

}  // namespace

extern "C" enum samrt_status samrt_rope_apply_cuda(const struct samrt_rope_params *p,
                                                   cudaStream_t stream) {
    enum samrt_status st = samrt_rope_check(p);
    if (st != SAMRT_OK) return st;
    if (((uintptr_t)p->table & 7u) != 0) return SAMRT_E_INVALID_ARG;  /* float2 reads */
    SAMRT_DISPATCH_FLOAT(p->dtype, rope_launch, *p, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
