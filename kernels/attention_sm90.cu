/* attention_sm90.cu - the Hopper (sm_90a) f16 / bf16 attention kernel: wgmma.mma_async with
 * operands in swizzled shared memory, fed by a producer warpgroup through an mbarrier pipeline.
 * Its CPU reference is kernels/attention_ref.c, shared with the portable kernel (attention.cu);
 * the op table's attention rows (tests/ops_table_attn.c) check both paths against it.
 * attention.cu's launcher hands it every problem it supports once samrt_attention_init_cuda
 * has found an sm_90 device and sm_90a code in this binary; everything else (and every other
 * GPU) runs the portable mma.sync kernel.
 *
 * CTA = NWG consumer warpgroups (64 query rows each, block_q = 64 * NWG: 1, 2, or 4 for the
 * wide tile of head dims 33..64, see samrt_attention_wide_tiles) + 1 producer warpgroup
 * (setmaxnreg moves its registers to the consumers).
 *   producer: Q once, then K(j) and V(j) into ST stages each (2 to 4, what fits); a stage
 *             is refilled once every consumer warp has released it, so loads run ST - 1
 *             turns ahead. Outside window mode (and at 32- or 64-column atoms) one thread
 *             issues TMA box copies that complete on the stage's mbarrier (expect_tx);
 *             window problems gather rows through the window mapping with cp.async from all
 *             128 threads (cp.async.mbarrier.arrive: no thread waits for its own copies).
 *             Those copy loops must stay small: a per-chunk address computation made the
 *             first version load-bound (see kernels/dev/attention_notes.md).
 *   consumer: S = Q K^T (wgmma, both operands in shared memory), online softmax on the
 *             accumulator registers (attention_impl.cuh, the same code as the portable
 *             kernel), P rounded to T in registers, O += P V (wgmma, A from registers, V
 *             read N-major through the descriptor's transpose bit: no transposed copy).
 * With two or more consumer warpgroups the matrix products take turns, round robin (named
 * barriers): one group's softmax runs while the others' products keep the tensor cores busy,
 * and inside a group the softmax of S(i) starts while its own P(i-1) V(i-1) still runs (two
 * commit groups). The softmax costs about as much as the products at head dims <= 96, so
 * this overlap is what makes those dims fast; at <= 64 four groups (64-key tiles, to fit 112
 * registers each) hide it better than two. No CTA-wide barrier runs in the main loop.
 *
 * Shared-memory layout (Lay<DP>): a tile of R rows x DP columns is stored as 64-column blocks
 * of R rows x 128 bytes with the 128-byte swizzle (16-byte chunk index XOR address bits 7..9),
 * then, for DP 80 / 96, one tail block of the last 16 / 32 columns with 32- / 64-byte rows and
 * the matching swizzle. The same layout is K-major for Q and K (S = Q K^T) and N-major for V
 * (O += P V: one product over the head blocks, one over the tail), so one loader serves all
 * three; TMA writes it with one box per block.
 *
 * Tested by test_ops_table_cuda's attention rows on an H100 (both kernels: SAMRT_ATTENTION_PORTABLE=1
 * keeps the portable one). */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "attention.h"
#include "attention_impl.cuh"
#include "attention_sm90_ptx.cuh"
#include "attention_wgmma.cuh"
#include "common.cuh"
#include "samrt_impl.h"

using namespace samrt_attn;

namespace {

/* Column layout of a tile with padded head dim DP: HEAD columns as 64-column blocks (128-byte
 * rows, 128-byte swizzle), then TAIL = DP - HEAD columns (0, 16 or 32) as one block of 32- or
 * 64-byte rows with the matching swizzle. Each block holds all ROWS rows of its columns. */
template <int DP> struct Lay {
    static constexpr int HEAD = DP / 64 * 64, TAIL = DP - HEAD;
    static_assert(HEAD > 0 && (TAIL == 0 || TAIL == 16 || TAIL == 32), "head dims 64 + {0, 16, 32}, 128, 256");
    /* bytes per tail row; the tail's descriptor layout type (64- / 32-byte swizzle) */
    __host__ __device__ static constexpr unsigned trb() { return TAIL * 2u; }
    __host__ __device__ static constexpr int tmode() { return TAIL == 32 ? 2 : 3; }
    /* per column col (a multiple of 8): row bytes, block offset in a ROWS-row tile, byte offset
     * inside the row */
    __host__ __device__ static constexpr unsigned rb(int col) { return col < HEAD ? 128u : trb(); }
    __host__ __device__ static constexpr unsigned blk(int col, int rows) {
        return col < HEAD ? (unsigned)(col / 64) * rows * 128u : (unsigned)HEAD * rows * 2u;
    }
    __host__ __device__ static constexpr unsigned in(int col) {
        return col < HEAD ? (unsigned)(col % 64) * 2u : (unsigned)(col - HEAD) * 2u;
    }
};

/* Tile sizes of one instance: NWG consumer warpgroups + 1 producer warpgroup, BN keys per tile,
 * ST pipeline stages of K and of V. A 64-row CTA (NWG 1) aims at two CTAs per SM, so that two
 * independent CTAs hide each other's latencies (the windowed Hiera blocks are many small
 * problems); when two stages do not fit in half the shared memory it takes a whole SM. The
 * stage count is what fits, up to 4: loads are issued ST - 1 turns ahead. */
template <int DP, int NWG, int BN> struct Sm90Tile {
    static constexpr int BM = 64 * NWG, NT = 128 * (NWG + 1);
    static constexpr unsigned Q_BYTES = BM * DP * 2, KV_BYTES = BN * DP * 2;
    /* per CTA: 228 KB per SM less 1 KB the driver reserves per CTA; FIXED = alignment slack and
     * the mbarriers */
    static constexpr unsigned FIXED = 1024 + 256;
    static constexpr unsigned budget(int ctas) { return 228u * 1024 / ctas - 1024; }
    static constexpr int CTAS = NWG == 1 && FIXED + Q_BYTES + 4 * KV_BYTES <= budget(2) ? 2 : 1;
    static constexpr int ST_FIT = (int)((budget(CTAS) - FIXED - Q_BYTES) / (2 * KV_BYTES));
    static constexpr int ST = ST_FIT > 4 ? 4 : ST_FIT;
    static_assert(ST >= 2, "two stages of K and V must fit");
    static constexpr unsigned BAR_OFF = Q_BYTES + 2 * ST * KV_BYTES;  /* after Q, K[ST], V[ST] */
    static constexpr size_t SMEM = 1024 + BAR_OFF + (1 + 4 * ST) * 8;
    /* registers per thread after setmaxnreg (0 = no change): the producer needs few, and the
     * consumers' share must fit the launch allocation (NT x the launch-bound maximum; four
     * consumer warpgroups: 640 x 96 = 128 x 32 + 512 x 112 exactly, no spills at d 64) */
    static constexpr int REG_P = NWG == 4 ? 32 : NWG == 2 ? 56 : CTAS == 2 ? 48 : 0;
    static constexpr int REG_C = NWG == 4 ? 112 : NWG == 2 ? 224 : CTAS == 2 ? 208 : 0;
    static constexpr int LAUNCH_REGS = 65536 / CTAS / NT / 8 * 8;  /* what the launch bounds allow */
    static_assert(REG_C == 0 || 128 * (REG_P + NWG * REG_C) <= NT * LAUNCH_REGS,
                  "setmaxnreg.inc would wait for registers nobody releases");
};

/* Byte offset of element (r, col) in a ROWS-row tile (col a multiple of 8: a 16-byte chunk).
 * Every block starts 1 KB aligned, so the swizzle (16-byte chunk index XOR address bits 7..)
 * can be applied to the tile offset. */
template <int DP, int ROWS>
__device__ __forceinline__ unsigned sw_off(int r, int col) {
    using L = Lay<DP>;
    const unsigned rb = L::rb(col);
    const unsigned o = L::blk(col, ROWS) + r * rb + L::in(col);
    return o ^ (((o >> 7) & (rb / 16 - 1)) << 4);
}

/* Rows of q (WHICH 0), k (1) or v (2) for one (problem, head), with everything that does not
 * depend on the row hoisted out of the producer's copy loops. row_ptr() returns what in_row()
 * returns: the row, the bias row of a padded k/v token, or nullptr for a zero row. */
template <typename T>
struct RowSrc {
    const T *base;          /* token 0 of this image and head */
    int64_t s_t;            /* token stride */
    int n;                  /* rows that exist (Lq or Lk) */
    int win, size, y0, x0, map_h, map_w;  /* window mode: window origin on the map */
    float inv_size;         /* 1 / size, for the row -> (y, x) split */
    const T *pad;           /* row of a padded token; nullptr = zeros */
};

template <typename T, int WHICH>
__device__ __forceinline__ RowSrc<T> row_src(const Args &a, int bw, int h) {
    RowSrc<T> s;
    const T *base = (const T *)(WHICH == 0 ? a.q : WHICH == 1 ? a.k : a.v);
    const int64_t s_b = WHICH == 0 ? a.s_q_b : WHICH == 1 ? a.s_k_b : a.s_v_b;
    const int64_t s_h = WHICH == 0 ? a.s_q_h : WHICH == 1 ? a.s_k_h : a.s_v_h;
    s.s_t = WHICH == 0 ? a.s_q_t : WHICH == 1 ? a.s_k_t : a.s_v_t;
    s.n = WHICH == 0 ? a.n_q : a.n_k;
    s.win = a.win;
    s.pad = nullptr;
    s.size = s.y0 = s.x0 = s.map_h = s.map_w = 0;
    s.inv_size = 0.0f;
    int img = bw;
    if (a.win) {
        img = bw / a.n_win;
        const int w = bw - img * a.n_win;
        s.size = WHICH == 0 ? a.size_q : a.size_k;
        s.inv_size = 1.0f / (float)s.size;
        s.map_h = WHICH == 0 ? a.q_h : a.k_h;
        s.map_w = WHICH == 0 ? a.q_w : a.k_w;
        s.y0 = (w / a.n_win_x) * s.size;
        s.x0 = (w % a.n_win_x) * s.size;
        const T *pad = (const T *)(WHICH == 1 ? a.pad_k : a.pad_v);
        if (WHICH != 0 && pad) s.pad = pad + h * a.s_pad_h;
    }
    s.base = base + img * s_b + h * s_h;
    return s;
}

/* Window row r (< size^2) -> map row pointer. r / size through the float reciprocal: the
 * quotient q < size and (r + 0.5) / size lies 0.5 / size away from any integer, far more than
 * the float error (~q * 2^-22); checked exhaustively for every size up to 512 (Hiera's
 * windows are 7 to 16), larger ones divide. */
template <typename T>
__device__ __forceinline__ const T *win_row(const RowSrc<T> &s, int r) {
    const int qy = s.size <= 512 ? (int)(((float)r + 0.5f) * s.inv_size) : r / s.size;
    const int qx = r - qy * s.size;
    const int y = s.y0 + qy, x = s.x0 + qx;
    return y < s.map_h && x < s.map_w ? s.base + ((int64_t)y * s.map_w + x) * s.s_t : s.pad;
}

/* ROWS rows r0.. into the swizzled tile at shared address sm, by the 128 producer threads:
 * thread pt copies 16-byte column chunk pt % CPR of rows pt / CPR, + RPP, + 2 RPP, ... (the
 * 128 % CPR threads left over idle). Without windows a pass costs a pointer step, an offset
 * and the copy (the loop stays small: these warps share the SM's instruction cache with the
 * consumers). Columns at and past dlim and missing rows are zero-filled. */
template <typename T, int DP, int ROWS>
__device__ __forceinline__ void load_sw(unsigned sm, const RowSrc<T> &src, const void *dummy, int r0, int dlim,
                                        int pt) {
    constexpr int CPR = DP / 8, RPP = 128 / CPR, NPASS = (ROWS + RPP - 1) / RPP;
    const int rr = pt / CPR, col = (pt - rr * CPR) * 8;
    if (rr >= RPP) return;
    const bool col_ok = col < dlim;
    const int n_ok = src.n - r0 - rr;  /* pass k reads a real row iff k * RPP < n_ok */
    if (!src.win) {
        const T *p = src.base + (int64_t)(r0 + rr) * src.s_t + col;
        const int64_t step = (int64_t)RPP * src.s_t;
#pragma unroll 4
        for (int k = 0; k < NPASS; k++) {
            const int r = rr + k * RPP;
            if (NPASS * RPP != ROWS && r >= ROWS) break;
            const bool ok = col_ok && k * RPP < n_ok;
            cp_async16(sm + sw_off<DP, ROWS>(r, col), ok ? (const void *)p : dummy, ok ? 16 : 0);
            p += step;
        }
    } else {
#pragma unroll 1
        for (int k = 0; k < NPASS; k++) {
            const int r = rr + k * RPP;
            if (NPASS * RPP != ROWS && r >= ROWS) break;
            const T *p = k * RPP < n_ok ? win_row(src, r0 + r) : nullptr;
            const bool ok = col_ok && p != nullptr;
            cp_async16(sm + sw_off<DP, ROWS>(r, col), ok ? (const void *)(p + col) : dummy, ok ? 16 : 0);
        }
    }
}

/* Tensor maps of q, k and v as (channel, token, head, batch) with boxes of 64 (head blocks) or
 * 16 / 32 (tail block) channels x BM or BN tokens, swizzled as the wgmma layout expects: one
 * thread loads a whole tile (TMA), where 128 threads issuing 16-byte copies left the tensor
 * cores waiting on K and V at head dims <= 96. Window problems gather rows through the window
 * mapping and keep cp.async. */
struct Tmaps {
    CUtensorMap q, k, v;     /* 64-channel boxes of the head columns */
    CUtensorMap qt, kt, vt;  /* the tail columns' box (head dims 80, 96) */
};

/* Set by sm90_probe_kernel when this binary holds sm_90a code for the running device. */
__device__ int g_sm90_compiled;

__global__ void sm90_probe_kernel() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    g_sm90_compiled = 1;
#endif
}

/* The producer warps of attn_wgmma_kernel: Q once, then K and V of every key tile into the
 * stage ring, through TMA (one thread) or cp.async with swizzled stores (128 threads). pt is
 * the thread's index among the producers. */
template <typename T, int DP, int NWG, int BN>
__device__ __forceinline__ void attn_produce(const Args &a, const Tmaps &tm, unsigned sQ, unsigned sK, unsigned sV,
                                             unsigned bar, unsigned bar_kf, unsigned bar_vf, unsigned bar_ke,
                                             unsigned bar_ve, int h, int bw, int q0, int kbeg, int n_t, int pt) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using L = Lay<DP>;
    using G = Sm90Tile<DP, NWG, BN>;
    constexpr int BM = G::BM, ST = G::ST;
    if (a.tma) {
        if (pt != 0) return;
        constexpr int NH = L::HEAD / 64;
        const int img = bw;
        /* one tile: its 64-column head blocks, then the tail block */
        auto load = [&](unsigned dst, const CUtensorMap *m, const CUtensorMap *mt, int rows, int r0, unsigned b) {
#pragma unroll
            for (int blk = 0; blk < NH; blk++) tma_load4(dst + blk * rows * 128, m, blk * 64, r0, h, img, b);
            if constexpr (L::TAIL != 0) tma_load4(dst + L::HEAD * rows * 2, mt, L::HEAD, r0, h, img, b);
        };
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)&tm.k) : "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)&tm.v) : "memory");
        mbar_arrive_tx(bar, G::Q_BYTES);
        load(sQ, &tm.q, &tm.qt, BM, q0, bar);
        for (int i = 0; i < n_t; i++) {
            const int s = i % ST, k0 = kbeg + i * BN;
            const unsigned par = ((i / ST) + 1) & 1;  /* phase of tile i - ST's release */
            const unsigned dk = sK + s * G::KV_BYTES, dv = sV + s * G::KV_BYTES;
            if (i >= ST) mbar_wait(bar_ke + 8 * s, par);
            mbar_arrive_tx(bar_kf + 8 * s, G::KV_BYTES);
            load(dk, &tm.k, &tm.kt, BN, k0, bar_kf + 8 * s);
            if (i >= ST) mbar_wait(bar_ve + 8 * s, par);
            mbar_arrive_tx(bar_vf + 8 * s, G::KV_BYTES);
            load(dv, &tm.v, &tm.vt, BN, k0, bar_vf + 8 * s);
        }
        return;
    }
    const RowSrc<T> qs = row_src<T, 0>(a, bw, h), ks = row_src<T, 1>(a, bw, h), vs = row_src<T, 2>(a, bw, h);
    const void *dummy = a.q;  /* a valid address for the zero-filling copies */
    load_sw<T, DP, BM>(sQ, qs, dummy, q0, a.d_qk, pt);
    cp_async_arrive(bar);
    for (int i = 0; i < n_t; i++) {
        const int s = i % ST, k0 = kbeg + i * BN;
        const unsigned par = ((i / ST) + 1) & 1;  /* phase of tile i - ST's release */
        if (i >= ST) mbar_wait(bar_ke + 8 * s, par);
        load_sw<T, DP, BN>(sK + s * G::KV_BYTES, ks, dummy, k0, a.d_qk, pt);
        cp_async_arrive(bar_kf + 8 * s);
        if (i >= ST) mbar_wait(bar_ve + 8 * s, par);
        load_sw<T, DP, BN>(sV + s * G::KV_BYTES, vs, dummy, k0, a.d_v, pt);
        cp_async_arrive(bar_vf + 8 * s);
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/* P of a turn, packed for the P V product: the probabilities of key columns 16 kp .. 16 kp + 15
 * as the A operand registers of one k16 step. */
template <typename T, int NPK>
__device__ __forceinline__ void pack_p(unsigned (&pa)[NPK][4], const float (&sc)[2 * NPK][4]) {
#pragma unroll
    for (int kp = 0; kp < NPK; kp++) {
        pa[kp][0] = pack2<T>(sc[2 * kp][0], sc[2 * kp][1]);
        pa[kp][1] = pack2<T>(sc[2 * kp][2], sc[2 * kp][3]);
        pa[kp][2] = pack2<T>(sc[2 * kp + 1][0], sc[2 * kp + 1][1]);
        pa[kp][3] = pack2<T>(sc[2 * kp + 1][2], sc[2 * kp + 1][3]);
    }
}

/* The consumer warpgroups of attn_wgmma_kernel: each owns 64 query rows, runs the turns of
 * S = Q K^T, the online softmax and O += P V over the key tiles, then writes its rows. */
template <typename T, int DP, int NWG, int BN>
__device__ __forceinline__ void attn_consume(const Args &a, unsigned sQ, unsigned sK, unsigned sV, unsigned bar,
                                             unsigned bar_kf, unsigned bar_vf, unsigned bar_ke, unsigned bar_ve,
                                             int h, int bw, int bw_h, int split, int q0, int kbeg, int kend,
                                             int n_t, int warp, int lane) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using L = Lay<DP>;
    using G = Sm90Tile<DP, NWG, BN>;
    constexpr int BM = G::BM, ST = G::ST, NDB = DP / 8, NNB = BN / 8, NKS = DP / 16, NPK = BN / 16;
    if constexpr (G::REG_C == 224) asm volatile("setmaxnreg.inc.sync.aligned.u32 224;\n" ::: "memory");
    if constexpr (G::REG_C == 208) asm volatile("setmaxnreg.inc.sync.aligned.u32 208;\n" ::: "memory");
    if constexpr (G::REG_C == 112) asm volatile("setmaxnreg.inc.sync.aligned.u32 112;\n" ::: "memory");
    const int wg = warp >> 2;
    float acc[NDB][4] = {};
    float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.0f, 0.0f};
    float sc[NNB][4];
    unsigned pa[NPK][4];
    /* Matrix descriptors, built once: bits 0-13 hold the start address / 16 and no shared
     * address or offset carries out of them, so the descriptor of base + off is the base's plus
     * off / 16 (one add per wgmma instead of rebuilding it, which put ~60 dependent uniform
     * instructions in front of every turn's products). Head and tail blocks differ in row bytes,
     * swizzle and so in the 8-row stride (SBO); V's LBO steps over 64-column blocks. */
    const uint64_t dq_h = wg_desc(sQ + wg * 64 * 128, 16, 1024, 1);
    const uint64_t dk_h = wg_desc(sK, 16, 1024, 1), dv_h = wg_desc(sV, BN * 128, 1024, 1);
    const uint64_t dq_t = wg_desc(sQ + L::HEAD * BM * 2 + wg * 64 * L::trb(), 16, 8 * L::trb(), L::tmode());
    const uint64_t dk_t = wg_desc(sK + L::HEAD * BN * 2, 16, 8 * L::trb(), L::tmode());
    const uint64_t dv_t = wg_desc(sV + L::HEAD * BN * 2, BN * L::trb(), 8 * L::trb(), L::tmode());
    if (NWG >= 2 && wg == NWG - 1) named_arrive(1);  /* warpgroup 0 takes the first turn */
    mbar_wait(bar, 0);

    /* Turn i issues S(i) = Q K(i)^T and then O += P(i-1) V(i-1) as two commit groups, and
     * runs the softmax of S(i) as soon as the first group is done: the warpgroup's own P V
     * runs under its softmax, and the other warpgroup's turn (named barriers 1 and 2 make
     * them alternate) keeps the tensor cores busy after that. At d 256 (OVL false) the P V
     * goes first and one group waits for both: measured 6% faster there, where the softmax
     * is short next to the products. n_t + 1 turns: the first has no P V, the last no S;
     * they are peeled so that no wgmma sits in a branch (ptxas would serialise them all). */
    constexpr bool OVL = DP != 256;
    auto turn = [&](auto has_pv_c, auto has_s_c, int i) {
        constexpr bool has_pv = decltype(has_pv_c)::value, has_s = decltype(has_s_c)::value;
        const int s = i % ST, sp = (i + ST - 1) % ST;
        const unsigned par = (i / ST) & 1, par_p = ((i + ST - 1) / ST + 1) & 1;  /* tiles i, i - 1 */
        if constexpr (has_s) mbar_wait(bar_kf + 8 * s, par);
        if constexpr (has_pv) mbar_wait(bar_vf + 8 * sp, par_p);
        if constexpr (NWG >= 2) named_sync(1 + wg);
        reg_fence<NDB>(acc);
        wg_fence();
        auto issue_s = [&]() {
            /* k16 steps inside a swizzled row advance the start address; blocks are BM / BN rows */
            const unsigned kst = s * (G::KV_BYTES / 16);
#pragma unroll
            for (int ks = 0; ks < NKS; ks++) {
                const int col = ks * 16;
                const bool hd = col < L::HEAD;  /* the tail's descriptors already start at its block */
                const unsigned qo = (hd ? L::blk(col, BM) : 0u) + L::in(col);
                const unsigned ko = (hd ? L::blk(col, BN) : 0u) + L::in(col);
                const uint64_t da = (hd ? dq_h : dq_t) + qo / 16;
                const uint64_t db = (hd ? dk_h : dk_t) + kst + ko / 16;
                if (ks == 0)
                    Wg<T, BN>::ss0(sc, da, db);
                else
                    Wg<T, BN>::ss(sc, da, db);
            }
        };
        auto issue_pv = [&]() {
            /* V's 16 key rows per step are two 8-row core matrices (SBO); the head columns span
             * HEAD/64 blocks BN rows apart (LBO), the tail columns get their own product */
            const unsigned vst = sp * (G::KV_BYTES / 16);
            auto &acc_h = reinterpret_cast<float (&)[L::HEAD / 8][4]>(acc[0]);
#pragma unroll
            for (int kp = 0; kp < NPK; kp++) {
                Wg<T, L::HEAD>::rs(acc_h, pa[kp], dv_h + vst + kp * 16 * 128 / 16);
                if constexpr (L::TAIL != 0)
                    Wg<T, L::TAIL>::rs(reinterpret_cast<float (&)[L::TAIL / 8][4]>(acc[L::HEAD / 8]), pa[kp],
                                       dv_t + vst + kp * 16 * L::trb() / 16);
            }
        };
        if constexpr (OVL) {
            if constexpr (has_s) {
                issue_s();
                wg_commit();
            }
            if constexpr (has_pv) {
                issue_pv();
                wg_commit();
            }
        } else {
            if constexpr (has_pv) issue_pv();
            if constexpr (has_s) issue_s();
            wg_commit();
        }
        if constexpr (NWG >= 2)
            if (has_s || wg != NWG - 1) named_arrive(1 + (wg + 1) % NWG);  /* the next warpgroup's turn */
        float alpha[2] = {1.0f, 1.0f};
        if constexpr (has_s) {
            if constexpr (OVL && has_pv) wg_wait1();  /* S(i) done, P(i-1) V(i-1) may still run */
            else wg_wait0();
            reg_fence<NNB>(sc);
            if (lane == 0) mbar_arrive(bar_ke + 8 * s);  /* K(i) released */
            softmax_step<NNB>(sc, m_run, l_run, alpha, a.scale_log2, kbeg + i * BN, kend, lane);
        }
        if constexpr (has_pv) {
            wg_wait0();
            /* acc and P are touched only past this point: the fences order the rescale and
             * the writes of the new P after the wait (pa is an input of the P V in flight) */
            reg_fence<NDB>(acc);
            reg_fence<NNB>(sc);
            if (lane == 0) mbar_arrive(bar_ve + 8 * sp);  /* V(i - 1) released */
        }
        if constexpr (has_s) {
            rescale<NDB>(acc, alpha);
            pack_p<T, NPK>(pa, sc);
        }
    };
    using no = std::false_type;
    using yes = std::true_type;
    turn(no{}, yes{}, 0);
    for (int i = 1; i < n_t; i++) turn(yes{}, yes{}, i);
    turn(yes{}, no{}, n_t);

    write_rows<T, NDB>(a, bw, h, bw_h, split, q0 + (warp >> 2) * 64 + (warp & 3) * 16 + (lane >> 2), acc,
                       m_run, l_run, lane);
#endif
}

template <typename T, int DP, int NWG, int BN>
__global__ void __launch_bounds__(Sm90Tile<DP, NWG, BN>::NT, Sm90Tile<DP, NWG, BN>::CTAS)
attn_wgmma_kernel(const Args a, const __grid_constant__ Tmaps tm) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using G = Sm90Tile<DP, NWG, BN>;
    constexpr int BM = G::BM, ST = G::ST;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const unsigned base = (smem_u32(smem_raw) + 1023u) & ~1023u;  /* swizzle atoms: 1 KB aligned */
    const unsigned sQ = base, sK = sQ + G::Q_BYTES, sV = sK + ST * G::KV_BYTES;
    /* mbarriers (8 bytes each): Q full; then per stage K full, V full, K free, V free */
    const unsigned bar = base + G::BAR_OFF;
    const unsigned bar_kf = bar + 8, bar_vf = bar_kf + 8 * ST, bar_ke = bar_vf + 8 * ST, bar_ve = bar_ke + 8 * ST;

    const int bw_h = blockIdx.x, h = bw_h % a.n_head, bw = bw_h / a.n_head;
    const int q0 = blockIdx.y * BM, split = blockIdx.z;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int kbeg, kend;
    split_range(a, split, &kbeg, &kend);
    const int n_t = (kend - kbeg + BN - 1) / BN;

    if (threadIdx.x == 0) {
        const unsigned n_prod = a.tma ? 1 : 128;  /* producer threads that arrive */
        for (int i = 0; i < 1 + 2 * ST; i++) mbar_init(bar + 8 * i, n_prod);
        for (int i = 1 + 2 * ST; i < 1 + 4 * ST; i++) mbar_init(bar + 8 * i, 4 * NWG);  /* consumer warps */
    }
    __syncthreads();  /* the only CTA-wide barrier */

    if (warp >= 4 * NWG) {
        /* the producer hands most of its registers to the consumers */
        if constexpr (G::REG_P == 56) asm volatile("setmaxnreg.dec.sync.aligned.u32 56;\n" ::: "memory");
        if constexpr (G::REG_P == 48) asm volatile("setmaxnreg.dec.sync.aligned.u32 48;\n" ::: "memory");
        if constexpr (G::REG_P == 32) asm volatile("setmaxnreg.dec.sync.aligned.u32 32;\n" ::: "memory");
        attn_produce<T, DP, NWG, BN>(a, tm, sQ, sK, sV, bar, bar_kf, bar_vf, bar_ke, bar_ve, h, bw, q0, kbeg, n_t,
                                     threadIdx.x - 128 * NWG);
        return;
    }

    attn_consume<T, DP, NWG, BN>(a, sQ, sK, sV, bar, bar_kf, bar_vf, bar_ke, bar_ve, h, bw, bw_h, split, q0, kbeg,
                                 kend, n_t, warp, lane);
#else
    (void)a;
    __trap();  /* never launched: sm90_init found no sm_90a code */
#endif
}

/* cuTensorMapEncodeTiled, from the driver through the runtime (no libcuda link); nullptr: the
 * driver has none, every problem keeps cp.async. */
typedef CUresult (*EncodeTiledFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                  const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
EncodeTiledFn g_encode = nullptr;

/* One (channel, token, head, batch) map with a box of aw channels x rows tokens; false when the
 * driver rejects it (strides TMA cannot express). Strides of single-entry dims do not matter
 * and are replaced by a valid one. */
bool encode_map(CUtensorMap *m, bool half, const void *base, int d, int n, int heads, int batch, int64_t s_t,
                int64_t s_h, int64_t s_b, int aw, int rows) {
    const cuuint64_t dims[4] = {(cuuint64_t)d, (cuuint64_t)n, (cuuint64_t)heads, (cuuint64_t)batch};
    const int64_t packed_h = s_t * n, packed_b = (heads > 1 ? s_h : packed_h) * heads;
    const cuuint64_t strides[3] = {(cuuint64_t)(n > 1 ? s_t : 8) * 2, (cuuint64_t)(heads > 1 ? s_h : packed_h) * 2,
                                   (cuuint64_t)(batch > 1 ? s_b : packed_b) * 2};
    for (int i = 0; i < 3; i++)
        if (strides[i] == 0 || strides[i] % 16 != 0) return false;
    const cuuint32_t box[4] = {(cuuint32_t)aw, (cuuint32_t)rows, 1, 1}, estr[4] = {1, 1, 1, 1};
    const CUtensorMapSwizzle sw = aw == 64 ? CU_TENSOR_MAP_SWIZZLE_128B
                                  : aw == 32 ? CU_TENSOR_MAP_SWIZZLE_64B
                                             : CU_TENSOR_MAP_SWIZZLE_32B;
    return g_encode(m, half ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4,
                    const_cast<void *>(base), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <typename T, int DP, int NWG, int BN>
void launch_inst(const Args &a0, dim3 grid, cudaStream_t stream) {
    using G = Sm90Tile<DP, NWG, BN>;
    constexpr int TAIL = Lay<DP>::TAIL;
    constexpr bool half = std::is_same<T, __half>::value;
    Args a = a0;
    Tmaps tm;
    a.tma = 0;
    if (g_encode && !a.win) {
        const int batch = a.n_problems / a.n_head;
        auto maps = [&](CUtensorMap *mq, CUtensorMap *mk, CUtensorMap *mv, int aw) {
            return encode_map(mq, half, a.q, a.d_qk, a.n_q, a.n_head, batch, a.s_q_t, a.s_q_h, a.s_q_b, aw, G::BM) &&
                   encode_map(mk, half, a.k, a.d_qk, a.n_k, a.n_head, batch, a.s_k_t, a.s_k_h, a.s_k_b, aw, BN) &&
                   encode_map(mv, half, a.v, a.d_v, a.n_k, a.n_head, batch, a.s_v_t, a.s_v_h, a.s_v_b, aw, BN);
        };
        a.tma = maps(&tm.q, &tm.k, &tm.v, 64) && (TAIL == 0 || maps(&tm.qt, &tm.kt, &tm.vt, TAIL));
    }
    if (!a.tma) memset(&tm, 0, sizeof(tm));
    attn_wgmma_kernel<T, DP, NWG, BN><<<grid, G::NT, G::SMEM, stream>>>(a, tm);
}

template <typename T, int DP>
enum samrt_status launch_dp(const Args &a, const samrt_attention_config &c, dim3 grid, cudaStream_t stream) {
    const int nwg = c.block_q / 64;
    if (DP == 256 || c.block_k == 64) {
        if (nwg == 1) launch_inst<T, DP, 1, 64>(a, grid, stream);
        else if (nwg == 2) launch_inst<T, DP, 2, 64>(a, grid, stream);
        else if constexpr (DP == 64) launch_inst<T, DP, 4, 64>(a, grid, stream);
    } else {
        if constexpr (DP != 256) {
            if (nwg == 1) launch_inst<T, DP, 1, 128>(a, grid, stream);
            else launch_inst<T, DP, 2, 128>(a, grid, stream);
        }
    }
    return SAMRT_OK;
}

template <typename T>
enum samrt_status launch_t(const Args &a, const samrt_attention_config &c, dim3 grid, cudaStream_t stream) {
    switch (c.d_pad) {
    case 64: return launch_dp<T, 64>(a, c, grid, stream);
    case 80: return launch_dp<T, 80>(a, c, grid, stream);
    case 96: return launch_dp<T, 96>(a, c, grid, stream);
    case 128: return launch_dp<T, 128>(a, c, grid, stream);
    case 256: return launch_dp<T, 256>(a, c, grid, stream);
    default: return SAMRT_E_UNSUPPORTED;
    }
}

template <typename T, int DP, int NWG, int BN>
cudaError_t set_limit() {
    return cudaFuncSetAttribute(attn_wgmma_kernel<T, DP, NWG, BN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)Sm90Tile<DP, NWG, BN>::SMEM);
}

template <typename T, int DP>
cudaError_t set_limits_dp() {
    cudaError_t e = set_limit<T, DP, 1, 64>();
    if (e == cudaSuccess) e = set_limit<T, DP, 2, 64>();
    if constexpr (DP != 256) {
        if (e == cudaSuccess) e = set_limit<T, DP, 1, 128>();
        if (e == cudaSuccess) e = set_limit<T, DP, 2, 128>();
    }
    if constexpr (DP == 64)
        if (e == cudaSuccess) e = set_limit<T, DP, 4, 64>();
    return e;
}

template <typename T>
cudaError_t set_limits() {
    cudaError_t e = set_limits_dp<T, 64>();
    if (e == cudaSuccess) e = set_limits_dp<T, 80>();
    if (e == cudaSuccess) e = set_limits_dp<T, 96>();
    if (e == cudaSuccess) e = set_limits_dp<T, 128>();
    if (e == cudaSuccess) e = set_limits_dp<T, 256>();
    return e;
}

}  // namespace

namespace samrt_attn {

cudaError_t sm90_init(int *usable) {
    *usable = 0;
    int dev = 0, major = 0, minor = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (e != cudaSuccess || major != 9 || minor != 0) return e;
    /* an sm_90 device may still run this binary from compute_8x PTX: ask the device side */
    int flag = 0;
    e = cudaMemcpyToSymbol(g_sm90_compiled, &flag, sizeof(flag));
    if (e == cudaSuccess) {
        sm90_probe_kernel<<<1, 1>>>();
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyFromSymbol(&flag, g_sm90_compiled, sizeof(flag));
    if (e != cudaSuccess || !flag) return e;
    e = set_limits<__half>();
    if (e == cudaSuccess) e = set_limits<__nv_bfloat16>();
    if (e == cudaSuccess) *usable = 1;
    if (e == cudaSuccess && !g_encode) {
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            g_encode = (EncodeTiledFn)fn;
        (void)cudaGetLastError();  /* a missing entry point is not an error of this op */
    }
    return e;
}

bool sm90_supports(const Args &a, const samrt_attention_config &c) {
    const bool dp_ok = c.d_pad == 64 || c.d_pad == 80 || c.d_pad == 96 || c.d_pad == 128 || c.d_pad == 256;
    const bool bk_ok = c.block_k == 64 || (c.block_k == 128 && c.d_pad != 256);
    return a.vec && dp_ok && bk_ok &&
           (c.block_q == 64 || c.block_q == 128 || (c.block_q == 256 && c.d_pad == 64 && c.block_k == 64));
}

enum samrt_status sm90_launch(const Args &a, const samrt_attention_config &c, bool half, dim3 grid,
                              cudaStream_t stream) {
    return half ? launch_t<__half>(a, c, grid, stream) : launch_t<__nv_bfloat16>(a, c, grid, stream);
}

}  // namespace samrt_attn
