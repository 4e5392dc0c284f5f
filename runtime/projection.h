/* projection.h - the rates at which the runtime projects a frame's time on a platform profile
 * (samrt budget's projected_ms, samrt_internal_frame_cost): every op costs the larger of its
 * FLOPs over the compute rate and its planned bytes over the byte rate, plus a per-launch cost.
 *
 *   compute rate = the profile's dense fp16 tensor peak x FLOP_EFF
 *   byte rate    = min(the profile's DRAM bandwidth, SMs x clock x SM_BYTES_PER_CLOCK) x BYTE_EFF
 *   per launch   = the profile's launch_us (kernels and copies alike)
 *
 * The constants were fitted on an H200 (sm_90a build, fp16, 1280x720, 1 object) to the measured
 * stages of EdgeTAM and SAM 2.1 tiny at the whole GPU and at SM shares of 16 and 8 (green
 * contexts): the planned bytes assume no cache, so BYTE_EFF absorbs the cache's help as much as
 * the DRAM's efficiency, and a share of N SMs moves bytes at about N x 20 bytes per clock.
 * docs/jetson.md gives the fit, its error on held-out runs and what it assumes of an Orin. */
#ifndef SAMRT_RUNTIME_PROJECTION_H
#define SAMRT_RUNTIME_PROJECTION_H

#include "samrt.h"

#define SAMRT_PROJ_FLOP_EFF 1.0
#define SAMRT_PROJ_BYTE_EFF 0.3
#define SAMRT_PROJ_SM_BYTES_PER_CLOCK 20.2  /* 40 GB/s per SM at 1.98 GHz */

/* The rates of profile p (0, 0, 0 for one without peaks: the cpu profile). */
static inline void samrt_projection_rates(const struct samrt_platform_profile *p, double *flops_s, double *bytes_s,
                                          double *launch_s) {
    *flops_s = p->fp16_tflops * 1e12 * SAMRT_PROJ_FLOP_EFF;
    const double sm_bw = (double)p->sm_count * p->clock_mhz * 1e6 * SAMRT_PROJ_SM_BYTES_PER_CLOCK;
    const double dram = p->dram_gbps * 1e9;
    *bytes_s = (sm_bw < dram ? sm_bw : dram) * SAMRT_PROJ_BYTE_EFF;
    *launch_s = p->launch_us * 1e-6;
}

#endif /* SAMRT_RUNTIME_PROJECTION_H */
