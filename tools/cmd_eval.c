/* cmd_eval.c - `samrt eval`: J, F and J&F of predicted masks against SA-V ground truth,
 * matching sav_evaluator.py number for number (see eval.h, docs/evaluation.md).
 *
 * stdout carries exactly what the reference prints (the SKIPPING line, the video list, the
 * table with commas turned to spaces, the summary, the results path), so the two can be
 * diffed; notes the reference does not print (skipped videos) go to stderr. results.csv is
 * written to a temporary name and renamed, and only when every object was scored.
 *
 *   samrt eval --gt sav_val/Annotations_6fps --pred out/preds
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "eval.h"
#include "image_io.h"

static void eval_usage(FILE *f) {
    fprintf(f,
            "usage: samrt eval --gt DIR --pred DIR [--out FILE] [--videos LIST] [-s] [-q]\n"
            "                  [--do_not_skip_first_and_last_frame] [--skip_unevaluable] [-n N]\n\n"
            "Scores <pred>/<video>/<obj>/<frame>.png against <gt>/<video>/<obj>/<frame>.png as SAM 2's\n"
            "sav_evaluator.py does: per object, every GT frame but the first and last, counted from the\n"
            "first frame where GT or prediction is non-empty; J (IoU) and F (boundary F, tolerance\n"
            "0.8%% of the diagonal); objects weigh equally.\n\n"
            "  --gt DIR        Annotations_6fps of the split (or the split folder); alias --gt_root\n"
            "  --pred DIR      predictions, same layout; alias --pred_root\n"
            "  --out FILE      results CSV (default <pred>/results.csv)\n"
            "  --videos LIST   comma-separated videos to score (default: every GT video with predictions)\n"
            "  -s, --strict    GT and prediction must hold the same videos\n"
            "  -q, --quiet     print only where the results go\n"
            "  --do_not_skip_first_and_last_frame   score every GT frame (not the SA-V protocol)\n"
            "  --skip_unevaluable   leave out objects with nothing to score instead of failing\n"
            "  -n, --num_processes N   worker threads (default: CPUs, at most 16)\n\n"
            "exit: 0 scored, 1 --strict found different video sets, 2 bad usage or bad input\n"
            "(missing prediction, bad PNG, size mismatch, object with nothing to score), 3 runtime failure.\n");
}

/* Python's repr() of a str, for the reference's list and set printouts. */
static void py_repr(FILE *f, const char *s) {
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    fputc(q, f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == (unsigned char)q) fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\r') fputs("\\r", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\x%02x", *p);
        else fputc(*p, f);
    }
    fputc(q, f);
}

static void py_list(FILE *f, char **v, int n, char open, char close) {
    fputc(open, f);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        py_repr(f, v[i]);
    }
    fputc(close, f);
}

/* os.path.join(dir, name) for the default results path. */
static void join(char *buf, size_t len, const char *dir, const char *name) {
    size_t n = strlen(dir);
    snprintf(buf, len, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

int samrt_cmd_eval(int argc, char **argv) {
    enum { O_GT = 256, O_PRED, O_OUT, O_VIDEOS, O_KEEP, O_SKIPU };
    static const struct option opts[] = {
        {"gt", required_argument, 0, O_GT},         {"gt_root", required_argument, 0, O_GT},
        {"pred", required_argument, 0, O_PRED},     {"pred_root", required_argument, 0, O_PRED},
        {"out", required_argument, 0, O_OUT},       {"videos", required_argument, 0, O_VIDEOS},
        {"strict", no_argument, 0, 's'},            {"quiet", no_argument, 0, 'q'},
        {"num_processes", required_argument, 0, 'n'}, {"threads", required_argument, 0, 'n'},
        {"do_not_skip_first_and_last_frame", no_argument, 0, O_KEEP},
        {"skip_unevaluable", no_argument, 0, O_SKIPU}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct samrt_eval_opts o = samrt_eval_default_opts();
    const char *out = NULL;
    int quiet = 0, c;
    long v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "sqn:h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': eval_usage(stdout); return SAMRT_EXIT_OK;
        case O_GT: o.gt_root = optarg; break;
        case O_PRED: o.pred_root = optarg; break;
        case O_OUT: out = optarg; break;
        case O_VIDEOS: o.videos = optarg; break;
        case O_KEEP: o.keep_first_last = 1; break;
        case O_SKIPU: o.skip_unevaluable = 1; break;
        case 's': o.strict = 1; break;
        case 'q': quiet = 1; break;
        case 'n':
            if (samrt_parse_int(optarg, 1, 64, &v)) {
                fprintf(stderr, "samrt eval: -n wants 1..64, got '%s'\n", optarg);
                return SAMRT_EXIT_USAGE;
            }
            o.n_threads = (int)v;
            break;
        default: eval_usage(stderr); return SAMRT_EXIT_USAGE;
        }
    }
    if (optind < argc || !o.gt_root || !o.pred_root) {
        fprintf(stderr, "samrt eval: %s\n\n", optind < argc ? "unexpected argument" : "--gt and --pred are required");
        eval_usage(stderr);
        return SAMRT_EXIT_USAGE;
    }
    char out_path[4200];
    if (out) snprintf(out_path, sizeof out_path, "%s", out);
    else join(out_path, sizeof out_path, o.pred_root, "results.csv");

    uint64_t t0 = samrt_cli_now_ns();
    if (!quiet)
        printf(o.keep_first_last
                   ? "We are *NOT SKIPPING* the evaluation of the first and the last frame (*NOT STANDARD* for "
                     "semi-supervised video object segmentation).\n"
                   : "We are *SKIPPING* the evaluation of the first and the last frame (standard for "
                     "semi-supervised video object segmentation).\n");
    fflush(stdout);
    struct samrt_eval_result r;
    enum samrt_status st = samrt_eval_run(&o, &r);
    if (r.strict_failed) {
        if (r.n_gt_only) {
            printf("Videos that are in %s but not in %s: ", r.gt_root, o.pred_root);
            py_list(stdout, r.gt_only, r.n_gt_only, '{', '}');
            printf("\n");
        }
        if (r.n_pred_only) {
            printf("Videos that are in %s but not in %s: ", o.pred_root, r.gt_root);
            py_list(stdout, r.pred_only, r.n_pred_only, '{', '}');
            printf("\n");
        }
        printf("Validation failed. Exiting.\n");
        samrt_eval_result_free(&r);
        return SAMRT_EXIT_PROBLEM;
    }
    if (st != SAMRT_OK) {
        fprintf(stderr, "samrt eval: %s; %s left unchanged\n", samrt_status_str(st), out_path);
        samrt_eval_result_free(&r);
        return samrt_exit_code(st);
    }
    char *csv = NULL;
    st = samrt_eval_csv(&r, &csv);
    if (st == SAMRT_OK && !quiet) {
        printf("In dataset %s, we are evaluating on %d videos: ", r.gt_root, r.n_videos);
        py_list(stdout, r.videos, r.n_videos, '[', ']');
        printf("\n");
        for (char *p = csv; *p; p++) putchar(*p == ',' ? ' ' : *p);
        printf("\nSummary:\n");
        printf("Global score: J&F: %.1f J: %.1f F: %.1f\n", r.jf, r.j, r.f);
        printf("Time taken: %.2fs\n", (double)(samrt_cli_now_ns() - t0) * 1e-9);
    }
    fprintf(stderr, "samrt eval: %d objects in %d videos; %d of %d GT videos had no prediction folder and were "
                    "skipped%s\n", r.n_rows, r.n_videos, r.n_skipped, r.n_gt_videos,
            r.n_unevaluable ? "; some objects were left out (--skip_unevaluable)" : "");
    if (st == SAMRT_OK) {
        printf("Saving the results to %s\n", out_path);
        fflush(stdout);
        st = samrt_file_write(out_path, csv, strlen(csv));
    }
    free(csv);
    samrt_eval_result_free(&r);
    if (st != SAMRT_OK) {
        fprintf(stderr, "samrt eval: cannot write %s: %s\n", out_path, samrt_status_str(st));
        return SAMRT_EXIT_RUNTIME;
    }
    return SAMRT_EXIT_OK;
}
