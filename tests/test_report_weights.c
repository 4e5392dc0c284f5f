/* test_report_weights.c - a run on random weights says so at the top of its report. The bench
 * records the checkpoints in experiment_config.txt (checkpoint.<tag>=path); the config writer
 * (harness/profile_write.c) adds weights.<tag>=random (seeded) for a checkpoint written by
 * samrt_ckpt_write_random (the demo's stand-in), and `samrt report` of the profile CSV beside
 * it opens with a banner naming the model. Checked here:
 *   - a random-weight EdgeTAM checkpoint: the config line, the banner naming edgetam_points;
 *   - official-format files (the committed torch.save fixtures, zip64 and the older layout):
 *     no line, no banner;
 *   - a run of both: the banner names the random one only.
 * Run: ctest -R test_report_weights */
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "ckpt_write.h"
#include "profile.h"
#include "tool_test.h"

/* dir/experiment_config.txt naming the checkpoints, and dir/profile_summary.csv with one row
 * per tag; then samrt report of it. Returns the page (malloc'd) or NULL. */
static char *run_report(const char *dir, const char *const *tags, const char *const *ckpts, int n, char **config) {
    char d[512], path[600];
    snprintf(d, sizeof d, "%s", tt_path(dir));
    mkdir(d, 0755);
    struct samrt_profile_kv kv[4];
    char keys[4][64];
    struct samrt_profile_row rows[4];
    for (int i = 0; i < n; i++) {
        snprintf(keys[i], sizeof keys[i], "checkpoint.%s", tags[i]);
        kv[i] = (struct samrt_profile_kv){keys[i], ckpts[i]};
        samrt_profile_row_init(&rows[i]);
        snprintf(rows[i].platform, sizeof rows[i].platform, "cpu");
        snprintf(rows[i].model, sizeof rows[i].model, "%s", tags[i]);
        rows[i].run = 0;
        rows[i].fps = 2.0 + i;
    }
    snprintf(path, sizeof path, "%s/experiment_config.txt", d);
    CHECK_STATUS(samrt_profile_write_config(path, kv, (size_t)n), SAMRT_OK);
    *config = tt_read(path);
    snprintf(path, sizeof path, "%s/profile_summary.csv", d);
    CHECK_STATUS(samrt_profile_write_csv(path, rows, (size_t)n), SAMRT_OK);
    char out[600];
    snprintf(out, sizeof out, "%s/report.html", d);
    CHECK_EQ_INT(TT_RUN(tt_path("out.txt"), samrt_cmd_report, "report", path, "-o", out), SAMRT_EXIT_OK);
    return tt_read(out);
}

/* The text of the banner paragraph, or "" when the page has none. */
static const char *banner(const char *html) {
    static char buf[1024];
    const char *p = html ? strstr(html, "<p class=\"warn\">") : NULL, *e = p ? strstr(p, "</p>") : NULL;
    snprintf(buf, sizeof buf, "%.*s", p && e ? (int)(e - p) : 0, p ? p : "");
    return buf;
}

int main(void) {
    const char *data = getenv("SAMRT_TEST_DATA");
    if (!data) return check_skip("test_report_weights", "SAMRT_TEST_DATA is not set (run through ctest)");
    if (tt_begin("test_report_weights")) return 1;
    char rnd[512], official[512], old[512];
    snprintf(rnd, sizeof rnd, "%s", tt_path("edgetam.pt"));
    snprintf(official, sizeof official, "%s/ckpt/good/tiny_state.pt", data);
    snprintf(old, sizeof old, "%s/ckpt/good/tiny_state_old.pt", data);
    CHECK_STATUS(samrt_ckpt_write_random(rnd, SAMRT_MODEL_EDGETAM, 0), SAMRT_OK);

    char *config = NULL;
    const char *t1[] = {"edgetam_points"}, *c1[] = {rnd};
    char *html = run_report("random", t1, c1, 1, &config);
    CHECK_MSG(config && strstr(config, "\nweights.edgetam_points=random (seeded)\n"), "%s", config ? config : "");
    const char *b = banner(html);
    CHECK_MSG(strstr(b, "RANDOM WEIGHTS") && strstr(b, "edgetam_points") && strstr(b, "not meaningful"), "[%s]", b);
    CHECK(html && strstr(html, "<p class=\"warn\">") < strstr(html, "<h2>"));  /* at the top, before any section */
    free(html), free(config);

    const char *t2[] = {"sam2.1_tiny_points", "sam2.1_small_points"}, *c2[] = {official, old};
    html = run_report("official", t2, c2, 2, &config);
    CHECK_MSG(config && !strstr(config, "weights."), "%s", config ? config : "");
    CHECK(html && strstr(html, "<h2>") && !*banner(html) && !strstr(html, "RANDOM"));
    free(html), free(config);

    const char *t3[] = {"sam2.1_tiny_points", "edgetam_points"}, *c3[] = {official, rnd};
    html = run_report("both", t3, c3, 2, &config);
    b = banner(html);
    CHECK_MSG(strstr(b, "edgetam_points") && !strstr(b, "sam2.1_tiny_points"), "[%s]", b);
    CHECK(config && !strstr(config, "weights.sam2.1_tiny_points"));
    free(html), free(config);

    /* a checkpoint path that does not exist is not random (and not an error) */
    const char *c4[] = {"/nonexistent/edgetam.pt"};
    html = run_report("missing", t1, c4, 1, &config);
    CHECK(html && !*banner(html) && config && !strstr(config, "weights."));
    free(html), free(config);
    return tt_end("test_report_weights");
}
