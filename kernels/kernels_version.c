/* kernels_version.c - reports which kernel backends this build holds (the CPU references
 * always; CUDA when built with SAMRT_CUDA). Also keeps the object library non-empty. */
#include "samrt_impl.h"

int samrt_kernels_have_cuda(void);
int samrt_kernels_have_cuda(void) {
#ifdef SAMRT_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}
