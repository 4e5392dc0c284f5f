/* rope.cu - RoPE row rotation on the GPU: threads over the pairs of a row, fp32 arithmetic,
 * the result stored in the row's dtype (what PyTorch's apply_rotary_enc does under autocast).
 * The attention launcher runs it once over q and k into its workspace, so the attention
 * kernels themselves never see RoPE: rotating K inside the attention kernel would redo it
 * for every query tile (32x the work at the memory-attention shape).
 * The fused rotate + 2x2 pool of EfficientTAM's memory keys (rope_pool_kernel) rotates four
 * tokens, rounds each as the rotation above stores it, and averages them into the pooled row.
 * Tested by the op table's rope and rope_pool rows (tests/ops_table_*.c) against rope_ref.c. */
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

/* One pooled row (or one tail row) per blockDim.y slot, threads over its pairs: the four
 * source tokens of a pair are rotated in fp32 (the expression of rope_apply_kernel, so it
 * contracts alike), rounded to T as rope stores them, summed into the fp32 accumulator in the
 * depthwise conv's tap order with weight 1/4 (fmaf, as dwconv.cu), the bias added, rounded
 * once and written rep times. */
template <typename T>
__global__ void rope_pool_kernel(const samrt_rope_pool_params p, int n_pool, int n_out) {
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= p.n_batch * n_out) return;
    const int r = row % n_out, b = row / n_out, g = p.grid, h = g / 2;
    const T *s = (const T *)p.src + b * p.s_src_b;
    T *d = (T *)p.dst + b * p.s_dst_b;
    if (r >= n_pool) {  /* a tail row: copied */
        const int64_t i = r - n_pool;
        const T *si = s + ((int64_t)p.n_mem * g * g + i) * p.s_src_t;
        T *di = d + ((int64_t)p.rep * n_pool + i) * p.s_dst_t;
        for (int e = threadIdx.x; e < p.dim; e += blockDim.x) di[e] = si[e];
        return;
    }
    const int m = r / (h * h), y = r / h % h, x = r % h;
    for (int q = threadIdx.x; q < p.dim / 2; q += blockDim.x) {
        float acc0 = 0.0f, acc1 = 0.0f;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int tok = (2 * y + (k >> 1)) * g + 2 * x + (k & 1);
            const T *st = s + ((int64_t)m * g * g + tok) * p.s_src_t;
            float a = samrt::to_f32(st[2 * q]), c = samrt::to_f32(st[2 * q + 1]);
            if (p.table) {  /* (a + ic)(cos + i sin), stored in T by the unfused rope */
                const float2 cs = ((const float2 *)(p.table + (size_t)tok * p.dim))[q];
                const float ra = a * cs.x - c * cs.y;
                c = samrt::to_f32(samrt::from_f32<T>(a * cs.y + c * cs.x));
                a = samrt::to_f32(samrt::from_f32<T>(ra));
            }
            acc0 = fmaf(a, 0.25f, acc0);
            acc1 = fmaf(c, 0.25f, acc1);
        }
        const T o0 = samrt::from_f32<T>(acc0 + p.bias), o1 = samrt::from_f32<T>(acc1 + p.bias);
        for (int k = 0; k < p.rep; k++) {
            T *dk = d + ((int64_t)r * p.rep + k) * p.s_dst_t;
            dk[2 * q] = o0;
            dk[2 * q + 1] = o1;
        }
    }
}

template <typename T>
void rope_pool_launch(const samrt_rope_pool_params &p, cudaStream_t stream) {
    const int n_pair = p.dim / 2, h = p.grid / 2;
    const int tx = n_pair >= 128 ? 128 : (n_pair + 31) / 32 * 32, ty = 256 / tx;
    const int n_pool = p.n_mem * h * h, n_out = n_pool + (int)p.n_tail;
    const int64_t rows = (int64_t)p.n_batch * n_out;
    rope_pool_kernel<T><<<(unsigned)((rows + ty - 1) / ty), dim3(tx, ty), 0, stream>>>(p, n_pool, n_out);
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

extern "C" enum samrt_status samrt_rope_pool_cuda(const struct samrt_rope_pool_params *p, cudaStream_t stream) {
    enum samrt_status st = samrt_rope_pool_check(p);
    if (st != SAMRT_OK) return st;
    if (((uintptr_t)p->table & 7u) != 0) return SAMRT_E_INVALID_ARG;  /* float2 reads */
    const int64_t per = (int64_t)p->n_mem * p->grid * p->grid + p->n_tail;
    if (per * p->n_batch > INT32_MAX) return SAMRT_E_INVALID_ARG;
    SAMRT_DISPATCH_FLOAT(p->dtype, rope_pool_launch, *p, stream);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
