/* csv.c - RFC 4180 reader and writer (see csv.h). The parser is one pass over the bytes
 * that copies unescaped cells into a single buffer of 2*len+2 bytes: a cell is never longer
 * than its source text, and each of the at most len+1 cells needs one NUL, so the buffer
 * never grows and cell pointers stay valid while the pointer tables are built. */
#include "csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "samrt_impl.h"

static void set_err(char *err, size_t err_len, const char *fmt, ...) SAMRT_PRINTF(3, 4);
static void set_err(char *err, size_t err_len, const char *fmt, ...) {
    if (!err || !err_len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* Growable arrays used only while parsing. */
struct grow {
    void *p;
    size_t n, cap, elem;
};
static int grow_push(struct grow *g, const void *v) {
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 64;
        void *p = realloc(g->p, cap * g->elem);
        if (!p) return -1;
        g->p = p;
        g->cap = cap;
    }
    memcpy((char *)g->p + g->n * g->elem, v, g->elem);
    g->n++;
    return 0;
}

void samrt_csv_free(struct samrt_csv *t) {
    if (!t) return;
    if (t->fields && t->n_rows) free(t->fields[0]);  /* the cell-pointer block */
    free(t->fields);
    free(t->n_fields);
    free(t->line);
    free(t->text);
    memset(t, 0, sizeof *t);
}

/* The scanner state of samrt_csv_parse: text[pos..len) is read into w (cells NUL-terminated,
 * quotes undone), line counts the input lines. */
struct scan {
    const char *text;
    size_t len, pos, line;
    char *w;
    char *err;
    size_t err_len;
};

/* A quoted field, from its opening quote to what follows the closing one; 0, or -1 with the
 * error set. */
static int scan_quoted(struct scan *sc) {
    const char *text = sc->text;
    const size_t len = sc->len;
    size_t q_line = sc->line;
    sc->pos++;
    for (;;) {
        if (sc->pos >= len) {
            set_err(sc->err, sc->err_len, "line %zu: quoted field never closed", q_line);
            return -1;
        }
        char c = text[sc->pos];
        if (c == '"') {
            if (sc->pos + 1 < len && text[sc->pos + 1] == '"') {
                *sc->w++ = '"';
                sc->pos += 2;
                continue;
            }
            sc->pos++;
            break;
        }
        if (c == '\0') {
            set_err(sc->err, sc->err_len, "line %zu: NUL byte", sc->line);
            return -1;
        }
        if (c == '\n') sc->line++;
        *sc->w++ = c;
        sc->pos++;
    }
    const size_t pos = sc->pos;
    if (pos < len && text[pos] != ',' && text[pos] != '\n' &&
        !(text[pos] == '\r' && pos + 1 < len && text[pos + 1] == '\n')) {
        set_err(sc->err, sc->err_len, "line %zu: text after the closing quote of a field", sc->line);
        return -1;
    }
    return 0;
}

/* An unquoted field, up to the comma or line end; 0, or -1 with the error set. */
static int scan_plain(struct scan *sc) {
    const char *text = sc->text;
    const size_t len = sc->len;
    while (sc->pos < len && text[sc->pos] != ',' && text[sc->pos] != '\n') {
        char c = text[sc->pos];
        if (c == '\r') {
            if (sc->pos + 1 < len && text[sc->pos + 1] == '\n') break;
            set_err(sc->err, sc->err_len, "line %zu: carriage return without a line feed", sc->line);
            return -1;
        }
        if (c == '"') {
            set_err(sc->err, sc->err_len, "line %zu: quote inside an unquoted field", sc->line);
            return -1;
        }
        if (c == '\0') {
            set_err(sc->err, sc->err_len, "line %zu: NUL byte", sc->line);
            return -1;
        }
        *sc->w++ = c;
        sc->pos++;
    }
    return 0;
}

enum samrt_status samrt_csv_parse(const char *text, size_t len, struct samrt_csv *out, char *err,
                                  size_t err_len) {
    if (!out) return SAMRT_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!text && len) return SAMRT_E_INVALID_ARG;
    if (len > (SIZE_MAX - 2) / 2) return SAMRT_E_INVALID_ARG;
    enum samrt_status st = SAMRT_E_FORMAT;
    struct grow cells = {NULL, 0, 0, sizeof(char *)};   /* every cell, rows concatenated */
    struct grow starts = {NULL, 0, 0, sizeof(size_t)};  /* first cell index of each row */
    struct grow lines = {NULL, 0, 0, sizeof(size_t)};
    char *buf = malloc(2 * len + 2);
    if (!buf) return SAMRT_E_HOST_MEMORY;
    struct scan sc = {text, len, 0, 1, buf, err, err_len};
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) sc.pos = 3;

    while (sc.pos < len) {
        if (text[sc.pos] == '\n' || (text[sc.pos] == '\r' && sc.pos + 1 < len && text[sc.pos + 1] == '\n')) {
            sc.pos += text[sc.pos] == '\r' ? 2 : 1;  /* blank line */
            sc.line++;
            continue;
        }
        size_t rec_line = sc.line;
        if (grow_push(&starts, &cells.n) || grow_push(&lines, &rec_line)) goto oom;
        for (;;) {
            char *cell = sc.w;
            if (sc.pos < len && text[sc.pos] == '"' ? scan_quoted(&sc) : scan_plain(&sc)) goto fail;
            *sc.w++ = '\0';
            if (grow_push(&cells, &cell)) goto oom;
            if (sc.pos >= len) break;
            if (text[sc.pos] == ',') {
                sc.pos++;
                continue;
            }
            sc.pos += text[sc.pos] == '\r' ? 2 : 1;  /* CRLF or LF ends the record */
            sc.line++;
            break;
        }
    }

    size_t n_rows = starts.n;
    out->text = buf;
    if (n_rows) {
        out->n_fields = malloc(n_rows * sizeof(size_t));
        out->fields = malloc(n_rows * sizeof(char **));
        out->line = malloc(n_rows * sizeof(size_t));
        if (!out->n_fields || !out->fields || !out->line) goto oom_out;
        const size_t *s = starts.p;
        for (size_t r = 0; r < n_rows; r++) {
            size_t end = r + 1 < n_rows ? s[r + 1] : cells.n;
            out->n_fields[r] = end - s[r];
            out->fields[r] = (char **)cells.p + s[r];
            out->line[r] = ((const size_t *)lines.p)[r];
        }
        cells.p = NULL;  /* now owned through fields[0] */
    }
    out->n_rows = n_rows;
    free(cells.p);
    free(starts.p);
    free(lines.p);
    return SAMRT_OK;

oom_out:
    out->text = NULL;
    free(out->n_fields);
    free(out->fields);
    free(out->line);
    memset(out, 0, sizeof *out);
oom:
    set_err(err, err_len, "out of memory");
    st = SAMRT_E_HOST_MEMORY;
fail:
    free(buf);
    free(cells.p);
    free(starts.p);
    free(lines.p);
    return st;
}

enum samrt_status samrt_csv_read_file(const char *path, struct samrt_csv *out, char *err,
                                      size_t err_len) {
    if (!path || !out) return SAMRT_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(err, err_len, "cannot open: %s", strerror(errno));
        return SAMRT_E_IO;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return SAMRT_E_HOST_MEMORY;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= ((size_t)1 << 30)) {
                set_err(err, err_len, "file larger than 1 GiB");
                free(buf);
                fclose(f);
                return SAMRT_E_FORMAT;
            }
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                fclose(f);
                return SAMRT_E_HOST_MEMORY;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        set_err(err, err_len, "read error");
        free(buf);
        return SAMRT_E_IO;
    }
    enum samrt_status st = samrt_csv_parse(buf, len, out, err, err_len);
    free(buf);
    return st;
}

enum samrt_status samrt_csv_read_table(const char *path, struct samrt_csv *out, char *err,
                                       size_t err_len) {
    enum samrt_status st = samrt_csv_read_file(path, out, err, err_len);
    if (st == SAMRT_OK && (st = samrt_csv_check_rect(out, err, err_len)) != SAMRT_OK) samrt_csv_free(out);
    return st;
}

int samrt_csv_col(const struct samrt_csv *t, const char *name) {
    if (!t || !t->n_rows || !name) return -1;
    for (size_t c = 0; c < t->n_fields[0]; c++)
        if (!strcmp(t->fields[0][c], name)) return (int)c;
    return -1;
}

const char *samrt_csv_cell(const struct samrt_csv *t, size_t row, int col) {
    if (!t || row >= t->n_rows || col < 0 || (size_t)col >= t->n_fields[row]) return "";
    return t->fields[row][col];
}

enum samrt_status samrt_csv_check_rect(const struct samrt_csv *t, char *err, size_t err_len) {
    if (!t || !t->n_rows) {
        set_err(err, err_len, "no header line");
        return SAMRT_E_FORMAT;
    }
    for (size_t r = 1; r < t->n_rows; r++)
        if (t->n_fields[r] != t->n_fields[0]) {
            set_err(err, err_len, "line %zu: %zu fields, the header has %zu", t->line[r],
                    t->n_fields[r], t->n_fields[0]);
            return SAMRT_E_FORMAT;
        }
    return SAMRT_OK;
}

void samrt_csv_write_field(FILE *f, const char *s) {
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void samrt_csv_write_row(FILE *f, const char *const *fields, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', f);
        samrt_csv_write_field(f, fields[i]);
    }
    fputc('\n', f);
}
