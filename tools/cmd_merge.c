/* cmd_merge.c - `samrt merge DIR_OR_CSV... -o merged.csv`: joins profile_summary.csv files
 * from several machines or job-array shards into one CSV.
 *
 * A directory argument is searched (4 levels deep, sorted) for files named
 * profile_summary.csv, so collected experiment folders can be passed as they are. Older
 * files without platform / hostname / timestamp columns get them (platform and hostname
 * first, timestamp last, the layout samrt writes), and empty cells in those columns are
 * filled, from the nearest experiment_config.txt (keys platform, hostname, timestamp), else
 * from a folder named nsight_experiment_<platform>_<YYYYMMDD>_<HHMMSS>, else (timestamp
 * only) the file's modification time. After that every file must have exactly the first
 * file's columns in the same order, the sweep's aside: a mismatch is refused, naming the file
 * and the first differing column, before anything is written. Sweep files (`samrt bench
 * --objects`, `--streams`) join ordinary ones: when some input has the sweep's columns the
 * output ends with all of them (harness/report_sweep.h), empty in the rows that are not sweep
 * rows (and the streams group empty in sweep files written before it); a sweep file missing
 * one of them is refused, naming the file and the column. Cells are copied as text, so
 * nothing is reformatted and empty (absent) cells stay empty.
 *
 * Exit: 0 written, 2 bad usage or input (nothing written), 3 the output could not be
 * written (a previous output file is left as it was). Run: samrt merge a/ b/ -o all.csv */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "cli.h"
#include "csv.h"
#include "profile.h"
#include "report_sweep.h"

#define MAX_DEPTH 4

struct input {
    char path[PATH_MAX];
    struct samrt_csv csv;
    int add_platform, add_hostname, add_timestamp;  /* columns missing from the file */
    char platform[64], hostname[256], timestamp[32];  /* fill-ins */
    const char **hdr;   /* (n_hdr) the header as it will be written, sweep columns included */
    size_t *core;       /* (n_core) positions in hdr of the columns that are not the sweep's */
    size_t n_hdr, n_core;
    int sweep;          /* the file has the sweep's columns */
    int *src;           /* per output column, the file's column (-1: empty or filled in) */
};

struct inputs {
    struct input *v;
    size_t n, cap;
};

static int inputs_add(struct inputs *in, const char *path) {
    char real[PATH_MAX];
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    for (size_t i = 0; i < in->n; i++)
        if (!strcmp(in->v[i].path, real)) {
            fprintf(stderr, "samrt merge: %s given twice; using it once\n", path);
            return 0;
        }
    if (in->n == in->cap) {
        size_t cap = in->cap ? in->cap * 2 : 16;
        struct input *v = realloc(in->v, cap * sizeof *v);
        if (!v) return -1;
        in->v = v;
        in->cap = cap;
    }
    memset(&in->v[in->n], 0, sizeof in->v[in->n]);
    snprintf(in->v[in->n].path, sizeof in->v[in->n].path, "%s", real);
    in->n++;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Adds every profile_summary.csv under dir, in sorted order; returns how many, -1 on OOM. */
static int find_csvs(const char *dir, int depth, struct inputs *in) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) break;
            names = p;
        }
        if (n < cap && (names[n] = strdup(e->d_name))) n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        char p[PATH_MAX];
        struct stat sb;
        int len = snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (len > 0 && (size_t)len < sizeof p && stat(p, &sb) == 0) {
            if (S_ISREG(sb.st_mode) && !strcmp(names[i], "profile_summary.csv")) {
                if (inputs_add(in, p)) found = -1;
                else if (found >= 0) found++;
            } else if (S_ISDIR(sb.st_mode) && depth < MAX_DEPTH && found >= 0) {
                int sub = find_csvs(p, depth + 1, in);
                found = sub < 0 ? -1 : found + sub;
            }
        }
        free(names[i]);
    }
    free(names);
    return found;
}

/* Parses "nsight_experiment_<platform>_<YYYYMMDD>_<HHMMSS>" (the old scripts' folders). */
static int parse_experiment_dir(const char *name, char *plat, size_t plat_len, char *ts, size_t ts_len) {
    static const char pre[] = "nsight_experiment_";
    size_t n = strlen(name), lp = sizeof pre - 1;
    if (strncmp(name, pre, lp) || n < lp + 1 + 16) return 0;
    const char *date = name + n - 15;  /* YYYYMMDD_HHMMSS */
    for (int i = 0; i < 15; i++)
        if (i == 8 ? date[i] != '_' : (date[i] < '0' || date[i] > '9')) return 0;
    if (date[-1] != '_') return 0;
    snprintf(plat, plat_len, "%.*s", (int)(date - 1 - (name + lp)), name + lp);
    snprintf(ts, ts_len, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s", date, date + 4, date + 6, date + 9,
             date + 11, date + 13);
    return plat[0] != '\0';
}

/* Fill-in values for one file: config beside it or one level up, then folder names, then
 * (timestamp) the file's mtime. */
static void find_defaults(struct input *in) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", in->path);
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash) break;
        *slash = '\0';
        char cfg[PATH_MAX + 32];
        snprintf(cfg, sizeof cfg, "%s/experiment_config.txt", dir[0] ? dir : "/");
        if (!in->platform[0]) samrt_profile_config_get(cfg, "platform", in->platform, sizeof in->platform);
        if (!in->hostname[0]) samrt_profile_config_get(cfg, "hostname", in->hostname, sizeof in->hostname);
        if (!in->timestamp[0]) samrt_profile_config_get(cfg, "timestamp", in->timestamp, sizeof in->timestamp);
        char plat[64], ts[32];
        const char *base = strrchr(dir, '/');
        if (parse_experiment_dir(base ? base + 1 : dir, plat, sizeof plat, ts, sizeof ts)) {
            if (!in->platform[0]) snprintf(in->platform, sizeof in->platform, "%s", plat);
            if (!in->timestamp[0]) snprintf(in->timestamp, sizeof in->timestamp, "%s", ts);
        }
    }
    struct stat sb;
    if (!in->timestamp[0] && stat(in->path, &sb) == 0)
        samrt_profile_timestamp((int64_t)sb.st_mtime, in->timestamp, sizeof in->timestamp);
}

/* The header as it will be written: missing platform/hostname first, timestamp last. */
static size_t out_header(const struct input *in, const char **out, size_t cap) {
    size_t k = 0;
    const struct samrt_csv *t = &in->csv;
    if (in->add_platform && k < cap) out[k++] = "platform";
    if (in->add_hostname && k < cap) out[k++] = "hostname";
    for (size_t c = 0; c < t->n_fields[0] && k < cap; c++) out[k++] = t->fields[0][c];
    if (in->add_timestamp && k < cap) out[k++] = "timestamp";
    return k;
}

/* The inputs named on the command line (argv[first..]): files as given, folders searched.
 * -1 when every one was found, else the exit code (the error printed). */
static int collect_inputs(int first, int argc, char **argv, struct inputs *in) {
    for (int i = first; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "samrt merge: %s: no such file or directory\n", argv[i]);
            return SAMRT_EXIT_USAGE;
        }
        int found = S_ISDIR(sb.st_mode) ? find_csvs(argv[i], 1, in) : (inputs_add(in, argv[i]) ? -1 : 1);
        if (found < 0) {
            fprintf(stderr, "samrt merge: out of memory\n");
            return SAMRT_EXIT_RUNTIME;
        }
        if (found == 0 && S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "samrt merge: %s: no profile_summary.csv found (searched %d levels)\n",
                    argv[i], MAX_DEPTH);
            return SAMRT_EXIT_USAGE;
        }
    }
    return -1;
}

/* 1 when name is one of the sweep's columns (config ... total_arena_bytes). */
static int is_sweep_col(const char *name) {
    size_t n;
    const struct samrt_profile_col *cols = samrt_report_sweep_columns(&n, NULL);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(cols[i].name, name)) return 1;
    return 0;
}

/* Reads one input and checks it alone: a readable table, and a sweep file with every sweep
 * column. Builds its header as it will be written (p->hdr) and its other columns (p->core,
 * positions in p->hdr). 1 when fine, 0 otherwise (the error printed). */
static int read_input(struct input *p) {
    char err[256];
    if (samrt_csv_read_table(p->path, &p->csv, err, sizeof err) != SAMRT_OK) {
        fprintf(stderr, "samrt merge: %s: %s\n", p->path, err);
        return 0;
    }
    const char *missing = samrt_report_sweep_missing(&p->csv, 1);
    if (missing) {
        fprintf(stderr, "samrt merge: %s: a sweep CSV (samrt bench --objects, --streams) without its column '%s'; "
                        "nothing written\n", p->path, missing);
        return 0;
    }
    p->add_platform = samrt_csv_col(&p->csv, "platform") < 0;
    p->add_hostname = samrt_csv_col(&p->csv, "hostname") < 0;
    p->add_timestamp = samrt_csv_col(&p->csv, "timestamp") < 0;
    find_defaults(p);
    size_t cap = p->csv.n_fields[0] + 3;
    p->hdr = malloc(cap * sizeof *p->hdr);
    p->core = malloc(cap * sizeof *p->core);
    if (!p->hdr || !p->core) return 0;
    p->n_hdr = out_header(p, p->hdr, cap);
    for (size_t k = 0; k < p->n_hdr; k++)
        if (is_sweep_col(p->hdr[k])) p->sweep = 1;
        else p->core[p->n_core++] = k;
    return 1;
}

/* Reads and checks every input before anything is written: each must give the columns of the
 * first, the sweep's columns aside (a sweep file joins ordinary ones: the output has the sweep
 * columns when some input has them, empty in the rows of the others). *ref gets the output
 * header (n_ref entries, the caller frees *ref), each input its source column per output
 * column (p->src, -1: empty or filled in), *total the data rows. 1 when all agree, 0
 * otherwise (the error printed). */
static int read_inputs(struct inputs *in, const char ***ref, size_t *n_ref, size_t *total) {
    int any_sweep = 0;
    for (size_t i = 0; i < in->n; i++) {
        struct input *p = &in->v[i], *first = &in->v[0];
        if (!read_input(p)) return 0;
        any_sweep |= p->sweep;
        size_t k = 0;
        while (k < p->n_core && k < first->n_core && !strcmp(p->hdr[p->core[k]], first->hdr[first->core[k]])) k++;
        if (k < p->n_core || k < first->n_core) {
            fprintf(stderr,
                    "samrt merge: %s: columns differ from %s: column %zu is '%s' where the first "
                    "file has '%s' (%zu vs %zu columns); nothing written\n",
                    p->path, first->path, k + 1, k < p->n_core ? p->hdr[p->core[k]] : "(none)",
                    k < first->n_core ? first->hdr[first->core[k]] : "(none)", p->n_core, first->n_core);
            return 0;
        }
        *total += p->csv.n_rows - 1;
    }
    size_t n_sweep;
    const struct samrt_profile_col *sweep = samrt_report_sweep_columns(&n_sweep, NULL);
    const struct input *first = &in->v[0];
    *n_ref = first->n_core + (any_sweep ? n_sweep : 0);
    if (!(*ref = malloc(*n_ref * sizeof **ref))) return 0;
    for (size_t k = 0; k < *n_ref; k++) (*ref)[k] = k < first->n_core ? first->hdr[first->core[k]] : sweep[k - first->n_core].name;
    for (size_t i = 0; i < in->n; i++) {
        struct input *p = &in->v[i];
        const size_t lead = (size_t)p->add_platform + (size_t)p->add_hostname;
        if (!(p->src = malloc(*n_ref * sizeof *p->src))) return 0;
        for (size_t k = 0; k < *n_ref; k++) {
            const size_t at = k < p->n_core ? p->core[k] : SIZE_MAX;  /* position in p->hdr */
            p->src[k] = at == SIZE_MAX ? samrt_csv_col(&p->csv, (*ref)[k])
                        : at >= lead && at - lead < p->csv.n_fields[0] ? (int)(at - lead) : -1;
        }
    }
    return 1;
}

/* Rows per platform of the written file, in order of first appearance. */
static void print_platform_counts(const char *out_path, int c_plat) {
    printf("\nEntries by platform:\n");
    /* platform counts in order of first appearance, straight from the written cells */
    struct samrt_csv merged;
    char err[256];
    if (samrt_csv_read_file(out_path, &merged, err, sizeof err) != SAMRT_OK) return;
    for (size_t r = 1; r < merged.n_rows; r++) {
        const char *pl = samrt_csv_cell(&merged, r, c_plat);
        size_t seen = 1, count = 0;
        while (seen < r && strcmp(samrt_csv_cell(&merged, seen, c_plat), pl)) seen++;
        if (seen < r) continue;
        for (size_t s = r; s < merged.n_rows; s++) count += !strcmp(samrt_csv_cell(&merged, s, c_plat), pl);
        printf("  %s: %zu\n", pl[0] ? pl : "(empty)", count);
    }
    samrt_csv_free(&merged);
}

static void usage(FILE *f) {
    fprintf(f, "usage: samrt merge DIR_OR_CSV... -o merged.csv\n\n"
               "Joins profile_summary.csv files from several machines or shards. A directory is\n"
               "searched for profile_summary.csv files. Missing platform / hostname / timestamp\n"
               "columns or cells are filled from experiment_config.txt, the folder name\n"
               "(nsight_experiment_<platform>_<date>_<time>) or the file time. Every file must\n"
               "then have the same columns in the same order, the sweep's (samrt bench --objects,\n"
               "--streams) aside: sweep files join ordinary ones, the sweep columns left empty\n"
               "in the ordinary rows.\n\n"
               "  -o, --output FILE   the merged CSV (written atomically)\n"
               "  -q, --quiet         no summary on stdout\n\n"
               "exit: 0 written, 2 bad usage or input (nothing written), 3 write failed\n");
}

int samrt_cmd_merge(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out_path = NULL;
    int quiet = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (c == 'o') out_path = optarg;
        else if (c == 'q') quiet = 1;
        else if (c == 'h') {
            usage(stdout);
            return SAMRT_EXIT_OK;
        } else {
            usage(stderr);
            return SAMRT_EXIT_USAGE;
        }
    }
    if (!out_path || optind >= argc) {
        fprintf(stderr, "samrt merge: %s\n", !out_path ? "-o merged.csv is required" : "no input given");
        usage(stderr);
        return SAMRT_EXIT_USAGE;
    }

    int rc = SAMRT_EXIT_USAGE;
    struct inputs in = {0};
    const char **ref = NULL, **cells = NULL;
    size_t n_ref = 0, total = 0;
    if ((rc = collect_inputs(optind, argc, argv, &in)) >= 0) goto done;
    rc = SAMRT_EXIT_USAGE;
    if (!read_inputs(&in, &ref, &n_ref, &total)) goto done;

    struct samrt_atomic_file af;
    if (samrt_atomic_open(&af, out_path) != SAMRT_OK) {
        fprintf(stderr, "samrt merge: cannot write %s\n", out_path);
        rc = SAMRT_EXIT_RUNTIME;
        goto done;
    }
    samrt_csv_write_row(af.f, ref, n_ref);
    cells = malloc(n_ref * sizeof *cells);
    if (!cells) {
        samrt_atomic_abort(&af);
        rc = SAMRT_EXIT_RUNTIME;
        goto done;
    }
    int c_plat = -1, c_host = -1, c_ts = -1;
    for (size_t k = 0; k < n_ref; k++) {
        if (!strcmp(ref[k], "platform")) c_plat = (int)k;
        if (!strcmp(ref[k], "hostname")) c_host = (int)k;
        if (!strcmp(ref[k], "timestamp")) c_ts = (int)k;
    }
    if (!quiet) printf("Merging results from:\n");
    for (size_t i = 0; i < in.n; i++) {
        const struct input *p = &in.v[i];
        for (size_t r = 1; r < p->csv.n_rows; r++) {
            for (size_t k = 0; k < n_ref; k++) cells[k] = samrt_csv_cell(&p->csv, r, p->src[k]);
            if (c_plat >= 0 && !cells[c_plat][0]) cells[c_plat] = p->platform;
            if (c_host >= 0 && !cells[c_host][0]) cells[c_host] = p->hostname;
            if (c_ts >= 0 && !cells[c_ts][0]) cells[c_ts] = p->timestamp;
            samrt_csv_write_row(af.f, cells, n_ref);
        }
        if (!quiet) {
            printf("  - %s\n    Found %zu entries", p->path, p->csv.n_rows - 1);
            if (p->platform[0]) printf(" (fill-in platform %s)", p->platform);
            printf("\n");
            if ((p->add_hostname || p->add_platform) && (!p->hostname[0] || !p->platform[0]))
                printf("    note: no %s%s%s known for this file; those cells stay empty\n",
                       !p->platform[0] ? "platform" : "", !p->platform[0] && !p->hostname[0] ? " or " : "",
                       !p->hostname[0] ? "hostname" : "");
        }
    }
    if (samrt_atomic_commit(&af) != SAMRT_OK) {
        fprintf(stderr, "samrt merge: writing %s failed; a previous file there is unchanged\n", out_path);
        rc = SAMRT_EXIT_RUNTIME;
        goto done;
    }
    if (!quiet) {
        printf("\nMerged CSV written to: %s\nTotal entries: %zu\n", out_path, total);
        if (c_plat >= 0) print_platform_counts(out_path, c_plat);
    }
    rc = SAMRT_EXIT_OK;
done:
    for (size_t i = 0; i < in.n; i++) {
        samrt_csv_free(&in.v[i].csv);
        free(in.v[i].hdr), free(in.v[i].core), free(in.v[i].src);
    }
    free(in.v);
    free(ref);
    free(cells);
    return rc;
}
