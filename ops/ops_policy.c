/* ops_policy.c - the body of ops_policy.h: the backend of the policy kernels, picked with
 * OPS_PICK (ops_impl.h) as ops_runtime.c does for the runtime's other kernels. */
#include "ops_policy.h"

#include "ops_impl.h"

enum samrt_status samrt_op_policy_samurai(int device, const struct samrt_policy_args *a, samrt_stream *s) {
    (void)s;  /* the host form runs at once */
    return OPS_PICK(device ? SAMRT_BACKEND_CUDA : SAMRT_BACKEND_CPU, samrt_policy_samurai_cuda(a, (cudaStream_t)s),
                    samrt_policy_samurai_ref(a));
}

enum samrt_status samrt_op_policy_dam4sam(int device, const struct samrt_policy_dam_args *a, samrt_stream *s) {
    (void)s;
    return OPS_PICK(device ? SAMRT_BACKEND_CUDA : SAMRT_BACKEND_CPU, samrt_policy_dam4sam_cuda(a, (cudaStream_t)s),
                    samrt_policy_dam4sam_ref(a));
}
