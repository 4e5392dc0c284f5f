/* test_ckpt_corpus.c - the malformed-checkpoint corpus: every file in data/ckpt/bad/ is opened
 * from disk and from an exactly-sized heap copy (so ASan sees any read past the end) and must
 * give the status data/ckpt/bad/expected.txt names, with the named text in the error log; files
 * that load have every tensor read and scanned for NaN/Inf. Every file in the folder must be
 * listed, and every good fixture must load and read. Run: ctest -R test_ckpt_corpus (the
 * sanitize preset runs it under ASan + UBSan). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ckpt.h"

#define MAX_CASES 256

struct expect {
    char file[128];
    enum samrt_status status;
    int n_nonfinite;
    char msg[128];   /* text some error line must contain; may be empty */
    int seen;        /* the folder holds this file */
};

static struct expect g_cases[MAX_CASES];
static int g_n_cases;
static char g_log[8192]; /* error and warning lines of the current open, joined */

static void capture(enum samrt_log_level level, const char *msg, void *user) {
    (void)user;
    if (level > SAMRT_LOG_WARN) return;
    size_t n = strlen(g_log);
    snprintf(g_log + n, sizeof g_log - n, "%s\n", msg);
}

static int parse_status(const char *s, enum samrt_status *st, int *n_nonfinite) {
    *n_nonfinite = 0;
    if (!strncmp(s, "ok", 2)) {
        *st = SAMRT_OK;
        if (s[2] == ':') *n_nonfinite = atoi(s + 3);
        return 0;
    }
    static const struct {
        const char *name;
        enum samrt_status st;
    } map[] = {{"format", SAMRT_E_FORMAT}, {"forbidden", SAMRT_E_FORBIDDEN}, {"unsupported", SAMRT_E_UNSUPPORTED}};
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (!strcmp(s, map[k].name)) return *st = map[k].st, 0;
    return -1;
}

static int load_manifest(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        if (g_n_cases == MAX_CASES) break;
        struct expect *e = &g_cases[g_n_cases];
        char status[32];
        int used = 0;
        if (sscanf(line, "%127s %31s %n", e->file, status, &used) < 2 ||
            parse_status(status, &e->status, &e->n_nonfinite) != 0) {
            fprintf(stderr, "expected.txt: bad line '%s'\n", line);
            fclose(f);
            return -1;
        }
        snprintf(e->msg, sizeof e->msg, "%s", used ? line + used : "");
        g_n_cases++;
    }
    fclose(f);
    return 0;
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)(n > 0 ? n : 0);
    return b;
}

/* Reads every tensor at its own dtype and, for floats, as f32 / bf16. */
static void read_all(struct samrt_ckpt *ck, const char *what) {
    for (int k = 0; k < ck->n_tensors; k++) {
        const struct samrt_ckpt_tensor *t = &ck->tensors[k];
        CHECK_MSG(samrt_ckpt_find(ck, t->name) == t, "%s: lookup of %s", what, t->name);
        uint64_t n = (uint64_t)t->nelements * 4 + 8;
        void *buf = malloc(n);
        CHECK_STATUS(samrt_ckpt_read(ck, t, t->dtype, buf, n), SAMRT_OK);
        if (t->dtype == SAMRT_DTYPE_F32 || t->dtype == SAMRT_DTYPE_F16 || t->dtype == SAMRT_DTYPE_BF16) {
            CHECK_STATUS(samrt_ckpt_read(ck, t, SAMRT_DTYPE_F32, buf, n), SAMRT_OK);
            CHECK_STATUS(samrt_ckpt_read(ck, t, SAMRT_DTYPE_BF16, buf, n), SAMRT_OK);
        }
        free(buf);
    }
}

static void run_case(const char *dir, struct expect *e) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, e->file);
    struct samrt_ckpt ck;
    for (int from_mem = 0; from_mem < 2; from_mem++) {
        g_log[0] = 0;
        size_t len = 0;
        uint8_t *mem = NULL;
        enum samrt_status st;
        if (from_mem) {
            mem = read_file(path, &len);
            CHECK_MSG(mem != NULL, "cannot read %s", path);
            if (!mem) return;
            st = samrt_ckpt_open_mem(len ? mem : NULL, len, &ck);
        } else {
            st = samrt_ckpt_open(path, &ck);
        }
        CHECK_MSG(st == e->status, "%s (%s): status '%s', want '%s'; log:\n%s", e->file, from_mem ? "memory" : "file",
                  samrt_status_str(st), samrt_status_str(e->status), g_log);
        if (e->msg[0]) CHECK_MSG(strstr(g_log, e->msg) != NULL, "%s: log lacks '%s':\n%s", e->file, e->msg, g_log);
        if (st == SAMRT_OK) {
            read_all(&ck, e->file);
            CHECK_MSG(samrt_ckpt_check_finite(&ck) == e->n_nonfinite, "%s: %d non-finite tensors, want %d", e->file,
                      ck.n_nonfinite_warnings, e->n_nonfinite);
            CHECK(strstr(g_log, "NaN") != NULL || e->n_nonfinite == 0);
            samrt_ckpt_close(&ck);
        } else {
            CHECK(ck.tensors == NULL && ck.n_tensors == 0); /* a failed open leaves nothing to close */
        }
        free(mem);
    }
}

int main(void) {
    const char *data = getenv("SAMRT_TEST_DATA");
    if (!data) return check_skip("test_ckpt_corpus", "SAMRT_TEST_DATA is not set (run through ctest)");
    char bad[1100], good[1100], manifest[1200];
    snprintf(bad, sizeof bad, "%s/ckpt/bad", data);
    snprintf(good, sizeof good, "%s/ckpt/good", data);
    snprintf(manifest, sizeof manifest, "%s/expected.txt", bad);
    CHECK_MSG(load_manifest(manifest) == 0, "cannot read %s", manifest);
    CHECK_MSG(g_n_cases >= 40, "only %d corpus entries", g_n_cases);
    samrt_log_set(capture, NULL, SAMRT_LOG_WARN);

    DIR *d = opendir(bad);
    CHECK_MSG(d != NULL, "cannot list %s", bad);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.' || !strcmp(de->d_name, "expected.txt")) continue;
        int found = 0;
        for (int k = 0; k < g_n_cases; k++)
            if (!strcmp(g_cases[k].file, de->d_name)) g_cases[k].seen = found = 1;
        CHECK_MSG(found, "%s/%s is not listed in expected.txt", bad, de->d_name);
    }
    if (d) closedir(d);
    int n_run = 0;
    for (int k = 0; k < g_n_cases; k++) {
        CHECK_MSG(g_cases[k].seen, "expected.txt lists %s, which is not in the folder", g_cases[k].file);
        if (!g_cases[k].seen) continue;
        run_case(bad, &g_cases[k]);
        n_run++;
    }

    d = opendir(good);
    CHECK_MSG(d != NULL, "cannot list %s", good);
    int n_good = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.') continue;
        struct expect e = {.status = SAMRT_OK};
        snprintf(e.file, sizeof e.file, "%s", de->d_name);
        run_case(good, &e);
        n_good++;
    }
    if (d) closedir(d);
    CHECK(n_good >= 6);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
    printf("test_ckpt_corpus: %d malformed files, %d good files\n", n_run, n_good);
    return check_report("test_ckpt_corpus");
}
