/* copy.cu - CUDA launcher for copy.h. One thread per output element (grid-stride), the
 * output written in order so stores coalesce; reads follow x's strides. A layout change of a
 * large map (NCHW -> NHWC of the patch embed, 6.3M values for tiny) therefore reads with a
 * large stride, which L2 absorbs for these sizes; the op runs once per frame.
 * Tests: the op table (tests/ops_table_*.c, test_ops_table_cuda). */
#include "common.cuh"
#include "copy.h"
#include "samrt_impl.h"

using namespace samrt;

namespace {

constexpr int COPY_THREADS = 256;
constexpr unsigned COPY_MAX_BLOCKS = 65535u * 8u;

template <typename TS, typename TD>
__global__ void copy_kernel(const TS *x, const TD *add, TD *out, int64_t n1, int64_t n2, int64_t n3, int64_t s0,
                            int64_t s1, int64_t s2, int64_t s3, int64_t total) {
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
         o += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i3 = o % n3, r = o / n3, i2 = r % n2, r2 = r / n2, i1 = r2 % n1, i0 = r2 / n1;
        float v = to_f32(x[i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3]);
        if (add) v = to_f32(from_f32<TD>(v)) + to_f32(add[o]);
        out[o] = from_f32<TD>(v);
    }
}

template <typename TS> enum samrt_status copy_src(const struct samrt_copy_args *a, cudaStream_t stream) {
    const int64_t total = a->ne[0] * a->ne[1] * a->ne[2] * a->ne[3];
    const unsigned blocks = ceil_div(SAMRT_MIN(total, (int64_t)COPY_MAX_BLOCKS * COPY_THREADS), COPY_THREADS);
#define COPY_LAUNCH(TD)                                                                                   \
    copy_kernel<TS, TD><<<blocks, COPY_THREADS, 0, stream>>>((const TS *)a->x, (const TD *)a->add, (TD *)a->out, \
                                                             a->ne[1], a->ne[2], a->ne[3], a->s[0], a->s[1], \
                                                             a->s[2], a->s[3], total)
    switch (a->dst_dtype) {
    case SAMRT_DTYPE_F32: COPY_LAUNCH(float); break;
    case SAMRT_DTYPE_F16: COPY_LAUNCH(__half); break;
    case SAMRT_DTYPE_BF16: COPY_LAUNCH(__nv_bfloat16); break;
    default: return SAMRT_E_UNSUPPORTED;
    }
#undef COPY_LAUNCH
    return SAMRT_OK;
}

}  // namespace

extern "C" enum samrt_status samrt_copy_cuda(const struct samrt_copy_args *a, cudaStream_t stream) {
    SAMRT_TRY(samrt_copy_check(a));
    enum samrt_status st;
    switch (a->src_dtype) {
    case SAMRT_DTYPE_F32: st = copy_src<float>(a, stream); break;
    case SAMRT_DTYPE_F16: st = copy_src<__half>(a, stream); break;
    case SAMRT_DTYPE_BF16: st = copy_src<__nv_bfloat16>(a, stream); break;
    default: return SAMRT_E_UNSUPPORTED;
    }
    SAMRT_TRY(st);
    SAMRT_LAUNCH_CHECK();
    return SAMRT_OK;
}
