/* test_profile.c - harness/profile.c: the exact CSV header users' scripts read, absent values
 * written as empty cells (never 0), warm-up rows kept out, RFC 4180 quoting, percentiles
 * and statistics against hand-computed values, the latency recorder, gpu_busy_fraction,
 * experiment_config.txt, atomic writes, and profile_stats.json parsed back by a small
 * strict JSON reader below (RFC 8259 grammar) that also collects model/metric/stat numbers.
 * Run: ctest -R test_profile */
#include <ctype.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "check.h"
#include "csv.h"
#include "latency_rec.h"
#include "profile.h"
#include "stats.h"
#include "tool_test.h"

#define TOL 1e-9

/* ---- a strict JSON reader that records numbers at depth 3 as "a/b/c" ------------------ */

struct jnum {
    char path[512];
    double v;
};
struct jp {
    const char *s;
    size_t i, n;
    char keys[4][160];
    struct jnum nums[512];
    int n_nums;
};

static void jp_ws(struct jp *p) {
    while (p->i < p->n && strchr(" \t\r\n", p->s[p->i])) p->i++;
}

static int jp_string(struct jp *p, char *out, size_t len) {
    size_t k = 0;
    if (p->i >= p->n || p->s[p->i] != '"') return -1;
    p->i++;
    while (p->i < p->n && p->s[p->i] != '"') {
        char c = p->s[p->i++];
        if ((unsigned char)c < 0x20) return -1;
        if (c == '\\') {
            if (p->i >= p->n) return -1;
            char e = p->s[p->i++];
            if (e == 'u') {
                for (int j = 0; j < 4; j++)
                    if (p->i >= p->n || !isxdigit((unsigned char)p->s[p->i++])) return -1;
                c = '?';
            } else if (strchr("\"\\/", e)) c = e;
            else if (strchr("bfnrt", e)) c = ' ';
            else return -1;
        }
        if (k + 1 < len) out[k++] = c;
    }
    if (p->i >= p->n) return -1;
    p->i++;
    out[k] = '\0';
    return 0;
}

static int jp_number(struct jp *p, double *v) {
    size_t st = p->i;
    if (p->i < p->n && p->s[p->i] == '-') p->i++;
    if (p->i < p->n && p->s[p->i] == '0') p->i++;
    else if (p->i < p->n && p->s[p->i] >= '1' && p->s[p->i] <= '9')
        while (p->i < p->n && isdigit((unsigned char)p->s[p->i])) p->i++;
    else return -1;
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i])) return -1;
        while (p->i < p->n && isdigit((unsigned char)p->s[p->i])) p->i++;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        if (p->i >= p->n || !isdigit((unsigned char)p->s[p->i])) return -1;
        while (p->i < p->n && isdigit((unsigned char)p->s[p->i])) p->i++;
    }
    char buf[64];
    if (p->i - st >= sizeof buf) return -1;
    memcpy(buf, p->s + st, p->i - st);
    buf[p->i - st] = '\0';
    *v = strtod(buf, NULL);
    return 0;
}

static int jp_value(struct jp *p, int depth) {
    jp_ws(p);
    if (p->i >= p->n || depth > 16) return -1;
    char c = p->s[p->i];
    if (c == '{' || c == '[') {
        p->i++;
        jp_ws(p);
        char close = c == '{' ? '}' : ']';
        if (p->i < p->n && p->s[p->i] == close) {
            p->i++;
            return 0;
        }
        for (;;) {
            if (c == '{') {
                char key[160];
                jp_ws(p);
                if (jp_string(p, key, sizeof key)) return -1;
                if (depth < 4) snprintf(p->keys[depth], sizeof p->keys[depth], "%s", key);
                jp_ws(p);
                if (p->i >= p->n || p->s[p->i++] != ':') return -1;
            }
            if (jp_value(p, depth + 1)) return -1;
            jp_ws(p);
            if (p->i >= p->n) return -1;
            if (p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->s[p->i++] != close) return -1;
            return 0;
        }
    }
    if (c == '"') {
        char tmp[256];
        return jp_string(p, tmp, sizeof tmp);
    }
    static const char *const lits[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++)
        if (!strncmp(p->s + p->i, lits[k], strlen(lits[k]))) {
            p->i += strlen(lits[k]);
            return 0;
        }
    double v;
    if (jp_number(p, &v)) return -1;
    if (depth == 3 && p->n_nums < 512) {
        struct jnum *j = &p->nums[p->n_nums++];
        snprintf(j->path, sizeof j->path, "%s/%s/%s", p->keys[0], p->keys[1], p->keys[2]);
        j->v = v;
    }
    return 0;
}

/* 0 when text is exactly one JSON value (plus whitespace). */
static int jp_parse(struct jp *p, const char *text) {
    memset(p, 0, sizeof *p);
    p->s = text;
    p->n = strlen(text);
    if (jp_value(p, 0)) return -1;
    jp_ws(p);
    return p->i == p->n ? 0 : -1;
}

static int jp_get(const struct jp *p, const char *path, double *v) {
    for (int i = 0; i < p->n_nums; i++)
        if (!strcmp(p->nums[i].path, path)) {
            *v = p->nums[i].v;
            return 1;
        }
    return 0;
}

#define CHECK_JSON(p, path, want)                                                             \
    do {                                                                                      \
        double v_ = NAN;                                                                      \
        int found_ = jp_get(p, path, &v_);                                                    \
        CHECK_MSG(found_ && fabs(v_ - (want)) <= TOL, "%s: %s %.17g, want %.17g", path,      \
                  found_ ? "got" : "missing", v_, (double)(want));                            \
    } while (0)

/* ---- tests --------------------------------------------------------------------------- */

static void test_columns(void) {
    /* The historical header, as the old scripts wrote it (no spaces after commas). */
    static const char base[] = "platform,hostname,video,object,model,run,imgsz,frames,fps,latency_ms,"
                               "gpu_peak_alloc_MiB,gpu_peak_reserved_MiB,cpu_peak_rss_MiB,setup_ms,H,W,"
                               "infer_H,infer_W,nsight_report";
    static const char rest[] =
        ",latency_p50_ms,latency_p95_ms,latency_p99_ms,decode_ms,preprocess_ms,h2d_ms,image_encoder_ms,"
        "memory_attention_ms,prompt_and_mask_decoder_ms,memory_encoder_ms,postprocess_ms,d2h_ms,"
        "arena_weights_MiB,arena_state_MiB,arena_workspace_MiB,arena_staging_MiB,arena_scratch_MiB,J,F,J&F,"
        "precision,device,driver,gpu_busy_fraction,timestamp,sm_limit,memory\n";
    CHECK_STATUS(samrt_profile_write_csv("test_profile_hdr.csv", NULL, 0), SAMRT_OK);
    char *text = tt_read("test_profile_hdr.csv");
    CHECK(text != NULL);
    if (!text) return;
    CHECK_MSG(!strncmp(text, base, strlen(base)), "header starts: %.200s", text);
    CHECK_MSG(!strcmp(text + strlen(base), rest), "header continues: %s", text + strlen(base));
    free(text);
    remove("test_profile_hdr.csv");
    size_t n;
    const struct samrt_profile_col *cols = samrt_profile_columns(&n);
    CHECK_EQ_INT(n, 46);
    CHECK_EQ_INT(SAMRT_PROFILE_N_BASE_COLS, 19);
    CHECK(!strcmp(cols[SAMRT_PROFILE_N_BASE_COLS - 1].name, "nsight_report"));
    CHECK(samrt_profile_column_find("fps")->better == +1);
    CHECK(samrt_profile_column_find("latency_p95_ms")->better == -1);
    CHECK(samrt_profile_column_find("gpu_peak_reserved_MiB")->better == -1);
    CHECK(samrt_profile_column_find("J&F")->better == +1);
    CHECK(samrt_profile_column_find("nope") == NULL);
    CHECK(samrt_profile_column_find("config") == NULL);  /* a sweep column: not in every file */
    /* a file's columns: the 46 alone, or followed by the sweep's 17 when a row is a sweep row */
    struct samrt_profile_row rows[2];
    samrt_profile_row_init(&rows[0]);
    samrt_profile_row_init(&rows[1]);
    size_t n_file;
    CHECK(samrt_profile_file_columns(rows, 2, &n_file) == cols && n_file == 46);
    rows[1].objects = 2;
    rows[1].warmup = 1;  /* a warm-up sweep row is never written: still 46 */
    CHECK(samrt_profile_file_columns(rows, 2, &n_file) == cols && n_file == 46);
    rows[1].warmup = 0;
    CHECK(samrt_profile_file_columns(rows, 2, &n_file) == cols && n_file == 63);
    CHECK(!strcmp(cols[46].name, "config") && !strcmp(cols[62].name, "total_arena_bytes"));
    CHECK(!strcmp(cols[45].name, "memory") && samrt_profile_column_find("memory")->kind == SAMRT_PCOL_STR);
    CHECK(!strcmp(cols[44].name, "sm_limit") && samrt_profile_column_find("sm_limit")->kind == SAMRT_PCOL_INT);
    CHECK(samrt_profile_file_columns(NULL, 0, &n_file) == cols && n_file == 46);
}

static void test_absent_and_quoting(void) {
    struct samrt_profile_row rows[3];
    for (int i = 0; i < 3; i++) samrt_profile_row_init(&rows[i]);
    CHECK(samrt_profile_absent(rows[0].fps));
    CHECK(samrt_profile_absent(rows[0].decode_ms));
    CHECK(samrt_profile_absent(rows[0].run));
    CHECK(rows[0].model[0] == '\0' && rows[0].warmup == 0);
    snprintf(rows[0].model, sizeof rows[0].model, "sam2.1_tiny");
    snprintf(rows[0].video, sizeof rows[0].video, "sav_000,1");  /* needs quoting */
    snprintf(rows[0].nsight_report, sizeof rows[0].nsight_report, "out/\"q\".nsys-rep");
    rows[0].run = 0;           /* a real zero must read "0", not empty */
    rows[0].fps = 12.5;
    rows[0].image_encoder_ms = 0.0;
    rows[0].gpu_peak_alloc_MiB = 1234.56789;
    rows[1] = rows[0];
    rows[1].warmup = 1;        /* never written */
    rows[1].fps = 1e6;
    rows[2] = rows[0];
    rows[2].run = 1;
    CHECK_STATUS(samrt_profile_write_csv("test_profile_rows.csv", rows, 3), SAMRT_OK);
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_read_table("test_profile_rows.csv", &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 3);  /* header + 2: the warm-up row is out */
    CHECK(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, "video")), "sav_000,1"));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, "nsight_report")), "out/\"q\".nsys-rep"));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, "run")), "0"));
    CHECK(!strcmp(samrt_csv_cell(&t, 2, samrt_csv_col(&t, "run")), "1"));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, "fps")), "12.500"));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, "gpu_peak_alloc_MiB")), "1234.568"));
    CHECK(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, "image_encoder_ms")), "0.0000"));
    /* every unmeasured number is an empty cell */
    static const char *const empty[] = {"imgsz", "frames", "latency_ms", "latency_p95_ms", "decode_ms",
                                        "memory_encoder_ms", "arena_scratch_MiB", "J&F", "gpu_busy_fraction",
                                        "H", "platform", "timestamp"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++)
        CHECK_MSG(!strcmp(samrt_csv_cell(&t, 1, samrt_csv_col(&t, empty[i])), ""), "%s is '%s'", empty[i],
                  samrt_csv_cell(&t, 1, samrt_csv_col(&t, empty[i])));
    for (size_t r = 1; r < t.n_rows; r++)
        for (size_t c = 0; c < t.n_fields[r]; c++) CHECK(strcmp(t.fields[r][c], "nan") && strcmp(t.fields[r][c], "-nan"));
    samrt_csv_free(&t);
    remove("test_profile_rows.csv");
}

static void test_percentiles(void) {
    const double a[] = {1, 2, 3, 4};
    /* rank = p/100 * (n-1): p50 -> 1.5 -> 2 + 0.5*(3-2); p95 -> 2.85 -> 3 + 0.85; p99 -> 2.97 */
    CHECK_NEAR(samrt_percentile_sorted(a, 4, 50), 2.5, TOL);
    CHECK_NEAR(samrt_percentile_sorted(a, 4, 95), 3.85, TOL);
    CHECK_NEAR(samrt_percentile_sorted(a, 4, 99), 3.97, TOL);
    CHECK_NEAR(samrt_percentile_sorted(a, 4, 0), 1, TOL);
    CHECK_NEAR(samrt_percentile_sorted(a, 4, 100), 4, TOL);
    const double b[] = {15, 20, 35, 40, 50};
    CHECK_NEAR(samrt_percentile_sorted(b, 5, 50), 35, TOL);   /* rank 2 exactly */
    CHECK_NEAR(samrt_percentile_sorted(b, 5, 95), 48, TOL);   /* rank 3.8: 40 + 0.8*10 */
    CHECK_NEAR(samrt_percentile_sorted(b, 5, 25), 20, TOL);   /* rank 1 */
    CHECK_NEAR(samrt_percentile_sorted(b, 5, 10), 17, TOL);   /* rank 0.4: 15 + 0.4*5 */
    const double one[] = {7};
    CHECK_NEAR(samrt_percentile_sorted(one, 1, 95), 7, TOL);
    CHECK(isnan(samrt_percentile_sorted(one, 0, 50)));

    double v[] = {9, 4, 2, 5, 4, 7, 4, 5};  /* unsorted on purpose */
    struct samrt_stats s;
    CHECK_STATUS(samrt_stats_compute(v, 8, &s), SAMRT_OK);
    CHECK_EQ_INT(s.n, 8);
    CHECK_NEAR(s.mean, 5, TOL);    /* 40 / 8 */
    CHECK_NEAR(s.std, 2, TOL);     /* population: sqrt(32 / 8); sample would be 2.138 */
    CHECK_NEAR(s.median, 4.5, TOL);
    CHECK_NEAR(s.min, 2, TOL);
    CHECK_NEAR(s.max, 9, TOL);
    CHECK_NEAR(s.p95, 8.3, TOL);   /* sorted 2 4 4 4 5 5 7 9, rank 6.65: 7 + 0.65*2 */
    CHECK_STATUS(samrt_stats_compute(v, 0, &s), SAMRT_E_INVALID_ARG);
}

static void test_latency_recorder(void) {
    struct samrt_latency_rec rec;
    CHECK_STATUS(samrt_latency_rec_init(&rec, 0), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_latency_rec_init(&rec, 5), SAMRT_OK);
    struct samrt_latency_summary s;
    CHECK_STATUS(samrt_latency_rec_summary(&rec, &s), SAMRT_E_INVALID_ARG);
    struct samrt_profile_row row;
    samrt_profile_row_init(&row);
    samrt_latency_rec_fill_row(&rec, &row);
    CHECK(samrt_profile_absent(row.latency_ms) && samrt_profile_absent(row.latency_p99_ms));
    const double in[] = {50, 40, 30, 20, 10};
    for (int i = 0; i < 5; i++) CHECK_STATUS(samrt_latency_rec_add(&rec, in[i]), SAMRT_OK);
    CHECK_STATUS(samrt_latency_rec_add(&rec, 60), SAMRT_E_INVALID_ARG);  /* full: dropped, counted */
    CHECK_EQ_INT(rec.n_dropped, 1);
    CHECK_STATUS(samrt_latency_rec_summary(&rec, &s), SAMRT_OK);
    CHECK_EQ_INT(s.n, 5);
    CHECK_NEAR(s.mean, 30, TOL);
    CHECK_NEAR(s.p50, 30, TOL);
    CHECK_NEAR(s.p95, 48, TOL);    /* rank 3.8 */
    CHECK_NEAR(s.p99, 49.6, TOL);  /* rank 3.96: 40 + 0.96*10 */
    CHECK_NEAR(s.max, 50, TOL);
    CHECK(rec.ms[0] == 50 && rec.ms[4] == 10);  /* arrival order kept */
    samrt_latency_rec_fill_row(&rec, &row);
    CHECK_NEAR(row.latency_ms, 30, TOL);
    CHECK_NEAR(row.latency_p95_ms, 48, TOL);
    samrt_latency_rec_reset(&rec);
    CHECK_EQ_INT(rec.n, 0);
    samrt_latency_rec_free(&rec);
}

static void test_derive(void) {
    struct samrt_profile_row r;
    samrt_profile_row_init(&r);
    samrt_profile_row_derive(&r);
    CHECK(samrt_profile_absent(r.gpu_busy_fraction));  /* nothing measured */
    r.fps = 20;
    r.decode_ms = 100;                                  /* host work: not GPU time */
    samrt_profile_row_derive(&r);
    CHECK(samrt_profile_absent(r.gpu_busy_fraction));
    r.image_encoder_ms = 10;
    r.memory_attention_ms = 5;
    samrt_profile_row_derive(&r);
    CHECK_NEAR(r.gpu_busy_fraction, 0.3, TOL);          /* 15 ms/frame * 20 frames/s */
    r.fps = SAMRT_PROFILE_ABSENT;
    samrt_profile_row_derive(&r);
    CHECK(samrt_profile_absent(r.gpu_busy_fraction));
}

static void test_stats_json(void) {
    struct samrt_profile_row rows[6];
    for (int i = 0; i < 6; i++) {
        samrt_profile_row_init(&rows[i]);
        snprintf(rows[i].model, sizeof rows[i].model, "%s", i < 4 ? "sam2.1_tiny" : "odd \"name\"\\");
    }
    rows[0].fps = 10;
    rows[1].fps = 14;
    rows[2].fps = 12;
    rows[3].fps = 1000;  /* warm-up */
    rows[3].warmup = 1;
    rows[3].decode_ms = 1;
    rows[0].image_encoder_ms = 4;
    rows[4].fps = 5;
    rows[5].fps = SAMRT_PROFILE_ABSENT;
    rows[5].J = 80;
    CHECK_STATUS(samrt_profile_write_stats("test_profile_stats.json", rows, 6), SAMRT_OK);
    char *text = tt_read("test_profile_stats.json");
    CHECK(text != NULL);
    if (!text) return;
    struct jp *p = calloc(1, sizeof *p);
    CHECK_MSG(p && jp_parse(p, text) == 0, "not valid JSON:\n%s", text);
    if (p) {
        CHECK_JSON(p, "sam2.1_tiny/fps/n", 3);
        CHECK_JSON(p, "sam2.1_tiny/fps/mean", 12);
        CHECK_JSON(p, "sam2.1_tiny/fps/std", sqrt(8.0 / 3.0));  /* (4 + 0 + 4) / 3 */
        CHECK_JSON(p, "sam2.1_tiny/fps/min", 10);
        CHECK_JSON(p, "sam2.1_tiny/fps/max", 14);
        CHECK_JSON(p, "sam2.1_tiny/fps/median", 12);
        CHECK_JSON(p, "sam2.1_tiny/fps/p95", 13.8);  /* rank 1.9: 12 + 0.9*2 */
        CHECK_JSON(p, "sam2.1_tiny/image_encoder_ms/n", 1);
        CHECK_JSON(p, "sam2.1_tiny/image_encoder_ms/std", 0);
        double v;
        CHECK(!jp_get(p, "sam2.1_tiny/decode_ms/n", &v));   /* only the warm-up had it */
        CHECK(!jp_get(p, "sam2.1_tiny/latency_ms/n", &v));  /* never measured: omitted */
        CHECK_JSON(p, "odd \"name\"\\/fps/n", 1);
        CHECK_JSON(p, "odd \"name\"\\/fps/mean", 5);
        CHECK_JSON(p, "odd \"name\"\\/J/mean", 80);
    }
    free(p);
    free(text);
    /* no rows: still one valid JSON object */
    CHECK_STATUS(samrt_profile_write_stats("test_profile_stats.json", rows, 0), SAMRT_OK);
    text = tt_read("test_profile_stats.json");
    CHECK(text && !strcmp(text, "{}\n"));
    free(text);
    remove("test_profile_stats.json");
}

static void test_config(void) {
    const struct samrt_profile_kv kv[] = {
        {"platform", "orin-nano-8gb"}, {"hostname", "jet1"}, {"models", "sam2.1_tiny,edgetam"},
        {"expr", "a=b"}, {"empty", NULL}};
    CHECK_STATUS(samrt_profile_write_config("test_profile_cfg.txt", kv, 5), SAMRT_OK);
    char *text = tt_read("test_profile_cfg.txt");
    CHECK(text && text[0] == '#' && strstr(text, "\nplatform=orin-nano-8gb\nhostname=jet1\n"
                                                 "models=sam2.1_tiny,edgetam\nexpr=a=b\nempty=\n"));
    free(text);
    char out[64];
    CHECK_STATUS(samrt_profile_config_get("test_profile_cfg.txt", "hostname", out, sizeof out), SAMRT_OK);
    CHECK(!strcmp(out, "jet1"));
    CHECK_STATUS(samrt_profile_config_get("test_profile_cfg.txt", "expr", out, sizeof out), SAMRT_OK);
    CHECK(!strcmp(out, "a=b"));
    CHECK_STATUS(samrt_profile_config_get("test_profile_cfg.txt", "host", out, sizeof out), SAMRT_E_KEYS);
    CHECK_STATUS(samrt_profile_config_get("no_such_cfg.txt", "host", out, sizeof out), SAMRT_E_IO);
    const struct samrt_profile_kv bad_key[] = {{"two words", "x"}};
    const struct samrt_profile_kv bad_val[] = {{"k", "line\nbreak"}};
    CHECK_STATUS(samrt_profile_write_config("test_profile_cfg.txt", bad_key, 1), SAMRT_E_INVALID_ARG);
    CHECK_STATUS(samrt_profile_write_config("test_profile_cfg.txt", bad_val, 1), SAMRT_E_INVALID_ARG);
    text = tt_read("test_profile_cfg.txt");  /* refused before opening: the old file is whole */
    CHECK(text && strstr(text, "hostname=jet1"));
    free(text);
    remove("test_profile_cfg.txt");
}

static void test_atomic(void) {
    CHECK(tt_write("test_profile_keep.csv", "old contents\n") == 0);
    struct samrt_atomic_file af;
    CHECK_STATUS(samrt_atomic_open(&af, "test_profile_keep.csv"), SAMRT_OK);
    fputs("half-written", af.f);
    samrt_atomic_abort(&af);
    char *text = tt_read("test_profile_keep.csv");
    CHECK(text && !strcmp(text, "old contents\n"));
    free(text);
    CHECK(tt_read(af.tmp) == NULL);  /* temporary removed */
    /* rename over a directory fails: the target stays, no temporary is left behind */
    mkdir("test_profile_dir.csv", 0755);
    CHECK(tt_write("test_profile_dir.csv/inside", "x") == 0);
    CHECK_STATUS(samrt_profile_write_csv("test_profile_dir.csv", NULL, 0), SAMRT_E_IO);
    char tmp[128];
    snprintf(tmp, sizeof tmp, "test_profile_dir.csv.tmp.%ld", (long)getpid());
    CHECK(tt_read(tmp) == NULL);
    text = tt_read("test_profile_dir.csv/inside");
    CHECK(text && !strcmp(text, "x"));
    free(text);
    tt_rmtree("test_profile_dir.csv");
    CHECK_STATUS(samrt_profile_write_csv("no/such/dir/p.csv", NULL, 0), SAMRT_E_IO);
    CHECK_STATUS(samrt_profile_write_csv("test_profile_keep.csv", NULL, 0), SAMRT_OK);
    text = tt_read("test_profile_keep.csv");
    CHECK(text && !strncmp(text, "platform,hostname,", 18));
    free(text);
    remove("test_profile_keep.csv");
}

static void test_formatting(void) {
    char buf[64];
    samrt_profile_timestamp(0, buf, sizeof buf);
    CHECK(!strcmp(buf, "1970-01-01T00:00:00Z"));
    samrt_profile_timestamp(1764513022, buf, sizeof buf);  /* 20423 days + 14:30:22 */
    CHECK_MSG(!strcmp(buf, "2025-11-30T14:30:22Z"), "%s", buf);
    samrt_profile_fmt_double(0.1, buf, sizeof buf);
    CHECK(!strcmp(buf, "0.1"));
    samrt_profile_fmt_double(100, buf, sizeof buf);
    CHECK(!strcmp(buf, "100"));
    samrt_profile_fmt_double(1234.5, buf, sizeof buf);
    CHECK(!strcmp(buf, "1234.5"));
    samrt_profile_fmt_double(-0.25, buf, sizeof buf);
    CHECK(!strcmp(buf, "-0.25"));
    samrt_profile_fmt_double(1.0 / 3.0, buf, sizeof buf);
    CHECK(!strcmp(buf, "0.3333333333333333"));
    CHECK(strtod(buf, NULL) == 1.0 / 3.0);
}

static void quiet_log(enum samrt_log_level level, const char *msg, void *user) {}

int main(void) {
    samrt_log_set(quiet_log, NULL, SAMRT_LOG_ERROR);  /* the errors provoked below stay quiet */
    test_columns();
    test_absent_and_quoting();
    test_percentiles();
    test_latency_recorder();
    test_derive();
    test_stats_json();
    test_config();
    test_atomic();
    test_formatting();
    return check_report("test_profile");
}
