/* test_report.c - `samrt report`: one <svg> per chart (FPS, latency, memory, stages), no
 * external resource or script anywhere in the page, absent stages left out and named,
 * HTML escaping of names, the fallback to mean latency for older CSVs, bad input, and the
 * throughput-vs-latency chart of an object sweep: drawn (points, labels, whiskers, medians
 * in its table) when rows carry `objects`, absent otherwise.
 * The page's look is checked by eye in headless Chromium (docs/profiling.md).
 * Run: ctest -R test_report */
#include <string.h>

#include "check.h"
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

static void test_sweep(void) {
    /* edgetam on one platform: 1, 2, 4 objects, two videos of 2 objects (medians of two rows);
     * tiny: 1 object; the last row is an ordinary (non-sweep) row */
    const char *csv = "platform,model,video,fps,latency_ms,config,objects,ms_per_frame_p50,ms_per_frame_p95,"
                      "object_frames_per_s\n"
                      "h100,edgetam,a,100,10,objects=1,1,10,12,100\n"
                      "h100,edgetam,a,90,11,objects=2,2,11,13,180\n"
                      "h100,edgetam,b,80,12,objects=2,2,13,17,160\n"
                      "h100,edgetam,a,60,16,objects=4,4,16,21,240\n"
                      "h100,tiny,a,50,20,objects=1,1,20,25,50\n"
                      "h100,tiny,a,50,20,,,,,\n";
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

int main(void) {
    if (tt_begin("test_report")) return 1;
    test_full();
    test_partial();
    test_sweep();
    test_bad_input();
    return tt_end("test_report");
}
