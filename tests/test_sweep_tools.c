/* test_sweep_tools.c - sweep CSVs (`samrt bench --objects`, `--streams`) through `samrt merge`,
 * `compare` and `report`, on small files written here with the bench's own writer
 * (samrt_profile_write_csv):
 *   - merge joins a sweep file with an ordinary one and with a sweep file written before the
 *     streams columns: the output has every sweep column, empty in the rows they do not apply
 *     to; a sweep file missing a column is refused, naming the file and the column, and the
 *     previous output stays byte for byte;
 *   - compare compares the merged file configuration by configuration (objects, streams), apart
 *     from the ordinary rows, and flags a slower configuration (exit 1) and only that one;
 *   - report draws a merged file with both: the sweep chart from the sweep rows, the other
 *     charts from the ordinary rows, and refuses a sweep file missing a column (no page).
 * Run: ctest -R test_sweep_tools */
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "csv.h"
#include "profile.h"
#include "tool_test.h"

static void base_row(struct samrt_profile_row *r, const char *model, double fps) {
    samrt_profile_row_init(r);
    snprintf(r->platform, sizeof r->platform, "h100");
    snprintf(r->hostname, sizeof r->hostname, "gpu7");
    snprintf(r->video, sizeof r->video, "bedroom");
    snprintf(r->model, sizeof r->model, "%s", model);
    snprintf(r->timestamp, sizeof r->timestamp, "2025-11-30T14:30:22Z");
    r->run = 0;
    r->fps = fps;
    r->latency_ms = 1000.0 / fps;
}

/* A sweep row of n objects on k streams; slow scales its ms per frame. */
static void sweep_row(struct samrt_profile_row *r, int n, int k, double slow) {
    base_row(r, "tiny", 100.0 / n);
    snprintf(r->config, sizeof r->config, "objects=%d;streams=%d", n, k);
    r->objects = n;
    r->grid_objects = n - 1;
    r->ms_per_frame_p50 = (8.0 + 2.0 * n) * slow;
    r->ms_per_frame_p95 = (10.0 + 2.0 * n) * slow;
    r->ms_per_frame_p99 = (11.0 + 2.0 * n) * slow;
    r->streams = k;
    r->aggregate_fps = k * 100.0 / n / slow;
    samrt_profile_row_derive(r);
}

/* dir/profile_summary.csv: two ordinary rows (plain) or the sweep 1, 2 objects x 1, 2 streams. */
static void write_file(const char *dir, int sweep, double slow) {
    struct samrt_profile_row rows[4];
    size_t n = 0;
    if (sweep)
        for (int k = 1; k <= 2; k++)
            for (int obj = 1; obj <= 2; obj++) sweep_row(&rows[n++], obj, k, slow);
    else {
        base_row(&rows[n++], "tiny", 50.0 / slow);
        base_row(&rows[n++], "tiny", 52.0 / slow);
    }
    mkdir(tt_path(dir), 0755);
    char p[512];
    snprintf(p, sizeof p, "%s/profile_summary.csv", tt_path(dir));
    CHECK_STATUS(samrt_profile_write_csv(p, rows, n), SAMRT_OK);
}

/* A copy of src without column `drop` (header and cells), written to dst. */
static void drop_column(const char *src, const char *dst, const char *drop) {
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_read_table(src, &t, err, sizeof err), SAMRT_OK);
    const int c = samrt_csv_col(&t, drop);
    CHECK(c >= 0);
    FILE *f = fopen(dst, "w");
    CHECK(f != NULL);
    for (size_t r = 0; f && r < t.n_rows; r++) {
        const char *cells[128];
        size_t k = 0;
        for (size_t i = 0; i < t.n_fields[r] && k < 128; i++)
            if ((int)i != c) cells[k++] = t.fields[r][i];
        samrt_csv_write_row(f, cells, k);
    }
    if (f) fclose(f);
    samrt_csv_free(&t);
}

static int log_has(const char *what) {
    char *log = tt_read(tt_path("out.txt"));
    const int ok = log && strstr(log, what);
    if (!ok) fprintf(stderr, "output lacks '%s':\n%s\n", what, log ? log : "(none)");
    free(log);
    return ok;
}

static void test_merge(void) {
    write_file("plain", 0, 1.0);
    write_file("sweep", 1, 1.0);
    char out[512];
    snprintf(out, sizeof out, "%s", tt_path("merged.csv"));
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_merge, "merge", tt_path("plain"), tt_path("sweep"), "-o", out),
                 SAMRT_EXIT_OK);
    CHECK(log_has("Total entries: 6"));
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_read_table(out, &t, err, sizeof err), SAMRT_OK);
    size_t n_base, n_all;
    samrt_profile_columns(&n_base);
    struct samrt_profile_row one;
    sweep_row(&one, 1, 1, 1.0);
    const struct samrt_profile_col *cols = samrt_profile_file_columns(&one, 1, &n_all);
    CHECK_EQ_INT(t.n_rows, 7);
    CHECK_EQ_INT(t.n_fields[0], n_all);  /* every column, the sweep's at the end */
    for (size_t c = 0; c < n_all && c < t.n_fields[0]; c++) CHECK(!strcmp(t.fields[0][c], cols[c].name));
    const int c_obj = samrt_csv_col(&t, "objects"), c_fps = samrt_csv_col(&t, "fps");
    CHECK(!strcmp(samrt_csv_cell(&t, 1, c_obj), ""));   /* ordinary rows: sweep cells empty */
    CHECK(!strcmp(samrt_csv_cell(&t, 2, samrt_csv_col(&t, "total_arena_bytes")), ""));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, c_fps), "50.000"));
    CHECK(!strcmp(samrt_csv_cell(&t, 4, c_obj), "2"));  /* sweep rows: copied as written */
    CHECK(!strcmp(samrt_csv_cell(&t, 4, samrt_csv_col(&t, "ms_per_frame_p95")), "14.000"));
    CHECK(!strcmp(samrt_csv_cell(&t, 6, samrt_csv_col(&t, "streams")), "2"));
    samrt_csv_free(&t);

    /* the other order (sweep file first) gives the same columns */
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_merge, "merge", "-q", tt_path("sweep"), tt_path("plain"), "-o",
                        tt_path("merged2.csv")), SAMRT_EXIT_OK);
    CHECK_STATUS(samrt_csv_read_table(tt_path("merged2.csv"), &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_fields[0], n_all);
    CHECK(!strcmp(samrt_csv_cell(&t, 5, c_obj), ""));
    samrt_csv_free(&t);

    /* a sweep file from before --streams (no streams group) joins: its streams cells empty */
    mkdir(tt_path("old"), 0755);
    const char *streams_group[] = {"streams", "stream_fps", "stream_fps_min", "stream_fps_max", "aggregate_fps",
                                   "aggregate_object_frames_per_s", "total_arena_bytes"};
    char src[512], dst[512];
    snprintf(src, sizeof src, "%s", tt_path("sweep/profile_summary.csv"));
    for (size_t i = 0; i < sizeof streams_group / sizeof *streams_group; i++) {
        snprintf(dst, sizeof dst, "%s", tt_path(i % 2 ? "old/a.csv" : "old/b.csv"));
        drop_column(src, dst, streams_group[i]);
        snprintf(src, sizeof src, "%s", dst);
    }
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_merge, "merge", "-q", tt_path("plain"), src, "-o",
                        tt_path("merged3.csv")), SAMRT_EXIT_OK);
    CHECK_STATUS(samrt_csv_read_table(tt_path("merged3.csv"), &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_fields[0], n_all);
    CHECK(!strcmp(samrt_csv_cell(&t, 3, c_obj), "1") && !strcmp(samrt_csv_cell(&t, 3, samrt_csv_col(&t, "streams")), ""));
    samrt_csv_free(&t);

    /* a sweep file missing a column: refused with the file and the column, nothing written */
    char *before = tt_read(out);
    drop_column(tt_path("sweep/profile_summary.csv"), tt_path("broken.csv"), "ms_per_frame_p50");
    drop_column(tt_path("sweep/profile_summary.csv"), tt_path("broken_streams.csv"), "stream_fps_min");
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_merge, "merge", tt_path("plain"), tt_path("broken.csv"), "-o",
                        out), SAMRT_EXIT_USAGE);
    CHECK(log_has("broken.csv: a sweep CSV") && log_has("without its column 'ms_per_frame_p50'"));
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_merge, "merge", tt_path("broken_streams.csv"), "-o", out),
                 SAMRT_EXIT_USAGE);
    CHECK(log_has("broken_streams.csv") && log_has("'stream_fps_min'"));
    char *after = tt_read(out);
    CHECK(before && after && !strcmp(before, after));
    free(before), free(after);
}

static void test_compare(void) {
    static char slower[] = "16.8";  /* 14 -> 16.8: +20% */
    /* the latest: 2 objects on 1 stream 20% slower per frame, the rest as the baseline */
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_read_table(tt_path("merged.csv"), &t, err, sizeof err), SAMRT_OK);
    FILE *f = fopen(tt_path("latest.csv"), "w");
    CHECK(f != NULL);
    const int c_obj = samrt_csv_col(&t, "objects"), c_k = samrt_csv_col(&t, "streams");
    const int c_p95 = samrt_csv_col(&t, "ms_per_frame_p95");
    for (size_t r = 0; f && r < t.n_rows; r++) {
        if (r && !strcmp(samrt_csv_cell(&t, r, c_obj), "2") && !strcmp(samrt_csv_cell(&t, r, c_k), "1"))
            t.fields[r][c_p95] = slower;
        samrt_csv_write_row(f, (const char *const *)t.fields[r], t.n_fields[r]);
    }
    if (f) fclose(f);
    samrt_csv_free(&t);
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_compare, "compare", tt_path("merged.csv"), tt_path("merged.csv")),
                 SAMRT_EXIT_OK);
    CHECK(log_has("(5 groups)"));  /* the ordinary rows, then 4 configurations */
    CHECK(log_has("tiny objects=2;streams=2"));
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_compare, "compare", tt_path("merged.csv"), tt_path("latest.csv")),
                 SAMRT_EXIT_PROBLEM);
    char *log = tt_read(tt_path("out.txt"));
    const char *line = log ? strstr(log, "REGRESSION") : NULL;
    const char *bol = line;
    while (bol && bol > log && bol[-1] != '\n') bol--;
    CHECK_MSG(bol && !strncmp(strstr(bol, "tiny"), "tiny objects=2 ", 15) && strstr(bol, "ms_per_frame_p95") < line &&
                  strstr(line + 1, "REGRESSION") == NULL,
              "%s", log ? log : "(none)");  /* that configuration alone */
    CHECK(log && strstr(log, "1 regression in"));
    free(log);
    /* a sweep file missing a column the comparison reads */
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_compare, "compare", tt_path("merged.csv"), tt_path("broken.csv")),
                 SAMRT_EXIT_USAGE);
    CHECK(log_has("broken.csv: a sweep CSV") && log_has("'ms_per_frame_p50'"));
}

static void test_report(void) {
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_report, "report", tt_path("merged.csv"), "-o",
                        tt_path("r.html")), SAMRT_EXIT_OK);
    char *html = tt_read(tt_path("r.html"));
    CHECK(html && strstr(html, "Throughput vs latency"));
    CHECK(html && strstr(html, "4 sweep rows") && strstr(html, "2 ordinary rows"));
    /* the throughput bars are the ordinary rows' median (51), not pulled down by the sweep's */
    CHECK_MSG(html && strstr(html, "<td>tiny</td><td>51.00</td>"), "%s", html ? "no 51.00 cell" : "no page");
    free(html);
    remove(tt_path("r2.html"));
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_report, "report", tt_path("broken.csv"), "-o", tt_path("r2.html")),
                 SAMRT_EXIT_USAGE);
    CHECK(log_has("broken.csv: a sweep CSV") && log_has("'ms_per_frame_p50'"));
    struct stat sb;
    CHECK(stat(tt_path("r2.html"), &sb) != 0);  /* no page, not half a page */
}

int main(void) {
    if (tt_begin("test_sweep_tools")) return 1;
    test_merge();
    test_compare();
    test_report();
    return tt_end("test_sweep_tools");
}
