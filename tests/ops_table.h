/* ops_table.h - the op table of test_ops_table (after llama.cpp's test-backend-ops): every
 * kernel with a plain-C reference and a CUDA launcher is one op here, with rows for the
 * shapes SAM 2.1 tiny / base_plus and EdgeTAM run at 1024 input and for odd shapes (tails,
 * sizes that are not multiples of 8, one element, unaligned pointers, in-place use). A row
 * names its dtypes and its tolerance rule; the op describes its buffers (ot_case) and calls
 * the reference or the launcher on pointers the runner allocates, so one runner checks every
 * row on every backend the build has:
 *   host  : the reference twice (bit-identical), every output written and finite, and the
 *           op's own hand-independent check where one is cheap (a naive loop, an invariant);
 *   cuda  : the launcher against the reference, outputs poisoned with NaN bytes first, in
 *           each of the op's variants (split-K and tile choices of the attention).
 * Library ops (cuBLASLt, cuDNN) plan on the GPU runner's handles through ot_op.gpu_prepare.
 * The references of the largest products compute a sample of rows (ot_buf.sampled); rows
 * flagged OT_GPU_ONLY skip the host's reference-twice check (the CPU runner's time budget).
 * --selftest moves one output element of one row of every op (ot_selftest_row).
 * The rows live in ops_table_<area>.c; the runners in ops_table_run.c (host) and
 * ops_table_cuda.c (GPU). */
#ifndef SAMRT_TEST_OPS_TABLE_H
#define SAMRT_TEST_OPS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "samrt.h"

/* dtype masks of a row */
#define OT_F32 (1u << SAMRT_DTYPE_F32)
#define OT_F16 (1u << SAMRT_DTYPE_F16)
#define OT_BF16 (1u << SAMRT_DTYPE_BF16)
#define OT_FLOATS (OT_F32 | OT_F16 | OT_BF16)
#define OT_U8 (1u << SAMRT_DTYPE_U8)   /* raw bytes (row copies) */
#define OT_NDT SAMRT_DTYPE_I64          /* dtypes a row may name: f32 .. i32 */

/* row flags */
#define OT_BENCH 1u    /* timed by --bench (a production shape) */
#define OT_NAN_OK 2u   /* outputs may hold NaN (NaN inputs, untouched padding) */
#define OT_GPU_ONLY 4u /* host: not run by test_ops_table (a production shape whose reference
                        * takes seconds, twice over, on a 2-core CI runner); the GPU part still
                        * runs its reference once and compares */

/* buffer roles */
enum ot_role {
    OT_IN,       /* uploaded, not compared */
    OT_OUT,      /* starts as NaN bytes, compared */
    OT_INOUT,    /* uploaded, compared (written in place) */
    OT_SCRATCH,  /* starts as NaN bytes, not compared (the launcher's workspace) */
};

/* Per-dtype tolerance (indexed by enum samrt_dtype, f32 / f16 / bf16): an output element
 * passes when |got - want| <= atol + rtol * |want|; exact = values equal (NaN matches NaN). */
struct ot_tol {
    const char *name;
    double atol[3], rtol[3];
    int exact;
    int scaled;   /* atol is a fraction of max |want| over the compared elements (long sums
                   * whose rounding grows with the output's scale: GEMM, conv, attention) */
};

struct ot_case;
struct samrt_gpu_ctx;
struct ot_row;

/* Calls the reference (gpu = 0) or the launcher on stream (gpu = 1) with the case's buffers. */
typedef enum samrt_status (*ot_call_fn)(const struct ot_case *c, void *const *p, int gpu, void *stream);

struct ot_op {
    const char *name;
    void (*setup)(struct ot_case *c);   /* the buffers of c->row at c->dt / c->src */
    ot_call_fn call;
    /* optional, host: hand-independent check of the reference's outputs in p; returns the
     * number of elements that fail it */
    long (*check)(const struct ot_case *c, void *const *p);
    /* optional, GPU: the device-side setup of variant v of a case (library plans on the
     * runner's handles, a workspace, the split / tile choice), called before the launcher with
     * its device buffers d; returns 1 to run the variant, 0 to skip it (it does not apply or
     * repeats an earlier one), -1 on failure. gpu_free releases c->gpu after the variant.
     * Variant 0 is the one --bench times. */
    int (*gpu_prepare)(struct ot_case *c, const struct samrt_gpu_ctx *ctx, void *const *d, int v);
    void (*gpu_free)(struct ot_case *c);
    int n_variants;                     /* 0 or 1: one */
};

struct ot_row {
    const struct ot_op *op;
    const char *shape;      /* the row's name */
    unsigned dts;           /* output / compute dtypes */
    unsigned src_dts;       /* source dtypes of converting ops; 0 = the same as dt */
    const struct ot_tol *tol;
    unsigned flags;
    long p[10];             /* the op's integer parameters */
    float f[4];             /* the op's float parameters */
};

#define OT_MAX_BUFS 8

struct ot_buf {
    enum samrt_dtype dt;    /* element type (U8: bytes, I32: words) */
    long n;                 /* elements */
    enum ot_role role;
    int alias;              /* >= 0: the same memory as that buffer (in-place use) */
    int misalign;           /* device pointer one element past an aligned start */
    int exact;              /* compared bit for bit whatever the row's tolerance */
    long cmp;               /* > 0: only the first cmp elements are the output (the rest: scratch) */
    int sampled;            /* the reference writes a sample of the elements (a few rows of a
                             * large product) and leaves NaN elsewhere: only the sample is
                             * compared, every other element must merely be written */
    void *init;             /* OT_IN / OT_INOUT contents (malloc'd, dt storage) */
};

struct ot_case {
    const struct ot_row *row;
    enum samrt_dtype dt, src;
    uint64_t seed;
    struct ot_buf b[OT_MAX_BUFS];
    int nb;
    double moved;           /* bytes the op must move (BENCH GBps) */
    long v[4];              /* values setup derives for call */
    double flops;           /* > 0: BENCH prints TFLOPs too */
    void *gpu;              /* the op's device-side state (gpu_prepare) */
};

/* setup helpers (ops_table_run.c) */
int ot_buf_add(struct ot_case *c, enum samrt_dtype dt, long n, enum ot_role role);
int ot_buf_random(struct ot_case *c, enum samrt_dtype dt, long n, float lo, float hi);  /* OT_IN, seeded */
int ot_buf_copy(struct ot_case *c, enum samrt_dtype dt, long n, const void *src);       /* OT_IN */
int ot_buf_alias(struct ot_case *c, int of);
int ot_buf_null(struct ot_case *c);                                                     /* a NULL argument */
float *ot_load(const struct ot_case *c, int i, const void *ptr);  /* buffer i as floats (free);
                                                                     u8 / i32 as their values */
size_t ot_buf_bytes(const struct ot_buf *b);
void ot_case_free(struct ot_case *c);

/* runner helpers shared by the host and GPU parts */
const struct ot_row *ot_row_at(int i);   /* NULL past the end */
int ot_row_count(void);
int ot_row_match(const struct ot_row *r, const char *filter);
void ot_row_list(const struct ot_row *r);
int ot_case_setup(struct ot_case *c, const struct ot_row *r, enum samrt_dtype dt, enum samrt_dtype src);
void **ot_host_run(const struct ot_case *c);                  /* buffers + one reference call */
void ot_host_free(const struct ot_case *c, void **p);
/* got against want (both dt storage) under the rule of buffer i; prints the first misses and
 * an ERR line under SAMRT_TEST_ERRORS; returns the number of failing elements. */
long ot_compare(const struct ot_case *c, int i, const void *got, const void *want, const char *what);
void ot_perturb(const struct ot_case *c, int i, void *host);  /* moves one output element */
void ot_case_name(const struct ot_case *c, char *buf, size_t len);
/* every (row, dtype, source dtype) the filter selects, one fn call each (selftest: only the
 * rows ot_selftest_row picks); returns the count */
int ot_for_each_case(const char *filter, int selftest, void (*fn)(const struct ot_case *c, void *user), void *user);
int ot_host_failures(void);                                    /* checks failed / made in */
int ot_host_checks(void);                                      /* ops_table_run.c */
/* --selftest's rows: the first row of each op that is neither a bench nor a GPU-only row (else
 * its first row) */
int ot_selftest_row(const struct ot_row *r);
int ot_run_host(int argc, char **argv);                        /* the CPU part's main */
int ot_run_cuda(int argc, char **argv);                        /* the GPU part's main */
const char *ot_filter_arg(int argc, char **argv);
int ot_has_flag(int argc, char **argv, const char *flag);

/* the tables */
extern const struct ot_row ot_rows_norm[];
extern const int ot_n_rows_norm;
extern const struct ot_row ot_rows_map[];
extern const int ot_n_rows_map;
extern const struct ot_row ot_rows_misc[];
extern const int ot_n_rows_misc;
extern const struct ot_row ot_rows_sam2[];
extern const int ot_n_rows_sam2;
extern const struct ot_row ot_rows_conv[];
extern const int ot_n_rows_conv;
extern const struct ot_row ot_rows_attn[];
extern const int ot_n_rows_attn;
extern const struct ot_row ot_rows_linalg[];
extern const int ot_n_rows_linalg;
extern const struct ot_row ot_rows_video[];
extern const int ot_n_rows_video;

/* the common tolerance rules */
extern const struct ot_tol ot_tol_exact;

#ifdef SAMRT_HAVE_CUDA
#define OT_GPU(call) (call)
#else
#define OT_GPU(call) SAMRT_E_UNSUPPORTED
#endif

#endif /* SAMRT_TEST_OPS_TABLE_H */
