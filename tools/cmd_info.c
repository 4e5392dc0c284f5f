/* cmd_info.c - `samrt info CKPT`: what a checkpoint holds, read with no Python. Prints the
 * format, every tensor (dtype, shape, name; --summary prints counts only), the value and
 * parameter counts, and the model the keys identify; warns per tensor holding NaN/Inf.
 * With --model NAME the keys must match that model exactly (exit 2 otherwise, with the
 * missing, unexpected and mis-shaped keys listed). Example:
 *   samrt info sam2.1_hiera_tiny.pt --model sam2.1_tiny --summary */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ckpt.h"
#include "cli.h"
#include "keys.h"

static void usage(FILE *f) {
    fprintf(f, "usage: samrt info CKPT [--model NAME] [--summary | --all]\n\n"
               "Lists what a checkpoint (torch.save zip or safetensors) holds: format, tensors (dtype,\n"
               "shape, name), value and parameter counts, and the model its keys identify.\n"
               "Warns about tensors holding NaN or Inf (the checkpoint still loads).\n\n"
               "  --model NAME  require the keys of this model: sam2.1_tiny, sam2.1_small,\n"
               "                sam2.1_base_plus, sam2.1_large, edgetam, sam2_tiny, sam2_small,\n"
               "                sam2_base_plus, sam2_large\n"
               "  --summary     counts only, no per-tensor lines\n"
               "  --all         list every tensor (the default)\n"
               "exit: 0 read (and matched --model), 2 unreadable, refused, or not the --model given\n");
}

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

int samrt_cmd_info(int argc, char **argv) {
    static const struct option opts[] = {{"model", required_argument, 0, 'm'}, {"summary", no_argument, 0, 's'},
                                         {"all", no_argument, 0, 'a'},        {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    enum samrt_model_id want = SAMRT_MODEL_UNKNOWN;
    int summary = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "m:sah", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (samrt_model_parse(optarg, &want) != SAMRT_OK) {
                fprintf(stderr, "samrt info: unknown model '%s'\n\n", optarg);
                usage(stderr);
                return SAMRT_EXIT_USAGE;
            }
            break;
        case 's': summary = 1; break;
        case 'a': summary = 0; break;
        case 'h': usage(stdout); return SAMRT_EXIT_OK;
        default: usage(stderr); return SAMRT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return SAMRT_EXIT_USAGE;
    }
    const char *path = argv[optind];
    struct samrt_ckpt ck;
    enum samrt_status st = samrt_ckpt_open(path, &ck);
    if (st != SAMRT_OK) return samrt_exit_code(st);

    char a[64], b[64];
    int n_by_dtype[SAMRT_DTYPE_COUNT] = {0};
    for (int k = 0; k < ck.n_tensors; k++) n_by_dtype[ck.tensors[k].dtype]++;
    printf("file        %s\n", path);
    printf("format      %s, %s bytes\n", samrt_ckpt_format_name(ck.format), thousands(ck.size, a, sizeof a));
    printf("tensors     %d (", ck.n_tensors);
    for (int d = 0, first = 1; d < SAMRT_DTYPE_COUNT; d++)
        if (n_by_dtype[d]) printf("%s%d %s", first ? "" : ", ", n_by_dtype[d], samrt_dtype_name((enum samrt_dtype)d)), first = 0;
    printf(")\n");
    if (!summary) {
        printf("  %-5s %-20s %s\n", "dtype", "shape", "name");
        for (int k = 0; k < ck.n_tensors; k++) {
            const struct samrt_ckpt_tensor *t = &ck.tensors[k];
            printf("  %-5s %-20s %s\n", samrt_dtype_name(t->dtype), shape(t, a, sizeof a), t->name);
        }
    }
    printf("values      %s floating-point (buffers included)\n", thousands(samrt_ckpt_param_count(&ck), a, sizeof a));
    fflush(stdout);

    int n_bad = samrt_ckpt_check_finite(&ck);
    /* Without --model, an unknown key set gets a one-line hint instead of the full diff. */
    enum samrt_model_id found = want != SAMRT_MODEL_UNKNOWN ? want : samrt_keys_identify(ck.tensors, ck.n_tensors);
    st = SAMRT_E_KEYS;
    if (found != SAMRT_MODEL_UNKNOWN) st = samrt_keys_match(want, ck.tensors, ck.n_tensors, &found);
    if (st == SAMRT_OK) {
        struct samrt_keys keys;
        samrt_keys_init(found, &keys);
        printf("model       %s (all %d keys and shapes match)\n", samrt_model_name(found), ck.n_tensors);
        printf("parameters  %s\n", thousands(samrt_keys_param_count(&keys), b, sizeof b));
        samrt_keys_free(&keys);
    } else if (found != SAMRT_MODEL_UNKNOWN) {
        printf("model       %s by its key names, but %s\n", samrt_model_name(found),
               st == SAMRT_E_MODEL_MISMATCH ? "another model was requested" : "some shapes differ (see above)");
    } else {
        struct samrt_keys_diff d;
        enum samrt_model_id near = samrt_keys_closest(ck.tensors, ck.n_tensors, &d);
        printf("model       not recognised%s", want != SAMRT_MODEL_UNKNOWN ? " (see the key differences above)\n" : "");
        if (want == SAMRT_MODEL_UNKNOWN)
            printf("; closest is %s (%d keys missing, %d unexpected; --model %s lists them)\n",
                   samrt_model_name(near), d.n_missing, d.n_unexpected, samrt_model_name(near));
    }
    if (n_bad) printf("warning     %d tensor%s hold NaN or Inf (listed above)\n", n_bad, n_bad == 1 ? "" : "s");
    samrt_ckpt_close(&ck);
    if (want != SAMRT_MODEL_UNKNOWN && st != SAMRT_OK) return samrt_exit_code(st);
    return SAMRT_EXIT_OK;
}
