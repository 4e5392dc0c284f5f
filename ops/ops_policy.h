/* ops_policy.h - the op layer's entry for the tracker's memory-selection policies
 * (kernels/sam2/policy.h and policy_dam.h, re-exported here so runtime/ includes no kernels/
 * header): SAMURAI's per-object boxes, Kalman decision and chosen mask, DAM4SAM's per-object
 * DRM decision, on the device for device memory, the C reference for host memory. Enqueues only (safe inside graph capture), allocates nothing. */
#ifndef SAMRT_OPS_POLICY_H
#define SAMRT_OPS_POLICY_H

#include "policy.h"
#include "policy_dam.h"
#include "stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* device 1: the kernels on s; 0: the reference, at once. */
enum samrt_status samrt_op_policy_samurai(int device, const struct samrt_policy_args *a, samrt_stream *s);
enum samrt_status samrt_op_policy_dam4sam(int device, const struct samrt_policy_dam_args *a, samrt_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_OPS_POLICY_H */
