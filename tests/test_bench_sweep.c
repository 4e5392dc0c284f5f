/* test_bench_sweep.c - the object sweep of `samrt bench --objects` (harness/bench_sweep.c) with
 * the real tracker on the CPU backend: a SAM 2.1 tiny checkpoint of seeded random weights
 * (harness/ckpt_write.h, as `samrt demo` writes one) at a 64-pixel model side, over a one-video
 * synthetic split of 3 small frames and one object, swept over 1 and 2 objects (the second
 * object is a grid click). Checked: the --objects list parser on good and bad lists, the grid
 * of extra clicks, the refused options (exit 2), and the files: one CSV row per configuration
 * with the sweep columns after the usual ones, values that agree with each other
 * (object-frames/s = objects x fps, p50 <= p95 <= p99, GPU busy in [0, 1], the arena and state
 * of two objects larger than of one), the "sweep" list of profile_stats.json and the
 * configuration in experiment_config.txt. Then --streams 1,2 (the --streams parser and its
 * refusals first): the model engine alone, then it and a session on two threads, one row per
 * count with the streams' frame rates, their aggregate (2 x the slower stream's) and the
 * arenas (a session's is the model's without the weights). A build without the bench's
 * tracker skips the runs.
 *
 * Run: ctest --preset test -R test_bench_sweep */
#include <math.h>

#include "bench_tiny.h"
#include "csv.h"
#include "profile.h"

#define VW 64
#define VH 48
#define N_FRAMES 3


static const char *cell(const struct samrt_csv *t, size_t row, const char *col) {
    return samrt_csv_cell(t, row, samrt_csv_col(t, col));
}

static double num(const struct samrt_csv *t, size_t row, const char *col) { return atof(cell(t, row, col)); }

typedef int (*list_parser)(const char *, int *, int *, char *, size_t);

/* A list parser on list: 0 and the counts, or -1 and a reason holding `says`. */
static void check_list_of(list_parser parse, const char *list, int want_rc, const int *want, int n_want,
                          const char *says) {
    int v[SAMRT_BENCH_MAX_SWEEP + 8], n = -1;
    char why[160] = "";
    const int rc = parse(list, v, &n, why, sizeof why);
    CHECK_MSG(rc == want_rc, "'%s': rc %d (%s)", list, rc, why);
    if (rc == 0) {
        CHECK_EQ_INT(n, n_want);
        for (int i = 0; i < n && i < n_want; i++) CHECK_EQ_INT(v[i], want[i]);
    } else {
        CHECK_EQ_INT(n, 0);
        CHECK_MSG(strstr(why, says) != NULL, "'%s': reason '%s' lacks '%s'", list, why, says);
    }
}

static void check_list(const char *list, int want_rc, const int *want, int n_want, const char *says) {
    check_list_of(samrt_bench_parse_objects, list, want_rc, want, n_want, says);
}

static void check_streams(const char *list, int want_rc, const int *want, int n_want, const char *says) {
    check_list_of(samrt_bench_parse_streams, list, want_rc, want, n_want, says);
}

/* --streams: the rules of --objects, counts in [1, 16] */
static void test_parse_streams(void) {
    const int a[] = {1, 2, 4}, b[] = {4, 1}, c[] = {16};
    int all[16];
    char list[64] = "";
    for (int i = 16; i >= 1; i--) {
        all[16 - i] = i;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i < 16 ? "," : "", i);
    }
    check_streams("1,2,4", 0, a, 3, NULL);
    check_streams("4,1", 0, b, 2, NULL);  /* kept in the given order */
    check_streams("16", 0, c, 1, NULL);
    check_streams(list, 0, all, 16, NULL);
    check_streams("", -1, NULL, 0, "the list is empty (want counts such as 1,2,4)");
    check_streams(",", -1, NULL, 0, "item 1 is empty");
    check_streams("1,,2", -1, NULL, 0, "item 2 is empty");
    check_streams("2,", -1, NULL, 0, "item 2 is empty");
    check_streams("0", -1, NULL, 0, "'0' is not a whole number in [1, 16]");
    check_streams("17", -1, NULL, 0, "'17' is not a whole number in [1, 16]");
    check_streams("1,2,4,8,32", -1, NULL, 0, "'32'");
    check_streams("-2", -1, NULL, 0, "'-2'");
    check_streams("2 ", -1, NULL, 0, "'2 '");
    check_streams("x", -1, NULL, 0, "'x'");
    check_streams("4,2,4", -1, NULL, 0, "4 is given twice");
}

static void test_parse_objects(void) {
    const int a[] = {1, 2, 4, 8, 16}, b[] = {16, 1}, c[] = {256};
    check_list("1,2,4,8,16", 0, a, 5, NULL);
    check_list("16,1", 0, b, 2, NULL);  /* kept in the given order */
    check_list("256", 0, c, 1, NULL);
    char list[512] = "";
    int many[SAMRT_BENCH_MAX_SWEEP + 1];
    for (int i = 1; i <= SAMRT_BENCH_MAX_SWEEP; i++) {
        many[i - 1] = i;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i > 1 ? "," : "", i);
    }
    check_list(list, 0, many, SAMRT_BENCH_MAX_SWEEP, NULL);
    strcat(list, ",65");
    check_list(list, -1, NULL, 0, "more than 64");
    check_list("", -1, NULL, 0, "empty");
    check_list(",", -1, NULL, 0, "item 1 is empty");
    check_list("1,,2", -1, NULL, 0, "item 2 is empty");
    check_list("1,", -1, NULL, 0, "item 2 is empty");
    check_list("0", -1, NULL, 0, "'0' is not a whole number in [1, 256]");
    check_list("257", -1, NULL, 0, "'257'");
    check_list("-1", -1, NULL, 0, "'-1'");
    check_list("+1", -1, NULL, 0, "'+1'");
    check_list(" 1", -1, NULL, 0, "' 1'");
    check_list("2,x", -1, NULL, 0, "'x'");
    check_list("1.5", -1, NULL, 0, "'1.5'");
    check_list("4x", -1, NULL, 0, "'4x'");
    check_list("99999999999999999999", -1, NULL, 0, "not a whole number");
    check_list("1,2,1", -1, NULL, 0, "1 is given twice");
}

/* The grid: one click per cell centre (floored), row by row, inside the frame. */
static void test_grid(void) {
    struct samrt_prompt p;
    samrt_bench_grid_prompt(0, 1, 640, 360, &p);
    CHECK(p.kind == SAMRT_PROMPT_POINTS && p.n_points == 1 && p.points[0].label == 1 && !p.has_box);
    CHECK(p.points[0].x == 320 && p.points[0].y == 180 && p.width == 640 && p.height == 360);
    /* 3 extra objects: 2 columns, 2 rows; the third starts the second row */
    samrt_bench_grid_prompt(2, 3, 64, 48, &p);
    CHECK(p.points[0].x == 16 && p.points[0].y == 36);
    /* 14 extra: 4 x 4 cells of 16 x 12, the last one (13) at column 1 of row 3 */
    samrt_bench_grid_prompt(13, 14, 64, 48, &p);
    CHECK(p.points[0].x == 24 && p.points[0].y == 42);
    for (int n = 1; n <= 256; n += 51)
        for (int j = 0; j < n; j++) {
            samrt_bench_grid_prompt(j, n, 7, 5, &p);
            CHECK(p.points[0].x >= 0 && p.points[0].x < 7 && p.points[0].y >= 0 && p.points[0].y < 5);
        }
}

static struct bench_tiny g_bt;

static void test_refused(void) {
    char cap[512];
    snprintf(cap, sizeof cap, "%s", tt_path("refused.txt"));
    static const char *const bad[][2] = {{"--objects", "0"},  {"--objects", "1,1"},  {"--objects", ""},
                                         {"--objects", "1,,2"}, {"--objects", "300"}, {"--streams", "0"},
                                         {"--streams", "2,2"}, {"--streams", ""},    {"--streams", "1,,2"},
                                         {"--streams", "17"},  {"--streams", "1;2"}};
    for (size_t i = 0; i < SAMRT_ARRAY_LEN(bad); i++) {
        CHECK_EQ_INT(TT_RUN(cap, bench_tiny_real, "bench", "--split_dir", g_bt.split, "--out_dir", tt_path("o"),
                            "--models", "sam2.1_tiny_points", bad[i][0], bad[i][1]),
                     SAMRT_EXIT_USAGE);
        char *s = tt_read(cap), says[32];
        snprintf(says, sizeof says, "%s '%s': ", bad[i][0], bad[i][1]);
        CHECK_MSG(s && strstr(s, says), "%s '%s': %s", bad[i][0], bad[i][1], s ? s : "");
        free(s);
    }
    CHECK_EQ_INT(TT_RUN(cap, bench_tiny_real, "bench", "--split_dir", g_bt.split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny_points", "--objects", "1,2", "--per_obj"),
                 SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, bench_tiny_real, "bench", "--split_dir", g_bt.split, "--out_dir", tt_path("o"), "--models",
                        "sam2.1_tiny_points", "--streams", "1,2", "--per_obj"),
                 SAMRT_EXIT_USAGE);
    CHECK(access(tt_path("o/profile_summary.csv"), F_OK) != 0);
}

/* The rows and files of a 1, 2 sweep on the CPU backend. */
static void test_sweep(void) {
    const char *cap = tt_path("sweep.txt"), *out = tt_path("sweep");
    const int rc = TT_RUN(cap, bench_tiny_real, "bench", "--split_dir", g_bt.split, "--out_dir", out, "--weights_dir",
                          g_bt.weights, "--models", "sam2.1_tiny_points", "--objects", "1,2", "--imgsz", "64",
                          "--platform", "cpu", "--precision", "fp32", "--warmup", "1", "--warmup_frames", "1", "--runs", "1");
    char *log = tt_read(cap);
    CHECK_MSG(rc == SAMRT_EXIT_OK, "exit %d: %s", rc, log ? log : "");
    CHECK(log && strstr(log, "sam2.1_tiny_points objects=2 synth_000: ms/frame p50 "));
    free(log);
    struct samrt_csv t;
    char err[256], path[700];
    snprintf(path, sizeof path, "%s/profile_summary.csv", out);
    CHECK_STATUS(samrt_csv_read_table(path, &t, err, sizeof err), SAMRT_OK);
    size_t n_base, n_all;
    samrt_profile_columns(&n_base);
    struct samrt_profile_row sweep_row;
    samrt_profile_row_init(&sweep_row);
    sweep_row.objects = 1;
    const struct samrt_profile_col *cols = samrt_profile_file_columns(&sweep_row, 1, &n_all);
    /* the usual columns first, in their order, then the sweep's */
    CHECK(n_all > n_base && !strcmp(cols[n_base].name, "config"));
    CHECK_EQ_INT((int)t.n_fields[0], (int)n_all);
    for (size_t c = 0; c < n_all && c < t.n_fields[0]; c++) CHECK(!strcmp(samrt_csv_cell(&t, 0, (int)c), cols[c].name));
    CHECK_EQ_INT((int)t.n_rows - 1, 2);
    for (size_t r = 1; r < t.n_rows && t.n_rows == 3; r++) {
        const double k = (double)r;  /* row 1: one object, row 2: two */
        char cfg[32];
        snprintf(cfg, sizeof cfg, "objects=%d", (int)r);
        CHECK(!strcmp(cell(&t, r, "config"), cfg) && num(&t, r, "objects") == k);
        CHECK(num(&t, r, "grid_objects") == k - 1);  /* the clip has one object */
        CHECK(!strcmp(cell(&t, r, "model"), "sam2.1_tiny_points") && !strcmp(cell(&t, r, "video"), "synth_000"));
        CHECK(!*cell(&t, r, "object") && !*cell(&t, r, "run") && !*cell(&t, r, "J"));
        CHECK(num(&t, r, "frames") == N_FRAMES && num(&t, r, "imgsz") == 64);
        const double p50 = num(&t, r, "ms_per_frame_p50"), p95 = num(&t, r, "ms_per_frame_p95");
        const double p99 = num(&t, r, "ms_per_frame_p99"), fps = num(&t, r, "fps");
        CHECK(p50 > 0 && p50 <= p95 && p95 <= p99);
        CHECK(fps > 0 && fabs(num(&t, r, "object_frames_per_s") - k * fps) <= 2e-3 + 1e-6 * k * fps);
        CHECK(*cell(&t, r, "frame_gpu_busy") && num(&t, r, "frame_gpu_busy") >= 0 &&
              num(&t, r, "frame_gpu_busy") <= 1);
        CHECK(num(&t, r, "arena_bytes") > 0 && num(&t, r, "state_bytes") > 0);
        CHECK(fabs(num(&t, r, "arena_bytes") / 1048576.0 - num(&t, r, "gpu_peak_alloc_MiB")) < 1e-3);
        CHECK(fabs(num(&t, r, "state_bytes") / 1048576.0 - num(&t, r, "arena_state_MiB")) < 1e-3);
        /* an objects-only sweep row is one stream: its streams columns say so */
        CHECK(num(&t, r, "streams") == 1 && !strcmp(cell(&t, r, "stream_fps"), cell(&t, r, "fps")));
        CHECK(!strcmp(cell(&t, r, "aggregate_fps"), cell(&t, r, "fps")));
        CHECK(num(&t, r, "stream_fps_min") == num(&t, r, "stream_fps_max"));
        CHECK(!strcmp(cell(&t, r, "total_arena_bytes"), cell(&t, r, "arena_bytes")));
    }
    if (t.n_rows == 3) {
        /* the engine is set up per configuration: two objects, more state, a larger arena */
        CHECK(num(&t, 2, "state_bytes") > num(&t, 1, "state_bytes"));
        CHECK(num(&t, 2, "arena_bytes") > num(&t, 1, "arena_bytes"));
    }
    samrt_csv_free(&t);
    snprintf(path, sizeof path, "%s/profile_stats.json", out);
    char *js = tt_read(path);
    CHECK(js && strstr(js, "\"sam2.1_tiny_points\": {") && strstr(js, "\"fps\": {\"n\": 2,"));
    const char *sw = js ? strstr(js, "\"sweep\": [") : NULL;
    CHECK(sw && tt_count(sw, "{\"model\": \"sam2.1_tiny_points\", \"video\": \"synth_000\", \"config\": ") == 2);
    CHECK(sw && strstr(sw, "\"config\": \"objects=1\", \"objects\": 1, \"grid_objects\": 0, \"ms_per_frame_p50\": "));
    CHECK(sw && strstr(sw, "\"config\": \"objects=2\", \"objects\": 2, \"grid_objects\": 1, \"ms_per_frame_p50\": "));
    CHECK(sw && strstr(sw, "\"arena_bytes\": ") && strstr(sw, "\"state_bytes\": ") && !strstr(sw, "null"));
    free(js);
    snprintf(path, sizeof path, "%s/experiment_config.txt", out);
    char *cfg = tt_read(path);
    CHECK(cfg && strstr(cfg, "\nobjects=1,2\n") && strstr(cfg, "\nstatus=ok\n"));
    free(cfg);
    snprintf(path, sizeof path, "%s/sam2.1_tiny_points", out);
    CHECK(access(path, F_OK) != 0);  /* a sweep writes no masks */
}

/* --streams 1,2 (one object) on the CPU backend: the model engine, then it and one session on
 * two threads; one row per count of streams. */
static void test_streams(void) {
    const char *cap = tt_path("streams.txt"), *out = tt_path("streams");
    const int rc = TT_RUN(cap, bench_tiny_real, "bench", "--split_dir", g_bt.split, "--out_dir", out, "--weights_dir",
                          g_bt.weights, "--models", "sam2.1_tiny_points", "--streams", "1,2", "--imgsz", "64",
                          "--platform", "cpu", "--precision", "fp32", "--warmup", "1", "--warmup_frames", "1",
                          "--runs", "1");
    char *log = tt_read(cap);
    CHECK_MSG(rc == SAMRT_EXIT_OK, "exit %d: %s", rc, log ? log : "");
    CHECK(log && strstr(log, "sam2.1_tiny_points objects=1;streams=2 synth_000: ms/frame p50 ") &&
          strstr(log, "; 2 streams: "));
    free(log);
    struct samrt_csv t;
    char err[256], path[700];
    snprintf(path, sizeof path, "%s/profile_summary.csv", out);
    CHECK_STATUS(samrt_csv_read_table(path, &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT((int)t.n_rows - 1, 2);
    for (size_t r = 1; r < t.n_rows && t.n_rows == 3; r++) {
        const int k = (int)r;
        char cfg[32];
        snprintf(cfg, sizeof cfg, "objects=1;streams=%d", k);
        CHECK(!strcmp(cell(&t, r, "config"), cfg) && num(&t, r, "streams") == k && num(&t, r, "objects") == 1);
        CHECK(num(&t, r, "frames") == k * N_FRAMES && num(&t, r, "grid_objects") == 0);
        const double lo = num(&t, r, "stream_fps_min"), agg = num(&t, r, "aggregate_fps");
        CHECK(lo > 0 && lo <= num(&t, r, "stream_fps_max") && tt_count(cell(&t, r, "stream_fps"), ";") == k - 1);
        CHECK_MSG(fabs(agg - k * lo) <= k * 5e-4 + 1e-9 * agg, "aggregate %f, slowest %f", agg, lo);
        CHECK(fabs(num(&t, r, "aggregate_object_frames_per_s") - agg) <= 1e-3);
        CHECK(num(&t, r, "ms_per_frame_p50") > 0 && num(&t, r, "ms_per_frame_p50") <= num(&t, r, "ms_per_frame_p99"));
        const double arena = num(&t, r, "arena_bytes"), total = num(&t, r, "total_arena_bytes");
        CHECK(fabs(total / 1048576.0 - num(&t, r, "gpu_peak_alloc_MiB")) < 1e-3);
        /* a session commits everything but the weights, which it reads from the model engine
         * (arena_weights_MiB has 3 decimals: within 2^20 / 2000 bytes) */
        if (k == 1) CHECK(total == arena);
        else CHECK_MSG(total > arena && fabs(total - arena - (arena - num(&t, r, "arena_weights_MiB") * 1048576.0)) < 600,
                       "arena %.0f, all %.0f, weights %s MiB", arena, total, cell(&t, r, "arena_weights_MiB"));
    }
    if (t.n_rows == 3) CHECK(num(&t, 1, "arena_bytes") == num(&t, 2, "arena_bytes"));
    samrt_csv_free(&t);
    snprintf(path, sizeof path, "%s/experiment_config.txt", out);
    char *cfg = tt_read(path);
    CHECK(cfg && strstr(cfg, "\nobjects=1\n") && strstr(cfg, "\nstreams=1,2\n") && strstr(cfg, "\nstatus=ok\n"));
    free(cfg);
}

int main(void) {
    if (tt_begin("test_bench_sweep")) return 1;
    test_parse_objects();
    test_parse_streams();
    test_grid();
    if (bench_tiny_setup("test_bench_sweep", N_FRAMES, VW, VH, &g_bt)) return 1;
    test_refused();
    if (BENCH_TINY_RUNS) test_sweep(), test_streams();
    return bench_tiny_end("test_bench_sweep", &g_bt);
}
