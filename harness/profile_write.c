/* profile_write.c - the files of a bench run written from its rows (profile.h):
 * profile_summary.csv, profile_stats.json and experiment_config.txt, each through
 * atomic_file.h, so an error leaves the previous file whole. experiment_config.txt also
 * says which checkpoints hold seeded random weights (weights.<tag>=random (seeded)), so the
 * report of such a run can say its masks mean nothing. The columns come from the table
 * in profile.c, the statistics from stats.c. Tested by tests/test_profile.c. */
#include "profile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "atomic_file.h"
#include "csv.h"
#include "samrt_impl.h"
#include "stats.h"

/* ---- CSV ----------------------------------------------------------------------------- */

enum samrt_status samrt_profile_write_csv(const char *path, const struct samrt_profile_row *rows,
                                          size_t n) {
    SAMRT_CHECK(path && (rows || n == 0), SAMRT_E_INVALID_ARG, "write_csv: NULL argument");
    struct samrt_atomic_file af;
    SAMRT_TRY(samrt_atomic_open(&af, path));
    size_t n_cols;
    const struct samrt_profile_col *cols = samrt_profile_file_columns(rows, n, &n_cols);
    for (size_t c = 0; c < n_cols; c++) {
        if (c) fputc(',', af.f);
        samrt_csv_write_field(af.f, cols[c].name);
    }
    fputc('\n', af.f);
    char cell[1100];
    for (size_t r = 0; r < n; r++) {
        if (rows[r].warmup) continue;
        for (size_t c = 0; c < n_cols; c++) {
            if (c) fputc(',', af.f);
            samrt_profile_cell_text(&rows[r], &cols[c], cell, sizeof cell);
            samrt_csv_write_field(af.f, cell);
        }
        fputc('\n', af.f);
    }
    return samrt_atomic_commit(&af);
}

/* ---- stats JSON ------------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, const char *key, double v, int last) {
    char buf[40];
    if (samrt_profile_absent(v)) snprintf(buf, sizeof buf, "null");
    else samrt_profile_fmt_double(v, buf, sizeof buf);
    fprintf(f, "\"%s\": %s%s", key, buf, last ? "" : ", ");
}

/* A text field (at most size bytes, maybe without NUL) as a JSON string. */
static void json_field(FILE *f, const char *s, size_t size) {
    char buf[300];
    snprintf(buf, sizeof buf, "%.*s", (int)SAMRT_MIN(size, sizeof buf - 1), s);
    json_string(f, buf);
}

/* "sweep": [{model, video, config, objects, ...}, ...], one object per sweep row. */
static void json_sweep(FILE *f, const struct samrt_profile_row *rows, size_t n) {
    size_t n_cols, n_base;
    const struct samrt_profile_col *cols = samrt_profile_file_columns(rows, n, &n_cols);
    samrt_profile_columns(&n_base);
    fputs(",\n  \"sweep\": [", f);
    int first = 1;
    for (size_t r = 0; r < n; r++) {
        if (rows[r].warmup || !samrt_profile_row_is_sweep(&rows[r])) continue;
        fputs(first ? "\n    {\"model\": " : ",\n    {\"model\": ", f);
        first = 0;
        json_field(f, rows[r].model, sizeof rows[r].model);
        fputs(", \"video\": ", f);
        json_field(f, rows[r].video, sizeof rows[r].video);
        for (size_t c = n_base; c < n_cols; c++) {
            const struct samrt_profile_col *col = &cols[c];
            fputs(", ", f);
            if (col->kind != SAMRT_PCOL_STR) {
                json_number(f, col->name, samrt_profile_get(&rows[r], col), 1);
                continue;
            }
            fprintf(f, "\"%s\": ", col->name);
            json_field(f, (const char *)&rows[r] + col->offset, col->size);
        }
        fputs("}", f);
    }
    fputs("\n  ]", f);
}

/* Whether row a is of b's model and, when with_memory, of b's memory policy too. */
static int same_model(const struct samrt_profile_row *a, const struct samrt_profile_row *b, int with_memory) {
    return !strncmp(a->model, b->model, sizeof a->model) &&
           (!with_memory || !strncmp(a->memory, b->memory, sizeof a->memory));
}

enum samrt_status samrt_profile_write_stats(const char *path, const struct samrt_profile_row *rows,
                                            size_t n) {
    SAMRT_CHECK(path && (rows || n == 0), SAMRT_E_INVALID_ARG, "write_stats: NULL argument");
    double *vals = malloc((n ? n : 1) * sizeof *vals);
    char *done = calloc(n ? n : 1, 1);  /* rows whose model was already written */
    if (!vals || !done) {
        free(vals);
        free(done);
        return SAMRT_E_HOST_MEMORY;
    }
    struct samrt_atomic_file af;
    enum samrt_status st = samrt_atomic_open(&af, path);
    if (st != SAMRT_OK) {
        free(vals);
        free(done);
        return st;
    }
    FILE *f = af.f;
    size_t n_base;
    const struct samrt_profile_col *cols = samrt_profile_columns(&n_base);
    fputs("{", f);
    int first_model = 1;
    for (size_t r0 = 0; r0 < n; r0++) {
        if (rows[r0].warmup || done[r0]) continue;
        const struct samrt_profile_row *g = &rows[r0];
        int mixed = 0;  /* the model's rows hold several memory policies: one block each */
        for (size_t r = 0; r < n; r++) {
            if (rows[r].warmup || !same_model(&rows[r], g, 0)) continue;
            mixed |= !same_model(&rows[r], g, 1);
            done[r] |= same_model(&rows[r], g, 1);
        }
        fputs(first_model ? "\n  " : ",\n  ", f);
        first_model = 0;
        char key[sizeof g->model + sizeof g->memory + 2];
        snprintf(key, sizeof key, "%.*s%s%.*s", (int)sizeof g->model, g->model, mixed ? "@" : "",
                 mixed ? (int)sizeof g->memory : 0, g->memory);
        json_field(f, key, sizeof key);
        fputs(": {", f);
        int first_metric = 1;
        for (size_t c = 0; c < n_base; c++) {
            if (cols[c].kind != SAMRT_PCOL_REAL) continue;
            size_t k = 0;
            for (size_t r = r0; r < n; r++) {
                if (rows[r].warmup || !same_model(&rows[r], g, 1)) continue;
                double v = samrt_profile_get(&rows[r], &cols[c]);
                if (!samrt_profile_absent(v)) vals[k++] = v;
            }
            struct samrt_stats s;
            if (samrt_stats_compute(vals, k, &s) != SAMRT_OK) continue;  /* never measured */
            fputs(first_metric ? "\n    " : ",\n    ", f);
            first_metric = 0;
            json_string(f, cols[c].name);
            fprintf(f, ": {\"n\": %zu, ", s.n);
            json_number(f, "mean", s.mean, 0);
            json_number(f, "std", s.std, 0);
            json_number(f, "min", s.min, 0);
            json_number(f, "max", s.max, 0);
            json_number(f, "median", s.median, 0);
            json_number(f, "p95", s.p95, 1);
            fputs("}", f);
        }
        fputs(first_metric ? "}" : "\n  }", f);
    }
    size_t n_cols;
    samrt_profile_file_columns(rows, n, &n_cols);
    if (n_cols > n_base) json_sweep(f, rows, n);  /* after a model: first_model is 0 */
    fputs(first_model ? "}\n" : "\n}\n", f);
    free(vals);
    free(done);
    return samrt_atomic_commit(&af);
}

/* ---- experiment_config.txt ------------------------------------------------------------ */

static int valid_key(const char *k) {
    if (!k || !*k) return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '_' || *k == '.' || *k == '-'))
            return 0;
    return 1;
}

static uint64_t rd_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* 1 when path is a checkpoint of seeded random weights from samrt_ckpt_write_random
 * (ckpt_write.h): a zip whose last entry before the central directory is
 * .data/serialization_id holding 40 '0's, where torch.save writes a random id. Reads the end
 * records and the bytes before the central directory only. */
static int ckpt_is_random(const char *path) {
    static const char zeros[] = "0000000000000000000000000000000000000000", name[] = ".data/serialization_id";
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t end[42], e64[56], tail[256];
    int yes = 0;
    if (fseeko(f, -42, SEEK_END) == 0 && fread(end, 1, 42, f) == 42 && rd_le(end + 20, 4) == 0x06054b50u) {
        uint64_t cd = rd_le(end + 36, 4);
        if (cd == 0xFFFFFFFFu && rd_le(end, 4) == 0x07064b50u) {  /* zip64: the locator, then its end record */
            cd = 0;
            if (fseeko(f, (off_t)rd_le(end + 8, 8), SEEK_SET) == 0 && fread(e64, 1, 56, f) == 56 &&
                rd_le(e64, 4) == 0x06064b50u)
                cd = rd_le(e64 + 48, 8);
        }
        if (cd >= sizeof tail && fseeko(f, (off_t)(cd - sizeof tail), SEEK_SET) == 0 &&
            fread(tail, 1, sizeof tail, f) == sizeof tail && !memcmp(tail + sizeof tail - 40, zeros, 40))
            for (size_t i = 0; i + sizeof name - 1 <= sizeof tail - 40 && !yes; i++)
                yes = !memcmp(tail + i, name, sizeof name - 1);
    }
    fclose(f);
    return yes;
}

enum samrt_status samrt_profile_write_config(const char *path, const struct samrt_profile_kv *kv,
                                             size_t n) {
    SAMRT_CHECK(path && (kv || n == 0), SAMRT_E_INVALID_ARG, "write_config: NULL argument");
    for (size_t i = 0; i < n; i++) {
        SAMRT_CHECK(valid_key(kv[i].key), SAMRT_E_INVALID_ARG, "config key '%s' is not [A-Za-z0-9_.-]+",
                    kv[i].key ? kv[i].key : "(null)");
        SAMRT_CHECK(!kv[i].value || !strpbrk(kv[i].value, "\r\n"), SAMRT_E_INVALID_ARG,
                    "config value of '%s' holds a line break", kv[i].key);
    }
    struct samrt_atomic_file af;
    SAMRT_TRY(samrt_atomic_open(&af, path));
    fprintf(af.f, "# samrt %d.%d.%d experiment configuration (key=value)\n", SAMRT_VERSION_MAJOR,
            SAMRT_VERSION_MINOR, SAMRT_VERSION_PATCH);
    for (size_t i = 0; i < n; i++) fprintf(af.f, "%s=%s\n", kv[i].key, kv[i].value ? kv[i].value : "");
    /* a run on a random-weight checkpoint says so (weights.<tag>), for `samrt report`'s banner */
    for (size_t i = 0; i < n; i++)
        if (!strncmp(kv[i].key, "checkpoint.", 11) && kv[i].value && ckpt_is_random(kv[i].value))
            fprintf(af.f, "weights.%s=random (seeded)\n", kv[i].key + 11);
    return samrt_atomic_commit(&af);
}

enum samrt_status samrt_profile_config_get(const char *path, const char *key, char *out, size_t len) {
    if (!path || !key || !out || !len) return SAMRT_E_INVALID_ARG;
    FILE *f = fopen(path, "r");
    if (!f) return SAMRT_E_IO;
    char line[8192];
    int found = 0;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || strncmp(line, key, klen) || line[klen] != '=') continue;
        snprintf(out, len, "%s", line + klen + 1);
        found = 1;
    }
    fclose(f);
    return found ? SAMRT_OK : SAMRT_E_KEYS;
}
