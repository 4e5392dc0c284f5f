/* attention_impl.cuh - device-side pieces shared by the two tensor-core attention kernels
 * (attention.cu: mma.sync, sm_80+; attention_sm90.cu: wgmma, sm_90a): the kernel argument
 * block, row addressing (strides, Hiera windows, bias rows of padded tokens), the online
 * softmax step and the epilogue that stores normalised rows or split-K partials.
 *
 * Both kernels hold S and O in the same register layout (mma.sync's m16n8 C fragment: a thread
 * owns rows lane/4 and lane/4 + 8 of its warp's 16, two adjacent columns per n8 block), so the
 * softmax and the epilogue are written once. Internal header: include only from the
 * attention .cu files. */
#ifndef SAMRT_KERNELS_ATTENTION_IMPL_CUH
#define SAMRT_KERNELS_ATTENTION_IMPL_CUH

#include <stdint.h>

#include <type_traits>

#include "attention.h"
#include "common.cuh"

namespace samrt_attn {

constexpr float kLog2e = 1.4426950408889634f;

/* Device-side view of samrt_attention_params after the RoPE pre-pass. */
struct Args {
    const void *q, *k, *v;
    void *o;
    int64_t s_q_b, s_q_h, s_q_t, s_k_b, s_k_h, s_k_t, s_v_b, s_v_h, s_v_t, s_o_b, s_o_h, s_o_t;
    int n_head, n_q, n_k, d_qk, d_v;
    float scale_log2;            /* softmax scale * log2(e) */
    int win;                     /* window mode */
    int size_q, size_k, q_h, q_w, k_h, k_w, n_win, n_win_x;
    const void *pad_k, *pad_v;
    int64_t s_pad_h;
    int n_split;                 /* key ranges (gridDim.z) */
    int keys_per_split;          /* range z = [z * keys_per_split, min(n_k, (z + 1) * keys_per_split)) */
    int n_problems;              /* B * n_win * H: blockIdx.x */
    float *part_acc;             /* (n_split, n_problems, n_q, d_v) */
    float *part_ml;              /* (n_split, n_problems, n_q, 2): running max (log2), sum */
    int vec;                     /* 16-byte aligned rows: cp.async path */
    int tma;                     /* sm_90a: q, k, v tiles through the tensor maps (no windows) */
};

/* Row r of q (WHICH 0), k (1) or v (2) in problem (bw, h); nullptr = a zero row. */
template <typename T, int WHICH>
__device__ __forceinline__ const T *in_row(const Args &a, int bw, int h, int r) {
    const T *base = (const T *)(WHICH == 0 ? a.q : WHICH == 1 ? a.k : a.v);
    const int64_t s_b = WHICH == 0 ? a.s_q_b : WHICH == 1 ? a.s_k_b : a.s_v_b;
    const int64_t s_h = WHICH == 0 ? a.s_q_h : WHICH == 1 ? a.s_k_h : a.s_v_h;
    const int64_t s_t = WHICH == 0 ? a.s_q_t : WHICH == 1 ? a.s_k_t : a.s_v_t;
    if (r >= (WHICH == 0 ? a.n_q : a.n_k)) return nullptr;
    if (!a.win) return base + bw * s_b + h * s_h + r * s_t;
    int b;
    int64_t tok;
    if (WHICH == 0) {
        if (!samrt_attention_map_row(bw, r, a.size_q, a.q_h, a.q_w, a.n_win, a.n_win_x, &b, &tok))
            return nullptr;  /* padded query: its output is cropped anyway */
    } else if (!samrt_attention_map_row(bw, r, a.size_k, a.k_h, a.k_w, a.n_win, a.n_win_x, &b, &tok)) {
        const T *pad = (const T *)(WHICH == 1 ? a.pad_k : a.pad_v);
        return pad ? pad + h * a.s_pad_h : nullptr;  /* padded token: the qkv bias */
    }
    return base + b * s_b + h * s_h + tok * s_t;
}

/* Output row r of problem (bw, h); nullptr when it is not written (past Lq, padding). */
template <typename T>
__device__ __forceinline__ T *out_row(const Args &a, int bw, int h, int r) {
    if (r >= a.n_q) return nullptr;
    int b = bw;
    int64_t tok = r;
    if (a.win && !samrt_attention_map_row(bw, r, a.size_q, a.q_h, a.q_w, a.n_win, a.n_win_x, &b, &tok))
        return nullptr;
    return (T *)a.o + b * a.s_o_b + h * a.s_o_h + tok * a.s_o_t;
}

__device__ __forceinline__ int64_t part_row(const Args &a, int split, int bw_h, int r) {
    return ((int64_t)split * a.n_problems + bw_h) * a.n_q + r;
}

// ---- PTX wrappers (sm_80+) ------------------------------------------------------------

__device__ __forceinline__ unsigned smem_u32(const void *p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

/* 16-byte async copy to a shared address; src_bytes 0 zero-fills without reading src. */
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#endif
}

/* Two floats as one 32-bit register of T pairs (lo = lower address / lower column). */
template <typename T>
__device__ __forceinline__ unsigned pack2(float lo, float hi) {
    if constexpr (std::is_same<T, __half>::value) {
        __half2 v = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<unsigned *>(&v);
    } else {
        __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<unsigned *>(&v);
    }
}

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// ---- online softmax and epilogue (shared by both tensor-core kernels) -------------------

/* The maxima (POS) or minima of the thread's two rows of s over the quad (the 4 threads that
 * share a row), as four independent chains per row: a loop-built tree put its array in local
 * memory. */
template <bool POS, int NNB>
__device__ __forceinline__ void row_extrema(const float (&s)[NNB][4], float (&mx)[2]) {
    auto op = [](float x, float y) { return POS ? fmaxf(x, y) : fminf(x, y); };
    float t[2][4];
#pragma unroll
    for (int hh = 0; hh < 2; hh++) t[hh][0] = t[hh][1] = t[hh][2] = t[hh][3] = POS ? -INFINITY : INFINITY;
#pragma unroll
    for (int nb = 0; nb < NNB; nb += 2)
#pragma unroll
        for (int hh = 0; hh < 2; hh++) {
            t[hh][0] = op(t[hh][0], s[nb][2 * hh]);
            t[hh][1] = op(t[hh][1], s[nb][2 * hh + 1]);
            if (nb + 1 < NNB) {
                t[hh][2] = op(t[hh][2], s[nb + 1][2 * hh]);
                t[hh][3] = op(t[hh][3], s[nb + 1][2 * hh + 1]);
            }
        }
#pragma unroll
    for (int hh = 0; hh < 2; hh++) mx[hh] = op(op(t[hh][0], t[hh][1]), op(t[hh][2], t[hh][3]));
#pragma unroll
    for (int o = 1; o <= 2; o *= 2) {
        const float x0 = __shfl_xor_sync(0xffffffffu, mx[0], o), x1 = __shfl_xor_sync(0xffffffffu, mx[1], o);
        mx[0] = op(mx[0], x0);
        mx[1] = op(mx[1], x1);
    }
}

/* One online-softmax step over a 16 x 8*NNB score block in C layout, for the thread's two rows
 * (hh 0: e = 0,1; hh 1: e = 2,3). s holds raw dot products on entry (keys key0.. of the tile;
 * keys >= kend are masked) and p = 2^(s*sl - m) on return, m the new running max in the log2
 * domain. The row maximum is taken over the raw scores (the minimum for a negative scale), so
 * the scale costs one FFMA per score instead of a multiply before the max. A masked key holds
 * -inf (+inf for a negative scale), so s*sl - m is -inf and p exactly 0 with no per-element
 * test outside the last tile (sl is never 0: the smallest denormal scale times log2 e is still
 * a denormal). alpha[hh] is the factor the caller applies to its accumulator rows. l_run is
 * this thread's partial row sum (quad-reduced in the epilogue). */
template <int NNB>
__device__ __forceinline__ void softmax_step(float (&s)[NNB][4], float (&m_run)[2], float (&l_run)[2],
                                             float (&alpha)[2], float sl, int key0, int kend, int lane) {
    const bool pos = sl > 0.0f;
    const bool tail = key0 + 8 * NNB > kend;
    if (tail) {
#pragma unroll
        for (int nb = 0; nb < NNB; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (key0 + nb * 8 + 2 * (lane & 3) + (e & 1) >= kend) s[nb][e] = pos ? -INFINITY : INFINITY;
    }
    /* Both rows' maxima first, as eight independent chains, and their quad shuffles side by
     * side: the maximum is the first thing the exponentials wait for, and one row after the
     * other left the warp stalled on each shuffle. max/min are exact: the order changes no
     * result. */
    float mx[2];
    if (pos) row_extrema<true, NNB>(s, mx);
    else row_extrema<false, NNB>(s, mx);
    float m_use[2];
#pragma unroll
    for (int hh = 0; hh < 2; hh++) {
        const float m_tile = mx[hh] * sl;  /* -inf when every key of the row is masked */
        const float m_new = fmaxf(m_run[hh], m_tile);
        m_use[hh] = m_new == -INFINITY ? 0.0f : m_new;
        alpha[hh] = ex2(m_run[hh] - m_use[hh]);
        m_run[hh] = m_new;
    }
    /* two partial sums per row halve the dependent chain */
    float rs[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
#pragma unroll
    for (int nb = 0; nb < NNB; nb++)
#pragma unroll
        for (int hh = 0; hh < 2; hh++) {
            const float p0 = ex2(fmaf(s[nb][2 * hh], sl, -m_use[hh]));
            const float p1 = ex2(fmaf(s[nb][2 * hh + 1], sl, -m_use[hh]));
            s[nb][2 * hh] = p0;
            s[nb][2 * hh + 1] = p1;
            rs[hh][0] += p0;
            rs[hh][1] += p1;
        }
#pragma unroll
    for (int hh = 0; hh < 2; hh++) l_run[hh] = l_run[hh] * alpha[hh] + (rs[hh][0] + rs[hh][1]);
}

/* acc rows *= alpha; skipped when no row of the warp moved its maximum (common after the first
 * tiles), which saves DP/2 multiplies per thread and tile. */
template <int NDB>
__device__ __forceinline__ void rescale(float (&acc)[NDB][4], const float (&alpha)[2]) {
    if (!__any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f)) return;
#pragma unroll
    for (int d = 0; d < NDB; d++) {
        acc[d][0] *= alpha[0];
        acc[d][1] *= alpha[0];
        acc[d][2] *= alpha[1];
        acc[d][3] *= alpha[1];
    }
}

/* Epilogue for the thread's rows row0 and row0 + 8: quad-reduce the row sums, then store the
 * normalised row in T, or (split-K) the fp32 partial accumulator with its max and sum. */
template <typename T, int NDB>
__device__ __forceinline__ void write_rows(const Args &a, int bw, int h, int bw_h, int split, int row0,
                                           const float (&acc)[NDB][4], const float (&m_run)[2],
                                           const float (&l_run)[2], int lane) {
#pragma unroll
    for (int hh = 0; hh < 2; hh++) {
        float l = l_run[hh];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        const int row = row0 + hh * 8;
        if (a.n_split == 1) {
            T *orow = out_row<T>(a, bw, h, row);
            if (!orow) continue;
            const float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
            for (int d = 0; d < NDB; d++) {
                const int col = d * 8 + 2 * (lane & 3);
                const float x0 = acc[d][2 * hh] * inv, x1 = acc[d][2 * hh + 1] * inv;
                if (a.vec && col + 1 < a.d_v) {
                    *reinterpret_cast<unsigned *>(orow + col) = pack2<T>(x0, x1);
                } else {
                    if (col < a.d_v) orow[col] = samrt::from_f32<T>(x0);
                    if (col + 1 < a.d_v) orow[col + 1] = samrt::from_f32<T>(x1);
                }
            }
        } else if (row < a.n_q) {
            const int64_t pr = part_row(a, split, bw_h, row);
            float *prow = a.part_acc + pr * a.d_v;
#pragma unroll
            for (int d = 0; d < NDB; d++) {
                const int col = d * 8 + 2 * (lane & 3);
                if (a.vec && col + 1 < a.d_v) {
                    *reinterpret_cast<float2 *>(prow + col) = make_float2(acc[d][2 * hh], acc[d][2 * hh + 1]);
                } else {
                    if (col < a.d_v) prow[col] = acc[d][2 * hh];
                    if (col + 1 < a.d_v) prow[col + 1] = acc[d][2 * hh + 1];
                }
            }
            if ((lane & 3) == 0) {
                a.part_ml[2 * pr] = m_run[hh];
                a.part_ml[2 * pr + 1] = l;
            }
        }
    }
}

/* Key range of split z: [*k_begin, *k_end). */
__device__ __forceinline__ void split_range(const Args &a, int z, int *k_begin, int *k_end) {
    *k_begin = z * a.keys_per_split;
    *k_end = min(a.n_k, *k_begin + a.keys_per_split);
}

// ---- the sm_90a kernel (attention_sm90.cu), host side ------------------------------------

/* *usable = 1 when the current device is sm_90 and this binary holds sm_90a code for it; then
 * also raises the shared-memory limits of the wgmma kernels. */
cudaError_t sm90_init(int *usable);
/* Whether the wgmma kernel handles this problem (16-byte rows, d_pad 64..256, its tiles). */
bool sm90_supports(const Args &a, const samrt_attention_config &c);
enum samrt_status sm90_launch(const Args &a, const samrt_attention_config &c, bool half, dim3 grid,
                              cudaStream_t stream);

}  // namespace samrt_attn

#endif /* SAMRT_KERNELS_ATTENTION_IMPL_CUH */
