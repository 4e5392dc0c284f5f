/* test_csv.c - the RFC 4180 reader and writer of harness/csv.c: quoting, doubled quotes,
 * line breaks inside quotes, CRLF, empty cells kept empty, blank lines, BOM, and every
 * malformed input refused with a line number. Expected cells are written out by hand.
 * Run: ctest -R test_csv */
#include <string.h>

#include "check.h"
#include "csv.h"

static int parse(const char *text, struct samrt_csv *t, char *err, size_t len) {
    return samrt_csv_parse(text, strlen(text), t, err, len);
}

#define CELL_IS(t, r, c, want)                                                                    \
    CHECK_MSG(!strcmp(samrt_csv_cell(t, r, c), want), "cell (%d,%d) is '%s', want '%s'", (int)(r), \
              (int)(c), samrt_csv_cell(t, r, c), want)

static void test_basic(void) {
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(parse("a,b,c\n1,2,3\n", &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 2);
    CHECK_EQ_INT(t.n_fields[0], 3);
    CHECK_EQ_INT(t.n_fields[1], 3);
    CELL_IS(&t, 0, 2, "c");
    CELL_IS(&t, 1, 0, "1");
    CHECK_EQ_INT(samrt_csv_col(&t, "b"), 1);
    CHECK_EQ_INT(samrt_csv_col(&t, "B"), -1);
    CELL_IS(&t, 5, 0, "");  /* out of range reads as empty, never crashes */
    CELL_IS(&t, 1, 7, "");
    CELL_IS(&t, 1, -1, "");
    CHECK_STATUS(samrt_csv_check_rect(&t, err, sizeof err), SAMRT_OK);
    samrt_csv_free(&t);
}

static void test_quoted(void) {
    struct samrt_csv t;
    char err[128];
    const char *text = "name,note,path\n"
                       "\"x,y\",\"he said \"\"hi\"\"\",\"line1\nline2\"\n"
                       "\"\",\"a\r\nb\",plain\n";
    CHECK_STATUS(parse(text, &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 3);
    CELL_IS(&t, 1, 0, "x,y");
    CELL_IS(&t, 1, 1, "he said \"hi\"");
    CELL_IS(&t, 1, 2, "line1\nline2");
    CELL_IS(&t, 2, 0, "");
    CELL_IS(&t, 2, 1, "a\r\nb");  /* CRLF inside quotes is data */
    CELL_IS(&t, 2, 2, "plain");
    CHECK_EQ_INT(t.line[1], 2);
    CHECK_EQ_INT(t.line[2], 4);   /* row 1 spans lines 2-3 */
    samrt_csv_free(&t);
}

static void test_crlf_and_empty(void) {
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(parse("a,b,c\r\n1,,3\r\n,,\r\n4,5,\r\n", &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 4);
    CELL_IS(&t, 0, 2, "c");  /* no stray \r */
    CELL_IS(&t, 1, 1, "");
    CELL_IS(&t, 1, 2, "3");
    CHECK_EQ_INT(t.n_fields[2], 3);
    CELL_IS(&t, 2, 0, "");
    CELL_IS(&t, 2, 2, "");
    CHECK_EQ_INT(t.n_fields[3], 3);
    CELL_IS(&t, 3, 2, "");
    samrt_csv_free(&t);

    /* no final newline, trailing comma at EOF, blank lines, BOM */
    CHECK_STATUS(parse("\xEF\xBB\xBFh1,h2\n\n1,2\r\n\r\n3,", &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 3);
    CELL_IS(&t, 0, 0, "h1");
    CELL_IS(&t, 2, 0, "3");
    CHECK_EQ_INT(t.n_fields[2], 2);
    CELL_IS(&t, 2, 1, "");
    CHECK_EQ_INT(t.line[2], 5);
    samrt_csv_free(&t);

    CHECK_STATUS(parse("", &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 0);
    CHECK_STATUS(samrt_csv_check_rect(&t, err, sizeof err), SAMRT_E_FORMAT);
    samrt_csv_free(&t);
}

static void test_malformed(void) {
    static const struct { const char *text; const char *what; int line; } bad[] = {
        {"a,b\n1,x\"y\n", "quote inside", 2},
        {"a,b\n\"ab\"c,d\n", "after the closing quote", 2},
        {"a,b\n1,2\n\"never closed,3\n", "never closed", 3},
        {"a,b\r1,2\n", "carriage return", 1},
        {"a,\"b\"\rc\n", "after the closing quote", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct samrt_csv t;
        char err[128] = "", want[32];
        CHECK_STATUS(parse(bad[i].text, &t, err, sizeof err), SAMRT_E_FORMAT);
        CHECK_MSG(strstr(err, bad[i].what) != NULL, "case %zu: '%s' lacks '%s'", i, err, bad[i].what);
        snprintf(want, sizeof want, "line %d:", bad[i].line);
        CHECK_MSG(strstr(err, want) != NULL, "case %zu: '%s' lacks '%s'", i, err, want);
        CHECK_EQ_INT(t.n_rows, 0);
        samrt_csv_free(&t);
    }
    /* a NUL byte inside the text */
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_parse("a,b\n1,\0\n", 8, &t, err, sizeof err), SAMRT_E_FORMAT);
    CHECK(strstr(err, "NUL") != NULL);
    /* ragged rows parse, and the rectangle check names the line */
    CHECK_STATUS(parse("a,b,c\n1,2,3\n4,5\n", &t, err, sizeof err), SAMRT_OK);
    CHECK_STATUS(samrt_csv_check_rect(&t, err, sizeof err), SAMRT_E_FORMAT);
    CHECK_MSG(strstr(err, "line 3: 2 fields, the header has 3") != NULL, "%s", err);
    samrt_csv_free(&t);
}

static void test_write_roundtrip(void) {
    const char *cells[] = {"plain", "with,comma", "with \"quote\"", "two\nlines", "cr\r\nlf", "", " spaced "};
    const size_t n = sizeof cells / sizeof cells[0];
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    samrt_csv_write_row(f, cells, n);
    samrt_csv_write_row(f, cells, n);
    long len = ftell(f);
    rewind(f);
    char buf[512];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    CHECK_EQ_INT(got, len);
    const char *want_line =
        "plain,\"with,comma\",\"with \"\"quote\"\"\",\"two\nlines\",\"cr\r\nlf\",, spaced \n";
    CHECK_MSG(!strncmp(buf, want_line, strlen(want_line)), "written: %s", buf);
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_parse(buf, got, &t, err, sizeof err), SAMRT_OK);
    CHECK_EQ_INT(t.n_rows, 2);
    for (size_t r = 0; r < t.n_rows; r++)
        for (size_t c = 0; c < n; c++) CELL_IS(&t, r, (int)c, cells[c]);
    samrt_csv_free(&t);
}

static void test_read_file(void) {
    struct samrt_csv t;
    char err[128];
    CHECK_STATUS(samrt_csv_read_file("no/such/file.csv", &t, err, sizeof err), SAMRT_E_IO);
    CHECK_STATUS(samrt_csv_read_table("no/such/file.csv", &t, err, sizeof err), SAMRT_E_IO);
    FILE *f = fopen("test_csv_ragged.csv", "wb");
    CHECK(f != NULL);
    if (!f) return;
    fputs("a,b\n1\n", f);
    fclose(f);
    CHECK_STATUS(samrt_csv_read_file("test_csv_ragged.csv", &t, err, sizeof err), SAMRT_OK);
    samrt_csv_free(&t);
    CHECK_STATUS(samrt_csv_read_table("test_csv_ragged.csv", &t, err, sizeof err), SAMRT_E_FORMAT);
    CHECK_EQ_INT(t.n_rows, 0);
    remove("test_csv_ragged.csv");
}

int main(void) {
    test_basic();
    test_quoted();
    test_crlf_and_empty();
    test_malformed();
    test_write_roundtrip();
    test_read_file();
    return check_report("test_csv");
}
