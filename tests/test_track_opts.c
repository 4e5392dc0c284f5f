/* test_track_opts.c - harness/track_opts.c, the option values `samrt track` and `samrt bench`
 * share: --point, --box, --start, --max-frames, --prefetch and --imgsz, with a malformed
 * corpus for each (a refused value leaves the output untouched).
 * Run: ctest -R test_track_opts */
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

int main(void) {
    test_point();
    test_box();
    test_ranges();
    return check_report("test_track_opts");
}
