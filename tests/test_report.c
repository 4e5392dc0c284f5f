/* test_report.c - `samrt report`: one <svg> per chart (FPS, latency, memory, stages), no
 * external resource or script anywhere in the page, absent stages left out and named,
 * HTML escaping of names, the fallback to mean latency for older CSVs, bad input, and the
 * throughput-vs-latency chart of an object sweep: drawn (points, labels, whiskers, medians
 * in its table) when rows carry `objects`, absent otherwise; and the chart of
 * harness/report_sweep.c with streams (a line per model, platform and stream count, or one
 * across the streams), which draws an objects-only file exactly as the report does.
 * The page's look is checked by eye in headless Chromium (docs/profiling.md).
 * Run: ctest -R test_report */
#include <string.h>

#include "check.h"
#include "csv.h"
#include "report_sweep.h"
#include "tool_test.h"

/* The page may not load or link anything. */
static void check_self_contained(const char *html) {
    static const char *const banned[] = {"http:", "https:", "ftp:", "//", "src=", "href=", "url(",
                                         "@import", "<script", "<link", "<iframe", "<img", "xlink"};
    for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
        CHECK_MSG(!strstr(html, banned[i]), "page contains '%s'", banned[i]);
    CHECK(!strncmp(html, "<!DOCTYPE html>", 15));
    CHECK(strstr(html, "</html>\n") != NULL);
}

static char *report(const char *csv_text, int *rc) {
    CHECK(tt_write(tt_path("in.csv"), csv_text) == 0);
    remove(tt_path("r.html"));
    *rc = TT_RUN(tt_path("out.txt"), samrt_cmd_report, "report", tt_path("in.csv"), "-o", tt_path("r.html"));
    return tt_read(tt_path("r.html"));
}

/* The page of a CSV that must be written (exit 0), checked to be self-contained; NULL when not. */
static char *report_ok(const char *csv_text) {
    int rc;
    char *html = report(csv_text, &rc);
    CHECK_EQ_INT(rc, SAMRT_EXIT_OK);
    CHECK(html != NULL);
    if (html) check_self_contained(html);
    return html;
}

static void test_full(void) {
    const char *csv = "platform,hostname,model,run,fps,latency_p95_ms,gpu_peak_alloc_MiB,gpu_peak_reserved_MiB,"
                      "cpu_peak_rss_MiB,decode_ms,image_encoder_ms,memory_attention_ms,d2h_ms\n"
                      "orin,j1,sam2.1_tiny,0,10,100,500,700,300,,50,20,\n"
                      "orin,j1,sam2.1_tiny,1,11,98,500,700,310,,49,21,\n"
                      "h100,g1,sam2.1_tiny,0,100,10,500,900,800,,5,2,\n"
                      "h100,g1,a<b&c,0,150,7,300,600,700,,3,1,\n";
    char *html = report_ok(csv);
    if (!html) return;
    CHECK_EQ_INT(tt_count(html, "<svg"), 4);
    CHECK_EQ_INT(tt_count(html, "</svg>"), 4);
    CHECK(strstr(html, "Throughput") && strstr(html, "p95 latency") && strstr(html, "Memory") &&
          strstr(html, "Stage breakdown"));
    CHECK(strstr(html, "a&lt;b&amp;c") != NULL);
    CHECK(strstr(html, "a<b&c") == NULL);
    /* stages with values are drawn; the others are named in the note */
    CHECK(strstr(html, ">image_encoder_ms<") && strstr(html, ">memory_attention_ms<"));
    const char *note = strstr(html, "Not measured in any row, left out: ");
    CHECK(note != NULL);
    if (note) {
        CHECK(strstr(note, "decode_ms") && strstr(note, "d2h_ms") && strstr(note, "prompt_and_mask_decoder_ms"));
        const char *end = strstr(note, "</p>");
        CHECK(end && !memmem(note, (size_t)(end - note), "image_encoder_ms", 16));
    }
    /* medians: orin tiny fps (10 + 11) / 2 */
    CHECK(strstr(html, ">10.50<") != NULL);
    /* edgetam-like model never ran on orin: a gap, not a zero bar */
    CHECK(strstr(html, ">n/a<") != NULL);
    CHECK(!strstr(html, "Throughput vs latency") && !strstr(html, "<circle"));  /* no sweep */
    free(html);
}

static void test_partial(void) {
    /* an old CSV: no stage columns, no latency_p95_ms, no platform column */
    const char *csv = "model,fps,latency_ms,gpu_peak_alloc_MiB\nsam2_tiny,8,120,900\nsam2_small,6,160,1100\n";
    char *html = report_ok(csv);
    if (!html) return;
    CHECK_EQ_INT(tt_count(html, "<svg"), 3);
    CHECK(strstr(html, "No stage timings") != NULL);
    CHECK(strstr(html, "Mean latency per frame") != NULL);
    CHECK(strstr(html, "(no platform)") != NULL);
    free(html);
}

/* edgetam on one platform: 1, 2, 4 objects, two videos of 2 objects (medians of two rows);
 * tiny: 1 object; the last row is an ordinary (non-sweep) row */
static const char *const g_object_sweep =
    "platform,model,video,fps,latency_ms,config,objects,ms_per_frame_p50,ms_per_frame_p95,"
    "object_frames_per_s\n"
    "h100,edgetam,a,100,10,objects=1,1,10,12,100\n"
    "h100,edgetam,a,90,11,objects=2,2,11,13,180\n"
    "h100,edgetam,b,80,12,objects=2,2,13,17,160\n"
    "h100,edgetam,a,60,16,objects=4,4,16,21,240\n"
    "h100,tiny,a,50,20,objects=1,1,20,25,50\n"
    "h100,tiny,a,50,20,,,,,\n";

static void test_sweep(void) {
    const char *csv = g_object_sweep;
    char *html = report_ok(csv);
    if (!html) return;
    CHECK_EQ_INT(tt_count(html, "<svg"), 4);  /* throughput, latency, memory, sweep (no stages) */
    const char *sw = strstr(html, "Throughput vs latency (object sweep)");
    CHECK(sw != NULL);
    if (!sw) {
        free(html);
        return;
    }
    CHECK(strstr(html, "Throughput</h2>") > sw);  /* it comes before the per-model charts */
    /* 3 + 1 points, each a circle with a label; whiskers to p95; a line per series */
    CHECK_EQ_INT(tt_count(html, "<circle"), 4);
    CHECK_EQ_INT(tt_count(html, "<polyline"), 2);
    CHECK_EQ_INT(tt_count(html, "<path d="), 4);
    CHECK(strstr(html, "edgetam / h100 4: x 240.0, y 16.00, whisker 21.00") != NULL);
    /* objects=2: medians of the two videos: x (180 + 160) / 2, y (11 + 13) / 2, p95 (13 + 17) / 2 */
    CHECK(strstr(html, "<td>edgetam / h100</td><td>2</td><td>170.0</td><td>12.00</td><td>15.00</td>") != NULL);
    CHECK(strstr(html, "<td>tiny / h100</td><td>1</td><td>50.00</td><td>20.00</td><td>25.00</td>") != NULL);
    CHECK(strstr(html, ">object-frames per second (higher is better)<") != NULL);
    free(html);
    /* an objects column without a value: no sweep, no chart */
    html = report_ok("model,fps,objects,ms_per_frame_p50\nsam2_tiny,8,,\n");
    CHECK(html && !strstr(html, "Throughput vs latency") && tt_count(html, "<svg") == 3);
    free(html);
}

static void test_bad_input(void) {
    int rc;
    char *html = report("platform,fps\norin,3\n", &rc);  /* no model column */
    CHECK_EQ_INT(rc, SAMRT_EXIT_USAGE);
    CHECK(html == NULL);
    free(html);
    html = report("model,fps\n", &rc);  /* no rows */
    CHECK_EQ_INT(rc, SAMRT_EXIT_USAGE);
    free(html);
    html = report("model,fps\na,\"1\n", &rc);  /* malformed */
    CHECK_EQ_INT(rc, SAMRT_EXIT_USAGE);
    free(html);
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_report, "report", tt_path("in.csv")), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_report, "report", tt_path("none.csv"), "-o", tt_path("x.html")),
                 SAMRT_EXIT_USAGE);
}

/* samrt_report_sweep_chart (harness/report_sweep.c) on csv_text: the figure it writes. */
static char *sweep_figure(const char *csv_text) {
    struct samrt_csv t;
    char err[256];
    CHECK(tt_write(tt_path("sweep.csv"), csv_text) == 0);
    CHECK_STATUS(samrt_csv_read_table(tt_path("sweep.csv"), &t, err, sizeof err), SAMRT_OK);
    FILE *f = fopen(tt_path("sweep.html"), "w");
    CHECK(f != NULL);
    if (f) CHECK_EQ_INT(samrt_report_sweep_chart(f, &t), 0);
    if (f) fclose(f);
    samrt_csv_free(&t);
    return tt_read(tt_path("sweep.html"));
}

/* The chart with the streams dimension: edgetam 1 object on 1, 2, 4 streams is one line
 * across the streams (Kx); tiny 1 and 2 objects on 1 and 2 streams is a line per stream
 * count (Nobj); x is the aggregate object-frames/s of all streams. An objects-only file gives
 * exactly the figure `samrt report` draws. */
static void test_sweep_streams(void) {
    char *fig = sweep_figure(g_object_sweep), *page = report_ok(g_object_sweep);
    const char *from = page ? strstr(page, "<figure>\n<h2>Throughput vs latency") : NULL;
    const char *to = from ? strstr(from, "</figure>\n") : NULL;
    CHECK(fig && to && strlen(fig) == (size_t)(to + 10 - from) && !strncmp(fig, from, strlen(fig)));
    free(fig), free(page);
    const char *csv = "platform,model,video,fps,objects,streams,ms_per_frame_p50,ms_per_frame_p95,"
                      "object_frames_per_s,aggregate_object_frames_per_s\n"
                      "h100,edgetam,a,100,1,1,10,12,100,100\n"
                      "h100,edgetam,a,95,1,2,11,14,95,190\n"
                      "h100,edgetam,b,85,1,2,13,16,85,170\n"
                      "h100,edgetam,a,80,1,4,12,15,80,320\n"
                      "h100,tiny,a,50,1,1,20,25,50,50\n"
                      "h100,tiny,a,40,2,1,25,30,80,80\n"
                      "h100,tiny,a,45,1,2,22,26,45,90\n"
                      "h100,tiny,a,35,2,2,28,33,70,140\n"
                      "h100,tiny,a,50,,,,,,\n";
    fig = sweep_figure(csv);
    CHECK(fig && strstr(fig, "Throughput vs latency (sweep over objects and streams)") &&
          strstr(fig, ">object-frames per second, all streams together (higher is better)<"));
    CHECK(fig && tt_count(fig, "<svg") == 1 && tt_count(fig, "<circle") == 3 + 4 && tt_count(fig, "<polyline") == 3);
    /* 2 streams: the medians of two videos, x (190 + 170) / 2 */
    CHECK(fig && strstr(fig, "edgetam / h100, 1 object 2x: x 180.0, y 12.00, whisker 15.00"));
    CHECK(fig && strstr(fig, "<td>edgetam / h100, 1 object</td><td>4x</td><td>320.0</td><td>12.00</td>"));
    CHECK(fig && strstr(fig, "<td>tiny / h100, 1 stream</td><td>2obj</td><td>80.00</td><td>25.00</td>"));
    CHECK(fig && strstr(fig, "<td>tiny / h100, 2 streams</td><td>2obj</td><td>140.0</td><td>28.00</td>"));
    CHECK(fig && strstr(fig, "<th>configuration</th>") && !strstr(fig, "tiny / h100, 1 object"));
    free(fig);
    /* no sweep row: nothing */
    fig = sweep_figure("model,fps,objects,streams\nsam2_tiny,8,,\n");
    CHECK(fig && !*fig);
    free(fig);
}

int main(void) {
    if (tt_begin("test_report")) return 1;
    test_full();
    test_partial();
    test_sweep();
    test_sweep_streams();
    test_bad_input();
    return tt_end("test_report");
}
