/* csv.h - a small RFC 4180 CSV reader and writer for the profiling tools (merge, compare,
 * report). The reader keeps every cell as text, exactly as written: an empty cell stays an
 * empty string (never "0"), quoted fields may hold commas, quotes ("" inside quotes) and
 * line breaks, and lines may end in LF or CRLF. It loads the whole file at once: profile
 * CSVs are a few thousand rows at most.
 *
 * Usage:
 *   struct samrt_csv t;
 *   char err[256];
 *   if (samrt_csv_read_file("profile_summary.csv", &t, err, sizeof err) != SAMRT_OK) ...
 *   int fps = samrt_csv_col(&t, "fps");          // header index, -1 when absent
 *   for (size_t r = 1; r < t.n_rows; r++) use(samrt_csv_cell(&t, r, fps));
 *   samrt_csv_free(&t);
 *
 * Tolerated beyond RFC 4180 (what spreadsheet exports produce): a UTF-8 byte-order mark at
 * the start, a missing final line break, and blank lines, which are skipped. Refused with
 * SAMRT_E_FORMAT and the line number in err: a quote inside an unquoted field, text after a
 * closing quote, an unterminated quoted field, and NUL bytes.
 */
#ifndef SAMRT_HARNESS_CSV_H
#define SAMRT_HARNESS_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "samrt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct samrt_csv {
    size_t n_rows;      /* row 0 is the header when the file has one */
    size_t *n_fields;   /* (n_rows) fields in each row */
    char ***fields;     /* (n_rows)(n_fields[r]) NUL-terminated cells; owned by the table */
    size_t *line;       /* (n_rows) 1-based line where each row starts, for messages */
    char *text;         /* unescaped cell storage */
};

/* Parses len bytes of text. On failure the table is empty and err says where and why. */
enum samrt_status samrt_csv_parse(const char *text, size_t len, struct samrt_csv *out, char *err,
                                  size_t err_len);
/* Reads and parses a file; SAMRT_E_IO when it cannot be read. */
enum samrt_status samrt_csv_read_file(const char *path, struct samrt_csv *out, char *err,
                                      size_t err_len);
/* samrt_csv_read_file, then samrt_csv_check_rect: a header and same-width rows. */
enum samrt_status samrt_csv_read_table(const char *path, struct samrt_csv *out, char *err,
                                       size_t err_len);
void samrt_csv_free(struct samrt_csv *t);

/* Index of the header cell equal to name, or -1. */
int samrt_csv_col(const struct samrt_csv *t, const char *name);
/* The cell at (row, col); "" when the row is shorter or col < 0. Never NULL. */
const char *samrt_csv_cell(const struct samrt_csv *t, size_t row, int col);
/* SAMRT_OK when every row has as many fields as the header; otherwise err names the first
 * short or long row (line number, count found and expected). */
enum samrt_status samrt_csv_check_rect(const struct samrt_csv *t, char *err, size_t err_len);

/* Writes one field, quoted only when it holds a comma, a quote, CR or LF (RFC 4180). */
void samrt_csv_write_field(FILE *f, const char *s);
/* Writes n fields separated by commas and ends the record with LF. NULL fields are empty. */
void samrt_csv_write_row(FILE *f, const char *const *fields, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* SAMRT_HARNESS_CSV_H */
