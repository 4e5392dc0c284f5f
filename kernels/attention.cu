/* attention.cu - fused attention kernels behind attention.h: the portable tensor-core kernel
 * (sm_80+, Orin and any other GPU), the strict f32 kernel, the split-K combine and the
 * launcher, which hands f16 / bf16 problems to the wgmma kernel of attention_sm90.cu when the
 * device is an sm_90 part and this binary carries sm_90a code (decided once, in
 * samrt_attention_init_cuda), with the wide 256-row tile where samrt_attention_wide_tiles
 * (attention_plan.c) says it saves a wave.
 *
 * f16 / bf16 (attn_mma_kernel): FlashAttention-2 structure on mma.sync. A CTA owns block_q
 * (64 or 128) query rows; each warp owns 16*MT of them and keeps its S = Q K^T tile and its O
 * accumulator in registers. Q, one K tile and one V tile live in shared memory with rows padded
 * by 16 bytes, which makes every ldmatrix conflict-free without a swizzle. Loads are cp.async:
 * V(j) streams in while S(j) = Q K(j)^T and the online softmax run, K(j+1) while O += P V(j)
 * runs (two barriers per tile). Head dims are zero-padded in shared memory to the
 * instantiated sizes 16/32/64/80/96/128/256, so 56 (base_plus) runs as 64 and 72 (large) as
 * 80. The kernel walks its key range in its own tile (32 or 64 keys); the planner's block_k
 * (64 or 128) only sets the split granularity, so both kernels split alike.
 * Softmax is online in the log2 domain (ex2.approx); see softmax_step in attention_impl.cuh.
 * Split-K CTAs write (max, sum, unnormalised O) in fp32; attn_combine_kernel merges them.
 *
 * f32 (attn_f32_kernel): a plain fp32 FMA kernel for parity runs (no tensor cores, no TF32):
 * 4 warps x 4 query rows, 32-key tiles with one key per lane.
 *
 * Tested by the op table's attention rows (tests/ops_table_attn.c; benchmarks: test_attention_cuda --bench); SAMRT_ATTENTION_PORTABLE=1
 * in the environment at init keeps an H100 on the portable kernel, to test it there. */
#include <stdint.h>
#include <stdlib.h>

#include "attention.h"
#include "attention_impl.cuh"
#include "common.cuh"
#include "rope.h"
#include "samrt_impl.h"

using namespace samrt_attn;

namespace {

// ---- PTX wrappers (sm_80+) ------------------------------------------------------------

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
__device__ __forceinline__ void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::);
#endif
}

/* Four 8x8 b16 matrices; lanes 8i..8i+7 give the row addresses of matrix i. TRANS hands
 * each thread a column pair instead of a row pair (the B operand of P V). */
template <bool TRANS>
__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void *p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(smem_u32(p)));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(smem_u32(p)));
#endif
}

/* c += a * b, m16n8k16, fp32 accumulate. a: 4 regs of the 16x16 A tile, b0/b1: the 16x8 B. */
template <typename T>
__device__ __forceinline__ void mma16816(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_same<T, __half>::value) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    } else {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
#endif
}

// ---- f16 / bf16 tensor-core kernel (sm_80+) ---------------------------------------------

/* Tile shape per padded head dim and block_q; attention_plan.c's samrt_attention_configure
 * must agree (the launcher checks). Registers decide the rows per warp: 32 (two m16 tiles)
 * where the 32 x DP fp32 accumulator plus the S tile fit in 255 registers without spilling
 * (DP <= 96; 32-key tiles at 96), else 16 (DP 128, 256: the 16 x 256 accumulator alone is
 * 128 registers). NW warps, MT m16 tiles per warp, BN keys per tile. */
template <int DP, int BM> struct Tile {
    static constexpr int WM = DP >= 128 ? 16 : 32;
    static constexpr int NW = BM / WM, MT = WM / 16;
    static constexpr int BN = DP == 96 ? 32 : 64;
};

template <typename T, int DP, int BM>
constexpr size_t mma_smem_bytes() {
    return (size_t)(BM + 2 * Tile<DP, BM>::BN) * (DP + 8) * sizeof(T);
}

/* ROWS x DP tile of q/k/v rows r0.. into shared memory (row stride DP + 8), columns at and
 * past dlim and missing rows zero-filled. Vector path: cp.async (caller commits). */
template <typename T, int WHICH, int DP, int ROWS, int NT>
__device__ __forceinline__ void load_tile(T *sm, const Args &a, int bw, int h, int r0, int dlim) {
    constexpr int SST = DP + 8, CPR = DP / 8, N_CHUNK = ROWS * CPR;
    if (a.vec) {
#pragma unroll 1  /* unrolled, the per-chunk row pointers are hoisted into ~30 registers */
        for (int it = 0; it < (N_CHUNK + NT - 1) / NT; it++) {
            const int c = threadIdx.x + it * NT;
            if (N_CHUNK % NT != 0 && c >= N_CHUNK) break;
            const int r = c / CPR, col = (c - r * CPR) * 8;
            const T *src = in_row<T, WHICH>(a, bw, h, r0 + r);
            const bool ok = src != nullptr && col < dlim;
            cp_async16(smem_u32(sm + r * SST + col), ok ? (const void *)(src + col) : a.q, ok ? 16 : 0);
        }
    } else {
        for (int e = threadIdx.x; e < ROWS * DP; e += NT) {
            const int r = e / DP, col = e - r * DP;
            const T *src = in_row<T, WHICH>(a, bw, h, r0 + r);
            sm[r * SST + col] = (src != nullptr && col < dlim) ? src[col] : samrt::from_f32<T>(0.0f);
        }
    }
}

template <typename T, int DP, int BM>
__global__ void __launch_bounds__(Tile<DP, BM>::NW * 32, 8 / Tile<DP, BM>::NW)
attn_mma_kernel(const Args a) {
    constexpr int NW = Tile<DP, BM>::NW, MT = Tile<DP, BM>::MT, BN = Tile<DP, BM>::BN;
    constexpr int NT = NW * 32, SST = DP + 8;
    constexpr int NKS = DP / 16;   /* k16 steps of Q K^T */
    constexpr int NNB = BN / 8;    /* n8 blocks of S */
    constexpr int NDB = DP / 8;    /* n8 blocks of O */
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sQ = reinterpret_cast<T *>(smem_raw);
    T *sK = sQ + BM * SST;
    T *sV = sK + BN * SST;

    const int bw_h = blockIdx.x, h = bw_h % a.n_head, bw = bw_h / a.n_head;
    const int q0 = blockIdx.y * BM, split = blockIdx.z;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int kbeg, kend;
    split_range(a, split, &kbeg, &kend);
    const int wrow = warp * 16 * MT;  /* first row of this warp in the tile */

    float acc[MT][NDB][4];
    float m_run[MT][2], l_run[MT][2];  /* per row half (g, g+8): max (log2 domain), partial sum */
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
#pragma unroll
        for (int d = 0; d < NDB; d++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[mt][d][e] = 0.0f;
        m_run[mt][0] = m_run[mt][1] = -INFINITY;
        l_run[mt][0] = l_run[mt][1] = 0.0f;
    }

    load_tile<T, 0, DP, BM, NT>(sQ, a, bw, h, q0, a.d_qk);
    load_tile<T, 1, DP, BN, NT>(sK, a, bw, h, kbeg, a.d_qk);
    cp_async_commit();
    cp_async_wait_all();
    __syncthreads();

    for (int k0 = kbeg; k0 < kend; k0 += BN) {
        load_tile<T, 2, DP, BN, NT>(sV, a, bw, h, k0, a.d_v);
        cp_async_commit();

        /* S = Q K^T: A from sQ (row-major), B = K^T from sK rows (non-transposed ldmatrix) */
        float s[MT][NNB][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int nb = 0; nb < NNB; nb++)
#pragma unroll
                for (int e = 0; e < 4; e++) s[mt][nb][e] = 0.0f;
#pragma unroll
        for (int ks = 0; ks < NKS; ks++) {
            unsigned qa[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
                ldsm_x4<false>(qa[mt], sQ + (wrow + mt * 16 + (lane & 15)) * SST + ks * 16 + (lane >> 4) * 8);
#pragma unroll
            for (int np = 0; np < NNB / 2; np++) {
                unsigned kb[4];
                ldsm_x4<false>(kb, sK + (np * 16 + (lane >> 4) * 8 + (lane & 7)) * SST + ks * 16 +
                                ((lane >> 3) & 1) * 8);
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    mma16816<T>(s[mt][2 * np], qa[mt], kb[0], kb[1]);
                    mma16816<T>(s[mt][2 * np + 1], qa[mt], kb[2], kb[3]);
                }
            }
        }

#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            float alpha[2];
            softmax_step<NNB>(s[mt], m_run[mt], l_run[mt], alpha, a.scale_log2, k0, kend, lane);
            rescale<NDB>(acc[mt], alpha);
        }

        cp_async_wait_all();  /* V(t) landed */
        __syncthreads();      /* ... for every thread; and every warp is done reading K(t) */
        if (k0 + BN < kend) {
            load_tile<T, 1, DP, BN, NT>(sK, a, bw, h, k0 + BN, a.d_qk);
            cp_async_commit();
        }

        /* O += P V: P from the S registers (C layout of two n8 blocks = A layout of one k16
         * step), B = V from sV rows through the transposing ldmatrix */
#pragma unroll
        for (int kp = 0; kp < BN / 16; kp++) {
            unsigned pa[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                pa[mt][0] = pack2<T>(s[mt][2 * kp][0], s[mt][2 * kp][1]);
                pa[mt][1] = pack2<T>(s[mt][2 * kp][2], s[mt][2 * kp][3]);
                pa[mt][2] = pack2<T>(s[mt][2 * kp + 1][0], s[mt][2 * kp + 1][1]);
                pa[mt][3] = pack2<T>(s[mt][2 * kp + 1][2], s[mt][2 * kp + 1][3]);
            }
#pragma unroll
            for (int dp = 0; dp < NDB / 2; dp++) {
                unsigned vb[4];
                ldsm_x4<true>(vb, sV + (kp * 16 + ((lane >> 3) & 1) * 8 + (lane & 7)) * SST + dp * 16 +
                                      (lane >> 4) * 8);
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    mma16816<T>(acc[mt][2 * dp], pa[mt], vb[0], vb[1]);
                    mma16816<T>(acc[mt][2 * dp + 1], pa[mt], vb[2], vb[3]);
                }
            }
        }
        cp_async_wait_all();  /* K(t+1) landed */
        __syncthreads();      /* and every warp is done reading V(t) */
    }

#pragma unroll
    for (int mt = 0; mt < MT; mt++)
        write_rows<T, NDB>(a, bw, h, bw_h, split, q0 + wrow + mt * 16 + (lane >> 2), acc[mt], m_run[mt],
                           l_run[mt], lane);
}

// ---- f32 strict kernel ----------------------------------------------------------------

constexpr int F32_BM = 16, F32_BN = 32, F32_RW = 4, F32_MAXC = SAMRT_ATTENTION_MAX_DIM / 32;

__global__ void __launch_bounds__(128) attn_f32_kernel(const Args a) {
    extern __shared__ float fsm[];
    const int D = a.d_qk, DV = a.d_v, KST = D | 1;  /* odd K stride: lane-parallel reads */
    float *sQ = fsm, *sK = sQ + F32_BM * D, *sV = sK + F32_BN * KST;
    const int bw_h = blockIdx.x, h = bw_h % a.n_head, bw = bw_h / a.n_head;
    const int q0 = blockIdx.y * F32_BM, split = blockIdx.z;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int kbeg, kend;
    split_range(a, split, &kbeg, &kend);
    const int nc = (DV + 31) / 32;

    for (int e = threadIdx.x; e < F32_BM * D; e += blockDim.x) {
        const float *src = in_row<float, 0>(a, bw, h, q0 + e / D);
        sQ[e] = src ? src[e % D] : 0.0f;
    }
    float o[F32_RW][F32_MAXC], m_run[F32_RW], l_run[F32_RW];
#pragma unroll
    for (int r = 0; r < F32_RW; r++) {
        m_run[r] = -INFINITY;
        l_run[r] = 0.0f;
#pragma unroll
        for (int c = 0; c < F32_MAXC; c++) o[r][c] = 0.0f;
    }

    for (int k0 = kbeg; k0 < kend; k0 += F32_BN) {
        __syncthreads();  /* previous tile fully consumed (and sQ written, first time) */
        for (int e = threadIdx.x; e < F32_BN * D; e += blockDim.x) {
            const int r = e / D, c = e - r * D;
            const float *src = in_row<float, 1>(a, bw, h, k0 + r);
            sK[r * KST + c] = src ? src[c] : 0.0f;
        }
        for (int e = threadIdx.x; e < F32_BN * DV; e += blockDim.x) {
            const float *src = in_row<float, 2>(a, bw, h, k0 + e / DV);
            sV[e] = src ? src[e % DV] : 0.0f;
        }
        __syncthreads();
        const bool valid = k0 + lane < kend;
        float p[F32_RW];
#pragma unroll
        for (int r = 0; r < F32_RW; r++) {
            const float *qr = sQ + (warp * F32_RW + r) * D, *kr = sK + lane * KST;
            float sc = 0.0f;
            for (int d = 0; d < D; d++) sc = fmaf(qr[d], kr[d], sc);
            sc = valid ? sc * a.scale_log2 : -INFINITY;
            const float m_new = fmaxf(m_run[r], samrt::warp_max(sc));  /* finite: key k0 is valid */
            const float alpha = exp2f(m_run[r] - m_new);
            p[r] = exp2f(sc - m_new);
            l_run[r] = l_run[r] * alpha + p[r];
            m_run[r] = m_new;
#pragma unroll
            for (int c = 0; c < F32_MAXC; c++) o[r][c] *= alpha;
        }
        for (int j = 0; j < F32_BN; j++) {
            float pj[F32_RW];
#pragma unroll
            for (int r = 0; r < F32_RW; r++) pj[r] = __shfl_sync(0xffffffffu, p[r], j);
#pragma unroll
            for (int c = 0; c < F32_MAXC; c++) {
                if (c >= nc || lane + 32 * c >= DV) break;
                const float vv = sV[j * DV + lane + 32 * c];
#pragma unroll
                for (int r = 0; r < F32_RW; r++) o[r][c] = fmaf(pj[r], vv, o[r][c]);
            }
        }
    }

#pragma unroll
    for (int r = 0; r < F32_RW; r++) {
        const float l = samrt::warp_sum(l_run[r]);
        const int row = q0 + warp * F32_RW + r;
        if (a.n_split == 1) {
            float *orow = out_row<float>(a, bw, h, row);
            if (!orow) continue;
#pragma unroll
            for (int c = 0; c < F32_MAXC; c++)
                if (c < nc && lane + 32 * c < DV) orow[lane + 32 * c] = o[r][c] / l;
        } else if (row < a.n_q) {
            const int64_t pr = part_row(a, split, bw_h, row);
#pragma unroll
            for (int c = 0; c < F32_MAXC; c++)
                if (c < nc && lane + 32 * c < DV) a.part_acc[pr * DV + lane + 32 * c] = o[r][c];
            if (lane == 0) {
                a.part_ml[2 * pr] = m_run[r];
                a.part_ml[2 * pr + 1] = l;
            }
        }
    }
}

constexpr size_t kF32SmemMax =
    sizeof(float) * (F32_BM * 256 + F32_BN * 257 + F32_BN * 256);

// ---- split-K combine --------------------------------------------------------------------

/* One CTA per output row: o = sum_s 2^(m_s - M) acc_s / sum_s 2^(m_s - M) l_s. */
template <typename T>
__global__ void attn_combine_kernel(const Args a) {
    const int64_t rid = blockIdx.x;
    const int r = (int)(rid % a.n_q), bw_h = (int)(rid / a.n_q);
    const int h = bw_h % a.n_head, bw = bw_h / a.n_head;
    T *orow = out_row<T>(a, bw, h, r);
    if (!orow) return;
    float m_max = -INFINITY;
    for (int s = 0; s < a.n_split; s++) m_max = fmaxf(m_max, a.part_ml[2 * part_row(a, s, bw_h, r)]);
    float l = 0.0f;
    for (int s = 0; s < a.n_split; s++) {
        const int64_t pr = part_row(a, s, bw_h, r);
        l += exp2f(a.part_ml[2 * pr] - m_max) * a.part_ml[2 * pr + 1];
    }
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    for (int d = threadIdx.x; d < a.d_v; d += blockDim.x) {
        float x = 0.0f;
        for (int s = 0; s < a.n_split; s++) {
            const int64_t pr = part_row(a, s, bw_h, r);
            x += exp2f(a.part_ml[2 * pr] - m_max) * a.part_acc[pr * a.d_v + d];
        }
        orow[d] = samrt::from_f32<T>(x * inv);
    }
}

/* Set once by samrt_attention_init_cuda: f16 / bf16 problems go to the sm_90a kernel. */
int g_use_sm90 = 0;

// ---- launchers --------------------------------------------------------------------------

template <typename T, int DP, int BM>
enum samrt_status launch_mma_dp(const Args &a, const samrt_attention_config &c, dim3 grid,
                                cudaStream_t stream) {
    /* the planner's tile shape must be the one compiled here */
    if (c.block_q != BM || c.block_k % Tile<DP, BM>::BN != 0 || c.n_threads != 32 * Tile<DP, BM>::NW ||
        c.smem_bytes != mma_smem_bytes<T, DP, BM>())
        return SAMRT_E_INVALID_ARG;
    attn_mma_kernel<T, DP, BM><<<grid, Tile<DP, BM>::NW * 32, mma_smem_bytes<T, DP, BM>(), stream>>>(a);
    return SAMRT_OK;
}

template <typename T, int BM>
enum samrt_status launch_mma_bm(const Args &a, const samrt_attention_config &c, dim3 grid,
                                cudaStream_t stream) {
    switch (c.d_pad) {
    case 16: return launch_mma_dp<T, 16, BM>(a, c, grid, stream);
    case 32: return launch_mma_dp<T, 32, BM>(a, c, grid, stream);
    case 64: return launch_mma_dp<T, 64, BM>(a, c, grid, stream);
    case 80: return launch_mma_dp<T, 80, BM>(a, c, grid, stream);
    case 96: return launch_mma_dp<T, 96, BM>(a, c, grid, stream);
    case 128: return launch_mma_dp<T, 128, BM>(a, c, grid, stream);
    case 256: return launch_mma_dp<T, 256, BM>(a, c, grid, stream);
    default: return SAMRT_E_UNSUPPORTED;
    }
}

template <typename T>
enum samrt_status launch_mma(const Args &a, const samrt_attention_config &c, dim3 grid,
                             cudaStream_t stream) {
    if (g_use_sm90 && sm90_supports(a, c)) return sm90_launch(a, c, std::is_same<T, __half>::value, grid, stream);
    return c.block_q == 64 ? launch_mma_bm<T, 64>(a, c, grid, stream) : launch_mma_bm<T, 128>(a, c, grid, stream);
}

template <typename T, int BM>
cudaError_t set_smem_limits_bm() {
    cudaError_t e = cudaSuccess;
#define SAMRT_ATTN_SET(DP)                                                                 \
    if (e == cudaSuccess)                                                                  \
        e = cudaFuncSetAttribute(attn_mma_kernel<T, DP, BM>, cudaFuncAttributeMaxDynamicSharedMemorySize, \
                                 (int)mma_smem_bytes<T, DP, BM>());
    SAMRT_ATTN_SET(16) SAMRT_ATTN_SET(32) SAMRT_ATTN_SET(64) SAMRT_ATTN_SET(80)
    SAMRT_ATTN_SET(96) SAMRT_ATTN_SET(128) SAMRT_ATTN_SET(256)
#undef SAMRT_ATTN_SET
    return e;
}

template <typename T>
cudaError_t set_smem_limits() {
    cudaError_t e = set_smem_limits_bm<T, 64>();
    return e == cudaSuccess ? set_smem_limits_bm<T, 128>() : e;
}

template <typename T>
void launch_combine(const Args &a, dim3 grid, int threads, cudaStream_t stream) {
    attn_combine_kernel<T><<<grid, threads, 0, stream>>>(a);
}

bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

}  // namespace

extern "C" enum samrt_status samrt_attention_init_cuda(void) {
    SAMRT_CUDA_TRY(set_smem_limits<__half>());
    SAMRT_CUDA_TRY(set_smem_limits<__nv_bfloat16>());
    SAMRT_CUDA_TRY(cudaFuncSetAttribute(attn_f32_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)kF32SmemMax));
    const char *portable = getenv("SAMRT_ATTENTION_PORTABLE");
    int use = 0;
    SAMRT_CUDA_TRY(sm90_init(&use));
    g_use_sm90 = use && !(portable && portable[0] && portable[0] != '0');
    return SAMRT_OK;
}

extern "C" enum samrt_status samrt_attention_cuda(const struct samrt_attention_params *p,
                                                  cudaStream_t stream) {
    struct samrt_attention_config cfg;
    SAMRT_TRY(samrt_attention_configure(p, &cfg));  /* validates p */
    const size_t ws_need = samrt_attention_workspace_size(p);
    if (ws_need > 0 && (!p->workspace || p->workspace_bytes < ws_need || !aligned16(p->workspace)))
        return SAMRT_E_INVALID_ARG;
    const size_t esz = samrt_dtype_size(p->dtype);
    char *ws = (char *)p->workspace;
    const int64_t B = p->n_batch, H = p->n_head;

    Args a = {};
    a.q = p->q; a.s_q_b = p->s_q_b; a.s_q_h = p->s_q_h; a.s_q_t = p->s_q_t;
    a.k = p->k; a.s_k_b = p->s_k_b; a.s_k_h = p->s_k_h; a.s_k_t = p->s_k_t;
    a.v = p->v; a.s_v_b = p->s_v_b; a.s_v_h = p->s_v_h; a.s_v_t = p->s_v_t;
    a.o = p->o; a.s_o_b = p->s_o_b; a.s_o_h = p->s_o_h; a.s_o_t = p->s_o_t;
    a.n_head = p->n_head; a.n_q = p->n_q; a.n_k = p->n_k; a.d_qk = p->d_qk; a.d_v = p->d_v;
    a.scale_log2 = (p->scale != 0.0f ? p->scale : 1.0f / sqrtf((float)p->d_qk)) * kLog2e;

    /* RoPE pre-pass: rotated copies of q and k, contiguous (B, H, L, d_qk) */
    if (p->rope.q) {
        const struct samrt_rope_params r = {p->dtype, p->n_batch, p->n_head, p->n_q, p->d_qk,
            p->q, p->s_q_b, p->s_q_h, p->s_q_t, ws, H * p->n_q * p->d_qk, (int64_t)p->n_q * p->d_qk,
            p->d_qk, p->rope.q, p->n_q, 0, p->n_q};
        SAMRT_TRY(samrt_rope_apply_cuda(&r, stream));
        a.q = ws; a.s_q_b = r.s_dst_b; a.s_q_h = r.s_dst_h; a.s_q_t = r.s_dst_t;
        ws += SAMRT_PAD((size_t)(B * H * p->n_q * p->d_qk) * esz, SAMRT_ALIGN);
    }
    if (p->rope.k) {
        const struct samrt_rope_params r = {p->dtype, p->n_batch, p->n_head, p->n_k, p->d_qk,
            p->k, p->s_k_b, p->s_k_h, p->s_k_t, ws, H * p->n_k * p->d_qk, (int64_t)p->n_k * p->d_qk,
            p->d_qk, p->rope.k, p->rope.k_period, p->rope.k_skip, p->rope.n_k};
        SAMRT_TRY(samrt_rope_apply_cuda(&r, stream));
        a.k = ws; a.s_k_b = r.s_dst_b; a.s_k_h = r.s_dst_h; a.s_k_t = r.s_dst_t;
        ws += SAMRT_PAD((size_t)(B * H * p->n_k * p->d_qk) * esz, SAMRT_ALIGN);
    }

    const int n_win = samrt_attention_n_windows(p);
    if (p->win.size_q > 0) {
        a.win = 1;
        a.size_q = p->win.size_q; a.size_k = p->win.size_k;
        a.q_h = p->win.q_h; a.q_w = p->win.q_w; a.k_h = p->win.k_h; a.k_w = p->win.k_w;
        a.n_win = n_win;
        a.n_win_x = (p->win.k_w + p->win.size_k - 1) / p->win.size_k;
        a.pad_k = p->win.pad_k; a.pad_v = p->win.pad_v; a.s_pad_h = p->win.s_pad_h;
    }
    a.n_problems = (int)(B * n_win * H);

    const int n_tiles = (p->n_k + cfg.block_k - 1) / cfg.block_k;
    a.n_split = samrt_attention_n_split_effective(p);
    const int per = a.n_split > 1 ? (n_tiles + SAMRT_MIN(p->n_split, n_tiles) - 1) / SAMRT_MIN(p->n_split, n_tiles)
                                  : n_tiles;
    a.keys_per_split = per * cfg.block_k;
    if (a.n_split > 1) {
        const size_t rows = (size_t)a.n_problems * (size_t)p->n_q;
        a.part_acc = (float *)ws;
        ws += SAMRT_PAD((size_t)a.n_split * rows * (size_t)p->d_v * sizeof(float), SAMRT_ALIGN);
        a.part_ml = (float *)ws;
    }

    if (esz == 2) {
        const int64_t st[] = {a.s_q_b, a.s_q_h, a.s_q_t, a.s_k_b, a.s_k_h, a.s_k_t,
                              a.s_v_b, a.s_v_h, a.s_v_t, a.s_o_b, a.s_o_h, a.s_o_t,
                              a.win ? a.s_pad_h : 0};
        int ok = p->d_qk % 8 == 0 && p->d_v % 8 == 0 && aligned16(a.q) && aligned16(a.k) &&
                 aligned16(a.v) && aligned16(a.o) && aligned16(a.pad_k) && aligned16(a.pad_v);
        for (size_t i = 0; i < SAMRT_ARRAY_LEN(st); i++) ok = ok && st[i] % 8 == 0;
        a.vec = ok;
    }

    /* the wide tile: 256 rows, four consumer warpgroups (sm_90a kernel only) */
    if (esz == 2 && g_use_sm90 && samrt_attention_wide_tiles(p) > 0) {
        samrt_attention_config wcfg = cfg;
        wcfg.block_q = 256;
        wcfg.block_k = 64;
        if (sm90_supports(a, wcfg)) cfg = wcfg;
    }
    const dim3 grid((unsigned)a.n_problems, (unsigned)((p->n_q + cfg.block_q - 1) / cfg.block_q),
                    (unsigned)a.n_split);
    switch (p->dtype) {
    case SAMRT_DTYPE_F32:
        attn_f32_kernel<<<grid, cfg.n_threads, cfg.smem_bytes, stream>>>(a);
        break;
    case SAMRT_DTYPE_F16: SAMRT_TRY(launch_mma<__half>(a, cfg, grid, stream)); break;
    case SAMRT_DTYPE_BF16: SAMRT_TRY(launch_mma<__nv_bfloat16>(a, cfg, grid, stream)); break;
    default: return SAMRT_E_UNSUPPORTED;
    }
    SAMRT_LAUNCH_CHECK();
    if (a.n_split > 1) {
        const dim3 cgrid((unsigned)((size_t)a.n_problems * (size_t)p->n_q));
        const int threads = p->d_v >= 128 ? 128 : 64;
        SAMRT_DISPATCH_FLOAT(p->dtype, launch_combine, a, cgrid, threads, stream);
        SAMRT_LAUNCH_CHECK();
    }
    return SAMRT_OK;
}
