/* test_compare.c - `samrt compare`: medians per (platform, model), direction-aware
 * thresholds (fps lower is worse, latency and memory higher is worse, J&F absolute),
 * overrides and "off", absent cells, and exit codes: 1 on a regression, 0 without, 2 on
 * bad input. Every expected verdict follows from the numbers in the CSVs below by hand.
 * Run: ctest -R test_compare */
#include <string.h>

#include "check.h"
#include "tool_test.h"

#define HDR "platform,model,run,fps,latency_p95_ms,gpu_peak_alloc_MiB,J&F\n"

/* Baseline medians: fps 30, p95 10, alloc 100, J&F 75. */
static const char g_base[] = HDR "orin,tiny,0,31,10.5,100,75\n"
                                 "orin,tiny,1,29,9.5,100,75\n"
                                 "orin,tiny,2,30,10,100,75\n";

static int compare(const char *latest_text, const char *extra1, const char *extra2) {
    CHECK(tt_write(tt_path("latest.csv"), latest_text) == 0);
    if (extra2) return TT_RUN(tt_path("out.txt"), samrt_cmd_compare, "compare", tt_path("base.csv"), tt_path("latest.csv"), extra1, extra2);
    if (extra1) return TT_RUN(tt_path("out.txt"), samrt_cmd_compare, "compare", tt_path("base.csv"), tt_path("latest.csv"), extra1);
    return TT_RUN(tt_path("out.txt"), samrt_cmd_compare, "compare", tt_path("base.csv"), tt_path("latest.csv"));
}

static int output_has(const char *what) {
    char *log = tt_read(tt_path("out.txt"));
    int ok = log && strstr(log, what);
    if (!ok) fprintf(stderr, "output lacks '%s':\n%s\n", what, log ? log : "(none)");
    free(log);
    return ok;
}

static void test_verdicts(void) {
    CHECK(tt_write(tt_path("base.csv"), g_base) == 0);
    /* identical */
    CHECK_EQ_INT(compare(g_base, NULL, NULL), SAMRT_EXIT_OK);
    CHECK(output_has("0 regressions in 4 comparisons"));
    /* fps median 29.5: -1.7%, inside 5% */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,29.5,10,100,75\n", NULL, NULL), SAMRT_EXIT_OK);
    /* fps median 27: -10% > 5% */
    const char *slow = HDR "orin,tiny,0,27,10,100,75\norin,tiny,1,26,10,100,75\norin,tiny,2,28,10,100,75\n";
    CHECK_EQ_INT(compare(slow, NULL, NULL), SAMRT_EXIT_PROBLEM);
    CHECK(output_has("REGRESSION"));
    CHECK(output_has("-10.0%"));
    CHECK_EQ_INT(compare(slow, "--threshold", "fps=15%"), SAMRT_EXIT_OK);
    CHECK_EQ_INT(compare(slow, "--threshold=fps=off", NULL), SAMRT_EXIT_OK);
    CHECK_EQ_INT(compare(slow, "-t", "fps=3.5"), SAMRT_EXIT_OK);   /* absolute: 3 FPS worse <= 3.5 */
    CHECK_EQ_INT(compare(slow, "-t", "fps=2.5"), SAMRT_EXIT_PROBLEM);
    /* fps up 33%: better, not a regression */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,40,10,100,75\n", NULL, NULL), SAMRT_EXIT_OK);
    CHECK(output_has("improved"));
    /* latency: higher is worse. 11.5 is +15% > 10%; 8 is -20%: fine */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,11.5,100,75\n", NULL, NULL), SAMRT_EXIT_PROBLEM);
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,8,100,75\n", NULL, NULL), SAMRT_EXIT_OK);
    /* memory: +2% > 1% default; -50% fine */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,10,102,75\n", NULL, NULL), SAMRT_EXIT_PROBLEM);
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,10,50,75\n", NULL, NULL), SAMRT_EXIT_OK);
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,10,102,75\n", "-t", "gpu_peak_alloc_MiB=2.5%"), SAMRT_EXIT_OK);
    /* J&F: absolute 0.5 by default; 74 is 1 point lower */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,10,100,74\n", NULL, NULL), SAMRT_EXIT_PROBLEM);
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,10,100,74\n", "-t", "J&F=2"), SAMRT_EXIT_OK);
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,10,100,75.4\n", NULL, NULL), SAMRT_EXIT_OK);
}

static void test_absent_and_groups(void) {
    /* latency empty in the latest file: reported as absent, not a regression (not 0 ms) */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,,100,75\n", NULL, NULL), SAMRT_EXIT_OK);
    CHECK(output_has("absent in latest"));
    /* the median ignores empty cells: 31, 29 -> 30 */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,31,,100,75\norin,tiny,1,,,100,75\norin,tiny,2,29,,100,75\n", NULL, NULL),
                 SAMRT_EXIT_OK);
    /* groups are (platform, model): another machine has nothing in common... */
    CHECK_EQ_INT(compare(HDR "h100,tiny,0,300,1,100,75\n", NULL, NULL), SAMRT_EXIT_USAGE);
    CHECK(output_has("nothing to compare"));
    /* ...unless --by-model (h100 is faster: no regression) */
    CHECK_EQ_INT(compare(HDR "h100,tiny,0,300,1,100,75\n", "--by-model", NULL), SAMRT_EXIT_OK);
    /* a model only in one file is listed, the rest still compared */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30,10,100,75\norin,edgetam,0,50,5,80,70\n", NULL, NULL), SAMRT_EXIT_OK);
    CHECK(output_has("only in the latest"));
}

static void test_bad_input(void) {
    CHECK_EQ_INT(compare(g_base, "-t", "nosuch=5%"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(compare(g_base, "-t", "fps=abc"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(compare(g_base, "-t", "fps"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(compare(g_base, "-t", "fps=-5%"), SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(compare(g_base, "-t", "run=5%"), SAMRT_EXIT_USAGE);  /* not a metric */
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,3x,10,100,75\n", NULL, NULL), SAMRT_EXIT_USAGE);
    CHECK(output_has("line 2: fps '3x' is not a number"));
    CHECK_EQ_INT(compare(HDR "orin,tiny,0,30\n", NULL, NULL), SAMRT_EXIT_USAGE);           /* ragged */
    CHECK_EQ_INT(compare("platform,fps\norin,30\n", NULL, NULL), SAMRT_EXIT_USAGE);       /* no model */
    CHECK_EQ_INT(compare(HDR "orin,\"tiny,0,30\n", NULL, NULL), SAMRT_EXIT_USAGE);        /* unclosed quote */
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_compare, "compare", tt_path("base.csv"), tt_path("missing.csv")),
                 SAMRT_EXIT_USAGE);
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_compare, "compare", tt_path("base.csv")), SAMRT_EXIT_USAGE);
}

int main(void) {
    if (tt_begin("test_compare")) return 1;
    test_verdicts();
    test_absent_and_groups();
    test_bad_input();
    return tt_end("test_compare");
}
