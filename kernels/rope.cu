/* rope.cu - RoPE row rotation on the GPU: threads over the pairs of a row, fp32 arithmetic,
 * the result stored in the row's dtype (what PyTorch's apply_rotary_enc does under autocast).
 * The attention launcher runs it once over q and k into its workspace, so the attention
 * kernels themselves never see RoPE: rotating K inside the attention kernel would redo it
 * for every query tile (32x the work at the memory-attention shape).
 * Tested by the op table's rope rows (tests/ops_table_*.c) against rope_ref.c. */
#include "common.cuh"
#include "rope.h"

namespace {

/* blockDim.x threads walk the pairs of a row, blockDim.y rows per block: the (b, h, t)
 * split is one 32-bit division per row, not per pair. */
template <typename T>
__global__ void rope_apply_kernel(const samrt_rope_params p) {
    const int n_pair = p.dim / 2;
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= p.n_batch * p.n_head * p.n_tok) return;
    const int t = row % p.n_tok, bh = row / p.n_tok;
    const int h = bh % p.n_head, b = bh / p.n_head;
    const T *s = (const T *)p.src + b * p.s_src_b + h * p.s_src_h + t * p.s_src_t;
    T *d = (T *)p.dst + b * p.s_dst_b + h * p.s_dst_h + t * p.s_dst_t;
    const int tr = samrt_rope_row(t, p.period, p.skip, p.n_rope);
    const float2 *cs = tr >= 0 ? (const float2 *)(p.table + (size_t)tr * p.dim) : nullptr;
    for (int q = threadIdx.x; q < n_pair; q += blockDim.x) {
        float a = samrt::to_f32(s[2 * q]), c = samrt::to_f32(s[2 * q + 1]);
        if (cs) {  /* (a + ic)(cos + i sin) */
            const float2 r = cs[q];
            const float ra = a * r.x - c * r.y;
            c = a * r.y + c * r.x;
            a = ra;
        }
        d[2 * q] = samrt::from_f32<T>(a);
        d[2 * q + 1] = samrt::from_f32<T>(c);
    }
}

template <typename T>
void rope_launch(const samrt_rope_params &p, cudaStream_t stream) {
    const int n_pair = p.dim / 2;
    const int tx = n_pair >= 128 ? 128 : (n_pair + 31) / 32 * 32, ty = 256 / tx;
    const int64_t rows = (int64_t)p.n_batch * p.n_head * p.n_tok;
    rope_apply_kernel<T><<<(unsigned)((rows + ty - 1) / ty), dim3(tx, ty), 0, stream>>>(p);
}

}  // namespace

extern "C" enum samrt_status samrt_rope_apply_cuda(const struct samrt_rope_params *p,
                                                   cudaStream_t stream) {
    enum samrt_status st = samrt_rope_check(p);
    if (st != SAMRT_OK) return st;
    if (((uintptr_t)p->table & 7u) != 0) return SAMRT_E_INVALID_ARG;  /* float2 reads */
    if ((int64_t)p->n_batch * p->n_head * p->n_tok > INT32_MAX) return SAMRT_E_INVALID_ARG;
    SAMRT_DISPATCH_FLOAT(p->dtype, rope_launch, *p, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
