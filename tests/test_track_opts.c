/* test_track_opts.c - harness/track_opts.c, the options `samrt track` and `samrt bench` share:
 * --point, --box, --start, --max-frames, --prefetch, --runs, --imgsz, --precision and
 * --platform, with a malformed corpus for each (a refused value leaves the output untouched
 * and says why), and the getopt_long table both commands build (one spelling per option,
 * --max_frames included).
 * Run: ctest -R test_track_opts */
#include <getopt.h>
#include <string.h>

#include "check.h"
#include "track_opts.h"

static void test_point(void) {
    struct samrt_point p = {-1, -1, -1};
    CHECK(samrt_opt_point("210,350", &p) == 0 && p.x == 210 && p.y == 350 && p.label == 1);
    CHECK(samrt_opt_point("1.5,2e1,0", &p) == 0 && p.x == 1.5f && p.y == 20 && p.label == 0);
    CHECK(samrt_opt_point("-3,4,1", &p) == 0 && p.x == -3 && p.label == 1);
    /* sscanf stops at the missing label: "x,y," reads as x,y (what both subcommands took) */
    CHECK(samrt_opt_point("5,6,", &p) == 0 && p.x == 5 && p.y == 6 && p.label == 1);
    static const char *const bad[] = {"", "1", "1,", "x,2", "1,2,2", "1,2,-1", "1,2,1,1", "1,2,1x", "1;2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = (struct samrt_point){7, 7, 7};
        CHECK_MSG(samrt_opt_point(bad[i], &p) != 0 && p.x == 7 && p.label == 7, "'%s' accepted", bad[i]);
    }
}

static void test_box(void) {
    float b[4] = {0};
    CHECK(samrt_opt_box("1,2,30.5,40", b) == 0 && b[0] == 1 && b[1] == 2 && b[2] == 30.5f && b[3] == 40);
    static const char *const bad[] = {"", "1,2,3", "1,2,3,4,5", "1,2,3,4x", "a,2,3,4", "1 2 3 4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        float k[4] = {9, 9, 9, 9};
        CHECK_MSG(samrt_opt_box(bad[i], k) != 0 && k[0] == 9 && k[3] == 9, "'%s' accepted", bad[i]);
    }
}

static void test_ranges(void) {
    int v = -7;
    CHECK(samrt_opt_start("0", &v) == 0 && v == 0);
    CHECK(samrt_opt_start("1073741824", &v) == 0 && v == 1 << 30);
    CHECK(samrt_opt_max_frames("1", &v) == 0 && v == 1);
    CHECK(samrt_opt_prefetch("64", &v) == 0 && v == 64);
    CHECK(samrt_opt_imgsz("64", &v) == 0 && v == 64);
    CHECK(samrt_opt_imgsz("4096", &v) == 0 && v == 4096);
    v = -7;
    CHECK(samrt_opt_start("-1", &v) != 0 && samrt_opt_start("1073741825", &v) != 0 && samrt_opt_start("", &v) != 0);
    CHECK(samrt_opt_max_frames("0", &v) != 0 && samrt_opt_max_frames("2x", &v) != 0);
    CHECK(samrt_opt_prefetch("0", &v) != 0 && samrt_opt_prefetch("65", &v) != 0);
    CHECK(samrt_opt_imgsz("63", &v) != 0 && samrt_opt_imgsz("4097", &v) != 0 && samrt_opt_imgsz("256.0", &v) != 0);
    CHECK(v == -7);
}

/* samrt_track_opts_parse: the values, the defaults, and what a refusal says. */
static void test_parse(void) {
    struct samrt_track_opts v;
    struct samrt_opt_refusal why;
    samrt_track_opts_init(&v);
    CHECK(v.prefetch == 4 && v.runs == 1 && v.imgsz == 1024 && v.precision == SAMRT_DTYPE_COUNT && !v.platform &&
          !v.video && !v.out && v.start == 0 && v.max_frames == 0);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_VIDEO, "clip.mp4", &v, &why) == 0 && !strcmp(v.video, "clip.mp4"));
    CHECK(samrt_track_opts_parse(SAMRT_OPT_OUT, "o", &v, &why) == 0 && !strcmp(v.out, "o"));
    CHECK(samrt_track_opts_parse(SAMRT_OPT_RUNS, "1000", &v, &why) == 0 && v.runs == 1000);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_MAX_FRAMES, "7", &v, &why) == 0 && v.max_frames == 7);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_PRECISION, "bf16", &v, &why) == 0 && v.precision == SAMRT_DTYPE_BF16);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_PLATFORM, "cpu", &v, &why) == 0 && !strcmp(v.platform, "cpu"));
    /* not shared values: the caller's */
    CHECK(samrt_track_opts_parse(SAMRT_OPT_POINT, "1,2", &v, &why) == 1);
    CHECK(samrt_track_opts_parse('h', NULL, &v, &why) == 1);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_OWN, "x", &v, &why) == 1);
    const struct samrt_track_opts keep = v;
    CHECK(samrt_track_opts_parse(SAMRT_OPT_RUNS, "1001", &v, &why) < 0 && why.rule == SAMRT_OPT_RULE_INT &&
          !strcmp(why.name, "runs") && why.lo == 1 && why.hi == 1000);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_MAX_FRAMES, "0", &v, &why) < 0 && !strcmp(why.name, "max-frames") &&
          why.lo == 1 && why.hi == SAMRT_OPT_FRAMES_MAX);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_START, "-1", &v, &why) < 0 && !strcmp(why.name, "start") && why.lo == 0);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_PREFETCH, "65", &v, &why) < 0 && why.hi == SAMRT_OPT_PREFETCH_MAX);
    CHECK(samrt_track_opts_parse(SAMRT_OPT_IMGSZ, "4097", &v, &why) < 0 && why.lo == SAMRT_OPT_IMGSZ_MIN);
    static const char *const bad_prec[] = {"fp8", "u8", "", "FP16", "fp16 "};
    for (size_t i = 0; i < sizeof bad_prec / sizeof bad_prec[0]; i++)
        CHECK_MSG(samrt_track_opts_parse(SAMRT_OPT_PRECISION, bad_prec[i], &v, &why) < 0 &&
                      why.rule == SAMRT_OPT_RULE_PRECISION,
                  "--precision '%s' accepted", bad_prec[i]);
    static const char *const bad_plat[] = {"nosuch", "", "CPU", "orin"};
    for (size_t i = 0; i < sizeof bad_plat / sizeof bad_plat[0]; i++)
        CHECK_MSG(samrt_track_opts_parse(SAMRT_OPT_PLATFORM, bad_plat[i], &v, &why) < 0 &&
                      why.rule == SAMRT_OPT_RULE_PLATFORM,
                  "--platform '%s' accepted", bad_plat[i]);
    CHECK(memcmp(&keep, &v, sizeof v) == 0);
}

/* The table: shared rows first, then the command's own; both spellings of --max-frames. */
static void test_table(void) {
    static const struct option own[] = {{"weights", required_argument, 0, 'w'}, {0, 0, 0, 0}};
    struct option t[SAMRT_OPT_N_SHARED + 2];
    CHECK(samrt_opt_table(own, t, SAMRT_OPT_N_SHARED + 1) == -1);
    CHECK(samrt_opt_table(own, t, SAMRT_OPT_N_SHARED + 2) == 0);
    CHECK(!strcmp(t[SAMRT_OPT_N_SHARED].name, "weights") && t[SAMRT_OPT_N_SHARED + 1].name == NULL);
    int n_maxf = 0, help = 0;
    for (int i = 0; i < SAMRT_OPT_N_SHARED; i++) {
        n_maxf += t[i].val == SAMRT_OPT_MAX_FRAMES;
        help += t[i].val == 'h' && !strcmp(t[i].name, "help");
    }
    CHECK(n_maxf == 2 && help == 1);
    char a0[] = "x", a1[] = "--max_frames", a2[] = "3", a3[] = "--weights", a4[] = "w.pt", a5[] = "--platform",
         a6[] = "cpu";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, NULL};
    struct samrt_track_opts v;
    struct samrt_opt_refusal why;
    samrt_track_opts_init(&v);
    const char *weights = NULL;
    int c, rc = 0;
    optind = 1;
    while ((c = getopt_long(7, argv, "h", t, NULL)) != -1) {
        const int r = samrt_track_opts_parse(c, optarg, &v, &why);
        if (r == 1 && c == 'w') weights = optarg;
        else if (r) rc = -1;
    }
    CHECK(rc == 0 && v.max_frames == 3 && weights && !strcmp(weights, "w.pt") && !strcmp(v.platform, "cpu"));
}

int main(void) {
    test_point();
    test_box();
    test_ranges();
    test_parse();
    test_table();
    return check_report("test_track_opts");
}
