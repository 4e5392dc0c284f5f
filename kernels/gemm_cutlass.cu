/* gemm_cutlass.cu - the fused bias + exact-erf GELU Linear of gemm_cutlass.h, from CUTLASS
 * 2.x's device-level GEMM templates. Its CPU reference is the GEMM's own, samrt_gemm_ref
 * (gemm_ref.c), which the op table's fused GELU rows compare it with (gemm_cutlass.h).
 *
 * Row-major Y = X W^T is CUTLASS's "TN" product: A = X row-major (m,k), B = W^T column-major
 * (k,n) with ld = W's row stride (PyTorch's (out,in) weight as it is stored), C and D = Y
 * row-major. C is the bias with row stride 0, so D = gelu(alpha * acc + 1 * b). Every operand
 * is read in 16-byte vectors (8 halves): samrt_gemm_fuses_gelu asks for k, n and the row
 * strides in multiples of 8 and 16-byte aligned pointers, and Gemm::can_implement checks again.
 *
 * The kernel is launched here rather than through device::Gemm::run, which would call
 * cudaFuncSetAttribute on every run: the shared-memory limit is raised once in
 * samrt_gemm_cutlass_plan, and a run only builds the kernel's parameter block on the host and
 * launches on the caller's stream. Four instantiations in all (2 dtypes x 2 tiles): each one
 * is a few seconds of nvcc per architecture. */
#include "common.cuh"
#include "gemm_cutlass.h"

#include <cutlass/bfloat16.h>
#include <cutlass/epilogue/thread/linear_combination_gelu.h>
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/half.h>

namespace {

using RowMajor = cutlass::layout::RowMajor;
using ColumnMajor = cutlass::layout::ColumnMajor;
constexpr int kAlign = 8;  /* elements per 16-byte access of a 16-bit dtype */

template <typename T, int TM, int TN, int WM, int WN>
using FusedGemm = cutlass::gemm::device::Gemm<
    T, RowMajor, T, ColumnMajor, T, RowMajor, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<TM, TN, 32>, cutlass::gemm::GemmShape<WM, WN, 32>, cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombinationGELU<T, kAlign, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, 4, kAlign, kAlign>;

/* The kernel ids of gemm_cutlass.h: dtype and tile. */
enum { K_NONE = 0, K_F16_BIG, K_F16_SMALL, K_BF16_BIG, K_BF16_SMALL };

template <typename G>
typename G::Arguments make_args(const struct samrt_gemm_desc *d, const void *x, const void *w, const void *bias,
                                void *y) {
    using E = typename G::ElementA;
    const cutlass::gemm::GemmCoord problem((int)d->m, (int)d->n, (int)d->k);
    return typename G::Arguments(problem, {static_cast<const E *>(x), RowMajor((int)d->s_x)},
                                 {static_cast<const E *>(w), ColumnMajor((int)d->s_w)},
                                 {static_cast<const E *>(bias), RowMajor(0)},  /* every row: the same bias */
                                 {static_cast<E *>(y), RowMajor((int)d->s_y)},
                                 typename G::EpilogueOutputOp::Params(d->alpha, 1.0f));
}

/* CUTLASS's own check on 16-byte aligned stand-in pointers, then the shared-memory limit. */
template <typename G> bool prepare(const struct samrt_gemm_desc *d) {
    const void *stand_in = reinterpret_cast<const void *>(static_cast<uintptr_t>(256));
    if (G::can_implement(make_args<G>(d, stand_in, stand_in, stand_in, const_cast<void *>(stand_in))) !=
        cutlass::Status::kSuccess)
        return false;
    using K = typename G::GemmKernel;
    const int smem = (int)sizeof(typename K::SharedStorage);
    return smem < (48 << 10) ||
           cudaFuncSetAttribute(cutlass::Kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) == cudaSuccess;
}

template <typename G>
enum samrt_status run(const struct samrt_gemm_desc *d, const void *x, const void *w, const void *bias, void *y,
                      cudaStream_t stream) {
    using K = typename G::GemmKernel;
    using Tb = typename G::ThreadblockShape;
    const typename G::Arguments a = make_args<G>(d, x, w, bias, y);
    typename G::ThreadblockSwizzle swizzle;
    const cutlass::gemm::GemmCoord tiles = swizzle.get_tiled_shape(a.problem_size, {Tb::kM, Tb::kN, Tb::kK}, 1);
    const typename K::Params params(a.problem_size, tiles, a.ref_A.non_const_ref(), a.ref_B.non_const_ref(),
                                    a.ref_C.non_const_ref(), a.ref_D, a.epilogue);
    const int smem = (int)sizeof(typename K::SharedStorage);
    cutlass::Kernel<K><<<swizzle.get_grid_shape(tiles), K::kThreadCount, smem, stream>>>(params);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}

using F16Big = FusedGemm<cutlass::half_t, 128, 128, 64, 64>;
using F16Small = FusedGemm<cutlass::half_t, 64, 64, 32, 32>;
using Bf16Big = FusedGemm<cutlass::bfloat16_t, 128, 128, 64, 64>;
using Bf16Small = FusedGemm<cutlass::bfloat16_t, 64, 64, 32, 32>;

}  // namespace

extern "C" int samrt_gemm_cutlass_plan(const struct samrt_gemm_desc *d, int cc_major, int sm_count) {
    if (!samrt_gemm_fuses_gelu(d) || cc_major < 8) return K_NONE;
    /* the big tile once its tiles fill every SM twice; below that the small one spreads the work */
    const long long big_tiles = ((d->m + 127) / 128) * ((d->n + 127) / 128);
    const int big = big_tiles >= 2LL * (sm_count > 0 ? sm_count : 1);
    const int f16 = d->dt_in == SAMRT_DTYPE_F16;
    const int id = f16 ? (big ? K_F16_BIG : K_F16_SMALL) : (big ? K_BF16_BIG : K_BF16_SMALL);
    bool ok = false;
    switch (id) {
    case K_F16_BIG: ok = prepare<F16Big>(d); break;
    case K_F16_SMALL: ok = prepare<F16Small>(d); break;
    case K_BF16_BIG: ok = prepare<Bf16Big>(d); break;
    default: ok = prepare<Bf16Small>(d); break;
    }
    return ok ? id : K_NONE;
}

extern "C" enum samrt_status samrt_gemm_cutlass_run(int id, const struct samrt_gemm_desc *d, const void *x,
                                                    const void *w, const void *bias, void *y, cudaStream_t stream) {
    switch (id) {
    case K_F16_BIG: return run<F16Big>(d, x, w, bias, y, stream);
    case K_F16_SMALL: return run<F16Small>(d, x, w, bias, y, stream);
    case K_BF16_BIG: return run<Bf16Big>(d, x, w, bias, y, stream);
    case K_BF16_SMALL: return run<Bf16Small>(d, x, w, bias, y, stream);
    default: return SAMRT_E_INVALID_ARG;
    }
}
