/* fsutil.h - file-system helpers shared by the SA-V reader (sav.c), the J&F evaluator
 * (eval.c) and the report's thumbnails (thumbs.c): a growable list of names, a folder's
 * entries split into folders and files and sorted with strcmp (what the SA-V tools do), and
 * path joining. mkdir -p and "is a folder" are in util.h. */
#ifndef SAMRT_HARNESS_FSUTIL_H
#define SAMRT_HARNESS_FSUTIL_H

#include "samrt_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_names {
    char **v;
    int n, cap;
};
void samrt_names_free(struct samrt_names *l);
enum samrt_status samrt_names_push(struct samrt_names *l, const char *s);   /* copies s */
/* The entries of dir (names starting with '.' skipped) split into folders (links followed)
 * and everything else, each sorted with strcmp. Either output may be NULL. */
enum samrt_status samrt_list_dir(const char *dir, struct samrt_names *dirs, struct samrt_names *files);

/* "a/b" in a malloc'd string (trailing slashes of a dropped, "/" kept); NULL when out of
 * memory. */
char *samrt_path_join(const char *a, const char *b);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_FSUTIL_H */
