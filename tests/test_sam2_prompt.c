/* test_sam2_prompt.c - the prompt side of SAM 2.1 on hand-checkable values: image pixels ->
 * model frame (divide, then scale; separate x and y factors), box corners first with labels
 * 2/3, validation errors, the multimask rule, the sparse rows (Fourier PE + label
 * embeddings, the padding point), the decoder token layout and the dense PE.
 * Run: ctest -R test_sam2_prompt */
#include <math.h>
#include <string.h>

#include "check.h"
#include "half.h"
#include "prompt_encoder.h"

static void quiet(enum samrt_log_level level, const char *msg, void *user) {
    (void)level, (void)msg, (void)user;
}

static struct samrt_object_prompt click(float x, float y, int label) {
    struct samrt_object_prompt p;
    memset(&p, 0, sizeof p);
    p.n_clicks = 1;
    p.clicks[0].x = x, p.clicks[0].y = y, p.clicks[0].label = label;
    return p;
}

static void test_coordinates(void) {
    struct samrt_sam2_points pts;
    /* 960x540 video, 1024 model: 210/960 = 0.21875 and 135/540 = 0.25 are exact */
    struct samrt_object_prompt p = click(210.0f, 135.0f, 1);
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_OK);
    CHECK_EQ_INT(pts.n, 1);
    CHECK(pts.xy[0][0] == 224.0f && pts.xy[0][1] == 256.0f);
    CHECK_EQ_INT(pts.label[0], 1);
    /* separate factors: y scales by 1024/540, x by 1024/960 */
    p = click(480.0f, 350.0f, 0);
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_OK);
    CHECK(pts.xy[0][0] == 512.0f);
    CHECK_NEAR(pts.xy[0][1], 350.0 / 540.0 * 1024.0, 1e-4);
    CHECK(pts.xy[0][1] == (350.0f / 540.0f) * 1024.0f);  /* divide first, in fp32 */
    CHECK_EQ_INT(pts.label[0], 0);

    /* a box becomes the first two points (labels 2, 3), clicks follow */
    p = click(240.0f, 270.0f, 1);
    p.has_box = 1;
    p.box[0] = 96, p.box[1] = 135, p.box[2] = 480, p.box[3] = 405;
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_OK);
    CHECK_EQ_INT(pts.n, 3);
    CHECK_EQ_INT(pts.label[0], 2);
    CHECK_EQ_INT(pts.label[1], 3);
    CHECK_EQ_INT(pts.label[2], 1);
    CHECK_NEAR(pts.xy[0][0], 102.4, 1e-4);
    CHECK(pts.xy[0][1] == 256.0f && pts.xy[1][0] == 512.0f && pts.xy[1][1] == 768.0f);
    CHECK(pts.xy[2][0] == 256.0f && pts.xy[2][1] == 512.0f);
    /* the whole image is a valid box; the last sub-pixel a valid click */
    memset(&p, 0, sizeof p);
    p.has_box = 1;
    p.box[2] = 960, p.box[3] = 540;
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_OK);
    CHECK(pts.n == 2 && pts.xy[1][0] == 1024.0f && pts.xy[1][1] == 1024.0f);
    p = click(959.5f, 539.5f, 1);
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_OK);

    /* multimask: 0 or 1 points (box corners count) */
    CHECK(samrt_sam2_use_multimask(0) && samrt_sam2_use_multimask(1));
    CHECK(!samrt_sam2_use_multimask(2) && !samrt_sam2_use_multimask(3));
    samrt_sam2_points_none(&pts);
    CHECK(pts.n == 1 && pts.label[0] == -1 && pts.xy[0][0] == 0.0f);
}

static void test_errors(void) {
    struct samrt_sam2_points pts;
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR);  /* every call below logs its refusal */
    struct samrt_object_prompt p;
    memset(&p, 0, sizeof p);
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_E_INVALID_ARG);  /* nothing */
    const float bad[][2] = {{960, 10}, {-0.5f, 10}, {10, 540}, {10, -1}, {NAN, 3}, {3, INFINITY}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = click(bad[i][0], bad[i][1], 1);
        CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_E_INVALID_ARG);
    }
    p = click(10, 10, 2);  /* box labels are not click labels */
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_E_INVALID_ARG);
    p = click(10, 10, -1);
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_E_INVALID_ARG);
    p = click(10, 10, 1);
    p.n_clicks = SAMRT_MAX_CLICKS + 1;
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_E_INVALID_ARG);
    const float boxes[][4] = {{10, 10, 5, 20}, {10, 10, 20, 5}, {-1, 0, 10, 10}, {0, 0, 961, 10}, {0, 0, 10, 541},
                              {0, NAN, 10, 10}};
    for (size_t i = 0; i < sizeof boxes / sizeof boxes[0]; i++) {
        memset(&p, 0, sizeof p);
        p.has_box = 1;
        memcpy(p.box, boxes[i], sizeof p.box);
        CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 960, 540, 1024, &pts), SAMRT_E_INVALID_ARG);
    }
    p = click(10, 10, 1);
    CHECK_STATUS(samrt_sam2_points_from_prompt(&p, 0, 540, 1024, &pts), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_sam2_points_from_prompt(NULL, 960, 540, 1024, &pts), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);
}

/* Tables with one active frequency: G[0][0] = 1, so h_0 = 2*pi*(2u - 1) and every other
 * h_k = 0 (sin 0, cos 1); embeddings with distinct values. */
static void make_tables(struct samrt_sam2_prompt_tables *t) {
    memset(t, 0, sizeof *t);
    t->gauss[0] = 1.0f;
    for (int c = 0; c < 256; c++) {
        for (int k = 0; k < 4; k++) t->point_embed[k][c] = (float)(k + 1) * 0.001f * (float)c;
        t->not_a_point[c] = -0.5f - 0.001f * (float)c;
        for (int k = 0; k < 6; k++) t->out_tokens[k][c] = 10.0f * (float)k + 0.01f * (float)c;
    }
}

static void test_sparse(void) {
    struct samrt_sam2_prompt_tables t;
    make_tables(&t);
    struct samrt_sam2_points pts;
    memset(&pts, 0, sizeof pts);
    pts.n = 3;
    /* x + 0.5 = 768 -> u = 0.75 -> h_0 = pi; x + 0.5 = 256 -> u = 0.25 -> h_0 = -pi; 511.5 -> 0 */
    pts.xy[0][0] = 767.5f, pts.label[0] = 1;
    pts.xy[1][0] = 255.5f, pts.label[1] = 0;
    pts.xy[2][0] = 511.5f, pts.label[2] = 3;
    float rows[4 * 256];
    CHECK_EQ_INT(samrt_sam2_sparse_host(&t, &pts, 1024, rows), 4);
    for (int r = 0; r < 3; r++) {
        const int lab = pts.label[r];
        const double h0 = r == 0 ? M_PI : r == 1 ? -M_PI : 0.0;
        CHECK_NEAR(rows[r * 256 + 0], sin(h0) + t.point_embed[lab][0], 1e-5);
        CHECK_NEAR(rows[r * 256 + 128], cos(h0) + t.point_embed[lab][128], 1e-5);
        CHECK_NEAR(rows[r * 256 + 5], 0.0 + t.point_embed[lab][5], 1e-6);
        CHECK_NEAR(rows[r * 256 + 200], 1.0 + t.point_embed[lab][200], 1e-6);
    }
    /* the padding point: not_a_point_embed only */
    CHECK(memcmp(rows + 3 * 256, t.not_a_point, sizeof t.not_a_point) == 0);

    /* tokens: [6 output tokens | sparse | filler], in bf16; the unused slot gets two
     * not-a-point rows (no prompt = one padding point plus the appended one) */
    uint16_t tok[2 * 10 * 256];
    int32_t ns[2];
    CHECK_STATUS(samrt_sam2_tokens_fill(&t, &pts, 1, 2, 10, 1024, SAMRT_DTYPE_BF16, tok, ns), SAMRT_OK);
    CHECK_EQ_INT(ns[0], 4);
    CHECK_EQ_INT(ns[1], 2);
    CHECK(samrt_bf16_to_f32(tok[3 * 256 + 7]) == samrt_round_bf16(t.out_tokens[3][7]));
    CHECK(samrt_bf16_to_f32(tok[6 * 256 + 128]) == samrt_round_bf16(rows[128]));
    CHECK(samrt_bf16_to_f32(tok[9 * 256 + 1]) == samrt_round_bf16(t.not_a_point[1]));
    CHECK(samrt_bf16_to_f32(tok[(10 + 6) * 256 + 2]) == samrt_round_bf16(t.not_a_point[2]));
    CHECK(samrt_bf16_to_f32(tok[(10 + 7) * 256 + 2]) == samrt_round_bf16(t.not_a_point[2]));
    samrt_log_set(quiet, NULL, SAMRT_LOG_ERROR);
    CHECK_STATUS(samrt_sam2_tokens_fill(&t, &pts, 1, 2, 9, 1024, SAMRT_DTYPE_BF16, tok, ns), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_sam2_tokens_fill(&t, &pts, 3, 2, 10, 1024, SAMRT_DTYPE_F32, tok, ns), SAMRT_E_INVALID_ARG);
    samrt_log_set(NULL, NULL, SAMRT_LOG_INFO);

    /* dense PE of a 2x2 grid: u, v = 0.25 or 0.75 */
    float pe[4 * 256];
    CHECK_STATUS(samrt_sam2_dense_pe_host(&t, 2, pe), SAMRT_OK);
    CHECK_NEAR(pe[0 * 256 + 128], cos(-M_PI), 1e-5);   /* (row 0, col 0) */
    CHECK_NEAR(pe[1 * 256 + 128], cos(M_PI), 1e-5);    /* (row 0, col 1) */
    CHECK_NEAR(pe[1 * 256 + 0], sin(M_PI), 1e-5);
    CHECK_NEAR(pe[2 * 256 + 129], 1.0, 1e-6);          /* an inactive frequency */
}

int main(void) {
    test_coordinates();
    test_errors();
    test_sparse();
    return check_report("test_sam2_prompt");
}
