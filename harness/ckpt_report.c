/* ckpt_report.c - the body of ckpt_report.h: opens the checkpoint with the core reader,
 * prints what it holds, and matches its keys against the models' key tables (keys.h), so
 * that `samrt info` is argument parsing and this one call. Where several models share a key
 * layout (EfficientTAM's Ti variants, its S variants) a "variant" line says which one the
 * checkpoint is taken as and why (--model, else the official file name). */
#include "ckpt_report.h"

#include <inttypes.h>

#include "ckpt.h"
#include "keys.h"

/* 38962498 -> "38,962,498" */
static const char *thousands(uint64_t v, char *buf, size_t len) {
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v), w = 0;
    for (int i = 0; i < n && w + 2 < (int)len; i++) {
        if (i > 0 && (n - i) % 3 == 0) buf[w++] = ',';
        buf[w++] = digits[i];
    }
    buf[w] = 0;
    return buf;
}

static const char *shape(const struct samrt_ckpt_tensor *t, char *buf, size_t len) {
    size_t w = (size_t)snprintf(buf, len, "(");
    for (int d = 0; d < t->n_dims && w < len; d++)
        w += (size_t)snprintf(buf + w, len - w, "%s%" PRId64, d ? "," : "", t->ne[d]);
    if (w < len) snprintf(buf + w, len - w, ")");
    return buf;
}

/* The file, format, tensors by dtype, every tensor unless summary, and the value count. */
static void print_contents(FILE *f, const char *path, const struct samrt_ckpt *ck, int summary) {
    char a[64];
    int n_by_dtype[SAMRT_DTYPE_COUNT] = {0};
    for (int k = 0; k < ck->n_tensors; k++) n_by_dtype[ck->tensors[k].dtype]++;
    fprintf(f, "file        %s\n", path);
    fprintf(f, "format      %s, %s bytes\n", samrt_ckpt_format_name(ck->format), thousands(ck->size, a, sizeof a));
    fprintf(f, "tensors     %d (", ck->n_tensors);
    for (int d = 0, first = 1; d < SAMRT_DTYPE_COUNT; d++)
        if (n_by_dtype[d])
            fprintf(f, "%s%d %s", first ? "" : ", ", n_by_dtype[d], samrt_dtype_name((enum samrt_dtype)d)), first = 0;
    fprintf(f, ")\n");
    if (!summary) {
        fprintf(f, "  %-5s %-20s %s\n", "dtype", "shape", "name");
        for (int k = 0; k < ck->n_tensors; k++) {
            const struct samrt_ckpt_tensor *t = &ck->tensors[k];
            fprintf(f, "  %-5s %-20s %s\n", samrt_dtype_name(t->dtype), shape(t, a, sizeof a), t->name);
        }
    }
    fprintf(f, "values      %s floating-point (buffers included)\n",
            thousands(samrt_ckpt_param_count(ck), a, sizeof a));
}

/* The model line(s); returns the key match's status (SAMRT_E_KEYS when nothing matched). */
static enum samrt_status print_model(FILE *f, const char *path, const struct samrt_ckpt *ck, enum samrt_model_id want) {
    char b[64];
    /* Without want, an unknown key set gets a one-line hint instead of the full diff. */
    enum samrt_model_id found = want != SAMRT_MODEL_UNKNOWN ? want : samrt_keys_identify(ck->tensors, ck->n_tensors);
    enum samrt_status st = SAMRT_E_KEYS;
    if (found != SAMRT_MODEL_UNKNOWN) st = samrt_keys_match(want, ck->tensors, ck->n_tensors, &found);
    if (st == SAMRT_OK) {
        /* EfficientTAM's variants share their weights' layout: the request or the file name decides */
        char why[384];
        found = samrt_keys_variant(found, want, path, why, sizeof why);
        struct samrt_keys keys;
        samrt_keys_init(found, &keys);
        fprintf(f, "model       %s (all %d keys and shapes match)\n", samrt_model_name(found), ck->n_tensors);
        if (why[0]) fprintf(f, "variant     %s\n", why);
        fprintf(f, "parameters  %s\n", thousands(samrt_keys_param_count(&keys), b, sizeof b));
        samrt_keys_free(&keys);
    } else if (found != SAMRT_MODEL_UNKNOWN) {
        fprintf(f, "model       %s by its key names, but %s\n", samrt_model_name(found),
                st == SAMRT_E_MODEL_MISMATCH ? "another model was requested" : "some shapes differ (see above)");
    } else {
        struct samrt_keys_diff d;
        enum samrt_model_id near = samrt_keys_closest(ck->tensors, ck->n_tensors, &d);
        fprintf(f, "model       not recognised%s", want != SAMRT_MODEL_UNKNOWN ? " (see the key differences above)\n" : "");
        if (want == SAMRT_MODEL_UNKNOWN)
            fprintf(f, "; closest is %s (%d keys missing, %d unexpected; --model %s lists them)\n",
                    samrt_model_name(near), d.n_missing, d.n_unexpected, samrt_model_name(near));
    }
    return st;
}

enum samrt_status samrt_ckpt_report(FILE *f, const char *path, enum samrt_model_id want, int summary) {
    SAMRT_CHECK(f && path, SAMRT_E_INVALID_ARG, "ckpt_report: NULL argument");
    struct samrt_ckpt ck;
    enum samrt_status st = samrt_ckpt_open(path, &ck);
    if (st != SAMRT_OK) return st;
    print_contents(f, path, &ck, summary);
    fflush(f);  /* the NaN / Inf warnings and the key differences are logged to stderr */

    const int n_bad = samrt_ckpt_check_finite(&ck);
    st = print_model(f, path, &ck, want);
    if (n_bad) fprintf(f, "warning     %d tensor%s hold NaN or Inf (listed above)\n", n_bad, n_bad == 1 ? "" : "s");
    samrt_ckpt_close(&ck);
    return want != SAMRT_MODEL_UNKNOWN ? st : SAMRT_OK;
}
