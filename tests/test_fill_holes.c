/* test_fill_holes.c - samrt_fill_holes_ref on hand-drawn masks: which background components
 * are holes under 8-connectivity (diagonal contact joins two pixels; 4-connectivity would
 * not), components touching the border, the area exactly at and one above the threshold,
 * logit 0 counting as background and NaN not, maps of a batch never joining, in place and
 * out of place, and the argument checks.
 * Masks are drawn as text: '#' logit 2.5, '.' -1.5, '0' exactly 0, 'n' NaN; the expected map
 * writes '+' where a hole becomes SAMRT_FILL_HOLES_VALUE, every other pixel keeps its input.
 * Run: test_fill_holes */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fill_holes.h"

#define MAX_PIX 256

static float value_of(char ch) {
    switch (ch) {
    case '#': return 2.5f;
    case '.': return -1.5f;
    case '0': return 0.0f;
    default: return NAN;
    }
}

/* Runs the reference on `in` (n_batch maps of h x w, concatenated rows) and compares with
 * `want`, in place when in_place. */
static void run_case(const char *name, int n_batch, int h, int w, int max_area, const char *in, const char *want,
                     int in_place) {
    const int n = n_batch * h * w;
    CHECK_MSG((int)strlen(in) == n && (int)strlen(want) == n && n <= MAX_PIX, "%s: bad drawing", name);
    float x[MAX_PIX], out[MAX_PIX], expect[MAX_PIX];
    int32_t ws[2 * MAX_PIX];
    for (int i = 0; i < n; i++) {
        x[i] = value_of(in[i]);
        expect[i] = want[i] == '+' ? SAMRT_FILL_HOLES_VALUE : x[i];
        out[i] = -777.0f;
    }
    float *dst = in_place ? x : out;
    const struct samrt_fill_holes_args a = {n_batch, h, w, max_area, x, dst, ws};
    CHECK_STATUS(samrt_fill_holes_ref(&a), SAMRT_OK);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const int same = isnan(expect[i]) ? isnan(dst[i]) : dst[i] == expect[i];
        if (!same && bad++ < 4)
            fprintf(stderr, "  %s%s: pixel %d (map %d, y %d, x %d): got %g want %g\n", name,
                    in_place ? " (in place)" : "", i, i / (h * w), (i / w) % h, i % w, dst[i], expect[i]);
    }
    CHECK_MSG(bad == 0, "%s: %d pixels differ", name, bad);
}

static void both(const char *name, int n_batch, int h, int w, int max_area, const char *in, const char *want) {
    run_case(name, n_batch, h, w, max_area, in, want, 0);
    run_case(name, n_batch, h, w, max_area, in, want, 1);
}

static void test_cases(void) {
    /* one pixel hole inside, the big outside stays */
    both("single_hole", 1, 5, 5, 1,
         "....."
         ".###."
         ".#.#."
         ".###."
         ".....",
         "....."
         ".###."
         ".#+#."
         ".###."
         ".....");
    /* two background pixels touching only at a corner are ONE component of area 2 */
    both("diagonal_joined_area1", 1, 4, 4, 1,
         "####"
         "#.##"
         "##.#"
         "####",
         "####"
         "#.##"
         "##.#"
         "####");
    both("diagonal_joined_area2", 1, 4, 4, 2,
         "####"
         "#.##"
         "##.#"
         "####",
         "####"
         "#+##"
         "##+#"
         "####");
    /* anti-diagonal contact too */
    both("antidiagonal", 1, 3, 4, 1,
         "###."
         "##.#"
         "####",
         "###."
         "##.#"
         "####");
    /* a hole touching the border is still a hole; a corner pixel too */
    both("border_holes", 1, 4, 5, 2,
         ".####"
         "#####"
         "##..#"
         "#####",
         "+####"
         "#####"
         "##++#"
         "#####");
    both("edge_hole", 1, 3, 4, 2,
         "#..#"
         "####"
         "####",
         "#++#"
         "####"
         "####");
    /* area exactly at the threshold is filled; one above is not */
    both("area_at_threshold", 1, 4, 6, 3,
         "######"
         "#...##"
         "######"
         "######",
         "######"
         "#+++##"
         "######"
         "######");
    both("area_above_threshold", 1, 4, 6, 2,
         "######"
         "#...##"
         "######"
         "######",
         "######"
         "#...##"
         "######"
         "######");
    /* a bent component of 4 under 8-connectivity; the separate 1-pixel one beside it */
    both("bent_component", 1, 5, 6, 3,
         "######"
         "#.####"
         "##.#.#"
         "#..###"
         "######",
         "######"
         "#.####"
         "##.#+#"
         "#..###"
         "######");
    /* logit exactly 0 is background, NaN is not (it separates) */
    both("zero_and_nan", 1, 3, 5, 1,
         "#####"
         "#0n.#"
         "#####",
         "#####"
         "#+n+#"
         "#####");
    /* all background: one component of the whole map */
    both("all_background", 1, 2, 3, 6, "......", "++++++");
    both("all_background_big", 1, 2, 3, 5, "......", "......");
    both("no_background", 1, 2, 2, 4, "####", "####");
    /* the last row of map 0 and the first row of map 1 never join; nor a row end and the next
     * row's start */
    both("batch_separate", 2, 3, 3, 3,
         "###"
         "###"
         "..."
         "..."
         "###"
         "###",
         "###"
         "###"
         "+++"
         "+++"
         "###"
         "###");
    both("row_wrap", 1, 3, 3, 1,
         "##."
         ".##"
         "###",
         "##+"
         "+##"
         "###");
    /* one column and one row maps */
    both("column", 1, 5, 1, 2, ".#..#", "+#++#");
    both("row", 1, 1, 6, 1, ".#..#.", "+#..#+");
}

static void test_args(void) {
    float x[4] = {0}, out[4];
    int32_t ws[8];
    struct samrt_fill_holes_args a = {1, 2, 2, 8, x, out, ws};
    CHECK_STATUS(samrt_fill_holes_ref(&a), SAMRT_OK);
    a.max_area = 0;
    CHECK_STATUS(samrt_fill_holes_ref(&a), SAMRT_E_INVALID_ARG);
    a.max_area = 8;
    a.ws = NULL;
    CHECK_STATUS(samrt_fill_holes_ref(&a), SAMRT_E_INVALID_ARG);
    a.ws = ws;
    a.h = 0;
    CHECK_STATUS(samrt_fill_holes_ref(&a), SAMRT_E_INVALID_ARG);
    a.h = 1 << 16;
    a.w = 1 << 16;
    CHECK_STATUS(samrt_fill_holes_check(&a), SAMRT_E_INVALID_ARG);  /* 2^32 pixels */
    CHECK_STATUS(samrt_fill_holes_ref(NULL), SAMRT_E_INVALID_ARG);
    CHECK(samrt_fill_holes_ws_bytes(3, 256, 256) == 2u * 3 * 256 * 256 * 4);
}

int main(void) {
    test_cases();
    test_args();
    return check_report("test_fill_holes");
}
