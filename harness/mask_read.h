/* mask_read.h - the SA-V mask reader (eval-spec 1.3): a gray or palette PNG holding one
 * object, binarised to 0/1 into a buffer reused across calls (mask_read.c). sav.h includes
 * it: the SA-V reader's masks, `samrt eval`, the bench and `samrt track --mask` read masks
 * through it. */
#ifndef SAMRT_HARNESS_MASK_READ_H
#define SAMRT_HARNESS_MASK_READ_H

#include <stddef.h>
#include <stdint.h>

#include "image_io.h"
#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reusable buffers for mask loading (file bytes, 16-bit samples); zero-initialise, then
 * free with samrt_mask_reader_free. */
struct samrt_mask_reader {
    uint8_t *file;
    size_t file_cap;
    uint8_t *wide;
    size_t wide_cap;
};

/* Loads a PNG mask with the SA-V rules of eval-spec 1.3: gray (1..16 bit) or palette only
 * (RGB, gray+alpha and RGBA are refused), at most 2 distinct raw values in the image,
 * foreground = value > 0. *mask receives width*height bytes of 0/1 and grows (realloc, like
 * samrt_file_read) only when the mask does not fit in *cap. n_fg (may be NULL) gets the
 * foreground count. Errors name the file. */
enum samrt_status samrt_mask_load(struct samrt_mask_reader *r, const char *path, uint8_t **mask, size_t *cap,
                                  int *width, int *height, long *n_fg);
void samrt_mask_reader_free(struct samrt_mask_reader *r);
/* SAMRT_OK for colour types 0 and 3 only (eval-spec 1.3, rule 1), else SAMRT_E_FORMAT with a
 * message naming path: what the SA-V reader checks from a mask's header alone. */
enum samrt_status samrt_mask_check_type(const char *path, const struct samrt_image_info *info);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_MASK_READ_H */
