/* ckpt_report.h - the checkpoint inspection behind `samrt info`, as a harness call so that
 * the program needs neither the checkpoint reader (core/ckpt.h) nor the key tables
 * (models/sam2/keys.h): what a checkpoint holds (format, tensors, value and parameter counts), the
 * model its keys identify, and the tensors holding NaN or Inf. Reads with no Python.
 *
 *   enum samrt_status st = samrt_ckpt_report(stdout, "sam2.1_hiera_tiny.pt", SAMRT_MODEL_SAM2_1_TINY, 1);
 */
#ifndef SAMRT_HARNESS_CKPT_REPORT_H
#define SAMRT_HARNESS_CKPT_REPORT_H

#include <stdio.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prints the report of the checkpoint at path to f: the file, its format and size, the
 * tensor count by dtype, every tensor (dtype, shape, name) unless summary, the count of
 * floating-point values, the model the keys identify (want: the keys must match that model
 * exactly; SAMRT_MODEL_UNKNOWN: whichever they identify, else the closest with its key
 * differences counted) and its parameter count, and a warning when tensors hold NaN or Inf
 * (the reader logs each one). Key differences and read errors go to the log.
 * Returns the reader's status when the file cannot be read or is refused (nothing printed),
 * the key match's status (SAMRT_E_KEYS, SAMRT_E_MODEL_MISMATCH) when want is given and the
 * keys do not match it, else SAMRT_OK (an unrecognised checkpoint without want included). */
enum samrt_status samrt_ckpt_report(FILE *f, const char *path, enum samrt_model_id want, int summary);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_CKPT_REPORT_H */
