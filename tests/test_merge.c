/* test_merge.c - `samrt merge`: two shard folders merged (rows in order, empty cells kept
 * empty, quoted cells intact), fill-ins for older files (platform and timestamp from the
 * experiment folder name, hostname from experiment_config.txt), and refusals: mismatched
 * columns (the message names the file and the first differing column), ragged rows,
 * missing inputs. After a refusal the previous output file is unchanged byte for byte.
 * Run: ctest -R test_merge */
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "csv.h"
#include "profile.h"
#include "tool_test.h"

static void make_shard(const char *dir, const char *platform, const char *host, int n, int first_run) {
    mkdir(tt_path(dir), 0755);
    struct samrt_profile_row rows[4];
    for (int i = 0; i < n; i++) {
        samrt_profile_row_init(&rows[i]);
        snprintf(rows[i].platform, sizeof rows[i].platform, "%s", platform);
        snprintf(rows[i].hostname, sizeof rows[i].hostname, "%s", host);
        snprintf(rows[i].video, sizeof rows[i].video, "vid,%d", i);  /* quoted in the CSV */
        snprintf(rows[i].model, sizeof rows[i].model, "sam2.1_tiny");
        snprintf(rows[i].timestamp, sizeof rows[i].timestamp, "2025-11-30T14:30:2%dZ", i);
        rows[i].run = first_run + i;
        rows[i].fps = 10.0 + i;
    }
    char p[512];
    snprintf(p, sizeof p, "%s/profile_summary.csv", tt_path(dir));
    CHECK_STATUS(samrt_profile_write_csv(p, rows, (size_t)n), SAMRT_OK);
}

static void test_shards(void) {
    make_shard("shard0", "orin-nano-8gb", "jet1", 2, 0);
    make_shard("shard1", "h100-80gb", "gpu7", 1, 0);
    char cap[512], out[512];  /* own copies: tt_path() reuses 8 buffers */
    snprintf(cap, sizeof cap, "%s", tt_path("out.txt"));
    snprintf(out, sizeof out, "%s", tt_path("merged.csv"));
    int rc = TT_RUN(cap, samrt_cmd_merge, "merge", tt_path("shard0"), tt_path("shard1"), "-o", out);
    CHECK_EQ_INT(rc, SAMRT_EXIT_OK);
    char *log = tt_read(cap);
    CHECK_MSG(log && strstr(log, "Total entries: 3") && strstr(log, "orin-nano-8gb: 2") &&
                  strstr(log, "h100-80gb: 1"),
              "%s", log ? log : "(no output)");
    free(log);
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_read_table(out, &t, err, sizeof err), SAMRT_OK);
    size_t n_cols;
    samrt_profile_columns(&n_cols);
    CHECK_EQ_INT(t.n_rows, 4);
    CHECK_EQ_INT(t.n_fields[0], n_cols);
    int c_plat = samrt_csv_col(&t, "platform"), c_video = samrt_csv_col(&t, "video");
    CHECK(!strcmp(samrt_csv_cell(&t, 1, c_plat), "orin-nano-8gb"));
    CHECK(!strcmp(samrt_csv_cell(&t, 2, c_plat), "orin-nano-8gb"));
    CHECK(!strcmp(samrt_csv_cell(&t, 3, c_plat), "h100-80gb"));
    CHECK(!strcmp(samrt_csv_cell(&t, 3, samrt_csv_col(&t, "hostname")), "gpu7"));
    CHECK(!strcmp(samrt_csv_cell(&t, 2, c_video), "vid,1"));
    CHECK(!strcmp(samrt_csv_cell(&t, 2, samrt_csv_col(&t, "fps")), "11.000"));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, "latency_ms")), ""));   /* absent stays empty */
    CHECK(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, "timestamp")), "2025-11-30T14:30:20Z"));
    samrt_csv_free(&t);

    /* the same folder twice counts once */
    rc = TT_RUN(cap, samrt_cmd_merge, "merge", "-q", tt_path("shard0"), tt_path("shard0"), "-o", tt_path("twice.csv"));
    CHECK_EQ_INT(rc, SAMRT_EXIT_OK);
    CHECK_STATUS(samrt_csv_read_table(tt_path("twice.csv"), &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 3);
    samrt_csv_free(&t);
}

static void test_refusals(void) {
    char cap[512], out[512];
    snprintf(cap, sizeof cap, "%s", tt_path("out.txt"));
    snprintf(out, sizeof out, "%s", tt_path("merged.csv"));
    char *before = tt_read(out);
    CHECK(before != NULL);

    /* one column renamed */
    char *text = tt_read(tt_path("shard1/profile_summary.csv"));
    CHECK(text != NULL);
    if (!text) return;
    char *fps = strstr(text, ",fps,");
    CHECK(fps != NULL);
    if (fps) memcpy(fps, ",FPS,", 5);
    mkdir(tt_path("bad"), 0755);
    CHECK(tt_write(tt_path("bad/profile_summary.csv"), text) == 0);
    free(text);
    int rc = TT_RUN(cap, samrt_cmd_merge, "merge", tt_path("shard0"), tt_path("bad"), "-o", out);
    CHECK_EQ_INT(rc, SAMRT_EXIT_USAGE);
    char *log = tt_read(cap);
    CHECK_MSG(log && strstr(log, "bad/profile_summary.csv") && strstr(log, "column 9 is 'FPS'") &&
                  strstr(log, "'fps'"),
              "%s", log ? log : "(no output)");
    free(log);
    char *after = tt_read(out);
    CHECK(after && before && !strcmp(after, before));  /* nothing truncated or replaced */
    free(after);

    /* a short row */
    CHECK(tt_write(tt_path("ragged.csv"), "platform,hostname,model\na,b,c\nd,e\n") == 0);
    CHECK(tt_write(tt_path("ok.csv"), "platform,hostname,model,timestamp\na,b,c,t\n") == 0);
    rc = TT_RUN(cap, samrt_cmd_merge, "merge", tt_path("ok.csv"), tt_path("ragged.csv"), "-o", out);
    CHECK_EQ_INT(rc, SAMRT_EXIT_USAGE);
    log = tt_read(cap);
    CHECK_MSG(log && strstr(log, "ragged.csv: line 3: 2 fields"), "%s", log ? log : "");
    free(log);
    /* extra column at the end */
    CHECK(tt_write(tt_path("wide.csv"), "platform,hostname,model,timestamp,extra\na,b,c,t,d\n") == 0);
    rc = TT_RUN(cap, samrt_cmd_merge, "merge", tt_path("ok.csv"), tt_path("wide.csv"), "-o", out);
    CHECK_EQ_INT(rc, SAMRT_EXIT_USAGE);
    log = tt_read(cap);
    CHECK_MSG(log && strstr(log, "column 5 is 'extra' where the first file has '(none)'"), "%s", log ? log : "");
    free(log);

    mkdir(tt_path("empty_dir"), 0755);
    CHECK_EQ_INT(TT_RUN(cap, samrt_cmd_merge, "merge", tt_path("empty_dir"), "-o", out), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, samrt_cmd_merge, "merge", tt_path("nonexistent"), "-o", out), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(cap, samrt_cmd_merge, "merge", tt_path("ok.csv")), SAMRT_EXIT_USAGE);  /* no -o */
    CHECK_EQ_INT(TT_RUN(cap, samrt_cmd_merge, "merge", "-o", out), SAMRT_EXIT_USAGE);       /* no input */
    after = tt_read(out);
    CHECK(after && before && !strcmp(after, before));
    free(after);
    free(before);
}

/* Files from the old scripts: the 19 historical columns, no timestamp, some cells empty. */
static void test_legacy(void) {
    static const char hdr[] = "platform,hostname,video,object,model,run,imgsz,frames,fps,latency_ms,"
                              "gpu_peak_alloc_MiB,gpu_peak_reserved_MiB,cpu_peak_rss_MiB,setup_ms,H,W,"
                              "infer_H,infer_W,nsight_report\n";
    char text[1024];
    const char *jet = "nsight_experiment_jetson_20251130_150000";
    mkdir(tt_path("collected"), 0755);
    mkdir(tt_path("collected/nsight_experiment_jetson_20251130_150000"), 0755);
    mkdir(tt_path("collected/nsight_experiment_jetson_20251130_150000/profile_outputs"), 0755);
    mkdir(tt_path("collected/nsight_experiment_desktop_20251130_143022"), 0755);
    mkdir(tt_path("collected/nsight_experiment_desktop_20251130_143022/profile_outputs"), 0755);
    snprintf(text, sizeof text, "%s,,v1,1,sam2_tiny_points,0,1024,100,8.5,117.6,900,1200,2100,5000,480,"
                                "640,1024,1024,\n", hdr);
    char p[512];
    snprintf(p, sizeof p, "collected/%s/profile_outputs/profile_summary.csv", jet);
    CHECK(tt_write(tt_path(p), text) == 0);
    snprintf(p, sizeof p, "collected/%s/experiment_config.txt", jet);
    CHECK(tt_write(tt_path(p), "# old run\nhostname=jetson-orin\n") == 0);
    snprintf(text, sizeof text, "%sdesktop,ws1,v1,1,sam2_tiny_points,0,1024,100,60.2,16.6,900,1300,"
                                "3000,2500,480,640,1024,1024,r.nsys-rep\n", hdr);
    CHECK(tt_write(tt_path("collected/nsight_experiment_desktop_20251130_143022/profile_outputs/"
                        "profile_summary.csv"), text) == 0);

    char cap[512], out[512];
    snprintf(cap, sizeof cap, "%s", tt_path("out.txt"));
    snprintf(out, sizeof out, "%s", tt_path("legacy.csv"));
    int rc = TT_RUN(cap, samrt_cmd_merge, "merge", tt_path("collected"), "-o", out);
    CHECK_EQ_INT(rc, SAMRT_EXIT_OK);
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_read_table(out, &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 3);
    CHECK_EQ_INT(t.n_fields[0], 20);
    CHECK(!strcmp(t.fields[0][19], "timestamp"));
    /* sorted folder order: desktop first */
    CHECK(!strcmp(samrt_csv_cell(&t, 1, 0), "desktop"));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, 1), "ws1"));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, 19), "2025-11-30T14:30:22"));
    CHECK(!strcmp(samrt_csv_cell(&t, 2, 0), "jetson"));          /* empty cell, from the folder */
    CHECK(!strcmp(samrt_csv_cell(&t, 2, 1), "jetson-orin"));     /* from experiment_config.txt */
    CHECK(!strcmp(samrt_csv_cell(&t, 2, 19), "2025-11-30T15:00:00"));
    CHECK(!strcmp(samrt_csv_cell(&t, 2, 18), ""));               /* nsight_report stays empty */
    CHECK(!strcmp(samrt_csv_cell(&t, 2, 8), "8.5"));             /* text copied, not reformatted */
    samrt_csv_free(&t);
}

int main(void) {
    if (tt_begin("test_merge")) return 1;
    test_shards();
    test_refusals();
    test_legacy();
    return tt_end("test_merge");
}
