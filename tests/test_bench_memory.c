/* test_bench_memory.c - `samrt bench --memory sam2,samurai` (harness/bench.c, bench_run.c,
 * bench_sweep.c): every model runs once per policy of the list in one bench run, with the real
 * tracker on the CPU backend (a SAM 2.1 tiny checkpoint of seeded random weights at a 64-pixel
 * model side) over a one-video synthetic split of 3 small frames and one object. Checked: the
 * refused lists (unknown name, duplicate, empty item; exit 2 and no file), then
 *   - the per-object run: one row per policy, equal but for the memory column (and the
 *     measurements), the masks under <model>@<policy>/ each, one profile_stats.json block per
 *     policy and the list in experiment_config.txt;
 *   - the sweep (--objects 1,2): one row per policy and count, the configuration named
 *     "objects=N;memory=<policy>" in the CSV, the summary lines and the JSON;
 *   - a single name (--memory samurai) as before: the model's folder and key, no suffix.
 * A build without the bench's tracker skips the runs.
 *
 * Run: ctest --preset test -R test_bench_memory */
#include "bench_tiny.h"
#include "csv.h"

#define N_FRAMES 3

static const char *cell(const struct samrt_csv *t, size_t row, const char *col) {
    const int c = samrt_csv_col(t, col);
    return c >= 0 ? samrt_csv_cell(t, row, c) : "";
}

static struct bench_tiny g_bt;

/* Runs bench with the common options of a tiny CPU run and the given extra ones; 0 = ok. */
#define RUN_BENCH(cap, out, ...)                                                                             \
    TT_RUN(cap, bench_tiny_real, "bench", "--split_dir", g_bt.split, "--out_dir", out, "--weights_dir",     \
           g_bt.weights, "--imgsz", "64", "--platform", "cpu", "--precision", "fp32", "--warmup", "0",      \
           "--runs", "1", __VA_ARGS__)

static int exists(const char *out, const char *rel) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", out, rel);
    return access(path, F_OK) == 0;
}

static void test_refused(void) {
    const char *cap = tt_path("refused.txt"), *out = tt_path("refused");
    static const char *const bad[][2] = {
        {"sam2,bogus", "--memory 'sam2,bogus': 'bogus' is not a memory policy (want sam2, samurai, dam4sam)"},
        {"sam2,samurai,sam2", "--memory 'sam2,samurai,sam2': sam2 is given twice"},
        {"sam2,,samurai", "--memory 'sam2,,samurai': item 2 is empty"},
        {"samurai,", "--memory 'samurai,': item 2 is empty"},
        {"bogus", "--memory wants sam2, samurai or dam4sam, got 'bogus'"},  /* one name: as before */
    };
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(bad); i++) {
        CHECK_EQ_INT(RUN_BENCH(cap, out, "--models", "sam2.1_tiny_mask", "--memory", bad[i][0]), SAMRT_EXIT_USAGE);
        char *s = tt_read(cap);
        CHECK_MSG(s && strstr(s, bad[i][1]), "%s: %s", bad[i][0], s ? s : "");
        free(s);
    }
    CHECK(!exists(out, "profile_summary.csv") && !exists(out, "experiment_config.txt"));  /* nothing ran */
}

/* <out>/profile_summary.csv into t (checked). */
static void read_summary(const char *out, struct samrt_csv *t) {
    char err[256], path[700];
    snprintf(path, sizeof path, "%s/profile_summary.csv", out);
    CHECK_STATUS(samrt_csv_read_table(path, t, err, sizeof err), SAMRT_OK);
}

/* The columns that say what ran, equal on the rows of the two policies. */
static void check_same_run(const struct samrt_csv *t, size_t a, size_t b) {
    static const char *const same[] = {"platform", "video", "object", "model", "run", "imgsz", "frames",
                                       "H",        "W",     "precision", "device", "objects", "grid_objects",
                                       "streams"};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(same); i++)
        CHECK_MSG(!strcmp(cell(t, a, same[i]), cell(t, b, same[i])), "%s: '%s' / '%s'", same[i], cell(t, a, same[i]),
                  cell(t, b, same[i]));
}

static void test_per_object(void) {
    const char *cap = tt_path("obj.txt"), *out = tt_path("obj");
    const int rc = RUN_BENCH(cap, out, "--models", "sam2.1_tiny_mask", "--memory", "sam2,samurai");
    char *log = tt_read(cap);
    CHECK_MSG(rc == SAMRT_EXIT_OK, "exit %d: %s", rc, log ? log : "");
    CHECK(log && strstr(log, "samrt bench: sam2.1_tiny_mask@sam2: decode ") &&
          strstr(log, "samrt bench: sam2.1_tiny_mask@samurai: decode ") && strstr(log, "samrt bench: 2 rows "));
    free(log);
    struct samrt_csv t;
    char path[700];
    read_summary(out, &t);
    CHECK_EQ_INT((int)t.n_rows - 1, 2);
    if (t.n_rows == 3) {
        CHECK(!strcmp(cell(&t, 1, "memory"), "sam2") && !strcmp(cell(&t, 2, "memory"), "samurai"));
        check_same_run(&t, 1, 2);
        CHECK(!strcmp(cell(&t, 1, "model"), "sam2.1_tiny_mask") && atoi(cell(&t, 1, "frames")) == N_FRAMES);
        CHECK(samrt_csv_col(&t, "config") < 0);  /* no sweep row: no sweep columns */
    }
    samrt_csv_free(&t);
    /* each policy's masks in its own folder, none in the model's */
    CHECK(exists(out, "sam2.1_tiny_mask@sam2/synth_000") && exists(out, "sam2.1_tiny_mask@samurai/synth_000"));
    CHECK(!exists(out, "sam2.1_tiny_mask"));
    snprintf(path, sizeof path, "%s/profile_stats.json", out);
    char *js = tt_read(path);
    CHECK(js && strstr(js, "\"sam2.1_tiny_mask@sam2\": {") && strstr(js, "\"sam2.1_tiny_mask@samurai\": {") &&
          !strstr(js, "\"sam2.1_tiny_mask\": {") && tt_count(js, "\"fps\": {\"n\": 1,") == 2);
    free(js);
    snprintf(path, sizeof path, "%s/experiment_config.txt", out);
    char *cfg = tt_read(path);
    CHECK(cfg && strstr(cfg, "\nmemory=sam2,samurai\n") && strstr(cfg, "\nstatus=ok\n"));
    free(cfg);
}

static void test_sweep(void) {
    const char *cap = tt_path("sweep.txt"), *out = tt_path("sweep");
    const int rc = RUN_BENCH(cap, out, "--models", "sam2.1_tiny_points", "--objects", "1,2", "--memory", "sam2,samurai");
    char *log = tt_read(cap);
    CHECK_MSG(rc == SAMRT_EXIT_OK, "exit %d: %s", rc, log ? log : "");
    static const char *const want[] = {"objects=1;memory=sam2", "objects=2;memory=sam2", "objects=1;memory=samurai",
                                       "objects=2;memory=samurai"};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(want); i++) {
        char line[128];
        snprintf(line, sizeof line, "samrt bench: sam2.1_tiny_points %s synth_000: ms/frame p50 ", want[i]);
        CHECK_MSG(log && strstr(log, line), "no line '%s'", line);
    }
    free(log);
    struct samrt_csv t;
    char path[700];
    read_summary(out, &t);
    CHECK_EQ_INT((int)t.n_rows - 1, 4);
    for (size_t r = 1; r < t.n_rows && t.n_rows == 5; r++) {
        CHECK_MSG(!strcmp(cell(&t, r, "config"), want[r - 1]), "row %zu: %s", r, cell(&t, r, "config"));
        CHECK(!strcmp(cell(&t, r, "memory"), r <= 2 ? "sam2" : "samurai"));
        CHECK(atoi(cell(&t, r, "objects")) == (r % 2 ? 1 : 2));
        if (r > 2) check_same_run(&t, r - 2, r);  /* the same configuration under the other policy */
    }
    samrt_csv_free(&t);
    snprintf(path, sizeof path, "%s/profile_stats.json", out);
    char *js = tt_read(path);
    const char *sw = js ? strstr(js, "\"sweep\": [") : NULL;
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(want); i++) {
        char c[64];
        snprintf(c, sizeof c, "\"config\": \"%s\"", want[i]);
        CHECK_MSG(sw && tt_count(sw, c) == 1, "sweep list: %s", c);
    }
    free(js);
}

/* One name, as before the lists: the model's own folder and key, the configuration unnamed. */
static void test_single(void) {
    const char *cap = tt_path("one.txt"), *out = tt_path("one");
    const int rc = RUN_BENCH(cap, out, "--models", "sam2.1_tiny_mask", "--memory", "samurai");
    char *log = tt_read(cap);
    CHECK_MSG(rc == SAMRT_EXIT_OK, "exit %d: %s", rc, log ? log : "");
    CHECK(log && strstr(log, "samrt bench: sam2.1_tiny_mask: decode ") && !strstr(log, "@"));
    free(log);
    CHECK(exists(out, "sam2.1_tiny_mask/synth_000") && !exists(out, "sam2.1_tiny_mask@samurai"));
    char path[700];
    snprintf(path, sizeof path, "%s/profile_summary.csv", out);
    char *csv = tt_read(path);
    CHECK(csv && tt_count(csv, ",samurai") == 1);
    free(csv);
    snprintf(path, sizeof path, "%s/profile_stats.json", out);
    char *js = tt_read(path);
    CHECK(js && strstr(js, "\"sam2.1_tiny_mask\": {") && !strstr(js, "@"));
    free(js);
    snprintf(path, sizeof path, "%s/experiment_config.txt", out);
    char *cfg = tt_read(path);
    CHECK(cfg && !strstr(cfg, "\nmemory="));
    free(cfg);
}

int main(void) {
    if (tt_begin("test_bench_memory")) return 1;
    if (bench_tiny_setup("test_bench_memory", N_FRAMES, 64, 48, &g_bt)) return 1;
    test_refused();
    if (BENCH_TINY_RUNS) test_per_object(), test_sweep(), test_single();
    return bench_tiny_end("test_bench_memory", &g_bt);
}
