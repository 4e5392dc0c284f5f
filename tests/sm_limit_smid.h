/* sm_limit_smid.h - the SM probe of test_sm_limit_cuda: a kernel of many blocks, each block
 * recording the SM it ran on (%smid) and spinning a while so the blocks spread over every SM
 * the stream's context may use; the count of distinct SMs seen is the share the stream has. */
#ifndef SAMRT_TEST_SM_LIMIT_SMID_H
#define SAMRT_TEST_SM_LIMIT_SMID_H

#ifdef __cplusplus
extern "C" {
#endif

/* Launches `blocks` blocks on `stream` (a cudaStream_t) and waits; *distinct gets the number
 * of different SMs they ran on. 0 done, -1 a CUDA call failed (printed). */
int samrt_test_smid_span(void *stream, int blocks, int *distinct);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_TEST_SM_LIMIT_SMID_H */
