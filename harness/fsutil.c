/* fsutil.c - the file-system helpers of the harness (fsutil.h): a folder's entries split
 * into folders and files, sorted the way the SA-V tools sort them, and path joining. The SA-V
 * reader, the J&F evaluator (eval.c) and the report's thumbnails (thumbs.c) list folders
 * through them. */
#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

char *samrt_path_join(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    while (na > 1 && a[na - 1] == '/') na--;
    char *p = (char *)malloc(na + nb + 2);
    if (!p) return NULL;
    memcpy(p, a, na);
    p[na] = '/';
    memcpy(p + na + 1, b, nb + 1);
    return p;
}

void samrt_names_free(struct samrt_names *l) {
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

enum samrt_status samrt_names_push(struct samrt_names *l, const char *s) {
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        char **nv = (char **)realloc(l->v, (size_t)cap * sizeof *nv);
        SAMRT_CHECK(nv, SAMRT_E_HOST_MEMORY, "out of memory listing files");
        l->v = nv;
        l->cap = cap;
    }
    l->v[l->n] = strdup(s);
    SAMRT_CHECK(l->v[l->n], SAMRT_E_HOST_MEMORY, "out of memory listing files");
    l->n++;
    return SAMRT_OK;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

enum samrt_status samrt_list_dir(const char *dir, struct samrt_names *dirs, struct samrt_names *files) {
    DIR *d = opendir(dir);
    SAMRT_CHECK(d, SAMRT_E_IO, "cannot list %s: %s", dir, strerror(errno));
    enum samrt_status st = SAMRT_OK;
    struct dirent *e;
    while (st == SAMRT_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char *p = samrt_path_join(dir, e->d_name);
        if (!p) {
            st = SAMRT_E_HOST_MEMORY;
            break;
        }
        struct samrt_names *into = samrt_is_dir(p) ? dirs : files;
        free(p);
        if (into) st = samrt_names_push(into, e->d_name);
    }
    closedir(d);
    if (st != SAMRT_OK) {
        if (dirs) samrt_names_free(dirs);
        if (files) samrt_names_free(files);
        return st;
    }
    if (dirs && dirs->n) qsort(dirs->v, (size_t)dirs->n, sizeof *dirs->v, cmp_str);
    if (files && files->n) qsort(files->v, (size_t)files->n, sizeof *files->v, cmp_str);
    return st;
}
