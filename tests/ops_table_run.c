/* ops_table_run.c - the op table's runner, host part: building a row's case (its buffers),
 * listing and filtering rows, the comparison every backend uses, and the CPU checks: every
 * row's reference runs twice and must give the same bytes, write every output (outputs start
 * as NaN bytes) with finite values, and pass the op's hand-independent check where it has one.
 * --selftest moves one output element of one row of every op (its first small row) and requires
 * both the determinism check and the tolerance comparison to report it, so a real mismatch
 * cannot pass unnoticed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ops_table.h"
#include "test_util.h"

const struct ot_tol ot_tol_exact = {"exact", {0, 0, 0}, {0, 0, 0}, 1, 0};

static void *ot_xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) { fprintf(stderr, "host allocation of %zu bytes failed\n", bytes); exit(1); }
    return p;
}

size_t ot_buf_bytes(const struct ot_buf *b) {
    return b->n > 0 ? samrt_dtype_size(b->dt) * (size_t)b->n : 0;
}

int ot_buf_add(struct ot_case *c, enum samrt_dtype dt, long n, enum ot_role role) {
    if (c->nb == OT_MAX_BUFS) { fprintf(stderr, "%s: too many buffers\n", c->row->op->name); exit(1); }
    struct ot_buf *b = &c->b[c->nb];
    memset(b, 0, sizeof *b);
    b->dt = dt;
    b->n = n;
    b->role = role;
    b->alias = -1;
    return c->nb++;
}

int ot_buf_random(struct ot_case *c, enum samrt_dtype dt, long n, float lo, float hi) {
    const int i = ot_buf_add(c, dt, n, OT_IN);
    float *v = (float *)ot_xmalloc(sizeof(float) * (size_t)n);
    tu_fill_uniform(v, n, c->seed + 7919u * (uint64_t)i, lo, hi);
    c->b[i].init = ot_xmalloc(ot_buf_bytes(&c->b[i]));
    tu_store(dt, c->b[i].init, v, n);
    free(v);
    return i;
}

int ot_buf_copy(struct ot_case *c, enum samrt_dtype dt, long n, const void *src) {
    const int i = ot_buf_add(c, dt, n, OT_IN);
    c->b[i].init = memcpy(ot_xmalloc(ot_buf_bytes(&c->b[i])), src, ot_buf_bytes(&c->b[i]));
    return i;
}

int ot_buf_alias(struct ot_case *c, int of) {
    const int i = ot_buf_add(c, c->b[of].dt, c->b[of].n, OT_IN);
    c->b[i].alias = of;
    return i;
}

int ot_buf_null(struct ot_case *c) { return ot_buf_add(c, SAMRT_DTYPE_U8, -1, OT_IN); }

void ot_case_free(struct ot_case *c) {
    for (int i = 0; i < c->nb; i++) free(c->b[i].init);
    c->nb = 0;
}

float *ot_load(const struct ot_case *c, int i, const void *ptr) {
    const long n = c->b[i].n;
    float *v = (float *)ot_xmalloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (c->b[i].dt == SAMRT_DTYPE_U8)
        for (long k = 0; k < n; k++) v[k] = ((const uint8_t *)ptr)[k];
    else if (c->b[i].dt == SAMRT_DTYPE_I32)
        for (long k = 0; k < n; k++) v[k] = (float)((const int32_t *)ptr)[k];
    else tu_load(c->b[i].dt, v, ptr, n);
    return v;
}

const struct ot_row *ot_row_at(int i) {
    if (i < 0) return NULL;
    if (i < ot_n_rows_norm) return &ot_rows_norm[i];
    i -= ot_n_rows_norm;
    if (i < ot_n_rows_map) return &ot_rows_map[i];
    i -= ot_n_rows_map;
    if (i < ot_n_rows_misc) return &ot_rows_misc[i];
    i -= ot_n_rows_misc;
    if (i < ot_n_rows_sam2) return &ot_rows_sam2[i];
    i -= ot_n_rows_sam2;
    if (i < ot_n_rows_conv) return &ot_rows_conv[i];
    i -= ot_n_rows_conv;
    if (i < ot_n_rows_attn) return &ot_rows_attn[i];
    i -= ot_n_rows_attn;
    if (i < ot_n_rows_linalg) return &ot_rows_linalg[i];
    i -= ot_n_rows_linalg;
    return i < ot_n_rows_video ? &ot_rows_video[i] : NULL;
}

int ot_row_count(void) {
    return ot_n_rows_norm + ot_n_rows_map + ot_n_rows_misc + ot_n_rows_sam2 + ot_n_rows_conv + ot_n_rows_attn +
           ot_n_rows_linalg + ot_n_rows_video;
}

int ot_selftest_row(const struct ot_row *r) {
    const struct ot_row *first = NULL;
    for (int i = 0; ot_row_at(i); i++) {
        const struct ot_row *q = ot_row_at(i);
        if (q->op != r->op) continue;
        if (!(q->flags & (OT_BENCH | OT_GPU_ONLY))) return q == r;
        if (!first) first = q;
    }
    return first == r;
}

int ot_row_match(const struct ot_row *r, const char *filter) {
    char name[160];
    snprintf(name, sizeof name, "%s/%s", r->op->name, r->shape);
    return !filter || strstr(name, filter) != NULL;
}

static void ot_mask_names(unsigned m, char *buf, size_t len) {
    buf[0] = 0;
    for (int d = 0; d < OT_NDT; d++)
        if (m & (1u << d)) snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
                                    samrt_dtype_name((enum samrt_dtype)d));
}

void ot_row_list(const struct ot_row *r) {
    char dts[32], src[32];
    ot_mask_names(r->dts, dts, sizeof dts);
    ot_mask_names(r->src_dts, src, sizeof src);
    printf("ROW op=%s shape=%s dtype=%s%s%s tol=%s%s%s\n", r->op->name, r->shape, dts, r->src_dts ? " src=" : "",
           r->src_dts ? src : "", r->tol->name, r->flags & OT_BENCH ? " bench" : "",
           r->flags & OT_GPU_ONLY ? " gpu_only" : "");
}

int ot_case_setup(struct ot_case *c, const struct ot_row *r, enum samrt_dtype dt, enum samrt_dtype src) {
    memset(c, 0, sizeof *c);
    c->row = r;
    c->dt = dt;
    c->src = src;
    uint64_t h = 1469598103934665603ull;  /* FNV-1a of the row's name: seeds stay with the row */
    for (const char *s = r->shape; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    for (const char *s = r->op->name; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    c->seed = h + 31u * (uint64_t)dt + 977u * (uint64_t)src;
    r->op->setup(c);
    return c->nb;
}

void ot_case_name(const struct ot_case *c, char *buf, size_t len) {
    if (c->row->src_dts)
        snprintf(buf, len, "%s/%s [%s->%s]", c->row->op->name, c->row->shape, samrt_dtype_name(c->src),
                 samrt_dtype_name(c->dt));
    else snprintf(buf, len, "%s/%s [%s]", c->row->op->name, c->row->shape, samrt_dtype_name(c->dt));
}

void **ot_host_run(const struct ot_case *c) {
    void **p = (void **)ot_xmalloc(sizeof(void *) * OT_MAX_BUFS);
    for (int i = 0; i < c->nb; i++) {
        const struct ot_buf *b = &c->b[i];
        p[i] = NULL;
        if (b->alias >= 0 || b->n < 0) continue;
        p[i] = ot_xmalloc(ot_buf_bytes(b));
        if (b->init) memcpy(p[i], b->init, ot_buf_bytes(b));
        else memset(p[i], 0xff, ot_buf_bytes(b));  /* NaN in f32, f16 and bf16 */
    }
    for (int i = 0; i < c->nb; i++)
        if (c->b[i].alias >= 0) p[i] = p[c->b[i].alias];
    char name[192];
    ot_case_name(c, name, sizeof name);
    const enum samrt_status st = c->row->op->call(c, p, 0, NULL);
    CHECK_MSG(st == SAMRT_OK, "%s: reference returned %d", name, (int)st);
    return p;
}

void ot_host_free(const struct ot_case *c, void **p) {
    for (int i = 0; i < c->nb; i++)
        if (c->b[i].alias < 0) free(p[i]);
    free(p);
}

/* outputs the runner compares: OT_OUT and OT_INOUT buffers that are not aliases */
static int ot_compared(const struct ot_buf *b) {
    return b->alias < 0 && b->n > 0 && (b->role == OT_OUT || b->role == OT_INOUT);
}

long ot_compare(const struct ot_case *c, int i, const void *got, const void *want, const char *what) {
    const struct ot_buf *b = &c->b[i];
    const int exact = b->exact || c->row->tol->exact;
    const int d = c->dt <= SAMRT_DTYPE_BF16 ? (int)c->dt : 0;
    double atol = exact ? 0 : c->row->tol->atol[d];
    const double rtol = exact ? 0 : c->row->tol->rtol[d];
    float *g = ot_load(c, i, got), *w = ot_load(c, i, want);
    const long n = b->cmp > 0 ? b->cmp : b->n;
    long bad = 0, worst_i = -1;
    double worst = 0, max_ref = 0;
    if (c->row->tol->scaled && !exact) {
        double mx = 0;
        for (long k = 0; k < n; k++)
            if (fabs((double)w[k]) > mx) mx = fabs((double)w[k]);  /* NaN compares false: skipped */
        atol *= mx;
    }
    for (long k = 0; k < n; k++) {
        if (b->sampled && isnan(w[k])) continue;  /* not in the reference's sample */
        const double e = fabs((double)g[k] - (double)w[k]);
        const int ok = isnan(w[k]) ? isnan(g[k]) : exact ? g[k] == w[k] : e <= atol + rtol * fabs((double)w[k]);
        if (!ok && bad++ < 5)
            fprintf(stderr, "  %s buf %d [%ld]: got %.9g want %.9g\n", what, i, k, (double)g[k], (double)w[k]);
        if (!isnan(w[k]) && (e > worst || e != e)) { worst = e; worst_i = k; }
        if (fabs((double)w[k]) > max_ref) max_ref = fabs((double)w[k]);
    }
    if (bad)
        fprintf(stderr, "%s buf %d: %ld of %ld elements outside %s; worst |d| %.3g at %ld\n", what, i, bad, n,
                c->row->tol->name, worst, worst_i);
    if (getenv("SAMRT_TEST_ERRORS"))  /* one line per comparison, for error tables */
        printf("ERR %s buf %d | n %ld | max_abs %.3g | max_abs/max|ref| %.3g\n", what, i, n, worst,
               max_ref > 0 ? worst / max_ref : worst);
    free(g);
    free(w);
    return bad;
}

void ot_perturb(const struct ot_case *c, int i, void *host) {
    const long n = c->b[i].cmp > 0 ? c->b[i].cmp : c->b[i].n;
    long k = n / 2;
    const size_t es = samrt_dtype_size(c->b[i].dt);
    if (c->b[i].dt == SAMRT_DTYPE_U8 || c->b[i].dt == SAMRT_DTYPE_I32) {  /* flip the low bit */
        ((uint8_t *)host)[(size_t)k * es] ^= 1;
        return;
    }
    float *v = ot_load(c, i, host);
    for (long s = 0; c->b[i].sampled && s < n && isnan(v[k]); s++) k = (k + 1) % n;  /* one in the sample */
    v[k] = isnan(v[k]) ? 1.0f : v[k] + 0.5f + 0.5f * fabsf(v[k]);
    tu_store(c->b[i].dt, host, v, c->b[i].n);
    free(v);
}

/* The reference twice: the same bytes, every output written and finite, the op's check. */
static void ot_host_case(const struct ot_case *c, int selftest) {
    char name[192];
    ot_case_name(c, name, sizeof name);
    void **a = ot_host_run(c), **b = ot_host_run(c);
    int compared = 0;
    for (int i = 0; i < c->nb; i++) {
        if (!ot_compared(&c->b[i])) continue;
        compared++;
        const size_t bytes = ot_buf_bytes(&c->b[i]);
        if (selftest) {  /* a perturbed run must fail both the byte check and the comparison */
            ot_perturb(c, i, b[i]);
            CHECK_MSG(memcmp(a[i], b[i], bytes) != 0, "%s: selftest: perturbed output not seen", name);
            CHECK_MSG(ot_compare(c, i, a[i], b[i], "selftest (expected)") > 0, "%s: selftest: compare passed", name);
            continue;
        }
        const long n = c->b[i].cmp > 0 ? c->b[i].cmp : c->b[i].n;
        const size_t cmp_bytes = c->b[i].cmp > 0 ? samrt_dtype_size(c->b[i].dt) * (size_t)n : bytes;
        CHECK_MSG(memcmp(a[i], b[i], cmp_bytes) == 0, "%s buf %d: two reference runs differ", name, i);
        if (!(c->row->flags & OT_NAN_OK) && c->b[i].dt <= SAMRT_DTYPE_BF16) {
            float *v = ot_load(c, i, a[i]);
            long bad = 0, in_sample = 0;
            for (long k = 0; k < n; k++) {  /* a sampled output: the sample is written and finite */
                in_sample += !isnan(v[k]);
                bad += c->b[i].sampled ? isinf(v[k]) != 0 : !isfinite(v[k]);
            }
            bad += in_sample == 0;
            free(v);
            CHECK_MSG(bad == 0, "%s buf %d: %ld of %ld outputs not written or not finite", name, i, bad, n);
        }
    }
    CHECK_MSG(compared > 0, "%s: the row has no output to compare", name);
    if (c->row->op->check && !selftest) {
        const long bad = c->row->op->check(c, a);
        CHECK_MSG(bad == 0, "%s: %ld outputs fail the op's own check", name, bad);
    }
    ot_host_free(c, a);
    ot_host_free(c, b);
}

int ot_host_failures(void) { return g_check_failures; }
int ot_host_checks(void) { return g_check_count; }

int ot_has_flag(int argc, char **argv, const char *flag) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], flag) == 0) return 1;
    return 0;
}

const char *ot_filter_arg(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-') return argv[i];
    return NULL;
}

static int ot_first_only;  /* host: production rows at their first dtype pair only */

/* Every (row, dtype, source dtype) the filter selects (only --selftest's rows when selftest);
 * fn runs one case. A setup that adds no buffer declares the dtype pair unsupported: skipped. */
int ot_for_each_case(const char *filter, int selftest, void (*fn)(const struct ot_case *c, void *user), void *user) {
    int n = 0;
    for (int i = 0; ot_row_at(i); i++) {
        const struct ot_row *r = ot_row_at(i);
        if (!ot_row_match(r, filter) || (selftest && !ot_selftest_row(r))) continue;
        int done = 0;
        for (int d = 0; d < OT_NDT; d++) {
            if (!(r->dts & (1u << d))) continue;
            for (int s = 0; s < OT_NDT; s++) {
                if (r->src_dts ? !(r->src_dts & (1u << s)) : s != d) continue;
                if (done && ot_first_only && (r->flags & OT_BENCH)) continue;
                struct ot_case c;
                if (ot_case_setup(&c, r, (enum samrt_dtype)d, (enum samrt_dtype)s) == 0) continue;
                fn(&c, user);
                ot_case_free(&c);
                n++;
                done++;
            }
        }
    }
    return n;
}

static void ot_host_case_cb(const struct ot_case *c, void *user) {
    int *skipped = (int *)user;
    if (c->row->flags & OT_GPU_ONLY) (*skipped)++;
    else ot_host_case(c, 0);
}
static void ot_host_selftest_cb(const struct ot_case *c, void *user) { ot_host_case(c, 1); (void)user; }

int ot_run_host(int argc, char **argv) {  /* [--list] [--selftest] [--all-dtypes] [filter] */
    const char *filter = ot_filter_arg(argc, argv);
    if (ot_has_flag(argc, argv, "--list")) {
        for (int i = 0; ot_row_at(i); i++)
            if (ot_row_match(ot_row_at(i), filter)) ot_row_list(ot_row_at(i));
        return 0;
    }
    if (ot_has_flag(argc, argv, "--selftest")) {  /* one row of every op, each of its dtypes */
        const int n = ot_for_each_case(filter, 1, ot_host_selftest_cb, NULL);
        printf("test_ops_table --selftest: %d cases (one row of each op x dtypes), each output moved\n", n);
        CHECK_MSG(n > 0, "no selftest row matches '%s'", filter ? filter : "");
        return check_report("test_ops_table --selftest");
    }
    /* The references convert at their loads and stores only, so the odd rows carry every
     * dtype; the production rows (millions of elements, minutes in a Debug build) run at their
     * first dtype unless --all-dtypes asks for every one. */
    ot_first_only = !ot_has_flag(argc, argv, "--all-dtypes");
    int gpu_only = 0;
    const int n = ot_for_each_case(filter, 0, ot_host_case_cb, &gpu_only);
    printf("test_ops_table: %d cases (rows x dtypes) on the host references, %d of them GPU-only (skipped)\n", n,
           gpu_only);
    CHECK_MSG(n > 0, "no row matches '%s'", filter ? filter : "");
    return check_report("test_ops_table");
}
